package gmodel

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"

	"github.com/maple-ood/maple/nets"
)

// netsBLAS is the BLAS gorgonia computes with: the one nets uses in this
// build (gonum's pure Go, or OpenBLAS under the openblas tag), its matrix
// products through nets.Gemm (so oneDNN's under the onednn tag, and
// counted in nets.ProductTime); complex routines, which no model calls,
// are gonum's.
type netsBLAS struct {
	blas.Float32
	blas.Float64
	blas.Complex64
	blas.Complex128
}

func (netsBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	nets.Gemm(tA != blas.NoTrans, tB != blas.NoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func (netsBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	nets.Gemm(tA != blas.NoTrans, tB != blas.NoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// newNetsBLAS returns the netsBLAS of this build: nets' BLAS for real
// routines, gonum's for complex ones.
func newNetsBLAS() netsBLAS {
	return netsBLAS{Float32: blas32.Implementation(), Float64: blas64.Implementation(),
		Complex64: gonum.Implementation{}, Complex128: gonum.Implementation{}}
}

// nets' init, which picks its BLAS, has run: gmodel imports nets.
func init() { G.Use(newNetsBLAS()) }
