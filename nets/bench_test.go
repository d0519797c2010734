package nets

import (
	"bufio"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/maple-ood/maple/internal/yardstick"
)

// The paper's ColoredMNIST MLP: 392 -> 390 -> 390 -> 1.
const benchSpec = "mlp:390,390"

var benchIn = Shape{C: 2, H: 14, W: 14}

func benchSetup(b *testing.B, n int) (*Net[float32], []float32, []float32, []int32) {
	m := MustNew[float32](benchSpec, benchIn, 1)
	rng := rand.New(rand.NewPCG(1, 1))
	theta := make([]float32, m.NumParams())
	m.Init(theta, rng)
	x := make([]float32, n*benchIn.Size())
	for i := range x {
		x[i] = rng.Float32()
	}
	y := make([]int32, n)
	for i := range y {
		y[i] = int32(rng.IntN(2))
	}
	return m, theta, x, y
}

// gemmFLOPs returns the forward and backward GEMM flops of one sample:
// backward computes every weight gradient and every input gradient but the
// network input's.
func gemmFLOPs(m *Net[float32]) (fwd, bwd float64) {
	for i, l := range m.layers {
		d := l.(*dense[float32])
		f := 2 * float64(d.nin*d.nout)
		fwd += f
		bwd += f
		if i > 0 {
			bwd += f
		}
	}
	return fwd, bwd
}

// peakRSS reports the process's peak resident set (VmHWM) in MiB.
func peakRSS() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// sgemm is the reference product, through Gemm.
func sgemm(m, n, k int, a, b, c []float32) { Gemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n) }

func gflops(b *testing.B, flops float64) {
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/op")
}

// againstSGEMM runs op b.N times, each call after one call of an SGEMM of
// the first layer's shape for the same batch (n x 392 times 392 x 390),
// so that the reference and the operation see the same load, and reports
// the operation's mean and median rates (op of flops each), the
// reference's best, median and worst, and the median over the best
// (yardstick.Report). Only op's calls count in ns/op.
func againstSGEMM(b *testing.B, n int, flops float64, op func()) {
	ref := yardstick.NewSGEMM(sgemm, n, 390, benchIn.Size())
	op() // warm-up: buffers, primitives
	var calls, pairs []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		pairs = append(pairs, ref.Call())
		b.StartTimer()
		t := time.Now()
		op()
		calls = append(calls, time.Since(t))
	}
	b.StopTimer()
	gflops(b, flops)
	yardstick.Report{Op: yardstick.Rates(flops, calls), Ref: ref.Rates(), Paired: yardstick.PairedRatio(flops, ref.FLOPs(), calls, pairs)}.ReportTo(b, "op")
}

// BenchmarkSGEMM measures the raw SGEMM of the BLAS in use at the shape of
// the MLP's first layer for 50000 samples (50000x392 times 392x390) and at
// a square 2048.
func BenchmarkSGEMM(b *testing.B) {
	for _, c := range []struct {
		name    string
		m, n, k int
	}{{"50000x392x390", 50000, 390, 392}, {"2048x2048x2048", 2048, 2048, 2048}} {
		b.Run(c.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(2, 2))
			a, bb, cc := make([]float32, c.m*c.k), make([]float32, c.k*c.n), make([]float32, c.m*c.n)
			for i := range a {
				a[i] = rng.Float32()
			}
			for i := range bb {
				bb[i] = rng.Float32()
			}
			b.Logf("BLAS: %s", BLAS())
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				Gemm(false, false, c.m, c.n, c.k, 1, a, c.k, bb, c.n, 0, cc, c.n)
			}
			gflops(b, 2*float64(c.m)*float64(c.n)*float64(c.k))
		})
	}
}

func BenchmarkMLPForward(b *testing.B) {
	for _, n := range []int{5000, 50000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			m, theta, x, _ := benchSetup(b, n)
			logits := make([]float32, n)
			fwd, _ := gemmFLOPs(m)
			againstSGEMM(b, n, fwd*float64(n), func() { m.Forward(theta, x, n, logits) })
		})
	}
}

// BenchmarkMLPForwardBackward is one training step's gradient: forward,
// BCE loss derivative, backward.
func BenchmarkMLPForwardBackward(b *testing.B) {
	for _, n := range []int{5000, 50000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			m, theta, x, y := benchSetup(b, n)
			grad := make([]float32, m.NumParams())
			fill := func(lo, hi int, logits, cot []float32) {
				Losses(BCE, logits, y[lo:hi], 1, nil, cot)
			}
			fwd, bwd := gemmFLOPs(m)
			againstSGEMM(b, n, (fwd+bwd)*float64(n), func() { m.Backprop(theta, x, n, fill, grad) })
			b.ReportMetric(peakRSS(), "peak-MiB")
		})
	}
}

// BenchmarkMLPForwardJVP is the forward pass with the tangent of the logits
// in one parameter direction, as the hypergradient needs.
func BenchmarkMLPForwardJVP(b *testing.B) {
	const n = 50000
	m, theta, x, _ := benchSetup(b, n)
	dir := make([]float32, m.NumParams())
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range dir {
		dir[i] = float32(rng.NormFloat64())
	}
	logits, tan := make([]float32, n), make([]float32, n)
	fwd, _ := gemmFLOPs(m)
	// Tangent GEMMs: X dW for the first layer, dH W + H dW after it.
	tflops := fwd + 2*fwd - 2*392*390
	againstSGEMM(b, n, tflops*float64(n), func() { m.JVP(theta, x, n, dir, logits, tan) })
}

// BenchmarkProductShapes times each matrix product of an inner step at
// ColoredMNIST size (13500 kept rows, 392-390-390-1) alone, paired with
// the reference SGEMM of the first layer's forward shape as the inner
// step is: how fast the step could be were it nothing but its products.
// The backward's weight gradients reduce over the 13500 rows (Xᵀ δ) and
// its input gradients multiply by a transposed weight (δ Wᵀ): shapes a
// library may run slower than the reference's.
func BenchmarkProductShapes(b *testing.B) {
	const n = 13500
	rng := rand.New(rand.NewPCG(4, 4))
	fill := func(k int) []float32 {
		v := make([]float32, k)
		for i := range v {
			v[i] = rng.Float32() - 0.5
		}
		return v
	}
	x, h, d, w1, w2 := fill(n*392), fill(n*390), fill(n*390), fill(392*390), fill(390*390)
	out := make([]float32, n*392)
	for _, c := range []struct {
		name    string
		tA, tB  bool
		m, p, k int // out is m x p, the reduction k long
		a, bb   []float32
		lda     int
		ldb     int
	}{
		{"forward-1/X.W1", false, false, n, 390, 392, x, w1, 392, 390},
		{"forward-2/H.W2", false, false, n, 390, 390, h, w2, 390, 390},
		{"input-grad-2/D.W2t", false, true, n, 390, 390, d, w2, 390, 390},
		{"weight-grad-2/Ht.D", true, false, 390, 390, n, h, d, 390, 390},
		{"weight-grad-1/Xt.D", true, false, 392, 390, n, x, d, 392, 390},
	} {
		b.Run(c.name, func(b *testing.B) {
			flops := 2 * float64(c.m) * float64(c.p) * float64(c.k)
			againstSGEMM(b, n, flops, func() {
				Gemm(c.tA, c.tB, c.m, c.p, c.k, 1, c.a, c.lda, c.bb, c.ldb, 0, out, c.p)
			})
		})
	}
}
