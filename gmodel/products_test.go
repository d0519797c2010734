package gmodel

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/blas"
	G "gorgonia.org/gorgonia"

	"github.com/maple-ood/maple/dataset"
)

// countingBLAS is netsBLAS counting the multiply-adds of the float32
// products gorgonia asks of it.
type countingBLAS struct {
	netsBLAS
	madds *atomic.Int64
}

func (c countingBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, cc []float32, ldc int) {
	c.madds.Add(int64(m) * int64(n) * int64(k))
	c.netsBLAS.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc)
}

func (c countingBLAS) Sgemv(tA blas.Transpose, m, n int, alpha float32, a []float32, lda int, x []float32, incX int, beta float32, y []float32, incY int) {
	c.madds.Add(int64(m) * int64(n))
	c.netsBLAS.Float32.Sgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
}

func (c countingBLAS) Sger(m, n int, alpha float32, x []float32, incX int, y []float32, incY int, a []float32, lda int) {
	c.madds.Add(int64(m) * int64(n))
	c.netsBLAS.Float32.Sger(m, n, alpha, x, incX, y, incY, a, lda)
}

// TestBackpropProductsAnyArch: for any architecture a backprop asks
// less than three times its forward pass's multiply-adds of the BLAS
// (the forward pass, the weights' gradients and the activations'
// gradients, each the size of the forward's products, less the input's
// gradient); with the input's gradient a chain of products asks exactly
// three times. The count is process-wide (G.Use): no test of this
// package may run in parallel with it.
func TestBackpropProductsAnyArch(t *testing.T) {
	madds := countProducts(t)
	img := dataset.Shape{C: 1, H: 8, W: 8}
	for _, c := range []struct {
		spec string
		in   dataset.Shape
	}{
		{"g:mlp:6,5", dataset.Shape{C: 7, H: 1, W: 1}},
		{"g:cnn:2,3", img},
		{"g:resnet:2,1", img},
	} {
		t.Run(c.spec, func(t *testing.T) {
			const rows, k = 20, 2
			m, err := New[float32](c.spec, c.in, k)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(5, 6))
			theta := make([]float32, m.NumParams())
			m.Init(theta, rng)
			x := randn[float32](rows*c.in.Size(), rng)
			logits, grad := make([]float32, rows*k), make([]float32, len(theta))
			fill := func(lo, hi int, logits, cot []float32) { copy(cot, logits) }
			m.Forward(theta, x, rows, logits)
			m.Backprop(theta, x, rows, fill, grad)
			madds.Store(0)
			m.Forward(theta, x, rows, logits)
			fwd := madds.Load()
			madds.Store(0)
			m.Backprop(theta, x, rows, fill, grad)
			if bp := madds.Load(); fwd == 0 || bp >= 3*fwd {
				t.Errorf("a backprop call asks %d multiply-adds, the forward pass %d: want under 3x (the input's gradient computed?)", bp, fwd)
			}
		})
	}
}

// countProducts counts the multiply-adds of the float32 products
// gorgonia asks of the BLAS until the test ends.
func countProducts(t *testing.T) *atomic.Int64 {
	var madds atomic.Int64
	G.Use(countingBLAS{netsBLAS: newNetsBLAS(), madds: &madds})
	t.Cleanup(func() { G.Use(newNetsBLAS()) })
	return &madds
}

// TestBackpropProducts counts the multiply-adds of the products one
// Backprop and one JVP call of g:mlp ask of the BLAS: as many as nets'
// MLP computes (a backprop: the forward pass, the weights' gradients and
// the hidden activations' gradients, not the input's, which no caller
// reads; a JVP: the forward pass and its tangent, nets' forward mode). Backprop once
// computed the input's gradient too (gorgonia's Backpropagate
// differentiates every input of an op, and the machine ran the whole
// graph): a sixth of its products at 392-390-390-1.
func TestBackpropProducts(t *testing.T) {
	madds := countProducts(t)
	for _, c := range []struct {
		name   string
		spec   string
		in, k  int
		hidden []int
		rows   int
	}{
		{"two hidden layers, one output", "g:mlp:390,390", 392, 1, []int{390, 390}, 300},
		{"one hidden layer, three outputs", "g:mlp:16", 5, 3, []int{16}, 50},
		{"three hidden layers, two chunks", "g:mlp:8,6,4", 7, 2, []int{8, 6, 4}, 2100},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := New[float32](c.spec, dataset.Shape{C: c.in, H: 1, W: 1}, c.k)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(3, 4))
			theta := make([]float32, m.NumParams())
			m.Init(theta, rng)
			x, dir := randn[float32](c.rows*c.in, rng), randn[float32](len(theta), rng)
			grad, f, tan := make([]float32, len(theta)), make([]float32, c.rows*c.k), make([]float32, c.rows*c.k)
			fill := func(lo, hi int, logits, cot []float32) { copy(cot, logits) }

			// forward: rows x (in h1 + h1 h2 + ... + hL k); the hidden
			// activations' gradients: the same less the first layer's.
			widths := append(append([]int{c.in}, c.hidden...), c.k)
			var fwd, first int64
			for i := 0; i+1 < len(widths); i++ {
				fwd += int64(c.rows) * int64(widths[i]) * int64(widths[i+1])
			}
			first = int64(c.rows) * int64(widths[0]) * int64(widths[1])

			madds.Store(0)
			m.Backprop(theta, x, c.rows, fill, grad)
			if got, want := madds.Load(), 2*fwd+fwd-first; got != want {
				t.Errorf("a backprop call's products: %d multiply-adds, want %d (forward %d, weights' gradients %d, hidden gradients %d; the input's gradient would add %d)",
					got, want, fwd, fwd, fwd-first, first)
			}
			madds.Store(0)
			m.JVP(theta, x, c.rows, dir, f, tan)
			// the tangent: each layer's direction times its input, and its
			// weights times the tangent of its input (none for the data).
			if got, want := madds.Load(), fwd+fwd+fwd-first; got != want {
				t.Errorf("a JVP call's products: %d multiply-adds, want %d (forward %d, tangent %d)", got, want, fwd, 2*fwd-first)
			}
		})
	}
}
