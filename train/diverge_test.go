package train

import (
	"context"
	"strings"
	"testing"

	"github.com/maple-ood/maple/internal/tinydata"
)

// TestDivergedTrainingKeepsItsCheckpoints: a final training whose
// gradient stops being finite (a learning rate too high for the model:
// the MAPLE code's lr 1 on a residual MLP) ends with the best checkpoint
// of the checks before, and says at which step it stopped; the run failed
// outright before. Without any checkpoint selected yet, it is an error
// that names the remedy.
func TestDivergedTrainingKeepsItsCheckpoints(t *testing.T) {
	sp := tinydata.Splits(40, 2, 3)
	es := DefaultEval()
	es.Model, es.Steps, es.EvalEvery, es.MinStep, es.LR, es.Momentum, es.WeightDecay = "mlp:8", 200, 1, 1, 10, 0.9, 1 // diverges at step 37
	res, err := WeightedERM(context.Background(), sp, Ones(sp.Train.N), es, "erm")
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped == nil || *res.Stopped >= es.Steps || res.SelectedStep < 1 || res.SelectedStep > *res.Stopped || !res.Done {
		t.Fatalf("stopped %v, selected step %d, done %v: want stopped before step %d, selected at or before it", res.Stopped, res.SelectedStep, res.Done, es.Steps)
	}
	for _, c := range res.Curve {
		if c.Step > *res.Stopped {
			t.Errorf("a check at step %d after the stop at %d", c.Step, *res.Stopped)
		}
	}
	es.MinStep = 150 // no check before the gradient diverges
	if _, err := WeightedERM(context.Background(), sp, Ones(sp.Train.N), es, "erm"); err == nil || !strings.Contains(err.Error(), "lower the learning rate") {
		t.Errorf("diverged before any checkpoint: error %v, want one that says to lower the learning rate", err)
	}
}
