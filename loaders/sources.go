package loaders

import (
	"fmt"
	"slices"
	"strings"
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

// Optional parts of a Source.
type (
	// optionReader lists the Spec options only some datasets read that
	// this one reads ("Envs", "ValFraction", "ImageSize", "Columns"):
	// Check refuses them for the others, Effective blanks them.
	optionReader interface{ options() []string }
	// checker refuses what cannot work in d, after the shared checks.
	checker interface{ check(d Spec) error }
	// effectiver writes the dataset's defaults out where d leaves them to
	// it (Spec.Effective); without it, label noise -1 is 0.
	effectiver interface{ effective(d Spec) Spec }
	// newRunner sets what a new run records unlike an old spec
	// (Spec.ForNewRun).
	newRunner interface{ forNewRun(d Spec) Spec }
)

// sources lists the datasets, in the order --dataset's help and
// completion show them.
var sources = []Source{syntheticSource{}, cmnistSource{}, dominoSource{"mnist-fashion"}, dominoSource{"cifar-mnist"},
	imageSource{"waterbirds"}, imageSource{"celeba"}, featuresSource{}}

// Names lists the datasets Spec.Load knows (sources).
var Names = sourceNames()

// Register adds a dataset from a package of its own (from its init:
// --dataset, its help, completion, Check and Load follow); it panics when
// the name is taken (a programming error).
func Register(s Source) {
	if _, ok := lookupSource(s.Name()); ok {
		panic(fmt.Sprintf("dataset %q registered twice", s.Name()))
	}
	sources = append(sources, s)
	Names = sourceNames()
}

func sourceNames() []string {
	out := make([]string, len(sources))
	for i, s := range sources {
		out[i] = s.Name()
	}
	return out
}

func lookupSource(name string) (Source, bool) {
	for _, s := range sources {
		if s.Name() == name {
			return s, true
		}
	}
	return nil, false
}

// reading returns the datasets that read option (see optionReader).
func reading(option string) []string {
	var out []string
	for _, s := range sources {
		if o, ok := s.(optionReader); ok && slices.Contains(o.options(), option) {
			out = append(out, s.Name())
		}
	}
	return out
}

// reads tells whether the dataset called name reads option.
func reads(name, option string) bool { return slices.Contains(reading(option), name) }

func unknownDataset(name string) error {
	return fmt.Errorf("--dataset %q: want one of %s", name, strings.Join(Names, ", "))
}
