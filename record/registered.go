package record

import (
	"fmt"

	"github.com/maple-ood/maple/internal/registry"
)

// objectives are the outer objectives' default scales of the outer risk,
// by name, in the order registered (core.RegisterObjective).
var objectives = registry.New[float64]("objective")

// searchers are the methods that search, by name, each with the label
// listings give a search by its outer objective (baselines.Register).
var searchers = registry.New[func(objective string) string]("searcher")

// RegisterObjective records that an outer objective called name exists,
// with its default scale of the outer risk (1 for most). core calls it
// for each objective it registers; Check accepts the names and
// DefaultSettings reads irmv1's scale. It panics when name is taken.
func RegisterObjective(name string, scale float64) { objectives.Register(name, scale) }

// RegisterSearcher records that the method called name searches, and how
// listings label a search by its objective (Config.MethodName).
// baselines calls it for each Searcher it registers. It panics when name
// is taken.
func RegisterSearcher(name string, label func(objective string) string) {
	searchers.Register(name, label)
}

// Searcher returns the label of the method called name when it searches
// (RegisterSearcher). It panics when no method searches: baselines,
// which registers them, is not linked, and every search would pass for
// a baseline.
func Searcher(name string) (label func(objective string) string, ok bool) {
	label, ok = searchers.Lookup(name)
	if !ok && len(searchers.Names()) == 0 {
		panic("no method that searches is registered: import package baselines")
	}
	return label, ok
}

// Objectives lists the registered outer objectives' names.
func Objectives() []string { return objectives.Names() }

// ObjectiveScale is the registered objective's default scale of the
// outer risk: 1 for a name not registered.
func ObjectiveScale(name string) float64 {
	if sc, ok := objectives.Lookup(name); ok {
		return sc
	}
	return 1
}

// mustObjectiveScale is ObjectiveScale of an objective a default names:
// it panics when none is registered under name (core not linked), since
// the default would be wrong.
func mustObjectiveScale(name string) float64 {
	sc, ok := objectives.Lookup(name)
	if !ok {
		panic(fmt.Sprintf("outer objective %q not registered: import package core", name))
	}
	return sc
}
