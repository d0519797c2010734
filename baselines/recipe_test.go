package baselines

import (
	"testing"

	"github.com/maple-ood/maple/train"
)

// The irmv1 and rex baselines take the IRM paper's recipe unless the
// person set the field; other methods keep their settings.
func TestRecipe(t *testing.T) {
	def := train.DefaultEval()
	got := Recipe("irmv1", def, map[string]bool{"EvalSettings.Steps": true})
	if got.Optimizer != "adam" || got.LR != 4.898536566546834e-4 || got.Penalty != 91257.18613115903 || got.PenaltyAnneal != 190 ||
		got.L2 != 1.1079456888570485e-3 || got.WeightDecay != 0 || got.Steps != def.Steps || got.Recipe == "" {
		t.Errorf("irmv1 recipe: %+v", got)
	}
	if got := Recipe("groupdro", def, nil); got != def {
		t.Errorf("groupdro changed: %+v", got)
	}
}
