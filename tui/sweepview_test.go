package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/sweeps"
)

// TestSweepView: the counts and the time left, enter opens a running
// cell (and nothing else), and q asks before stopping the sweep this
// process runs (issue 25, build item 4).
func TestSweepView(t *testing.T) {
	cells := []sweeps.CellState{
		{Label: "a|1", State: "done", RunID: "R1", Info: &runs.Info{Iter: 10, Total: 10, Elapsed: 100, TestAcc: 0.7}},
		{Label: "a|2", State: "running", RunID: "R2", Info: &runs.Info{Iter: 5, Total: 10, Elapsed: 50, TestAcc: -1}},
		{Label: "a|3", State: "waiting"},
		{Label: "a|4", State: "failed", RunID: "R4", Info: &runs.Info{TestAcc: -1}},
	}
	done := make(chan struct{})
	v := NewSweepView("runs", "sw", done)
	v.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
	v.Update(sweepMsg{cells: cells})
	head := ansi.Strip(strings.Split(v.Render(), "\n")[0])
	// Left: the running cell's 50 s, and the waiting one at the mean full
	// time (100 s), with one cell running at a time: 150 s.
	if !strings.Contains(head, "4 cells: 1 done, 1 running, 1 waiting, 1 failed") || !strings.Contains(head, "about 2m30s left") {
		t.Errorf("header %q", head)
	}
	v.Update(keyMsg("enter")) // the cursor is on the done cell
	if v.attach != "" || !strings.Contains(v.note, "running cell") {
		t.Errorf("enter on a done cell: attach %q note %q", v.attach, v.note)
	}
	v.Update(keyMsg("down"))
	if _, cmd := v.Update(keyMsg("enter")); v.attach != "R2" || !isQuit(cmd) {
		t.Errorf("enter on the running cell: attach %q", v.attach)
	}
	v.attach = ""
	if _, cmd := v.Update(keyMsg("q")); isQuit(cmd) || !v.confirm {
		t.Error("q left a running sweep without asking")
	}
	if _, cmd := v.Update(keyMsg("y")); !isQuit(cmd) || !v.stopped {
		t.Error("y did not stop the sweep")
	}
}

// TestSweepViewBaselines: a sweep of baselines (which count no
// iterations) gets a time left from its finished cells' times and its
// running cells' time so far, and enter on a running baseline opens its
// live view (it said there was no search to watch).
func TestSweepViewBaselines(t *testing.T) {
	cells := []sweeps.CellState{
		{Label: "b|1", State: "done", RunID: "R1", Info: &runs.Info{Method: "lff", Elapsed: 600, TestAcc: 0.7}},
		{Label: "b|2", State: "running", RunID: "R2", Info: &runs.Info{Method: "lff", Started: time.Now().Add(-200 * time.Second), TestAcc: -1}},
		{Label: "b|3", State: "waiting"},
	}
	v := NewSweepView("runs", "sw", nil)
	v.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
	v.Update(sweepMsg{cells: cells})
	head := ansi.Strip(strings.Split(v.Render(), "\n")[0])
	// Left: the running cell's 600 - 200 s and the waiting one's 600 s,
	// one cell at a time: 1000 s (a second either way for the clock).
	if !strings.Contains(head, "about 16m") {
		t.Errorf("header %q, want about 16m40s left", head)
	}
	v.Update(keyMsg("down"))
	if _, cmd := v.Update(keyMsg("enter")); v.attach != "R2" || !isQuit(cmd) {
		t.Errorf("enter on a running baseline: attach %q note %q, want its live view", v.attach, v.note)
	}
}

// TestSweepViewCursorStaysOnScreen: the cursor's cell stays on the
// screen when the sweep's state is read again (every second), also at
// the end of a sweep longer than the screen.
func TestSweepViewCursorStaysOnScreen(t *testing.T) {
	var cells []sweeps.CellState
	for i := range 40 {
		cells = append(cells, sweeps.CellState{Label: fmt.Sprintf("cmnist|mlp|erm|%d", i+1), State: "waiting"})
	}
	v := NewSweepView("runs", "sw", make(chan struct{}))
	v.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	v.Update(sweepMsg{cells: cells})
	for i, k := range []string{"G", "k", "k", "g", "G"} {
		v.Update(keyMsg(k))
		for _, when := range []string{"", " and a reload"} {
			label := cells[v.tbl.Cursor()].Label
			if !strings.Contains(ansi.Strip(v.Render()), label+" ") {
				t.Fatalf("after key %d (%q)%s: the cursor's cell %s is not on the screen:\n%s", i, k, when, label, ansi.Strip(v.Render()))
			}
			v.Update(sweepMsg{cells: cells})
		}
	}
}

func TestShortLabels(t *testing.T) {
	for _, tc := range []struct {
		name   string
		labels []string
		short  []string
		common string
	}{
		{"seeds differ", []string{"cmnist|0|mlp:390,390|sparseirm|1", "cmnist|0|mlp:390,390|sparseirm|2"}, []string{"1", "2"}, "cmnist|0|mlp:390,390|sparseirm|*"},
		{"methods and seeds differ", []string{"c|0|m|erm|1", "c|0|m|lff|1", "c|0|m|erm|2"}, []string{"erm|1", "lff|1", "erm|2"}, "c|0|m|*|*"},
		{"nothing shared", []string{"a|1", "b|2"}, nil, ""},
		{"nothing differs", []string{"a|1", "a|1"}, nil, ""},
		{"one cell", []string{"a|1"}, nil, ""},
		{"parts of other counts", []string{"a|1", "a|1|x"}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			short, common := shortLabels(tc.labels)
			if common != tc.common || fmt.Sprint(short) != fmt.Sprint(tc.short) {
				t.Errorf("shortLabels(%q) = %q, %q; want %q, %q", tc.labels, short, common, tc.short, tc.common)
			}
		})
	}
}

