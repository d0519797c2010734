package report

import (
	"fmt"
	"image/color"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/internal/figure"
	"github.com/maple-ood/maple/internal/figure/methodsfig"
	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

// palette colours the lines of a plot, one per series.
var palette = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{214, 39, 40, 255}, color.RGBA{44, 160, 44, 255},
	color.RGBA{255, 127, 14, 255}, color.RGBA{148, 103, 189, 255}, color.RGBA{140, 86, 75, 255},
}

type series struct {
	name string
	xy   plotter.XYs
	dash bool
}

// upTo marks an axis as Marker does, without ticks above max: an
// accuracy axis that runs past 1 is not labelled 1.1 or 1.25.
type upTo struct {
	plot.Ticker
	max float64
}

func (u upTo) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range u.Ticker.Ticks(lo, hi) {
		if t.Value <= u.max+1e-9 {
			out = append(out, t)
		}
	}
	return out
}

// chart is a figure: its plot and its legend's entries, which draw
// lays out below the plot, never over its data.
type chart struct {
	*plot.Plot
	keys []legendKey
}

// legendKey is one entry of a chart's legend: its name and the marks
// that draw its sample.
type legendKey struct {
	name   string
	thumbs []plot.Thumbnailer
}

// addKey adds an entry to c's legend.
func (c *chart) addKey(name string, thumbs ...plot.Thumbnailer) {
	c.keys = append(c.keys, legendKey{name, thumbs})
}

// newChart is a chart with its title, padded below, and no entries.
func newChart(title string) *chart {
	p := figure.New()
	p.Title.Text, p.Title.Padding = title, vg.Points(6)
	return &chart{Plot: p}
}

func linePlot(title, xlabel, ylabel string, ss []series) (*chart, error) {
	c := newChart(title)
	p := c.Plot
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	if ylabel == "accuracy" {
		p.Y.Tick.Marker = upTo{p.Y.Tick.Marker, 1}
	}
	p.Add(plotter.NewGrid())
	for i, s := range ss {
		l, err := plotter.NewLine(s.xy)
		if err != nil {
			return nil, fmt.Errorf("plot %q: %w", title, err)
		}
		l.Color = palette[i%len(palette)]
		l.Width = vg.Points(1.5)
		if s.dash {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l)
		c.addKey(s.name, l)
	}
	return c, nil
}

// logScale puts p's y axis on a log scale when its values xy are all
// positive and span more than two orders of magnitude, where one spike
// would flatten the rest of a linear curve.
func logScale(p *plot.Plot, xy plotter.XYs) {
	lo, hi := math.Inf(1), 0.0
	for _, v := range xy {
		if !(v.Y > 0) || math.IsInf(v.Y, 0) {
			return // a value a log scale cannot show
		}
		lo, hi = min(lo, v.Y), max(hi, v.Y)
	}
	if len(xy) == 0 || hi/lo <= 100 {
		return
	}
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = lo, hi
	p.Y.Label.Text += " (log scale)"
}

// markIterate draws a dotted vertical line at the iterate selected by
// rule ("validation" or "final").
func markIterate(p *chart, it int, rule string) error {
	if it <= 0 {
		return nil
	}
	return markAt(p, it, fmt.Sprintf("selected iterate %d (%s)", it, rule))
}

// markAt draws a dotted vertical line at x, named label in the legend.
func markAt(p *chart, x int, label string) error {
	l, err := plotter.NewLine(plotter.XYs{{X: float64(x), Y: p.Y.Min}, {X: float64(x), Y: p.Y.Max}})
	if err != nil {
		return err
	}
	l.Color = color.Gray{Y: 90}
	l.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
	p.Add(l)
	p.addKey(label, l)
	return nil
}

func over(snaps []*core.Snapshot, f func(*core.Snapshot) float64) plotter.XYs {
	xy := make(plotter.XYs, len(snaps))
	for i, s := range snaps {
		xy[i].X, xy[i].Y = float64(s.Iter), f(s)
	}
	return xy
}

