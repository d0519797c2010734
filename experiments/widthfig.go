package experiments

import (
	"cmp"
	"fmt"
	"image/color"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/maple-ood/maple/internal/figure"
	"github.com/maple-ood/maple/models"
)

// WidthsFigure is the base name of the figure drawn from summary.csv
// where a method ran at several model widths (.png and .svg): the
// paper's Figure 2.
const WidthsFigure = "widths"

// widthLine is one method's configurations at one training size and
// settings, a point per width.
type widthLine struct {
	method, label string
	size          string
	settings      string // the row's settings ("" on a method's defaults)
	points        []widthPoint
}

// widthPoint is one configuration: its first hidden layer's width, its
// mean test and test worst-group accuracy, and their sample sds (0 where
// n = 1).
type widthPoint struct{ x, acc, worst, accSD, worstSD float64 }

// modelShape is a model spec with its widths left out ("mlp:390,390" is
// "mlp:*,*"): the rows of one line differ in their widths alone.
func modelShape(model string) string {
	kind, args, ok := strings.Cut(model, ":")
	if !ok {
		return model
	}
	parts := strings.Split(args, ",")
	for i := range parts {
		parts[i] = "*"
	}
	return kind + ":" + strings.Join(parts, ",")
}

// widthLines pools summary.csv's rows into lines: one per dataset, model
// kind and depth, method, training size and settings, with a point per
// model width, sorted by width; in the order each line first appears.
func widthLines(t *Table) ([]*widthLine, error) {
	var out []*widthLine
	index := map[string]*widthLine{}
	for i, r := range t.Rows {
		w := models.Width(r["model"])
		if w <= 0 {
			continue
		}
		size := "all"
		if s := r["train_size"]; s != "" && s != "0" {
			size = s
		}
		key := strings.Join([]string{r["dataset"], modelShape(r["model"]), r["method"], size, r["settings"]}, "\x00")
		l, ok := index[key]
		if !ok {
			label := r["method"] + ", n=" + size
			if r["dataset"] != "" {
				label = r["dataset"] + " " + label
			}
			if r["settings"] != "" {
				label += " [" + settingsLabel(r) + "]"
			}
			l = &widthLine{method: r["method"], label: label, size: size, settings: r["settings"]}
			index[key] = l
			out = append(out, l)
		}
		var vals [4]float64
		for j, col := range []string{"test_acc_mean", "test_worst_mean", "test_acc_sd", "test_worst_sd"} {
			if r[col] == "" && j >= 2 {
				continue // one seed: no sd
			}
			v, err := strconv.ParseFloat(r[col], 64)
			if err != nil {
				return nil, fmt.Errorf("%s row %d: %s %q: want a number", SummaryFile, i+2, col, r[col])
			}
			vals[j] = v
		}
		l.points = append(l.points, widthPoint{x: float64(w), acc: vals[0], worst: vals[1], accSD: vals[2], worstSD: vals[3]})
	}
	for _, l := range out {
		slices.SortStableFunc(l.points, func(a, b widthPoint) int { return cmp.Compare(a.x, b.x) })
	}
	return out, nil
}

// settingsLabel names a row's settings in a legend: the recipe its final
// model trains by where its settings say that alone ("MAPLE code's
// training"), else the settings themselves.
func settingsLabel(r map[string]string) string {
	for _, part := range settingParts(r["settings"]) {
		if flag, _, _ := strings.Cut(part, " "); !strings.HasPrefix(flag, "eval-") && flag != "l2" {
			return r["settings"]
		}
	}
	if t := FinalTraining(r); t != "other" && t != "?" {
		return t + " training"
	}
	return r["settings"]
}

// lineStyle is a width line's colour and dash pattern, as indices.
type lineStyle struct{ colour, dash int }

// widthStyles gives each line a colour per method and a dash pattern per
// training size and settings (a baseline by another final training), so
// that no two lines look alike.
func widthStyles(lines []*widthLine) []lineStyle {
	var methods, kinds []string
	out := make([]lineStyle, len(lines))
	for i, l := range lines {
		if !slices.Contains(methods, l.method) {
			methods = append(methods, l.method)
		}
		if k := l.size + "\x00" + l.settings; !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
		out[i] = lineStyle{slices.Index(methods, l.method), slices.Index(kinds, l.size+"\x00"+l.settings)}
	}
	return out
}

