package baselines

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	reg "github.com/maple-ood/maple/internal/registry"
	"github.com/maple-ood/maple/record"
	"github.com/maple-ood/maple/setting"
	"github.com/maple-ood/maple/train"
)

// A Method is what --method names: the maple search or a comparison
// method. A new method is a type in a file of its own (with its
// supervision, its own fields and its recipe, if any) and one line in
// registry, or a Register call from its own package; --method, its help,
// completion and the browser's form list the registry. A method is a
// Trainer (the baselines) or a Searcher (maple); what else it can do it
// says by the optional interfaces below, which callers ask for with a
// type assertion.
type Method interface {
	// Name is the method's name for --method and in run.json.
	Name() string
}

// A Trainer is a Method that trains es.Model on sp its own way and
// selects on validation: a comparison method.
type Trainer interface {
	Method
	// Train trains and evaluates the method on sp.
	Train(ctx context.Context, sp *dataset.Splits, es train.EvalSettings) (*train.Result, error)
}

// A Searcher is a Method that searches the training samples' weights:
// maple. Package session runs it through core's Engine, outer iteration
// by outer iteration, with checkpoints, the validation score of every
// iterate (it keeps the best), learning rates that can change while it
// runs, and an outer objective (Settings.Objective) that says what it
// reads. Only a Searcher has iterations, checkpoints, rates and an
// objective; callers ask for it (SearcherOf, config.Config.Searches)
// instead of comparing names.
type Searcher interface {
	Method
	// Label names a search with the outer objective in listings
	// ("maple/rex").
	Label(objective string) string
	// ObjectiveSupervision is what a search with the outer objective
	// reads beyond y.
	ObjectiveSupervision(objective string) core.Supervision
}

// Optional parts of a Method, which a method from outside maple's
// packages may implement too.
type (
	// RecipeMethod is a Method with a published recipe (Recipe).
	RecipeMethod interface {
		// Recipe returns es with the recipe applied to the settings not
		// in keep.
		Recipe(es train.EvalSettings, keep map[string]bool) train.EvalSettings
	}
	// SharedReader is a Method that trains by few of the evaluation
	// settings every other method reads (dfr fits a regression of its
	// own, with no steps or rates): it lists those it reads.
	SharedReader interface{ ReadsShared() []string }
	// OwnFielder is a Method that reads some of MethodFields.
	OwnFielder interface {
		// OwnFields lists the MethodFields the method reads.
		OwnFields() []string
	}
	// FieldHelper is a Method that says what one of its OwnFields means
	// for it, with its recipe's value.
	FieldHelper interface{ FieldHelp(field string) string }
	// Supervised is a Method that reads more than y; the others read y
	// alone.
	Supervised interface{ Supervision() core.Supervision }
	// PenaltyUser is a Method that trains with the invariance penalty
	// settings (Penalty, PenaltyAnneal) of train.EvalSettings.
	PenaltyUser interface{ UsesPenalty() bool }
	// Tunable is a Method with settings of its own for a random search
	// to draw (besides the shared evaluation's, SharedSpace).
	Tunable interface{ SearchSpace() []setting.Param }
	// EmbeddingsRecipeMethod is a Method with a recipe for a linear head
	// on a pretrained network's features (EmbeddingsRecipe).
	EmbeddingsRecipeMethod interface {
		// EmbeddingsRecipe returns es with the recipe applied to the
		// settings not in keep.
		EmbeddingsRecipe(es train.EvalSettings, keep map[string]bool) train.EvalSettings
	}
)

// MethodFields are the evaluation settings only some methods read: the
// penalties, LfF's and the masks' settings, and those of groupdro, cvar
// and jtt. A method lists the ones it reads with OwnFields (OwnFielder); every other
// evaluation setting is read by every method's training (and by the
// final weighted ERM of a maple search, which reads none of these).
var MethodFields = []string{"EvalSettings.Penalty", "EvalSettings.PenaltyAnneal", "EvalSettings.LfFQ", "EvalSettings.LfFEMA",
	"EvalSettings.MaskKeep", "EvalSettings.MaskLR", "EvalSettings.DROStep", "EvalSettings.CVaRAlpha", "EvalSettings.JTTSteps", "EvalSettings.JTTUp"}

// ReadsShared tells whether method reads the evaluation setting field
// ("EvalSettings.LR"), one that is not among MethodFields: every method
// does, but those that list what they read (dfr reads the seed alone).
func ReadsShared(method, field string) bool {
	m, _ := lookup(method)
	if r, ok := m.(SharedReader); ok {
		return slices.Contains(r.ReadsShared(), field)
	}
	return true
}

