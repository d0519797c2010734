package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/table"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/guptarohit/asciigraph"

	"github.com/maple-ood/maple/core"
)

// screen is a full-window view of s.
func screen(s string) tea.View {
	v := tea.NewView(s)
	v.AltScreen = true
	return v
}

// fit cuts s to at most h lines of at most w cells.
func fit(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "")
	}
	return strings.Join(lines, "\n")
}

// lineChars are the characters of series lines on a terminal without
// colour, one set per series in turn, so that the lines stay apart.
var lineChars = []asciigraph.CharSet{asciigraph.DefaultCharSet, asciigraph.CreateCharSet("·"), asciigraph.CreateCharSet("•"),
	asciigraph.CreateCharSet("+"), asciigraph.CreateCharSet("x"), asciigraph.CreateCharSet("o")}

// monoChars returns the line characters of n series (lineChars in turn)
// on a terminal without colour (mono), none (every line alike) with it.
func monoChars(mono bool, n int) []asciigraph.CharSet {
	if !mono {
		return nil
	}
	out := make([]asciigraph.CharSet, n)
	for i := range out {
		out[i] = lineChars[i%len(lineChars)]
	}
	return out
}

// chart plots series (each a line, one point per outer iteration from
// first) with a legend; chars as plotLines'.
func chart(first int, title string, names []string, series [][]float64, w, h int, chars ...asciigraph.CharSet) string {
	if len(series) == 0 || len(series[0]) == 0 {
		return title + "\n" + styles.Dim.Render("waiting for the first iteration")
	}
	n := max(len(series[0]), 2)
	// The x axis counts outer iterations, first to first+n-1, with
	// whole-number ticks.
	return plotLines(title, names, series, w, h, float64(first), float64(first+n-1), wholeTicks(n-1),
		func(v float64) string { return strconv.Itoa(int(math.Round(v))) }, "outer iteration →", chars...)
}

// plotLines plots series (each a line of evenly spaced points from x0 to
// x1) with a legend, ticks x-axis ticks labelled by label, and a caption.
// chars, when given, draws series i with chars[i] (and its legend mark
// with its Horizontal), so that lines stay apart without colour.
func plotLines(title string, names []string, series [][]float64, w, h int, x0, x1 float64, ticks int, label func(float64) string, caption string, chars ...asciigraph.CharSet) string {
	return plotWith(title, names, series, w, h, x0, x1, ticks, label, caption, nil, chars...)
}

// plotWidth is the plotted columns of a chart w cells wide.
func plotWidth(w int) int { return max(8, w-12) }

// plotWith is plotLines with the y-axis labels formatted by yfmt (nil:
// yFormat's choice for the series).
func plotWith(title string, names []string, series [][]float64, w, h int, x0, x1 float64, ticks int, label func(float64) string, caption string, yfmt func(float64) string, chars ...asciigraph.CharSet) string {
	var legend []string
	for i, n := range names {
		mark := "━"
		if i < len(chars) {
			mark = strings.Repeat(chars[i].Horizontal, 2)
		}
		legend = append(legend, styles.Series[i%len(styles.Series)].Render(mark+" "+n))
	}
	// The legend follows the title, going on to further lines (whole
	// entries) where the chart is too narrow for it.
	head := title
	for _, l := range legend {
		if lipgloss.Width(head[strings.LastIndex(head, "\n")+1:])+1+lipgloss.Width(l) > w {
			head += "\n" + l
		} else {
			head += " " + l
		}
	}
	if len(legend) > 0 {
		head = strings.Replace(head, title+" ", title+"  ", 1)
	}
	plotH := max(2, h-4-lipgloss.Height(head)) // title and legend, x axis, its numbers, caption
	plotW := plotWidth(w)
	data := make([][]float64, len(series))
	for i, s := range series {
		data[i] = s
		if len(s) == 1 {
			data[i] = []float64{s[0], s[0]}
		}
	}
	if yfmt == nil {
		yfmt = yFormat(data, plotH)
	}
	g := asciigraph.PlotMany(data, asciigraph.Height(plotH), asciigraph.Width(plotW),
		asciigraph.YAxisValueFormatter(yfmt),
		asciigraph.XAxisRange(x0, x1), asciigraph.XAxisTickCount(ticks),
		asciigraph.XAxisValueFormatter(label),
		asciigraph.SeriesColors(cycle(styles.SeriesANSI, len(series))...), asciigraph.Caption(caption),
		asciigraph.SeriesChars(chars...))
	return head + "\n" + g
}

// wholeTicks is how many evenly spaced x-axis ticks (2 to 6) fall on
// whole iterations over a span of iterations: the most whose spacing
// divides the span (a prime span gets its two ends only, never a tick
// between two iterations labelled as one of them).
func wholeTicks(span int) int {
	for c := 6; c > 2; c-- {
		if span >= c-1 && span%(c-1) == 0 {
			return c
		}
	}
	return 2
}