// widthDashes are the width figure's dash patterns: solid, dashed,
// dash-dot, dotted, long dashes, dash-dot-dot.
var widthDashes = append(slices.Clone(iterDashes), []vg.Length{vg.Points(1.5), vg.Points(2)}, []vg.Length{vg.Points(10), vg.Points(3)},
	[]vg.Length{vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2), vg.Points(1.5), vg.Points(2)})

// widths is how many distinct widths the line has.
func (l *widthLine) widths() int {
	n := 0
	for i, p := range l.points {
		if i == 0 || p.x != l.points[i-1].x {
			n++
		}
	}
	return n
}

// WidthFigureOf draws summary.csv's width figure where some method ran at
// two widths or more: per method and training size, mean test accuracy
// (left) and test worst-group accuracy (right) against the first hidden
// layer's width, ± one sample sd where n > 1. ok is false, and nothing is
// drawn, where no method has two widths.
func WidthFigureOf(t *Table) (png, svg []byte, ok bool, err error) {
	lines, err := widthLines(t)
	if err != nil {
		return nil, nil, false, err
	}
	if !slices.ContainsFunc(lines, func(l *widthLine) bool { return l.widths() > 1 }) {
		return nil, nil, false, nil
	}
	png, svg, err = drawWidths(lines, widthStyles(lines), "the width figure", "Test accuracy against model width: mean over seeds ± sample sd, each run selected on validation",
		"test accuracy (%)", "test worst-group accuracy (%)", 0, 100)
	return png, svg, err == nil, err
}

// drawWidths draws lines against width in two panels, test accuracy
// (left) and test worst-group accuracy (right), each from yMin to yMax
// (a line beyond is cut at the panel's edge), with a grey rule at 0
// beneath the lines where the range spans it: a row of panels per
// training size (ascending, every image last), each headed by its size
// where there are several, so that a panel holds one size's lines.
func drawWidths(lines []*widthLine, styles []lineStyle, what, title, leftTitle, rightTitle string, yMin, yMax float64) (png, svg []byte, err error) {
	sizes := lineSizes(lines)
	var rows []panelRow
	for _, size := range sizes {
		var ls []*widthLine
		var ss []lineStyle
		for i, l := range lines {
			if l.size == size {
				ls, ss = append(ls, l), append(ss, styles[i])
			}
		}
		left, right, legend, err := widthPlots(ls, ss, what, leftTitle, rightTitle, yMin, yMax)
		if err != nil {
			return nil, nil, err
		}
		row := panelRow{left: left, right: right, legend: legend, entries: len(ls)}
		if len(sizes) > 1 {
			row.heading = sizeHeading(size)
		}
		rows = append(rows, row)
	}
	return panelRows(what, title, rows)
}

// lineSizes are the training sizes of lines, ascending, every image
// ("all") last: the width figures' rows of panels.
func lineSizes(lines []*widthLine) []string {
	var sizes []string
	for _, l := range lines {
		if !slices.Contains(sizes, l.size) {
			sizes = append(sizes, l.size)
		}
	}
	slices.SortStableFunc(sizes, func(a, b string) int { return cmp.Compare(sizeOrder(a), sizeOrder(b)) })
	return sizes
}

// sizeHeading names a training size in a figure's heading.
func sizeHeading(size string) string {
	if size == "all" {
		return "Every training image"
	}
	return size + " training images"
}

