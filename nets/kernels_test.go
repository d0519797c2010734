package nets

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestExportedKernels checks BiasAct, Gate and ColSums against plain
// loops, in place and into another slice, on a batch small enough to run
// in one worker and one large enough to be split.
func TestExportedKernels(t *testing.T) {
	for _, c := range []struct {
		name string
		n, m int
	}{{"one worker", 3, 5}, {"split", 4096, 33}} {
		t.Run(c.name, func(t *testing.T) {
			testKernels[float32](t, c.n, c.m)
			testKernels[float64](t, c.n, c.m)
		})
	}
}

func testKernels[T Float](t *testing.T, n, m int) {
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	draw := func(k int) []T {
		v := make([]T, k)
		for i := range v {
			v[i] = T(rng.NormFloat64())
		}
		return v
	}
	y, b, g := draw(n*m), draw(m), draw(n*m)
	for _, relu := range []bool{false, true} {
		want := make([]T, n*m)
		for i := range want {
			want[i] = y[i] + b[i%m]
			if relu && want[i] < 0 {
				want[i] = 0
			}
		}
		got := make([]T, n*m)
		BiasAct(got, y, b, n, m, relu)
		inPlace := slices.Clone(y)
		BiasAct(inPlace, inPlace, b, n, m, relu)
		if !slices.Equal(got, want) || !slices.Equal(inPlace, want) {
			t.Errorf("%T BiasAct relu %v differs from the loop", y[0], relu)
		}
	}
	gate := make([]T, n*m)
	for i := range gate {
		if y[i] > 0 {
			gate[i] = g[i]
		}
	}
	got := make([]T, n*m)
	Gate(got, g, y, n, m)
	inPlace := slices.Clone(g)
	Gate(inPlace, inPlace, y, n, m)
	if !slices.Equal(got, gate) || !slices.Equal(inPlace, gate) {
		t.Errorf("%T Gate differs from the loop", y[0])
	}
	var part [][]T
	for round := range 2 { // the second round reuses the partials
		s := draw(m)
		want := slices.Clone(s)
		for i, v := range y {
			want[i%m] += v
		}
		part = ColSums(s, y, n, m, part)
		if d := maxAbsDiff(s, want); d > 1e-3 {
			t.Errorf("%T ColSums round %d differs from the loop by %g", y[0], round, d)
		}
	}
}

func maxAbsDiff[T Float](a, b []T) float64 {
	var d float64
	for i := range a {
		d = max(d, float64(a[i]-b[i]), float64(b[i]-a[i]))
	}
	return d
}
