package export

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

// TestMetricsCSV: one row per recorded iteration, a column per
// group for the fractions and validation accuracies, the evaluation
// model's figures where a record has them; a run with no records is
// refused naming it.
func TestMetricsCSV(t *testing.T) {
	r, err := runs.Open(t.TempDir()).Create(runs.Config{Method: "maple"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := MetricsCSV(r.Dir, "", nil); err == nil || !strings.Contains(err.Error(), "no outer iterations") {
		t.Errorf("a run without records: %v", err)
	}
	var lines []string
	for i := 1; i <= 3; i++ {
		s := core.Snapshot{Iter: i, Total: 3, OuterRisk: 0.5 / float64(i), GroupNames: []string{"a", "b"}, GroupFrac: []float64{0.25 * float64(i), 1 - 0.25*float64(i)},
			ValGroups: []float64{0.5, 0.75}, LR: core.LearningRates{Weight: 0.25, Keep: 0.05, Inner: 0.1}, Status: core.StatusRunning}
		if i == 2 {
			s.IterEval = &core.IterEval{TestAcc: 0.625, Reference: &train.ReferenceFigure{TestAcc: 0.7}}
		}
		b, _ := json.Marshal(s)
		lines = append(lines, string(b))
	}
	os.WriteFile(r.Path(runs.MetricsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	out := t.TempDir()
	path, err := MetricsCSV(r.Dir, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 4 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, c := range []struct {
		row  int
		name string
		want string
	}{{1, "iter", "1"}, {2, "outer_risk", "0.25"}, {3, "group_frac[a]", "0.75"}, {3, "group_frac[b]", "0.25"},
		{1, "val_group_acc[b]", "0.75"}, {1, "lr_keep", "0.05"}, {2, "eval_test_acc", "0.625"}, {2, "eval_reference_test_acc", "0.7"},
		{1, "eval_test_acc", ""}, {3, "status", "running"}} {
		i, ok := col[c.name]
		if !ok {
			t.Errorf("no column %s in %v", c.name, rows[0])
			continue
		}
		if got := rows[c.row][i]; got != c.want {
			t.Errorf("row %d %s = %q, want %q", c.row, c.name, got, c.want)
		}
	}
}

// TestTrainingCSV: one row per validation check of the finished
// training, the selected step marked; a run without one is refused.
func TestTrainingCSV(t *testing.T) {
	r, err := runs.Open(t.TempDir()).Create(runs.Config{Method: "lff"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := TrainingCSV(r.Dir, "", nil); err == nil || !strings.Contains(err.Error(), "no finished training") {
		t.Errorf("a run without a result: %v", err)
	}
	res := &train.Result{SelectedStep: 20, Curve: []train.CheckPoint{{Step: 10, ValWorst: 0.25}, {Step: 20, ValAcc: 0.75, ValWorst: 0.5, TestAcc: 0.625, TestWorst: 0.125}, {Step: 25, ValWorst: 0.375}}}
	if err := r.WriteSummary(&runs.Summary{Done: true, Status: core.StatusDone, Result: res}); err != nil {
		t.Fatal(err)
	}
	path, err := TrainingCSV(r.Dir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	want := "step,val_acc,val_worst_group_acc,test_acc,test_worst_group_acc,selected\n10,0,0.25,0,0,false\n20,0.75,0.5,0.625,0.125,true\n25,0,0.375,0,0,false\n"
	if string(b) != want {
		t.Errorf("training.csv:\n%s\nwant:\n%s", b, want)
	}
}
