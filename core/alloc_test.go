package core

import (
	"runtime"
	"strings"
	"testing"

	"github.com/maple-ood/maple/nets"
)

// TestInnerStepAllocations checks that an inner step allocates no buffers:
// the bytes allocated by a 41-step inner training less those of a 1-step
// one, per extra step, stay under 16 KiB (one activation buffer here is
// 1 MiB; what remains is goroutine and closure bookkeeping), or 128 KiB
// with the pure-Go BLAS, whose parallel SGEMM allocates about 60 KiB of
// its own per step; on data big enough for the elementwise passes to run
// in parallel.
func TestInnerStepAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("sizeable data")
	}
	sp := sized(4000)
	for _, batch := range []int{0, 500} {
		set := priorDefaults()
		set.Model, set.InnerBatch = "mlp:64,64", batch
		allocs := func(steps int) float64 {
			set.InnerSteps = steps
			e, err := newEngine[float32](sp, set)
			if err != nil {
				t.Fatal(err)
			}
			u := make([]float64, sp.Train.N)
			for i := range u {
				u[i] = 1
			}
			if _, err := e.innerTrain(e.theta0, u, 0.1); err != nil { // warm the buffers
				t.Fatal(err)
			}
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			if _, err := e.innerTrain(e.theta0, u, 0.1); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&m1)
			return float64(m1.TotalAlloc - m0.TotalAlloc)
		}
		per := (allocs(41) - allocs(1)) / 40
		limit := 16 << 10
		if strings.HasPrefix(nets.BLAS(), "gonum") {
			limit = 128 << 10
		}
		t.Logf("%s, inner batch %d: %.0f bytes allocated per inner step", nets.BLAS(), batch, per)
		if per > float64(limit) {
			t.Errorf("inner batch %d: %.0f bytes allocated per inner step, want at most %d KiB", batch, per, limit>>10)
		}
	}
}

// TestFullBatchTrainsOnTheSplit: full-batch inner training over every
// training row trains on the training split's own matrix, where it
// gathered a copy of it (a second copy of the largest array a run holds:
// a 960 MB feature file made a run of 2 GB and more).
func TestFullBatchTrainsOnTheSplit(t *testing.T) {
	sp := sized(4000)
	set := priorDefaults()
	set.Model, set.InnerSteps = "linear", 1
	e, err := newEngine[float32](sp, set)
	if err != nil {
		t.Fatal(err)
	}
	u := make([]float64, sp.Train.N)
	for i := range u {
		u[i] = 1
	}
	// The network's own buffers (a chunk's activations and gradients)
	// are allocated once, by a first pass.
	e.net.Backprop(e.theta0, e.train.x, e.train.n, func(lo, hi int, f, cot []float32) { clear(cot) }, make([]float32, len(e.theta0)))
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	if _, err := e.innerTrain(e.theta0, u, 0.1); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	matrix := 4 * len(sp.Train.X)
	if got := m1.TotalAlloc - m0.TotalAlloc; got > uint64(matrix/4) {
		t.Errorf("a full-batch inner training allocated %d bytes, the training matrix is %d: want at most a quarter of it", got, matrix)
	}
}