// evalCurves returns the curves of a run with --eval-each-iter (nil
// without): per iterate, the evaluation model's validation worst-group
// accuracy at its validation-selected step, its test accuracy there, and,
// under the reference recipe, the reference protocol's best test accuracy
// over the steps (chosen on the test set, so labelled oracle).
func evalCurves(snaps []*core.Snapshot) []series {
	var val, test, ref plotter.XYs
	for _, s := range snaps {
		if e := s.IterEval; e != nil {
			x := float64(s.Iter)
			val = append(val, plotter.XY{X: x, Y: e.ValWorst})
			test = append(test, plotter.XY{X: x, Y: e.TestAcc})
			if e.Reference != nil {
				ref = append(ref, plotter.XY{X: x, Y: e.Reference.TestAcc})
			}
		}
	}
	if len(val) == 0 {
		return nil
	}
	ss := []series{{name: "validation worst-group (selection)", xy: val},
		{name: "test accuracy (not used for selection)", xy: test, dash: true}}
	if len(ref) > 0 {
		ss = append(ss, series{name: "best test over steps (oracle, reference protocol)", xy: ref, dash: true})
	}
	return ss
}

// Plot writes the figures of the run in dir into out, as PNG and SVG:
// group weight fractions over the outer iterations (the paper's Figure 3),
// the final weight histogram per group (its Figure 4), the outer risk, and
// validation and test worst-group accuracy over the iterations, and, for
// a run with --eval-each-iter, the evaluation model's curves (evalCurves).
// A damaged metrics line is skipped and reported through warn. It returns
// the files written.
func Plot(dir, out string, warn func(string)) ([]string, error) {
	snaps, err := runs.ReadMetrics(dir)
	if err = runs.SkipDamaged(err, warn); err != nil {
		return nil, err
	}
	sum, err := runs.ReadSummary(dir)
	if err != nil {
		return nil, err
	}
	var result *train.Result // the finished training's, with its curve
	if sum != nil && sum.Result != nil && len(sum.Result.Curve) > 0 {
		result = sum.Result
	}
	if len(snaps) == 0 && result == nil {
		return nil, fmt.Errorf("%s has nothing to plot yet: no outer iterations, and no finished training with its curve (not started, or a baseline recorded before maple kept training curves)", dir)
	}
	cfg, _ := runs.ReadConfig(dir)
	name := filepath.Base(dir)
	if cfg != nil {
		name = fmt.Sprintf("%s: %s on %s", cfg.ID, cfg.MethodName(), cfg.Dataset.Name)
	}
	var figs []namedChart
	add := func(file string, p *chart, err error) error {
		if err != nil {
			return err
		}
		figs = append(figs, namedChart{file, p})
		return nil
	}
	if len(snaps) > 0 {
		rule := "validation" // the iterate the final training takes: --select-iterate
		if cfg != nil && cfg.Settings.SelectIterate == "final" {
			rule = "final"
		}
		if err := searchFigures(snaps, name, rule, add); err != nil {
			return nil, err
		}
	}
	if result != nil {
		title := "training, " + name
		if len(snaps) > 0 {
			title = "final weighted ERM, " + name
		}
		p, err := trainingPlot(title, result)
		if err := add("training", p, err); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(out, 0o700); err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	var files []string
	for _, f := range figs {
		if f.file != "histogram" {
			f.p.X.Tick.Marker = wholeTicks{} // outer iterations, training steps
		}
		fs, err := save(f.p, filepath.Join(out, f.file))
		if err != nil {
			return nil, err
		}
		files = append(files, fs...)
	}
	return files, nil
}

// namedChart is one plot and the base name of its files.
type namedChart struct {
	file string
	p    *chart
}

// trainingPlot draws a finished training's validation checks (r.Curve):
// validation worst-group accuracy (what selects) and accuracy, the test
// figures beside them (dashed: never used to select), and the selected
// step.
func trainingPlot(title string, r *train.Result) (*chart, error) {
	var vw, va, tw, ta plotter.XYs
	for _, c := range r.Curve {
		x := float64(c.Step)
		vw = append(vw, plotter.XY{X: x, Y: c.ValWorst})
		va = append(va, plotter.XY{X: x, Y: c.ValAcc})
		tw = append(tw, plotter.XY{X: x, Y: c.TestWorst})
		ta = append(ta, plotter.XY{X: x, Y: c.TestAcc})
	}
	p, err := linePlot(title, "training step", "accuracy", []series{
		{name: "validation worst-group (selection)", xy: vw}, {name: "validation accuracy", xy: va},
		{name: "test worst-group (not used for selection)", xy: tw, dash: true}, {name: "test accuracy (not used for selection)", xy: ta, dash: true},
	})
	if err != nil {
		return nil, err
	}
	if err := markAt(p, r.SelectedStep, fmt.Sprintf("selected step %d (validation)", r.SelectedStep)); err != nil {
		return nil, err
	}
	return p, nil
}

// searchFigures adds the figures of a search's outer iterations; rule
// is how its iterate was selected: "validation", or "final" (the last).
func searchFigures(snaps []*core.Snapshot, name, rule string, add func(string, *chart, error) error) error {
	last := snaps[len(snaps)-1]
	var fr []series
	for g, gn := range last.GroupNames {
		fr = append(fr, series{name: gn, xy: over(snaps, func(s *core.Snapshot) float64 {
			if g < len(s.GroupFrac) {
				return s.GroupFrac[g]
			}
			return 0
		})})
	}
	sel := last.Selected
	p, err := linePlot("group weight fractions, "+name, "outer iteration", "share of the total weight", fr)
	if err == nil {
		err = markIterate(p, sel, rule)
	}
	if err := add("fractions", p, err); err != nil {
		return err
	}
	// The histogram is of the weights export writes (u.npy): those of the
	// selected iterate (validation-selected, or the final one), else of
	// the last one.
	hist, histTitle := last, fmt.Sprintf("weights per group at the last iteration, %d (what u.npy holds)", last.Iter)
	for _, sn := range snaps {
		if sel > 0 && sn.Iter == sel && len(sn.Hist) > 0 {
			which := "validation-selected"
			if rule == "final" {
				which = "final"
			}
			hist, histTitle = sn, fmt.Sprintf("weights per group at the %s iterate %d of %d (what u.npy holds)", which, sel, last.Iter)
		}
	}
	var hs []series
	for g, h := range hist.Hist {
		xy := make(plotter.XYs, 0, 2*len(h))
		for b, c := range h {
			// Steps: a flat segment over each bin.
			xy = append(xy, plotter.XY{X: hist.HistEdges[b], Y: float64(c)}, plotter.XY{X: hist.HistEdges[b+1], Y: float64(c)})
		}
		hs = append(hs, series{name: hist.GroupNames[g], xy: xy})
	}
	p, err = linePlot(histTitle, "weight u = w·m", "samples", hs)
	if err == nil {
		p.Y.Tick.Marker = wholeTicks{} // counts
	}
	if err := add("histogram", p, err); err != nil {
		return err
	}
	risk := over(snaps, func(s *core.Snapshot) float64 { return s.OuterRisk })
	p, err = linePlot("outer risk, "+name, "outer iteration", "R", []series{{name: "outer risk", xy: risk}})
	if err == nil {
		logScale(p.Plot, risk)
		err = markIterate(p, sel, rule)
	}
	if err := add("risk", p, err); err != nil {
		return err
	}
	p, err = linePlot("worst-group accuracy of the inner model, "+name, "outer iteration", "accuracy", []series{
		{name: "validation", xy: over(snaps, func(s *core.Snapshot) float64 { return s.ValWorst })},
		{name: "test (not used for selection)", xy: over(snaps, func(s *core.Snapshot) float64 { return s.TestWorst }), dash: true},
	})
	if err == nil {
		err = markIterate(p, sel, rule)
	}
	if err := add("accuracy", p, err); err != nil {
		return err
	}
	if ev := evalCurves(snaps); ev != nil {
		p, err := linePlot("evaluation model trained on each iterate, "+name, "outer iteration", "accuracy", ev)
		if err == nil {
			err = markIterate(p, sel, rule)
		}
		if err := add("evaluation", p, err); err != nil {
			return err
		}
	}
	return nil
}

// figW and figH are a figure's size: at figure.DPI its PNG is 1200 x
// 800 pixels, sharp on a high-resolution screen.
const figW, figH = 8 * vg.Inch, 16 * vg.Inch / 3

// save writes c as base.png and base.svg, each atomically.
func save(c *chart, base string) ([]string, error) {
	return figure.Save(base, figW, figH, c.draw)
}

// figMargin is the blank border round a figure: its title and its
// labels never touch the image's edge.
const figMargin = 8 // points

// draw draws c on dc: inside a margin, the plot above and its legend
// below it, in rows of whole entries, centred, so that the legend never
// covers a curve.
func (c *chart) draw(dc draw.Canvas) {
	m := vg.Points(figMargin)
	dc = draw.Crop(dc, m, -m, m, -m)
	if len(c.keys) == 0 {
		c.Plot.Draw(dc)
		return
	}
	// One legend per entry, as gonum draws an entry; laid out in rows.
	type entry struct {
		l    plot.Legend
		w, h vg.Length
	}
	gap := vg.Points(14) // between entries in a row
	var rows [][]entry
	var widths []vg.Length
	eh := vg.Length(0)
	avail := dc.Max.X - dc.Min.X
	for _, k := range c.keys {
		l := figure.NewLegend()
		l.Left, l.Top = true, true
		l.Add(k.name, k.thumbs...)
		r := l.Rectangle(dc)
		e := entry{l, r.Max.X - r.Min.X, r.Max.Y - r.Min.Y}
		eh = max(eh, e.h)
		if n := len(rows); n == 0 || widths[n-1]+gap+e.w > avail {
			rows, widths = append(rows, nil), append(widths, -gap)
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], e)
		widths[len(widths)-1] += gap + e.w
	}
	rowGap, sep := vg.Points(3), vg.Points(8)
	band := vg.Length(len(rows))*eh + vg.Length(len(rows)-1)*rowGap + sep
	c.Plot.Draw(draw.Crop(dc, 0, 0, band, 0))
	y := dc.Min.Y + band - sep - eh // the first row's bottom
	for i, row := range rows {
		x := dc.Min.X + (avail-widths[i])/2
		for _, e := range row {
			e.l.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: y}, Max: vg.Point{X: x + e.w, Y: y + eh}}})
			x += e.w + gap
		}
		y -= eh + rowGap
	}
}

