package experiments

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// File is an experiment file, docs/experiments/NAME.toml.
type File struct {
	Name  string `toml:"-"` // the file's base name without .toml
	Path  string `toml:"-"`
	Title string `toml:"title"` // the results page's heading (required)
	About string `toml:"about"` // what the experiment measures and how to read it (Markdown)
	// Build is the go build -tags of the binary whose figures are
	// committed: "" the pure-Go build, "openblas", "openblas,onednn".
	// The float32 rounding depends on it.
	Build string `toml:"build"`
	// Threads is the number of CPU threads the committed figures were
	// made with (OpenBLAS and oneDNN split a product's sums by thread).
	Threads int `toml:"threads"`
	// Env is the environment, beyond build and threads, the committed
	// figures were made in: variables that choose the kernels' arithmetic
	// and are read when the libraries load (ONEDNN_MAX_CPU_ISA,
	// OPENBLAS_CORETYPE), so that one machine computes as another would.
	// maple reproduce refuses to run without them. An experiment with an
	// Env neither lends its rows to other experiments nor borrows theirs.
	// Default none.
	Env map[string]string `toml:"env"`
	// Headline lists the methods (as the tables name them: erm,
	// maple/rex) whose rows the README's headline table quotes: a
	// method's row on its defaults, or SWEEP:METHOD for its rows in one
	// sweep (erm trained by another recipe).
	Headline []string `toml:"headline"`
	// Reference names one of the sweeps as the experiment's anchor (an
	// ablation's full recipe): its table then compares every other row
	// with that sweep's row of the same method, dataset, size and model
	// (the difference of the means of Metric and Welch's p) instead
	// of with the best method without group labels. Default "": no
	// anchor.
	Reference string `toml:"reference"`
	// Metric names the test figure every comparison of the
	// experiment's table and headline rows is made on (its tests, Holm's
	// corrections, differences at a seed, and the interval the tables
	// give): "test_acc" (test accuracy) or "test_worst" (test
	// worst-group accuracy). The comparator is still the row validation
	// ranks first. Default "": test_acc.
	Metric string  `toml:"metric"`
	Sweeps []Sweep `toml:"sweep"`
	// Choices are choices among the sweeps made on validation per seed
	// ([[choice]]: name, sweeps, about), each a table below the
	// experiment's own.
	Choices []Choice `toml:"choice"`
	// Anchors are figures published for the experiment's methods, or
	// measured here with the authors' code ([[anchor]]: method, figure,
	// label, source, why), shown beside the rows of their method. Default
	// none.
	Anchors []Anchor `toml:"anchor"`
}

// Anchor is a test accuracy maple's rows of one method are read beside:
// a paper's figure, or the authors' code run here.
type Anchor struct {
	Method string `toml:"method"` // the rows' method, as the tables name it (erm, maple/irmv1)
	Figure string `toml:"figure"` // the figure as published or measured: "17.1 ± 0.6"
	Label  string `toml:"label"`  // whose figure, in a few words: "IRM paper"
	Source string `toml:"source"` // where it is stated: a paper and its table, or a committed file
	Why    string `toml:"why"`    // why maple's rows differ from it (Markdown); "" where they do not
	// Check recomputes Figure from the committed file Source names, as a
	// page's figure reference does (<!--= REF -->; "REF; REF" for "A /
	// B"): a figure measured here carries one, a published one none.
	Check string `toml:"check"`
}

// Sweep is one `maple sweep` of an experiment: its name and its
// arguments (everything but --name, which is Name, and the output flags).
type Sweep struct {
	Name string   `toml:"name"`
	Args []string `toml:"args"`
	// Against names the sweep this one's rows are compared with instead
	// of the file's reference (an ablation's row that adds one choice to
	// a baseline configuration, compared with that configuration).
	// Default "": the file's reference.
	Against string `toml:"against"`
}

// reserved are the flags an experiment's sweep may not give: maple
// reproduce sets them (or they would change what it runs).
var reserved = []string{"name", "runs-dir", "format", "json", "status", "slurm", "slurm-args", "slurm-file", "print-commands", "only"}

// Dir is where experiment files live below a checkout.
const Dir = "docs/experiments"