// yFormat returns the y-axis labels' format for a chart of series over
// rows rows: three decimals where those tell every label apart (the
// accuracies; whole numbers from 100), else as many decimals as one row's step needs, or, for
// values below 1e-3 or from 1e6 or whose step needs more than six
// decimals, scientific notation with the significant digits the step
// needs (a zoomed outer risk of 1e-4 read 0.000 on every label).
func yFormat(series [][]float64, rows int) func(float64) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, v := range s {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if lo > hi { // no finite value
		return yTick
	}
	mag := max(math.Abs(lo), math.Abs(hi))
	step := (hi - lo) / float64(max(rows, 1)+1)
	if step == 0 {
		step = mag / 100
	}
	if mag == 0 {
		return yTick
	}
	// Labels one step apart differ once a unit of the last digit is at
	// most a step.
	least := 3 // the accuracies' and fractions' three decimals
	if mag >= 100 {
		least = 0
	}
	decimals := max(least, int(math.Ceil(-math.Log10(step))))
	if mag >= 1e-3 && mag < 1e6 && decimals <= 6 {
		return func(v float64) string { return fixedTick(v, decimals) }
	}
	exp := int(math.Floor(math.Log10(mag)))
	digits := min(max(1, int(math.Ceil(float64(exp)-math.Log10(step)))), 4)
	return func(v float64) string { return sciTick(v, digits) }
}

// yTick formats a y-axis value with three decimals, never as "-0.000".
func yTick(v float64) string { return fixedTick(v, 3) }

// fixedTick formats v with decimals decimals, never as a negative zero.
func fixedTick(v float64, decimals int) string {
	t := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Trim(t, "-0.") == "" {
		t = strings.TrimPrefix(t, "-")
	}
	return t
}

// sciTick formats v in scientific notation with digits digits after the
// point and a short exponent ("1.25e-6"); 0 is "0".
func sciTick(v float64, digits int) string {
	t := strconv.FormatFloat(v, 'e', digits, 64)
	m, e, _ := strings.Cut(t, "e")
	if strings.Trim(m, "-0.") == "" {
		return "0"
	}
	sign := e[:1]
	e = strings.TrimLeft(e[1:], "0")
	if sign == "+" {
		sign = ""
	}
	return m + "e" + sign + e
}

// cycle returns n colours, repeating c.
func cycle(c []asciigraph.AnsiColor, n int) []asciigraph.AnsiColor {
	out := make([]asciigraph.AnsiColor, n)
	for i := range out {
		out[i] = c[i%len(c)]
	}
	return out
}

// recentPace is the seconds per outer iteration over the last few
// iterations (elapsed excludes pauses and continues across resumes).
func recentPace(snaps []*core.Snapshot) (float64, bool) {
	n := len(snaps)
	switch {
	case n == 0:
		return 0, false
	case n == 1:
		if snaps[0].Iter == 0 {
			return 0, false
		}
		return snaps[0].Elapsed / float64(snaps[0].Iter), true
	}
	from := max(0, n-6)
	a, b := snaps[from], snaps[n-1]
	if b.Iter == a.Iter {
		return 0, false
	}
	return (b.Elapsed - a.Elapsed) / float64(b.Iter-a.Iter), true
}

// perGroup returns one series per group of a per-group figure (0 where a
// snapshot lacks it).
func perGroup(snaps []*core.Snapshot, groups int, f func(*core.Snapshot) []float64) [][]float64 {
	var out [][]float64
	for g := range groups {
		out = append(out, column(snaps, func(x *core.Snapshot) float64 {
			if v := f(x); g < len(v) {
				return v[g]
			}
			return 0
		}))
	}
	return out
}

func column(snaps []*core.Snapshot, f func(*core.Snapshot) float64) []float64 {
	out := make([]float64, len(snaps))
	for i, s := range snaps {
		out[i] = f(s)
	}
	return out
}

func scrollLines(s string, h, from int) string {
	lines := strings.Split(s, "\n")
	from = min(from, max(0, len(lines)-h))
	end := min(len(lines), from+h)
	return strings.Join(lines[from:end], "\n")
}

// statusText renders a status in its style ("starting" before any news).
func statusText(s core.Status, stopping bool) string {
	switch {
	case stopping:
		return styles.Stopping.Render("stopping")
	case s == core.StatusUnknown:
		return styles.Status[s].Render("starting")
	}
	return styles.Status[s].Render(s.String())
}

// tooSmall is the view of a terminal below the minimum size: a notice,
// and, when the person is asked whether to leave, the short question
// first (it stays visible at any size).
func tooSmall(w, h int, question string, asking bool) string {
	msg := fmt.Sprintf("terminal too small (need %d x %d, have %d x %d)", minWidth, minHeight, w, h)
	if asking {
		msg = question + "\n" + msg
	}
	return lipgloss.NewStyle().Width(max(1, w)).Render(msg)
}

// fill lays items out on lines of at most w cells, separated by single
// spaces, each line starting with indent; an item wider than a line gets
// a line of its own.
func fill(items []string, w int, indent string) string {
	var b strings.Builder
	line := indent
	for _, it := range items {
		if line != indent && lipgloss.Width(line)+1+lipgloss.Width(it) > w {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += it
	}
	b.WriteString(line + "\n")
	return b.String()
}

// setTable refills t with cols and rows, keeping its cursor (clamped to
// the new rows) on the screen. Rows with as many columns as before
// replace the old in place, so that the rows scrolled into view stay
// (emptying the table first reset its scroll to the top and left a
// cursor further down off the screen); where the rows changed anyway,
// a move by nothing scrolls the cursor's row back into view.
func setTable(t *table.Model, cols []table.Column, rows []table.Row) {
	cur := t.Cursor()
	if len(cols) != len(t.Columns()) { // the old rows have another column count
		t.SetRows(nil)
		t.SetColumns(cols)
	}
	t.SetRows(rows)
	t.SetColumns(cols)
	t.SetCursor(min(max(cur, 0), max(0, len(rows)-1)))
	t.MoveDown(0)
}
