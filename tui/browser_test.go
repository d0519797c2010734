package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
	"github.com/maple-ood/maple/tui/picker"
)

// fakeRuns makes three run directories: a finished maple/rex search, an
// erm baseline and an interrupted maple/irmv1 search.
func fakeRuns(t *testing.T) string {
	dir := t.TempDir()
	start := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	mk := func(method, objective string, iters int, done bool) {
		cfg := testConfig()
		cfg.Method, cfg.Settings.Objective, cfg.Started = method, objective, start
		r, err := runs.Open(dir).Create(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var lines []string
		for _, s := range script(iters, 40) {
			s.ValWorst += map[string]float64{"rex": 0.05, "irmv1": 0}[objective]
			b, _ := json.Marshal(s)
			lines = append(lines, string(b))
		}
		if len(lines) > 0 {
			os.WriteFile(r.Path(runs.MetricsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
		}
		if done {
			sum := runs.Summary{Done: true, Status: core.StatusDone, Result: &train.Result{Method: method, Selection: "validation", TestAcc: 0.7, TestWorst: 0.65,
				GroupNames: []string{"a", "b"}, PerGroupTest: []float64{0.7, 0.65}}}
			if method != "maple" { // a baseline's validation checks: every 10 steps, then the last (501)
				steps := []int{}
				for step := 50; step <= 500; step += 10 {
					steps = append(steps, step)
				}
				for _, step := range append(steps, 501) {
					sum.Result.Curve = append(sum.Result.Curve, train.CheckPoint{Step: step, ValWorst: 0.5 + float64(step%70)/1000, TestWorst: 0.4})
				}
				sum.Result.SelectedStep = 480
			}
			b, _ := json.Marshal(sum)
			os.WriteFile(r.Path(runs.SummaryFile), b, 0o644)
		}
	}
	mk("maple", "rex", 40, true)
	mk("erm", "irmv1", 0, true)
	mk("maple", "irmv1", 12, false)
	return dir
}

// newBrowser returns a browser of dir at w x h with its listing read.
func newBrowser(dir string, w, h int) *Browser {
	b := NewBrowser(dir)
	b.Update(tea.WindowSizeMsg{Width: w, Height: h})
	b.Update(b.loadCmd()())
	return b
}

// bpress sends a key and delivers the disk reads it asks for, as the
// program would (other commands, such as a cursor blink, are left).
func bpress(b *Browser, k tea.KeyPressMsg) tea.Cmd {
	_, cmd := b.Update(k)
	if cmd == nil {
		return nil
	}
	// The command runs once, as in the program (an archive or delete
	// must not run twice).
	got := make(chan tea.Msg, 1)
	go func() { got <- cmd() }()
	select {
	case m := <-got:
		switch m.(type) {
		case tea.QuitMsg:
			return cmd
		case listMsg, openedMsg, comparedMsg, formMsg, configsMsg:
			b.Update(m)
		case removedMsg: // then the listing it reads again
			if _, next := b.Update(m); next != nil {
				b.Update(next())
			}
		case picker.DoneMsg: // the picker closed: the settings it asks for
			if _, next := b.Update(m); next != nil {
				b.Update(next())
			}
		case formDoneMsg: // the form closed: what the browser does next
			_, next := b.Update(m)
			return next
		}
	case <-time.After(10 * time.Second): // a command that waits (a tick) is left; a slow read on a loaded machine is not
	}
	return cmd
}

func TestBrowserKeys(t *testing.T) {
	dir := fakeRuns(t)
	newB := func() *Browser { return newBrowser(dir, 120, 30) }
	t.Run("lists every run", func(t *testing.T) {
		b := newB()
		out := b.Render()
		for _, want := range []string{"maple/rex", "erm", "maple/irmv1", "interrupted", "12/40", "65.0%"} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %q in\n%s", want, out)
			}
		}
	})
	t.Run("filter", func(t *testing.T) {
		b := newB()
		for _, k := range []string{"/", "i", "r", "m", "enter"} {
			bpress(b, keyMsg(k))
		}
		if len(b.runList.view) != 1 || b.runList.view[0].Method != "maple/irmv1" {
			t.Errorf("filtered to %v", b.runList.view)
		}
		bpress(b, keyMsg("/"))
		bpress(b, keyMsg("esc"))
		if len(b.runList.view) != 3 {
			t.Errorf("esc kept the filter: %d rows", len(b.runList.view))
		}
	})
	t.Run("sort", func(t *testing.T) {
		b := newB()
		for range 5 {
			bpress(b, keyMsg("s")) // to BEST VAL WG
		}
		bpress(b, keyMsg("S"))
		if b.runList.SortCol != 5 || !b.runList.Desc || b.runList.view[0].Method != "maple/rex" {
			t.Errorf("sort column %d desc %v first %s", b.runList.SortCol, b.runList.Desc, b.runList.view[0].Method)
		}
	})
	t.Run("enter replays a search", func(t *testing.T) {
		b := newB()
		bpress(b, keyMsg("enter"))
		if b.mode != modeRun || b.replay == nil || len(b.replay.snaps) != 40 || !strings.Contains(b.Render(), "iter 40/40") {
			t.Fatalf("mode %d", b.mode)
		}
		bpress(b, keyMsg("esc"))
		if b.mode != modeList {
			t.Error("esc did not go back")
		}
	})
	t.Run("enter shows a baseline's result", func(t *testing.T) {
		b := newB()
		bpress(b, keyMsg("down"))
		bpress(b, keyMsg("enter"))
		if !strings.Contains(b.Render(), "baseline erm") || !strings.Contains(b.Render(), "oracle selection") {
			t.Errorf("baseline view:\n%s", b.Render())
		}
		// Its training curve, the x axis labelled with the checks' steps:
		// 47 checks, ticks at checks 0, 23 and 46 (steps 50, 280, 501).
		screen := ansi.Strip(b.Render())
		for _, want := range []string{"500 SGD steps (lr 0.1, momentum 0.9)", "worst-group accuracy, selected at step 480", "validation (selection)", "training step →", " 50 ", " 280 ", " 501", "·· test (not used)", "···"} {
			if !strings.Contains(screen, want) {
				t.Errorf("baseline view lacks %q:\n%s", want, screen)
			}
		}
	})
	t.Run("compare needs two or more", func(t *testing.T) {
		b := newB()
		bpress(b, keyMsg("c"))
		if b.mode != modeList || !strings.Contains(b.note, "select two or more runs") {
			t.Errorf("note %q", b.note)
		}
		bpress(b, keyMsg("space"))
		bpress(b, keyMsg("down"))
		bpress(b, keyMsg("down"))
		bpress(b, keyMsg("space"))
		bpress(b, keyMsg("c"))
		out := b.Render()
		if b.mode != modeCompare || !strings.Contains(out, "--objective") || !strings.Contains(out, "rex → irmv1") || !strings.Contains(out, "test acc 0.7000") {
			t.Errorf("compare:\n%s", out)
		}
	})
	t.Run("compare three", func(t *testing.T) {
		b := newB()
		for range 3 {
			bpress(b, keyMsg("space"))
			bpress(b, keyMsg("down"))
		}
		bpress(b, keyMsg("c"))
		out := ansi.Strip(b.Render())
		if b.mode != modeCompare || strings.Count(out, "test acc 0.7000") != 2 || !strings.Contains(out, "no result") || !strings.Contains(out, "→ erm →") {
			t.Errorf("compare of three runs:\n%s", out)
		}
	})
	t.Run("actions", func(t *testing.T) {
		b := newB()
		bpress(b, keyMsg("a"))
		if b.Chosen().Kind != ActionNone || !strings.Contains(b.note, "running search") {
			t.Error("attach offered on a finished run")
		}
		bpress(b, keyMsg("down"))
		bpress(b, keyMsg("down"))
		cmd := bpress(b, keyMsg("r"))
		if a := b.Chosen(); a.Kind != ActionResume || !isQuit(cmd) {
			t.Errorf("resume: %+v", a)
		}
		b = newB()
		bpress(b, keyMsg("n"))
		for range 7 {
			bpress(b, keyMsg("tab")) // to seed
		}
		bpress(b, keyMsg("ctrl+u"))
		bpress(b, keyMsg("7"))
		cmd = bpress(b, keyMsg("enter"))
		a := b.Chosen()
		if a.Kind != ActionNew || !isQuit(cmd) || a.Config == nil {
			t.Fatalf("new: %+v (note %q)", a, b.note)
		}
		// Every setting of the selected run is kept; the edit applies.
		if c := a.Config; c.Settings.Seed != 7 || c.Eval.Seed != 7 || c.Settings.Objective != "rex" || c.Settings.Model != "linear" || c.Settings.OuterIters != 40 || c.ID != "" {
			t.Errorf("new run config: %+v", c)
		}
	})
}

func TestBrowserGolden(t *testing.T) {
	dir := fakeRuns(t)
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		b := newBrowser(dir, sz[0], sz[1])
		b.runList.dir = "runs" // stable across machines
		golden(t, fmt.Sprintf("browser-%dx%d", sz[0], sz[1]), b.Render())
		b.runList.dir = dir
		bpress(b, keyMsg("enter"))
		golden(t, fmt.Sprintf("browser-run-%dx%d", sz[0], sz[1]), b.Render())
	}
}

