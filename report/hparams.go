package report

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/internal/figure"
	"github.com/maple-ood/maple/runs"
)

// A sweep's searched settings against the validation figure its table
// selects on: for each setting that varies across the sweep's finished
// runs (a random search's draws, a grid's models or sizes, runs of
// sweeps pooled by name), each run's value of it beside its final
// model's validation worst-group accuracy. The browser's sweep view and
// maple plot SWEEP draw it, one scatter per setting.

// Searched is a sweep's searched settings and its finished runs.
type Searched struct {
	Runs   []SearchedRun
	Params []Param // in the settings table's order; none when no setting varies
}

// SearchedRun is one finished run: its id, its cell, the validation
// worst-group accuracy of its final model (a fraction) and whether it
// is of the configuration the table picks.
type SearchedRun struct {
	ID, Cell string
	Val      float64
	Best     bool
}

// Param is one searched setting: its flag, its runs' points, and how
// its axis reads. A numeric setting's points are at their values (Log:
// on a log axis); another's (a model) at the index of their value in
// Categories.
type Param struct {
	Flag       string
	Points     []Point
	Categories []string // sorted; nil for a numeric setting
	Log        bool
}

// Point is a run's value of a setting: X on the setting's axis, Value as
// the run records it, Run its index in Searched.Runs.
type Point struct {
	Run   int
	X     float64
	Value string
	Val   float64
	Best  bool
}

// notSearched are the keys of runKeys that are never a searched setting:
// what a sweep compares (datasets, methods), not what it tunes, and what
// it repeats over.
var notSearched = map[string]bool{"dataset": true, "method": true, "seed": true, "sweep": true}

// SearchedOf finds the searched settings of finished runs: the settings
// (by flag, as maple table names them) that take two or more values
// among the runs of one dataset and method that read them (a setting
// that differs only between methods is their recipes', not searched),
// the seed, dataset and method left out,
// and a setting whose values equal another's run for run (a swept
// --models sets model and eval-model) given once. A run's point is its
// value and its final model's validation worst-group accuracy. The
// table's pick is marked: per dataset and method, the configuration
// (settings less the seed) with the highest mean of that figure over
// its seeds; a tie goes to the lower trial, then the earlier run.
func SearchedOf(done []runs.Finished) Searched {
	var s Searched
	keys := make([]map[string]string, len(done))
	brackets := make([]string, len(done))
	for i, f := range done {
		s.Runs = append(s.Runs, SearchedRun{ID: f.ID, Cell: f.Config.Cell, Val: f.Summary.Result.ValWorst})
		keys[i] = runKeys(f.Config)
		brackets[i] = f.Config.Dataset.Name + "|" + f.Config.MethodName()
	}
	markBest(done, s.Runs)
	seen := map[string]bool{} // the value columns given so far
	for _, st := range config.Table {
		flag := st.Flag
		if notSearched[flag] || seen[flag] {
			continue
		}
		seen[flag] = true
		values := map[string]map[string]bool{} // by dataset and method
		varies := false
		column := ""
		for i, k := range keys {
			if v := k[flag]; v != "" {
				b := brackets[i]
				if values[b] == nil {
					values[b] = map[string]bool{}
				}
				values[b][v] = true
				varies = varies || len(values[b]) > 1
			}
			column += k[flag] + "\x00"
		}
		if !varies || seen["\x00"+column] {
			continue
		}
		seen["\x00"+column] = true
		s.Params = append(s.Params, newParam(flag, keys, s.Runs))
	}
	return s
}

