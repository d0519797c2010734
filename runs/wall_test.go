package runs

import (
	"go/build"
	"strings"
	"testing"
)

const module = "github.com/maple-ood/maple/"

// TestStoreDoesNoWork: runs stores and reads runs; it trains nothing and
// builds no engine. It imports neither core, train nor baselines, not
// even through another package (config imports all three): what it
// keeps are the records of package record.
func TestStoreDoesNoWork(t *testing.T) {
	deps := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		if deps[p] || !strings.HasPrefix(p, module) {
			return
		}
		deps[p] = true
		pkg, err := build.Import(p, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range pkg.Imports {
			walk(q)
		}
	}
	walk(module + "runs")
	for _, banned := range []string{"core", "train", "baselines"} {
		if deps[module+banned] {
			t.Errorf("runs depends on %s (go list -deps ./runs): the work that needs it belongs above the store", banned)
		}
	}
}
