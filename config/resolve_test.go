package config

import (
	"reflect"
	"slices"
	"testing"

	"github.com/maple-ood/maple/core"
)

// TestKeep0FollowsKeep: --keep alone keeps that fraction from the start
// (a keep above the default keep0 0.3 was refused as "above --keep0");
// --keep0 given, or the recipe's, is kept.
func TestKeep0FollowsKeep(t *testing.T) {
	for _, c := range []struct {
		name            string
		keep, keep0     float64
		set             []string
		recipe          string
		wantKeep, want0 float64
	}{
		{name: "neither given", wantKeep: 0.3, want0: 0.3},
		{name: "keep alone, above the default keep0", keep: 0.5, set: []string{"keep"}, wantKeep: 0.5, want0: 0.5},
		{name: "keep alone, below it", keep: 0.1, set: []string{"keep"}, wantKeep: 0.1, want0: 0.1},
		{name: "every sample kept, weights learnt", keep: 1, set: []string{"keep", "weight-lr"}, wantKeep: 1, want0: 1},
		{name: "both given: annealed", keep: 0.1, keep0: 0.9, set: []string{"keep", "keep0"}, wantKeep: 0.1, want0: 0.9},
		{name: "keep0 alone", keep0: 0.9, set: []string{"keep0"}, wantKeep: 0.3, want0: 0.9},
		{name: "the preset with keep", keep: 0.5, set: []string{"keep", "recipe"}, recipe: core.RecipeReference, wantKeep: 0.5, want0: 0.5},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig("synthetic")
			set := map[string]bool{}
			for _, f := range c.set {
				set[f] = true
			}
			if set["keep"] {
				cfg.Settings.Keep = c.keep
			}
			if set["keep0"] {
				cfg.Settings.Keep0 = c.keep0
			}
			if set["weight-lr"] {
				cfg.Settings.WeightLR = 0.25
			}
			cfg.Settings.Recipe = c.recipe
			got, err := Resolve(cfg, set, "")
			if err != nil {
				t.Fatal(err)
			}
			if got.Settings.Keep != c.wantKeep || got.Settings.Keep0 != c.want0 {
				t.Errorf("keep %g keep0 %g, want %g and %g", got.Settings.Keep, got.Settings.Keep0, c.wantKeep, c.want0)
			}
		})
	}
}

// TestOuterScaleFollowsObjective: a maple search's --outer-scale is its
// objective's own unless given (0.5 for irmv1, the MAPLE code's mean over
// two environments; 0, meaning 1, for the others, as runs before the
// default recorded it, so that their config hashes stay one).
func TestOuterScaleFollowsObjective(t *testing.T) {
	for _, c := range []struct {
		name, objective string
		given           *float64
		want            float64
	}{
		{name: "irmv1", objective: "irmv1", want: 0.5},
		{name: "irmv1b", objective: "irmv1b", want: 0},
		{name: "rex", objective: "rex", want: 0},
		{name: "cvar", objective: "cvar", want: 0},
		{name: "worst-group", objective: "worst-group", want: 0},
		{name: "irmv1, 1 given (written 0, its canonical form)", objective: "irmv1", given: ptr(1.0), want: 0},
		{name: "irmv1, 0 given", objective: "irmv1", given: ptr(0.0), want: 0},
		{name: "rex, 0.5 given", objective: "rex", given: ptr(0.5), want: 0.5},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig("synthetic")
			cfg.Settings.Objective = c.objective
			set := map[string]bool{"objective": true}
			if c.given != nil {
				cfg.Settings.OuterScale, set["outer-scale"] = *c.given, true
			}
			got, err := Resolve(cfg, set, "")
			if err != nil {
				t.Fatal(err)
			}
			if got.Settings.OuterScale != c.want {
				t.Errorf("outer-scale %g, want %g", got.Settings.OuterScale, c.want)
			}
		})
	}
}

func ptr(v float64) *float64 { return &v }

// TestMapleEvaluationDefault: a maple search evaluates its weights by the
// MAPLE code's final training unless a flag says otherwise (SGD lr 1,
// momentum 0.9, no weight decay, 200 steps, a check at every step, from
// the search's initial parameters where the evaluation model is the search
// model); a baseline keeps the shared evaluation; a flag given is kept.
func TestMapleEvaluationDefault(t *testing.T) {
	for _, c := range []struct {
		name, method, evalModel string
		set                     []string
		lr                      float64
		steps, every, minStep   int
		wd                      float64
		sameInit, alsoShared    bool
	}{
		{name: "maple at its defaults", method: "maple", lr: 1, steps: 200, every: 1, minStep: 1, wd: 0, sameInit: true, alsoShared: true},
		{name: "maple, another evaluation model", method: "maple", evalModel: "mlp:64", lr: 1, steps: 200, every: 1, minStep: 1, wd: 0, alsoShared: true},
		{name: "maple, eval-lr given: that training only", method: "maple", set: []string{"eval-lr"}, lr: 0.1, steps: 200, every: 1, minStep: 1, wd: 0, sameInit: true},
		{name: "maple, eval-same-init given: that training only", method: "maple", set: []string{"eval-same-init"}, lr: 1, steps: 200, every: 1, minStep: 1, wd: 0},
		{name: "maple, eval-also-shared given with eval-lr", method: "maple", set: []string{"eval-lr", "eval-also-shared"}, lr: 0.1, steps: 200, every: 1, minStep: 1, wd: 0, sameInit: true, alsoShared: true},
		{name: "erm", method: "erm", lr: 0.1, steps: 500, every: 10, minStep: 0, wd: 0.001},
		{name: "oracle", method: "oracle", lr: 0.1, steps: 500, every: 10, minStep: 0, wd: 0.001},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig("cmnist")
			cfg.Method = c.method
			cfg.Eval.AlsoShared = slices.Contains(c.set, "eval-also-shared")
			set := map[string]bool{"method": true}
			for _, f := range c.set {
				set[f] = true
			}
			got, err := Resolve(cfg, set, c.evalModel)
			if err != nil {
				t.Fatal(err)
			}
			e := got.Eval
			if e.LR != c.lr || e.Steps != c.steps || e.EvalEvery != c.every || e.MinStep != c.minStep || e.WeightDecay != c.wd || e.Momentum != 0.9 || e.SameInit != c.sameInit || e.AlsoShared != c.alsoShared {
				t.Errorf("lr %g steps %d every %d min-step %d wd %g momentum %g same-init %v also-shared %v, want %g %d %d %d %g 0.9 %v %v",
					e.LR, e.Steps, e.EvalEvery, e.MinStep, e.WeightDecay, e.Momentum, e.SameInit, e.AlsoShared, c.lr, c.steps, c.every, c.minStep, c.wd, c.sameInit, c.alsoShared)
			}
		})
	}
}