// FieldHelp describes field (one of MethodFields) for the methods that
// read it, in registry order, the methods whose text is the same sharing
// it: "irmv1, rex, bayesirm: penalty weight (...); mrm: ...". Each method
// says it in its own file (FieldHelper), so that a new method needs no edit
// to the help of the settings it reads.
func FieldHelp(field string) string {
	var texts []string
	who := map[string][]string{}
	for _, m := range registry.Values() {
		h, ok := m.(FieldHelper)
		if !ok {
			continue
		}
		t := h.FieldHelp(field)
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
	for _, m := range registry.Values() {
		if o, ok := m.(OwnFielder); ok && slices.Contains(o.OwnFields(), field) {
			methods = append(methods, m.Name())
		}
	}
	return methods, true
}

// registry holds the methods, the maple search first, in the order
// --help and completion show them.
var registry = func() *reg.Registry[Method] {
	r := reg.New[Method]("method")
	for _, m := range []Method{maple{}, weightedMethod{"erm"}, oracle{}, irmPenalty{"irmv1"}, irmPenalty{"rex"}, groupDRO{},
		cvarMethod{}, jtt{}, weightedMethod{"upweight"}, lff{}, sparseIRM{"irmv1"}, sparseIRM{"rex"}, mrm{}, bayesIRM{}, bayesIRMCode{}, dfr{}} {
		register(r, m)
	}
	return r
}()

// register adds m to r and, for a Searcher, its name and label to the
// records' (record.RegisterSearcher: what record.Config.Searches asks).
func register(r *reg.Registry[Method], m Method) {
	r.Register(m.Name(), m)
	if s, ok := m.(Searcher); ok {
		record.RegisterSearcher(m.Name(), s.Label)
	}
}

// Methods lists the methods --method takes, in the order registered: the
// maple search first, then the comparison methods.
func Methods() []string { return registry.Names() }

// Searchers lists the methods that search (Searcher): maple.
func Searchers() []string { return namesOf(func(m Method) bool { _, ok := m.(Searcher); return ok }) }

// Trainers lists the comparison methods (Trainer), in the order
// registered.
func Trainers() []string { return namesOf(func(m Method) bool { _, ok := m.(Trainer); return ok }) }

func namesOf(keep func(Method) bool) []string {
	var out []string
	for _, m := range registry.Values() {
		if keep(m) {
			out = append(out, m.Name())
		}
	}
	return out
}

// Register adds a method from a package of its own (from its init:
// --method, its help, completion and sweeps follow); it panics when the
// name is taken or the method is neither a Trainer nor a Searcher (a
// programming error).
func Register(m Method) {
	_, trains := m.(Trainer)
	_, searches := m.(Searcher)
	if !trains && !searches {
		panic(fmt.Sprintf("method %q is neither a Trainer nor a Searcher", m.Name()))
	}
	register(registry, m)
}

func lookup(name string) (Method, bool) { return registry.Lookup(name) }

// Lookup returns the method called name.
func Lookup(name string) (Method, bool) { return registry.Lookup(name) }

// SearcherOf returns the method called name when it searches (Searcher).
func SearcherOf(name string) (Searcher, bool) {
	m, _ := lookup(name)
	s, ok := m.(Searcher)
	return s, ok
}

// HasRecipe tells whether method is a baseline with a published recipe
// (Recipe).
func HasRecipe(method string) bool {
	m, _ := lookup(method)
	_, ok := m.(RecipeMethod)
	return ok
}

// UsesPenalty tells whether method trains with the invariance penalty
// settings (Penalty, PenaltyAnneal) of train.EvalSettings.
func UsesPenalty(method string) bool {
	m, _ := lookup(method)
	p, ok := m.(PenaltyUser)
	return ok && p.UsesPenalty()
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
	if r, ok := m.(RecipeMethod); ok {
		return r.Recipe(es, keep)
	}
	return es
}

// Train trains one of the comparison methods (a Trainer) on sp.
func Train(ctx context.Context, sp *dataset.Splits, method string, es train.EvalSettings) (*train.Result, error) {
	m, ok := lookup(method)
	if !ok {
		return nil, fmt.Errorf("unknown method %q: want one of %v", method, Methods())
	}
	t, ok := m.(Trainer)
	if !ok {
		return nil, fmt.Errorf("method %q searches: it runs as a search, not a training", method)
	}
	return t.Train(ctx, sp, es)
}

// DataChecker is implemented by a method that refuses some splits
// before a run is created (CheckData asks it).
type DataChecker interface {
	CheckData(sp *dataset.Splits) error
}

// CheckData refuses splits method cannot train on, before a run is
// created (dfr: a validation split without 2 rows of each group); nil
// for a method that trains on any splits.
func CheckData(method string, sp *dataset.Splits) error {
	m, _ := lookup(method)
	if c, ok := m.(DataChecker); ok {
		return c.CheckData(sp)
	}
	return nil
}

// Supervision returns what the training of method reads beyond y: for a
// maple search, what its outer objective reads.
func Supervision(method, objective string) core.Supervision {
	m, _ := lookup(method)
	if s, ok := m.(Searcher); ok {
		return s.ObjectiveSupervision(objective)
	}
	if s, ok := m.(Supervised); ok {
		return s.Supervision()
	}
	return core.SupervisionNone
}
