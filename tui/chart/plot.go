package chart

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/guptarohit/asciigraph"

	"github.com/maple-ood/maple/tui/wrap"
)

// The chart component's drawing: one chart of its window (plot), its
// cursor and marks (overlay), and the asciigraph plot under them.

// plot draws one chart of the window, smoothed and scaled as asked,
// with the cursor and the rate-change marks. A line's band is drawn
// under the lines, dotted, in the line's colour.
func (c *Model) plot(p Plot, w, h int) string {
	win := c.window()
	n := win.hi - win.lo
	if n <= 0 || len(p.Lines) == 0 {
		return p.Title + "\n" + styles.Dim.Render(c.waiting())
	}
	title := p.Title
	// The series drawn: every band's bounds, then the lines, so that a
	// line is never hidden under a band.
	type series struct {
		data  []float64
		times []float64 // the line's times
		line  int       // the line's index: its colour and characters
		bound bool
	}
	cut := func(values []float64) []float64 {
		v := make([]float64, n)
		for j := range v {
			v[j] = math.NaN()
			if k := win.lo + j; k < len(values) {
				v[j] = values[k]
			}
		}
		return v
	}
	var bounds, lines []series
	names := make([]string, len(p.Lines))
	for i, l := range p.Lines {
		names[i] = c.legend(l)
		ts := c.lineTimes(l)
		if l.Lo != nil && l.Hi != nil {
			bounds = append(bounds, series{cut(l.Lo), ts, i, true}, series{cut(l.Hi), ts, i, true})
		}
		lines = append(lines, series{cut(l.Values), ts, i, false})
	}
	all := append(bounds, lines...)
	logged := c.log && p.Risk
	for i := range all {
		if logged {
			_, logged = logValues(all[i].data) // the raw values are all positive
		}
		all[i].data = EMA(all[i].data, emaFactors[c.ema])
	}
	if c.log && p.Risk {
		if logged {
			for i := range all {
				all[i].data, _ = logValues(all[i].data) // an average of positive values is positive
			}
			title += " (log scale)"
		} else {
			title += " (linear: a value is not positive)"
		}
	}
	if len(p.Lines) == 1 && p.Lines[0].Name == "" { // a panel: its value in its title
		title, names = strings.TrimSpace(title+" "+names[0]), nil
	}
	// cols is the plotted columns: plotWidth's, fewer where the y axis's
	// labels are wider than it leaves room for (fitted below, once the
	// series are drawn).
	cols := plotWidth(w)
	// The x axis counts the window's points, its ticks on whole points
	// labelled with their iteration (or step: a training's checks may
	// be unevenly spaced).
	x0, x1 := 0.0, float64(max(n-1, 1))
	ticks := wholeTicks(int(x1))
	label := func(v float64) string {
		k := int(math.Round(v))
		if k >= n { // a single point, drawn twice
			return strconv.Itoa(c.xs[win.hi-1] + k - (n - 1))
		}
		return strconv.Itoa(c.xs[win.lo+max(k, 0)])
	}
	caption := c.unitName() + " →"
	column := func(j int) int { return pointColumn(j-win.lo, n, cols) }
	// sample is the series as drawn on cols columns.
	sample := func(cols int) [][]float64 {
		out := make([][]float64, len(all))
		for i := range all {
			out[i] = all[i].data
		}
		return out
	}
	if t0, t1, ok := c.timeSpan(p, win); c.wall && ok {
		// Wall time: each series put on evenly spaced times.
		sample = func(cols int) [][]float64 {
			out := make([][]float64, len(all))
			for i := range all {
				out[i] = resample(all[i].times[win.lo:win.hi], all[i].data, t0, t1, cols)
			}
			return out
		}
		x0, x1, ticks, label, caption = t0, t1, 5, timeTick, "wall time (the search's, pauses left out) →"
		column = func(j int) int {
			for _, l := range p.Lines {
				if ts := c.lineTimes(l); j < len(ts) && !math.IsNaN(ts[j]) {
					return int(math.Round((ts[j] - t0) / (t1 - t0) * float64(cols-1)))
				}
			}
			return -1
		}
	} else {
		if c.wall {
			caption += " (no wall time recorded)"
		}
		// More points than columns: each column takes one of its
		// points, peaks and dips kept (asciigraph's own stretching
		// would interpolate between points and step over them).
		idx := make([]float64, n)
		for j := range idx {
			idx[j] = float64(j)
		}
		sample = func(cols int) [][]float64 {
			out := make([][]float64, len(all))
			for i := range all {
				out[i] = all[i].data
				if n > cols {
					out[i] = resample(idx, all[i].data, 0, float64(n-1), cols)
				}
			}
			return out
		}
	}
	var yfmt func(float64) string // yFormat's
	if logged {
		yfmt = func(v float64) string { return strconv.FormatFloat(math.Pow(10, v), 'g', 3, 64) }
	}
	spec := plotSpec{title: title, x0: x0, x1: x1, ticks: ticks, label: label, caption: caption, yfmt: yfmt}
	for i, name := range names {
		mark := "━"
		if c.Chars {
			mark = strings.Repeat(lineChars[i%len(lineChars)].Horizontal, 2)
			if l := p.Lines[i]; l.Lo != nil && l.Hi != nil { // its band's character
				mark += boundMono[i%len(boundMono)].Horizontal
			}
		}
		spec.legend = append(spec.legend, legendEntry{name: name, mark: mark, color: i})
	}
	for _, s := range all {
		chars := asciigraph.DefaultCharSet
		switch {
		case s.bound && c.Chars:
			chars = boundMono[s.line%len(boundMono)]
		case s.bound:
			chars = boundChars
		case c.Chars:
			chars = lineChars[s.line%len(lineChars)]
		}
		spec.colors = append(spec.colors, s.line)
		spec.chars = append(spec.chars, chars)
	}
	// The labels depend on the series drawn, which depend on the
	// columns: fewer columns until the labels leave room for them (each
	// try has fewer, down to plotCols' least).
	for {
		spec.series = sample(cols)
		fit := plotCols(w, spec.axisPad(w, h))
		if fit >= cols {
			break
		}
		cols = fit
	}
	spec.cols = cols
	return c.overlay(drawPlot(spec, w, h), win, column)
}

