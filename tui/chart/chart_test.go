package chart

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/guptarohit/asciigraph"

	"github.com/maple-ood/maple/core"
)

// TestEMA: the smoothing is TensorBoard's EMA from the first value; NaN
// points stay gaps and leave the average unchanged; 0 is the raw values.
func TestEMA(t *testing.T) {
	got := EMA([]float64{1, 2, math.NaN(), 4}, 0.5)
	// 1; 0.5*1+0.5*2 = 1.5; NaN; 0.5*1.5+0.5*4 = 2.75
	if fmt.Sprint(got) != "[1 1.5 NaN 2.75]" {
		t.Errorf("ema 0.5: %v", got)
	}
	if got := EMA([]float64{math.NaN(), 10, 0}, 0.9); fmt.Sprint(got) != "[NaN 10 9]" {
		t.Errorf("ema 0.9 after a gap: %v", got)
	}
	raw := []float64{3, 1}
	if got := EMA(raw, 0); &got[0] != &raw[0] {
		t.Error("ema 0 copied or changed the values")
	}
}

// TestLogValues: base-10 logs of positive values; a zero or negative
// value refuses the log scale.
func TestLogValues(t *testing.T) {
	got, ok := logValues([]float64{1, 100, 1e-3, math.NaN()})
	if !ok || fmt.Sprint(got) != "[0 2 -3 NaN]" {
		t.Errorf("logValues: %v %v", got, ok)
	}
	for _, v := range [][]float64{{1, 0}, {-2, 3}} {
		if _, ok := logValues(v); ok {
			t.Errorf("log scale of %v", v)
		}
	}
}

// TestZoomArithmetic: zoom in halves the window about a point (kept
// inside the points, never under minSpan), zoom out doubles it about its
// middle up to all points, pan moves by a quarter of the width within
// the points.
func TestZoomArithmetic(t *testing.T) {
	all := xWindow{0, 80}
	for _, c := range []struct {
		name      string
		got, want xWindow
	}{
		{"in about the latest", all.zoomIn(80, 79), xWindow{40, 80}},
		{"in about the middle", all.zoomIn(80, 30), xWindow{10, 50}},
		{"in about the first", all.zoomIn(80, 0), xWindow{0, 40}},
		{"in to the least", xWindow{10, 15}.zoomIn(80, 12), xWindow{10, 14}},
		{"not under the least", xWindow{10, 14}.zoomIn(80, 12), xWindow{10, 14}},
		{"out about the middle", xWindow{20, 40}.zoomOut(80), xWindow{10, 50}},
		{"out at the end", xWindow{60, 80}.zoomOut(80), xWindow{40, 80}},
		{"out to all", xWindow{10, 50}.zoomOut(80), all},
		{"pan later", xWindow{10, 50}.pan(80, 1), xWindow{20, 60}},
		{"pan earlier past the start", xWindow{5, 45}.pan(80, -1), xWindow{0, 40}},
		{"pan later past the end", xWindow{38, 78}.pan(80, 1), xWindow{40, 80}},
		{"pan a small window by one", xWindow{0, 3}.pan(80, 1), xWindow{1, 4}},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}

// testView is a chart view of iterations 1 to n: the outer risk (a
// risk), and two accuracies, with rates changed at iteration 5.
func testView(n int) *Model {
	xs := make([]int, n)
	risk, a, b := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i] = i + 1
		risk[i] = math.Pow(10, -float64(i)/10)
		a[i], b[i] = 0.5+float64(i)/100, 0.25
	}
	c := New()
	c.SetData(xs, nil, []Plot{
		{Title: "outer risk", Lines: []Line{{Name: "R", Values: risk}}, Risk: true},
		{Title: "accuracy", Lines: []Line{{Name: "val", Values: a}, {Name: "test", Values: b}}},
	}, []int{5})
	return &c
}

