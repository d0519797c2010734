package config

import (
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/loaders"
)

// rowPaths maps each row's flag to the path of its field: core's field
// paths for a search's and an evaluation's settings (Settings.Keep,
// EvalSettings.Penalty, as fieldFlags), Dataset.X (Dataset.Columns.Label)
// for the data's, the Config field's name for the others.
var rowPaths = sync.OnceValue(func() map[string]string {
	var c Config
	byAddr := map[any]string{}
	leafPaths(reflect.ValueOf(&c).Elem(), "", byAddr)
	for path, s := range fieldFlags() { // core's names for Settings and Eval
		byAddr[s.Field(&c)] = path
	}
	out := map[string]string{}
	for _, s := range Table {
		out[s.Flag] = byAddr[s.Field(&c)]
	}
	return out
})

// leafPaths records the address of every exported field under v, with its
// path of field names after prefix.
func leafPaths(v reflect.Value, prefix string, out map[any]string) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Type.Kind() == reflect.Struct {
			leafPaths(v.Field(i), prefix+f.Name+".", out)
			continue
		}
		out[v.Field(i).Addr().Interface()] = prefix + f.Name
	}
}

// Applies tells whether the run c reads the setting: a search's settings
// that can change results only a maple run does (a baseline runs no
// search; it reads the seed), a method's own
// setting (baselines.Reading) only the methods that read it, an
// evaluation setting the methods that train by it (baselines.ReadsShared), a dataset
// option only the datasets it means something to (loaders.Describes).
func (s Setting) Applies(c Config) bool {
	if (s.Group == GroupSearch && s.Result || s.MapleOnly) && !c.Searches() {
		return false
	}
	path := rowPaths()[s.Flag]
	if readers, own := baselines.Reading(path); own {
		return slices.Contains(readers, c.Method)
	}
	if strings.HasPrefix(path, "EvalSettings.") && !baselines.ReadsShared(c.Method, path) {
		return false
	}
	if rest, ok := strings.CutPrefix(path, "Dataset."); ok {
		option, _, _ := strings.Cut(rest, ".")
		if loaders.OptionHelp(option) != "" || len(loaders.Reading(option)) > 0 {
			return loaders.Describes(c.Dataset.Name, option)
		}
	}
	return true
}

// Value is the setting's value in c as tables and maple show name it:
// its Key when it has one, else as the flag would be written.
func (s Setting) Value(c Config) string {
	if s.Key != nil {
		return s.Key(c)
	}
	return s.Get(&c)
}
