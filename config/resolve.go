package config

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
)

// Check reports the first setting of c that cannot work, naming its
// flag. It reads nothing from disk.
func Check(c Config) error {
	ok := false
	for _, m := range baselines.Methods() {
		ok = ok || m == c.Method
	}
	if !ok {
		return fmt.Errorf("--method %q: want one of %s", c.Method, strings.Join(baselines.Methods(), ", "))
	}
	if err := c.Dataset.Check(); err != nil {
		return err
	}
	if err := c.Settings.Check(); err != nil {
		return FlagError(err)
	}
	if err := c.Eval.Check(); err != nil {
		return FlagError(err)
	}
	if c.Searches() && c.Eval.SameInit && c.Eval.Model != c.Settings.Model {
		return fmt.Errorf("--eval-same-init: the evaluation model %s is not the search model %s; give --eval-model %s or drop --eval-same-init", c.Eval.Model, c.Settings.Model, c.Settings.Model)
	}
	if c.CheckpointEvery < 1 {
		return fmt.Errorf("--checkpoint-every %d: want at least 1", c.CheckpointEvery)
	}
	return nil
}

// CheckMachine reports a setting of c that this build and CPU cannot
// compute (--precision bf16 without native bf16 products), naming its
// flag. Check leaves it out, so that a grid is described, and a run read,
// on any machine; what runs c here asks it before creating anything.
func CheckMachine(c Config) error {
	return FlagError(c.Settings.CheckMachine())
}

// Resolve fills the settings a run derives from others and checks the
// config: without --model the search model is the dataset's
// (loaders.DefaultModel: linear on synthetic and on embeddings); the evaluation model is evalModel, else the search
// model; the evaluation seed is the run's seed; a baseline with a
// published recipe (baselines.Recipe), or on embeddings its embeddings
// recipe (baselines.EmbeddingsRecipe), takes its settings where the
// person set no flag (set holds the flags they set); a cmnist run without
// an env split gets the shuffled one (loaders.Spec.ForNewRun), and other
// datasets drop the option unless it was set; --keep without --keep0
// keeps that fraction from the start (keep0 = keep). Paths become
// absolute, so that the run can be resumed, exported or evaluated from
// any directory.
func Resolve(c Config, set map[string]bool, evalModel string) (Config, error) {
	if m := loaders.DefaultModel(c.Dataset.Name); !set["model"] && m != "" {
		c.Settings.Model = m
	}
	c.Eval.Model, c.Eval.Seed = evalModel, c.Settings.Seed
	if c.Settings.Precision == "f32" {
		c.Settings.Precision = "" // the default, as runs before the flag existed record it
	}
	c.Dataset = c.Dataset.ForNewRun()
	if !set["cmnist-envs"] {
		c.Dataset = c.Dataset.ForDataset(c.Dataset.Name) // only cmnist has the option; no other hash changes
	}
	if c.Eval.Model == "" {
		c.Eval.Model = c.Settings.Model
	}
	if loaders.Embeddings(c.Dataset.Name) {
		c.Eval = baselines.EmbeddingsRecipe(c.Method, c.Eval, FieldsSet(set))
	}
	c.Eval = baselines.Recipe(c.Method, c.Eval, FieldsSet(set))
	if c.Searches() {
		c.Settings = core.ObjectiveDefaults(c.Settings, FieldsSet(set))
		c.Eval = core.MapleEvaluation(c.Eval, c.Settings.Model, FieldsSet(set))
	}
	if c.Settings.Recipe == core.RecipeReference {
		c.Settings, c.Eval = core.ReferenceRecipe(c.Settings, c.Eval, FieldsSet(set))
	}
	if set["keep"] && !set["keep0"] {
		c.Settings.Keep0 = c.Settings.Keep // a subset of --keep from the start
	}
	c.Settings = c.Settings.Canonical() // each computation spelt one way (an outer scale of 1 as 0)
	if err := Check(c); err != nil {
		return c, err
	}
	var err error
	if c.Dataset, err = c.Dataset.Abs(); err != nil {
		return c, err
	}
	if c.Settings.InitParams != "" {
		if c.Settings.InitParams, err = filepath.Abs(c.Settings.InitParams); err != nil {
			return c, fmt.Errorf("--init-params: %w", err)
		}
	}
	return c, nil
}
