// Package methodsfig draws the methods figure: per configuration (a row
// of summary.csv, or of a sweep's table), its mean test accuracy and test
// worst-group accuracy as two horizontal bars. `maple reproduce` and
// `maple plot` both draw it.
package methodsfig

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/maple-ood/maple/internal/figure"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Name is the base name of the methods figure (.png and .svg).
const Name = "methods"

// The methods figure's size: a title and a legend above one row per
// configuration, the x axis below; the PNG is drawn at figure.DPI.
const (
	methodsFigW  = 10 * vg.Inch
	methodsRowH  = 0.4 * vg.Inch  // one configuration: its two bars, a name of one or two lines
	methodsAxisH = 0.75 * vg.Inch // the x axis, its ticks and label
	methodsLegH  = 0.35 * vg.Inch
	methodsPad   = 12 // points: the margin above and beside the figure
	labelFont    = 10 // points: the configurations' names
	labelLineH   = 13 // points: a line of a name
	// A configuration's name is wrapped into lines of at most labelChars
	// characters, at most labelLines of them, the last cut with "…"
	// where the name is longer (the results page's table has it whole).
	labelChars = 46
	labelLines = 3
)

// The two bars of a row: test accuracy (blue) above test worst-group
// accuracy (red).
var methodsColours = []color.Color{figure.Tableau[0], figure.Tableau[3]}

// summaryVaries tells whether col differs between summary rows.
func summaryVaries(rows []map[string]string, col string) bool {
	for _, x := range rows {
		if x[col] != rows[0][col] {
			return true
		}
	}
	return false
}

