package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/train"
	"github.com/maple-ood/maple/tui/chart"
)

// TestCompareMetric: in a comparison v and V choose the metric charted
// above the outer risk, among those metrics.jsonl records; the chart's
// values are the runs' recorded figures of that metric (at the cursor,
// iteration 40 of the rex run: its test worst-group accuracy 0.65, its
// group y=1,a=1's val accuracy 0.85); the outer risk chosen is charted
// once; the footer and the ? page name the keys.
func TestCompareMetric(t *testing.T) {
	b := compareRuns(t, 120, 40)
	bpress(b, keyMsg("left"))
	bpress(b, keyMsg("right")) // the cursor on iteration 40
	for _, c := range []struct {
		name string
		key  string
		want []string
		not  []string
	}{
		{"the default", "", []string{"val worst-group accuracy [1/16]  ━ rex-run 0.75", "outer risk"}, nil},
		{"v: the next", "v", []string{"test worst-group accuracy [2/16]  ━ rex-run 0.65", "outer risk"}, []string{"val worst-group accuracy"}},
		{"V twice: round to the last", "V V", []string{"val accuracy of group y=1,a=1 [16/16]  ━ rex-run 0.85"}, nil},
		{"v five times: the outer risk, once", "v v v v v", []string{"outer risk [5/16]"}, []string{"outer risk  "}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range strings.Fields(c.key) {
				bpress(b, keyMsg(k))
			}
			out := ansi.Strip(b.Render())
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in\n%s", w, out)
				}
			}
			for _, w := range c.not {
				if strings.Contains(out, w) {
					t.Errorf("%q in\n%s", w, out)
				}
			}
			if !strings.Contains(out, "v/V metric ·") {
				t.Errorf("the footer does not offer v/V:\n%s", out)
			}
		})
	}
	bpress(b, keyMsg("?"))
	if out := ansi.Strip(b.Render()); b.mode != modeHelp || !strings.Contains(out, "v and V choose the metric charted") || !strings.Contains(out, "comparison keys") {
		t.Errorf("? in a comparison (mode %v):\n%s", b.mode, out)
	}
	bpress(b, keyMsg("x"))
	if b.mode != modeCompare || b.compare == nil {
		t.Errorf("a key on the help page did not go back to the comparison (mode %v)", b.mode)
	}
}

// TestCompareMetricTraining: a comparison of baselines charts the chosen
// figure of their trainings' validation checks.
func TestCompareMetricTraining(t *testing.T) {
	cp := func(step int, val, test float64) train.CheckPoint {
		return train.CheckPoint{Step: step, ValWorst: val, TestWorst: test, ValAcc: 0.9, TestAcc: 0.8}
	}
	c := &comparison{ids: []string{"a", "b"}, names: []string{"a", "b"}, series: make([][]*core.Snapshot, 2),
		curves: [][]train.CheckPoint{{cp(10, 0.5, 0.4), cp(20, 0.6, 0.45)}, {cp(10, 0.55, 0.3)}}, flat: []map[string]string{{}, {}}, results: []string{"", ""}}
	v := newCompareView(c, false)
	v.SetSize(100, 30)
	v.Update(chart.CursorMsg(-1)) // on step 10
	for i, want := range []string{"val worst-group accuracy over the training (validation checks) [1/4]  ━ a 0.5 ━ b 0.55",
		"test worst-group accuracy over the training (validation checks) [2/4]  ━ a 0.4 ━ b 0.3"} {
		if i > 0 {
			v.Update(metricMsg(1))
		}
		if out := ansi.Strip(v.View()); !strings.Contains(out, want) {
			t.Errorf("metric %d: no %q in\n%s", i+1, want, out)
		}
	}
}

// TestCompareMetricFits: a chosen metric's comparison fits 60x20 and
// 200x60, its title naming the metric, the footer offering v/V.
func TestCompareMetricFits(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			b := compareRuns(t, sz[0], sz[1])
			bpress(b, keyMsg("v"))
			out := ansi.Strip(b.Render())
			lines := strings.Split(out, "\n")
			if len(lines) > sz[1] {
				t.Errorf("%d lines for a %d-line terminal", len(lines), sz[1])
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > sz[0] {
					t.Errorf("line %d is %d wide", i, w)
				}
			}
			if !strings.Contains(out, "test worst-group accuracy [2/16]") || !strings.Contains(lines[len(lines)-1], "v/V metric") {
				t.Errorf("the metric or its key is not on the screen:\n%s", out)
			}
		})
	}
}
