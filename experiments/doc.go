// Package experiments makes results code: an experiment is a committed
// file (docs/experiments/NAME.toml) naming the sweeps whose runs make a
// figure, with the build and thread count they were made with; its runs
// become rows of one results schema (runs.csv, one row per run, and
// summary.csv, mean, sample sd, n and a 95% interval per configuration),
// and the results pages (docs/RESULTS.md, the README's headline table)
// and figures (methods.png from summary.csv, iterations.png from
// iterations.csv) are generated from those files, so a figure in the docs
// is always the CSV's. `maple reproduce NAME` runs an experiment (resuming where it
// stopped) and writes its files; `maple reproduce NAME --check` reruns it
// and compares with the committed rows.
package experiments
