package sweeps

import (
	"maps"
	"strings"
	"testing"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/runs"
)

// TestCMNISTEnvsOption: a new cmnist run gets the IRM code's shuffled env
// split (and so a new hash), a recorded config without the field keeps
// its hash and reads as parity, other datasets keep their hashes, and a
// sweep over several datasets applies --cmnist-envs to cmnist alone.
func TestCMNISTEnvsOption(t *testing.T) {
	recorded := runs.DefaultConfig("cmnist")
	recorded.Dataset.Envs = "" // as run.json files before the option
	oldHash := recorded.Hash(false)
	res, err := config.Resolve(recorded, map[string]bool{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Dataset.Envs != loaders.EnvsShuffle || res.Hash(false) == oldHash {
		t.Errorf("new cmnist run: envs %q, hash %s (the parity hash is %s)", res.Dataset.Envs, res.Hash(false), oldHash)
	}
	if config.Flags(recorded)["cmnist-envs"] != loaders.EnvsParity || config.Flags(res)["cmnist-envs"] != loaders.EnvsShuffle {
		t.Errorf("flags name %q and %q", config.Flags(recorded)["cmnist-envs"], config.Flags(res)["cmnist-envs"])
	}
	syn := runs.DefaultConfig("synthetic")
	syn.Method = "erm" // a search's resolution also derives its evaluation
	before := syn.Hash(false)
	if r, err := config.Resolve(syn, map[string]bool{}, ""); err != nil || r.Dataset.Envs != "" || r.Hash(false) != before {
		t.Errorf("synthetic: %v, envs %q, hash changed %v", err, r.Dataset.Envs, r.Hash(false) != before)
	}
	base := runs.DefaultConfig("cmnist")
	base.Dataset.Envs = loaders.EnvsParity
	g := Grid{Datasets: []string{"cmnist", "synthetic"}, Methods: []string{"erm"}, Seeds: []uint64{1}}
	cells, err := g.Cells(base, map[string]bool{"cmnist-envs": true}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		want := map[string]string{"cmnist": loaders.EnvsParity, "synthetic": ""}[c.Config.Dataset.Name]
		if c.Config.Dataset.Envs != want {
			t.Errorf("%s: envs %q, want %q", c.Label, c.Config.Dataset.Envs, want)
		}
	}
	only := runs.DefaultConfig("synthetic")
	only.Dataset.Envs = loaders.EnvsParity
	if _, err := config.Resolve(only, map[string]bool{"cmnist-envs": true}, ""); err == nil || !strings.Contains(err.Error(), "--cmnist-envs") {
		t.Errorf("--cmnist-envs on synthetic: %v", err)
	}
}

// A sweep's --eval-steps (and the other evaluation flags every method
// reads) sets maple's final weighted ERM and the other baselines; in a grid
// that also has irmv1 or rex, those keep their published recipe (501
// steps, the penalty from step 190) unless they are swept on their own.
func TestSweepKeepsBaselineRecipes(t *testing.T) {
	set := map[string]bool{"eval-steps": true, "eval-lr": true, "penalty": true}
	base := runs.DefaultConfig("cmnist")
	base.Eval.Steps, base.Eval.LR, base.Eval.Penalty = 200, 0.05, 1000
	cases := []struct {
		name      string
		methods   []string
		wantSteps map[string]int // method -> evaluation steps
		note      string         // what the sweep says ("" nothing)
	}{
		{"mixed", []string{"erm", "irmv1", "rex", "maple:rex"}, map[string]int{"erm": 200, "irmv1": 501, "rex": 501, "maple": 200},
			"irmv1, rex keep their published recipe for --eval-lr, --eval-steps (set for erm, maple:rex); to change it, sweep them on their own with the flag"},
		{"one recipe", []string{"irmv1", "maple:irmv1"}, map[string]int{"irmv1": 501, "maple": 200},
			"irmv1 keeps its published recipe for --eval-lr, --eval-steps (set for maple:irmv1); to change it, sweep it on its own with the flag"},
		{"recipes alone", []string{"irmv1", "rex"}, map[string]int{"irmv1": 200, "rex": 200}, ""},
		{"no recipe", []string{"erm", "maple:irmv1"}, map[string]int{"erm": 200, "maple": 200}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := Grid{Datasets: []string{"cmnist"}, Methods: c.methods, Seeds: []uint64{1}}
			set := maps.Clone(set)
			if c.name == "no recipe" {
				delete(set, "penalty") // neither reads it: refused (below)
			}
			cells, err := g.Cells(base, set, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, cell := range cells {
				e, recipe := cell.Config.Eval, baselines.HasRecipe(cell.Config.Method)
				if e.Steps != c.wantSteps[cell.Config.Method] {
					t.Errorf("%s: %d steps, want %d", cell.Label, e.Steps, c.wantSteps[cell.Config.Method])
				}
				if recipe && e.Penalty != 1000 {
					t.Errorf("%s: penalty %g, want the flag's 1000 (its own flag)", cell.Label, e.Penalty)
				}
				if want := map[bool]float64{true: 4.898536566546834e-4, false: 0.05}[c.note != "" && recipe]; e.LR != want {
					t.Errorf("%s: lr %g, want %g", cell.Label, e.LR, want)
				}
			}
			if note := g.RecipeNote(set); note != c.note {
				t.Errorf("note %q, want %q", note, c.note)
			}
		})
	}
	g := Grid{Datasets: []string{"cmnist"}, Methods: []string{"erm", "maple:irmv1"}, Seeds: []uint64{1}}
	if _, err := g.Cells(base, set, ""); err == nil || !strings.Contains(err.Error(), "--penalty: only irmv1, rex,") {
		t.Errorf("--penalty in a grid none of whose methods reads it: %v", err)
	}
}

// TestCellsDropUnreadFlags: in a grid, a method's own flag sets the cells
// of the methods that read it; the others are as they are without it.
func TestCellsDropUnreadFlags(t *testing.T) {
	base := runs.DefaultConfig("cmnist")
	base.Eval.MaskKeep = 0.5
	g := Grid{Datasets: []string{"cmnist"}, Methods: []string{"lff", "mrm"}, Seeds: []uint64{1}}
	cells, err := g.Cells(base, map[string]bool{"mask-keep": true}, "")
	if err != nil {
		t.Fatal(err)
	}
	alone, err := Grid{Datasets: []string{"cmnist"}, Methods: []string{"lff"}, Seeds: []uint64{1}}.Cells(runs.DefaultConfig("cmnist"), map[string]bool{}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		want := map[string]float64{"lff": 0, "mrm": 0.5}[c.Config.Method]
		if c.Config.Eval.MaskKeep != want {
			t.Errorf("%s: mask-keep %g, want %g", c.Label, c.Config.Eval.MaskKeep, want)
		}
		if c.Config.Method == "lff" && c.Config.Hash(false) != alone[0].Config.Hash(false) {
			t.Errorf("%s: hash %s, want that of a grid without --mask-keep, %s", c.Label, c.Config.Hash(false), alone[0].Config.Hash(false))
		}
	}
}

// TestGridRefusesRepeats: a value given twice in a grid's list is
// refused (--methods erm,erm made two cells of one configuration).
func TestGridRefusesRepeats(t *testing.T) {
	for _, tc := range []struct{ name, datasets, methods, seeds, models, sizes, want string }{
		{"methods", "synthetic", "erm,erm", "1", "", "", `--methods: "erm" is given twice`},
		{"seeds", "synthetic", "erm", "1,2,1", "", "", `--seeds: "1" is given twice`},
		{"one seed written two ways", "synthetic", "erm", "1,01", "", "", `--seeds: "1" is given twice`},
		{"models", "synthetic", "erm", "1", "mlp:8;mlp:8", "", `--models: "mlp:8" is given twice`},
		{"none", "synthetic,cmnist", "erm,maple:rex", "1,2", "mlp:8;mlp:16", "0,100", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseGrid(tc.datasets, tc.methods, tc.seeds, tc.models, tc.sizes)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestSweepDim: a sweep over several datasets applies --dim to the
// simulated embeddings alone; their cells without the flag record the
// default, one configuration with --dim 2048, and the other datasets'
// cells keep their hashes.
func TestSweepDim(t *testing.T) {
	g := Grid{Datasets: []string{"cmnist", "waterbirds-sim", "celeba-sim"}, Methods: []string{"erm"}, Seeds: []uint64{1}}
	cellsOf := func(dim int, set map[string]bool) map[string]runs.Config {
		base := runs.DefaultConfig("cmnist")
		base.Dataset.Dim = dim
		cells, err := g.Cells(base, set, "")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]runs.Config{}
		for _, c := range cells {
			out[c.Config.Dataset.Name] = c.Config
		}
		return out
	}
	none, d64, d2048 := cellsOf(0, map[string]bool{}), cellsOf(64, map[string]bool{"dim": true}), cellsOf(2048, map[string]bool{"dim": true})
	for _, tc := range []struct {
		dataset            string
		none, d64          int
		same2048, sameAt64 bool
	}{
		{"cmnist", 0, 0, true, true},
		{"waterbirds-sim", 2048, 64, true, false},
		{"celeba-sim", 2048, 64, true, false},
	} {
		t.Run(tc.dataset, func(t *testing.T) {
			if got := none[tc.dataset].Dataset.Dim; got != tc.none {
				t.Errorf("without --dim: dim %d, want %d", got, tc.none)
			}
			if got := d64[tc.dataset].Dataset.Dim; got != tc.d64 {
				t.Errorf("--dim 64: dim %d, want %d", got, tc.d64)
			}
			if same := none[tc.dataset].Hash(false) == d2048[tc.dataset].Hash(false); same != tc.same2048 {
				t.Errorf("--dim 2048 and no flag one configuration: %v, want %v", same, tc.same2048)
			}
			if same := none[tc.dataset].Hash(false) == d64[tc.dataset].Hash(false); same != tc.sameAt64 {
				t.Errorf("--dim 64 and no flag one configuration: %v, want %v", same, tc.sameAt64)
			}
		})
	}
}
