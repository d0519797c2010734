package tui

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/guptarohit/asciigraph"
)

// The chart component: charts over outer iterations that share one x
// axis, one cursor and one zoom window, drawn by the dashboard's charts
// pane and the browser's comparison. Its state is the cursor (a point
// whose every series' value is read out), the window of points shown
// (zoom and pan), the log scale of the risks, the EMA smoothing and the
// marks of the iterations where the learning rates changed.

// Messages to a chart view (the dashboard and the comparison send them
// from their keys).
type (
	// cursorMsg moves the cursor by that many points (the first move
	// puts it on the latest point shown).
	cursorMsg int
	// zoomMsg zooms the x axis in (positive) or out (negative) by a
	// factor of two, about the cursor (or the latest point shown).
	zoomMsg int
	// panMsg moves the zoomed window by a quarter of its width, later
	// (positive) or earlier (negative).
	panMsg int
	// logMsg toggles the log scale of the risks.
	logMsg struct{}
	// smoothMsg cycles the EMA smoothing factor through emaFactors.
	smoothMsg struct{}
	// wallMsg toggles the x axis between outer iterations and wall time.
	wallMsg struct{}
)

// emaFactors are the smoothing factors the smoothing key cycles through
// (0: the raw values).
var emaFactors = []float64{0, 0.6, 0.9}

// minSpan is the fewest points a zoomed window shows.
const minSpan = 4

// chartLine is one series of a chart: a value per point of the view's
// x axis (NaN where it has none).
type chartLine struct {
	name   string
	values []float64
	// times are the seconds of the search at each point (nil: the
	// view's times).
	times []float64
}

// chartPlot is one chart: a title and its lines; risk says the log
// scale applies to it (when all its values shown are positive).
type chartPlot struct {
	title string
	lines []chartLine
	risk  bool
}

// xWindow is the points shown: indices lo to hi-1 of the x axis.
type xWindow struct{ lo, hi int }

// zoomIn halves the window (to at least minSpan points) about point at,
// kept inside the n points.
func (w xWindow) zoomIn(n, at int) xWindow {
	span := max(min(minSpan, n), (w.hi-w.lo)/2)
	if span >= w.hi-w.lo {
		return w
	}
	lo := min(max(at-span/2, 0), n-span)
	return xWindow{lo, lo + span}
}

// zoomOut doubles the window about its middle, up to all n points.
func (w xWindow) zoomOut(n int) xWindow {
	span := min(n, 2*(w.hi-w.lo))
	lo := min(max((w.lo+w.hi)/2-span/2, 0), n-span)
	return xWindow{lo, lo + span}
}

// pan moves the window by a quarter of its width per step (at least one
// point), kept inside the n points.
func (w xWindow) pan(n, steps int) xWindow {
	span := w.hi - w.lo
	lo := min(max(w.lo+steps*max(1, span/4), 0), n-span)
	return xWindow{lo, lo + span}
}

// ema smooths values with an exponential moving average of factor a
// (s_t = a s_{t-1} + (1-a) v_t, starting at the first value, as
// TensorBoard's smoothing); NaN points stay NaN and leave the average
// as it was. a = 0 returns values.
func ema(values []float64, a float64) []float64 {
	if a == 0 {
		return values
	}
	out := make([]float64, len(values))
	s, started := 0.0, false
	for i, v := range values {
		switch {
		case math.IsNaN(v):
			out[i] = v
			continue
		case !started:
			s, started = v, true
		default:
			s = a*s + (1-a)*v
		}
		out[i] = s
	}
	return out
}

// logValues returns the base-10 logarithms of values, NaN staying NaN;
// ok is false when a value is zero or negative (no log scale).
func logValues(values []float64) (out []float64, ok bool) {
	out = make([]float64, len(values))
	for i, v := range values {
		if v <= 0 {
			return nil, false
		}
		out[i] = math.Log10(v)
	}
	return out, true
}

// pointColumn is the column, within a plot of width cols, of point i of
// a window of n points (asciigraph stretches the points over the width).
func pointColumn(i, n, cols int) int {
	if n < 2 {
		return 0
	}
	return int(math.Round(float64(i) * float64(cols-1) / float64(n-1)))
}

