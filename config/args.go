package config

import (
	"fmt"

	"github.com/spf13/pflag"
)

// Register adds to fl a flag for every row of the table that want keeps,
// bound to its field of c, with the row's help and default (its Default,
// else the field's value in c).
func Register(fl *pflag.FlagSet, c *Config, want func(Setting) bool) {
	register(fl, c, want, Setting.HelpText, true)
}

// RegisterResume adds `maple resume`'s flags to fl: one for every row
// with a Resume help, bound to its field of c, whose value in c is the
// default (a given flag is one the person set; see Resumed).
func RegisterResume(fl *pflag.FlagSet, c *Config) {
	register(fl, c, func(s Setting) bool { return s.Resume != "" }, func(s Setting) string { return s.Resume }, false)
}

func register(fl *pflag.FlagSet, c *Config, want func(Setting) bool, help func(Setting) string, rowDefault bool) {
	for _, st := range Table {
		if st.NoFlag || !want(st) {
			continue
		}
		def := func(field any) any {
			if rowDefault && st.Default != nil {
				return st.Default
			}
			return field
		}
		switch p := st.Field(c).(type) {
		case *string:
			fl.StringVar(p, st.Flag, def(*p).(string), help(st))
		case *int:
			fl.IntVar(p, st.Flag, def(*p).(int), help(st))
		case *uint64:
			fl.Uint64Var(p, st.Flag, def(*p).(uint64), help(st))
		case *float64:
			fl.Float64Var(p, st.Flag, def(*p).(float64), help(st))
		case *bool:
			fl.BoolVar(p, st.Flag, def(*p).(bool), help(st))
		default:
			panic(fmt.Sprintf("setting %s: field of type %T", st.Flag, p))
		}
	}
}

// Args returns the command-line arguments that give the settings of c
// named in set (flags, as a command's changed flags are), in the table's
// order, each as --flag=value so that a value may start with a dash. A
// row without a flag has none.
func Args(c Config, set map[string]bool) []string {
	var out []string
	for _, st := range Table {
		if st.NoFlag || !set[st.Flag] {
			continue
		}
		out = append(out, "--"+st.Flag+"="+st.Get(&c))
	}
	return out
}

// Resumed returns c, a run's config as it continues (its learning rates
// those in force), with the settings of `maple resume`'s flags in set
// taken from given, and the data's paths absolute, as Resolve leaves
// them for a new run.
func Resumed(c, given Config, set map[string]bool) (Config, error) {
	for _, st := range Table {
		if st.Resume == "" || !set[st.Flag] {
			continue
		}
		if err := st.Set(&c, st.Get(&given)); err != nil {
			return c, fmt.Errorf("--%s: %w", st.Flag, err)
		}
	}
	var err error
	c.Dataset, err = c.Dataset.Abs()
	return c, err
}