func TestExportKey(t *testing.T) {
	dir := t.TempDir()
	r := finishedTinyRun(t, dir)
	for _, f := range []string{runs.WeightsNPY, runs.WeightsCSV} {
		os.Remove(r.Path(f))
	}
	d := NewDashboard(r.Config, nil, true)
	d.SetDir(r.Dir)
	cmd := press(d, "e")
	if cmd == nil {
		t.Fatal("e gave no command")
	}
	d.Update(cmd())
	if !strings.Contains(d.note, "the validation-selected iterate 3 of 3") {
		t.Errorf("note %q", d.note)
	}
	for _, f := range []string{runs.WeightsNPY, runs.WeightsCSV} {
		if _, err := os.Stat(r.Path(f)); err != nil {
			t.Errorf("%s not exported", f)
		}
	}
}

// The browser keeps its sort, filter and selection from one Run to the
// next (after an attach, say).
func TestBrowserKeepsState(t *testing.T) {
	dir := fakeRuns(t)
	b := newBrowser(dir, 120, 30)
	bpress(b, keyMsg("S"))
	bpress(b, keyMsg("space"))
	for range 2 {
		if _, err := b.Run(context.Background(), IO{In: strings.NewReader("q"), Out: io.Discard}); err != nil {
			t.Fatal(err)
		}
	}
	if !b.runList.Desc || len(b.runList.selected) != 1 {
		t.Errorf("after two runs: descending %v, %d selected", b.runList.Desc, len(b.runList.selected))
	}
}

