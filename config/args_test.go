package config

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/spf13/pflag"
)

// flagDefaults returns a config holding every flag's default, and the
// flag set that binds it (as maple run's).
func flagDefaults(t *testing.T) (*Config, *pflag.FlagSet) {
	c := DefaultConfig("synthetic")
	fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
	Register(fl, &c, func(Setting) bool { return true })
	return &c, fl
}

// changeField sets st's field of c to a value unlike its own and unlike
// any default: a string with a comma, a space, an equals sign and a
// leading dash, a number off by a fraction (or by 7), a bool flipped.
func changeField(t *testing.T, st Setting, c *Config) {
	switch p := st.Field(c).(type) {
	case *string:
		*p = "-a b,c=d"
	case *int:
		*p += 7
	case *uint64:
		*p += 7
	case *float64:
		*p = *p*3 - 0.375
	case *bool:
		*p = !*p
	default:
		t.Fatalf("field of type %T", p)
	}
}

// TestArgsRoundTrip: for every row of the table, a config whose setting
// differs from the flag's default, written as arguments by Args and parsed
// by the flags Register makes, is the same config; a row without a flag
// gives no argument. Rows resume takes round-trip through its flags too
// (RegisterResume), as a detached resume's child reads them.
func TestArgsRoundTrip(t *testing.T) {
	for _, st := range Table {
		t.Run(st.Flag, func(t *testing.T) {
			want, _ := flagDefaults(t)
			changeField(t, st, want)
			args := Args(*want, map[string]bool{st.Flag: true, "headless": true})
			if st.NoFlag {
				if len(args) != 0 {
					t.Fatalf("a row without a flag gave %q", args)
				}
				return
			}
			if len(args) != 1 {
				t.Fatalf("args %q, want one", args)
			}
			got, fl := flagDefaults(t)
			if err := fl.Parse(args); err != nil {
				t.Fatalf("parse %q: %v", args, err)
			}
			if !reflect.DeepEqual(*got, *want) {
				t.Errorf("%q parsed: %s = %q, want %q", args, st.Flag, st.Get(got), st.Get(want))
			}
			if !fl.Changed(st.Flag) {
				t.Errorf("%q parsed: the flag is not set", args)
			}
			if st.Resume == "" {
				return
			}
			var given Config
			rfl := pflag.NewFlagSet("resume", pflag.ContinueOnError)
			RegisterResume(rfl, &given)
			if err := rfl.Parse(args); err != nil {
				t.Fatalf("resume's flags: parse %q: %v", args, err)
			}
			if st.Get(&given) != st.Get(want) {
				t.Errorf("resume's flags: %q parsed as %q", args, st.Get(&given))
			}
		})
	}
}

// TestResumed: resume's flags given replace the run's settings, those
// not given keep theirs, and the data's paths become absolute.
func TestResumed(t *testing.T) {
	run := DefaultConfig("synthetic")
	run.Settings.InnerLR, run.Settings.KeepLR = 0.1, 1.5
	run.Dataset.DataDir = "/data"
	for _, tc := range []struct {
		name string
		args []string
		want func(c *Config)
	}{
		{"nothing given", nil, func(*Config) {}},
		{"a rate", []string{"--inner-lr", "0.05"}, func(c *Config) { c.Settings.InnerLR = 0.05 }},
		{"a rate of 0", []string{"--weight-lr", "0"}, func(c *Config) { c.Settings.WeightLR = 0 }},
		{"the data directory", []string{"--data-dir", "/moved/./here"}, func(c *Config) { c.Dataset.DataDir = "/moved/here" }},
		{"the data directory, relative", []string{"--data-dir", "moved"}, func(c *Config) { c.Dataset.DataDir, _ = filepath.Abs("moved") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var given Config
			fl := pflag.NewFlagSet("resume", pflag.ContinueOnError)
			RegisterResume(fl, &given)
			if err := fl.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			set := map[string]bool{}
			fl.Visit(func(f *pflag.Flag) { set[f.Name] = true })
			got, err := Resumed(run, given, set)
			if err != nil {
				t.Fatal(err)
			}
			want := run
			tc.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v\nwant %+v", got.Settings, want.Settings)
			}
		})
	}
}

// TestApplies: a setting shows for the runs that read it.
func TestApplies(t *testing.T) {
	for _, tc := range []struct {
		name, flag, method, dataset string
		want                        bool
	}{
		{"a search's setting, maple", "inner-lr", "maple", "synthetic", true},
		{"a search's setting, a baseline", "inner-lr", "erm", "synthetic", false},
		{"the seed, a baseline", "seed", "erm", "synthetic", true},
		{"the evaluation's, a baseline", "eval-lr", "erm", "synthetic", true},
		{"a method's own, its method", "penalty", "irmv1", "synthetic", true},
		{"a method's own, maple", "penalty", "maple", "synthetic", false},
		{"an option of cmnist, cmnist", "cmnist-envs", "maple", "cmnist", true},
		{"an option of cmnist, synthetic", "cmnist-envs", "maple", "synthetic", false},
		{"the correlations, synthetic", "corr", "maple", "synthetic", true},
		{"the image size, synthetic", "image-size", "maple", "synthetic", false},
		{"the image size, waterbirds", "image-size", "maple", "waterbirds", true},
		{"the dimension, celeba-sim", "dim", "erm", "celeba-sim", true},
		{"the dimension, celeba", "dim", "erm", "celeba", false},
		{"a column, synthetic", "label-col", "maple", "synthetic", false},
		{"the training subset, any dataset", "train-size", "erm", "celeba", true},
		{"a run's own setting", "checkpoint-every", "erm", "synthetic", true},
		{"the evaluation's, dfr", "eval-lr", "dfr", "synthetic", false},
		{"the seed, dfr", "seed", "dfr", "synthetic", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, ok := Lookup(tc.flag)
			if !ok {
				t.Fatalf("no row %s", tc.flag)
			}
			c := DefaultConfig(tc.dataset)
			c.Method = tc.method
			if got := st.Applies(c); got != tc.want {
				t.Errorf("Applies: %v, want %v", got, tc.want)
			}
		})
	}
}
