package core

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/models"
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

// flatSized returns random flat features, n training rows of d values
// (and 1000 validation and 1000 test rows), for memory and timing only.
func flatSized(n, d int) *dataset.Splits { return flatSplits(n, 1000, d) }

// flatSplits returns random flat features: n training rows and m
// validation and m test rows of d values.
func flatSplits(n, m, d int) *dataset.Splits {
	rng := rand.New(rand.NewPCG(2, 2))
	mk := func(name string, n int, env int32) *dataset.Dataset {
		ds := &dataset.Dataset{Name: name, N: n, D: d, Shape: dataset.Shape{C: d, H: 1, W: 1}, Classes: 2,
			EnvNames: []string{"e0", "e1", "test"}, GroupNames: []string{"a", "b", "c", "d"},
			X: make([]float32, n*d), Y: make([]int32, n), Env: make([]int32, n), Group: make([]int32, n),
			Attr: make([]int32, n), ID: make([]int64, n)}
		for i := range ds.X {
			ds.X[i] = float32(rng.NormFloat64())
		}
		for i := 0; i < n; i++ {
			ds.Y[i], ds.Attr[i] = int32(rng.IntN(2)), int32(rng.IntN(2))
			ds.Env[i], ds.Group[i], ds.ID[i] = env+int32(i%2)*(1-env/2), 2*ds.Y[i]+ds.Attr[i], int64(i)
		}
		return ds
	}
	return &dataset.Splits{Name: "flat-sized", Train: mk("train", n, 0), Val: mk("val", m, 0), Test: mk("test", m, 2)}
}

// TestOuterIterationCopiesNoShareOfTheData: an outer iteration with keep
// 0.3, full batch and minibatch, allocates less than an eighth of the
// training matrix, with the network's chunks made small (the bound is
// then what the chunks and the per-sample vectors take). Inner training
// copied the kept rows (30% of the data) and the hypergradient every
// dropped row (70%): on 1,000,000 x 512 that was 1.4 GB beside the data.
func TestOuterIterationCopiesNoShareOfTheData(t *testing.T) {
	if testing.Short() {
		t.Skip("sizeable data")
	}
	// 30% of the rows hold more values than inner training copies into a
	// buffer of its own (gatherMax).
	n, d := 40000, 784
	sp := flatSized(n, d)
	for _, c := range []struct {
		name  string
		batch int
	}{{"full batch", 0}, {"minibatch", 512}} {
		t.Run(c.name, func(t *testing.T) {
			set := priorDefaults()
			set.Model, set.Keep, set.Keep0, set.InnerSteps, set.OuterIters, set.InnerBatch = "linear", 0.3, 0.3, 2, 10, c.batch
			e, err := newEngine[float32](sp, set)
			if err != nil {
				t.Fatal(err)
			}
			e.net.(*nets.Net[float32]).SetChunk(1024)
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			if _, err := e.iterate(); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&m1)
			matrix := 4 * n * d
			got := m1.TotalAlloc - m0.TotalAlloc
			t.Logf("an outer iteration allocated %.1f MB, the training matrix is %.1f MB", float64(got)/1e6, float64(matrix)/1e6)
			if got > uint64(matrix/8) {
				t.Errorf("an outer iteration allocated %d bytes, the training matrix is %d: want at most an eighth of it", got, matrix)
			}
		})
	}
}

// TestRowsPassesSameSearch: a search whose inner training and
// hypergradient read the rows through their indices, one chunk at a
// time, takes the same steps, to the bit, as one that copies them.
func TestRowsPassesSameSearch(t *testing.T) {
	sp := flatSized(3000, 40)
	for _, c := range []struct {
		name  string
		batch int
	}{{"full batch", 0}, {"minibatch", 256}} {
		t.Run(c.name, func(t *testing.T) {
			run := func(max int) *State {
				old := gatherMax
				gatherMax = max
				defer func() { gatherMax = old }()
				set := priorDefaults()
				set.Model, set.Keep, set.Keep0, set.InnerSteps, set.OuterIters, set.InnerBatch = "mlp:16", 0.3, 0.5, 4, 3, c.batch
				e, err := newEngine[float32](sp, set)
				if err != nil {
					t.Fatal(err)
				}
				e.net.(*nets.Net[float32]).SetChunk(100)
				for range 3 {
					if _, err := e.iterate(); err != nil {
						t.Fatal(err)
					}
				}
				return e.state()
			}
			a, b := run(1<<40), run(0)
			for _, v := range []struct {
				name string
				x, y []float64
			}{{"w", a.W, b.W}, {"s", a.S, b.S}, {"Adam m of w", a.WM, b.WM}, {"Adam v of s", a.SV, b.SV}} {
				if !slices.Equal(v.x, v.y) {
					t.Errorf("%s differs between the rows read through their indices and their copy", v.name)
				}
			}
		})
	}
}

// releaseCounter is a model that counts Release calls.
type releaseCounter struct {
	models.Model[float32]
	released int
}

func (r *releaseCounter) Release() { r.released++ }

// TestRunReleasesWorkBuffers: a search's model drops its work buffers
// when Run returns, before the final training builds a model of its own
// (both held theirs: about 100 MB each on 300,000 x 1,024 with mlp:256).
func TestRunReleasesWorkBuffers(t *testing.T) {
	sp := flatSized(500, 8)
	set := priorDefaults()
	set.Model, set.InnerSteps, set.OuterIters = "linear", 2, 1
	E, err := New(sp, set)
	if err != nil {
		t.Fatal(err)
	}
	rc := &releaseCounter{Model: E.e.net}
	E.e.net = rc
	if _, err := E.Run(context.Background(), nopRecorder{}); err != nil {
		t.Fatal(err)
	}
	if rc.released != 1 {
		t.Errorf("the model was released %d times after Run, want 1", rc.released)
	}
}

// nopRecorder takes every report and keeps none.
type nopRecorder struct{}

func (nopRecorder) Snapshot(*Snapshot) error { return nil }
func (nopRecorder) Event(Event) error        { return nil }
func (nopRecorder) Checkpoint(*State) error  { return nil }
