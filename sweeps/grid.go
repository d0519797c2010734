package sweeps

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/runs"

	"github.com/maple-ood/maple/baselines"
)

// Grid is a sweep's grid: every dataset x training size x model x method
// x seed.
type Grid struct {
	Datasets []string
	Sizes    []int    // training sizes; nil keeps the base config's
	Models   []string // search and evaluation models; nil keeps the base config's
	Methods  []string // a method, or maple:OBJECTIVE
	Seeds    []uint64
	// Search, with Trials > 0, makes each method Trials cells of drawn
	// settings (per seed) instead of one.
	Search Search
}

func fields(s, sep string) []string {
	var out []string
	for _, x := range strings.Split(s, sep) {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// ParseGrid reads the sweep flags: comma-separated datasets, methods,
// seeds and sizes, semicolon-separated models.
func ParseGrid(datasets, methods, seeds, models, sizes string) (Grid, error) {
	g := Grid{Datasets: fields(datasets, ","), Methods: fields(methods, ","), Models: fields(models, ";")}
	for _, s := range fields(seeds, ",") {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return g, fmt.Errorf("--seeds: %q is not a seed", s)
		}
		g.Seeds = append(g.Seeds, n)
	}
	for _, s := range fields(sizes, ",") {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return g, fmt.Errorf("--train-sizes: %q is not a size", s)
		}
		g.Sizes = append(g.Sizes, n)
	}
	if len(g.Datasets) == 0 || len(g.Methods) == 0 || len(g.Seeds) == 0 {
		return g, errors.New("the grid is empty: give --datasets, --methods and --seeds")
	}
	// A value given twice would make two cells of one configuration.
	for _, l := range []struct {
		flag string
		vals []string
	}{{"--datasets", g.Datasets}, {"--methods", g.Methods}, {"--seeds", numbers(g.Seeds)}, {"--models", g.Models}, {"--train-sizes", numbers(g.Sizes)}} {
		seen := map[string]bool{}
		for _, v := range l.vals {
			if seen[v] {
				return g, fmt.Errorf("%s: %q is given twice", l.flag, v)
			}
			seen[v] = true
		}
	}
	return g, nil
}

// numbers are the values of a numeric list as written back (1 and 01
// are one seed).
func numbers[T int | uint64](v []T) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = fmt.Sprint(x)
	}
	return out
}

// mixesRecipes tells whether the grid has baselines with a published
// recipe (baselines.HasRecipe) beside methods without one.
func (g Grid) mixesRecipes() (with, without []string) {
	for _, m := range g.Methods {
		if method, _, _ := strings.Cut(m, ":"); baselines.HasRecipe(method) {
			with = append(with, m)
		} else {
			without = append(without, m)
		}
	}
	if len(with) == 0 || len(without) == 0 {
		return nil, nil
	}
	return with, without
}

// RecipeNote says which of the evaluation flags set the grid's recipe
// baselines do not take ("" when none): in a grid that mixes them with
// other methods, --eval-steps, --eval-lr and the other flags every
// method's evaluation reads (baselines.SharedEvalFields) apply to the other
// methods only, so that a sweep's setting for maple's final weighted ERM
// does not cut short the baselines' published schedules (the IRMv1
// recipe switches its penalty on at step 190 of 501).
func (g Grid) RecipeNote(set map[string]bool) string {
	with, without := g.mixesRecipes()
	if with == nil {
		return ""
	}
	var flags []string
	for _, field := range baselines.SharedEvalFields {
		if f, ok := config.FlagOf(field); ok && set[f] {
			flags = append(flags, "--"+f)
		}
	}
	if len(flags) == 0 {
		return ""
	}
	verb, them := "keep their", "them on their own"
	if len(with) == 1 {
		verb, them = "keeps its", "it on its own"
	}
	return fmt.Sprintf("%s %s published recipe for %s (set for %s); to change it, sweep %s with the flag",
		strings.Join(with, ", "), verb, strings.Join(flags, ", "), strings.Join(without, ", "), them)
}