// Narrowing the terminal drops a column: the table must not panic on rows
// of the old width.
func TestBrowserNarrows(t *testing.T) {
	b := newBrowser(fakeRuns(t), 120, 30)
	b.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	b.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	if !strings.Contains(b.Render(), "maple/rex") {
		t.Error("rows lost after resizing")
	}
}

// The filter also matches a run's sweep and model, so that "/NAME" shows
// one sweep's cells with their progress.
func TestBrowserFilterBySweep(t *testing.T) {
	b := newBrowser(fakeRuns(t), 120, 30)
	b.runList.list[1].Sweep = "cm-main"
	b.runList.refresh()
	for _, k := range []string{"/", "c", "m", "-", "m", "a", "i", "n", "enter"} {
		bpress(b, keyMsg(k))
	}
	if len(b.runList.view) != 1 || b.runList.view[0].Method != "erm" {
		t.Errorf("filter by sweep: %v", b.runList.view)
	}
}

// The sweep a run is a cell of is a column of its own on wide terminals,
// sorts as text, and gives way first on narrow ones.
func TestBrowserSweepColumn(t *testing.T) {
	cases := []struct {
		name  string
		width int
		shown bool
	}{
		{"wide", 120, true},
		{"medium", 100, false},
		{"narrow", 80, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newBrowser(fakeRuns(t), c.width, 30)
			b.runList.list[1].Sweep = "cm-main"
			b.runList.list[2].Sweep = "a-sweep"
			b.runList.refresh()
			out := b.Render()
			if got := strings.Contains(out, "SWEEP") && strings.Contains(out, "cm-main"); got != c.shown {
				t.Errorf("sweep column shown %v at width %d, want %v:\n%s", got, c.width, c.shown, out)
			}
		})
	}
	b := newBrowser(fakeRuns(t), 120, 30)
	b.runList.list[1].Sweep = "cm-main"
	b.runList.list[2].Sweep = "a-sweep"
	b.runList.refresh()
	for range 8 {
		bpress(b, keyMsg("s")) // to SWEEP
	}
	if b.runList.SortCol != 8 {
		t.Fatalf("sort column %d, want 8 (SWEEP)", b.runList.SortCol)
	}
	var order []string
	for _, in := range b.runList.view {
		order = append(order, in.Sweep)
	}
	if got := strings.Join(order, ","); got != ",a-sweep,cm-main" {
		t.Errorf("sorted by sweep: %q", got)
	}
	// A run's maple eval results are counted beside its method.
	b.runList.list[0].Evals = []runs.EvalInfo{{Model: "cnn", TestAcc: 0.7, TestWorst: 0.6}}
	b.runList.refresh()
	if out := b.Render(); !strings.Contains(out, "maple/rex +1 eval") {
		t.Errorf("eval count not shown:\n%s", out)
	}
}

// TestBrowserCursorWithoutColour: on a terminal without colour (NO_COLOR)
// the cursor row is drawn in reverse video, since its colours are dropped
// (issue 25, defect 5); with colour it keeps its colours.
func TestBrowserCursorWithoutColour(t *testing.T) {
	dir := fakeRuns(t)
	for _, tc := range []struct {
		profile colorprofile.Profile
		reverse bool
	}{{colorprofile.Ascii, true}, {colorprofile.NoTTY, true}, {colorprofile.ANSI256, false}} {
		b := newBrowser(dir, 120, 30)
		b.Update(tea.ColorProfileMsg{Profile: tc.profile})
		var cursor string
		for _, l := range strings.Split(b.Render(), "\n") {
			if strings.Contains(ansi.Strip(l), b.runList.view[b.runList.Table.Cursor()].ID) {
				cursor = l
			}
		}
		if got := strings.Contains(cursor, "\x1b[7m") || strings.Contains(cursor, ";7m"); got != tc.reverse {
			t.Errorf("profile %v: reverse video %v, want %v: %q", tc.profile, got, tc.reverse, cursor)
		}
	}
}

