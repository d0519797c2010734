//go:build openblas || onednn

package nets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGateKernels: the C passes give the Go loops' bits, the gate's edge
// cases included (-0 passes, +0 and negatives and NaN's sign bit gate),
// on blocks whose width is no multiple of the vector length, at every
// instruction-set level the CPU has (plain, AVX2, AVX-512).
func TestGateKernels(t *testing.T) {
	if gateSumRows32 == nil || outerGateSumRows32 == nil {
		t.Fatal("the cgo build has no C gate kernels")
	}
	defer func(l int) { gateLevel = l }(gateLevel)
	for level := 0; level <= gateBest; level++ {
		gateLevel = level
		t.Run(fmt.Sprintf("level %d", level), testGateKernels)
	}
}

func testGateKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, tc := range []struct {
		name    string
		rows, m int
	}{{"one row", 1, 1}, {"odd width", 7, 37}, {"the MLP's width", 64, 390}, {"wide", 3, 1029}} {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.rows * tc.m
			y, dx, dy, w := make([]float32, n), make([]float32, n), make([]float32, tc.rows), make([]float32, tc.m)
			special := []float32{0, float32(math.Copysign(0, -1)), -1, 1e-40, float32(math.NaN()), float32(math.Inf(1))}
			for i := range y {
				y[i] = float32(rng.NormFloat64())
				if rng.IntN(5) == 0 {
					y[i] = special[rng.IntN(len(special))]
				}
				dx[i] = float32(rng.NormFloat64())
			}
			for i := range dy {
				dy[i] = float32(rng.NormFloat64())
			}
			for j := range w {
				w[j] = float32(rng.NormFloat64())
			}
			s0 := make([]float32, tc.m)
			for j := range s0 {
				s0[j] = float32(rng.NormFloat64())
			}

			// maskColSum's pass.
			goDx, goS := slices.Clone(dx), slices.Clone(s0)
			for i := 0; i < tc.rows; i++ {
				gateSum32(goDx[i*tc.m:(i+1)*tc.m], y[i*tc.m:(i+1)*tc.m], goS)
			}
			cDx, cS := slices.Clone(dx), slices.Clone(s0)
			gateSumRows32(cDx, y, cS, tc.rows, tc.m)
			same(t, "gate-sum dx", goDx, cDx)
			same(t, "gate-sum sums", goS, cS)

			// outerGateSum's pass.
			goDx, goS = make([]float32, n), slices.Clone(s0)
			for i := 0; i < tc.rows; i++ {
				row := goDx[i*tc.m : (i+1)*tc.m]
				for j := range row {
					row[j] = dy[i] * w[j]
				}
				gateSum32(row, y[i*tc.m:(i+1)*tc.m], goS)
			}
			cDx, cS = make([]float32, n), slices.Clone(s0)
			outerGateSumRows32(dy, w, cDx, y, cS, tc.rows, tc.m)
			same(t, "outer-gate-sum dx", goDx, cDx)
			same(t, "outer-gate-sum sums", goS, cS)
		})
	}
}

func same(t *testing.T, what string, want, got []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
			t.Fatalf("%s[%d]: C %v (%#x), Go %v (%#x)", what, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// BenchmarkGatePass times maskColSum's float32 pass over the inner step's
// hidden layer (13500 x 390, one thread) in Go and in C.
func BenchmarkGatePass(b *testing.B) {
	const rows, m = 13500, 390
	rng := rand.New(rand.NewPCG(1, 1))
	y, dx, s := make([]float32, rows*m), make([]float32, rows*m), make([]float32, m)
	for i := range y {
		y[i], dx[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	b.Run("go", func(b *testing.B) {
		b.SetBytes(int64(len(y) * 8))
		for i := 0; i < b.N; i++ {
			for r := 0; r < rows; r++ {
				gateSum32(dx[r*m:(r+1)*m], y[r*m:(r+1)*m], s)
			}
		}
	})
	b.Run("c", func(b *testing.B) {
		b.SetBytes(int64(len(y) * 8))
		for i := 0; i < b.N; i++ {
			gateSumRows32(dx, y, s, rows, m)
		}
	})
}

// TestBackpropSameBitsWithC: a whole backprop of an MLP, over enough rows
// that the gate passes split over workers, gives the same gradient bits
// with the C kernels as with the Go loops (the pinned hashes are the
// pure-Go build's, so this is the cgo builds' check).
func TestBackpropSameBitsWithC(t *testing.T) {
	const n = 3000
	net := MustNew[float32]("mlp:64,64", Shape{C: 392, H: 1, W: 1}, 1)
	rng := rand.New(rand.NewPCG(3, 4))
	theta := make([]float32, net.NumParams())
	net.Init(theta, rng)
	x := make([]float32, n*392)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	fill := func(lo, hi int, logits, cot []float32) {
		for i := range cot {
			cot[i] = logits[i] - float32((lo+i)%2)
		}
	}
	withC := make([]float32, len(theta))
	net.Backprop(theta, x, n, fill, withC)
	g, o := gateSumRows32, outerGateSumRows32
	gateSumRows32, outerGateSumRows32 = nil, nil
	defer func() { gateSumRows32, outerGateSumRows32 = g, o }()
	withGo := make([]float32, len(theta))
	net.Backprop(theta, x, n, fill, withGo)
	same(t, "gradient", withGo, withC)
}
