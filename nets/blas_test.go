package nets

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naiveGemm is the float64 reference for row-major C = op(A) op(B) + beta C.
func naiveGemm(tA, tB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				ai, bi := i*lda+p, p*ldb+j
				if tA {
					ai = p*lda + i
				}
				if tB {
					bi = j*ldb + p
				}
				av, bv := a[ai], b[bi]
				s += av * bv
			}
			c[i*ldc+j] = s + beta*c[i*ldc+j]
		}
	}
}

// TestGemmFloat32 checks the float32 product of the backend in use (pure
// Go, OpenBLAS or oneDNN, by build tag) against a float64 loop for every
// transpose pair, beta 0 and 1, and leading dimensions wider than the
// matrices; the columns beyond each matrix must stay untouched.
func TestGemmFloat32(t *testing.T) {
	t.Logf("backend: %s", BLAS())
	rng := rand.New(rand.NewPCG(3, 4))
	type dims struct{ m, n, k int }
	for _, d := range []dims{{1, 1, 1}, {7, 5, 3}, {33, 17, 65}, {300, 40, 129}} {
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				for _, beta := range []float64{0, 1} {
					ar, ac := d.m, d.k
					if tA {
						ar, ac = d.k, d.m
					}
					br, bc := d.k, d.n
					if tB {
						br, bc = d.n, d.k
					}
					lda, ldb, ldc := ac+3, bc+1, d.n+2
					a, b, c := randVec(rng, ar*lda, 1), randVec(rng, br*ldb, 1), randVec(rng, d.m*ldc, 1)
					want := append([]float64(nil), c...)
					naiveGemm(tA, tB, d.m, d.n, d.k, a, lda, b, ldb, beta, want, ldc)
					got := to32(c)
					Gemm(tA, tB, d.m, d.n, d.k, 1, to32(a), lda, to32(b), ldb, float32(beta), got, ldc)
					for i := 0; i < d.m; i++ {
						for j := 0; j < ldc; j++ {
							w := want[i*ldc+j]
							if j >= d.n {
								w = c[i*ldc+j] // padding keeps its value
							}
							if g := float64(got[i*ldc+j]); math.Abs(g-w) > 1e-5*float64(d.k+1) {
								t.Fatalf("%v tA=%v tB=%v beta=%g: C[%d,%d] = %g, want %g", d, tA, tB, beta, i, j, g, w)
							}
						}
					}
				}
			}
		}
	}
}

// TestDenseForwardFused checks the float32 dense forward (fused bias and
// ReLU where the backend offers it) against float64, with and without ReLU.
func TestDenseForwardFused(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, relu := range []bool{false, true} {
		const n, nin, nout = 37, 19, 23
		l64, l32 := newDense[float64](nin, nout, relu), newDense[float32](nin, nout, relu)
		p, x := randVec(rng, l64.nparams(), 1), randVec(rng, n*nin, 1)
		y64, y32 := make([]float64, n*nout), make([]float32, n*nout)
		l64.forward(p, x, y64, n)
		l32.forward(to32(p), to32(x), y32, n)
		zeros := 0
		for i := range y64 {
			if y64[i] == 0 {
				zeros++
			}
			if math.Abs(float64(y32[i])-y64[i]) > 1e-4 {
				t.Fatalf("relu=%v: y[%d] = %g, want %g", relu, i, y32[i], y64[i])
			}
		}
		if relu && zeros == 0 {
			t.Fatalf("relu=%v: no output was clipped; the test does not exercise the ReLU", relu)
		}
	}
}

// TestBF16 checks the bf16 training products against float32 on an MLP:
// the logits and the parameter gradient agree to bf16 rounding (normwise
// relative error below 5e-2: 8-bit mantissas, compounded over three layers
// and sums with cancellation) but differ (so the bf16 path ran), and
// switching back gives the float32 results exactly. Without bf16 support
// SetBF16 must refuse with a reason.
func TestBF16(t *testing.T) {
	if err := MustNew[float64]("mlp:4", Shape{3, 1, 1}, 1).SetBF16(true); err == nil {
		t.Fatal("SetBF16 on a float64 net: no error")
	}
	const n = 300
	m := MustNew[float32]("mlp:64,48", Shape{40, 1, 1}, 1)
	ok, why := BF16()
	if !ok {
		err := m.SetBF16(true)
		if err == nil || why == "" {
			t.Fatalf("no bf16 support (%q) but SetBF16 returned %v", why, err)
		}
		t.Skipf("bf16 unavailable in this build (%s): refusal checked", why)
	}
	rng := rand.New(rand.NewPCG(8, 9))
	theta := make([]float32, m.NumParams())
	m.Init(theta, rng)
	x := to32(randVec(rng, n*40, 1))
	cot := to32(randVec(rng, n, 1))
	run := func() ([]float32, []float32) {
		f, g := make([]float32, n), make([]float32, len(theta))
		m.Forward(theta, x, n, f)
		m.VJP(theta, x, n, cot, g)
		return f, g
	}
	f32, g32 := run()
	if err := m.SetBF16(true); err != nil {
		t.Fatal(err)
	}
	fb, gb := run()
	if err := m.SetBF16(false); err != nil {
		t.Fatal(err)
	}
	fa, ga := run()
	rel := func(a, b []float32) float64 {
		var d, s float64
		for i := range a {
			d += (float64(a[i]) - float64(b[i])) * (float64(a[i]) - float64(b[i]))
			s += float64(b[i]) * float64(b[i])
		}
		return math.Sqrt(d / s)
	}
	for _, c := range []struct {
		name   string
		err    float64
		lo, hi float64
	}{
		{"logits bf16 vs f32", rel(fb, f32), 1e-6, 5e-2},
		{"gradient bf16 vs f32", rel(gb, g32), 1e-6, 5e-2},
		{"logits after switching back", rel(fa, f32), -1, 0},
		{"gradient after switching back", rel(ga, g32), -1, 0},
	} {
		if !(c.err > c.lo && c.err <= c.hi) {
			t.Errorf("%s: normwise relative difference %.3g, want in (%g, %g]", c.name, c.err, c.lo, c.hi)
		}
	}
}
