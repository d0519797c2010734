package tui

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
	"github.com/maple-ood/maple/train"
)

// TestBaselineView: a running baseline's live view shows the stage and
// step under way, the validation checks so far as a curve, asks before
// stopping, and closes when the run ends.
func TestBaselineView(t *testing.T) {
	cfg := testConfig()
	cfg.Method, cfg.Eval.Recipe = "mrm", "MRM (Zhang et al. 2021)"
	live := &baselineLive{}
	cancelled := false
	v := newBaselineView(cfg, t.TempDir(), live, func() { cancelled = true })
	v.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	render := func() string { return ansi.Strip(v.Render()) }
	if out := render(); !strings.Contains(out, "starting") || !strings.Contains(out, "recipe: MRM") {
		t.Errorf("before any step:\n%s", out)
	}
	live.onStage(train.Stage{Name: "ERM of the full network", N: 1, Of: 3}, 100, 501)
	if out := render(); !strings.Contains(out, "stage 1 of 3 (ERM of the full network)") || !strings.Contains(out, "step 100/501") || !strings.Contains(out, "20%") {
		t.Errorf("in the first stage:\n%s", out)
	}
	for step := 50; step <= 120; step += 10 {
		live.onCheck(step, 501, float64(step)/1000, float64(step)/2000)
	}
	out := render()
	for _, want := range []string{"stage 3 of 3 (the training selected on validation)", "step 120/501", "last check: step 120, val worst-group 0.1200 (test 0.0600)",
		"best on validation so far: step 120", "validation (selection)", "training step →"} {
		if !strings.Contains(out, want) {
			t.Errorf("in the validated training: no %q in\n%s", want, out)
		}
	}
	v.Update(keyMsg("q"))
	if !v.confirm || !strings.Contains(render(), "a baseline keeps no checkpoint") {
		t.Errorf("q did not ask:\n%s", render())
	}
	v.Update(keyMsg("n"))
	if v.confirm || v.stopping || !strings.Contains(render(), "not stopped") {
		t.Error("n stopped the baseline")
	}
	v.Update(keyMsg("x"))
	_, cmd := v.Update(keyMsg("y"))
	if !v.stopping || cmd == nil {
		t.Fatal("y did not stop")
	}
	// No socket listens in this directory (as while the data loads): the
	// view ends the run as a signal would.
	v.Update(cmd())
	if !cancelled {
		t.Error("a stop without a socket did not cancel the run")
	}
	if _, cmd := v.Update(baselineTick{}); isQuit(cmd) {
		t.Error("the view closed before the run ended")
	}
	live.end()
	if _, cmd := v.Update(baselineTick{}); !isQuit(cmd) {
		t.Error("the view stayed open after the run ended")
	}
}

// TestRunBaseline runs a small baseline under its live view (no
// terminal: the program reads no key) to its end: the run is done, its
// progress lines are in its log, and the view closed by itself.
func TestRunBaseline(t *testing.T) {
	cfg := testConfig()
	cfg.Method = "erm"
	cfg.Eval.Steps, cfg.Eval.EvalEvery = 40, 10
	r, err := runs.Open(t.TempDir()).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := r.OpenLog()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pr, pw := io.Pipe() // a keyboard nobody types on
	defer pw.Close()
	sum, err := RunBaseline(ctx, IO{In: pr, Out: io.Discard}, r, nil, session.Options{Log: f, Lines: true, Socket: true})
	if err != nil || sum == nil || sum.Status != core.StatusDone {
		t.Fatalf("%+v %v", sum, err)
	}
	if p := runs.LastProgress(r.Dir); !strings.HasPrefix(p, runs.ProgressPrefix+"40/40") {
		t.Errorf("last progress line %q", p)
	}
}

// TestFollowBaseline: another process's baseline (a detached run, a
// sweep's cell; maple attach, enter in the sweep view) is followed from
// its log: its stage, step and checks; q leaves it running, and the view
// closes when the run ends.
func TestFollowBaseline(t *testing.T) {
	cfg := testConfig()
	cfg.Method = "jtt"
	r, err := runs.Open(t.TempDir()).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, _ := r.OpenLog()
	f.WriteString(runs.ProgressPrefix + "100/100, stage 1 of 2 (ERM, to find the errors to upweight)\n" +
		runs.ProgressPrefix + "50/500: val worst-group 0.2500  (test worst-group 0.1250)\n" +
		runs.ProgressPrefix + "100/500: val worst-group 0.5000  (test worst-group 0.3750)\n")
	f.Close()
	v := newFollowView(cfg, r.Dir)
	v.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	read := func() tea.Cmd {
		_, cmd := v.Update(baselineTick{})
		_, next := v.Update(cmd())
		return next
	}
	if next := read(); isQuit(next) {
		t.Fatal("the view closed on a running baseline")
	}
	out := ansi.Strip(v.Render())
	for _, want := range []string{"stage 2 of 2 (the training selected on validation)", "step 100/500", "last check: step 100, val worst-group 0.5000 (test 0.3750)", "validation (selection)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	v.Update(keyMsg("x"))
	if !v.confirm {
		t.Error("x did not ask to stop")
	}
	v.Update(keyMsg("n"))
	if _, cmd := v.Update(keyMsg("q")); !isQuit(cmd) || v.stopping {
		t.Error("q did not leave the run running")
	}
	r.Close() // the run ends
	if next := read(); !isQuit(next) {
		t.Error("the view stayed open after the run ended")
	}
}

// TestBaselineViewChartKeys: a running baseline's curve is the chart
// component's: ← reads out a check, z zooms; while it asks whether to
// stop, the keys answer the question instead.
func TestBaselineViewChartKeys(t *testing.T) {
	live := &baselineLive{}
	v := newBaselineView(testConfig(), t.TempDir(), live, func() {})
	v.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for step := 50; step <= 200; step += 10 {
		live.onCheck(step, 501, float64(step)/1000, float64(step)/2000)
	}
	v.Render()
	for _, c := range []struct {
		name, key, want string
	}{
		{"cursor", "left", "cursor training step 190"},
		{"read-out", "left", "validation (selection) 0.18"},
		{"zoom", "z", "zoom: training steps"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v.Update(keyMsg(c.key))
			if out := ansi.Strip(v.Render()); !strings.Contains(out, c.want) {
				t.Errorf("after %s: no %q in\n%s", c.key, c.want, out)
			}
		})
	}
	v.Update(keyMsg("x"))
	v.Update(keyMsg("left")) // an answer: not stopped
	if v.confirm || !strings.Contains(v.note, "not stopped") {
		t.Errorf("a chart key while asking: confirm %v, note %q", v.confirm, v.note)
	}
}
