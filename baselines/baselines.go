package baselines

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/train"
)

// A Method is a comparison method: it trains es.Model on sp its own way
// and selects on validation. A new method is a type in a file of its own
// (with its supervision, its own fields and its recipe, if any) and one
// line in registry; --method, its help, completion and the browser's
// form list the registry.
type Method interface {
	// Name is the method's name for --method and in run.json.
	Name() string
	// Train trains and evaluates the method on sp.
	Train(ctx context.Context, sp *dataset.Splits, es train.EvalSettings) (*train.Result, error)
}

// recipeMethod is a Method with a published recipe (Recipe).
type recipeMethod interface {
	// recipe returns es with the recipe applied to the settings not in
	// keep, and its name.
	recipe(es train.EvalSettings, keep map[string]bool) train.EvalSettings
}

// MethodFields are the evaluation settings only some methods read: the
// penalties, LfF's and the masks' settings, and those of groupdro, cvar
// and jtt. A method lists the ones it reads with ownFields; every other
// evaluation setting is read by every method's training (and by the
// final weighted ERM of a maple search, which reads none of these).
var MethodFields = []string{"EvalSettings.Penalty", "EvalSettings.PenaltyAnneal", "EvalSettings.LfFQ", "EvalSettings.LfFEMA",
	"EvalSettings.MaskKeep", "EvalSettings.MaskLR", "EvalSettings.DROStep", "EvalSettings.CVaRAlpha", "EvalSettings.JTTSteps", "EvalSettings.JTTUp"}

// sharedReader is a Method that trains by few of the evaluation
// settings every other method reads (dfr fits a regression of its own,
// with no steps or rates): it lists those it reads.
type sharedReader interface{ readsShared() []string }

// ReadsShared tells whether method reads the evaluation setting field
// ("EvalSettings.LR"), one that is not among MethodFields: every method
// does, but those that list what they read (dfr reads the seed alone).
func ReadsShared(method, field string) bool {
	m, _ := lookup(method)
	if r, ok := m.(sharedReader); ok {
		return slices.Contains(r.readsShared(), field)
	}
	return true
}

// ownFielder is a Method that reads some of MethodFields.
type ownFielder interface {
	// ownFields lists the MethodFields the method reads.
	ownFields() []string
}

// fieldHelper is a Method that says what one of its ownFields means for
// it, with its recipe's value.
type fieldHelper interface{ fieldHelp(field string) string }

// FieldHelp describes field (one of MethodFields) for the methods that
// read it, in registry order, the methods whose text is the same sharing
// it: "irmv1, rex, bayesirm: penalty weight (...); mrm: ...". Each method
// says it in its own file (fieldHelp), so that a new method needs no edit
// to the help of the settings it reads.
func FieldHelp(field string) string {
	var texts []string
	who := map[string][]string{}
	for _, m := range registry {
		h, ok := m.(fieldHelper)
		if !ok {
			continue
		}
		t := h.fieldHelp(field)
		if t == "" {
			continue
		}
		if who[t] == nil {
			texts = append(texts, t)
		}
		who[t] = append(who[t], m.Name())
	}
	parts := make([]string, len(texts))
	for i, t := range texts {
		parts[i] = strings.Join(who[t], ", ") + ": " + t
	}
	return strings.Join(parts, "; ")
}

// Reading returns the methods of the registry that read field, in
// registry order, when field is one of MethodFields (own true); own is
// false for a field every method reads.
func Reading(field string) (methods []string, own bool) {
	if !slices.Contains(MethodFields, field) {
		return nil, false
	}
	for _, m := range registry {
		if o, ok := m.(ownFielder); ok && slices.Contains(o.ownFields(), field) {
			methods = append(methods, m.Name())
		}
	}
	return methods, true
}

