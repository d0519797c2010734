package config

import (
	"reflect"
	"strings"

	"github.com/maple-ood/maple/core"
)

// Pinned returns the flags of c's settings that a new run copying c
// must keep as they are: every setting of the table but those whose
// value in c is what Resolve derives from the others (the outer scale
// of the objective's default, keep0 equal to keep, the evaluation model
// equal to the search model, a recipe's value). A copy that changes
// the others then derives those again, as `maple run` would: a form
// starting from a run passes Pinned and the fields the person changed
// to Resolve as the flags set.
func Pinned(c Config) map[string]bool {
	all := map[string]bool{}
	for _, s := range Table {
		all[s.Flag] = true
	}
	// A baseline runs no search: its search settings were never chosen
	// for it, so they are derived as a search's would be.
	search := c
	search.Method = core.MethodMaple
	out := map[string]bool{}
	for _, s := range Table {
		from := c
		for path := range FieldsSet(map[string]bool{s.Flag: true}) {
			if strings.HasPrefix(path, "Settings.") {
				from = search
			}
		}
		if s.Axis || !derived(from, s, all) {
			out[s.Flag] = true
		}
	}
	return out
}

// derived tells whether Resolve, given every flag of set but s's, gives
// s the value it has in c: c with s's field changed to another value
// resolves back to c's.
func derived(c Config, s Setting, set map[string]bool) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false // a value the resolution cannot take: pinned
		}
	}()
	want := s.Get(&c)
	probe := c
	switch p := s.Field(&probe).(type) {
	case *string:
		*p += "\x00"
	case *int:
		*p++
	case *uint64:
		*p++
	case *float64:
		*p++
	case *bool:
		*p = !*p
	default:
		return false
	}
	without := map[string]bool{}
	for k, v := range set {
		without[k] = v && k != s.Flag
	}
	got, _ := ResolveSet(probe, without)
	return s.Get(&got) == want
}

// ResolveSet is Resolve of c where set holds the flags a person set:
// the evaluation model is c's when eval-model is in set, else the
// search model.
//
// Every other setting first takes the value a command without its flag
// records, so that what Resolve derives does not depend on the values c
// carried: a copy of a preset's run with the preset cleared runs on the
// defaults, not on the preset's outer split and keep rate.
func ResolveSet(c Config, set map[string]bool) (Config, error) {
	c = unset(c, set)
	evalModel := ""
	if set["eval-model"] {
		evalModel = c.Eval.Model
	}
	return Resolve(c, set, evalModel)
}

// unset returns c with each setting not in set at the value a command
// without its flag records: the settings table's Default where it has
// one, else DefaultConfig's for c's dataset. The evaluation model
// is ResolveSet's own.
func unset(c Config, set map[string]bool) Config {
	def := DefaultConfig(c.Dataset.Name)
	for _, s := range Table {
		if set[s.Flag] || s.Field == nil || s.Flag == "eval-model" || s.Flag == "dataset" {
			continue
		}
		v := reflect.ValueOf(s.Field(&def)).Elem()
		if s.Default != nil {
			v = reflect.ValueOf(s.Default)
		}
		reflect.ValueOf(s.Field(&c)).Elem().Set(v)
	}
	c.Eval.Recipe = "" // a baseline recipe's name, which Resolve writes again
	return c
}

// Defaults returns, for every setting, the value a command without its
// flag records on dataset, as Setting.Get prints it: the settings table's
// Default where it has one, else DefaultConfig's.
func Defaults(dataset string) map[string]string {
	c := unset(DefaultConfig(dataset), map[string]bool{})
	out := map[string]string{}
	for _, s := range Table {
		if s.Field != nil {
			out[s.Flag] = s.Get(&c)
		}
	}
	return out
}
