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
)

// The chart component: charts over outer iterations (or a training's
// validation checks) that share one x axis, one cursor and one zoom
// window, drawn by the dashboard's charts pane, the browser's comparison
// (of runs, of groups of runs, of baselines), a baseline's page and live
// view, and the sweep view. Its state is the cursor (a point whose every
// series' value is read out), the window of points shown (zoom and pan),
// the log scale of the risks, the EMA smoothing and the marks of the
// iterations where the learning rates changed.

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

// chartView is the chart component.
type chartView struct {
	// unit names the x axis's points: "" for outer iterations (the
	// default), else their name ("training step").
	unit  string
	xs    []int     // the iteration (or step) of each point
	times []float64 // the search's seconds at each point (nil: none)
	plots []chartPlot
	marks []int // iterations where the learning rates changed (first used)
	// cursor is the point read out (-1: none); pending are the cursor's
	// moves asked before there was a point (a chart whose data is being
	// read), made when the points come.
	cursor, pending int
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

// unitName is the x axis's name: "outer iteration" unless unit says
// otherwise.
func (c *chartView) unitName() string {
	if c.unit == "" {
		return "outer iteration"
	}
	return c.unit
}

// waiting is what a chart without a point says.
func (c *chartView) waiting() string {
	if c.unit == "" {
		return "waiting for the first iteration"
	}
	return "no " + c.unit + " yet"
}

// setData gives the view its points: the iterations xs, the charts and
// the rate-change marks. The cursor and the window stay on their
// iterations, also when points come between them (iterations the live
// feed passed over, read back from the run's records); a following
// window moves on with the latest.
func (c *chartView) setData(xs []int, times []float64, plots []chartPlot, marks []int) {
	n := len(xs)
	// moved is where the point at index i of the old points is now.
	moved := func(i int) int {
		if i < 0 || i >= len(c.xs) || (i < n && xs[i] == c.xs[i]) {
			return i
		}
		if k := slices.Index(xs, c.xs[i]); k >= 0 {
			return k
		}
		return i
	}
	if c.zoomed && !c.follow && c.win.hi > c.win.lo {
		c.win = xWindow{moved(c.win.lo), moved(c.win.hi-1) + 1}
	}
	c.cursor = moved(c.cursor)
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
	if n > 0 && c.pending != 0 {
		moves := c.pending
		c.pending = 0
		c.Update(cursorMsg(moves))
	}
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
		if n == 0 { // applied when the points come
			c.pending += int(m)
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
// show every point, raw, on a linear scale), going on to further lines,
// whole parts, where it is wider than w.
func (c *chartView) status(w int) string {
	var parts []string
	if w := c.window(); c.zoomed && w.hi > w.lo {
		unit := "iterations"
		if c.unit != "" {
			unit = c.unit + "s"
		}
		parts = append(parts, fmt.Sprintf("zoom: %s %d–%d of %d–%d", unit, c.xs[w.lo], c.xs[w.hi-1], c.xs[0], c.xs[len(c.xs)-1]))
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
	lines := []string{parts[0]}
	for _, p := range parts[1:] {
		last := &lines[len(lines)-1]
		if ansi.StringWidth(*last+" · "+p) > w {
			lines = append(lines, p)
		} else {
			*last += " · " + p
		}
	}
	return styles.Dim.Render(strings.Join(lines, "\n"))
}

// readout is the cursor's line ("" without a cursor): its iteration,
// and whether the learning rates changed there; every series' value at
// it follows its name in its chart's legend.
func (c *chartView) readout() string {
	if c.cursor < 0 || c.cursor >= len(c.xs) {
		return ""
	}
	x := c.xs[c.cursor]
	unit := "iteration"
	if c.unit != "" {
		unit = c.unit
	}
	r := fmt.Sprintf("%s %s %d (values in the legends)", styles.Title.Render("cursor"), unit, x)
	if slices.Contains(c.marks, x) {
		r += " · learning rates changed here"
	}
	return r
}

// legend is a line's legend entry: its name and, with a cursor, its
// value there (and its band's bounds, in brackets).
func (c *chartView) legend(l chartLine) string {
	if c.cursor < 0 {
		return l.name
	}
	v := readValue(l.values, c.cursor)
	if l.lo != nil && l.hi != nil && v != "–" {
		v += " [" + readValue(l.lo, c.cursor) + "–" + readValue(l.hi, c.cursor) + "]"
	}
	return strings.TrimSpace(l.name + " " + v)
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
	if s := c.status(w); s != "" {
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
				out = append(out, c.plot(chartPlot{title: p.title + ": " + l.name, lines: []chartLine{{values: l.values, times: l.times, lo: l.lo, hi: l.hi}}, risk: p.risk}, w, max(6, h/len(p.lines)+2)))
			}
			continue
		}
		out = append(out, c.plot(p, w, h))
	}
	return out
}