// wholeTicks marks an axis of whole numbers (outer iterations, counts):
// ticks at multiples of 1, 2 or 5 times a power of ten, at most 8 of them
// labelled, labelled without decimals.
type wholeTicks struct{}

func (wholeTicks) Ticks(min, max float64) []plot.Tick {
	span := max - min
	step := 1.0
	for p := 1.0; ; p *= 10 {
		found := false
		for _, m := range []float64{1, 2, 5} {
			if span/(m*p) <= 8 {
				step, found = m*p, true
				break
			}
		}
		if found {
			break
		}
	}
	var ticks []plot.Tick
	for v := math.Ceil(min/step) * step; v <= max+1e-9; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	return ticks
}

// PlotSweep writes the figures of the named sweeps' table (one sweep, or
// a grid split over several): methods.png, each row's mean test and test
// worst-group accuracy with ± sample sd bars, and where some method was
// run at two or more model widths, width.png, the accuracy-vs-width
// figure (the paper's Figure 2), and where some setting varies across
// the runs (a random search, a grid of models or sizes), searched.png,
// each such setting against the validation figure the table selects on
// (plotSearched).
func PlotSweep(runsDir, out string, names ...string) ([]string, error) {
	rows, err := Table(runsDir, names...)
	if err != nil {
		return nil, err
	}
	label := strings.Join(names, ", ")
	if len(rows) == 0 {
		return nil, fmt.Errorf("sweep %s has no finished runs yet (see maple sweep --name NAME --status)", label)
	}
	if err := os.MkdirAll(out, 0o700); err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	files, err := plotMethods(rows, label, out)
	if err != nil {
		return nil, err
	}
	width, err := plotWidths(rows, label, out)
	if files = append(files, width...); err != nil {
		return files, err
	}
	s, err := SweepSearched(runsDir, names...)
	if err != nil {
		return files, err
	}
	searched, err := plotSearched(s, label, out)
	return append(files, searched...), err
}

