package config

import (
	"testing"

	"github.com/maple-ood/maple/core"
)

// TestPinned: a run's settings that Resolve derives (the objective's
// outer scale, keep0 following keep, the evaluation model following the
// search model, a setting at its default) are not pinned, so that a copy
// with other fields derives them again; a setting given its own value is.
func TestPinned(t *testing.T) {
	base := func() Config {
		c, err := ResolveSet(DefaultConfig("synthetic"), map[string]bool{})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cases := []struct {
		name      string
		edit      func(c *Config)
		pinned    []string
		notPinned []string
	}{
		{name: "defaults", edit: func(c *Config) {},
			pinned: []string{"dataset", "method"}, notPinned: []string{"outer-scale", "keep0", "eval-model", "objective", "keep", "weight-lr", "seed"}},
		{name: "a seed of its own", edit: func(c *Config) { c.Settings.Seed = 3 }, pinned: []string{"seed"}},
		{name: "an objective of its own", edit: func(c *Config) { c.Settings.Objective = "rex" }, pinned: []string{"objective"}},
		{name: "outer scale given", edit: func(c *Config) { c.Settings.OuterScale = 0.7 }, pinned: []string{"outer-scale"}},
		{name: "rex at its own scale (0, as 1 is recorded)", edit: func(c *Config) { c.Settings.Objective, c.Settings.OuterScale = "rex", 0 }, notPinned: []string{"outer-scale"}},
		{name: "keep alone", edit: func(c *Config) { c.Settings.Keep, c.Settings.Keep0 = 0.5, 0.5 }, pinned: []string{"keep"}, notPinned: []string{"keep0"}},
		{name: "keep annealed from keep0", edit: func(c *Config) { c.Settings.Keep, c.Settings.Keep0 = 0.1, 0.9 }, pinned: []string{"keep", "keep0"}},
		{name: "a baseline's search settings are derived as a search's", edit: func(c *Config) { c.Method = "erm" }, pinned: []string{"method"}, notPinned: []string{"outer-scale", "keep0", "keep"}},
		{name: "evaluation model given", edit: func(c *Config) { c.Eval.Model = "mlp:8" }, pinned: []string{"eval-model"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := base()
			tc.edit(&c)
			p := Pinned(c)
			for _, f := range tc.pinned {
				if !p[f] {
					t.Errorf("%s not pinned", f)
				}
			}
			for _, f := range tc.notPinned {
				if p[f] {
					t.Errorf("%s pinned", f)
				}
			}
		})
	}
}

// TestCopyWithoutPreset: a run of the reference preset copied with the
// preset cleared (the browser's form) runs on maple's defaults: the
// preset's outer split, per-iterate evaluation and tracked figure are
// derived again, not kept as if given (the copy kept --outer-on train).
func TestCopyWithoutPreset(t *testing.T) {
	c := DefaultConfig("cmnist")
	c.Settings.Recipe = core.RecipeReference
	preset, err := ResolveSet(c, map[string]bool{"dataset": true, "recipe": true})
	if err != nil {
		t.Fatal(err)
	}
	set := Pinned(preset)
	preset.Settings.Recipe, set["recipe"] = "", true
	got, err := ResolveSet(preset, set)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ResolveSet(DefaultConfig("cmnist"), map[string]bool{"dataset": true})
	if err != nil {
		t.Fatal(err)
	}
	if got.Hash(false) != want.Hash(false) {
		t.Errorf("copy without the preset\n %+v\n %+v\nwant maple run's\n %+v\n %+v", got.Settings, got.Eval, want.Settings, want.Eval)
	}
}
