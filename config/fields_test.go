package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/setting"
	"github.com/maple-ood/maple/train"
)

// TestFlagError: core names fields; every user-facing message names the
// flag instead, also inside a wrapped error, and for a field the table
// records without a flag its name there.
func TestFlagError(t *testing.T) {
	tests := []struct {
		name string
		mod  func(c *Config)
		want string
		not  string
	}{
		{"rate", func(c *Config) { c.Settings.InnerLR = 0 }, "--inner-lr 0: want a finite number in (0, 10]", "Settings.InnerLR"},
		{"eval steps", func(c *Config) { c.Eval.Steps = 1e9 }, "--eval-steps 1000000000: want 1 to 1000000", "EvalSettings"},
		{"two fields", func(c *Config) { c.Settings.Keep, c.Settings.Keep0 = 0.5, 0.3 }, "--keep 0.5 is above --keep0 0.3", "Settings."},
		{"choice", func(c *Config) { c.Settings.Objective = "irm2" }, `--objective "irm2": want one of`, "Settings."},
		{"model", func(c *Config) { c.Settings.Model = "mlp:x" }, "--model: ", "Settings."},
		{"no flag", func(c *Config) { c.Settings.ClipNorm = -1 }, "clip-norm -1: want", "Settings."},
		{"mask keep", func(c *Config) { c.Eval.MaskKeep = 1.5 }, "--mask-keep 1.5: want a finite number in [0, 1]", "EvalSettings"},
		{"mask lr", func(c *Config) { c.Eval.MaskLR = -1 }, "--mask-lr -1: want a finite number in [0, 10]", "EvalSettings"},
		{"lff q", func(c *Config) { c.Eval.LfFQ = 1.5 }, "--lff-q 1.5: want a finite number in [0, 1]", "EvalSettings"},
		{"lff ema", func(c *Config) { c.Eval.LfFEMA = 1 }, "--lff-ema 1: want a finite number in [0, 1)", "EvalSettings"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig("synthetic")
			tc.mod(&c)
			err := Check(c)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), tc.not) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			var se *setting.Error
			if !errors.As(err, &se) {
				t.Errorf("the flag error no longer wraps core's %T", se)
			}
			if wrapped := FlagError(errWrap{err}); wrapped.Error() != "resume: "+err.Error() {
				t.Errorf("wrapped twice: %q", wrapped)
			}
		})
	}
	if err := FlagError(errors.New("plain")); err.Error() != "plain" {
		t.Errorf("a plain error changed: %v", err)
	}
}

type errWrap struct{ err error }

func (e errWrap) Error() string { return "resume: " + e.err.Error() }
func (e errWrap) Unwrap() error { return e.err }

// TestEveryFieldHasARow: every exported field of core's Settings and
// EvalSettings is a row of the settings table, so that a core error about
// any of them names a flag (or a recorded setting), and a recipe keyed by
// fields sees the flags a person gave.
func TestEveryFieldHasARow(t *testing.T) {
	internal := map[string]bool{ // set by maple itself, never by a person
		"EvalSettings.Seed":   true, // the run's --seed
		"EvalSettings.Recipe": true, // the recipe's name, written by the recipe
	}
	for prefix, v := range map[string]any{"Settings.": core.Settings{}, "EvalSettings.": train.EvalSettings{}} {
		ty := reflect.TypeOf(v)
		for i := range ty.NumField() {
			path := prefix + ty.Field(i).Name
			if _, ok := fieldFlags()[path]; !ok && ty.Field(i).IsExported() && !internal[path] {
				t.Errorf("%s has no row in Table", path)
			}
		}
	}
}

// TestRecipesKeyedByFields: a recipe leaves alone every setting a person
// gave. With every flag given, each recipe changes nothing but its name;
// a recipe keyed by a misspelt field would apply anyway and fail here.
func TestRecipesKeyedByFields(t *testing.T) {
	all := map[string]bool{}
	for _, s := range Table {
		all[s.Flag] = true
	}
	fields := FieldsSet(all)
	c := DefaultConfig("cmnist")
	for _, m := range baselines.Methods() {
		got := baselines.Recipe(m, c.Eval, fields)
		got.Recipe = c.Eval.Recipe
		if got != c.Eval {
			t.Errorf("%s's recipe changed a setting the person gave:\n got %+v\nwant %+v", m, got, c.Eval)
		}
	}
	set, ev := core.ReferenceRecipe(c.Settings, c.Eval, fields)
	set.Recipe, ev.RefTrainAcc = c.Settings.Recipe, c.Eval.RefTrainAcc
	if set != c.Settings || ev != c.Eval {
		t.Errorf("the reference recipe changed a setting the person gave:\n%+v\n%+v", set, ev)
	}
	for _, f := range baselines.SharedEvalFields {
		if _, ok := FlagOf(f); !ok {
			t.Errorf("shared evaluation field %s has no flag", f)
		}
	}
}