// TestCursorReadout: the cursor starts on the latest point shown, moves
// by points and reads out every series at its iteration; the window
// follows it out of a zoom; a rate change there is said.
func TestCursorReadout(t *testing.T) {
	c := testView(40)
	c.Update(CursorMsg(-1))
	if c.cursor != 38 {
		t.Fatalf("cursor at point %d, want 38 (the latest, then one back)", c.cursor)
	}
	if got := ansi.Strip(c.readout()); got != "cursor iteration 39 (values in the legends)" {
		t.Errorf("readout %q", got)
	}
	out := ansi.Strip(strings.Join(c.Render(100, 12), "\n"))
	for _, want := range []string{fmt.Sprintf("outer risk  ━ R %.4g\n", math.Pow(10, -3.8)), "accuracy  ━ val 0.88 ━ test 0.25\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no legend with the values at the cursor %q in\n%s", want, out)
		}
	}
	c.Update(CursorMsg(-34))
	if got := ansi.Strip(c.readout()); got != "cursor iteration 5 (values in the legends) · learning rates changed here" {
		t.Errorf("readout at the rate change: %q", got)
	}
	if out := ansi.Strip(strings.Join(c.Render(100, 12), "\n")); !strings.Contains(out, "━ R 0.3981 ") && !strings.Contains(out, "━ R 0.3981\n") {
		t.Errorf("risk at iteration 5 not read out:\n%s", out)
	}
	c.Update(CursorMsg(-100))
	if c.cursor != 0 {
		t.Errorf("cursor went past the first point: %d", c.cursor)
	}
	// Zoomed about the cursor, then moved past the window: it follows.
	c.Update(ZoomMsg(1))
	if w := c.window(); w != (xWindow{0, 20}) {
		t.Fatalf("zoom about the first point: %v", w)
	}
	c.Update(CursorMsg(25))
	if w := c.window(); w != (xWindow{6, 26}) || c.cursor != 25 {
		t.Errorf("window %v cursor %d after moving past the window", c.window(), c.cursor)
	}
}

// TestChartDrawing: the log scale labels the risk in powers of ten and
// leaves the accuracies linear; the smoothing's factor is shown; the
// rate change is marked on the x axis under its iteration and the cursor
// under its own.
func TestChartDrawing(t *testing.T) {
	c := testView(41)
	c.Update(LogMsg{})
	c.Update(SmoothMsg{})
	out := ansi.Strip(strings.Join(c.Render(80, 14), "\n"))
	for _, want := range []string{"outer risk (log scale)", "EMA 0.6", "log scale (risks)", "◆"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "accuracy (log scale)") {
		t.Errorf("the accuracies were put on a log scale:\n%s", out)
	}
	// 41 points over plotWidth(80) = 68 columns: iteration 5 (point 4) at
	// column 4*67/40 = 6.7, so 7 after the axis.
	lines := strings.Split(out, "\n")
	for _, l := range lines {
		if i := strings.Index(l, "└"); i >= 0 {
			axis := []rune(l[i:])
			if string(axis[1+7]) != "◆" {
				t.Errorf("the rate change is not under iteration 5: %q", l)
			}
			break
		}
	}
	// Without a positive risk the log scale is refused, not drawn.
	c.plots[0].Lines[0].Values[3] = 0
	if out := ansi.Strip(strings.Join(c.Render(80, 14), "\n")); !strings.Contains(out, "outer risk (linear: a value is not positive)") {
		t.Errorf("log scale of a risk with a zero:\n%s", out)
	}
	c.Update(CursorMsg(0))
	out = ansi.Strip(strings.Join(c.Render(80, 14), "\n"))
	if !strings.Contains(out, "▲") || !strings.Contains(out, "┊") {
		t.Errorf("no cursor drawn:\n%s", out)
	}
}

