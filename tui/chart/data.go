package chart

import (
	"math"
	"slices"
	"strconv"

	"github.com/maple-ood/maple/core"
)

// The chart component's data: its lines and plots, the window of points
// shown, and what is computed on the values before they are drawn
// (smoothing, log scale, wall-time resampling, bands, rate marks).

// Line is one series of a chart: a value per point of the view's
// x axis (NaN where it has none).
type Line struct {
	Name   string
	Values []float64
	// times are the seconds of the search at each point (nil: the
	// view's times).
	Times []float64
	// lo and hi bound a band about the line (a group's mean ± sd, or its
	// least and greatest value), drawn dotted in the line's colour and
	// read out beside its value; nil: no band.
	Lo, Hi []float64
}

// Plot is one chart: a title and its lines; risk says the log
// scale applies to it (when all its values shown are positive).
type Plot struct {
	Title string
	Lines []Line
	Risk  bool
}

// xWindow is the points shown: indices lo to hi-1 of the x axis.
type xWindow struct{ lo, hi int }

// zoomIn halves the window (to at least minSpan points) about point at,
// kept inside the n points.
func (w xWindow) zoomIn(n, at int) xWindow {
	span := max(min(minSpan, n), (w.hi-w.lo)/2)
	if span >= w.hi-w.lo {
		return w
	}
	lo := min(max(at-span/2, 0), n-span)
	return xWindow{lo, lo + span}
}

// zoomOut doubles the window about its middle, up to all n points.
func (w xWindow) zoomOut(n int) xWindow {
	span := min(n, 2*(w.hi-w.lo))
	lo := min(max((w.lo+w.hi)/2-span/2, 0), n-span)
	return xWindow{lo, lo + span}
}

// pan moves the window by a quarter of its width per step (at least one
// point), kept inside the n points.
func (w xWindow) pan(n, steps int) xWindow {
	span := w.hi - w.lo
	lo := min(max(w.lo+steps*max(1, span/4), 0), n-span)
	return xWindow{lo, lo + span}
}

// EMA smooths values with an exponential moving average of factor a
// (s_t = a s_{t-1} + (1-a) v_t, starting at the first value, as
// TensorBoard's smoothing); NaN points stay NaN and leave the average
// as it was. a = 0 returns values.
func EMA(values []float64, a float64) []float64 {
	if a == 0 {
		return values
	}
	out := make([]float64, len(values))
	s, started := 0.0, false
	for i, v := range values {
		switch {
		case math.IsNaN(v):
			out[i] = v
			continue
		case !started:
			s, started = v, true
		default:
			s = a*s + (1-a)*v
		}
		out[i] = s
	}
	return out
}

// logValues returns the base-10 logarithms of values, NaN staying NaN;
// ok is false when a value is zero or negative (no log scale).
func logValues(values []float64) (out []float64, ok bool) {
	out = make([]float64, len(values))
	for i, v := range values {
		if v <= 0 {
			return nil, false
		}
		out[i] = math.Log10(v)
	}
	return out, true
}

// pointColumn is the column, within a plot of width cols, of point i of
// a window of n points (asciigraph stretches the points over the width).
func pointColumn(i, n, cols int) int {
	if n < 2 {
		return 0
	}
	return int(math.Round(float64(i) * float64(cols-1) / float64(n-1)))
}