// widthPlots builds drawWidths' two panels and legend.
func widthPlots(lines []*widthLine, styles []lineStyle, what, leftTitle, rightTitle string, yMin, yMax float64) (left, right *plot.Plot, legend plot.Legend, err error) {
	var widths []float64 // a tick at each width that ran
	for _, l := range lines {
		for _, pt := range l.points {
			if !slices.Contains(widths, pt.x) {
				widths = append(widths, pt.x)
			}
		}
	}
	slices.Sort(widths)
	ticks := make(plot.ConstantTicks, len(widths))
	for i, w := range widths {
		ticks[i] = plot.Tick{Value: w, Label: strconv.Itoa(int(w))}
	}
	pad := max(8, (widths[len(widths)-1]-widths[0])*0.04) // the lines clear of the edges
	xMin, xMax := widths[0]-pad, widths[len(widths)-1]+pad
	left, right = figure.New(), figure.New()
	left.Title.Text, right.Title.Text = leftTitle, rightTitle
	for _, p := range []*plot.Plot{left, right} {
		p.X.Label.Text = "hidden width"
		p.Title.TextStyle.Font.Size = 11
		p.X.Tick.Marker = ticks
		p.Add(plotter.NewGrid())
		if yMin < 0 && yMax > 0 { // beneath the lines
			zero, err := plotter.NewLine(plotter.XYs{{X: xMin, Y: 0}, {X: xMax, Y: 0}})
			if err != nil {
				return nil, nil, plot.Legend{}, fmt.Errorf("%s: %w", what, err)
			}
			zero.Color, zero.Width = color.Gray{Y: 90}, vg.Points(1)
			p.Add(zero)
		}
	}
	legend = newLegend()
	for i, l := range lines {
		colour := iterColours[styles[i].colour%len(iterColours)]
		dashes := widthDashes[styles[i].dash%len(widthDashes)]
		var thumb *plotter.Line
		for _, panel := range []struct {
			p        *plot.Plot
			mean, sd func(widthPoint) float64
		}{
			{left, func(p widthPoint) float64 { return p.acc }, func(p widthPoint) float64 { return p.accSD }},
			{right, func(p widthPoint) float64 { return p.worst }, func(p widthPoint) float64 { return p.worstSD }},
		} {
			xy, ye := make(plotter.XYs, len(l.points)), make(plotter.YErrors, len(l.points))
			for i, pt := range l.points {
				xy[i] = plotter.XY{X: pt.x, Y: panel.mean(pt)}
				ye[i].Low, ye[i].High = panel.sd(pt), panel.sd(pt)
			}
			ln, pts, err := plotter.NewLinePoints(xy)
			if err != nil {
				return nil, nil, plot.Legend{}, fmt.Errorf("%s: %w", what, err)
			}
			ln.Color, ln.Width, ln.Dashes = colour, vg.Points(1.6), dashes
			pts.GlyphStyle = draw.GlyphStyle{Color: colour, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{xy, ye})
			if err != nil {
				return nil, nil, plot.Legend{}, fmt.Errorf("%s: %w", what, err)
			}
			eb.Color = colour
			panel.p.Add(ln, pts, eb)
			thumb = ln
		}
		legend.Add(l.label, thumb)
	}
	// The ranges last: adding a plotter widens them to its data.
	for _, p := range []*plot.Plot{left, right} {
		p.X.Min, p.X.Max = xMin, xMax
		p.Y.Min, p.Y.Max = yMin, yMax
	}
	return left, right, legend, nil
}

// GapsFigure is the base name of the figure of each method's accuracy
// less the oracle's trained the same way, against width (.png and .svg):
// the paper's Figure 2 as its claim reads, "near the oracle".
const GapsFigure = "widths-gap"

// gapFloor is the gap figure's lowest gap, in points: a line below it
// (ERM on ColoredMNIST, some 55 points below the oracle) would flatten
// the others, and is cut at the edge; the results page names it.
const gapFloor = -15