// Cells returns the grid's cells: base with each combination applied,
// resolved as Resolve does (set and evalModel as given to run), except
// that in a grid mixing recipe baselines with other methods the shared
// evaluation flags apply to the other methods only (RecipeNote). A
// method's own flag (config.CheckMethodFlags) must be read by one of the
// grid's methods.
func (g Grid) Cells(base runs.Config, set map[string]bool, evalModel string) ([]Cell, error) {
	var methods []string
	for _, m := range g.Methods {
		method, _, _ := strings.Cut(m, ":")
		methods = append(methods, method)
	}
	if err := config.CheckMethodFlags(methods, set); err != nil {
		return nil, err
	}
	if err := config.CheckDataFlags(g.Datasets, set); err != nil {
		return nil, err
	}
	mixed, _ := g.mixesRecipes()
	sizes, models := g.Sizes, g.Models
	if len(sizes) == 0 {
		sizes = []int{base.Dataset.TrainSize}
	}
	if len(models) == 0 {
		models = []string{""}
	}
	var cells []Cell
	for _, ds := range g.Datasets {
		for _, n := range sizes {
			for _, model := range models {
				for _, m := range g.Methods {
					trials := []int{0} // a grid: one cell per method
					if g.Search.Trials > 0 {
						trials = nil
						for t := 1; t <= g.Search.Trials; t++ {
							trials = append(trials, t)
						}
					}
					for _, trial := range trials {
						for _, seed := range g.Seeds {
							c, cellSet, ev := base, set, evalModel
							c.Dataset, c.Dataset.TrainSize, c.Settings.Seed = c.Dataset.ForDataset(ds), n, seed
							if model != "" {
								c.Settings.Model, ev = model, ""
								cellSet = maps.Clone(cellSet)
								cellSet["model"] = true
							}
							method, obj, isMaple := strings.Cut(m, ":")
							if _, search := baselines.SearcherOf(method); isMaple && !search {
								return nil, fmt.Errorf("--methods: %q: only maple takes an objective, as maple:rex (method names are lower case)", m)
							}
							c.Method = method
							c, cellSet = config.DropUnread(c, cellSet) // another method's flag: not this cell's
							if mixed != nil && baselines.HasRecipe(method) {
								cellSet = maps.Clone(cellSet)
								for _, field := range baselines.SharedEvalFields {
									f, _ := config.FlagOf(field)
									delete(cellSet, f)
								}
							}
							if isMaple {
								c.Settings.Objective = obj
							}
							label := m
							if trial > 0 {
								drawn, err := g.Search.Draw(m, trial, set)
								if err != nil {
									return nil, err
								}
								cellSet = maps.Clone(cellSet)
								for flag, v := range drawn {
									st, _ := config.Lookup(flag)
									if err := st.Set(&c, v); err != nil {
										return nil, fmt.Errorf("%s trial %d: --%s %s: %w", m, trial, flag, v, err)
									}
									cellSet[flag] = true
								}
								label = fmt.Sprintf("%s trial %d", m, trial)
							}
							c, err := config.Resolve(c, cellSet, ev)
							if err != nil {
								return nil, fmt.Errorf("cell %s %s seed %d: %w", ds, label, seed, err)
							}
							cells = append(cells, Cell{Label: fmt.Sprintf("%s|%d|%s|%s|%d", ds, n, c.Settings.Model, label, seed), Config: c})
						}
					}
				}
			}
		}
	}
	return cells, nil
}

// LabelText is a cell's label as people read it: "synthetic n=all linear
// erm seed 1" for the key "synthetic|0|linear|erm|1" (dataset, training
// size, model, method, seed). The key itself stays as it is where it is
// stored (run.json's cell, the sweep's record) and parsed; a label of
// another shape is returned unchanged.
func LabelText(label string) string {
	p := strings.Split(label, "|")
	if len(p) != 5 {
		return label
	}
	n := "n=" + p[1]
	if p[1] == "0" {
		n = "n=all"
	}
	return fmt.Sprintf("%s %s %s %s seed %s", p[0], n, p[2], p[3], p[4])
}
