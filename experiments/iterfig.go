package experiments

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/maple-ood/maple/internal/figure"
	"github.com/maple-ood/maple/internal/figure/methodsfig"
)

// IterationsFigure is the base name of the figure drawn from
// iterations.csv (.png and .svg).
const IterationsFigure = "iterations"

// The figure's size: two panels side by side, the legend below them, as
// tall as its entries need; the PNG is drawn at figure.DPI.
const (
	iterFigW   = 11 * vg.Inch
	iterPanelH = 3.8 * vg.Inch
	iterTitleH = 0.45 * vg.Inch
	legendFont = 9 // points
)

// iterColours are the figures' palette (figure.Tableau); a
// configuration's line takes colour i%10 and dash pattern i%3, so that 30
// lines differ.
var iterColours = figure.Tableau

var iterDashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(7), vg.Points(2), vg.Points(1.5), vg.Points(2)}}

// iterConfig is one configuration's curves: per iteration, the mean over
// its seeds.
type iterConfig struct {
	hash, label string
	seeds       []string
	conflict    map[int][]float64 // iteration -> the seeds' shares
	valWorst    map[int][]float64
	selected    []int // each seed's selected iterate
	iters       []int // in order of first appearance
}

// iterConfigs pools iterations.csv's rows by configuration, in the order
// each first appears, and names each as the methods figure and the
// results page name its row (ConfigLabels: the method, after the dataset,
// training size and model where these differ, and its sweep or settings
// where its method has other rows). It also
// returns what all configurations share, for the title.
func iterConfigs(t *Table) ([]*iterConfig, string, error) {
	var out []*iterConfig
	index := map[string]*iterConfig{}
	first := map[string]map[string]string{}
	for i, r := range t.Rows {
		c, ok := index[r["config_hash"]]
		if !ok {
			c = &iterConfig{hash: r["config_hash"], conflict: map[int][]float64{}, valWorst: map[int][]float64{}}
			index[c.hash] = c
			first[c.hash] = r
			out = append(out, c)
		}
		it, err := strconv.Atoi(r["iter"])
		if err != nil {
			return nil, "", fmt.Errorf("%s row %d: iter %q: want a whole number", IterationsFile, i+2, r["iter"])
		}
		if !slices.Contains(c.seeds, r["seed"]) {
			c.seeds = append(c.seeds, r["seed"])
		}
		if _, ok := c.valWorst[it]; !ok {
			c.iters = append(c.iters, it)
		}
		v, err := strconv.ParseFloat(r["search_val_worst"], 64)
		if err != nil {
			return nil, "", fmt.Errorf("%s row %d: search_val_worst %q: want a number", IterationsFile, i+2, r["search_val_worst"])
		}
		c.valWorst[it] = append(c.valWorst[it], v)
		if s := r["conflict_weight_pct"]; s != "" {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, "", fmt.Errorf("%s row %d: conflict_weight_pct %q: want a number", IterationsFile, i+2, s)
			}
			c.conflict[it] = append(c.conflict[it], x)
		}
		if r["selected"] == "yes" {
			c.selected = append(c.selected, it)
		}
	}
	varying := func(col string) bool {
		for _, c := range out {
			if first[c.hash][col] != first[out[0].hash][col] {
				return true
			}
		}
		return false
	}
	if len(out) == 0 {
		return nil, "", nil
	}
	var common []string
	for _, col := range []string{"dataset", "train_size", "model", "method"} {
		v := first[out[0].hash][col]
		if col == "train_size" {
			v = "training size " + size(v)
		}
		if !varying(col) {
			common = append(common, v)
		}
	}
	// Each configuration as a summary row (its sweeps pooled), so that
	// the legend names it as the methods figure and the page's table do.
	rows := make([]map[string]string, len(out))
	for i, c := range out {
		r := maps.Clone(first[c.hash])
		var sweeps []string
		for _, x := range t.Rows {
			if x["config_hash"] == c.hash && !slices.Contains(sweeps, x["sweep"]) {
				sweeps = append(sweeps, x["sweep"])
			}
		}
		r["sweep"] = strings.Join(sweeps, " ")
		rows[i] = r
	}
	labels, _ := methodsfig.ConfigLabels(rows)
	for i, c := range out {
		label := labels[i]
		if len(out) == 1 || !strings.Contains(label, " · ") && !varying("method") {
			settings := first[c.hash]["settings"]
			if settings == "" {
				settings = "defaults"
			}
			label = settings
		}
		c.label = fmt.Sprintf("%s  (n = %d)", label, len(c.seeds))
	}
	return out, strings.Join(common, ", "), nil
}

