package train

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/internal/tinydata"
	"github.com/maple-ood/maple/setting"
)

// TestAccuracyOf: the overall accuracy, each group's, and the worst over
// the groups that have samples (an empty group is -1 and no candidate;
// without groups the worst is the overall accuracy).
func TestAccuracyOf(t *testing.T) {
	// Two classes; the logits predict class 1 where the second is larger.
	logits := []float64{
		1, 0, // 0: predicts 0
		0, 1, // 1: predicts 1
		1, 0, // 2: predicts 0
		0, 1, // 3: predicts 1
	}
	for _, tc := range []struct {
		name   string
		y      []int32
		group  []int32
		groups []string
		want   Accuracy
	}{
		{name: "all right, no groups", y: []int32{0, 1, 0, 1},
			want: Accuracy{Avg: 1, Worst: 1, PerGroup: []float64{}}},
		{name: "half right, no groups: worst is the average", y: []int32{0, 0, 1, 1},
			want: Accuracy{Avg: 0.5, Worst: 0.5, PerGroup: []float64{}}},
		{name: "the worst group", y: []int32{0, 1, 1, 1}, group: []int32{0, 0, 1, 1}, groups: []string{"a", "b"},
			want: Accuracy{Avg: 0.75, Worst: 0.5, PerGroup: []float64{1, 0.5}}},
		{name: "an empty group is no candidate", y: []int32{0, 0, 0, 1}, group: []int32{0, 0, 2, 2}, groups: []string{"a", "empty", "c"},
			want: Accuracy{Avg: 0.75, Worst: 0.5, PerGroup: []float64{0.5, -1, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := &dataset.Dataset{N: 4, Y: tc.y, Group: tc.group, GroupNames: tc.groups, Classes: 2}
			got := AccuracyOf(logits, 2, ds)
			if got.Avg != tc.want.Avg || got.Worst != tc.want.Worst || len(got.PerGroup) != len(tc.want.PerGroup) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for g := range got.PerGroup {
				if got.PerGroup[g] != tc.want.PerGroup[g] {
					t.Errorf("group %d: %g, want %g", g, got.PerGroup[g], tc.want.PerGroup[g])
				}
			}
		})
	}
}

// TestEvalSettingsCheck: the defaults pass; a setting out of its range
// is refused by a *setting.Error naming its field; "" is sgd (a run
// recorded before the optimizer setting).
func TestEvalSettingsCheck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(es *EvalSettings)
		field string // "" when valid
	}{
		{"the defaults", func(es *EvalSettings) {}, ""},
		{"no optimizer is sgd", func(es *EvalSettings) { es.Optimizer = "" }, ""},
		{"adam", func(es *EvalSettings) { es.Optimizer = "adam" }, ""},
		{"an unknown optimizer", func(es *EvalSettings) { es.Optimizer = "lbfgs" }, "EvalSettings.Optimizer"},
		{"an unknown model", func(es *EvalSettings) { es.Model = "nosuch:3" }, "EvalSettings.Model"},
		{"no steps", func(es *EvalSettings) { es.Steps = 0 }, "EvalSettings.Steps"},
		{"checks every 0 steps", func(es *EvalSettings) { es.EvalEvery = 0 }, "EvalSettings.EvalEvery"},
		{"a negative learning rate", func(es *EvalSettings) { es.LR = -0.1 }, "EvalSettings.LR"},
		{"momentum 1", func(es *EvalSettings) { es.Momentum = 1 }, "EvalSettings.Momentum"},
		{"a NaN weight decay", func(es *EvalSettings) { es.WeightDecay = math.NaN() }, "EvalSettings.WeightDecay"},
		{"cvar alpha above 1", func(es *EvalSettings) { es.CVaRAlpha = 1.5 }, "EvalSettings.CVaRAlpha"},
		{"a reference accuracy above 1", func(es *EvalSettings) { es.RefTrainAcc = 1.2 }, "EvalSettings.RefTrainAcc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es := DefaultEval()
			tc.edit(&es)
			err := es.Check()
			if tc.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var se *setting.Error
			if !errors.As(err, &se) || se.Field != tc.field {
				t.Fatalf("err %v, want a setting error naming %s", err, tc.field)
			}
		})
	}
}

// TestSelectionOnValidation: the training returns the checkpoint of the
// best validation worst-group accuracy among the checks from MinStep on
// (the first of equals), with that check's test figures, whatever the
// test figures of the others; the curve holds every check.
func TestSelectionOnValidation(t *testing.T) {
	sp := tinydata.Splits(60, 2, 7)
	for _, tc := range []struct {
		name            string
		steps, every, m int
	}{
		{"every step from 1", 40, 1, 1},
		{"every 5 steps from 10", 40, 5, 10},
		{"the default first step (a tenth)", 50, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es := DefaultEval()
			es.Model, es.Steps, es.EvalEvery, es.MinStep, es.LR = "mlp:8", tc.steps, tc.every, tc.m, 2
			res, err := WeightedERM(context.Background(), sp, Ones(sp.Train.N), es, "erm")
			if err != nil {
				t.Fatal(err)
			}
			first := tc.m
			if first == 0 {
				first = tc.steps / 10
			}
			best := -1
			for i, c := range res.Curve {
				if c.Step < first || (c.Step%tc.every != 0 && c.Step != tc.steps) {
					t.Errorf("a check at step %d (first %d, every %d)", c.Step, first, tc.every)
				}
				if best < 0 || c.ValWorst > res.Curve[best].ValWorst {
					best = i
				}
			}
			if best < 0 {
				t.Fatal("no checks")
			}
			b := res.Curve[best]
			if res.SelectedStep != b.Step || res.ValWorst != b.ValWorst || res.TestAcc != b.TestAcc || res.TestWorst != b.TestWorst {
				t.Errorf("selected step %d (val worst %g, test %g/%g), want the first best check, step %d (%g, %g/%g)",
					res.SelectedStep, res.ValWorst, res.TestAcc, res.TestWorst, b.Step, b.ValWorst, b.TestAcc, b.TestWorst)
			}
			if last := res.Curve[len(res.Curve)-1]; last.Step != tc.steps {
				t.Errorf("the last check is step %d, want %d", last.Step, tc.steps)
			}
		})
	}
}
