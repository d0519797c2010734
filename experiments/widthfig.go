package experiments

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
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

// ModelWidth is the first hidden layer's width of a model spec
// ("mlp:390,390" is 390; 0 for a model without one).
func ModelWidth(model string) int {
	_, args, ok := strings.Cut(model, ":")
	if !ok {
		return 0
	}
	first, _, _ := strings.Cut(args, ",")
	w, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return 0
	}
	return w
}

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
		w := ModelWidth(r["model"])
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
	left, right := plot.New(), plot.New()
	left.Title.Text = "test accuracy (%)"
	right.Title.Text = "test worst-group accuracy (%)"
	legend := newLegend()
	for _, p := range []*plot.Plot{left, right} {
		p.X.Label.Text = "hidden width"
		p.Title.TextStyle.Font.Size = 11
		p.Add(plotter.NewGrid())
	}
	styles := widthStyles(lines)
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
				return nil, nil, false, fmt.Errorf("the width figure: %w", err)
			}
			ln.Color, ln.Width, ln.Dashes = colour, vg.Points(1.6), dashes
			pts.GlyphStyle = draw.GlyphStyle{Color: colour, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{xy, ye})
			if err != nil {
				return nil, nil, false, fmt.Errorf("the width figure: %w", err)
			}
			eb.Color = colour
			panel.p.Add(ln, pts, eb)
			thumb = ln
		}
		legend.Add(l.label, thumb)
	}
	// A tick at each width that ran; the lines clear of the edges.
	var widths []float64
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
	pad := max(8, (widths[len(widths)-1]-widths[0])*0.04)
	for _, p := range []*plot.Plot{left, right} {
		p.X.Tick.Marker = ticks
		p.X.Min, p.X.Max = widths[0]-pad, widths[len(widths)-1]+pad
		p.Y.Min, p.Y.Max = 0, 100
	}
	png, svg, err = twoPanels("the width figure", "Test accuracy against model width: mean over seeds ± sample sd, each run selected on validation", left, right, legend, len(lines))
	return png, svg, err == nil, err
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
