package config

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/setting"
)

// fieldFlags maps core's field paths (Settings.InnerLR,
// EvalSettings.Steps; see setting.Error) to the settings table's
// rows, by the address each row's Field returns.
var fieldFlags = sync.OnceValue(func() map[string]Setting {
	var c Config
	byAddr := map[any]string{}
	for prefix, v := range map[string]reflect.Value{"Settings.": reflect.ValueOf(&c.Settings).Elem(), "EvalSettings.": reflect.ValueOf(&c.Eval).Elem()} {
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				byAddr[v.Field(i).Addr().Interface()] = prefix + v.Type().Field(i).Name
			}
		}
	}
	out := map[string]Setting{}
	for _, s := range Table {
		if path, ok := byAddr[s.Field(&c)]; ok {
			out[path] = s
		}
	}
	return out
})

// FlagOf returns the flag of a core field path (Settings.InnerLR ->
// inner-lr), and whether the table has one.
func FlagOf(field string) (string, bool) {
	s, ok := fieldFlags()[field]
	if !ok || s.NoFlag {
		return "", false
	}
	return s.Flag, true
}

// FlagName is how a user-facing message names a core field path:
// --jtt-steps for EvalSettings.JTTSteps (see flagName).
func FlagName(field string) string { return flagName(field) }

// flagName is how a user-facing message names a core field: its flag,
// or for a recorded setting without one its name in the table (the
// field path when the table lacks it).
func flagName(field string) string {
	s, ok := fieldFlags()[field]
	switch {
	case !ok:
		return field
	case s.NoFlag:
		return s.Flag
	}
	return "--" + s.Flag
}

// FlagError rewrites a *setting.Error inside err to name flags
// instead of fields (--inner-lr 0: want ..., not Settings.InnerLR 0: want
// ...); other errors are returned as they are.
func FlagError(err error) error {
	var se *setting.Error
	if !errors.As(err, &se) {
		return err
	}
	var renamed *setting.Renamed
	if errors.As(err, &renamed) {
		return err // already rewritten (by a flag, or as run.json spells it)
	}
	return &setting.Renamed{Text: strings.Replace(err.Error(), se.Error(), se.Format(flagName), 1), Err: err}
}

// FieldsSet returns the core field paths of the flags in set (the flags a
// person gave), as core's recipes take them.
func FieldsSet(set map[string]bool) map[string]bool {
	out := map[string]bool{}
	for path, s := range fieldFlags() {
		if set[s.Flag] {
			out[path] = true
		}
	}
	return out
}

// CheckMethodFlags refuses a flag in set (the flags a person gave) that
// none of methods reads: a method's own setting (baselines.MethodFields, such
// as --mask-keep or --lff-q) given to methods that would ignore it, or an
// evaluation setting given to methods that train by none (dfr:
// baselines.ReadsShared). A
// run passes its one method; a sweep its grid's, so that a flag for one
// of its methods may stand beside the others.
func CheckMethodFlags(methods []string, set map[string]bool) error {
	for _, field := range slices.Sorted(maps.Keys(FieldsSet(set))) {
		readers, own := baselines.Reading(field)
		if !own && strings.HasPrefix(field, "EvalSettings.") && !slices.ContainsFunc(methods, func(m string) bool { return baselines.ReadsShared(m, field) }) {
			return fmt.Errorf("%s: %s does not read it (it trains no network by steps); drop the flag", flagName(field), strings.Join(methods, ", "))
		}
		if !own || slices.ContainsFunc(methods, func(m string) bool { return slices.Contains(readers, m) }) {
			continue
		}
		verb := "read"
		if len(readers) == 1 {
			verb = "reads"
		}
		return fmt.Errorf("%s: only %s %s it, not %s; drop the flag, or run one of those methods",
			flagName(field), strings.Join(readers, ", "), verb, strings.Join(methods, ", "))
	}
	return nil
}

// CheckDataFlags refuses a flag in set (the flags a person gave) for a
// dataset option that none of datasets reads (loaders.Describes), such
// as --downsample on synthetic, which was taken and ignored. A run
// passes its one dataset; a sweep its grid's.
func CheckDataFlags(datasets []string, set map[string]bool) error {
	for _, flag := range slices.Sorted(maps.Keys(set)) {
		rest, ok := strings.CutPrefix(rowPaths()[flag], "Dataset.")
		if !ok || !set[flag] {
			continue
		}
		option, _, _ := strings.Cut(rest, ".")
		if loaders.OptionHelp(option) == "" && len(loaders.Reading(option)) == 0 {
			continue // read by every dataset (--train-size, --data-dir)
		}
		if slices.ContainsFunc(datasets, func(d string) bool { return loaders.Describes(d, option) }) {
			continue
		}
		var readers []string
		for _, d := range loaders.Names() {
			if loaders.Describes(d, option) {
				readers = append(readers, d)
			}
		}
		return fmt.Errorf("--%s applies to --dataset %s, not %s: leave it out", flag, strings.Join(readers, ", "), strings.Join(datasets, ", "))
	}
	return nil
}

// DropUnread returns c with every method setting among the flags in set
// (baselines.MethodFields, and the evaluation settings a method such as
// dfr does not read: baselines.ReadsShared) that c's method does not read
// put back at its default, and set without those flags: a sweep's flag for some of its
// methods leaves its other cells as they are without it (their hash,
// the settings their table rows name).
func DropUnread(c Config, set map[string]bool) (Config, map[string]bool) {
	def := DefaultConfig(c.Dataset.Name)
	out := maps.Clone(set)
	for field := range FieldsSet(set) {
		readers, own := baselines.Reading(field)
		if !own && (!strings.HasPrefix(field, "EvalSettings.") || baselines.ReadsShared(c.Method, field)) || own && slices.Contains(readers, c.Method) {
			continue
		}
		st := fieldFlags()[field]
		reflect.ValueOf(st.Field(&c)).Elem().Set(reflect.ValueOf(st.Field(&def)).Elem())
		delete(out, st.Flag)
	}
	return c, out
}

// SettingOf returns the settings table's row of a field ("EvalSettings.LR"),
// whether or not it has a command-line flag (a random search sets the
// recorded ones too).
func SettingOf(field string) (Setting, bool) {
	s, ok := fieldFlags()[field]
	return s, ok
}