// TestSweepViewNarrow: on a narrow screen the header names only the
// states some cell is in, and the CELL column drops the label parts every
// cell shares (the header shows them), so that the run ids fit; a wide
// screen keeps the full labels.
func TestSweepViewNarrow(t *testing.T) {
	cells := []sweeps.CellState{
		{Label: "cmnist|0|mlp:390,390|sparseirm|1", State: "running", RunID: "20261124-041225-02", Info: &runs.Info{TestAcc: -1}},
		{Label: "cmnist|0|mlp:390,390|sparseirm|2", State: "waiting"},
		{Label: "cmnist|0|mlp:390,390|sparseirm|3", State: "waiting"},
	}
	v := NewSweepView("runs", "b24c-d", make(chan struct{}))
	v.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	v.Update(sweepMsg{cells: cells})
	lines := strings.Split(ansi.Strip(v.Render()), "\n")
	if lines[0] != "maple sweep b24c-d: 3 cells: 1 running, 2 waiting" {
		t.Errorf("header %q", lines[0])
	}
	if lines[1] != "cells cmnist|0|mlp:390,390|sparseirm|*" {
		t.Errorf("second line %q, want the shared label parts", lines[1])
	}
	if !strings.Contains(lines[3], " 1 ") || !strings.Contains(lines[3], "20261124-041225-02") {
		t.Errorf("first cell %q: want its seed and its whole run id", lines[3])
	}
	v.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	if r := ansi.Strip(v.Render()); !strings.Contains(r, "cmnist|0|mlp:390,390|sparseirm|1 ") || strings.Contains(r, "cells cmnist") {
		t.Errorf("at 200 columns the full labels:\n%s", r)
	}
}

// TestSweepViewStopSays: q on a sweep this process runs says what
// stopping keeps of its running cells: a baseline keeps no checkpoint
// (it said every running cell was checkpointed).
func TestSweepViewStopSays(t *testing.T) {
	search := sweeps.CellState{Label: "s|1", State: "running", RunID: "R1", Info: &runs.Info{Iter: 5, Total: 10, TestAcc: -1}}
	baseline := sweeps.CellState{Label: "b|1", State: "running", RunID: "R2", Info: &runs.Info{Method: "mrm", TestAcc: -1}}
	for _, tc := range []struct {
		name  string
		cells []sweeps.CellState
		want  string
	}{
		{"searches", []sweeps.CellState{search}, "its running cells are checkpointed; rerun"},
		{"baselines", []sweeps.CellState{baseline}, "its running baselines train again from the start (a baseline keeps no checkpoint); rerun"},
		{"both", []sweeps.CellState{search, baseline}, "its running searches are checkpointed, its running baselines train again from the start; rerun"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := NewSweepView("runs", "sw", make(chan struct{}))
			v.Update(tea.WindowSizeMsg{Width: 200, Height: 20})
			v.Update(sweepMsg{cells: tc.cells})
			v.Update(keyMsg("q"))
			if !v.confirm || !strings.Contains(v.note, tc.want) {
				t.Errorf("note %q, want %q", v.note, tc.want)
			}
		})
	}
}

// TestSweepViewStopped: a sweep that was stopped (maple stop), attached
// to later, has waiting cells that nothing will run: the header says so
// and how to go on, and gives no time left (it read "about 52s left").
func TestSweepViewStopped(t *testing.T) {
	cells := []sweeps.CellState{
		{Label: "a|1", State: "done", RunID: "R1", Info: &runs.Info{Iter: 10, Total: 10, Elapsed: 26, TestAcc: 0.7}},
		{Label: "a|2", State: "stopped", RunID: "R2", Info: &runs.Info{Iter: 5, Total: 10, Elapsed: 13, TestAcc: -1}},
		{Label: "a|3", State: "waiting"},
	}
	for _, c := range []struct {
		name   string
		halted bool
		want   string
	}{
		{"stopped with maple stop", true, "the sweep was stopped; rerun it to run the waiting cells"},
		{"no process running it", false, "no cell is running; rerun the sweep to run the waiting cells"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := NewSweepView("runs", "sw", nil)
			v.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
			v.Update(sweepMsg{cells: cells, halted: c.halted})
			out := ansi.Strip(v.Render())
			if strings.Contains(out, "left") || !strings.Contains(out, c.want) {
				t.Errorf("view\n%s\nwant %q and no time left", out, c.want)
			}
		})
	}
	// The view reads the stop mark with the cells.
	dir := t.TempDir()
	if err := sweeps.AskSweepStop(dir, "sw"); err != nil {
		t.Fatal(err)
	}
	if m, ok := NewSweepView(dir, "sw", nil).load()().(sweepMsg); !ok || !m.halted {
		t.Errorf("load after maple stop: %#v, want halted", m)
	}
}