// mean is the mean of the seeds' values at each iteration, in order.
func (c *iterConfig) mean(vals map[int][]float64) plotter.XYs {
	var xy plotter.XYs
	for _, it := range c.iters {
		v := vals[it]
		if len(v) == 0 {
			continue
		}
		s := 0.0
		for _, x := range v {
			s += x
		}
		xy = append(xy, plotter.XY{X: float64(it), Y: s / float64(len(v))})
	}
	return xy
}

// IterationFigure draws iterations.csv's figure: per configuration, the
// mean over its seeds of the weight share on the groups whose attribute
// disagrees with the label (left) and of the search model's validation
// worst-group accuracy (right) against the outer iteration, a dot at
// each seed's selected iterate; the legend names the configurations. It
// returns the PNG and the SVG.
func IterationFigure(t *Table) (png, svg []byte, err error) {
	configs, common, err := iterConfigs(t)
	if err != nil {
		return nil, nil, err
	}
	if len(configs) == 0 {
		return nil, nil, fmt.Errorf("%s has no rows", IterationsFile)
	}
	left, right := figure.New(), figure.New()
	left.Title.Text = "weight on the groups with a ≠ y (% of u)"
	right.Title.Text = "search model: validation worst-group accuracy (%)"
	legend := newLegend()
	for _, p := range []*plot.Plot{left, right} {
		p.X.Label.Text = "outer iteration"
		p.X.Tick.Marker, p.Y.Tick.Marker = iterTicks{}, iterTicks{}
		p.Title.TextStyle.Font.Size = 11
		p.Add(plotter.NewGrid())
	}
	for i, c := range configs {
		style := func(l *plotter.Line) {
			l.Color, l.Width, l.Dashes = iterColours[i%len(iterColours)], vg.Points(1.6), iterDashes[i%len(iterDashes)]
		}
		var thumb *plotter.Line
		for _, panel := range []struct {
			p    *plot.Plot
			vals map[int][]float64
		}{{left, c.conflict}, {right, c.valWorst}} {
			xy := c.mean(panel.vals)
			if len(xy) == 0 {
				continue
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, nil, fmt.Errorf("the iterations figure: %w", err)
			}
			style(l)
			panel.p.Add(l)
			thumb = l
			var dots plotter.XYs
			for _, it := range c.selected {
				for _, pt := range xy {
					if pt.X == float64(it) {
						dots = append(dots, pt)
					}
				}
			}
			if len(dots) > 0 {
				sc, err := plotter.NewScatter(dots)
				if err != nil {
					return nil, nil, fmt.Errorf("the iterations figure: %w", err)
				}
				sc.GlyphStyle = draw.GlyphStyle{Color: l.Color, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
				panel.p.Add(sc)
			}
		}
		legend.Add(c.label, thumb)
	}
	// Percentages from 0, up to the next multiple of 10 (at least 60 and
	// 80: the curves keep their place on a page of figures).
	left.Y.Min, right.Y.Min = 0, 0
	left.Y.Max, right.Y.Max = math.Ceil(max(left.Y.Max, 60)/10)*10, math.Ceil(max(right.Y.Max, 80)/10)*10
	title := "Each configuration's search per outer iteration: mean over seeds, a dot at each seed's selected iterate"
	if common != "" {
		title += " (" + common + ")"
	}
	return twoPanels("the iterations figure", title, left, right, legend, len(configs))
}

// twoPanels draws a figure of two plots side by side under a title, the
// legend of entries lines below them, as PNG and SVG.
func twoPanels(what, title string, left, right *plot.Plot, legend plot.Legend, entries int) (png, svg []byte, err error) {
	return panelRows(what, title, []panelRow{{left: left, right: right, legend: legend, entries: entries}})
}

// panelRow is one row of a figure: an optional heading, two plots side
// by side and the legend of its entries lines below them.
type panelRow struct {
	heading     string
	left, right *plot.Plot
	legend      plot.Legend
	entries     int
}

// panelRows draws rows of two plots each, one below the other under a
// title, as PNG and SVG.
func panelRows(what, title string, rows []panelRow) (png, svg []byte, err error) {
	const headingH = 0.35 * vg.Inch
	h := iterTitleH
	heights := make([]vg.Length, len(rows))
	for i, r := range rows {
		entry := r.legend.TextStyle.Rectangle("M").Max.Y
		heights[i] = iterPanelH + vg.Length(r.entries)*(entry+r.legend.Padding) + 0.3*vg.Inch
		if r.heading != "" {
			heights[i] += headingH
		}
		h += heights[i]
	}
	titleStyle := newLegend().TextStyle
	titleStyle.Font.Size = 12
	headingStyle := titleStyle
	headingStyle.Font.Size = 11.5
	paint := func(c draw.Canvas) {
		c.FillText(titleStyle, vg.Point{X: c.Min.X + vg.Points(12), Y: c.Max.Y - iterTitleH/2 - 6}, title)
		top := c.Max.Y - iterTitleH
		for i, r := range rows {
			y := top
			if r.heading != "" {
				c.FillText(headingStyle, vg.Point{X: c.Min.X + vg.Points(12), Y: y - headingH/2 - 5}, r.heading)
				y -= headingH
			}
			panels := c
			panels.Max.Y, panels.Min.Y = y, y-iterPanelH
			tiles := draw.Tiles{Cols: 2, Rows: 1, PadX: 0.4 * vg.Inch, PadLeft: vg.Points(6), PadRight: vg.Points(12)}
			cs := plot.Align([][]*plot.Plot{{r.left, r.right}}, tiles, panels)
			r.left.Draw(cs[0][0])
			r.right.Draw(cs[0][1])
			leg := c
			leg.Max.Y = panels.Min.Y - 0.15*vg.Inch
			leg.Min.Y = top - heights[i]
			leg.Min.X += vg.Points(12)
			r.legend.Draw(leg)
			top -= heights[i]
		}
	}
	return figure.Render(what, iterFigW, h, paint)
}

// newLegend is the figures' legend: top left, 9-point entries.
func newLegend() plot.Legend {
	legend := figure.NewLegend()
	legend.TextStyle.Font.Size = legendFont
	legend.Left, legend.Top = true, true
	legend.ThumbnailWidth = vg.Points(32)
	legend.Padding = vg.Points(3.5)
	return legend
}

// removeFigure removes dir/base.png and .svg where they exist.
func removeFigure(dir, base string) error { return figure.Remove(filepath.Join(dir, base)) }

// writeFigure writes a figure's PNG and SVG as dir/base.png and .svg,
// each atomically.
func writeFigure(dir, base string, png, svg []byte, err error) error {
	if err != nil {
		return err
	}
	_, err = figure.Write(filepath.Join(dir, base), png, svg)
	return err
}

// WriteIterationFigure writes IterationFigure's PNG and SVG of t into
// dir.
func WriteIterationFigure(dir string, t *Table) error {
	png, svg, err := IterationFigure(t)
	return writeFigure(dir, IterationsFigure, png, svg, err)
}

// iterTicks marks an axis of outer iterations or percentages: whole
// numbers at multiples of 1, 2 or 5 times a power of ten, at most 9 of
// them labelled, and the whole numbers between unlabelled when the axis
// spans at most 40.
type iterTicks struct{}

func (iterTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1.0
search:
	for p := 1.0; ; p *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if (hi-lo)/(m*p) <= 8 {
				step = m * p
				break search
			}
		}
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo); v <= hi+1e-9; v++ {
		switch {
		case math.Mod(v, step) == 0:
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
		case hi-lo <= 40:
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	return ticks
}
