package train

import (
	"context"
	"fmt"
	"testing"

	"github.com/maple-ood/maple/internal/tinydata"
)

// WithProgress is told at every validation check of a training run.
func TestTrainingProgress(t *testing.T) {
	sp := tinydata.Splits(40, 2, 3)
	es := DefaultEval()
	es.Model, es.Steps, es.EvalEvery, es.MinStep = "linear", 30, 10, 10
	var steps []int
	ctx := WithProgress(context.Background(), func(step, total int, _, _ float64) {
		if total != 30 {
			t.Errorf("total %d", total)
		}
		steps = append(steps, step)
	})
	if _, err := WeightedERM(ctx, sp, Ones(sp.Train.N), es, "erm"); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(steps) != "[10 20 30]" {
		t.Errorf("progress at steps %v, want [10 20 30]", steps)
	}
}
