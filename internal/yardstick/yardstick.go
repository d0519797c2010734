// Package yardstick times maple's products against a reference that holds
// on a busy machine: an SGEMM of a given shape through the caller's
// product (nets.Gemm: the same library, and in the onednn build the same
// thread team, as the models' products), called between the timed operations so that both see the
// same load, and summarised by its best call. The operations themselves
// are summarised by their median. Benchmarks report both, with the
// reference's spread, and their ratio.
package yardstick

import (
	"math/rand/v2"
	"slices"
	"time"
)

// Spread summarises repeated timings of one operation as rates: the
// fastest call, the median and the slowest, in flops per second over 1e9
// (GFLOP/s), and the number of calls.
type Spread struct {
	Best, Median, Worst float64
	N                   int
}

// Rates summarises durations of calls of flops each; it is zero for no
// durations.
func Rates(flops float64, d []time.Duration) Spread {
	if len(d) == 0 {
		return Spread{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	rate := func(t time.Duration) float64 { return flops / t.Seconds() / 1e9 }
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Spread{Best: rate(s[0]), Median: rate(med), Worst: rate(s[len(s)-1]), N: len(s)}
}

// Median returns the median of d (0 for none).
func Median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

// Gemm computes the row-major float32 product C = A B, A m x k, B k x n
// (nets.Gemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n)).
type Gemm func(m, n, k int, a, b, c []float32)

// SGEMM is the reference: C = A B for a row-major m x k A and k x n B in
// float32.
type SGEMM struct {
	gemm    Gemm
	m, n, k int
	a, b, c []float32
	calls   []time.Duration
	total   time.Duration
}

// NewSGEMM allocates the reference's matrices (random A and B) and warms
// the backend up with one untimed call (a oneDNN primitive is built on
// its first call of a shape).
func NewSGEMM(gemm Gemm, m, n, k int) *SGEMM {
	rng := rand.New(rand.NewPCG(2, 2))
	r := &SGEMM{gemm: gemm, m: m, n: n, k: k, a: make([]float32, m*k), b: make([]float32, k*n), c: make([]float32, m*n)}
	for i := range r.a {
		r.a[i] = rng.Float32()
	}
	for i := range r.b {
		r.b[i] = rng.Float32()
	}
	r.gemm(m, n, k, r.a, r.b, r.c)
	return r
}

// Call runs the product once, records its time and returns it.
func (r *SGEMM) Call() time.Duration {
	t := time.Now()
	r.gemm(r.m, r.n, r.k, r.a, r.b, r.c)
	d := time.Since(t)
	r.calls = append(r.calls, d)
	r.total += d
	return d
}

// FLOPs is the product's flop count, 2 m n k.
func (r *SGEMM) FLOPs() float64 { return 2 * float64(r.m) * float64(r.n) * float64(r.k) }

// Rates summarises the calls so far.
func (r *SGEMM) Rates() Spread { return Rates(r.FLOPs(), r.calls) }

// Total is the time spent in the calls so far: what a caller that
// interleaved them with its own work subtracts from its wall time.
func (r *SGEMM) Total() time.Duration { return r.total }

// Calls reports how many calls were timed.
func (r *SGEMM) Calls() int { return len(r.calls) }

// Report is what a benchmark reports of an operation timed against the
// reference: the operation's median rate, the reference's best, median and
// worst, and the ratio of the operation's median to the reference's best
// (at most about 1 when the operation does the reference's work and
// more; above 1 it ran faster than the fastest reference call).
type Report struct {
	Op, Ref Spread
	// Paired is PairedRatio's figure (0 when the benchmark kept no
	// pairs).
	Paired float64
}

// PairedRatio is the median over calls of the operation's rate over the
// rate of the reference call made beside it (op[i] beside ref[i], each
// of opFlops and refFlops): adjacent calls see the same load, so on a
// machine whose load comes and goes this ratio holds where Op.Median /
// Ref.Best does not (a busy moment slows both calls of a pair). It is 0
// for no pairs; the pairs beyond the shorter slice are left out.
func PairedRatio(opFlops, refFlops float64, op, ref []time.Duration) float64 {
	n := min(len(op), len(ref))
	if n == 0 {
		return 0
	}
	r := make([]float64, n)
	for i := range r {
		r[i] = (opFlops / op[i].Seconds()) / (refFlops / ref[i].Seconds())
	}
	slices.Sort(r)
	if n%2 == 0 {
		return (r[n/2-1] + r[n/2]) / 2
	}
	return r[n/2]
}

// Ratio is Op.Median / Ref.Best (0 without reference calls).
func (r Report) Ratio() float64 {
	if r.Ref.Best == 0 {
		return 0
	}
	return r.Op.Median / r.Ref.Best
}

// Reporter is what a benchmark reports metrics to (*testing.B).
type Reporter interface{ ReportMetric(n float64, unit string) }

// ReportTo reports the operation's median rate as NAME-median-gflops,
// the reference's best, median and worst as sgemm-{best,median,worst}-
// gflops, the ratio as NAME/sgemm, and the paired ratio, where there is
// one, as NAME/sgemm-paired.
func (r Report) ReportTo(b Reporter, name string) {
	b.ReportMetric(r.Op.Median, name+"-median-gflops")
	b.ReportMetric(r.Ref.Best, "sgemm-best-gflops")
	b.ReportMetric(r.Ref.Median, "sgemm-median-gflops")
	b.ReportMetric(r.Ref.Worst, "sgemm-worst-gflops")
	b.ReportMetric(r.Ratio(), name+"/sgemm")
	if r.Paired > 0 {
		b.ReportMetric(r.Paired, name+"/sgemm-paired")
	}
}