// TestResample: values at uneven times put on evenly spaced times,
// linear between points, none outside a line's times or next to a gap.
func TestResample(t *testing.T) {
	got := resample([]float64{0, 1, 3}, []float64{0, 10, 30}, 0, 4, 5)
	if fmt.Sprint(got) != "[0 10 20 30 NaN]" {
		t.Errorf("resample: %v", got)
	}
	got = resample([]float64{2, 4, 6}, []float64{1, math.NaN(), 3}, 0, 6, 4)
	if fmt.Sprint(got) != "[NaN 1 NaN 3]" {
		t.Errorf("resample with a gap: %v", got)
	}
}

// TestWallTime: t puts the points at their times: a search that slows
// (point i at i² seconds) has its rate change at iteration 5 (16 s of
// 1600) near the axis's start, where by iteration it was a tenth along;
// the axis is labelled in time.
func TestWallTime(t *testing.T) {
	c := testView(41)
	times := make([]float64, 41)
	for i := range times {
		times[i] = float64(i * i)
	}
	c.SetData(c.xs, times, c.plots, c.marks)
	c.Update(WallMsg{})
	out := ansi.Strip(strings.Join(c.Render(80, 14), "\n"))
	if !strings.Contains(out, "x: wall time") || !strings.Contains(out, "26m40s") || !strings.Contains(out, "wall time (the search's, pauses left out) →") {
		t.Errorf("no time axis:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, "└"); i >= 0 {
			// 16/1600 of 67 columns: column 1.
			if axis := []rune(l[i:]); string(axis[1+1]) != "◆" {
				t.Errorf("the rate change is not at 16 s: %q", l)
			}
			break
		}
	}
	c.Update(WallMsg{})
	if out := ansi.Strip(strings.Join(c.Render(80, 14), "\n")); strings.Contains(out, "wall time") {
		t.Errorf("t did not bring the iterations back:\n%s", out)
	}
}

// TestSpread: a group's mean and band at each point, over the series
// that have a value there (a shorter run leaves the band at its end; the
// band of one value is that value).
func TestSpread(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name         string
		data         [][]float64
		kind         Band
		mean, lo, hi string
	}{
		{"sd", [][]float64{{1, 2}, {3, 4}}, BandSD, "[2 3]", "[0.586 1.586]", "[3.414 4.414]"},
		{"min-max", [][]float64{{1, 2}, {3, 7}, {2, 3}}, BandMinMax, "[2 4]", "[1 2]", "[3 7]"},
		{"ragged", [][]float64{{1, 2, 9}, {3, 4}}, BandSD, "[2 3 9]", "[0.586 1.586 9]", "[3.414 4.414 9]"},
		{"gaps", [][]float64{{nan, 2}, {nan, nan}}, BandSD, "[NaN 2]", "[NaN 2]", "[NaN 2]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mean, lo, hi := Spread(c.data, c.kind)
			r := func(v []float64) string {
				out := make([]float64, len(v))
				for i, x := range v {
					out[i] = math.Round(x*1000) / 1000
				}
				return fmt.Sprint(out)
			}
			if r(mean) != c.mean || r(lo) != c.lo || r(hi) != c.hi {
				t.Errorf("spread: %s %s %s, want %s %s %s", r(mean), r(lo), r(hi), c.mean, c.lo, c.hi)
			}
		})
	}
}

// chart draws series (one point per outer iteration from first) as one
// plot of the chart component, h lines high and w wide.
func drawChart(first int, title string, names []string, series [][]float64, w, h int) string {
	c := New()
	xs := make([]int, len(series[0]))
	for i := range xs {
		xs[i] = first + i
	}
	p := Plot{Title: title}
	for i, s := range series {
		p.Lines = append(p.Lines, Line{Name: names[i], Values: s})
	}
	c.SetData(xs, nil, []Plot{p}, nil)
	return strings.Join(c.Render(w, h), "\n")
}

