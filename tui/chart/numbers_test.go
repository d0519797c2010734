package chart

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// yLabels returns a chart's y-axis labels, top to bottom.
func yLabels(chart string) []string {
	re := regexp.MustCompile(`^\s*(\S+) [┼┤]`)
	var out []string
	for _, l := range strings.Split(ansi.Strip(chart), "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// TestYLabelsTellValuesApart: every y-axis label of a chart differs from
// the others, at any scale (after z the outer risk's labels read 0.000
// four times; at 80 columns 0.002 twice), and labels stay short.
func TestYLabelsTellValuesApart(t *testing.T) {
	ramp := func(lo, hi float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = lo + (hi-lo)*float64(i)/float64(n-1)
		}
		return out
	}
	decay := func(scale float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = scale * math.Exp(-3*float64(i)/float64(n))
		}
		return out
	}
	for _, c := range []struct {
		name   string
		series []float64
		w, h   int
		want   string // one of the labels, where it is known
	}{
		{"accuracy", ramp(0.385, 0.701, 60), 78, 9, "0.701"},
		{"outer risk at 80 columns", decay(0.0024, 60), 78, 9, ""},
		{"zoomed outer risk", ramp(1.1e-4, 1.9e-4, 50), 78, 9, ""},
		{"around 1e-6", ramp(1e-6, 3e-6, 40), 78, 12, ""},
		{"flat accuracy", ramp(0.70001, 0.70004, 40), 78, 9, ""},
		{"large", ramp(12000, 12004, 40), 78, 9, ""},
		{"negative", ramp(-3e-5, 2e-5, 40), 78, 9, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := drawChart(1, "outer risk", []string{"R"}, [][]float64{c.series}, c.w, c.h)
			labels := yLabels(out)
			t.Logf("labels %q", labels)
			if len(labels) < 3 {
				t.Fatalf("%d labels in\n%s", len(labels), out)
			}
			seen := map[string]bool{}
			for _, l := range labels {
				if seen[l] {
					t.Errorf("label %q appears twice: %q", l, labels)
				}
				seen[l] = true
				if len(l) > 9 {
					t.Errorf("label %q is longer than 9 characters", l)
				}
			}
			if c.want != "" && !seen[c.want] {
				t.Errorf("labels %q, want %q among them", labels, c.want)
			}
		})
	}
}