// Sweeps lists the distinct sweeps named by the rows' sweep columns
// (each a space-separated list), in order.
func Sweeps(rows []map[string]string) []string {
	var out []string
	for _, x := range rows {
		for _, s := range strings.Fields(x["sweep"]) {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// SweepText prints a summary row's sweep column: its sweeps joined by
// ", ".
func SweepText(v string) string { return strings.Join(strings.Fields(v), ", ") }

// ConfigLabels names each row of summary.csv as the methods figure and
// the results page name it: its method, after the dataset, training size
// and model where these differ between rows, then, when other rows share
// that method, a short name telling it from them: the sweep its runs came
// from when the experiment has several sweeps and each of these rows has
// its own, else the settings it does not share with them (the search
// model too, where that differs). The figure wraps a long name (see
// labelText).
func ConfigLabels(rows []map[string]string) ([]string, LabelKinds) {
	var kinds LabelKinds
	var cols []string
	for _, c := range []string{"dataset", "train_size", "model"} {
		if summaryVaries(rows, c) {
			cols = append(cols, c)
		}
	}
	manySweeps := len(Sweeps(rows)) > 1
	key := func(x map[string]string) string {
		var k []string
		for _, c := range append(slices.Clone(cols), "method") {
			k = append(k, x[c])
		}
		return strings.Join(k, "\x00")
	}
	groups := map[string][]map[string]string{}
	for _, x := range rows {
		groups[key(x)] = append(groups[key(x)], x)
	}
	out := make([]string, len(rows))
	for i, x := range rows {
		var parts []string
		for _, c := range cols {
			v := x[c]
			if c == "train_size" {
				v = "n=" + Size(v)
			}
			parts = append(parts, v)
		}
		name := strings.Join(append(parts, x["method"]), " ")
		if g := groups[key(x)]; len(g) > 1 {
			short, bySweep := shortName(x, g, manySweeps)
			name += " · " + short
			if bySweep {
				kinds.Sweep = true
			} else {
				kinds.Settings = true
			}
		}
		out[i] = name
	}
	return out, kinds
}

// LabelKinds tells what ConfigLabels added to some row's method: its
// sweep, the settings that tell it from the rows of its method.
type LabelKinds struct{ Sweep, Settings bool }

// shortName tells summary row x from the others of its group (the rows
// with its method): its sweep when the experiment has several and each
// row of the group has its own, else what its settings do not share with
// the group's (its whole settings, or "defaults", when that is nothing).
func shortName(x map[string]string, group []map[string]string, manySweeps bool) (string, bool) {
	if manySweeps {
		distinct := map[string]bool{}
		for _, y := range group {
			distinct[y["sweep"]] = true
		}
		if len(distinct) == len(group) {
			return SweepText(x["sweep"]), true
		}
	}
	var own []string
	for _, part := range SettingParts(x["settings"]) {
		shared := true
		for _, y := range group {
			shared = shared && slices.Contains(SettingParts(y["settings"]), part)
		}
		if !shared {
			own = append(own, part)
		}
	}
	if summaryVaries(group, "search_model") {
		own = append([]string{"search " + x["search_model"]}, own...)
	}
	switch {
	case len(own) > 0:
		return strings.Join(own, "; "), false
	case x["settings"] != "":
		return x["settings"], false
	}
	return "defaults", false
}

// cut shortens s to at most n characters, ending it with "…" when cut:
// at a space where one falls in its second half.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	head := r[:n-1]
	if r[n-1] != ' ' {
		if i := strings.LastIndex(string(head), " "); i >= 0 && utf8.RuneCountInString(string(head)[:i]) > n/2 {
			head = []rune(string(head)[:i])
		}
	}
	return strings.TrimRight(string(head), " ;·,") + "…"
}

// labelText wraps a configuration's name for the figure: lines of at
// most labelChars characters, broken after a "·" or between settings
// (or, for a setting longer than a line, at a space), at most labelLines
// of them, the last cut with "…" when the name does not fit.
func labelText(name string) []string {
	var chunks []string
	for _, part := range strings.SplitAfter(name, "; ") {
		for _, c := range strings.SplitAfter(part, " · ") {
			if c = strings.TrimSpace(c); utf8.RuneCountInString(c) > labelChars {
				chunks = append(chunks, strings.Fields(c)...)
			} else if c != "" {
				chunks = append(chunks, c)
			}
		}
	}
	lines := fill(chunks, func(l string) bool { return utf8.RuneCountInString(l) <= labelChars })
	if len(lines) == 0 {
		lines = []string{""}
	}
	if len(lines) > labelLines {
		last := strings.Join(lines[labelLines-1:], " ")
		lines = append(lines[:labelLines-1], cut(last, labelChars))
	}
	for i, l := range lines {
		lines[i] = cut(l, labelChars)
	}
	return lines
}

// rowHeight is the height of a row whose name takes lines lines.
func rowHeight(lines int) vg.Length {
	return max(methodsRowH, vg.Length(lines)*labelLineH+vg.Points(10))
}

// methodsHeight is the height of the methods figure of rows
// configurations, each as tall as a name of rowLines lines needs, under a
// title of titleLines lines.
func methodsHeight(rows, rowLines, titleLines int) vg.Length {
	return methodsPad + titleLineH + vg.Length(titleLines-1)*subLineH + methodsLegH + vg.Length(rows)*rowHeight(rowLines) + methodsAxisH
}

// The height of the methods figure's title line (12 points) and of each
// line under it (10 points).
const (
	titleLineH = 0.3 * vg.Inch
	subLineH   = 15 // points
)

// hbars draws one bar per configuration, horizontally from 0 to its mean,
// with its ± sd bar where n > 1 and its mean printed after it.
type hbars struct {
	y, mean, sd []float64 // sd NaN: none
	half        float64   // half the bar's thickness, in rows
	colour      color.Color
	text        draw.TextStyle
}

func (h hbars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	whisker := draw.LineStyle{Color: color.Black, Width: vg.Points(1.2)}
	for i, y := range h.y {
		m := h.mean[i]
		if math.IsNaN(m) {
			continue
		}
		x0, x1 := trX(0), trX(m)
		y0, y1 := trY(y-h.half), trY(y+h.half)
		c.FillPolygon(h.colour, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		end := x1
		if sd := h.sd[i]; !math.IsNaN(sd) {
			lo, hi, yc := trX(max(m-sd, 0)), trX(min(m+sd, 100)), trY(y)
			capH := (y1 - y0) * 0.35
			c.StrokeLine2(whisker, lo, yc, hi, yc)
			c.StrokeLine2(whisker, lo, yc-capH, lo, yc+capH)
			c.StrokeLine2(whisker, hi, yc-capH, hi, yc+capH)
			end = max(end, hi)
		}
		c.FillText(h.text, vg.Point{X: end + vg.Points(3), Y: trY(y)}, strconv.FormatFloat(m, 'f', 1, 64))
	}
}

func (h hbars) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, 100, slices.Min(h.y) - 0.5, slices.Max(h.y) + 0.5
}

// methodsTitle is the figure's title, wrapped to width: what it shows,
// then where its rows come from (source) and what they share.
func methodsTitle(rows []map[string]string, source string, style draw.TextStyle, width vg.Length) []string {
	var common []string
	if !summaryVaries(rows, "dataset") {
		common = append(common, rows[0]["dataset"])
	}
	if !summaryVaries(rows, "train_size") {
		if s := Size(rows[0]["train_size"]); s == "all" {
			common = append(common, "every training sample")
		} else {
			common = append(common, s+" training samples")
		}
	}
	if !summaryVaries(rows, "model") {
		common = append(common, "model "+rows[0]["model"])
	}
	if !summaryVaries(rows, "method") {
		common = append(common, rows[0]["method"])
	}
	seeds := "mean over seeds (n as the table gives), ± sample sd where n > 1"
	if !summaryVaries(rows, "n") {
		switch n := rows[0]["n"]; n {
		case "1":
			seeds = "one seed each (no sd)"
		default:
			seeds = "mean over " + n + " seeds, ± sample sd"
		}
	}
	sub := source
	if len(common) > 0 {
		sub += ": " + strings.Join(common, ", ")
	}
	sub += "; " + seeds
	lines := []string{"Test accuracy and test worst-group accuracy per configuration (%, selected on validation)"}
	return append(lines, wrap(sub, style, width)...)
}

// wrap breaks s at spaces into lines no wider than width (a word wider
// than width on a line of its own).
func wrap(s string, style draw.TextStyle, width vg.Length) []string {
	return fill(strings.Fields(s), func(l string) bool { return style.Width(l) <= width })
}

// fill joins words into lines by spaces, a line taking the next word
// while fits accepts the result (a word that does not fit alone on a
// line of its own).
func fill(words []string, fits func(string) bool) []string {
	var lines []string
	line := ""
	for _, w := range words {
		switch {
		case line == "":
			line = w
		case fits(line + " " + w):
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// Draw draws the methods figure of rows, each with summary.csv's
// columns (those ConfigLabels reads, n, test_acc_mean and _sd,
// test_worst_mean and _sd), its title naming their source ("Experiment
// ablation", "Sweep cm"). It returns the PNG and the SVG.
func Draw(rows []map[string]string, source string) (png, svg []byte, err error) {
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("the methods figure: no rows")
	}
	names, _ := ConfigLabels(rows)
	n := len(rows)
	rowLines := 1
	labels := make([]string, n)
	for i, name := range names {
		lines := labelText(name)
		rowLines = max(rowLines, len(lines))
		labels[i] = strings.Join(lines, "\n")
	}
	p := figure.New()
	// Row i at y = n-1-i: the table's first row on top.
	ticks := make([]string, n)
	bars := [2]hbars{}
	for j, col := range []string{"test_acc", "test_worst"} {
		b := hbars{half: 0.17, colour: methodsColours[j], y: make([]float64, n), mean: make([]float64, n), sd: make([]float64, n)}
		b.text = p.Y.Tick.Label
		b.text.Font.Size = 8
		b.text.XAlign, b.text.YAlign = draw.XLeft, draw.YCenter
		for i, x := range rows {
			y := float64(n - 1 - i)
			ticks[n-1-i] = labels[i]
			// The pair around the row's centre: test accuracy above.
			b.y[i] = y + 0.18*float64(1-2*j)
			b.mean[i], b.sd[i] = math.NaN(), math.NaN()
			if v, err := strconv.ParseFloat(x[col+"_mean"], 64); err == nil {
				b.mean[i] = v
			}
			if v, err := strconv.ParseFloat(x[col+"_sd"], 64); err == nil && x["n"] != "1" {
				b.sd[i] = v
			}
		}
		bars[j] = b
	}
	grid := plotter.NewGrid()
	grid.Horizontal.Color = nil
	p.Add(grid, bars[0], bars[1])
	p.Y.Tick.Label.Font.Size = labelFont
	p.NominalY(ticks...)
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	// Room right of 100 for a mean printed after its bar.
	p.X.Min, p.X.Max = 0, 108
	var xTicks []plot.Tick
	for v := 0; v <= 100; v += 10 {
		t := plot.Tick{Value: float64(v)}
		if v%20 == 0 {
			t.Label = strconv.Itoa(v)
		}
		xTicks = append(xTicks, t)
	}
	p.X.Tick.Marker = plot.ConstantTicks(xTicks)
	p.X.Label.Text = "% of the test split"
	p.X.Label.TextStyle.Font.Size = 11

	titleStyle := p.Title.TextStyle
	titleStyle.Font.Size = 12
	titleStyle.XAlign, titleStyle.YAlign = draw.XLeft, draw.YTop
	subStyle := titleStyle
	subStyle.Font.Size = 10
	title := methodsTitle(rows, source, subStyle, methodsFigW-2*methodsPad)
	h := methodsHeight(n, rowLines, len(title))
	legendStyle := titleStyle
	legendStyle.Font.Size = 10
	legendStyle.YAlign = draw.YCenter
	paint := func(c draw.Canvas) {
		y := c.Max.Y - methodsPad
		for k, line := range title {
			st := titleStyle
			if k > 0 {
				st = subStyle
			}
			c.FillText(st, vg.Point{X: c.Min.X + methodsPad, Y: y}, line)
			if k == 0 {
				y -= titleLineH
			} else {
				y -= subLineH
			}
		}
		// The legend: a swatch and a name each, side by side.
		x, ly := c.Min.X+methodsPad, y-methodsLegH/2
		for j, name := range []string{"test accuracy", "test worst-group accuracy"} {
			sw := vg.Points(14)
			c.FillPolygon(methodsColours[j], []vg.Point{{X: x, Y: ly - sw/2}, {X: x + sw, Y: ly - sw/2}, {X: x + sw, Y: ly + sw/2}, {X: x, Y: ly + sw/2}})
			c.FillText(legendStyle, vg.Point{X: x + sw + vg.Points(5), Y: ly}, name)
			x += sw + vg.Points(5) + legendStyle.Width(name) + vg.Points(24)
		}
		area := c
		area.Max.Y = y - methodsLegH
		area.Min.X += methodsPad
		area.Max.X -= methodsPad
		p.Draw(area)
	}
	return figure.Render("the methods figure", methodsFigW, h, paint)
}

// Size prints a training size column: "all" for 0 or empty.
func Size(v string) string {
	if v == "0" || v == "" {
		return "all"
	}
	return v
}

// SettingParts splits a settings column into its settings.
func SettingParts(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "; ")
}