// gapLines are the experiment's rows other than the oracle's, each less
// the oracle of its dataset, training size and model trained the same way
// (oracleRuns: at maple's default, the oracle's final training chosen per
// seed on validation): mean test and test worst-group accuracy less the
// oracle's means, a line per method, training size and settings, a point
// per width. A row with no such oracle is left out, and counted in left.
func gapLines(r Results) (lines []*widthLine, left int, err error) {
	if r.Summary == nil || r.Runs == nil {
		return nil, 0, nil
	}
	gaps := &Table{Header: r.Summary.Header}
	for _, x := range r.Summary.Rows {
		if x["method"] == "oracle" || models.Width(x["model"]) <= 0 {
			continue
		}
		oracle, _ := oracleRuns(x, r.Summary.Rows, r)
		if oracle == nil {
			left++
			continue
		}
		g := maps.Clone(x)
		for _, c := range [][2]string{{"test_acc_mean", "test_acc"}, {"test_worst_mean", "test_worst"}} {
			if v, err := strconv.ParseFloat(x[c[0]], 64); err == nil {
				g[c[0]] = strconv.FormatFloat(v-Describe(column(oracle, c[1])).Mean, 'f', -1, 64)
			} // else widthLines names the row and column
		}
		g["test_acc_sd"], g["test_worst_sd"] = "", "" // a difference of means: no bars
		gaps.Rows = append(gaps.Rows, g)
	}
	lines, err = widthLines(gaps)
	return lines, left, err
}

// gapsBelow names the gap lines cut at gapFloor: in the test accuracy
// panel (and so, nearly always, the worst-group one too), and in the
// worst-group panel alone.
func gapsBelow(lines []*widthLine) (acc, worstOnly []string) {
	for _, l := range lines {
		a := slices.ContainsFunc(l.points, func(p widthPoint) bool { return p.acc < gapFloor })
		w := slices.ContainsFunc(l.points, func(p widthPoint) bool { return p.worst < gapFloor })
		switch {
		case a:
			acc = append(acc, l.label)
		case w:
			worstOnly = append(worstOnly, l.label)
		}
	}
	return acc, worstOnly
}

// GapFigureOf draws the gap figure (gapLines) where some method ran at
// two widths or more beside an oracle: test accuracy (left) and test
// worst-group accuracy (right) less the oracle's, in points, from
// gapFloor up. ok is false, and nothing is drawn, where no method has
// two widths with an oracle beside them.
func GapFigureOf(r Results) (png, svg []byte, ok bool, err error) {
	lines, _, err := gapLines(r)
	if err != nil {
		return nil, nil, false, err
	}
	if !slices.ContainsFunc(lines, func(l *widthLine) bool { return l.widths() > 1 }) {
		return nil, nil, false, nil
	}
	top := 2.0
	for _, l := range lines {
		for _, p := range l.points {
			top = max(top, math.Ceil(p.acc)+1, math.Ceil(p.worst)+1)
		}
	}
	// Each line in its colour and dash of the width figure.
	all, err := widthLines(r.Summary)
	if err != nil {
		return nil, nil, false, err
	}
	allStyles, styles := widthStyles(all), make([]lineStyle, len(lines))
	for i, l := range lines {
		if j := slices.IndexFunc(all, func(a *widthLine) bool { return a.label == l.label }); j >= 0 {
			styles[i] = allStyles[j]
		}
	}
	png, svg, err = drawWidths(lines, styles, "the gap figure", "Accuracy less the oracle's trained the same way, against model width: difference of the means over seeds, in points",
		"test accuracy less the oracle's", "test worst-group accuracy less the oracle's", gapFloor, top)
	return png, svg, err == nil, err
}

// WriteGapFigure writes GapFigureOf's PNG and SVG of r into dir, or
// removes them where r has no method at two widths beside an oracle.
func WriteGapFigure(dir string, r Results) error {
	png, svg, ok, err := GapFigureOf(r)
	if err != nil {
		return err
	}
	if !ok {
		return removeFigure(dir, GapsFigure)
	}
	return writeFigure(dir, GapsFigure, png, svg, nil)
}

// WriteWidthFigure writes WidthFigureOf's PNG and SVG of summary into
// dir, or removes them where summary has no method at two widths.
func WriteWidthFigure(dir string, summary *Table) error {
	png, svg, ok, err := WidthFigureOf(summary)
	if err != nil {
		return err
	}
	if !ok {
		return removeFigure(dir, WidthsFigure)
	}
	return writeFigure(dir, WidthsFigure, png, svg, nil)
}
