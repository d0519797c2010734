// Package chart is the chart component: charts over outer iterations (or a training's
// validation checks) that share one x axis, one cursor and one zoom
// window, drawn by the dashboard's charts pane, the browser's comparison
// (of runs, of groups of runs, of baselines), a baseline's page and live
// view, and the sweep view. Its state is the cursor (a point whose every
// series' value is read out), the window of points shown (zoom and pan),
// the log scale of the risks, the EMA smoothing and the marks of the
// iterations where the learning rates changed.
package chart

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	uistyles "github.com/maple-ood/maple/tui/styles"
)

// styles are the chart's styles, from the one set (tui/styles).
var styles = uistyles.DefaultStyles()

// formatDuration prints seconds as a duration, to the second.
func formatDuration(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}

// Messages to a chart view (the dashboard and the comparison send them
// from their keys).
type (
	// CursorMsg moves the cursor by that many points (the first move
	// puts it on the latest point shown).
	CursorMsg int
	// ZoomMsg zooms the x axis in (positive) or out (negative) by a
	// factor of two, about the cursor (or the latest point shown).
	ZoomMsg int
	// PanMsg moves the zoomed window by a quarter of its width, later
	// (positive) or earlier (negative).
	PanMsg int
	// LogMsg toggles the log scale of the risks.
	LogMsg struct{}
	// SmoothMsg cycles the EMA smoothing factor through emaFactors.
	SmoothMsg struct{}
	// WallMsg toggles the x axis between outer iterations and wall time.
	WallMsg struct{}
)

// emaFactors are the smoothing factors the smoothing key cycles through
// (0: the raw values).
var emaFactors = []float64{0, 0.6, 0.9}

// minSpan is the fewest points a zoomed window shows.
const minSpan = 4

// Model is the chart component.
type Model struct {
	// Unit names the x axis's points: "" for outer iterations (the
	// default), else their name ("training step").
	Unit  string
	xs    []int     // the iteration (or step) of each point
	times []float64 // the search's seconds at each point (nil: none)
	plots []Plot
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
	// Panels draws each line of a multi-line chart in a panel of its own
	// (a terminal without colour, where lines are told apart by colour
	// only); Chars instead draws each line with characters of its own.
	Panels, Chars bool
}

// New returns a chart without points or cursor.
func New() Model { return Model{cursor: -1} }

// unitName is the x axis's name: "outer iteration" unless unit says
// otherwise.
func (c *Model) unitName() string {
	if c.Unit == "" {
		return "outer iteration"
	}
	return c.Unit
}

// waiting is what a chart without a point says.
func (c *Model) waiting() string {
	if c.Unit == "" {
		return "waiting for the first iteration"
	}
	return "no " + c.Unit + " yet"
}

// SetData gives the view its points: the iterations xs, the charts and
// the rate-change marks. The cursor and the window stay on their
// iterations, also when points come between them (iterations the live
// feed passed over, read back from the run's records); a following
// window moves on with the latest.
func (c *Model) SetData(xs []int, times []float64, plots []Plot, marks []int) {
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
		c.Update(CursorMsg(moves))
	}
}

// Plots are the charts drawn.
func (c *Model) Plots() []Plot { return c.plots }

// TrimPlots keeps the first n charts (a copy drawn where the rest do not
// fit).
func (c *Model) TrimPlots(n int) { c.plots = c.plots[:min(n, len(c.plots))] }

// KeepView takes o's way of drawing: its log scale, smoothing, x axis
// and characters (the view of a new run's charts as of the last's).
func (c *Model) KeepView(o *Model) { c.log, c.ema, c.wall, c.Chars = o.log, o.ema, o.wall, o.Chars }

// CursorX is the iteration (or step) under the cursor; ok false without
// a cursor.
func (c *Model) CursorX() (x int, ok bool) {
	if c.cursor < 0 || c.cursor >= len(c.xs) {
		return 0, false
	}
	return c.xs[c.cursor], true
}

// window is the points shown.
func (c *Model) window() xWindow {
	if !c.zoomed {
		return xWindow{0, len(c.xs)}
	}
	return c.win
}

// Update takes the chart messages.
func (c *Model) Update(msg tea.Msg) tea.Cmd {
	n := len(c.xs)
	w := c.window()
	switch m := msg.(type) {
	case CursorMsg:
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
	case ZoomMsg:
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
	case PanMsg:
		c.setWindow(w.pan(n, int(m)), n)
	case LogMsg:
		c.log = !c.log
	case SmoothMsg:
		c.ema = (c.ema + 1) % len(emaFactors)
	case WallMsg:
		c.wall = !c.wall
	}
	return nil
}

func (c *Model) setWindow(w xWindow, n int) {
	c.win, c.zoomed, c.follow = w, w.hi-w.lo < n, w.hi == n
}

// status is the line that says how the charts are drawn ("" when they
// show every point, raw, on a linear scale), going on to further lines,
// whole parts, where it is wider than w.
func (c *Model) status(w int) string {
	var parts []string
	if w := c.window(); c.zoomed && w.hi > w.lo {
		unit := "iterations"
		if c.Unit != "" {
			unit = c.Unit + "s"
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
func (c *Model) readout() string {
	if c.cursor < 0 || c.cursor >= len(c.xs) {
		return ""
	}
	x := c.xs[c.cursor]
	unit := "iteration"
	if c.Unit != "" {
		unit = c.Unit
	}
	r := fmt.Sprintf("%s %s %d (values in the legends)", styles.Title.Render("cursor"), unit, x)
	if slices.Contains(c.marks, x) {
		r += " · learning rates changed here"
	}
	return r
}

// legend is a line's legend entry: its name and, with a cursor, its
// value there (and its band's bounds, in brackets).
func (c *Model) legend(l Line) string {
	if c.cursor < 0 {
		return l.Name
	}
	v := readValue(l.Values, c.cursor)
	if l.Lo != nil && l.Hi != nil && v != "–" {
		v += " [" + readValue(l.Lo, c.cursor) + "–" + readValue(l.Hi, c.cursor) + "]"
	}
	return strings.TrimSpace(l.Name + " " + v)
}

// readValue formats point i of values ("–" where there is none).
func readValue(values []float64, i int) string {
	if i >= len(values) || math.IsNaN(values[i]) {
		return "–"
	}
	return strconv.FormatFloat(values[i], 'g', 4, 64)
}

// Head is the status line and the cursor's read-out, where there are
// any, at width w.
func (c *Model) Head(w int) []string {
	var out []string
	if s := c.status(w); s != "" {
		out = append(out, s)
	}
	if r := c.readout(); r != "" {
		out = append(out, lipgloss.NewStyle().Width(w).Render(r))
	}
	return out
}

// Render draws the charts, each h lines high and w wide, after the
// status line and the cursor's read-out when there are any.
func (c *Model) Render(w, h int) []string {
	out := c.Head(w)
	for _, p := range c.plots {
		if c.Panels && len(p.Lines) > 1 {
			for _, l := range p.Lines {
				out = append(out, c.plot(Plot{Title: p.Title + ": " + l.Name, Lines: []Line{{Values: l.Values, Times: l.Times, Lo: l.Lo, Hi: l.Hi}}, Risk: p.Risk}, w, max(6, h/len(p.Lines)+2)))
			}
			continue
		}
		out = append(out, c.plot(p, w, h))
	}
	return out
}
