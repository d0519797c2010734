package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
	"github.com/maple-ood/maple/tui/chart"
)

// A run's page in the browser: the replay of a search (a read-only
// dashboard of its records) or a baseline's text.

// openRun reads a run for its replay, in a tea.Cmd; again marks the
// reread of a running baseline's page.
func (b *Browser) openRun(in runs.Info, again bool) tea.Cmd {
	dir := runs.Open(b.runList.dir).RunDir(in.ID)
	w, h := b.width, b.height
	return func() tea.Msg {
		d, detail, err := replay(dir, in.Status, w, h-1)
		return openedMsg{replay: d, detail: detail, err: err, id: in.ID, live: in.Status.Live(), again: again}
	}
}

// replay reads a run for a read-only view: a dashboard of its recorded
// search, or a baseline's text.
func replay(dir string, st core.Status, w, h int) (*Dashboard, string, error) {
	cfg, err := runs.ReadConfig(dir)
	if err != nil {
		return nil, "", err
	}
	sum, _ := runs.ReadSummary(dir)
	if !cfg.Searches() {
		pending := "no result yet" // what a baseline without a result is doing, or how to go on
		if sum != nil && sum.Result == nil {
			pending = runs.Open(filepath.Dir(dir)).Continue(sum, *cfg)
		} else if p := runs.LastProgress(dir); sum == nil && p != "" {
			pending = "no result yet; " + p
		}
		text := baselineText(cfg, sum, pending, w, h)
		if p := runs.Stat(dir).Problem; p != "" { // the list's "!"
			text = ansi.Wrap("problem: "+p, max(w, 20), "") + "\n" + text
		}
		return nil, text, nil
	}
	snaps, _ := runs.ReadMetrics(dir)
	events, _ := runs.ReadEvents(dir)
	d := NewDashboard(*cfg, nil, true)
	d.SetDir(dir)
	d.Update(tea.WindowSizeMsg{Width: w, Height: h})
	d.Update(HistoryMsg{Snaps: snaps, Events: events})
	d.status = st
	d.ended = !st.Live()
	if sum != nil && sum.Result != nil {
		r := sum.Result
		d.note = fmt.Sprintf("result (selected on validation, step %d): val worst-group %.4f · test acc %.4f · test worst-group %.4f", r.SelectedStep, r.ValWorst, r.TestAcc, r.TestWorst)
	}
	if sum != nil && st == core.StatusFailed && sum.Status == core.StatusFailed {
		d.note = d.failedNote(sum) // how to go on, as maple run says it
	}
	if p := runs.Stat(dir).Problem; p != "" { // the list's "!"
		d.note = strings.TrimSuffix("a damaged file (maple show "+cfg.ID+" names it) · "+d.note, " · ")
	}
	return d, "", nil
}

// baselineText describes a baseline run, which has no search to replay:
// its settings, its result and, where the screen (w x h) has room, the
// curve of its training's validation checks; without a result, pending
// says why.
func baselineText(cfg *runs.Config, sum *runs.Summary, pending string, w, h int) string {
	var sb strings.Builder
	e := cfg.Eval
	fmt.Fprintf(&sb, "%s %s: baseline %s on %s, seed %d\n", styles.Title.Render("run"), cfg.ID, cfg.Method, cfg.Dataset.Name, cfg.Settings.Seed)
	opt := fmt.Sprintf("SGD steps (lr %g, momentum %g)", e.LR, e.Momentum)
	if e.Optimizer == "adam" {
		opt = fmt.Sprintf("Adam steps (lr %g)", e.LR)
	}
	fmt.Fprintf(&sb, "model %s, %d %s, validation check every %d\n", e.Model, e.Steps, opt, e.EvalEvery)
	if e.Recipe != "" {
		fmt.Fprintf(&sb, "recipe: %s\n", e.Recipe)
	}
	sb.WriteString("\n")
	if sum == nil || sum.Result == nil {
		sb.WriteString(pending + "\n")
		return ansi.Wrap(sb.String(), max(w, 20), "")
	}
	r := sum.Result
	report.WriteResult(&sb, r)
	// Wrapped, not cut at the screen's edge: a cut "step 250" read as 25.
	text := ansi.Wrap(sb.String(), max(w, 20), "")
	room := h - strings.Count(text, "\n") - 2
	// The hint wraps at spaces: the run id stays whole.
	if hint := wrapSpaces(fmt.Sprintf("(the training curve needs a taller screen, or: maple export %s --format training-csv)", cfg.ID), max(w, 20), ""); len(r.Curve) >= 2 && room < 8 && strings.Count(hint, "\n") < room {
		text += styles.Dim.Render(hint) + "\n"
	}
	if len(r.Curve) >= 2 && room >= 8 {
		text += "\n" + curveChart(fmt.Sprintf("worst-group accuracy, selected at step %d", r.SelectedStep), r.Curve, w, min(room, 16))
	}
	return text
}

// curveChart draws a training's validation checks (at least two): the
// validation and test worst-group accuracy against the step, in the
// chart component. The test line is dotted, as in maple plot's figure,
// so that the two stay apart without colour (NO_COLOR).
func curveChart(title string, curve []train.CheckPoint, w, h int) string {
	c := chart.New()
	c.Unit, c.Chars = "training step", true
	setCurve(&c, title, curve)
	return strings.Join(c.Render(w, h), "\n")
}

// setCurve gives a chart component a training's validation checks: the
// validation and test worst-group accuracy against the step.
func setCurve(c *chart.Model, title string, curve []train.CheckPoint) {
	steps, val, test := make([]int, len(curve)), make([]float64, len(curve)), make([]float64, len(curve))
	for i, p := range curve {
		steps[i], val[i], test[i] = p.Step, p.ValWorst, p.TestWorst
	}
	c.SetData(steps, nil, []chart.Plot{{Title: title, Lines: []chart.Line{{Name: "validation (selection)", Values: val}, {Name: "test (not used)", Values: test}}}}, nil)
}
