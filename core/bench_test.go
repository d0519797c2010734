package core

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
)

// cmnistSized returns random data of ColoredMNIST's sizes and shape
// (45000 train, 5000 val, 10000 test of 2x14x14) for timing only.
func cmnistSized() *dataset.Splits {
	rng := rand.New(rand.NewPCG(1, 1))
	mk := func(name string, n int, env int32) *dataset.Dataset {
		d := 392
		ds := &dataset.Dataset{Name: name, N: n, D: d, Shape: dataset.Shape{C: 2, H: 14, W: 14}, Classes: 2,
			EnvNames: []string{"e0", "e1", "test"}, GroupNames: []string{"a", "b", "c", "d"},
			X: make([]float32, n*d), Y: make([]int32, n), Env: make([]int32, n), Group: make([]int32, n),
			Attr: make([]int32, n), ID: make([]int64, n)}
		for i := range ds.X {
			ds.X[i] = rng.Float32()
		}
		for i := 0; i < n; i++ {
			ds.Y[i], ds.Attr[i] = int32(rng.IntN(2)), int32(rng.IntN(2))
			ds.Env[i], ds.Group[i], ds.ID[i] = env+int32(i%2)*(1-env/2), 2*ds.Y[i]+ds.Attr[i], int64(i)
		}
		return ds
	}
	return &dataset.Splits{Name: "cmnist-sized", Train: mk("train", 45000, 0), Val: mk("val", 5000, 0), Test: mk("test", 10000, 2)}
}

// BenchmarkOuterIteration times one MAPLE outer iteration at ColoredMNIST
// size (MLP 392-390-390-1, 100 inner steps, keep fraction 0.3) by phase,
// and the hypergradient in forward passes over the training set. It
// reports, measured in the same run, the inner step's GEMM rate
// (inner-step-gflops: the GEMM flops of forward plus backward over the
// kept samples, nets' TrainFLOPs, per second) and the rate of one
// 13500x392x390 sgemm of the BLAS in use (sgemm-gflops), and their ratio
// (inner/sgemm; the performance issue's target is at least 0.9).
func BenchmarkOuterIteration(b *testing.B) {
	sp := cmnistSized()
	set := DefaultSettings()
	set.Objective, set.Keep, set.Keep0, set.OuterIters = "irmv1", 0.3, 0.3, 1000
	e, err := newEngine[float32](sp, set)
	if err != nil {
		b.Fatal(err)
	}
	f := make([]float32, sp.Train.N)
	e.net.Forward(e.theta0, e.train.x, e.train.n, f)
	t0 := time.Now()
	e.net.Forward(e.theta0, e.train.x, e.train.n, f)
	fwd := time.Since(t0).Seconds()
	b.Logf("BLAS: %s", nets.BLAS())
	b.ResetTimer()
	var tm Timing
	for i := 0; i < b.N; i++ {
		s, err := e.iterate()
		if err != nil {
			b.Fatal(err)
		}
		tm.Inner += s.Seconds.Inner
		tm.OuterGrad += s.Seconds.OuterGrad
		tm.Hyper += s.Seconds.Hyper
	}
	b.StopTimer()
	n := float64(b.N)
	kept := 0.3 * float64(sp.Train.N)
	innerFlops := e.net.TrainFLOPs() * kept * float64(set.InnerSteps)
	rng := rand.New(rand.NewPCG(3, 3))
	m, k, nn := int(kept), 392, 390
	a, bb, cc := make([]float32, m*k), make([]float32, k*nn), make([]float32, m*nn)
	for i := range a {
		a[i] = rng.Float32()
	}
	for i := range bb {
		bb[i] = rng.Float32()
	}
	nets.Gemm(false, false, m, nn, k, 1, a, k, bb, nn, 0, cc, nn)
	t1, reps := time.Now(), 10
	for range reps {
		nets.Gemm(false, false, m, nn, k, 1, a, k, bb, nn, 0, cc, nn)
	}
	sgemm := 2 * float64(m*nn*k) * float64(reps) / time.Since(t1).Seconds() / 1e9
	inner := innerFlops / (tm.Inner / n) / 1e9
	b.ReportMetric((tm.Inner+tm.OuterGrad+tm.Hyper)/n, "outer-iter-s")
	b.ReportMetric(inner, "inner-step-gflops")
	b.ReportMetric(sgemm, "sgemm-gflops")
	b.ReportMetric(inner/sgemm, "inner/sgemm")
	b.ReportMetric(tm.Inner/n, "inner-s")
	b.ReportMetric(tm.OuterGrad/n, "outergrad-s")
	b.ReportMetric(tm.Hyper/n, "hypergrad-s")
	b.ReportMetric(fwd, "train-forward-s")
	b.ReportMetric(tm.Hyper/n/fwd, "hypergrad/forward")
}
