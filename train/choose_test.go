package train

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/maple-ood/maple/internal/tinydata"
)

// TestChooseWeightedERM: with AlsoShared the final training is, bit for
// bit, whichever of the two single trainings (the settings' own, the
// shared evaluation's) validation ranks first, a tie keeping the own;
// the result records both trainings' validation figures; without it, or
// where the own training is the shared one, it trains once.
func TestChooseWeightedERM(t *testing.T) {
	sp := tinydata.Splits(60, 2, 5)
	rng := rand.New(rand.NewPCG(1, 2))
	u := make([]float64, sp.Train.N)
	for i := range u {
		u[i] = rng.Float64()
	}
	ctx := context.Background()
	seen := map[string]bool{}
	for _, tc := range []struct {
		name  string
		lr    float64
		steps int
	}{
		{"a high learning rate", 5, 60},
		{"a tiny one, briefly", 1e-6, 3},
		{"the code's", 1, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es := DefaultEval()
			es.Model, es.Steps, es.EvalEvery, es.MinStep, es.LR, es.WeightDecay = "mlp:8", tc.steps, 1, 1, tc.lr, 0
			own, err := WeightedERM(ctx, sp, u, es, "maple")
			if err != nil {
				t.Fatal(err)
			}
			shared, err := WeightedERM(ctx, sp, u, SharedTraining(es), "maple")
			if err != nil {
				t.Fatal(err)
			}
			es.AlsoShared = true
			got, err := ChooseWeightedERM(ctx, sp, u, es, "maple", nil)
			if err != nil {
				t.Fatal(err)
			}
			want, chosen := own, TrainedOwn
			if shared.ValWorst > own.ValWorst {
				want, chosen = shared, TrainedShared
			}
			if got.Choice == nil || got.Choice.Chosen != chosen || got.Choice.Own.ValWorst != own.ValWorst || got.Choice.Shared.ValWorst != shared.ValWorst ||
				got.Choice.Own.SelectedStep != own.SelectedStep || got.Choice.Shared.SelectedStep != shared.SelectedStep {
				t.Fatalf("choice %+v; want %s of own %v (step %d) and shared %v (step %d)", got.Choice, chosen, own.ValWorst, own.SelectedStep, shared.ValWorst, shared.SelectedStep)
			}
			seen[chosen] = true
			got.Choice = nil
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("the chosen result differs from its training's alone:\n got %+v\nwant %+v", got, want)
			}
		})
	}
	if !seen[TrainedOwn] || !seen[TrainedShared] {
		t.Fatalf("the cases chose %v: want each training chosen once at least", seen)
	}
	// A candidate that fails is no candidate: the other stands, and the
	// choice says why (the own training diverging before its first
	// selectable check; the run failed outright before).
	es := DefaultEval()
	es.Model, es.Steps, es.EvalEvery, es.MinStep, es.LR, es.WeightDecay, es.AlsoShared = "mlp:8", 200, 1, 150, 10, 1, true
	got, err := ChooseWeightedERM(ctx, sp, u, es, "maple", nil)
	if err != nil || got.Choice == nil || got.Choice.Chosen != TrainedShared || !strings.Contains(got.Choice.OwnError, "not finite") {
		t.Fatalf("own training diverged: %v, choice %+v; want the shared one kept and the own's error recorded", err, got)
	}
	es = SharedTraining(DefaultEval())
	es.Model, es.AlsoShared = "mlp:8", true
	got, err = ChooseWeightedERM(ctx, sp, u, es, "maple", nil)
	if err != nil || got.Choice != nil {
		t.Fatalf("the shared training chosen against itself: %v, choice %+v; want one training", err, got.Choice)
	}
}