// TestEscClearsConfirmedFilter: esc clears a filter also after enter
// confirmed it, as the README says (issue 25, defect 6).
func TestEscClearsConfirmedFilter(t *testing.T) {
	b := newBrowser(fakeRuns(t), 120, 30)
	all := len(b.runList.view)
	bpress(b, keyMsg("/"))
	for _, r := range "rex" {
		bpress(b, keyMsg(string(r)))
	}
	bpress(b, keyMsg("enter"))
	if len(b.runList.view) >= all {
		t.Fatalf("the filter shows %d of %d runs", len(b.runList.view), all)
	}
	bpress(b, keyMsg("esc"))
	if b.runList.Filter() != "" || len(b.runList.view) != all {
		t.Errorf("after esc: filter %q, %d of %d runs shown", b.runList.Filter(), len(b.runList.view), all)
	}
}

// TestBrowserStopKey: x on a run that is not running says so and asks
// nothing.
func TestBrowserStopKey(t *testing.T) {
	b := newBrowser(fakeRuns(t), 120, 30)
	bpress(b, keyMsg("x"))
	if b.stopAsk != "" || !strings.Contains(b.note, "x stops a running run") {
		t.Errorf("x on a finished run: ask %q, note %q", b.stopAsk, b.note)
	}
}

// TestBrowserStopBaseline: x on a running baseline says it keeps no
// checkpoint and trains again with r, before and after the stop (it said
// 'checkpointed, resumable with r' and 'stopped at iteration 0'); a
// search is told it is checkpointed.
func TestBrowserStopBaseline(t *testing.T) {
	for _, tc := range []struct {
		name      string
		total     int // the run's iterations: 0 for a baseline
		ask, said string
	}{
		{"baseline", 0, "a baseline keeps no checkpoint: r trains it again from the start)? y/n",
			"stopped before it finished; a baseline keeps no checkpoint: r trains it again from the start"},
		{"search", 40, "(checkpointed, resumable with r)? y/n", "stopped at iteration 12; r resumes it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrowser(fakeRuns(t), 120, 30)
			b.runList.list[0].Status, b.runList.list[0].Total = core.StatusRunning, tc.total
			b.runList.refresh()
			bpress(b, keyMsg("x"))
			id := b.stopAsk
			if id == "" || !strings.HasSuffix(b.note, tc.ask) {
				t.Fatalf("x on a running run: ask %q, note %q", id, b.note)
			}
			b.Update(stoppedMsg{id: id, info: runs.Info{ID: id, Status: core.StatusStopped, Iter: 12, Total: tc.total}})
			if !strings.Contains(b.note, tc.said) {
				t.Errorf("after the stop: %q, want %q", b.note, tc.said)
			}
		})
	}
}

// TestBrowserSweepKey: w on a sweep's run hands back its sweep's live
// view; on a run of no sweep it says so.
func TestBrowserSweepKey(t *testing.T) {
	b := newBrowser(fakeRuns(t), 120, 30)
	bpress(b, keyMsg("w"))
	if b.Chosen().Kind != ActionNone || !strings.Contains(b.note, "not a sweep's") {
		t.Errorf("w on a run of no sweep: %+v, note %q", b.Chosen(), b.note)
	}
	for i := range b.runList.list {
		b.runList.list[i].Sweep = "cm" // every run a cell of sweep cm
	}
	b.runList.refresh()
	if cmd := bpress(b, keyMsg("w")); b.Chosen().Kind != ActionSweep || b.Chosen().ID != "cm" || !isQuit(cmd) {
		t.Errorf("w on a sweep's run: %+v", b.Chosen())
	}
}

// TestBaselineTextOptimizer: a baseline trained by Adam (lff's recipe)
// is described as such, with its recipe, not as SGD with a momentum it
// does not use.
func TestBaselineTextOptimizer(t *testing.T) {
	cfg := testConfig()
	cfg.Method, cfg.Eval.Optimizer, cfg.Eval.LR, cfg.Eval.Recipe = "lff", "adam", 1e-3, "LfF (Nam et al. 2020)"
	got := baselineText(&cfg, nil, "no result yet", 80, 24)
	if !strings.Contains(got, "500 Adam steps (lr 0.001)") || strings.Contains(got, "momentum") || !strings.Contains(got, "recipe: LfF (Nam et al. 2020)") {
		t.Errorf("baseline text:\n%s", got)
	}
}

