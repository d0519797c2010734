package experiments

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Stat is a figure over seeds: mean, sample standard deviation (n-1), n,
// and the 95% interval of the mean (Student's t with n-1 degrees of
// freedom); SD and the interval are NaN for one value.
type Stat struct {
	Mean, SD float64
	N        int
	Lo, Hi   float64
}

// Describe returns the Stat of v.
func Describe(v []float64) Stat {
	s := Stat{N: len(v), SD: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	switch len(v) {
	case 0:
		s.Mean = math.NaN()
		return s
	case 1:
		s.Mean = v[0]
		return s
	}
	s.Mean, s.SD = stat.MeanStdDev(v, nil)
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(v) - 1)}.Quantile(0.975) * s.SD / math.Sqrt(float64(len(v)))
	s.Lo, s.Hi = s.Mean-half, s.Mean+half
	return s
}

// Welch is Welch's unequal-variance t-test of mean(a) - mean(b): the
// difference, t, the Welch-Satterthwaite degrees of freedom and the
// two-sided p-value; ok is false when either side has fewer than two
// values or both have no spread.
func Welch(a, b []float64) (diff, t, df, p float64, ok bool) {
	if len(a) < 2 || len(b) < 2 {
		return 0, 0, 0, 0, false
	}
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	na, nb := float64(len(a)), float64(len(b))
	sa, sb := va/na, vb/nb
	if sa+sb == 0 {
		return ma - mb, 0, 0, 0, false
	}
	diff = ma - mb
	t = diff / math.Sqrt(sa+sb)
	df = (sa + sb) * (sa + sb) / (sa*sa/(na-1) + sb*sb/(nb-1))
	p = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF(-math.Abs(t))
	return diff, t, df, p, true
}

// Holm returns Holm's step-down adjustment of a family of p-values, as
// R's p.adjust(p, "holm"): with the m tests in ascending order, the j-th
// smallest p times m-j+1, at most 1, raised to the largest of those
// before it. A NaN is a cell without a test: it stays NaN and is no
// test of the family.
func Holm(p []float64) []float64 {
	if p == nil {
		return nil
	}
	out := make([]float64, len(p))
	var idx []int
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	m, run := len(idx), 0.0
	for j, i := range idx {
		run = max(run, min(1, float64(m-j)*p[i]))
		out[i] = run
	}
	return out
}
