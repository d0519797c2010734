package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maple-ood/maple/train"
)

// TestResultReweightingGolden: a result's reweighting, as maple show, maple
// run's outcome and the browser's page of a baseline write it, against
// golden files (go test -update rewrites them): a JTT whose error set is
// empty names the flag to change, one whose set is small names both, and
// an upweighting that moved weight says nothing more.
func TestResultReweightingGolden(t *testing.T) {
	groups := func(in ...int) []train.GroupWeight {
		names, sizes, weight := []string{"y=0,a=0", "y=0,a=1", "y=1,a=0", "y=1,a=1"}, []int{3498, 184, 56, 1057}, []float64{0.7295, 0.0384, 0.0117, 0.2204}
		out := make([]train.GroupWeight, 4)
		for g := range out {
			out[g] = train.GroupWeight{Name: names[g], Size: sizes[g], Weight: weight[g]}
			if in != nil {
				out[g].InSet = in[g]
			}
		}
		return out
	}
	steps := train.Change{Field: "EvalSettings.JTTSteps", Lower: true, Now: 100, Why: "so that its first stage stops before it fits the training set"}
	for _, tc := range []struct {
		name string
		rw   *train.Reweighting
	}{
		{"jtt-empty", &train.Reweighting{Weights: "6 on the error set, 1 elsewhere", Samples: 4795, Set: &train.SampleSet{Name: "error set"},
			Groups: groups(0, 0, 0, 0), MaxOverMin: 1, Degenerate: train.DegenerateEmptySet, Change: []train.Change{steps}}},
		{"jtt-small", &train.Reweighting{Weights: "6 on the error set, 1 elsewhere", Samples: 4795, Set: &train.SampleSet{Name: "error set", Size: 3},
			Moved: 0.0031, Groups: groups(0, 2, 1, 0), MaxOverMin: 6, Degenerate: train.DegenerateSmall,
			Change: []train.Change{steps, {Field: "EvalSettings.JTTUp", Now: 6}}}},
		{"upweight", &train.Reweighting{Weights: "each sample at the inverse of its group's training size", Samples: 4795, Moved: 0.6, MaxOverMin: 62.5,
			Groups: []train.GroupWeight{{Name: "y=0,a=0", Size: 3498, Weight: 0.25}, {Name: "y=0,a=1", Size: 184, Weight: 0.25}, {Name: "y=1,a=0", Size: 56, Weight: 0.25}, {Name: "y=1,a=1", Size: 1057, Weight: 0.25}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &train.Result{Criterion: train.CriterionWorst, SelectedStep: 70, ValAcc: 0.75, ValWorst: 0.2, TestAcc: 0.715, TestWorst: 0.202,
				PerGroupTest: []float64{0.9, 0.25, 0.202, 0.8}, GroupNames: []string{"y=0,a=0", "y=0,a=1", "y=1,a=0", "y=1,a=1"}, Reweighting: tc.rw}
			var out strings.Builder
			WriteResult(&out, r)
			golden := filepath.Join("testdata", "result-"+tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if out.String() != string(want) {
				t.Errorf("result:\n%s\nwant (%s):\n%s", out.String(), golden, want)
			}
		})
	}
}
