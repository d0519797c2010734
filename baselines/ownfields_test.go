package baselines

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/maple-ood/maple/internal/tinydata"
	"github.com/maple-ood/maple/train"
)

// TestMethodOwnFields: each method reads exactly the method-specific
// settings it lists (ownFields), so that package config refuses a flag
// only where it would be ignored: changing a listed setting changes
// what the method trains, changing any other of MethodFields changes
// nothing, bit for bit.
func TestMethodOwnFields(t *testing.T) {
	es := train.DefaultEval()
	es.Model, es.Steps, es.EvalEvery, es.JTTSteps, es.PenaltyAnneal = "mlp:4", 30, 5, 10, 10
	es.MinStep = es.Steps // the last step is selected: every step shows
	es.Penalty = 0.1      // mrm's recipe: at 1000 it prunes every weight at any mask learning rate
	sp := tinydata.Splits(40, 2, 4)
	sp.Oracle = tinydata.Splits(40, 2, 5)
	// A value of each field far from es's.
	changed := map[string]any{"Penalty": 0.0, "PenaltyAnneal": 25, "LfFQ": 0.3, "LfFEMA": 0.3, "MaskKeep": 0.5,
		"MaskLR": 0.5, "DROStep": 1.0, "CVaRAlpha": 0.6, "JTTSteps": 20, "JTTUp": 2.0}
	if len(changed) != len(MethodFields) {
		t.Fatalf("MethodFields has %d fields, the test changes %d", len(MethodFields), len(changed))
	}
	trainOf := func(m string, es train.EvalSettings) string {
		r, err := Train(context.Background(), sp, m, es)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		kept := 0.0
		if r.KeptWeights != nil {
			kept = *r.KeptWeights
		}
		return tinydata.Hash(r.Theta, r.SampleWeights, []float64{r.TestAcc, r.TestWorst, r.ValWorst, float64(r.SelectedStep), kept})
	}
	for _, m := range Trainers() {
		base := trainOf(m, es)
		for _, field := range MethodFields {
			name := strings.TrimPrefix(field, "EvalSettings.")
			v := es
			f := reflect.ValueOf(&v).Elem().FieldByName(name)
			f.Set(reflect.ValueOf(changed[name]).Convert(f.Type()))
			readers, own := Reading(field)
			if !own {
				t.Fatalf("Reading(%s): not a method field", field)
			}
			switch reads, differs := slices.Contains(readers, m), trainOf(m, v) != base; {
			case reads && !differs:
				t.Errorf("%s lists %s, but changing it changed nothing", m, field)
			case !reads && differs:
				t.Errorf("%s does not list %s, but changing it changed what it trains", m, field)
			}
		}
	}
	if got, own := Reading("EvalSettings.LR"); own || got != nil {
		t.Errorf("Reading(train.EvalSettings.LR) = %v, %v: every method reads it", got, own)
	}
}