// plotMethods draws the table's rows as maple reproduce draws an
// experiment's summary.csv (methodsfig.Draw): one row of two
// horizontal bars each, mean test accuracy and test worst-group accuracy
// with ± one sample sd, named by the row's method and, where rows share
// it, by their sweep when the table spans several, else by the settings
// in brackets that tell them apart.
func plotMethods(rows []Row, sweep, out string) ([]string, error) {
	table := make([]map[string]string, len(rows))
	for i, r := range rows {
		method, settings := r.Method, ""
		if k := strings.Index(method, " ["); k >= 0 && strings.HasSuffix(method, "]") {
			method, settings = method[:k], strings.ReplaceAll(method[k+2:len(method)-1], ", ", "; ")
		}
		sd := func(m MeanSD) string {
			if m.Single {
				return ""
			}
			return strconv.FormatFloat(m.SD, 'f', 4, 64)
		}
		table[i] = map[string]string{"sweep": r.Sweep, "dataset": r.Dataset, "train_size": strconv.Itoa(r.TrainSize), "model": r.Model, "method": method, "settings": settings,
			"n": strconv.Itoa(r.N), "test_acc_mean": strconv.FormatFloat(r.TestAcc.Mean, 'f', 4, 64), "test_acc_sd": sd(r.TestAcc),
			"test_worst_mean": strconv.FormatFloat(r.TestWorst.Mean, 'f', 4, 64), "test_worst_sd": sd(r.TestWorst)}
	}
	png, svg, err := methodsfig.Draw(table, "Sweep "+sweep)
	if err != nil {
		return nil, err
	}
	return figure.Write(filepath.Join(out, methodsfig.Name), png, svg)
}

