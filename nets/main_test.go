package nets_test

import (
	"os"
	"testing"

	"github.com/maple-ood/maple/internal/loadenv"
	"github.com/maple-ood/maple/nets"
)

// TestMain runs the package's tests and benchmarks with the backend's
// load-time defaults, as maple runs (OMP_WAIT_POLICY=PASSIVE in the
// oneDNN build), so that its benchmarks time the products as a search
// meets them, and as gmodel's do.
func TestMain(m *testing.M) {
	loadenv.Exec(nets.LoadEnv())
	os.Exit(m.Run())
}
