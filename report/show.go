package report

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/runs"
)

func pct(v float64) string {
	if v < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

// WriteList writes the runs listing of `maple ls` as a table.
func WriteList(w io.Writer, list []runs.Info) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tDATASET\tMETHOD\tSTATUS\tITER\tBEST VAL WORST-GROUP\tTEST WORST-GROUP (selected)\tTEST ACC\tSWEEP\tSTARTED\tTIME\tNAME\tTAGS")
	for _, in := range list {
		it := in.IterText()
		status := in.Status.String()
		if in.Problem != "" {
			status += " (damaged file)"
		}
		sweep := in.SweepLabel()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", in.ID, in.Dataset, in.Method, status, it, pct(in.BestVal), pct(in.TestWorst), pct(in.TestAcc), sweep,
			in.StartedText(), in.DurationText(), in.NameText(), in.TagsText())
		for _, e := range in.Evals { // maple eval results: the weights under another model
			// Every column, so that the rows after it stay aligned (tabwriter
			// aligns a column over a run of lines that all have it).
			fmt.Fprintf(tw, "\t\t└ eval %s\tdone\t-\t-\t%s\t%s\t%s\t\t\t\t\n", e.Model, pct(e.TestWorst), pct(e.TestAcc), sweep)
		}
	}
	return tw.Flush()
}

// ShowData is what `maple show --json` prints.
type ShowData struct {
	Dir     string        `json:"dir"` // the run's directory, absolute
	Info    runs.Info     `json:"info"`
	Config  *runs.Config  `json:"config"`
	Summary *runs.Summary `json:"summary"`
	Events  []core.Event  `json:"events"`
	// summaryErr is why summary.json cannot be read (among Info's problems).
	summaryErr error
}

// ReadShow reads what `maple show` reports of the run in dir, and the
// problems met reading it.
func ReadShow(dir string) (ShowData, []error) {
	var d ShowData
	var eerr error
	d.Dir, _ = filepath.Abs(dir)
	d.Info = runs.Stat(dir)
	d.Config, _ = runs.ReadConfig(dir) // its error, and the summary's, are among Info's problems
	d.Summary, d.summaryErr = runs.ReadSummary(dir)
	d.Events, eerr = runs.ReadEvents(dir)
	var errs []error
	if d.Info.Problem != "" {
		// The problems maple ls marks "(damaged file)": a damaged
		// run.json, metrics line, summary, checkpoint or eval file, and
		// records set aside by a resume.
		errs = append(errs, errors.New(d.Info.Problem))
	}
	if eerr != nil {
		errs = append(errs, eerr)
	}
	return d, errs
}