// resample puts the values vs, taken at the increasing times ts, on
// cols evenly spaced times from t0 to t1: linear between two points, NaN
// before the first or after the last time, or next to a NaN point.
func resample(ts, vs []float64, t0, t1 float64, cols int) []float64 {
	out := make([]float64, cols)
	j := 0
	for k := range out {
		t := t0
		if cols > 1 {
			t = t0 + float64(k)*(t1-t0)/float64(cols-1)
		}
		out[k] = math.NaN()
		for j+1 < len(ts) && ts[j+1] <= t {
			j++
		}
		switch {
		case len(ts) == 0 || t < ts[0] || t > ts[len(ts)-1]:
		case ts[j] == t || j+1 == len(ts):
			out[k] = vs[j]
		default:
			f := (t - ts[j]) / (ts[j+1] - ts[j])
			out[k] = vs[j] + f*(vs[j+1]-vs[j])
		}
	}
	return out
}

// timeTick formats seconds of the search for the x axis: tenths of a
// second under a minute, else as a duration.
func timeTick(v float64) string {
	if v < 60 {
		return strconv.FormatFloat(v, 'f', 1, 64) + "s"
	}
	return fmtDur(v)
}

// chartView is the chart component.
type chartView struct {
	xs    []int     // the iteration of each point
	times []float64 // the search's seconds at each point (nil: none)
	plots []chartPlot
	marks []int // iterations where the learning rates changed (first used)
	// cursor is the point read out (-1: none).
	cursor int
	// win is the zoomed window; zoomed false shows every point; follow
	// keeps a window that ends at the latest point there as points come.
	win            xWindow
	zoomed, follow bool
	log            bool
	ema            int  // index into emaFactors
	wall           bool // wall time on x
	// panels draws each line of a multi-line chart in a panel of its own
	// (a terminal without colour, where lines are told apart by colour
	// only); chars instead draws each line with characters of its own.
	panels, chars bool
}

func newChartView() chartView { return chartView{cursor: -1} }

// setData gives the view its points: the iterations xs, the charts and
// the rate-change marks. Points only added at the end keep the cursor
// and window; a following window moves on with the latest.
func (c *chartView) setData(xs []int, times []float64, plots []chartPlot, marks []int) {
	n := len(xs)
	if c.zoomed && c.follow {
		span := c.win.hi - c.win.lo
		c.win = xWindow{max(0, n-span), n}
	}
	if c.win.hi > n {
		c.win = xWindow{max(0, n-(c.win.hi-c.win.lo)), n}
	}
	if c.cursor >= n {
		c.cursor = n - 1
	}
	c.xs, c.times, c.plots, c.marks = xs, times, plots, marks
}

// window is the points shown.
func (c *chartView) window() xWindow {
	if !c.zoomed {
		return xWindow{0, len(c.xs)}
	}
	return c.win
}

// Update takes the chart messages.
func (c *chartView) Update(msg tea.Msg) tea.Cmd {
	n := len(c.xs)
	w := c.window()
	switch m := msg.(type) {
	case cursorMsg:
		if n == 0 {
			return nil
		}
		if c.cursor < 0 {
			c.cursor = w.hi - 1
		}
		c.cursor = min(max(c.cursor+int(m), 0), n-1)
		// The window follows the cursor.
		if c.cursor < w.lo {
			w = xWindow{c.cursor, c.cursor + w.hi - w.lo}
		} else if c.cursor >= w.hi {
			w = xWindow{c.cursor + 1 - (w.hi - w.lo), c.cursor + 1}
		}
		c.setWindow(w, n)
	case zoomMsg:
		if n < 2 {
			return nil
		}
		if m > 0 {
			at := w.hi - 1
			if c.cursor >= 0 {
				at = c.cursor
			}
			c.setWindow(w.zoomIn(n, at), n)
		} else {
			c.setWindow(w.zoomOut(n), n)
		}
	case panMsg:
		c.setWindow(w.pan(n, int(m)), n)
	case logMsg:
		c.log = !c.log
	case smoothMsg:
		c.ema = (c.ema + 1) % len(emaFactors)
	case wallMsg:
		c.wall = !c.wall
	}
	return nil
}

func (c *chartView) setWindow(w xWindow, n int) {
	c.win, c.zoomed, c.follow = w, w.hi-w.lo < n, w.hi == n
}