// newParam lays out a setting's points: at their numbers when every value
// is one (on a log axis when all are positive and the largest is ten
// times the smallest or more: rates drawn log-uniformly), else at their
// value's place among the sorted values.
func newParam(flag string, keys []map[string]string, rs []SearchedRun) Param {
	p := Param{Flag: flag}
	numeric := true
	lo, hi := math.Inf(1), math.Inf(-1)
	var vals []string
	for i, k := range keys {
		v := k[flag]
		if v == "" {
			continue // a run that does not read it (a baseline's search setting)
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			numeric = false
		}
		lo, hi = min(lo, x), max(hi, x)
		vals = append(vals, v)
		p.Points = append(p.Points, Point{Run: i, X: x, Value: v, Val: rs[i].Val, Best: rs[i].Best})
	}
	if numeric {
		p.Log = lo > 0 && hi >= 10*lo
		return p
	}
	slices.Sort(vals)
	p.Categories = slices.Compact(vals)
	for i := range p.Points {
		p.Points[i].X = float64(slices.Index(p.Categories, p.Points[i].Value))
	}
	return p
}

// markBest marks the runs of the table's pick (SearchedOf).
func markBest(done []runs.Finished, rs []SearchedRun) {
	type conf struct {
		runs  []int
		sum   float64
		trial int
	}
	confs := map[string]*conf{}
	var order []string
	for i, f := range done {
		h := f.Config.Hash(true)
		c := confs[h]
		if c == nil {
			c = &conf{trial: runs.TrialOf(f.Config.Cell)}
			confs[h] = c
			order = append(order, h)
		}
		c.runs = append(c.runs, i)
		c.sum += rs[i].Val
	}
	best := map[string]string{} // the best configuration by dataset and method
	for _, h := range order {
		c := confs[h]
		cfg := done[c.runs[0]].Config
		bracket := cfg.Dataset.Name + "|" + cfg.MethodName()
		b, ok := best[bracket]
		if !ok {
			best[bracket] = h
			continue
		}
		cb := confs[b]
		mean, bmean := c.sum/float64(len(c.runs)), cb.sum/float64(len(cb.runs))
		if mean > bmean || mean == bmean && cmp.Compare(c.trial, cb.trial) < 0 {
			best[bracket] = h
		}
	}
	for _, h := range best {
		for _, i := range confs[h].runs {
			rs[i].Best = true
		}
	}
}

// SweepSearched is SearchedOf the finished runs of the named sweeps.
func SweepSearched(runsDir string, names ...string) (Searched, error) {
	done, err := runs.Open(runsDir).ListFinished(func(c *runs.Config) bool { return c.Sweep != "" && inSweeps(names, c.Sweep) })
	if err != nil {
		return Searched{}, err
	}
	return SearchedOf(done), nil
}

// SearchedFigure is the file name (less its extension) of a sweep's
// searched settings against validation.
const SearchedFigure = "searched"

