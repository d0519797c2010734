package baselines

import (
	"context"
	"math"
	"testing"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/internal/tinydata"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/train"
)

// TestJTTErrorSet: JTT records its error set, the training samples its
// first stage misclassified, in all and per group, as a first stage
// trained here beside it counts them; a first stage that fits the
// training set leaves the set empty, the run says it changed nothing and
// names --jtt-steps (the first stage's steps) to lower, not --jtt-up,
// which cannot grow an empty set. Before, JTT recorded nothing of it.
func TestJTTErrorSet(t *testing.T) {
	for _, tc := range []struct {
		name       string
		jttSteps   int
		degenerate train.Degeneracy
		change     []string // the fields to change, in order
	}{
		{name: "stage 1 errs", jttSteps: 3},
		{name: "stage 1 fits the training set", jttSteps: 800, degenerate: train.DegenerateEmptySet, change: []string{"EvalSettings.JTTSteps"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := tinydata.Splits(24, 2, 3)
			es := train.DefaultEval()
			es.Model, es.Optimizer, es.LR, es.Steps, es.EvalEvery, es.JTTSteps = "mlp:32", "adam", 0.02, 4, 2, tc.jttSteps
			res, err := Train(context.Background(), sp, "jtt", es)
			if err != nil {
				t.Fatal(err)
			}
			rw := res.Reweighting
			if rw == nil || rw.Set == nil {
				t.Fatalf("no error set recorded: %+v", rw)
			}
			// The first stage again, its errors counted per group.
			first := es
			first.Steps = es.JTTSteps
			tr, err := train.NewTrainer(sp, first, nil)
			if err != nil {
				t.Fatal(err)
			}
			for range first.Steps {
				if err := tr.WeightedGrad(train.Ones(sp.Train.N)); err != nil {
					t.Fatal(err)
				}
				tr.Opt.Step(tr.Theta, tr.Grad)
			}
			f := tr.Logits()
			perGroup, total := make([]int, len(sp.Train.GroupNames)), 0
			for i, g := range sp.Train.Group {
				if nets.Predict(f, tr.K, i) != sp.Train.Y[i] {
					perGroup[g]++
					total++
				}
			}
			if rw.Set.Size != total {
				t.Errorf("error set %d, counted %d", rw.Set.Size, total)
			}
			for g, n := range perGroup {
				if got := rw.Groups[g]; got.InSet != n || got.Name != sp.Train.GroupNames[g] {
					t.Errorf("group %d: %+v, counted %d errors in %s", g, got, n, sp.Train.GroupNames[g])
				}
			}
			if tc.degenerate == "" && total == 0 {
				t.Fatalf("the case wants errors, and stage 1 made none")
			}
			if rw.Degenerate != tc.degenerate {
				t.Errorf("degenerate %q, want %q (moved %g)", rw.Degenerate, tc.degenerate, rw.Moved)
			}
			var change []string
			for _, c := range rw.Change {
				change = append(change, c.Field)
			}
			if len(change) != len(tc.change) || (len(change) > 0 && change[0] != tc.change[0]) {
				t.Errorf("change %q, want %q", change, tc.change)
			}
		})
	}
}

// TestReweightingChangedNothing: each reweighting method records what it
// did to the training weights and says when that was nothing: upweight
// over groups of one size, group DRO whose group weights did not move,
// CVaR over every sample (alpha 1); and says nothing of it when the
// weights moved: upweight and group DRO over unequal groups, CVaR at 0.2,
// LfF. Before, none of them recorded its weights.
func TestReweightingChangedNothing(t *testing.T) {
	balanced := func(d *dataset.Dataset) {
		for i := range d.Group {
			d.Group[i] = int32(i % len(d.GroupNames))
		}
	}
	for _, tc := range []struct {
		name       string
		method     string
		groups     func(*dataset.Dataset) // nil: tinydata's unequal groups
		set        func(*train.EvalSettings)
		degenerate bool
		setSize    int // the set's size, -1 for a method without one
	}{
		{name: "upweight, groups of one size", method: "upweight", groups: balanced, degenerate: true, setSize: -1},
		{name: "upweight, unequal groups", method: "upweight", setSize: -1},
		{name: "groupdro, groups of one size, q hardly moves", method: "groupdro", groups: balanced,
			set: func(es *train.EvalSettings) { es.DROStep = 1e-9 }, degenerate: true, setSize: -1},
		{name: "groupdro, unequal groups", method: "groupdro", setSize: -1},
		{name: "cvar over every sample", method: "cvar", set: func(es *train.EvalSettings) { es.CVaRAlpha = 1 }, degenerate: true, setSize: 40},
		{name: "cvar at 0.2", method: "cvar", setSize: 8},
		{name: "lff", method: "lff", setSize: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := tinydata.Splits(40, 2, 5)
			if tc.groups != nil {
				tc.groups(sp.Train)
			}
			es := Recipe(tc.method, train.DefaultEval(), nil)
			es.Model, es.Steps, es.EvalEvery = "linear", 6, 2
			if tc.set != nil {
				tc.set(&es)
			}
			res, err := Train(context.Background(), sp, tc.method, es)
			if err != nil {
				t.Fatal(err)
			}
			rw := res.Reweighting
			if rw == nil {
				t.Fatal("no reweighting recorded")
			}
			if got := rw.Degenerate != ""; got != tc.degenerate {
				t.Errorf("degenerate %q (moved %g), want degenerate %v", rw.Degenerate, rw.Moved, tc.degenerate)
			}
			switch {
			case tc.setSize < 0 && rw.Set != nil:
				t.Errorf("a set %+v for a method without one", rw.Set)
			case tc.setSize >= 0 && (rw.Set == nil || rw.Set.Size != tc.setSize):
				t.Errorf("set %+v, want %d samples", rw.Set, tc.setSize)
			}
			var share, sizes float64
			for _, g := range rw.Groups {
				share += g.Weight
				sizes += float64(g.Size)
			}
			if math.Abs(share-1) > 1e-9 || sizes != float64(sp.Train.N) || rw.Samples != sp.Train.N {
				t.Errorf("groups' weight shares sum to %g and sizes to %g of %d: %+v", share, sizes, sp.Train.N, rw.Groups)
			}
		})
	}
	t.Run("erm records none", func(t *testing.T) {
		es := train.DefaultEval()
		es.Model, es.Steps, es.EvalEvery = "linear", 4, 2
		res, err := Train(context.Background(), tinydata.Splits(20, 2, 5), "erm", es)
		if err != nil {
			t.Fatal(err)
		}
		if res.Reweighting != nil {
			t.Errorf("erm recorded %+v", res.Reweighting)
		}
	})
}
