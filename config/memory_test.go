package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maple-ood/maple/loaders"
)

// TestPrepareWeighsMemory: a person's .npy is weighed from its header
// before it is read, against what the machine can give (MemAvailable and
// the control group's limit): one larger than that is refused, saying
// both figures and what to do, before anything is loaded; one that fits
// is loaded, and what the run needs besides its data is weighed after.
func TestPrepareWeighsMemory(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("label,split\n")
	for r := range 60 {
		fmt.Fprintf(&csv, "%d,%s\n", r%2, []string{"train", "val", "test"}[r%3])
	}
	csvPath := filepath.Join(dir, "a.csv")
	os.WriteFile(csvPath, []byte(csv.String()), 0o600)
	npy := filepath.Join(dir, "x.npy")
	f, _ := os.Create(npy)
	x := make([]float32, 60*8)
	for i := range x {
		x[i] = float32(i%7) / 7
	}
	loaders.WriteNPY(f, x) // 1-D; the rows are read as 60 x 8 below
	f.Close()
	b, _ := os.ReadFile(npy)
	os.WriteFile(npy, []byte(strings.Replace(string(b), "(480,)", "(60,8)", 1)), 0o600)

	cfg := DefaultConfig("features")
	cfg.Method = "erm"
	cfg.Dataset.CSV, cfg.Dataset.Features = csvPath, npy
	cfg.Eval.Model = "linear"
	for _, tc := range []struct {
		name string
		free int64
		want string
	}{
		{"less than the data", 1000, "would take about 0 MiB in memory as float32, and the machine has 0 MiB available (MemAvailable), 0 MiB left under the control group's limit of 0 MiB: give maple a machine"},
		{"enough", 1 << 30, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			machineMemory = func() loaders.Memory { return loaders.Memory{Available: tc.free, Limit: 2 * tc.free, Used: tc.free} }
			t.Cleanup(func() { machineMemory = loaders.MachineMemory })
			_, err := Prepare(cfg, nil)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), npy)) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
