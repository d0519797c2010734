package chart

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestWholeTicks: every x-axis tick of a chart lands on a whole
// iteration (6 iterations once labelled 1 2 4 5 6, the "4" at 3.5).
func TestWholeTicks(t *testing.T) {
	for span := 1; span <= 120; span++ {
		c := wholeTicks(span)
		if c < 2 || c > 6 || span%(c-1) != 0 {
			t.Errorf("span %d: %d ticks, spacing %g", span, c, float64(span)/float64(c-1))
		}
	}
	for span, want := range map[int]int{1: 2, 4: 5, 5: 6, 6: 4, 7: 2, 10: 6, 99: 4} {
		if got := wholeTicks(span); got != want {
			t.Errorf("span %d: %d ticks, want %d", span, got, want)
		}
	}
}

// TestYTick: the charts' y ticks never read "-0.000" (issue 25, defect 8).
func TestYTick(t *testing.T) {
	for v, want := range map[float64]string{-0.0001: "0.000", 0: "0.000", -0.25: "-0.250", 0.6667: "0.667"} {
		if got := yTick(v); got != want {
			t.Errorf("yTick(%g) = %q, want %q", v, got, want)
		}
	}
}

// TestLegendsWrap: a chart's legend wider than the chart goes on to the
// next line, whole entries, instead of being cut at the edge.
func TestLegendsWrap(t *testing.T) {
	names := []string{"val worst-group", "val average", "TEST worst-group", "TEST average"}
	groups := []string{"y=0,a=0", "y=0,a=1", "y=1,a=0", "y=1,a=1"}
	series := [][]float64{{0.1, 0.2}, {0.2, 0.3}, {0.3, 0.4}, {0.4, 0.5}}
	for _, c := range []struct {
		name  string
		title string
		names []string
		w     int
	}{
		{"accuracy at 120 columns", "accuracy", names, 70},
		{"accuracy at 60 columns", "accuracy", names, 58},
		{"groups at 80 columns", "validation accuracy per group (inner model)", groups, 78},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := drawChart(1, c.title, c.names, series, c.w, 12)
			for i, l := range strings.Split(out, "\n") {
				if w := ansi.StringWidth(l); w > c.w {
					t.Errorf("line %d is %d wide, the chart %d: %q", i, w, c.w, ansi.Strip(l))
				}
			}
			for _, n := range c.names {
				if !strings.Contains(ansi.Strip(out), "━ "+n) {
					t.Errorf("legend entry %q missing or cut:\n%s", n, ansi.Strip(out))
				}
			}
			if n := strings.Count(out, "\n") + 1; n > 12 {
				t.Errorf("%d lines for a chart of 12", n)
			}
		})
	}
}
