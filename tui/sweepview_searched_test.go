package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/sweeps"
	"github.com/maple-ood/maple/train"
)

// searchedSweep is a random search of three trials over the inner and
// keep rates, two seeds each, finished (trial 2 the best on validation),
// and a trial still running; its sweep view at w x h without colour.
func searchedSweep(t *testing.T, w, h int) *SweepView {
	t.Helper()
	dir := t.TempDir()
	var cells []sweeps.CellState
	for _, tr := range []struct {
		trial       int
		inner, keep float64
		val1, val2  float64
		done        bool
	}{{1, 0.3, 0.05, 0.55, 0.60, true}, {2, 0.03, 0.5, 0.71, 0.69, true}, {3, 0.1, 2, 0.40, 0.48, true}, {4, 0.05, 1, 0, 0, false}} {
		for seed := uint64(1); seed <= 2; seed++ {
			cfg := testConfig()
			cfg.Sweep, cfg.Settings.Seed = "sw", seed
			cfg.Started = time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC) // the run ids
			cfg.Settings.InnerLR, cfg.Settings.KeepLR = tr.inner, tr.keep
			cfg.Cell = fmt.Sprintf("synthetic|0|linear|maple:irmv1 trial %d|%d", tr.trial, seed)
			r, err := runs.Open(dir).Create(cfg)
			if err != nil {
				t.Fatal(err)
			}
			st := sweeps.CellState{Label: cfg.Cell, State: "running", RunID: r.Config.ID, Info: &runs.Info{Iter: 3, Total: 40, TestAcc: -1}}
			if tr.done {
				val := map[uint64]float64{1: tr.val1, 2: tr.val2}[seed]
				b, _ := json.Marshal(runs.Summary{Done: true, Status: core.StatusDone, Result: &train.Result{Method: "maple", ValWorst: val, TestWorst: val - 0.05, TestAcc: 0.8}})
				os.WriteFile(r.Path(runs.SummaryFile), b, 0o644)
				st.State, st.Info = "done", &runs.Info{Iter: 40, Total: 40, TestAcc: 0.8}
			}
			r.Close()
			cells = append(cells, st)
		}
	}
	v := NewSweepView(dir, "sw", nil)
	v.Update(tea.ColorProfileMsg{Profile: colorprofile.Ascii})
	v.Update(tea.WindowSizeMsg{Width: w, Height: h})
	sweepDeliver(v, sweepMsg{cells: cells})
	sweepDeliver(v, keyMsg("tab"))
	return v
}

// TestSweepViewSearched: tab shows, in place of the cell's curves, a
// scatter per searched setting (the inner and keep rates, on log axes;
// nothing of the settings every run shares) of the finished runs, the
// table's pick (trial 2, best mean validation over its seeds) named with
// its settings and its figure; the footer offers tab back, and tab
// brings the cell's curves again.
func TestSweepViewSearched(t *testing.T) {
	v := searchedSweep(t, 120, 40)
	out := ansi.Strip(v.Render())
	for _, want := range []string{"searched settings vs val worst-group (%)", "--inner-lr (log scale)", "--keep-lr (log scale)",
		"the table's pick: --inner-lr 0.03 --keep-lr 0.5, val worst-group 70.0% (2 runs)", "tab cell curves"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for _, not := range []string{"--outer-iters", "--seed", "--eval-lr", "outer iteration →"} {
		if strings.Contains(out, not) {
			t.Errorf("%q shown, which does not vary:\n%s", not, out)
		}
	}
	if n := strings.Count(out, "◆"); n != 2*2+1 { // the pick's two runs in each panel, and the legend's
		t.Errorf("%d ◆ marks, want the pick's two runs in each of two panels and the legend's:\n%s", n, out)
	}
	sweepDeliver(v, keyMsg("tab"))
	if out := ansi.Strip(v.Render()); strings.Contains(out, "searched settings") || !strings.Contains(out, "cell synthetic|0|linear|maple:irmv1 trial 1|1 (") {
		t.Errorf("tab did not bring back the cell's curves:\n%s", out)
	}
}

// TestScatterPanelPoints: each run is drawn where its value and figure
// put it: on a log axis 0.03 and 0.3 are at the ends of the plot and
// 0.095 (the geometric middle) half way; the best figure on the top row,
// the worst on the bottom one, 50% two thirds of the way down.
func TestScatterPanelPoints(t *testing.T) {
	s := searchedSweep(t, 120, 40).searched.s
	if len(s.Params) != 2 {
		t.Fatalf("%d searched settings, want 2 (inner and keep rates)", len(s.Params))
	}
	p := s.Params[0]
	p.Points = nil
	for i, x := range []float64{0.03, 0.3, 0.095} {
		p.Points = append(p.Points, reportPoint(x, []float64{0.7, 0.4, 0.5}[i], i == 0))
	}
	p.Log = true
	lines := strings.Split(ansi.Strip(scatterPanel(p, 47, 13, 0.4, 0.7)), "\n")
	// The head, 10 rows, the axis, its ticks; each row's 40 columns after
	// the y axis's 6, a margin of one each side: 0.03 in column 1, 0.3 in
	// 38, 0.095 in 1 + round(37 × log(0.095/0.03)/log(10)) = 20.
	for _, c := range []struct {
		name     string
		row, col int
		mark     rune
	}{{"the pick, 0.03 at 70%", 0, 1, '◆'}, {"0.3 at 40%", 9, 38, '•'}, {"0.095 at 50%", 6, 20, '•'}} {
		row := []rune(lines[1+c.row])
		if 6+c.col >= len(row) || row[6+c.col] != c.mark {
			t.Errorf("%s: no %c in row %d column %d:\n%s", c.name, c.mark, c.row, c.col, strings.Join(lines, "\n"))
		}
	}
	if n := strings.Count(strings.Join(lines, ""), "•") + strings.Count(strings.Join(lines, ""), "◆"); n != 3 {
		t.Errorf("%d points drawn, want 3:\n%s", n, strings.Join(lines, "\n"))
	}
	if !strings.Contains(lines[len(lines)-1], "0.03") || !strings.Contains(lines[len(lines)-1], "0.3") {
		t.Errorf("the x axis does not name the values:\n%s", strings.Join(lines, "\n"))
	}
}

func reportPoint(x, val float64, best bool) report.Point {
	return report.Point{X: x, Value: fmt.Sprint(x), Val: val, Best: best}
}

// TestSweepViewSearchedGolden: the searched settings at 60x20 and
// 200x60, without colour.
func TestSweepViewSearchedGolden(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {200, 60}} {
		v := searchedSweep(t, sz[0], sz[1])
		out := v.Render()
		lines := strings.Split(out, "\n")
		if len(lines) > sz[1] {
			t.Errorf("%d lines for a %d-line terminal", len(lines), sz[1])
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > sz[0] {
				t.Errorf("line %d is %d wide", i, w)
			}
		}
		golden(t, fmt.Sprintf("sweep-searched-%dx%d", sz[0], sz[1]), out)
	}
}
