package gmodel

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/nets"
)

// stepModels returns nets' mlp:390,390 and gorgonia's g:mlp:390,390 on
// 392 inputs with one output, and a backprop and a JVP of either on a
// batch of 13500 (the kept set of a ColoredMNIST search at keep 0.3),
// float32, from the same parameters.
func stepModels(b *testing.B) (ref, g models.Model[float32], backprop, jvp func(models.Model[float32])) {
	in, k, n := dataset.Shape{C: 392, H: 1, W: 1}, 1, 13500
	ns, _ := nets.ParseSpec("mlp:390,390")
	net, err := nets.New[float32](ns, nets.Shape{C: 392, H: 1, W: 1}, k)
	if err != nil {
		b.Fatal(err)
	}
	gm, err := New[float32]("g:mlp:390,390", in, k)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	theta := make([]float32, net.NumParams())
	net.Init(theta, rng)
	x, dir := randn[float32](n*in.C, rng), randn[float32](len(theta), rng)
	grad, f, tan := make([]float32, len(theta)), make([]float32, n*k), make([]float32, n*k)
	fill := func(lo, hi int, logits, cot []float32) { copy(cot, logits) }
	backprop = func(m models.Model[float32]) { m.Backprop(theta, x, n, fill, grad) }
	jvp = func(m models.Model[float32]) { m.JVP(theta, x, n, dir, f, tan) }
	return net, gm, backprop, jvp
}

// BenchmarkStep times one training step's products (forward, then the
// gradient of a loss) and one JVP of the search's model, 392-390-390-1
// on a batch of 13500 (the kept set of a ColoredMNIST search at keep
// 0.3), float32, for nets' mlp and gorgonia's g:mlp, each model called
// once before it is timed. Compare the two with benchstat; both use
// nets' BLAS (OpenBLAS with -tags openblas, oneDNN's products with
// -tags openblas,onednn).
func BenchmarkStep(b *testing.B) {
	ref, g, backprop, jvp := stepModels(b)
	for _, c := range []struct {
		name string
		m    models.Model[float32]
	}{{"nets", ref}, {"gorgonia", g}} {
		// One call of each first: buffers and graphs are built once per
		// model and batch size, and the figures are per call after that.
		backprop(c.m)
		jvp(c.m)
		b.Run("backprop/"+c.name, func(b *testing.B) {
			for b.Loop() {
				backprop(c.m)
			}
		})
		b.Run("jvp/"+c.name, func(b *testing.B) {
			for b.Loop() {
				jvp(c.m)
			}
		})
	}
}

// BenchmarkStepPaired times gorgonia against nets call by call: each
// round calls nets' mlp and g:mlp back to back, in alternating order, on
// the same batch as BenchmarkStep,
// and reports the median over rounds of the gorgonia call's time over
// the nets call's beside it (gorgonia/nets-paired) with each model's
// median time. On a machine whose load comes and goes, two calls made
// back to back see the same load, so the paired ratio holds where a
// ratio of two separate benchmarks does not.
func BenchmarkStepPaired(b *testing.B) {
	ref, g, backprop, jvp := stepModels(b)
	for _, pass := range []struct {
		name string
		call func(m models.Model[float32])
	}{
		{"backprop", backprop},
		{"jvp", jvp},
	} {
		pass.call(ref) // buffers, primitives and graphs are built on the first call
		pass.call(g)
		b.Run(pass.name, func(b *testing.B) {
			var tn, tg []time.Duration
			var ratio []float64
			for i := 0; b.Loop(); i++ {
				// Which model goes first alternates, so that neither
				// always follows the other's cache state.
				first, second := ref, g
				if i%2 == 1 {
					first, second = g, ref
				}
				t0 := time.Now()
				pass.call(first)
				t1 := time.Now()
				pass.call(second)
				t2 := time.Now()
				dn, dg := t1.Sub(t0), t2.Sub(t1)
				if i%2 == 1 {
					dn, dg = dg, dn
				}
				tn, tg = append(tn, dn), append(tg, dg)
				ratio = append(ratio, dg.Seconds()/dn.Seconds())
			}
			med := func(v []float64) float64 {
				slices.Sort(v)
				if n := len(v); n%2 == 0 {
					return (v[n/2-1] + v[n/2]) / 2
				}
				return v[len(v)/2]
			}
			secs := func(d []time.Duration) []float64 {
				out := make([]float64, len(d))
				for i, x := range d {
					out[i] = x.Seconds() * 1e3
				}
				return out
			}
			b.ReportMetric(med(ratio), "gorgonia/nets-paired")
			b.ReportMetric(med(secs(tn)), "nets-median-ms")
			b.ReportMetric(med(secs(tg)), "gorgonia-median-ms")
		})
	}
}