// WriteShow writes a run's config, search time, result and events for a
// person (`maple show`).
func WriteShow(w io.Writer, dir string) {
	d, problems := ReadShow(dir)
	info, cfg, sum := d.Info, d.Config, d.Summary
	fmt.Fprintf(w, "run %s: %s on %s, %s", info.ID, info.Method, info.Dataset, info.Status)
	if info.Total > 0 {
		fmt.Fprintf(w, ", iteration %d/%d", info.Iter, info.Total)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "directory %s\n", d.Dir)
	if info.Name != "" || len(info.Tags) > 0 {
		fmt.Fprintf(w, "name %q, tags [%s]\n", info.Name, strings.Join(info.Tags, " "))
	}
	if info.Note != "" {
		fmt.Fprintf(w, "note: %s\n", info.Note)
	}
	for _, e := range problems {
		fmt.Fprintln(w, "  problem:", e)
	}
	if cfg != nil {
		fmt.Fprintf(w, "config: started %s, maple %s\n", cfg.Started.Format("2006-01-02 15:04:05"), cfg.Version)
		if cfg.Build != nil {
			fmt.Fprintf(w, "  started on: %s\n", cfg.Build)
		}
		writeSettings(w, *cfg)
		if cfg.Eval.Recipe != "" {
			fmt.Fprintf(w, "  recipe: %s\n", cfg.Eval.Recipe)
		}
		if cfg.Searches() {
			lr := runs.RatesNow(dir, cfg)
			fmt.Fprintf(w, "  learning rates in force: weight %g, keep %g, inner %g (%s)\n", lr.Weight, lr.Keep, lr.Inner, lr.From())
		}
		if cfg.Searches() {
			if cfg.SearchFrom != "" {
				fmt.Fprintf(w, "  searched by: run %s (the same search settings, seed and build; this run trained only its final model)\n", cfg.SearchFrom)
			}
			snaps, _ := runs.ReadMetrics(dir)
			writeSearchTime(w, snaps)
		}
	}
	switch {
	case sum != nil && sum.Result != nil:
		if cfg != nil && cfg.Searches() {
			if sum.SelectedIter > 0 {
				fmt.Fprintf(w, "weights: the validation-selected iterate %d of %d\n", sum.SelectedIter, sum.Iter)
			} else {
				fmt.Fprintf(w, "weights: those after the last iteration (%d)\n", sum.Iter)
			}
		}
		fmt.Fprintf(w, "summary (%s): ", sum.Status)
		WriteResult(w, sum.Result)
		if r := sum.Reference; r != nil {
			fmt.Fprintf(w, "  oracle selection (reference protocol: the highest test accuracy over iterations and steps whose training accuracy exceeds %g; test-selected, not a result): %.4f at iterate %d, step %d\n",
				r.MinTrain, r.TestAcc, r.Iter, r.Step)
		}
	case sum != nil && cfg != nil && !cfg.Searches(): // stopped or failed: no iteration, no checkpoint
		fmt.Fprintf(w, "summary: %s\n", runs.Open(filepath.Dir(dir)).Continue(sum, *cfg))
	case sum != nil && sum.Error != "":
		fmt.Fprintf(w, "summary: %s at iteration %d: %s\n", sum.Status, sum.Iter, sum.Error)
	case sum != nil:
		fmt.Fprintf(w, "summary: %s at iteration %d; no result yet (continue it with maple resume %s)\n", sum.Status, sum.Iter, filepath.Base(dir))
	case d.summaryErr != nil:
		fmt.Fprintln(w, "summary: damaged (the problem above says how to write it again)")
	case cfg != nil && info.Status == core.StatusInterrupted:
		fmt.Fprintf(w, "summary: %s\n", Interrupted(dir, *cfg))
	case cfg != nil && !cfg.Searches() && info.Status == core.StatusRunning:
		if p := runs.LastProgress(dir); p != "" {
			fmt.Fprintf(w, "progress: %s\n", p)
		}
	}
	if evals, errs := runs.ReadEvals(dir); len(evals)+len(errs) > 0 {
		fmt.Fprintln(w, "evaluations of other models on the learned weights (maple eval):")
		for _, e := range evals {
			r := e.Result
			fmt.Fprintf(w, "  %s: test acc %.4f, test worst-group %.4f (selected on validation at step %d)\n", r.Model, r.TestAcc, r.TestWorst, r.SelectedStep)
		}
		for _, err := range errs {
			fmt.Fprintf(w, "  %v\n", err)
		}
	}
	if len(d.Events) > 0 {
		fmt.Fprintln(w, "events:")
		for _, e := range d.Events {
			fmt.Fprintf(w, "  before iteration %d: %s%s\n", e.Iter+1, e.Kind, runs.EventDetail(e))
		}
	}
}

// Interrupted says how an interrupted run (a signal or a crash: no
// summary, nobody holds it) goes on: from its checkpoint, from iteration
// 1 when it has none yet, or for a baseline from the start.
func Interrupted(dir string, cfg runs.Config) string {
	runsDir := filepath.Dir(dir)
	if !cfg.Searches() {
		return runs.Open(runsDir).Continue(&runs.Summary{Status: core.StatusInterrupted}, cfg)
	}
	st, err := runs.ReadCheckpoint(dir, func(string) {})
	switch {
	case err != nil:
		return "interrupted, without a usable checkpoint (the problem above says how to go on)"
	case st == nil:
		return fmt.Sprintf("interrupted before its first checkpoint; it starts again from iteration 1: maple resume %s --runs-dir %s", cfg.ID, runsDir)
	}
	return runs.Open(runsDir).Continue(&runs.Summary{Status: core.StatusInterrupted, Iter: st.Iter}, cfg)
}