// resample puts the values vs, taken at the increasing times ts, on
// cols evenly spaced times from t0 to t1. Each column stands for the
// times within half a column of its own. A column with points in that
// span takes one of their values, the one picked as largest-triangle-
// three-buckets picks it (Steinarsson 2013: the point that makes the
// largest triangle with the column before's value and the mean of the
// column after's points), so that a one-point peak or dip among many
// points per column is drawn, not stepped over; NaN points are left
// out, and a column of NaN points only is NaN (a point whose time is NaN
// is left out too). A column without points
// is linear between the points either side: NaN before the first or
// after the last time, or next to a NaN point.
func resample(ts, vs []float64, t0, t1 float64, cols int) []float64 {
	if slices.ContainsFunc(ts, math.IsNaN) { // a point without a time has no place on the axis
		var kt, kv []float64
		for i, t := range ts {
			if !math.IsNaN(t) {
				kt, kv = append(kt, t), append(kv, vs[i])
			}
		}
		ts, vs = kt, kv
	}
	out := make([]float64, cols)
	step := 0.0
	if cols > 1 {
		step = (t1 - t0) / float64(cols-1)
	}
	centre := func(k int) float64 { return t0 + float64(k)*step }
	// span is the points [a, b) whose times fall in column k's span.
	span := func(k, from int) (a, b int) {
		a = from
		for a < len(ts) && k > 0 && ts[a] < centre(k)-step/2 {
			a++
		}
		b = a
		for b < len(ts) && (k == cols-1 || ts[b] < centre(k)+step/2) {
			b++
		}
		return a, b
	}
	// mean is the mean time and value of the points [a, b) that are not NaN.
	mean := func(a, b int) (t, v float64, ok bool) {
		n := 0
		for i := a; i < b; i++ {
			if !math.IsNaN(vs[i]) {
				t, v, n = t+ts[i], v+vs[i], n+1
			}
		}
		return t / float64(n), v / float64(n), n > 0
	}
	prevT, prevV, prev := 0.0, 0.0, false // the column before's pick
	j, from := 0, 0
	for k := range out {
		t := centre(k)
		out[k] = math.NaN()
		a, b := span(k, from)
		from = b
		if a < b { // the column's own points
			na, nb := span(k+1, b)
			nextT, nextV, next := mean(na, nb)
			best, pick := -1.0, -1
			for i := a; i < b; i++ {
				if math.IsNaN(vs[i]) {
					continue
				}
				var area float64
				switch {
				case prev && next:
					area = math.Abs((prevT-nextT)*(vs[i]-prevV) - (prevT-ts[i])*(nextV-prevV))
				case prev:
					area = math.Abs(vs[i] - prevV)
				case next:
					area = math.Abs(vs[i] - nextV)
				}
				if area > best {
					best, pick = area, i
				}
			}
			prev = pick >= 0
			if prev {
				prevT, prevV, out[k] = ts[pick], vs[pick], vs[pick]
			}
			continue
		}
		for j+1 < len(ts) && ts[j+1] <= t {
			j++
		}
		switch {
		case len(ts) == 0 || t < ts[0] || t > ts[len(ts)-1]:
		case ts[j] == t || j+1 == len(ts):
			out[k] = vs[j]
		default:
			f := (t - ts[j]) / (ts[j+1] - ts[j])
			out[k] = vs[j] + f*(vs[j+1]-vs[j])
		}
		prevT, prevV, prev = t, out[k], !math.IsNaN(out[k])
	}
	return out
}

// timeTick formats seconds of the search for the x axis: tenths of a
// second under a minute, else as a duration.
func timeTick(v float64) string {
	if v < 60 {
		return strconv.FormatFloat(v, 'f', 1, 64) + "s"
	}
	return formatDuration(v)
}

// RateMarks are the iterations (as the snapshots number them) where the
// learning rates changed: those of snapshots whose rates differ from the
// previous snapshot's, and those where a recorded rate change is first
// used (a set_lr event at iteration i applies from i+1).
func RateMarks(s []*core.Snapshot, events []core.Event) []int {
	var out []int
	for i, x := range s {
		if i > 0 && x.LR != s[i-1].LR {
			out = append(out, x.Iter)
		}
	}
	for _, e := range events {
		if e.Kind == core.EventSetLR {
			out = append(out, e.Iter+1)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Band is what a group's band spans.
type Band int

const (
	BandSD     Band = iota // the mean ± one sample standard deviation (the default)
	BandMinMax             // the least and greatest value
)

// String names the band in titles and the status line.
func (k Band) String() string {
	if k == BandMinMax {
		return "min–max"
	}
	return "± sample sd"
}

// Describe says what the band spans, and what b switches it to.
func (k Band) Describe() string {
	if k == BandMinMax {
		return "least and greatest value (b: ± sample sd)"
	}
	return "mean ± sample sd (b: least and greatest value)"
}

// Spread returns, at each point, the mean of the series that have a
// value there and the band's bounds: the mean ± their sample standard
// deviation, or their least and greatest value. A point where one series
// has a value has a band of that value; where none has, NaN. The result
// is as long as the longest series.
func Spread(data [][]float64, kind Band) (mean, lo, hi []float64) {
	n := 0
	for _, d := range data {
		n = max(n, len(d))
	}
	mean, lo, hi = make([]float64, n), make([]float64, n), make([]float64, n)
	for t := range n {
		var vs []float64
		for _, d := range data {
			if t < len(d) && !math.IsNaN(d[t]) {
				vs = append(vs, d[t])
			}
		}
		if len(vs) == 0 {
			mean[t], lo[t], hi[t] = math.NaN(), math.NaN(), math.NaN()
			continue
		}
		var s float64
		for _, v := range vs {
			s += v
		}
		mu := s / float64(len(vs))
		mean[t], lo[t], hi[t] = mu, mu, mu
		switch {
		case len(vs) < 2:
		case kind == BandMinMax:
			lo[t], hi[t] = slices.Min(vs), slices.Max(vs)
		default:
			var ss float64
			for _, v := range vs {
				ss += (v - mu) * (v - mu)
			}
			sd := math.Sqrt(ss / float64(len(vs)-1))
			lo[t], hi[t] = mu-sd, mu+sd
		}
	}
	return mean, lo, hi
}
