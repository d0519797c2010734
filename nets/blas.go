package nets

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// Float is the element type of models: float32 for speed, float64 for tests.
type Float interface{ ~float32 | ~float64 }

// blasName names the BLAS in use; the openblas build tag overrides it.
var blasName = "gonum (pure Go)"

// matmulName names the float32 matrix-product backend when it is not the
// BLAS (the onednn build tag sets it).
var matmulName string

// BLAS reports which BLAS implementation (and float32 matrix-product
// backend, when another) the package uses.
func BLAS() string {
	if matmulName != "" {
		return blasName + " + " + matmulName
	}
	return blasName
}

// blasThreads is how many threads the BLAS computes with: gonum's (and
// this package's parallel loops) split work over GOMAXPROCS goroutines;
// the openblas build tag asks OpenBLAS.
var blasThreads = func() int { return runtime.GOMAXPROCS(0) }

// Threads reports how many threads the BLAS computes with. A product's
// last bits can depend on it (how a sum is split), as on the backend.
func Threads() int { return blasThreads() }

// Backend hooks for float32, nil unless a build tag installs a backend.
var (
	// gemm32 computes a float32 Gemm and reports whether it did.
	gemm32 func(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) bool
	// dense32 computes y = act(x w + bias) (m x n) for x (m x k) and w
	// (k x n), act = ReLU when relu, in one fused call.
	dense32 func(m, n, k int, x, w, bias []float32, relu bool, y []float32)
	// bf16Native reports whether the backend multiplies bf16 natively.
	bf16Native func() bool
	// toBF16 rounds an r x c float32 matrix (leading dimension ld) to a
	// dense r x c bf16 one.
	toBF16 func(r, c int, src []float32, ld int, dst []uint16)
	// gemmBF16 is a row-major product of bf16 matrices accumulated into
	// float32: c = op(a) op(b) (+ bias, then ReLU when relu) + beta c.
	gemmBF16 func(tA, tB bool, m, n, k int, a []uint16, lda int, b []uint16, ldb int, bias []float32, relu bool, beta float32, c []float32, ldc int)
)

// BF16 reports whether this build can train in bf16 (Net.SetBF16): the
// onednn build on a CPU with native bf16 products (avx512_bf16 or AMX).
// Otherwise it says why not.
func BF16() (bool, string) {
	switch {
	case gemmBF16 == nil:
		return false, "this maple was built without oneDNN; build it with -tags onednn (Debian: apt-get install libdnnl-dev)"
	case !bf16Native():
		return false, "this CPU has no native bf16 products (avx512_bf16 or AMX)"
	}
	return true, ""
}

func is32[T Float]() bool { var z T; return unsafe.Sizeof(z) == 4 }

func as32[T Float](s []T) []float32 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&s[0])), len(s))
}

func as64[T Float](s []T) []float64 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&s[0])), len(s))
}

func trans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// productNS counts the nanoseconds spent in matrix products (Gemm, Gemv
// and the fused dense products) since the process started.
var productNS atomic.Int64

func since(t time.Time) { productNS.Add(int64(time.Since(t))) }

// ProductTime reports the wall time spent in matrix products so far, by
// every goroutine together: benchmarks divide a phase's time into its
// products and the rest.
func ProductTime() time.Duration { return time.Duration(productNS.Load()) }

// Gemm computes C = alpha op(A) op(B) + beta C for row-major matrices,
// where op(A) is m x k and op(B) is k x n.
func Gemm[T Float](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	defer since(time.Now())
	if k == 0 {
		if beta == 0 {
			for i := 0; i < m; i++ {
				clear(c[i*ldc : i*ldc+n])
			}
		} else if beta != 1 {
			for i := 0; i < m; i++ {
				scale(c[i*ldc:i*ldc+n], beta)
			}
		}
		return
	}
	if is32[T]() {
		if gemm32 != nil && gemm32(tA, tB, m, n, k, float32(alpha), as32(a), lda, as32(b), ldb, float32(beta), as32(c), ldc) {
			return
		}
		blas32.Implementation().Sgemm(trans(tA), trans(tB), m, n, k, float32(alpha), as32(a), lda, as32(b), ldb, float32(beta), as32(c), ldc)
		return
	}
	blas64.Implementation().Dgemm(trans(tA), trans(tB), m, n, k, float64(alpha), as64(a), lda, as64(b), ldb, float64(beta), as64(c), ldc)
}

// Gemv computes y = alpha op(A) x + beta y for a row-major m x n matrix A.
func Gemv[T Float](tA bool, m, n int, alpha T, a []T, lda int, x []T, beta T, y []T) {
	if m == 0 || n == 0 {
		return
	}
	defer since(time.Now())
	if is32[T]() {
		blas32.Implementation().Sgemv(trans(tA), m, n, float32(alpha), as32(a), lda, as32(x), 1, float32(beta), as32(y), 1)
		return
	}
	blas64.Implementation().Dgemv(trans(tA), m, n, float64(alpha), as64(a), lda, as64(x), 1, float64(beta), as64(y), 1)
}

func scale[T Float](x []T, a T) {
	for i := range x {
		x[i] *= a
	}
}

// Dot returns sum_i x_i y_i accumulated in float64.
func Dot[T Float](x, y []T) float64 {
	if len(x) != len(y) {
		panic("Dot length mismatch")
	}
	var s float64
	for i, v := range x {
		s += float64(v) * float64(y[i])
	}
	return s
}

// parallelMin is the number of elements below which elementwise loops run
// on one goroutine.
const parallelMin = 1 << 15

// parallelFor splits [0, n) into contiguous ranges, one per worker, when
// work (the number of elements touched) is large enough to pay for it.
// f receives the worker index and its range.
func parallelFor(n, work int, f func(w, lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if workers > n {
		workers = n
	}
	if work < parallelMin || workers <= 1 {
		f(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	step := (n + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*step, min((w+1)*step, n)
		if lo >= hi {
			break
		}
		wg.Add(1)
		go func() { defer wg.Done(); f(w, lo, hi) }()
	}
	wg.Wait()
}

func maxWorkers() int { return runtime.GOMAXPROCS(0) }
