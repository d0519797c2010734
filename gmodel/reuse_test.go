package gmodel

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
)

// outputs is every output of one call of each pass on one input.
func outputs[T nets.Float](m *Model[T], theta, x, cot, dir []T, n int) [][]T {
	k := m.k
	f, g, v, jl, jt := make([]T, n*k), make([]T, m.n), make([]T, m.n), make([]T, n*k), make([]T, n*k)
	bl, bc := make([]T, n*k), make([]T, n*k)
	m.Forward(theta, x, n, f)
	m.Backprop(theta, x, n, func(lo, hi int, logits, c []T) {
		copy(bl[lo*k:hi*k], logits)
		for i := range c {
			c[i] = logits[i] * cot[lo*k+i]
		}
		copy(bc[lo*k:hi*k], c)
	}, g)
	m.VJP(theta, x, n, cot, v)
	m.JVP(theta, x, n, dir, jl, jt)
	return [][]T{f, g, v, jl, jt, bl, bc}
}

// TestGraphsReused checks that a model whose graphs have run on other
// inputs (and so write into the memory of the last run) gives, bit for
// bit, what a new model gives.
func TestGraphsReused(t *testing.T) {
	for _, c := range []struct {
		spec string
		in   dataset.Shape
	}{{"g:mlp:6,5", dataset.Shape{C: 7, H: 1, W: 1}}, {"g:cnn:2,3", dataset.Shape{C: 1, H: 8, W: 8}}, {"g:resnet:2,1", dataset.Shape{C: 1, H: 8, W: 8}}} {
		t.Run(c.spec, func(t *testing.T) {
			const k, n = 2, 11
			rng := rand.New(rand.NewPCG(5, 6))
			used, err := New[float64](c.spec, c.in, k)
			if err != nil {
				t.Fatal(err)
			}
			draw := func() (theta, x, cot, dir []float64) {
				theta = make([]float64, used.n)
				used.Init(theta, rng)
				return theta, randn[float64](n*c.in.Size(), rng), randn[float64](n*k, rng), randn[float64](used.n, rng)
			}
			for range 2 {
				th, x, cot, dir := draw()
				outputs(used, th, x, cot, dir, n)
			}
			th, x, cot, dir := draw()
			got := outputs(used, th, x, cot, dir, n)
			fresh, err := New[float64](c.spec, c.in, k)
			if err != nil {
				t.Fatal(err)
			}
			want := outputs(fresh, th, x, cot, dir, n)
			for i, name := range []string{"forward", "backprop", "vjp", "jvp logits", "jvp tangent", "backprop logits", "backprop cotangents"} {
				if !slices.Equal(got[i], want[i]) {
					t.Errorf("%s after reuse differs from a new model's (relative %g)", name, relDiff(got[i], want[i]))
				}
			}
		})
	}
}