// plotSearched writes s as out/searched.png and .svg: a scatter per
// searched setting (small multiples, three to a row, sharing the y
// axis's range), each run a point at its value and its final model's
// validation worst-group accuracy, the table's pick a larger red
// triangle; nothing when no setting varies. Each file is written
// atomically.
func plotSearched(s Searched, sweep, out string) ([]string, error) {
	if len(s.Params) == 0 {
		return nil, nil
	}
	n := len(s.Params)
	cols := min(3, n)
	rows := (n + cols - 1) / cols
	lo, hi := 1.0, 0.0
	for _, r := range s.Runs {
		lo, hi = min(lo, r.Val), max(hi, r.Val)
	}
	pad := max(0.02, (hi-lo)*0.08)
	plots := make([][]*plot.Plot, rows)
	for i := range plots {
		plots[i] = make([]*plot.Plot, cols)
		for j := range plots[i] {
			plots[i][j] = figure.New() // an empty tile after the last setting
			plots[i][j].HideAxes()
		}
	}
	for k, p := range s.Params {
		pl, err := searchedPanel(p, 100*max(0, lo-pad), 100*min(1, hi+pad), k%cols == 0)
		if err != nil {
			return nil, err
		}
		plots[k/cols][k%cols] = pl
	}
	w := max(figW, vg.Length(cols)*3.6*vg.Inch)
	h := vg.Length(rows)*3*vg.Inch + 0.7*vg.Inch
	title := "validation worst-group accuracy against the searched settings, sweep " + sweep
	key := fmt.Sprintf("each point a finished run (%d), its final model's figure; red triangle: the configuration the table picks on validation", len(s.Runs))
	drawAll := func(dc draw.Canvas) {
		m := vg.Points(figMargin)
		dc = draw.Crop(dc, m, -m, m, -m)
		ts := figure.New().Title.TextStyle
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
		mid := (dc.Min.X + dc.Max.X) / 2
		dc.FillText(ts, vg.Point{X: mid, Y: dc.Max.Y}, title)
		ks := figure.New().X.Label.TextStyle
		ks.XAlign, ks.YAlign = draw.XCenter, draw.YTop
		ks.Font.Size = vg.Points(9)
		dc.FillText(ks, vg.Point{X: mid, Y: dc.Max.Y - vg.Points(18)}, key)
		body := draw.Crop(dc, 0, 0, 0, -vg.Points(36))
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(10), PadY: vg.Points(14)}
		canvases := plot.Align(plots, tiles, body)
		for i := range plots {
			for j := range plots[i] {
				if i*cols+j < n {
					plots[i][j].Draw(canvases[i][j])
				}
			}
		}
	}
	return figure.Save(filepath.Join(out, SearchedFigure), w, h, drawAll)
}

// searchedPanel is one setting's scatter, its y axis from lo to hi (%),
// labelled on the first panel of a row.
func searchedPanel(p Param, lo, hi float64, ylabel bool) (*plot.Plot, error) {
	pl := figure.New()
	pl.Title.Text = "--" + p.Flag
	pl.Y.Min, pl.Y.Max = lo, hi
	if ylabel {
		pl.Y.Label.Text = "val worst-group accuracy (%)"
	}
	pl.Add(plotter.NewGrid())
	var plain, best plotter.XYs
	for _, pt := range p.Points {
		xy := plotter.XY{X: pt.X, Y: 100 * pt.Val}
		if pt.Best {
			best = append(best, xy)
		} else {
			plain = append(plain, xy)
		}
	}
	switch {
	case p.Categories != nil:
		var ticks []plot.Tick
		for i, c := range p.Categories {
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: c})
		}
		pl.X.Tick.Marker = plot.ConstantTicks(ticks)
		pl.X.Min, pl.X.Max = -0.5, float64(len(p.Categories))-0.5
	case p.Log:
		pl.X.Scale, pl.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		pl.X.Label.Text = "(log scale)"
	}
	for _, set := range []struct {
		xy    plotter.XYs
		style draw.GlyphStyle
	}{
		{plain, draw.GlyphStyle{Color: palette[0], Radius: vg.Points(3), Shape: draw.CircleGlyph{}}},
		{best, draw.GlyphStyle{Color: palette[1], Radius: vg.Points(5), Shape: draw.PyramidGlyph{}}},
	} {
		if len(set.xy) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(set.xy)
		if err != nil {
			return nil, fmt.Errorf("plot --%s: %w", p.Flag, err)
		}
		sc.GlyphStyle = set.style
		pl.Add(sc)
	}
	if !p.Log && p.Categories == nil { // room round the points
		x0, x1 := math.Inf(1), math.Inf(-1)
		for _, pt := range p.Points {
			x0, x1 = min(x0, pt.X), max(x1, pt.X)
		}
		m := max((x1-x0)*0.08, math.Abs(x0)*0.05, 1e-9)
		pl.X.Min, pl.X.Max = x0-m, x1+m
	} else if p.Log {
		x0, x1 := math.Inf(1), math.Inf(-1)
		for _, pt := range p.Points {
			x0, x1 = min(x0, pt.X), max(x1, pt.X)
		}
		pl.X.Min, pl.X.Max = x0/1.25, x1*1.25
	}
	return pl, nil
}