// settingsWidth is the width maple show wraps a group of settings at.
const settingsWidth = 100

// writeSettings writes the settings of the run cfg reads
// (config.Setting.Applies), a group of the settings table's after
// another as --help lists them, the run's own last: each setting as its
// flag and its value (config.Setting.Value), wrapped under the group's
// name; a setting whose value is empty (none given) is left out.
func writeSettings(w io.Writer, cfg runs.Config) {
	eff := cfg // the data settings as the run used them: a dataset's own label noise, not its sentinel -1
	eff.Dataset = cfg.Dataset.Effective()
	for _, g := range append(slices.Clone(config.Groups), "") {
		var items []string
		for _, st := range config.Table {
			if st.Group != g || !st.Applies(cfg) {
				continue
			}
			if v := st.Value(eff); v != "" {
				items = append(items, st.Flag+" "+v)
			}
		}
		if len(items) == 0 {
			continue
		}
		name := strings.ToLower(string(g))
		if g == "" {
			name = "run"
		}
		head := "  " + name + ": "
		line, indent := head, strings.Repeat(" ", len(head))
		for i, item := range items {
			if i < len(items)-1 {
				item += ","
			}
			switch {
			case line == head:
				line += item
			case len(line)+1+len(item) > settingsWidth:
				fmt.Fprintln(w, line)
				line = indent + item
			default:
				line += " " + item
			}
		}
		fmt.Fprintln(w, line)
	}
}

// writeSearchTime writes the seconds a search spent per phase (nothing
// before its first outer iteration).
func writeSearchTime(w io.Writer, snaps []*core.Snapshot) {
	if len(snaps) == 0 {
		return
	}
	t, last := runs.SearchTime(snaps), snaps[len(snaps)-1]
	fmt.Fprintf(w, "search time over %d iterations: inner %.1f s (%.2f s per iteration), outer gradient %.1f s, hypergradient %.1f s; final keep fraction %.3f\n",
		len(snaps), t.Inner, t.Inner/float64(len(snaps)), t.OuterGrad, t.Hyper, last.KeepFrac)
}

// WriteData writes a dataset's description (`maple data`).
func WriteData(w io.Writer, s loaders.Summary) {
	noise := "label noise not known (no clean labels)"
	for _, sp := range s.Splits {
		if sp.LabelNoise >= 0 {
			noise = fmt.Sprintf("label noise %g by construction", s.LabelNoise)
		}
	}
	fmt.Fprintf(w, "dataset %s (from %s): dim %d, shape %dx%dx%d, %d classes, %s, oracle variant: %v\n",
		s.Name, s.Source, s.Dim, s.Shape[0], s.Shape[1], s.Shape[2], s.Classes, noise, s.HasOracle)
	for _, a := range s.About {
		fmt.Fprintln(w, a)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "split\tn\tlabel noise\tenv\tenv n\tlabel=attr")
	for _, sp := range s.Splits {
		for i, e := range sp.Envs {
			name, n, noise := sp.Split, fmt.Sprint(sp.N), "-"
			if sp.LabelNoise >= 0 {
				noise = fmt.Sprintf("%.3f", sp.LabelNoise)
			}
			if i > 0 {
				name, n, noise = "", "", ""
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%.3f\n", name, n, noise, e.Env, e.N, e.Agreement)
		}
	}
	tw.Flush()
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "groups")
	for _, g := range s.Splits[0].Groups {
		fmt.Fprintf(tw, "\t%s", g.Name)
	}
	fmt.Fprintln(tw)
	for _, sp := range s.Splits {
		fmt.Fprint(tw, sp.Split)
		for _, g := range sp.Groups {
			fmt.Fprintf(tw, "\t%d", g.N)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
