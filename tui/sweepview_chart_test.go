package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/sweeps"
)

// sweepOf is the sweep view of fakeRuns's runs as a sweep's cells (the
// maple/rex search done, the erm baseline done, the maple/irmv1 search
// running, a cell waiting) at w x h, with the first cell's curves read.
func sweepOf(t *testing.T, w, h int, mono bool) *SweepView {
	t.Helper()
	dir := fakeRuns(t)
	list, err := runs.Open(dir).List()
	if err != nil {
		t.Fatal(err)
	}
	var cells []sweeps.CellState
	for _, method := range []string{"maple/rex", "erm", "maple/irmv1"} {
		for _, in := range list {
			if in.Method == method {
				st := map[string]string{"maple/irmv1": "running"}[method]
				if st == "" {
					st = "done"
				}
				cells = append(cells, sweeps.CellState{Label: "synthetic|linear|" + method + "|1", State: st, RunID: in.ID, Info: &in})
			}
		}
	}
	cells = append(cells, sweeps.CellState{Label: "synthetic|linear|maple/irmv1|2", State: "waiting"})
	v := NewSweepView(dir, "sw", nil)
	if mono {
		v.Update(tea.ColorProfileMsg{Profile: colorprofile.Ascii})
	}
	v.Update(tea.WindowSizeMsg{Width: w, Height: h})
	sweepDeliver(v, sweepMsg{cells: cells})
	return v
}

// sweepDeliver sends msg to v and delivers the cell reads it asks for,
// as the program would.
func sweepDeliver(v *SweepView, msg tea.Msg) {
	_, cmd := v.Update(msg)
	var pending []tea.Cmd
	if cmd != nil {
		pending = append(pending, cmd)
	}
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		switch m := c().(type) {
		case tea.BatchMsg:
			for _, b := range m {
				if b != nil {
					pending = append(pending, b)
				}
			}
		case cellMsg, searchedMsg:
			v.Update(m)
		}
	}
}

// TestSweepViewCharts: under the table, the curves of the cell under the
// cursor in the chart component: a search's accuracy and risk against
// the iteration (its cursor with ←), a baseline's validation checks
// against the step, a waiting cell a line saying it has no run yet.
func TestSweepViewCharts(t *testing.T) {
	v := sweepOf(t, 120, 40, false)
	for _, c := range []struct {
		name string
		keys []string
		want []string
	}{
		{"a search", nil, []string{"cell synthetic|linear|maple/rex|1 (", "worst-group accuracy", "outer risk", "outer iteration →"}},
		{"its cursor", []string{"left"}, []string{"cursor iteration 39", "val 0.7425"}},
		{"zoomed", []string{"z"}, []string{"zoom: iterations"}},
		{"a baseline", []string{"down"}, []string{"maple/rex|1", "cell synthetic|linear|erm|1 (", "training step →", "501"}},
		{"a running search", []string{"down"}, []string{"cell synthetic|linear|maple/irmv1|1 (", "outer iteration →"}},
		{"a waiting cell", []string{"down"}, []string{"no run yet"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range c.keys {
				sweepDeliver(v, keyMsg(k))
			}
			out := ansi.Strip(v.Render())
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in\n%s", w, out)
				}
			}
			if n := strings.Count(out, "\n") + 1; n > 40 {
				t.Errorf("%d lines for a 40-line terminal", n)
			}
		})
	}
	// Below 16 lines the table has the screen.
	v.Update(tea.WindowSizeMsg{Width: 80, Height: 14})
	if out := ansi.Strip(v.Render()); strings.Contains(out, "cell synthetic") {
		t.Errorf("a chart at 80x14:\n%s", out)
	}
}

// TestSweepViewKeyBeforeCurves: a chart key typed after moving to
// another cell but before its curves are read applies to them (the
// curves' arrival reset the cursor), and a late read of the cell left is
// dropped.
func TestSweepViewKeyBeforeCurves(t *testing.T) {
	v := sweepOf(t, 120, 40, false)
	first, _ := v.current()
	_, read := v.Update(keyMsg("down")) // to the erm cell: its read pending
	v.Update(keyMsg("left"))
	late := readCell(v.dir, first.RunID, true)() // the first cell's curves, late
	if read == nil {
		t.Fatal("no read of the erm cell's curves")
	}
	v.Update(read())
	v.Update(late)
	out := ansi.Strip(v.Render())
	if !strings.Contains(out, "cursor training step") || !strings.Contains(out, "cell synthetic|linear|erm|1") {
		t.Errorf("the key typed before the curves came was lost, or a late read replaced them:\n%s", out)
	}
}

// TestSweepViewGolden: the sweep view with its first cell's charts and
// the cursor three iterations back, without colour, at 80x24 and
// 120x40.
func TestSweepViewGolden(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		v := sweepOf(t, sz[0], sz[1], true)
		for range 3 {
			sweepDeliver(v, keyMsg("left"))
		}
		out := v.Render()
		golden(t, fmt.Sprintf("sweep-%dx%d", sz[0], sz[1]), out)
	}
}