// TestRateMarks: a mark where a snapshot's rates differ from the one
// before, and at the iteration after a set_lr event (where its rates are
// first used), each once, in order.
func TestRateMarks(t *testing.T) {
	snap := func(it int, w float64) *core.Snapshot {
		return &core.Snapshot{Iter: it, LR: core.LearningRates{Weight: w, Keep: 1, Inner: 0.1}}
	}
	set := func(it int) core.Event { return core.Event{Kind: core.EventSetLR, Iter: it} }
	for _, tc := range []struct {
		name   string
		snaps  []*core.Snapshot
		events []core.Event
		want   []int
	}{
		{"none", []*core.Snapshot{snap(1, 1), snap(2, 1)}, nil, nil},
		{"a rate that differs", []*core.Snapshot{snap(1, 1), snap(2, 1), snap(3, 2)}, nil, []int{3}},
		{"an event marks the next iteration", []*core.Snapshot{snap(1, 1), snap(2, 1)}, []core.Event{set(1)}, []int{2}},
		{"both at one iteration, once", []*core.Snapshot{snap(1, 1), snap(2, 2)}, []core.Event{set(1), {Kind: core.EventExport, Iter: 1}}, []int{2}},
		{"a resumed run numbers from its first snapshot", []*core.Snapshot{snap(5, 1), snap(6, 3)}, []core.Event{set(7)}, []int{6, 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RateMarks(tc.snaps, tc.events); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("marks %v, want %v", got, tc.want)
			}
		})
	}
}

// TestPlotKeepsPeaks: a series with more points than the plot has
// columns is resampled to the columns, which can step over a one-point
// peak; the y axis still spans the series' true extremes, so its top
// label is not below the best value the header quotes.
func TestPlotKeepsPeaks(t *testing.T) {
	v := make([]float64, 101)
	for i := range v {
		v[i] = 0.5 + 0.001*float64(i%3)
	}
	v[37], v[80] = 0.7241, 0.31
	out := ansi.Strip(drawPlot(plotSpec{title: "val", series: [][]float64{v}, colors: []int{0}, x0: 1, x1: 101, ticks: 2,
		label: func(x float64) string { return fmt.Sprint(int(x)) }}, 40, 7))
	var labels []float64
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 1 && (strings.HasPrefix(f[1], "┤") || strings.HasPrefix(f[1], "┼")) {
			var x float64
			if _, err := fmt.Sscan(f[0], &x); err == nil {
				labels = append(labels, x)
			}
		}
	}
	if len(labels) < 2 || labels[0] < 0.724 || labels[len(labels)-1] > 0.31 {
		t.Errorf("y labels %v do not span the series' 0.31 to 0.7241:\n%s", labels, out)
	}
}

// TestPlotDrawsPeaks: a search of 300 iterations drawn 48 columns wide
// puts six points in a column; a one-point spike (outer risk 0.0615 at
// iteration 2, as a REx search on synthetic data has it) and a
// one-point dip are drawn, each on the row of its axis label, in the
// index and the wall-time view. Stretched by asciigraph the spike was
// drawn at half its height and, by iteration 88, not at all.
func TestPlotDrawsPeaks(t *testing.T) {
	const n = 300
	c := New()
	c.times = make([]float64, n)
	v := make([]float64, n)
	for i := range v {
		c.xs = append(c.xs, i+1)
		c.times[i] = float64(i) * 0.5
		v[i] = 0.001 + 0.0001*float64(i%2)
	}
	v[1], v[201] = 0.0615, 0.0002
	c.plots = []Plot{{Title: "outer risk", Lines: []Line{{Values: v}}}}
	for _, wall := range []bool{false, true} {
		c.wall = wall
		out := ansi.Strip(c.plot(c.plots[0], 60, 12))
		var rows []string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "┤") || strings.Contains(l, "┼") {
				rows = append(rows, l)
			}
		}
		if len(rows) < 3 {
			t.Fatalf("wall %v: no plot rows:\n%s", wall, out)
		}
		// The top row is labelled with the spike, the bottom one with
		// the dip; each must carry a piece of the line past the axis.
		for _, r := range []string{rows[0], rows[len(rows)-1]} {
			axis := strings.IndexAny(r, "┤┼")
			if strings.TrimSpace(r[axis+len("┤"):]) == "" {
				t.Errorf("wall %v: row %q draws nothing:\n%s", wall, r, out)
			}
		}
		if !strings.HasPrefix(strings.TrimSpace(rows[0]), "0.06") {
			t.Errorf("wall %v: top label not the spike's 0.0615:\n%s", wall, out)
		}
	}
}