// status is the line that says how the charts are drawn ("" when they
// show every point, raw, on a linear scale).
func (c *chartView) status() string {
	var parts []string
	if w := c.window(); c.zoomed && w.hi > w.lo {
		parts = append(parts, fmt.Sprintf("zoom: iterations %d–%d of %d–%d", c.xs[w.lo], c.xs[w.hi-1], c.xs[0], c.xs[len(c.xs)-1]))
	}
	if a := emaFactors[c.ema]; a > 0 {
		parts = append(parts, fmt.Sprintf("EMA %g (read-out raw)", a))
	}
	if c.log {
		parts = append(parts, "log scale (risks)")
	}
	if c.wall {
		parts = append(parts, "x: wall time")
	}
	if len(parts) == 0 {
		return ""
	}
	return styles.Dim.Render(strings.Join(parts, " · "))
}

// readout is the cursor's line ("" without a cursor): its iteration,
// and whether the learning rates changed there; every series' value at
// it follows its name in its chart's legend.
func (c *chartView) readout() string {
	if c.cursor < 0 || c.cursor >= len(c.xs) {
		return ""
	}
	x := c.xs[c.cursor]
	r := fmt.Sprintf("%s iteration %d (values in the legends)", styles.Title.Render("cursor"), x)
	if slices.Contains(c.marks, x) {
		r += " · learning rates changed here"
	}
	return r
}

// legend is a line's legend entry: its name and, with a cursor, its
// value there.
func (c *chartView) legend(l chartLine) string {
	if c.cursor < 0 {
		return l.name
	}
	return strings.TrimSpace(l.name + " " + readValue(l.values, c.cursor))
}

// readValue formats point i of values ("–" where there is none).
func readValue(values []float64, i int) string {
	if i >= len(values) || math.IsNaN(values[i]) {
		return "–"
	}
	return strconv.FormatFloat(values[i], 'g', 4, 64)
}

// head is the status line and the cursor's read-out, where there are
// any, at width w.
func (c *chartView) head(w int) []string {
	var out []string
	if s := c.status(); s != "" {
		out = append(out, s)
	}
	if r := c.readout(); r != "" {
		out = append(out, lipgloss.NewStyle().Width(w).Render(r))
	}
	return out
}

// render draws the charts, each h lines high and w wide, after the
// status line and the cursor's read-out when there are any.
func (c *chartView) render(w, h int) []string {
	out := c.head(w)
	for _, p := range c.plots {
		if c.panels && len(p.lines) > 1 {
			for _, l := range p.lines {
				out = append(out, c.plot(chartPlot{title: p.title + ": " + l.name, lines: []chartLine{{values: l.values}}, risk: p.risk}, w, max(6, h/len(p.lines)+2)))
			}
			continue
		}
		out = append(out, c.plot(p, w, h))
	}
	return out
}

// plot draws one chart of the window, smoothed and scaled as asked,
// with the cursor and the rate-change marks.
func (c *chartView) plot(p chartPlot, w, h int) string {
	win := c.window()
	n := win.hi - win.lo
	if n <= 0 || len(p.lines) == 0 {
		return p.title + "\n" + styles.Dim.Render("waiting for the first iteration")
	}
	title := p.title
	names := make([]string, len(p.lines))
	data := make([][]float64, len(p.lines))
	logged := c.log && p.risk
	for i, l := range p.lines {
		names[i] = c.legend(l)
		v := make([]float64, n)
		for j := range v {
			v[j] = math.NaN()
			if k := win.lo + j; k < len(l.values) {
				v[j] = l.values[k]
			}
		}
		if logged {
			_, logged = logValues(v) // the raw values are all positive
		}
		data[i] = ema(v, emaFactors[c.ema])
	}
	if c.log && p.risk {
		if logged {
			for i, v := range data {
				data[i], _ = logValues(v) // an average of positive values is positive
			}
			title += " (log scale)"
		} else {
			title += " (linear: a value is not positive)"
		}
	}
	if len(p.lines) == 1 && p.lines[0].name == "" { // a panel: its value in its title
		title, names = strings.TrimSpace(title+" "+names[0]), nil
	}
	var chars []asciigraph.CharSet
	if c.chars {
		chars = monoChars(true, len(data))
	}
	cols := plotWidth(w)
	x0, x1 := float64(c.xs[win.lo]), float64(c.xs[win.hi-1])
	if n == 1 {
		x1 = x0 + 1
	}
	ticks := wholeTicks(int(x1 - x0))
	label := func(v float64) string { return strconv.Itoa(int(math.Round(v))) }
	caption := "outer iteration →"
	column := func(j int) int { return pointColumn(j-win.lo, n, cols) }
	if t0, t1, ok := c.timeSpan(p, win); c.wall && ok {
		// Wall time: each line put on evenly spaced times.
		for i, l := range p.lines {
			data[i] = resample(c.lineTimes(l)[win.lo:win.hi], data[i], t0, t1, cols)
		}
		x0, x1, ticks, label, caption = t0, t1, 5, timeTick, "wall time (the search's, pauses left out) →"
		column = func(j int) int {
			for _, l := range p.lines {
				if ts := c.lineTimes(l); j < len(ts) && !math.IsNaN(ts[j]) {
					return int(math.Round((ts[j] - t0) / (t1 - t0) * float64(cols-1)))
				}
			}
			return -1
		}
	} else if c.wall {
		caption = "outer iteration → (no wall time recorded)"
	}
	var yfmt func(float64) string // yFormat's
	if logged {
		yfmt = func(v float64) string { return strconv.FormatFloat(math.Pow(10, v), 'g', 3, 64) }
	}
	g := plotWith(title, names, data, w, h, x0, x1, ticks, label, caption, yfmt, chars...)
	return c.overlay(g, win, column)
}

