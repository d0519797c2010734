//go:build openblas

package nets

// #cgo LDFLAGS: -lopenblas
// int openblas_get_num_threads(void);
// char* openblas_get_corename(void);
import "C"

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

func init() {
	blas32.Use(netlib.Implementation{})
	blas64.Use(netlib.Implementation{})
	// The kernels OpenBLAS chose for this CPU (OPENBLAS_CORETYPE
	// overrides the choice) decide how its sums round.
	blasName = "OpenBLAS (gonum.org/v1/netlib, cgo"
	if core := C.GoString(C.openblas_get_corename()); core != "" {
		blasName += "; " + core + " kernels"
	}
	blasName += ")"
	blasThreads = func() int { return int(C.openblas_get_num_threads()) }
}