// TestBrowserCursorStaysOnScreen: wherever the keys move the cursor (to
// the end, a page down, back up row by row), its row is on the screen,
// also after the listing reloads (every second while the browser is
// open). The reload lost it: after G at 60x20 the next reload showed the
// rows above the last run, with the cursor on the last, off the screen.
func TestBrowserCursorStaysOnScreen(t *testing.T) {
	dir := t.TempDir()
	for range 30 {
		r, err := runs.Open(dir).Create(testConfig())
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	for _, size := range [][2]int{{60, 20}, {120, 40}, {200, 60}} {
		b := newBrowser(dir, size[0], size[1])
		if len(b.runList.view) != 30 {
			t.Fatalf("%d runs listed, want 30", len(b.runList.view))
		}
		keys := []string{"G", "k", "k", "home", "f", "f", "j", "G"}
		for range 29 {
			keys = append(keys, "k")
		}
		for range 29 {
			keys = append(keys, "j")
		}
		for i, k := range keys {
			bpress(b, keyMsg(k))
			for _, when := range []string{"", " and a reload"} {
				id := b.runList.view[b.runList.Table.Cursor()].ID
				if !strings.Contains(ansi.Strip(b.Render()), id) {
					t.Fatalf("%dx%d, after key %d (%q)%s: the cursor's run %s is not on the screen:\n%s", size[0], size[1], i, k, when, id, ansi.Strip(b.Render()))
				}
				b.Update(b.loadCmd()())
			}
		}
	}
}

// TestBaselineTextNarrow: on a narrow screen a baseline's description is
// wrapped, not cut at the edge (a cut "at step 250" read "at step 25"),
// and where the curve has no room a line says how to draw it.
func TestBaselineTextNarrow(t *testing.T) {
	cfg := testConfig()
	cfg.ID, cfg.Method, cfg.Eval.Optimizer, cfg.Eval.LR = "20261123-232231-01", "lff", "adam", 1e-3
	cfg.Eval.Recipe = "LfF (Nam et al. 2020): Adam lr 1e-3, GCE q 0.7, EMA 0.7, no weight decay"
	r := &train.Result{Method: "lff", Selection: "validation", SelectedStep: 250, TestAcc: 0.7563, TestWorst: 0.0057, ValWorst: 0.0067}
	for step := 50; step <= 500; step += 10 {
		r.Curve = append(r.Curve, train.CheckPoint{Step: step})
	}
	got := baselineText(&cfg, &runs.Summary{Done: true, Status: core.StatusDone, Result: r}, "", 60, 20)
	for _, l := range strings.Split(got, "\n") {
		if w := ansi.StringWidth(l); w > 60 {
			t.Errorf("a line %d wide at 60 columns: %q", w, l)
		}
	}
	flat := strings.Join(strings.Fields(ansi.Strip(got)), " ")
	for _, want := range []string{"at step 250", "EMA 0.7, no weight decay", "maple export 20261123-232231-01 --format training-csv"} {
		if !strings.Contains(flat, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "training step →") {
		t.Errorf("a curve drawn without room:\n%s", got)
	}
	if wide := baselineText(&cfg, &runs.Summary{Done: true, Status: core.StatusDone, Result: r}, "", 120, 40); !strings.Contains(wide, "training step →") || strings.Contains(wide, "needs") {
		t.Errorf("at 120x40 the curve, and no hint:\n%s", wide)
	}
}

// TestReplayBaselineNotDone: the browser's page of a baseline without a
// result says how far it is (running) or how to train it again
// (stopped), not only "no result yet".
func TestReplayBaselineNotDone(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig()
	cfg.Method = "lff"
	r, err := runs.Open(dir).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	os.WriteFile(r.Path(runs.LogFile), []byte("training step 150/500: val worst-group 0.3000  (test worst-group 0.2000)\n"), 0o600)
	if _, text, err := replay(r.Dir, core.StatusRunning, 120, 40); err != nil || !strings.Contains(text, "no result yet; training step 150/500") {
		t.Errorf("running: %v\n%s", err, text)
	}
	b, _ := json.Marshal(runs.Summary{Status: core.StatusStopped})
	os.WriteFile(r.Path(runs.SummaryFile), b, 0o600)
	if _, text, err := replay(r.Dir, core.StatusStopped, 120, 40); err != nil || !strings.Contains(strings.Join(strings.Fields(text), " "), "keeps no checkpoint: maple resume "+r.Config.ID) {
		t.Errorf("stopped: %v\n%s", err, text)
	}
}

// TestBrowserFollowsRunningBaseline: the page of a running baseline is
// read again at every reload, so that it follows the training's steps
// (it stayed at the step it was opened at) and shows the result when the
// run ends; a page left is not brought back by a reread.
func TestBrowserFollowsRunningBaseline(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig()
	cfg.Method = "mrm"
	r, err := runs.Open(dir).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	progress := func(line string) {
		f, err := r.OpenLog()
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(line + "\n")
		f.Close()
	}
	// reload delivers a reload's disk reads as the program would: the
	// listing, then the reread of the page it asks for.
	reload := func(b *Browser) {
		_, cmd := b.Update(b.loadCmd()())
		if cmd != nil {
			b.Update(cmd())
		}
	}
	progress(runs.ProgressPrefix + "100/501, stage 1 of 3 (ERM of the full network)")
	b := newBrowser(dir, 120, 30)
	bpress(b, keyMsg("enter"))
	if !strings.Contains(b.Render(), "stage 1 of 3") {
		t.Fatalf("page:\n%s", b.Render())
	}
	progress(runs.ProgressPrefix + "250/501: val worst-group 0.5000  (test worst-group 0.4000)")
	reload(b)
	if out := b.Render(); !strings.Contains(out, "training step 250/501") {
		t.Errorf("the page did not follow the run:\n%s", out)
	}
	sum, _ := json.Marshal(runs.Summary{Done: true, Status: core.StatusDone, Result: &train.Result{Method: "mrm", Selection: "validation", TestAcc: 0.61, TestWorst: 0.52}})
	os.WriteFile(r.Path(runs.SummaryFile), sum, 0o600)
	reload(b)
	if out := b.Render(); !strings.Contains(out, "0.6100") {
		t.Errorf("the page did not show the result:\n%s", out)
	}
	os.Remove(r.Path(runs.SummaryFile))
	b = newBrowser(dir, 120, 30)
	bpress(b, keyMsg("enter"))
	bpress(b, keyMsg("esc"))
	reload(b)
	if b.mode != modeList {
		t.Errorf("a reread brought back the page that was left: mode %v", b.mode)
	}
}

// TestCompareBaselines: comparing baselines (no search, no iterations)
// draws their training curves against the step, where the search's
// charts said 'waiting for the first iteration'; a comparison with a
// search keeps the search's charts. Two runs of one seed are not "2
// seeds".
func TestCompareBaselines(t *testing.T) {
	dir := fakeRuns(t)
	list, err := runs.Open(dir).List()
	if err != nil {
		t.Fatal(err)
	}
	var erm, search string
	for _, in := range list {
		switch in.Method {
		case "erm":
			erm = in.ID
		case "maple/rex":
			search = in.ID
		}
	}
	// A second finished baseline: the erm run's copy under another id.
	other := "20261122-090000-01"
	if err := os.CopyFS(runs.Open(dir).RunDir(other), os.DirFS(runs.Open(dir).RunDir(erm))); err != nil {
		t.Fatal(err)
	}
	out := ansi.Strip(compare(dir, []string{erm, other}, 120, 40, false))
	if !strings.Contains(out, "over the training") || !strings.Contains(out, "training step →") || strings.Contains(out, "waiting for the first iteration") ||
		!strings.Contains(out, "501") || !strings.Contains(out, "2 runs of one configuration, all of seed 1") {
		t.Errorf("baselines:\n%s", out)
	}
	// Without colour each line has characters of its own, named in the
	// legend: the second run dotted, the mean in bullets (its band in commas).
	if out := ansi.Strip(compare(dir, []string{erm, other}, 120, 40, true)); !strings.Contains(out, "·· "+other) || !strings.Contains(out, "••, mean") || strings.Contains(out, "━ "+other) {
		t.Errorf("baselines without colour:\n%s", out)
	}
	if out := ansi.Strip(compare(dir, []string{search, erm}, 120, 40, false)); !strings.Contains(out, "outer risk") || strings.Contains(out, "over the training") ||
		strings.Contains(out, "--inner-lr") || !strings.Contains(out, "--method                     maple → erm") || !strings.Contains(out, "a baseline runs no search") {
		t.Errorf("a search and a baseline:\n%s", out)
	}
}

// TestOnSteps: training curves with different validation checks (a
// 1500-step sparseirm beside a 501-step baseline) are drawn on the union
// of their steps, each value at its own step; the shorter curve was
// drawn over the longer's first checks, its step 501 at the other's 600.
func TestOnSteps(t *testing.T) {
	cp := func(steps ...int) []train.CheckPoint {
		var c []train.CheckPoint
		for _, s := range steps {
			c = append(c, train.CheckPoint{Step: s, ValWorst: float64(s) / 100})
		}
		return c
	}
	steps, v := onSteps([][]train.CheckPoint{cp(10, 20, 30, 40), cp(20, 40), nil}, trainingMetrics[0].f)
	got := fmt.Sprint(steps, v[0], v[1], v[2] == nil)
	if want := "[10 20 30 40] [0.1 0.2 0.3 0.4] [NaN 0.2 0.2 0.4] true"; got != want {
		t.Errorf("onSteps: %s, want %s", got, want)
	}
	if _, v := onSteps([][]train.CheckPoint{cp(50, 60), cp(10, 20)}, trainingMetrics[0].f); fmt.Sprint(v) != "[[NaN NaN 0.5 0.6] [0.1 0.2 NaN NaN]]" {
		t.Errorf("disjoint curves: %v", v)
	}
}

// compareRuns is a browser of fakeRuns at w x h comparing its two
// searches, the finished one named "rex-run" (with a rate change before
// its iteration 21); ← moves the cursor.
func compareRuns(t *testing.T, w, h int) *Browser {
	t.Helper()
	dir := fakeRuns(t)
	list, err := runs.Open(dir).List()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range list {
		if in.Method == "maple/rex" {
			name := "rex-run"
			if _, err := runs.Relabel(runs.Open(dir).RunDir(in.ID), &name, nil, nil, nil); err != nil {
				t.Fatal(err)
			}
			ev := `{"kind":"set_lr","iter":20,"lr":{"weight":0.5,"keep":0.05,"inner":0.1}}` + "\n"
			if err := os.WriteFile(filepath.Join(runs.Open(dir).RunDir(in.ID), runs.EventsFile), []byte(ev), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	b := newBrowser(dir, w, h)
	b.runList.dir = dir
	bpress(b, keyMsg("space"))
	bpress(b, keyMsg("down"))
	bpress(b, keyMsg("down"))
	bpress(b, keyMsg("space"))
	bpress(b, keyMsg("c"))
	if b.mode != modeCompare || b.compare == nil {
		t.Fatalf("no comparison: mode %v note %q", b.mode, b.note)
	}
	return b
}

// TestCompareView: the comparison's legends name the runs by --name
// (else id); ← moves its cursor instead of leaving; it is laid out again
// at a new size; PgDn scrolls it; esc leaves.
func TestCompareView(t *testing.T) {
	b := compareRuns(t, 120, 40)
	out := ansi.Strip(b.Render())
	if !strings.Contains(out, "━ rex-run") || !strings.Contains(out, "rex-run (") || !strings.Contains(out, "rex-run → ") {
		t.Errorf("the legend or results do not name the run:\n%s", out)
	}
	if !strings.Contains(out, "◆") {
		t.Errorf("no mark of the rate change:\n%s", out)
	}
	bpress(b, keyMsg("left"))
	out = ansi.Strip(b.Render())
	if b.mode != modeCompare || !strings.Contains(out, "cursor iteration 39") || !strings.Contains(out, "━ rex-run 0.7425") {
		t.Errorf("← did not move the cursor (mode %v):\n%s", b.mode, out)
	}
	// A smaller terminal: every line fits the new width and height.
	b.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	out = b.Render()
	for i, l := range strings.Split(out, "\n") {
		if ansi.StringWidth(l) > 80 {
			t.Errorf("line %d is %d wide after the resize", i, ansi.StringWidth(l))
		}
	}
	if n := strings.Count(out, "\n") + 1; n > 24 {
		t.Errorf("%d lines after the resize", n)
	}
	if !strings.Contains(ansi.Strip(out), "settings that differ") {
		t.Errorf("the comparison at 80x24 is not all on the screen:\n%s", ansi.Strip(out))
	}
	// Shorter still: the text below the charts is a page down.
	b.Update(tea.WindowSizeMsg{Width: 80, Height: 16})
	top := ansi.Strip(b.Render())
	if strings.Contains(top, "settings that differ") {
		t.Errorf("the comparison at 80x16 fits:\n%s", top)
	}
	bpress(b, tea.KeyPressMsg{Code: tea.KeyPgDown})
	if scrolled := ansi.Strip(b.Render()); scrolled == top || !strings.Contains(scrolled, "settings that differ") {
		t.Errorf("PgDn did not scroll to the settings:\n%s", scrolled)
	}
	bpress(b, tea.KeyPressMsg{Code: tea.KeyPgUp})
	if ansi.Strip(b.Render()) != top {
		t.Error("PgUp did not scroll back")
	}
	bpress(b, keyMsg("esc"))
	if b.mode != modeList || b.compare != nil {
		t.Error("esc did not leave the comparison")
	}
}

func TestCompareGolden(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		b := compareRuns(t, sz[0], sz[1])
		bpress(b, keyMsg("left"))
		bpress(b, keyMsg("left"))
		golden(t, fmt.Sprintf("compare-%dx%d", sz[0], sz[1]), b.Render())
	}
}

// TestReplayWithoutColour: a replay opened on a terminal without colour
// draws each accuracy in a panel of its own, as the live dashboard does;
// ← moves its cursor and leaves it open.
func TestReplayWithoutColour(t *testing.T) {
	dir := fakeRuns(t)
	b := newBrowser(dir, 120, 60)
	b.Update(tea.ColorProfileMsg{Profile: colorprofile.Ascii})
	bpress(b, keyMsg("enter"))
	bpress(b, keyMsg("left"))
	out := ansi.Strip(b.Render())
	if b.mode != modeRun || !strings.Contains(out, "accuracy: val worst-group") || !strings.Contains(out, "cursor iteration 39") {
		t.Errorf("replay without colour (mode %v):\n%s", b.mode, out)
	}
}

// TestBrowserHelpExplainsStatusMark: the help page says what a STATUS
// ending in ! means (a damaged file), which it did not.
func TestBrowserHelpExplainsStatusMark(t *testing.T) {
	b := newBrowser(fakeRuns(t), 120, 40)
	bpress(b, keyMsg("?"))
	if out := ansi.Strip(b.Render()); !strings.Contains(strings.Join(strings.Fields(out), " "), "A STATUS ending in ! (done!) has a damaged file") {
		t.Errorf("help page:\n%s", out)
	}
}

// TestCompareKeepsIDsWhole: at 60 columns the comparison's text wraps
// at spaces, never inside a run id (it broke "20261128-" from
// "010357-01" at the hyphen).
func TestCompareKeepsIDsWhole(t *testing.T) {
	dir := fakeRuns(t)
	list, err := runs.Open(dir).List()
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{list[0].ID, list[1].ID, list[2].ID}
	out := ansi.Strip(compare(dir, ids, 60, 40, true))
	for _, l := range strings.Split(out, "\n") {
		if strings.HasSuffix(strings.TrimRight(l, " "), "-") && strings.Contains(l, "2026") {
			t.Errorf("a line ends inside a run id: %q\n%s", l, out)
		}
	}
	for _, id := range ids {
		if !strings.Contains(out, id) {
			t.Errorf("run id %s not whole on any line:\n%s", id, out)
		}
	}
	if got := wrapSpaces("  a 20261128-010216-01 → 20261128-010357-01", 30, "    "); got != "  a 20261128-010216-01 →\n    20261128-010357-01" {
		t.Errorf("wrapSpaces: %q", got)
	}
}

// TestListNarrowWholeColumns: on a narrow terminal the list shows whole
// columns, the test figures before the dataset and iteration; it showed
// ID, DATASET, METHOD and STATUS at 60 columns and cut TEST WG's header
// to "TEST".
func TestListNarrowWholeColumns(t *testing.T) {
	dir := fakeRuns(t)
	for _, tc := range []struct {
		w    int
		want []string
	}{
		{60, []string{"ID ▲", "METHOD", "STATUS", "TEST WG"}},
		{74, []string{"ID ▲", "METHOD", "STATUS", "TEST WG", "TEST", "ITER"}},
	} {
		b := newBrowser(dir, tc.w, 20)
		lines := strings.Split(ansi.Strip(b.Render()), "\n")
		head := strings.TrimSpace(lines[1])
		var got []string
		for _, h := range regexp.MustCompile(`\s{2,}`).Split(head, -1) {
			got = append(got, h)
			if !slices.Contains(browserCols, strings.TrimSuffix(strings.TrimSuffix(h, " ▲"), " ▼")) {
				t.Errorf("%d columns: header %q is no whole column title: %q", tc.w, h, head)
			}
		}
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%d columns: no %s in %q", tc.w, w, head)
			}
		}
		for _, l := range lines {
			if lipgloss.Width(l) > tc.w {
				t.Errorf("%d columns: a line of %d: %q", tc.w, lipgloss.Width(l), l)
			}
		}
	}
}

// TestReplayNamesDamagedFile: a run's page says it has a damaged file,
// as the list's "!" does (the page said nothing of it).
func TestReplayNamesDamagedFile(t *testing.T) {
	dir := fakeRuns(t)
	list, err := runs.Open(dir).List()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range list {
		rd := runs.Open(dir).RunDir(in.ID)
		f, err := os.OpenFile(filepath.Join(rd, runs.MetricsFile), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`{"iter": 9, "outer_ri` + "\n") // a cut line
		f.Close()
		d, text, err := replay(rd, core.StatusDone, 120, 40)
		if err != nil {
			t.Fatal(err)
		}
		got := text
		if d != nil {
			got = d.note
		}
		if !strings.Contains(got, "damaged") {
			t.Errorf("%s (%s): the page says nothing of the damaged line: %q", in.ID, in.Method, got)
		}
	}
}

// TestBaselineTextReweighting: the browser's page of a JTT whose first
// stage fitted the training set says that its error set was empty, per
// group, that it changed nothing and which flag to change, wrapped to the
// screen (it said nothing of the error set).
func TestBaselineTextReweighting(t *testing.T) {
	cfg := testConfig()
	cfg.ID, cfg.Method = "20261123-232231-01", "jtt"
	rw := &train.Reweighting{Weights: "6 on the error set, 1 elsewhere", Samples: 40, Set: &train.SampleSet{Name: "error set"}, MaxOverMin: 1,
		Groups:     []train.GroupWeight{{Name: "y=0,a=0", Size: 30, Weight: 0.75}, {Name: "y=1,a=1", Size: 10, Weight: 0.25}},
		Degenerate: train.DegenerateEmptySet,
		Change:     []train.Change{{Field: "EvalSettings.JTTSteps", Lower: true, Now: 100, Why: "so that its first stage stops before it fits the training set"}}}
	r := &train.Result{Method: "jtt", Selection: "validation", SelectedStep: 70, GroupNames: []string{"y=0,a=0", "y=1,a=1"}, Reweighting: rw}
	got := baselineText(&cfg, &runs.Summary{Done: true, Status: core.StatusDone, Result: r}, "", 60, 30)
	for _, l := range strings.Split(got, "\n") {
		if w := ansi.StringWidth(l); w > 60 {
			t.Errorf("a line %d wide at 60 columns: %q", w, l)
		}
	}
	flat := strings.Join(strings.Fields(ansi.Strip(got)), " ")
	for _, want := range []string{"error set 0 of 40 training samples", "train y=1,a=1 10 samples, 0 in the error set",
		"changed nothing: the error set is empty", "try --jtt-steps below 100"} {
		if !strings.Contains(flat, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}
