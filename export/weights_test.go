package export

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/runs"
)

// TestExportTrainWith: export.json names the file to train with among
// those written: u.npy, or weights.csv and its column u when only csv
// is written (it named u.npy, which that directory does not hold).
func TestExportTrainWith(t *testing.T) {
	train := &dataset.Dataset{N: 2, Y: []int32{0, 1}, Env: []int32{0, 0}, Group: []int32{0, 1}, ID: []int64{7, 9},
		GroupNames: []string{"a", "b"}, EnvNames: []string{"e"}}
	out := &core.Output{W: []float64{1, 2}, S: []float64{1, 0.5}, Keep: []bool{true, false}, Iter: 3}
	cfg := runs.DefaultConfig("synthetic")
	for _, tc := range []struct {
		name    string
		formats []string
		want    string
		column  string
	}{
		{"npy", []string{"npy"}, UNPY, ""},
		{"both", nil, UNPY, ""},
		{"csv alone", []string{"csv"}, runs.WeightsCSV, "u"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := WriteExports(dir, &cfg, core.StatusDone, 5, out, train, tc.formats...); err != nil {
				t.Fatal(err)
			}
			var man Export
			b, err := os.ReadFile(filepath.Join(dir, ExportJSON))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &man); err != nil {
				t.Fatal(err)
			}
			if man.TrainWith != tc.want || man.TrainColumn != tc.column {
				t.Errorf("train_with %q, column %q; want %q, %q (files %v)", man.TrainWith, man.TrainColumn, tc.want, tc.column, man.Files)
			}
			if !slices.Contains(man.Files, man.TrainWith) {
				t.Errorf("train_with %q is not among the files written, %v", man.TrainWith, man.Files)
			}
		})
	}
}
