package nets

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestOuterGateSumBits checks that the head's fused outer product, mask
// and bias sums give the bits of the outer product followed by
// maskColSum, at a size split over workers.
func TestOuterGateSumBits(t *testing.T) {
	const n, m = 3000, 40 // n*m above parallelMin
	rng := rand.New(rand.NewPCG(7, 8))
	dy, w, y := make([]float32, n), make([]float32, m), make([]float32, n*m)
	for i := range dy {
		dy[i] = float32(rng.NormFloat64())
	}
	for i := range w {
		w[i] = float32(rng.NormFloat64())
	}
	for i := range y {
		y[i] = max(0, float32(rng.NormFloat64()))
	}
	db0 := make([]float32, m)
	for i := range db0 {
		db0[i] = float32(rng.NormFloat64())
	}
	dx1, db1 := make([]float32, n*m), slices.Clone(db0)
	outer(dy, w, dx1, n, m)
	maskColSum(dx1, y, db1, n, m, true, nil)
	dx2, db2 := make([]float32, n*m), slices.Clone(db0)
	outerGateSum(dy, w, dx2, n, m, y, db2, nil)
	if !slices.Equal(dx1, dx2) || !slices.Equal(db1, db2) {
		t.Fatal("the fused pass differs from outer then maskColSum")
	}
}
