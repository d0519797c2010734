package gmodel

import (
	"os"
	"testing"

	"github.com/maple-ood/maple/internal/loadenv"
	"github.com/maple-ood/maple/nets"
)

// TestMain runs the package's tests and benchmarks with the backend's
// load-time defaults, as maple runs (OMP_WAIT_POLICY=PASSIVE in the
// oneDNN build), so that the paired benchmarks time gorgonia's passes
// between products as a search meets them: with oneDNN's threads
// spinning instead, its backprop's paired ratio read 1.88 and 2.24 on a
// loaded machine where sleeping threads gave 1.42 and 1.40.
func TestMain(m *testing.M) {
	loadenv.Exec(nets.LoadEnv())
	os.Exit(m.Run())
}