// Find returns the path of experiment name: name itself when it is a
// file, else docs/experiments/NAME.toml below the current directory.
func Find(name string) (string, error) {
	if st, err := os.Stat(name); err == nil && !st.IsDir() {
		return name, nil
	}
	p := filepath.Join(Dir, name+".toml")
	if _, err := os.Stat(p); err != nil {
		known, _ := List(Dir)
		var names []string
		for _, f := range known {
			names = append(names, f.Name)
		}
		if len(names) == 0 {
			return "", fmt.Errorf("no experiment %q: no file %s (run maple reproduce from a checkout of maple, or give the file's path)", name, p)
		}
		return "", fmt.Errorf("no experiment %q in %s: want one of %s", name, Dir, strings.Join(names, ", "))
	}
	return p, nil
}

// EnvText is the file's environment as a shell prefix, variables in
// name order: "A=1 B=2".
func (f *File) EnvText() string {
	keys := slices.Sorted(maps.Keys(f.Env))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + f.Env[k]
	}
	return strings.Join(parts, " ")
}

// MissingEnv lists, in name order, the variables of the file's Env that
// getenv does not give with the file's value ("NAME=value").
func (f *File) MissingEnv(getenv func(string) string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(f.Env)) {
		if getenv(k) != f.Env[k] {
			out = append(out, k+"="+f.Env[k])
		}
	}
	return out
}

// Load reads and checks an experiment file.
func Load(path string) (*File, error) {
	var f File
	md, err := toml.DecodeFile(path, &f)
	if err != nil {
		return nil, fmt.Errorf("experiment file %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("experiment file %s: unknown key %q (want title, about, build, threads, env, headline, reference, metric, [[sweep]] name and args, [[choice]] name, sweeps and about, [[anchor]] method, figure, label, source and why)", path, und[0].String())
	}
	f.Path = path
	f.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("experiment file %s: %w", path, err)
	}
	return &f, nil
}

func (f *File) check() error {
	if strings.TrimSpace(f.Title) == "" {
		return errors.New("no title: give title = \"...\"")
	}
	if f.Threads < 0 {
		return fmt.Errorf("threads %d: want the number of CPU threads the figures were made with", f.Threads)
	}
	for k := range f.Env {
		if k == "" || strings.ContainsAny(k, "= \t") {
			return fmt.Errorf("env: %q is no environment variable's name", k)
		}
	}
	if len(f.Sweeps) == 0 {
		return errors.New("no sweep: give at least one [[sweep]] with name and args")
	}
	seen := map[string]bool{}
	for i, s := range f.Sweeps {
		if s.Name == "" {
			return fmt.Errorf("sweep %d has no name", i+1)
		}
		if seen[s.Name] {
			return fmt.Errorf("sweep %s is given twice", s.Name)
		}
		seen[s.Name] = true
		for _, a := range s.Args {
			flag, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if strings.HasPrefix(a, "-") && slices.Contains(reserved, flag) {
				return fmt.Errorf("sweep %s: --%s is set by maple reproduce; remove it from args", s.Name, flag)
			}
		}
		if _, err := s.Seeds(); err != nil {
			return fmt.Errorf("sweep %s: %w", s.Name, err)
		}
	}
	if _, ok := Metrics[f.Metric]; f.Metric != "" && !ok {
		return fmt.Errorf("metric %q: want %s", f.Metric, metricNames())
	}
	if f.Reference != "" && !seen[f.Reference] {
		return fmt.Errorf("reference %q names no sweep of the file: give the name of one of its [[sweep]]s", f.Reference)
	}
	for _, s := range f.Sweeps {
		switch {
		case s.Against == "":
		case f.Reference == "":
			return fmt.Errorf("sweep %s: against = %q without a reference: give the file a reference = \"SWEEP\" first", s.Name, s.Against)
		case s.Against == s.Name || !seen[s.Against]:
			return fmt.Errorf("sweep %s: against = %q names no other sweep of the file: give the name of another [[sweep]]", s.Name, s.Against)
		}
	}
	for _, c := range f.Choices {
		if c.Name == "" {
			return errors.New("a [[choice]] has no name")
		}
		if len(c.Sweeps) < 2 {
			return fmt.Errorf("choice %s: give sweeps = [...] with at least two of the file's sweeps to choose among", c.Name)
		}
		for _, sw := range c.Sweeps {
			if !seen[sw] {
				return fmt.Errorf("choice %s: sweep %q is not one of the file's [[sweep]]s", c.Name, sw)
			}
		}
	}
	for i, a := range f.Anchors {
		if a.Method == "" || a.Figure == "" || a.Label == "" || a.Source == "" {
			return fmt.Errorf("anchor %d: give method, figure, label and source (why is optional)", i+1)
		}
	}
	for _, h := range f.Headline {
		if sweep, _, ok := strings.Cut(h, ":"); ok && !seen[sweep] {
			return fmt.Errorf("headline %q names no sweep of the file: give METHOD, or SWEEP:METHOD with one of its [[sweep]]s' names", h)
		}
	}
	return nil
}

