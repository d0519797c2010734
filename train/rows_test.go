package train

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
)

// flatSplits returns random flat features: n training rows of d values,
// 200 validation and 200 test rows.
func flatSplits(n, d int) *dataset.Splits {
	rng := rand.New(rand.NewPCG(3, 3))
	mk := func(name string, n int) *dataset.Dataset {
		ds := &dataset.Dataset{Name: name, N: n, D: d, Shape: dataset.Shape{C: d, H: 1, W: 1}, Classes: 2,
			EnvNames: []string{"e"}, GroupNames: []string{"a", "b"},
			X: make([]float32, n*d), Y: make([]int32, n), Env: make([]int32, n), Group: make([]int32, n),
			Attr: make([]int32, n), ID: make([]int64, n)}
		for i := range ds.X {
			ds.X[i] = float32(rng.NormFloat64())
		}
		for i := range n {
			ds.Y[i] = int32(rng.IntN(2))
			ds.Group[i], ds.ID[i] = ds.Y[i], int64(i)
		}
		return ds
	}
	return &dataset.Splits{Name: "flat", Train: mk("train", n), Val: mk("val", 200), Test: mk("test", 200)}
}

// sparseWeights returns n weights, about a share keep of them above 0.
func sparseWeights(n int, keep float64) []float64 {
	rng := rand.New(rand.NewPCG(4, 4))
	u := make([]float64, n)
	for i := range u {
		if rng.Float64() < keep {
			u[i] = 0.5 + rng.Float64()
		}
	}
	return u
}

// TestWeightedERMCopiesNoShareOfTheData: a weighted step on weights that
// keep 30% of the rows allocates less than an eighth of the training
// matrix, with the network's chunks made small; it copied the kept rows
// (the final training of a search at keep 0.3 held 30% of the data twice).
func TestWeightedERMCopiesNoShareOfTheData(t *testing.T) {
	if testing.Short() {
		t.Skip("sizeable data")
	}
	n, d := 40000, 784 // 30% of the rows hold more values than gatherMax
	sp := flatSplits(n, d)
	es := DefaultEval()
	es.Model = "linear"
	tr, err := NewTrainer(sp, es, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr.Net.(*nets.Net[float32]).SetChunk(1024)
	u := sparseWeights(n, 0.3)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range 2 {
		if err := tr.WeightedGrad(u); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&m1)
	matrix := 4 * n * d
	if got := m1.TotalAlloc - m0.TotalAlloc; got > uint64(matrix/8) {
		t.Errorf("two weighted steps allocated %d bytes, the training matrix is %d: want at most an eighth of it", got, matrix)
	}
}

// TestWeightedGradRowsSameBits: the weighted gradient over rows read
// through their indices, one chunk at a time, is the same bits as over
// their copy.
func TestWeightedGradRowsSameBits(t *testing.T) {
	sp := flatSplits(2000, 30)
	u := sparseWeights(2000, 0.3)
	grad := func(max int) []float32 {
		old := gatherMax
		gatherMax = max
		defer func() { gatherMax = old }()
		es := DefaultEval()
		es.Model = "mlp:8"
		tr, err := NewTrainer(sp, es, nil)
		if err != nil {
			t.Fatal(err)
		}
		tr.Net.(*nets.Net[float32]).SetChunk(64)
		if err := tr.WeightedGrad(u); err != nil {
			t.Fatal(err)
		}
		return tr.Grad
	}
	if !slices.Equal(grad(1<<40), grad(0)) {
		t.Error("the weighted gradient over the rows' indices differs from the one over their copy")
	}
}
