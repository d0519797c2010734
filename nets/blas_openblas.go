//go:build openblas

package nets

// #cgo LDFLAGS: -lopenblas
// int openblas_get_num_threads(void);
import "C"

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

func init() {
	blas32.Use(netlib.Implementation{})
	blas64.Use(netlib.Implementation{})
	blasName = "OpenBLAS (gonum.org/v1/netlib, cgo)"
	blasThreads = func() int { return int(C.openblas_get_num_threads()) }
}
