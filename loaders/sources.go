package loaders

import (
	"fmt"
	"slices"
	"strings"

	"github.com/maple-ood/maple/internal/registry"
)

// A Source is a dataset Spec.Load can build. A new dataset is its builder
// and a Source in a file of its own, and one line in sources: --dataset,
// its help, completion, Check and Load follow.
type Source interface {
	// Name is the dataset's name for --dataset and in run.json.
	Name() string
	// Load builds the dataset d names, with what Spec.Load prepares for
	// every dataset in in.
	Load(d Spec, in LoadInput) (*Splits, error)
}

// LoadInput is what Spec.Load prepares for every dataset.
type LoadInput struct {
	Seed    uint64     // the run's seed
	Dir     string     // the data directory (DataDir)
	Fetcher *Fetcher   // verified downloads into Dir
	Corr    [3]float64 // Spec.Corr parsed, when it is not ""
}

// Optional parts of a Source, which a dataset from outside maple's
// packages may implement too.
type (
	// OptionReader lists the Spec options only some datasets read that
	// this one reads ("Envs", "ValFraction", "ImageSize", "Columns",
	// "Dim"):
	// Check refuses them for the others, Effective blanks them.
	OptionReader interface{ Options() []string }
	// Checker refuses what cannot work in d, after the shared checks.
	Checker interface{ Check(d Spec) error }
	// Effectiver writes the dataset's defaults out where d leaves them to
	// it (Spec.Effective); without it, label noise -1 is 0.
	Effectiver interface{ Effective(d Spec) Spec }
	// NewRunner sets what a new run records unlike an old spec
	// (Spec.ForNewRun).
	NewRunner interface{ ForNewRun(d Spec) Spec }
	// OptionHelper says what an option of Spec ("Corr", "LabelNoise",
	// "Downsample", "Dir", "ImageSize", "Features", "CSV", "Columns",
	// "Envs", "ValFraction", "Dim") means for this dataset, with its default;
	// "" for an option it does not read. OptionHelp writes the options'
	// help from it.
	OptionHelper interface{ OptionHelp(option string) string }
	// ModelDefaulter names the search model a run on this dataset takes
	// when --model is not given (DefaultModel); without it, core's
	// default (mlp:390,390).
	ModelDefaulter interface{ DefaultModel() string }
	// Embedder marks a dataset whose rows are a pretrained network's
	// features: the baselines train there by their embeddings recipes
	// (Embeddings).
	Embedder interface{ Embeddings() bool }
)

// DefaultModel is the search model of a run on the dataset called name
// when --model is not given, or "" for core's default (mlp:390,390):
// linear on synthetic and on embeddings (waterbirds-sim, celeba-sim,
// features).
func DefaultModel(name string) string {
	if s, ok := lookupSource(name); ok {
		if m, ok := s.(ModelDefaulter); ok {
			return m.DefaultModel()
		}
	}
	return ""
}

// Embeddings tells whether the rows of the dataset called name are a
// pretrained network's features (waterbirds-sim, celeba-sim, features):
// the baselines then train by their embeddings recipes.
func Embeddings(name string) bool {
	if s, ok := lookupSource(name); ok {
		if e, ok := s.(Embedder); ok {
			return e.Embeddings()
		}
	}
	return false
}

// sources holds the datasets, in the order --dataset's help and
// completion show them.
var sources = newSources(syntheticSource{}, cmnistSource{}, dominoSource{"mnist-fashion"}, dominoSource{"cifar-mnist"},
	imageSource{"waterbirds"}, imageSource{"celeba"}, embeddingsSource{DefaultWaterbirdsSim}, embeddingsSource{DefaultCelebASim},
	featuresSource{})

func newSources(ss ...Source) *registry.Registry[Source] {
	r := registry.New[Source]("dataset")
	for _, s := range ss {
		r.Register(s.Name(), s)
	}
	return r
}

// Names lists the datasets Spec.Load knows (sources), in the order
// registered.
func Names() []string { return sources.Names() }

// Register adds a dataset from a package of its own (from its init:
// --dataset, its help, completion, Check and Load follow); it panics when
// the name is taken (a programming error).
func Register(s Source) { sources.Register(s.Name(), s) }

func lookupSource(name string) (Source, bool) { return sources.Lookup(name) }

// OptionHelp describes option (a Spec field, see OptionHelper) for the
// datasets that read it, in registry order, the datasets whose text is
// the same sharing it: "mnist-fashion: keep every k-th pixel (default
// 2); cifar-mnist: ...". Each dataset says it in its own file, so that a
// new dataset needs no edit to the help of the options it reads.
func OptionHelp(option string) string {
	var texts []string
	who := map[string][]string{}
	for _, s := range sources.Values() {
		h, ok := s.(OptionHelper)
		if !ok {
			continue
		}
		t := h.OptionHelp(option)
		if t == "" {
			continue
		}
		if who[t] == nil {
			texts = append(texts, t)
		}
		who[t] = append(who[t], s.Name())
	}
	parts := make([]string, len(texts))
	for i, t := range texts {
		parts[i] = strings.Join(who[t], ", ") + ": " + t
	}
	return strings.Join(parts, "; ")
}

// triple writes a Spec.Corr value.
func triple(t [3]float64) string {
	return fmt.Sprintf("%g,%g,%g", t[0], t[1], t[2])
}

// reading returns the datasets that read option (see OptionReader).
func reading(option string) []string {
	var out []string
	for _, s := range sources.Values() {
		if o, ok := s.(OptionReader); ok && slices.Contains(o.Options(), option) {
			out = append(out, s.Name())
		}
	}
	return out
}

// Reading returns the datasets that read option, one of the Spec options
// only some datasets read ("Envs", "ValFraction", "ImageSize",
// "Columns", "Dim"), in registry order.
func Reading(option string) []string { return reading(option) }

// reads tells whether the dataset called name reads option.
func reads(name, option string) bool { return slices.Contains(reading(option), name) }

// Describes tells whether the dataset called name reads option, one of
// the Spec options whose meaning a dataset gives (see OptionHelper), or
// lists it among those only some datasets read: what maple show lists of
// a run's data.
func Describes(name, option string) bool {
	if reads(name, option) {
		return true
	}
	s, ok := lookupSource(name)
	if !ok {
		return false
	}
	h, ok := s.(OptionHelper)
	return ok && h.OptionHelp(option) != ""
}

func unknownDataset(name string) error {
	return fmt.Errorf("--dataset %q: want one of %s", name, strings.Join(Names(), ", "))
}