// registry lists the comparison methods, in the order --help and
// completion show them.
var registry = []Method{weightedMethod{"erm"}, oracle{}, irmPenalty{"irmv1"}, irmPenalty{"rex"}, groupDRO{},
	cvarMethod{}, jtt{}, weightedMethod{"upweight"}, lff{}, sparseIRM{"irmv1"}, sparseIRM{"rex"}, mrm{}, bayesIRM{}, bayesIRMCode{}, dfr{}}

// Methods lists what the maple search and Train can run: maple first,
// then the registry.
var Methods = append([]string{core.MethodMaple}, names()...)

// Register adds a comparison method from a package of its own (from its
// init: --method, its help, completion and sweeps follow); it panics
// when the name is taken (a programming error).
func Register(m Method) {
	if _, ok := lookup(m.Name()); ok || m.Name() == core.MethodMaple {
		panic(fmt.Sprintf("method %q registered twice", m.Name()))
	}
	registry = append(registry, m)
	Methods = append([]string{core.MethodMaple}, names()...)
}

func names() []string {
	names := make([]string, len(registry))
	for i, m := range registry {
		names[i] = m.Name()
	}
	return names
}

func lookup(name string) (Method, bool) {
	for _, m := range registry {
		if m.Name() == name {
			return m, true
		}
	}
	return nil, false
}

// HasRecipe tells whether method is a baseline with a published recipe
// (Recipe).
func HasRecipe(method string) bool {
	m, _ := lookup(method)
	_, ok := m.(recipeMethod)
	return ok
}

// UsesPenalty tells whether method trains with the invariance penalty
// settings (Penalty, PenaltyAnneal) of train.EvalSettings.
func UsesPenalty(method string) bool {
	m, _ := lookup(method)
	p, ok := m.(interface{ usesPenalty() bool })
	return ok && p.usesPenalty()
}

// SharedEvalFields are the settings a baseline recipe sets that every
// method's evaluation also reads (the final weighted ERM of maple, erm,
// groupdro, ...); the recipe's other settings (Penalty, PenaltyAnneal)
// are its own.
var SharedEvalFields = []string{"EvalSettings.Optimizer", "EvalSettings.LR", "EvalSettings.L2", "EvalSettings.WeightDecay", "EvalSettings.Steps"}

// Recipe returns es with the published recipe of a baseline
// method applied to the settings not in keep (the fields the person set,
// as Settings.X or EvalSettings.X);
// methods without one are returned unchanged.
func Recipe(method string, es train.EvalSettings, keep map[string]bool) train.EvalSettings {
	m, _ := lookup(method)
	if r, ok := m.(recipeMethod); ok {
		return r.recipe(es, keep)
	}
	return es
}

// Train trains one of the comparison methods (registry) on sp.
func Train(ctx context.Context, sp *dataset.Splits, method string, es train.EvalSettings) (*train.Result, error) {
	m, ok := lookup(method)
	if !ok {
		return nil, fmt.Errorf("unknown method %q: want one of %v", method, Methods)
	}
	return m.Train(ctx, sp, es)
}

// supervised is implemented by the methods that read more than y; the
// others read y alone.
type supervised interface{ supervision() core.Supervision }

// dataChecker refuses splits its method cannot train on (CheckData).
type dataChecker interface {
	checkData(sp *dataset.Splits) error
}

// CheckData refuses splits method cannot train on, before a run is
// created (dfr: a validation split without 2 rows of each group); nil
// for a method that trains on any splits.
func CheckData(method string, sp *dataset.Splits) error {
	m, _ := lookup(method)
	if c, ok := m.(dataChecker); ok {
		return c.checkData(sp)
	}
	return nil
}

// Supervision returns what the training of method reads beyond y: for a
// maple search, what its outer objective reads.
func Supervision(method, objective string) core.Supervision {
	if method == core.MethodMaple {
		return core.ObjectiveSupervision(objective)
	}
	m, _ := lookup(method)
	if s, ok := m.(supervised); ok {
		return s.supervision()
	}
	return core.SupervisionNone
}