// TestCheckMethodFlags: a method's own flag is refused, naming the flag
// and the methods that read it, where no method given reads it; any of a
// sweep's methods reading it is enough, and flags every method reads
// pass.
func TestCheckMethodFlags(t *testing.T) {
	tests := []struct {
		name    string
		methods []string
		flags   []string
		want    string // "" = accepted
	}{
		{"read", []string{"mrm"}, []string{"mask-keep", "penalty"}, ""},
		{"shared flag", []string{"lff"}, []string{"eval-lr", "eval-steps", "seed"}, ""},
		{"no flags", []string{"maple"}, nil, ""},
		{"ignored", []string{"lff"}, []string{"mask-keep"}, "--mask-keep: only sparseirm, sparseirm-rex, mrm read it, not lff; drop the flag"},
		{"one reader", []string{"mrm"}, []string{"lff-q"}, "--lff-q: only lff reads it, not mrm"},
		{"maple ignores penalties", []string{"maple"}, []string{"penalty"}, "--penalty: only irmv1, rex,"},
		{"anneal", []string{"mrm"}, []string{"penalty-anneal"}, "--penalty-anneal: only"},
		{"sweep: one method reads it", []string{"lff", "mrm", "maple"}, []string{"mask-lr"}, ""},
		{"sweep: none reads it", []string{"erm", "maple"}, []string{"lff-ema"}, "--lff-ema: only lff reads it, not erm, maple"},
		{"dfr reads no training setting", []string{"dfr"}, []string{"eval-lr"}, "--eval-lr: dfr does not read it"},
		{"dfr's head is linear", []string{"dfr"}, []string{"eval-model"}, "--eval-model: dfr does not read it"},
		{"dfr reads the seed", []string{"dfr"}, []string{"seed"}, ""},
		{"sweep: erm reads what dfr does not", []string{"erm", "dfr"}, []string{"eval-steps"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set := map[string]bool{}
			for _, f := range tc.flags {
				set[f] = true
			}
			err := CheckMethodFlags(tc.methods, set)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// TestDropUnread: a method setting the cell's method does not read goes
// back to its default and leaves the flags given; one it reads stays.
func TestDropUnread(t *testing.T) {
	set := map[string]bool{"mask-keep": true, "lff-q": true, "eval-lr": true}
	c := DefaultConfig("cmnist")
	c.Method, c.Eval.MaskKeep, c.Eval.LfFQ, c.Eval.LR = "mrm", 0.5, 0.3, 0.05
	got, gotSet := DropUnread(c, set)
	if got.Eval.MaskKeep != 0.5 || got.Eval.LfFQ != 0 || got.Eval.LR != 0.05 {
		t.Errorf("mrm: mask-keep %g (want 0.5), lff-q %g (want the default 0), eval-lr %g (want 0.05)", got.Eval.MaskKeep, got.Eval.LfFQ, got.Eval.LR)
	}
	if !gotSet["mask-keep"] || gotSet["lff-q"] || !gotSet["eval-lr"] || !set["lff-q"] {
		t.Errorf("flags %v (the given %v must stay as they were)", gotSet, set)
	}
	c.Method = "dfr"
	if dfr, dfrSet := DropUnread(c, set); dfr.Eval.LR != DefaultConfig("cmnist").Eval.LR || dfrSet["eval-lr"] {
		t.Errorf("dfr, which reads no learning rate: eval-lr %g, flags %v", dfr.Eval.LR, dfrSet)
	}
	plain := DefaultConfig("cmnist")
	plain.Method, plain.Eval.LR = "lff", 0.05
	c.Method = "lff"
	lff, _ := DropUnread(c, set)
	lff.Eval.LfFQ = 0
	if lff.Hash(false) != plain.Hash(false) {
		t.Error("an lff cell given mrm's --mask-keep does not hash as one without it")
	}
}