// TestDefaultsArePresetOnValidation: `maple run --method maple` at its
// defaults computes what the reference preset computes with its outer
// objective on validation and without its per-iterate evaluation, for
// every objective: the settings differ only by the preset's name and the
// evaluation by the reference protocol's tracked figure (a figure
// recorded beside the result, not a choice) and by the defaults' second
// candidate final training, the shared evaluation, which validation
// weighs against the MAPLE code's (the preset trains only by the
// latter). The ablation's row abl-preset-val is therefore the defaults'
// search with the MAPLE code's final training alone.
func TestDefaultsArePresetOnValidation(t *testing.T) {
	for _, objective := range core.Objectives() {
		t.Run(objective, func(t *testing.T) {
			plain := DefaultConfig("cmnist")
			plain.Settings.Objective = objective
			def, err := Resolve(plain, map[string]bool{"objective": true}, "")
			if err != nil {
				t.Fatal(err)
			}
			preset := DefaultConfig("cmnist")
			preset.Settings.Objective, preset.Settings.Recipe, preset.Settings.OuterOn, preset.Settings.EvalEachIter = objective, core.RecipeReference, "val", false
			ref, err := Resolve(preset, map[string]bool{"objective": true, "recipe": true, "outer-on": true, "eval-each-iter": true}, "")
			if err != nil {
				t.Fatal(err)
			}
			if def.SearchHash() != ref.SearchHash() {
				t.Errorf("search hashes differ: defaults %s, preset %s: a sweep would not take one's search for the other", def.SearchHash(), ref.SearchHash())
			}
			if !def.Eval.AlsoShared || ref.Eval.AlsoShared {
				t.Errorf("also-shared: defaults %v, preset %v; want true, false", def.Eval.AlsoShared, ref.Eval.AlsoShared)
			}
			ref.Settings.Recipe, ref.Eval.RefTrainAcc, ref.Eval.AlsoShared = "", 0, true
			if !reflect.DeepEqual(def.Settings, ref.Settings) {
				t.Errorf("search settings differ:\n defaults %+v\n preset   %+v", def.Settings, ref.Settings)
			}
			if !reflect.DeepEqual(def.Eval, ref.Eval) {
				t.Errorf("evaluation differs:\n defaults %+v\n preset   %+v", def.Eval, ref.Eval)
			}
		})
	}
}

// TestResolveDerivesEvaluationAgain: a config resolved for one method and
// resolved again for another (the browser's form copying a run) takes the
// other's evaluation, as `maple run` gives it: the recipe's values the
// copy carried are not kept as if given (erm copied from a maple run
// trained with lr 1 and the search's initial model; a maple run copied
// from an irmv1 one with Adam).
func TestResolveDerivesEvaluationAgain(t *testing.T) {
	resolve := func(c Config, set map[string]bool) Config {
		t.Helper()
		r, err := ResolveSet(c, set)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	plain := func(method string) Config {
		c := DefaultConfig("cmnist")
		c.Method = method
		return resolve(c, map[string]bool{"method": true})
	}
	for _, c := range []struct{ name, from, to string }{
		{"maple to erm", "maple", "erm"},
		{"maple to irmv1", "maple", "irmv1"},
		{"irmv1 to maple", "irmv1", "maple"},
		{"irmv1 to erm", "irmv1", "erm"},
		{"erm to maple", "erm", "maple"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := plain(c.from)
			cfg.Method = c.to
			got, want := resolve(cfg, map[string]bool{"method": true}).Eval, plain(c.to).Eval
			if !reflect.DeepEqual(got, want) {
				t.Errorf("evaluation\n %+v\nwant what maple run --method %s gives\n %+v", got, c.to, want)
			}
		})
	}
	t.Run("another evaluation model: from a fresh model", func(t *testing.T) {
		cfg := plain("maple")
		cfg.Eval.Model = "mlp:64"
		got := resolve(cfg, map[string]bool{"method": true, "eval-model": true})
		if got.Eval.SameInit {
			t.Error("same-init kept for an evaluation model that is not the search model")
		}
	})
	t.Run("a flag given is kept", func(t *testing.T) {
		cfg := plain("maple")
		cfg.Method, cfg.Eval.LR = "erm", 0.5
		if got := resolve(cfg, map[string]bool{"method": true, "eval-lr": true}); got.Eval.LR != 0.5 {
			t.Errorf("eval-lr %g, want 0.5 as given", got.Eval.LR)
		}
	})
}
