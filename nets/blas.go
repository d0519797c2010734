package nets

import (
	"runtime"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// Float is the element type of models: float32 for speed, float64 for tests.
type Float interface{ ~float32 | ~float64 }

// blasName names the BLAS in use; the openblas build tag overrides it.
var blasName = "gonum (pure Go)"

// BLAS reports which BLAS implementation the package uses.
func BLAS() string { return blasName }

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

// Gemm computes C = alpha op(A) op(B) + beta C for row-major matrices,
// where op(A) is m x k and op(B) is k x n.
func Gemm[T Float](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if m == 0 || n == 0 {
		return
	}
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