// plotWidths writes the accuracy-vs-width figure (the paper's Figure 2):
// mean test accuracy (with ± sample sd bars) against the first hidden
// width of the model, one line per method and training size; nothing
// when no method was run at two or more widths.
func plotWidths(rows []Row, sweep, out string) ([]string, error) {
	type key struct {
		method string
		size   int
	}
	pts := map[key]plotter.XYs{}
	errs := map[key]plotter.YErrors{}
	for _, r := range rows {
		w := models.Width(r.Model)
		if w <= 0 {
			continue
		}
		k := key{r.Method, r.TrainSize}
		pts[k] = append(pts[k], plotter.XY{X: float64(w), Y: r.TestAcc.Mean})
		errs[k] = append(errs[k], struct{ Low, High float64 }{r.TestAcc.SD, r.TestAcc.SD})
	}
	if !slices.ContainsFunc(slices.Collect(maps.Values(pts)), func(xy plotter.XYs) bool { return len(xy) > 1 }) {
		return nil, nil // one width per method: no line to draw
	}
	var keys []key
	for k := range pts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].method != keys[j].method {
			return keys[i].method < keys[j].method
		}
		return keys[i].size < keys[j].size
	})
	// One colour per method, one dash pattern per training size.
	methodIdx, sizeIdx := map[string]int{}, map[int]int{}
	for _, k := range keys {
		if _, ok := methodIdx[k.method]; !ok {
			methodIdx[k.method] = len(methodIdx)
		}
	}
	var sizes []int
	for _, k := range keys {
		if _, ok := sizeIdx[k.size]; !ok {
			sizeIdx[k.size] = 0
			sizes = append(sizes, k.size)
		}
	}
	sort.Ints(sizes)
	for i, n := range sizes {
		sizeIdx[n] = i
	}
	dashes := [][]vg.Length{nil, {vg.Points(5), vg.Points(3)}, {vg.Points(1), vg.Points(2)}}
	fig := newChart("test accuracy against model width, sweep " + sweep)
	p := fig.Plot
	p.X.Label.Text, p.Y.Label.Text = "hidden width", "test accuracy (%), selected on validation"
	p.Add(plotter.NewGrid())
	for _, k := range keys {
		xy, ye := pts[k], errs[k]
		idx := make([]int, len(xy))
		for j := range idx {
			idx[j] = j
		}
		sort.Slice(idx, func(a, b int) bool { return xy[idx[a]].X < xy[idx[b]].X })
		sx, se := make(plotter.XYs, len(xy)), make(plotter.YErrors, len(xy))
		for j, o := range idx {
			sx[j], se[j] = xy[o], ye[o]
		}
		ln, pt, err := plotter.NewLinePoints(sx)
		if err != nil {
			return nil, err
		}
		c := palette[methodIdx[k.method]%len(palette)]
		ln.Color, pt.Color = c, c
		ln.Dashes = dashes[sizeIdx[k.size]%len(dashes)]
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{sx, se})
		if err != nil {
			return nil, err
		}
		eb.Color = c
		p.Add(ln, pt, eb)
		size := "full training set"
		if k.size > 0 {
			size = fmt.Sprintf("%d training samples", k.size)
		}
		fig.addKey(fmt.Sprintf("%s, %s", k.method, size), ln, pt)
	}
	return save(fig, filepath.Join(out, "width"))
}