// arg returns the value of --flag in the sweep's arguments, def when
// they do not give it.
func (s Sweep) arg(flag, def string) string {
	v := def
	for i, a := range s.Args {
		switch {
		case a == "--"+flag && i+1 < len(s.Args):
			v = s.Args[i+1]
		case strings.HasPrefix(a, "--"+flag+"="):
			v = strings.TrimPrefix(a, "--"+flag+"=")
		}
	}
	return v
}

// Cells returns how many cells the sweep's grid has: datasets x methods
// x seeds x models x training sizes (maple sweep's defaults where the
// arguments give none).
func (s Sweep) Cells() int {
	count := func(v, sep string) int {
		n := 0
		for _, x := range strings.Split(v, sep) {
			if strings.TrimSpace(x) != "" {
				n++
			}
		}
		return max(n, 1)
	}
	return count(s.arg("datasets", "synthetic"), ",") * count(s.arg("methods", "erm,oracle,maple:rex"), ",") *
		count(s.arg("seeds", "1,2,3"), ",") * count(s.arg("models", ""), ";") * count(s.arg("train-sizes", ""), ",")
}

// Seeds returns the sweep's --seeds (maple sweep's default 1,2,3 when it
// gives none).
func (s Sweep) Seeds() ([]uint64, error) {
	v := s.arg("seeds", "1,2,3")
	var out []uint64
	for _, p := range strings.Split(v, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(p), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--seeds %q: want comma-separated whole numbers", v)
		}
		out = append(out, n)
	}
	return out, nil
}

// WithSeed returns the sweep's arguments with --seeds replaced by seed.
func (s Sweep) WithSeed(seed uint64) []string {
	var out []string
	for i := 0; i < len(s.Args); i++ {
		a := s.Args[i]
		switch {
		case a == "--seeds":
			i++
			continue
		case strings.HasPrefix(a, "--seeds="):
			continue
		}
		out = append(out, a)
	}
	return append(out, "--seeds", strconv.FormatUint(seed, 10))
}

// Seeds returns every seed of the experiment's sweeps, ascending: maple
// reproduce runs the first seed of every sweep before the second, so that
// a partial run gives a complete first pass.
func (f *File) Seeds() []uint64 {
	set := map[uint64]bool{}
	for _, s := range f.Sweeps {
		seeds, _ := s.Seeds()
		for _, x := range seeds {
			set[x] = true
		}
	}
	var out []uint64
	for x := range set {
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// referenceOf is the sweep a summary row (whose "sweep" lists the
// sweeps it belongs to) is compared with: the first of its sweeps that
// names one with against, else the file's reference.
func (f *File) referenceOf(sweeps string) string {
	for _, name := range strings.Fields(sweeps) {
		for _, s := range f.Sweeps {
			if s.Name == name && s.Against != "" {
				return s.Against
			}
		}
	}
	return f.Reference
}

// SweepNames returns the names of the experiment's sweeps.
func (f *File) SweepNames() []string {
	var out []string
	for _, s := range f.Sweeps {
		out = append(out, s.Name)
	}
	return out
}

// List reads every experiment file in dir, by name.
func List(dir string) ([]*File, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []*File
	for _, p := range paths {
		f, err := Load(p)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// ResultsDir is where an experiment's CSVs and figures go below docs.
func ResultsDir(docs, name string) string { return filepath.Join(docs, "results", name) }