// lineTimes are a line's times: its own, else the view's, padded with
// NaN to the view's points.
func (c *Model) lineTimes(l Line) []float64 {
	ts := l.Times
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
func (c *Model) timeSpan(p Plot, win xWindow) (t0, t1 float64, ok bool) {
	t0, t1 = math.Inf(1), math.Inf(-1)
	for _, l := range p.Lines {
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
func (c *Model) overlay(g string, win xWindow, column func(j int) int) string {
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

// lineChars are the characters of series lines on a terminal without
// colour, one set per line in turn, so that the lines stay apart.
var lineChars = []asciigraph.CharSet{asciigraph.DefaultCharSet, asciigraph.CreateCharSet("·"), asciigraph.CreateCharSet("•"),
	asciigraph.CreateCharSet("+"), asciigraph.CreateCharSet("x"), asciigraph.CreateCharSet("o")}

// boundChars draw a band's bounds (in its line's colour); without
// colour boundMono draws line i's band with boundMono[i] (apart from
// every line's characters, and named after its line's mark in the
// legend).
var (
	boundChars = asciigraph.CreateCharSet("·")
	boundMono  = []asciigraph.CharSet{asciigraph.CreateCharSet(":"), asciigraph.CreateCharSet("'"), asciigraph.CreateCharSet(","),
		asciigraph.CreateCharSet(";"), asciigraph.CreateCharSet("\""), asciigraph.CreateCharSet("^")}
)

// legendEntry is one line's entry in a chart's legend: its name (and
// read-out), its mark and its colour (an index into the series colours).
type legendEntry struct {
	name, mark string
	color      int
}

// plotSpec is one asciigraph plot: its title and legend, its series
// (each as evenly spaced points from x0 to x1) with their colours
// (indices into the series colours) and characters, ticks x-axis ticks
// labelled by label, a caption, the y-axis labels' format (nil:
// yFormat's choice for the series), and the plotted columns (0: as many
// as the labels leave room for).
type plotSpec struct {
	title   string
	legend  []legendEntry
	series  [][]float64
	colors  []int
	chars   []asciigraph.CharSet
	x0, x1  float64
	ticks   int
	label   func(float64) string
	caption string
	yfmt    func(float64) string
	cols    int
}

// plotWidth is the most columns a chart w cells wide plots: what y
// labels of up to 9 cells leave.
func plotWidth(w int) int { return max(8, w-12) }

// plotCols is the plotted columns of a chart w cells wide whose y axis
// (its labels, a space and the axis) takes pad cells: plotWidth's, or
// fewer where wider labels need the room (a label of "-1.2345e-6" drew
// the plot a cell past its pane).
func plotCols(w, pad int) int { return max(8, min(plotWidth(w), w-pad)) }

// head is the title with the legend after it, going on to further lines,
// whole entries, where the chart is too narrow for it.
func (s plotSpec) head(w int) string {
	head := s.title
	for i, e := range s.legend {
		l := styles.Series[e.color%len(styles.Series)].Render(e.mark + " " + e.name)
		sep := " "
		if i == 0 {
			sep = "  " // two spaces after the title
		}
		if lipgloss.Width(head[strings.LastIndex(head, "\n")+1:])+len(sep)+lipgloss.Width(l) > w {
			head += "\n" + l
		} else {
			head += sep + l
		}
	}
	return head
}

// yAxis is the y axis of s drawn in w x h cells: the rows asked of
// asciigraph, the range (ok false without a finite value) and the
// labels' format.
func (s plotSpec) yAxis(w, h int) (height int, lo, hi float64, ok bool, yfmt func(float64) string) {
	plotH := max(2, h-4-lipgloss.Height(s.head(w))) // title and legend, x axis, its numbers, caption
	data := s.data()
	// The axis spans the series' extremes (those drawn: resample keeps
	// a column's peak or dip).
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range data {
		for _, x := range v {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
	}
	height = plotH
	if ok = lo <= hi; ok {
		// asciigraph rounds each end of the range to a row on its own, so
		// a range can take one row more than asked for: ask for fewer.
		for height > 1 && plotRows(lo, hi, height) > plotH {
			height--
		}
	}
	yfmt = s.yfmt
	if yfmt == nil {
		yfmt = yFormat(data, height)
	}
	return height, lo, hi, ok, yfmt
}

// data is the series as asciigraph takes them: a single point twice.
func (s plotSpec) data() [][]float64 {
	data := make([][]float64, len(s.series))
	for i, v := range s.series {
		data[i] = v
		if len(v) == 1 {
			data[i] = []float64{v[0], v[0]}
		}
	}
	return data
}

// axisPad is the cells left of the plotted columns in w x h cells: the
// widest y label, a space and the axis, as asciigraph draws them (its
// labels of the range drawn on a plot of the range's two ends).
func (s plotSpec) axisPad(w, h int) int {
	height, lo, hi, ok, yfmt := s.yAxis(w, h)
	if !ok {
		return w - plotWidth(w)
	}
	g := ansi.Strip(asciigraph.Plot([]float64{lo, hi}, asciigraph.LowerBound(lo), asciigraph.UpperBound(hi),
		asciigraph.Height(height), asciigraph.YAxisValueFormatter(yfmt)))
	first, _, _ := strings.Cut(g, "\n")
	i := strings.IndexAny(first, "┤┼")
	if i < 0 {
		return w - plotWidth(w)
	}
	return ansi.StringWidth(first[:i]) + 1
}

// drawPlot draws s in w x h cells: the title with the legend after it,
// the plot, the x axis and the caption.
func drawPlot(s plotSpec, w, h int) string {
	head := s.head(w)
	data := s.data()
	colors := make([]asciigraph.AnsiColor, len(s.colors))
	for i, c := range s.colors {
		colors[i] = styles.SeriesANSI[c%len(styles.SeriesANSI)]
	}
	height, lo, hi, ok, yfmt := s.yAxis(w, h)
	bounds := []asciigraph.Option{}
	if ok {
		bounds = append(bounds, asciigraph.LowerBound(lo), asciigraph.UpperBound(hi))
	}
	cols := s.cols
	if cols == 0 {
		cols = plotCols(w, s.axisPad(w, h))
	}
	g := asciigraph.PlotMany(data, append(bounds, asciigraph.Height(height), asciigraph.Width(cols),
		asciigraph.YAxisValueFormatter(yfmt),
		asciigraph.XAxisRange(s.x0, s.x1), asciigraph.XAxisTickCount(s.ticks),
		asciigraph.XAxisValueFormatter(s.label),
		asciigraph.SeriesColors(colors...),
		asciigraph.SeriesChars(s.chars...))...)
	g = keepLastTick(g, w)
	return head + "\n" + g + "\n" + placeCaption(s.caption, g, cols, w)
}

// placeCaption is the caption's line under a plot g of cols columns, w
// cells wide: centred under the plotted columns as asciigraph puts it
// (by its length in bytes), moved left where it would end past w, and
// wrapped at spaces where it is wider than w.
func placeCaption(caption, g string, cols, w int) string {
	if caption == "" {
		return ""
	}
	pad := w - cols // the y axis's cells, from the x axis
	for _, l := range strings.Split(ansi.Strip(g), "\n") {
		if i := strings.Index(l, "└"); i >= 0 {
			pad = ansi.StringWidth(l[:i]) + 1
			break
		}
	}
	var out []string
	for _, line := range strings.Split(wrap.Spaces(caption, w, ""), "\n") {
		n := ansi.StringWidth(line)
		at := pad
		if len(line) < cols {
			at += (cols - len(line)) / 2
		}
		out = append(out, strings.Repeat(" ", max(0, min(at, w-n)))+line)
	}
	return strings.Join(out, "\n")
}

// keepLastTick moves the x axis's last tick label left so that it ends
// within w cells: asciigraph centres it on the last column, and wide
// y-axis labels push its end past the chart, where it was cut ("47.2s"
// read "47.2"). A label it would then touch gives way to it.
func keepLastTick(g string, w int) string {
	lines := strings.Split(g, "\n")
	for i, l := range lines {
		if !strings.Contains(l, "└") || i+1 >= len(lines) {
			continue
		}
		labels := []rune(lines[i+1]) // the tick labels: plain text
		if len(labels) <= w {
			break
		}
		start := len(labels)
		for start > 0 && labels[start-1] != ' ' {
			start--
		}
		last := labels[start:]
		to := max(0, w-len(last)) // where it starts now
		cut := max(0, to-1)       // a space before it
		keep := labels[:cut]
		if labels[cut] != ' ' { // a label runs past the cut: it goes whole
			for len(keep) > 0 && keep[len(keep)-1] != ' ' {
				keep = keep[:len(keep)-1]
			}
		}
		left := strings.TrimRight(string(keep), " ")
		lines[i+1] = left + strings.Repeat(" ", to-len([]rune(left))) + string(last)
		break
	}
	return strings.Join(lines, "\n")
}

// plotRows is how many rows past the first asciigraph draws for the
// range lo..hi at height h: each end scaled by h/(hi-lo) and rounded
// half away from zero on its own (as asciigraph does).
func plotRows(lo, hi float64, h int) int {
	if hi == lo {
		return int(math.Abs(math.Round(hi) - math.Round(lo)))
	}
	r := float64(h) / (hi - lo)
	return int(math.Abs(math.Round(hi*r) - math.Round(lo*r)))
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