// TestResampleKeepsExtremes: with many points per column each column
// takes one of its own points, a lone peak and dip among them.
func TestResampleKeepsExtremes(t *testing.T) {
	ts := make([]float64, 100)
	vs := make([]float64, 100)
	for i := range ts {
		ts[i], vs[i] = float64(i), 5
	}
	vs[33], vs[71] = 9, 1
	got := resample(ts, vs, 0, 99, 10)
	lo, hi := got[0], got[0]
	for _, x := range got {
		lo, hi = min(lo, x), max(hi, x)
	}
	if lo != 1 || hi != 9 {
		t.Errorf("resample to 10 columns spans %v to %v, want 1 to 9: %v", lo, hi, got)
	}
	vs[50] = math.NaN()
	if got := resample(ts[50:51], vs[50:51], 50, 50, 1); !math.IsNaN(got[0]) {
		t.Errorf("a column of a NaN point alone: %v, want NaN", got)
	}
	// Points without a time (a line's times padded with NaN) are left
	// out: they made the column before them NaN, and the last column
	// took a value from past them.
	nan := math.NaN()
	if got := resample([]float64{0, 1, 2, 3, nan, nan}, []float64{1, 1, 1, 1, 50, 60}, 0, 3, 4); fmt.Sprint(got) != "[1 1 1 1]" {
		t.Errorf("points without a time: %v, want [1 1 1 1]", got)
	}
}

// TestTimeTicksKeepUnit: every tick of the wall-time axis keeps its
// unit, the last too, however wide the y axis's labels (a log-scaled
// risk's "4.14e-05" pushed the last tick past the pane, and "47.2s" was
// cut to "47.2").
func TestTimeTicksKeepUnit(t *testing.T) {
	for _, tc := range []struct {
		name string
		yfmt func(float64) string
		t1   float64
	}{
		{"accuracy labels", nil, 47.2},
		{"log risk labels", func(v float64) string { return sciTick(v, 2) }, 47.2},
		{"the dashboard's log risk labels", func(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }, 28.4},
		{"minutes", func(v float64) string { return sciTick(v, 2) }, 647},
	} {
		for _, w := range []int{40, 58, 76, 118} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, w), func(t *testing.T) {
				cols := plotWidth(w)
				ys := make([]float64, cols)
				for i := range ys {
					ys[i] = 1e-5 + float64(i)*1e-7
				}
				spec := plotSpec{title: "outer risk", series: [][]float64{ys}, colors: []int{0}, chars: []asciigraph.CharSet{asciigraph.DefaultCharSet},
					x0: 0.1, x1: tc.t1, ticks: 5, label: timeTick, caption: "wall time →", yfmt: tc.yfmt}
				out := ansi.Strip(drawPlot(spec, w, 12))
				lines := strings.Split(out, "\n")
				for i, l := range lines {
					if lw := ansi.StringWidth(l); lw > w {
						t.Errorf("line %d is %d wide, past %d: %q", i, lw, w, l)
					}
					if !strings.Contains(l, "└") || i+1 >= len(lines) {
						continue
					}
					labels := strings.Fields(lines[i+1])
					if len(labels) < 2 {
						t.Fatalf("ticks %q", lines[i+1])
					}
					for _, lb := range labels {
						if !strings.HasSuffix(lb, "s") {
							t.Errorf("tick %q lost its unit:\n%s", lb, out)
						}
					}
					if last := labels[len(labels)-1]; last != timeTick(tc.t1) {
						t.Errorf("last tick %q, want %q", last, timeTick(tc.t1))
					}
				}
			})
		}
	}
}
