package runs

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
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
		{"rate", func(c *Config) { c.Settings.InnerLR = 0 }, "--inner-lr 0: want a finite number in (0, inf)", "Settings.InnerLR"},
		{"eval steps", func(c *Config) { c.Eval.Steps = 1e9 }, "--eval-steps 1000000000: want 1 to 1000000", "EvalSettings"},
		{"two fields", func(c *Config) { c.Settings.Keep, c.Settings.Keep0 = 0.5, 0.3 }, "--keep 0.5 is above --keep0 0.3", "Settings."},
		{"choice", func(c *Config) { c.Settings.Objective = "irm2" }, `--objective "irm2": want one of`, "Settings."},
		{"model", func(c *Config) { c.Settings.Model = "mlp:x" }, "--model: ", "Settings."},
		{"no flag", func(c *Config) { c.Settings.ClipNorm = -1 }, "clip-norm -1: want", "Settings."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig("synthetic")
			tc.mod(&c)
			err := c.Check()
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), tc.not) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			var se *core.SettingError
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
	for prefix, v := range map[string]any{"Settings.": core.Settings{}, "EvalSettings.": core.EvalSettings{}} {
		ty := reflect.TypeOf(v)
		for i := range ty.NumField() {
			path := prefix + ty.Field(i).Name
			if _, ok := fieldFlags()[path]; !ok && ty.Field(i).IsExported() && !internal[path] {
				t.Errorf("%s has no row in SettingsTable", path)
			}
		}
	}
}

// TestRecipesKeyedByFields: a recipe leaves alone every setting a person
// gave. With every flag given, each recipe changes nothing but its name;
// a recipe keyed by a misspelt field would apply anyway and fail here.
func TestRecipesKeyedByFields(t *testing.T) {
	all := map[string]bool{}
	for _, s := range SettingsTable {
		all[s.Flag] = true
	}
	fields := FieldsSet(all)
	c := DefaultConfig("cmnist")
	for _, m := range core.Methods {
		got := core.BaselineRecipe(m, c.Eval, fields)
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
	for _, f := range core.SharedEvalFields {
		if _, ok := FlagOf(f); !ok {
			t.Errorf("shared evaluation field %s has no flag", f)
		}
	}
}
