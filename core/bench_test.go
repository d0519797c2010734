package core

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/internal/yardstick"
	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/nets"
)

// cmnistSized returns random data of ColoredMNIST's sizes and shape
// (45000 train, 5000 val, 10000 test of 2x14x14) for timing only.
func cmnistSized() *dataset.Splits { return sized(45000) }

// sized returns random data of ColoredMNIST's shape with n training
// samples (and 5000 val, 10000 test) for timing only.
func sized(n int) *dataset.Splits {
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
	return &dataset.Splits{Name: "cmnist-sized", Train: mk("train", n, 0), Val: mk("val", 5000, 0), Test: mk("test", 10000, 2)}
}

// outerTimes runs b.N outer iterations of e and returns the mean seconds
// per iteration of each phase, and the share of an iteration's whole wall
// time (its metrics included) not spent inside matrix products; the time
// of the reference products of st (nil for none), which run inside the
// inner phase, is taken out of both.
func outerTimes[T nets.Float](b *testing.B, e *engine[T], st *stepTimer[T]) (tm Timing, nonProduct float64) {
	b.Helper()
	var products, wall float64
	for i := 0; i < b.N; i++ {
		var r0 time.Duration
		if st != nil {
			r0 = st.ref.Total()
		}
		p0, t0 := nets.ProductTime(), time.Now()
		s, err := e.iterate()
		if err != nil {
			b.Fatal(err)
		}
		var ref float64
		if st != nil {
			st.abandon()
			ref = (st.ref.Total() - r0).Seconds()
		}
		wall += time.Since(t0).Seconds() - ref
		products += (nets.ProductTime() - p0).Seconds() - ref
		tm.Inner += (s.Seconds.Inner - ref) / float64(b.N)
		tm.OuterGrad += s.Seconds.OuterGrad / float64(b.N)
		tm.Hyper += s.Seconds.Hyper / float64(b.N)
	}
	return tm, 1 - products/wall
}

// stepTimer is a model that times the inner steps of the model it wraps:
// a step runs from one Backprop call to the next (its forward, loss,
// backward and SGD update), and after each Backprop the reference SGEMM
// runs once, timed on its own and left out of the step's time, so that
// the reference and the steps see the same load. The last step of an
// inner loop, which no Backprop follows, is not timed.
type stepTimer[T nets.Float] struct {
	models.Model[T]
	ref   *yardstick.SGEMM
	start time.Time     // the start of the step under way; zero for none
	refIn time.Duration // the reference's time within it
	steps []time.Duration
	pairs []time.Duration // the reference call within each step
}

func (s *stepTimer[T]) SetBF16(on bool) error { return models.SetBF16(s.Model, on) }

func (s *stepTimer[T]) Backprop(theta, x []T, n int, fill func(lo, hi int, logits, cot []T), grad []T) {
	now := time.Now()
	if !s.start.IsZero() {
		s.steps = append(s.steps, now.Sub(s.start)-s.refIn)
		s.pairs = append(s.pairs, s.refIn)
	}
	s.start = now
	s.Model.Backprop(theta, x, n, fill, grad)
	s.refIn = s.ref.Call()
}

// abandon forgets the step under way (the inner loop ended).
func (s *stepTimer[T]) abandon() { s.start = time.Time{} }

func (s *stepTimer[T]) Forward(theta, x []T, n int, logits []T) {
	s.abandon()
	s.Model.Forward(theta, x, n, logits)
}

func (s *stepTimer[T]) VJP(theta, x []T, n int, cot, grad []T) {
	s.abandon()
	s.Model.VJP(theta, x, n, cot, grad)
}

func (s *stepTimer[T]) JVP(theta, x []T, n int, dir, logits, tan []T) {
	s.abandon()
	s.Model.JVP(theta, x, n, dir, logits, tan)
}

// BenchmarkOuterIteration times one MAPLE outer iteration at ColoredMNIST
// size (MLP 392-390-390-1, 100 inner steps, keep fraction 0.3) by phase,
// and the hypergradient in forward passes over the training set, with the
// inner products in f32 and (onednn build, bf16 CPU) bf16. Against the
// yardstick (internal/yardstick: an SGEMM of the first layer's shape,
// 13500x392 times 392x390, through nets.Gemm, called after every inner
// step and left out of every time reported) it reports the inner step's
// GEMM rate (inner-step-median-gflops: the GEMM flops of forward plus
// backward over the kept samples, models.TrainFLOPs, over the median
// step), the reference's best, median and worst rate
// (sgemm-{best,median,worst}-gflops, their spread showing the load), and
// inner-step/sgemm, the median step's rate over the best reference call
// (the target is at least 0.95 in f32). Idle, the reference's spread is
// a few percent and the ratio reads as the step's efficiency; loaded, the
// best call and the median step are the least disturbed figures of each,
// and a ratio above 1 says that the load was too uneven to read it.
func BenchmarkOuterIteration(b *testing.B) {
	sp := cmnistSized()
	for _, prec := range []string{"f32", "bf16"} {
		b.Run(prec, func(b *testing.B) {
			set := priorDefaults()
			set.Objective, set.Keep, set.Keep0, set.OuterIters, set.Precision = "irmv1", 0.3, 0.3, 1000, prec
			if err := set.Check(); err != nil {
				b.Skip(err)
			}
			outerIteration(b, sp, set)
		})
	}
}

// sgemm is the yardstick's product, through nets.Gemm.
func sgemm(m, n, k int, a, b, c []float32) { nets.Gemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n) }