// lineTimes are a line's times: its own, else the view's, padded with
// NaN to the view's points.
func (c *chartView) lineTimes(l chartLine) []float64 {
	ts := l.times
	if ts == nil {
		ts = c.times
	}
	out := make([]float64, len(c.xs))
	for i := range out {
		out[i] = math.NaN()
		if i < len(ts) {
			out[i] = ts[i]
		}
	}
	return out
}

// timeSpan is the first and last time of a chart's lines in the window;
// ok is false without two distinct times.
func (c *chartView) timeSpan(p chartPlot, win xWindow) (t0, t1 float64, ok bool) {
	t0, t1 = math.Inf(1), math.Inf(-1)
	for _, l := range p.lines {
		for _, t := range c.lineTimes(l)[win.lo:win.hi] {
			if !math.IsNaN(t) {
				t0, t1 = min(t0, t), max(t1, t)
			}
		}
	}
	return t0, t1, t1 > t0
}

// overlay draws the cursor (a dotted vertical line, ▲ on the x axis) and
// the rate-change marks (◆ on the x axis) onto a plotted chart.
func (c *chartView) overlay(g string, win xWindow, column func(j int) int) string {
	lines := strings.Split(g, "\n")
	axis := -1
	for i, l := range lines {
		if strings.Contains(ansi.Strip(l), "└") {
			axis = i
			break
		}
	}
	if axis < 0 {
		return g
	}
	plain := ansi.Strip(lines[axis])
	pad := ansi.StringWidth(plain[:strings.Index(plain, "└")]) + 1
	put := func(i int, col int, mark string) {
		l := lines[i]
		if col < pad || col >= ansi.StringWidth(l) {
			return
		}
		lines[i] = ansi.Cut(l, 0, col) + mark + ansi.Cut(l, col+1, ansi.StringWidth(l))
	}
	for j := win.lo; j < win.hi; j++ {
		if slices.Contains(c.marks, c.xs[j]) {
			put(axis, pad+column(j), styles.Warn.Render("◆"))
		}
	}
	if c.cursor >= win.lo && c.cursor < win.hi && column(c.cursor) >= 0 {
		col := pad + column(c.cursor)
		for i := axis - 1; i >= 0; i-- {
			p := ansi.Strip(lines[i])
			if !strings.ContainsAny(p, "┤┼") {
				break // above the plot: the title and legend
			}
			if col < ansi.StringWidth(p) && ansi.Cut(p, col, col+1) == " " {
				put(i, col, styles.Dim.Render("┊"))
			} else if col >= ansi.StringWidth(p) {
				lines[i] = lines[i] + strings.Repeat(" ", col-ansi.StringWidth(p)) + styles.Dim.Render("┊")
			}
		}
		put(axis, col, styles.Title.Render("▲"))
	}
	return strings.Join(lines, "\n")
}

// rateMarks are the iterations of snapshots whose learning rates differ
// from the previous snapshot's, with those where a recorded rate change
// is first used (a set_lr event at iteration i applies from i+1).
func rateMarks(iters []int, changed []bool, eventIters []int) []int {
	var out []int
	for i, ch := range changed {
		if ch {
			out = append(out, iters[i])
		}
	}
	for _, it := range eventIters {
		out = append(out, it+1)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
