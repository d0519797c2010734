package experiments_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/maple-ood/maple/experiments"
)

// An experiment file names its sweeps; Load checks it, and the seeds are
// run seed-major by maple reproduce.
func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "exp")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "linear.toml")
	os.WriteFile(path, []byte(`title = "The linear case"
build = ""
threads = 2
[[sweep]]
name = "linear"
args = ["--datasets", "synthetic", "--methods", "erm,maple:rex", "--seeds", "1,2,3"]
`), 0o644)
	f, err := experiments.Load(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Name, f.SweepNames(), f.Seeds(), f.Sweeps[0].Cells())
	// Output: linear [linear] [1 2 3] 6
}

// Describe gives the mean, the sample standard deviation and the 95%
// interval of the mean that summary.csv holds.
func ExampleDescribe() {
	s := experiments.Describe([]float64{70.7, 70.1, 70.2})
	fmt.Printf("%.1f ± %.1f, n = %d, 95%% interval [%.1f, %.1f]\n", s.Mean, s.SD, s.N, s.Lo, s.Hi)
	// Output: 70.3 ± 0.3, n = 3, 95% interval [69.5, 71.1]
}
