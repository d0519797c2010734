package baselines

import (
	"context"
	"testing"

	"github.com/maple-ood/maple/internal/tinydata"
	"github.com/maple-ood/maple/train"
)

// TestResultCurve: a result's curve holds every validation check from
// the first selectable step to the last, and the selection and the
// oracle figures are its maxima: the validation worst-group's (the first
// of equals) and the test worst-group's.
func TestResultCurve(t *testing.T) {
	es := train.DefaultEval()
	es.Model, es.Steps, es.EvalEvery = "mlp:4", 30, 5 // checks from step 3 (a tenth): 5, 10, ..., 30
	sp := tinydata.Splits(40, 2, 4)
	for _, m := range []string{"erm", "lff", "mrm"} {
		r, err := Train(context.Background(), sp, m, es)
		if err != nil {
			t.Fatal(err)
		}
		var steps []int
		sel, orc := -1, -1
		for i, c := range r.Curve {
			steps = append(steps, c.Step)
			if sel < 0 || c.ValWorst > r.Curve[sel].ValWorst {
				sel = i
			}
			if orc < 0 || c.TestWorst > r.Curve[orc].TestWorst {
				orc = i
			}
		}
		if want := []int{5, 10, 15, 20, 25, 30}; len(steps) != len(want) || steps[0] != 5 || steps[5] != 30 {
			t.Fatalf("%s: checks at steps %v, want %v", m, steps, want)
		}
		c := r.Curve[sel]
		if c.Step != r.SelectedStep || c.ValAcc != r.ValAcc || c.ValWorst != r.ValWorst || c.TestAcc != r.TestAcc || c.TestWorst != r.TestWorst {
			t.Errorf("%s: the curve's best validation check %+v is not the selected step %d (val %g/%g, test %g/%g)",
				m, c, r.SelectedStep, r.ValAcc, r.ValWorst, r.TestAcc, r.TestWorst)
		}
		if o := r.Curve[orc]; o.Step != r.OracleSelection.Step || o.TestWorst != r.OracleSelection.TestWorst || o.TestAcc != r.OracleSelection.TestAcc {
			t.Errorf("%s: the curve's best test check %+v is not the oracle figure %+v", m, o, r.OracleSelection)
		}
	}
}