func outerIteration(b *testing.B, sp *dataset.Splits, set Settings) {
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
	kept := set.Keep * float64(sp.Train.N)
	innerFlops := models.TrainFLOPs(e.net) * kept
	st := &stepTimer[float32]{Model: e.net, ref: yardstick.NewSGEMM(sgemm, int(kept), 390, 392)}
	e.net = st
	b.ResetTimer()
	tm, nonProduct := outerTimes(b, e, st)
	b.StopTimer()
	rep := yardstick.Report{Op: yardstick.Rates(innerFlops, st.steps), Ref: st.ref.Rates(),
		Paired: yardstick.PairedRatio(innerFlops, st.ref.FLOPs(), st.steps, st.pairs)}
	b.ReportMetric(tm.Inner+tm.OuterGrad+tm.Hyper, "outer-iter-s")
	rep.ReportTo(b, "inner-step")
	b.ReportMetric(nonProduct, "non-product-share")
	b.ReportMetric(tm.Inner, "inner-s")
	b.ReportMetric(tm.OuterGrad, "outergrad-s")
	b.ReportMetric(tm.Hyper, "hypergrad-s")
	b.ReportMetric(fwd, "train-forward-s")
	b.ReportMetric(tm.Hyper/fwd, "hypergrad/forward")
}

// peakRSS reports the process's peak resident set (VmHWM) in MiB since
// the last resetPeakRSS.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// resetPeakRSS returns the memory the heap freed to the system and sets
// the peak resident set to the current one (Linux: 5 to clear_refs), so
// that peakRSS describes what follows.
func resetPeakRSS() {
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// BenchmarkOuterScaling times an outer iteration (keep 0.3, full batch
// unless a cell says) against the training size n.
//
// The embeddings cells (n=N/d=D/head=H) are flat features of D values,
// n training rows and n/10 validation and test rows each, 20 inner steps,
// a linear head or mlp:256: n of 20000, 160000 and 1000000 at D of 512
// and 2048. The cells whose features exceed 4 GiB (1000000 x 2048, 9.8
// GB with its validation and test rows) run only with
// MAPLE_BENCH_LARGE=1. Earlier cells (n=N/width=W/batch=B) are random
// data of ColoredMNIST's shape, 100 inner steps, MLP 392-W-W-1, at
// width 390 against n (full batch up to 45000; 500000 with minibatches
// of 1000) and against W at n = 10000.
//
// outer-iter-s is the wall seconds of an outer iteration (its validation
// and test evaluations included); per-1k-samples-s divides it by n/1000
// (constant when the cost is linear in n); peak-rss-MiB is the process's
// peak resident set during the cell, its data included (the cell's data
// are built after the previous cell's are freed; run one cell per
// process, -bench 'OuterScaling/n=160000/d=512/', for a figure that
// nothing before it touched).
func BenchmarkOuterScaling(b *testing.B) {
	type cell struct {
		n, d, width, batch, steps int
		head                      string
	}
	var cells []cell
	for _, n := range []int{20000, 160000, 1000000} {
		for _, d := range []int{512, 2048} {
			for _, head := range []string{"linear", "mlp:256"} {
				cells = append(cells, cell{n: n, d: d, steps: 20, head: head})
			}
		}
	}
	cells = append(cells, cell{n: 5000, width: 390}, cell{n: 10000, width: 390}, cell{n: 45000, width: 390},
		cell{n: 500000, width: 390, batch: 1000}, cell{n: 10000, width: 64}, cell{n: 10000, width: 128}, cell{n: 10000, width: 256})
	large := os.Getenv("MAPLE_BENCH_LARGE") != ""
	for _, c := range cells {
		name := fmt.Sprintf("n=%d/width=%d/batch=%d", c.n, c.width, c.batch)
		if c.d > 0 {
			name = fmt.Sprintf("n=%d/d=%d/head=%s", c.n, c.d, c.head)
		}
		b.Run(name, func(b *testing.B) {
			set := priorDefaults()
			set.Objective, set.Keep, set.Keep0, set.OuterIters = "irmv1", 0.3, 0.3, 1000
			set.Model, set.InnerBatch = fmt.Sprintf("mlp:%d,%d", c.width, c.width), c.batch
			var sp *dataset.Splits
			resetPeakRSS()
			if c.d > 0 {
				if bytes := 4 * 1.2 * float64(c.n) * float64(c.d); bytes > 4<<30 && !large {
					b.Skipf("%.1f GB of features: set MAPLE_BENCH_LARGE=1 to run it", bytes/1e9)
				}
				set.Model, set.InnerSteps = c.head, c.steps
				sp = flatSplits(c.n, c.n/10, c.d)
			} else {
				sp = sized(c.n)
			}
			e, err := newEngine[float32](sp, set)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			t0 := time.Now()
			tm, _ := outerTimes(b, e, nil)
			wall := time.Since(t0).Seconds() / float64(b.N)
			b.StopTimer()
			b.ReportMetric(wall, "outer-iter-s")
			b.ReportMetric(wall/(float64(c.n)/1000), "per-1k-samples-s")
			b.ReportMetric(tm.Inner, "inner-s")
			b.ReportMetric(tm.Hyper, "hypergrad-s")
			b.ReportMetric(peakRSS(), "peak-rss-MiB")
			b.ReportMetric(float64(4*(len(sp.Train.X)+len(sp.Val.X)+len(sp.Test.X)))/(1<<20), "data-MiB")
		})
	}
}
