package gmodel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	G "gorgonia.org/gorgonia"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/internal/registry"
)

// Init is how a parameter's initial values are drawn.
type Init int

const (
	// Xavier draws uniformly in ±sqrt(6/(FanIn+FanOut)), as package nets
	// initialises its weights (so that g:mlp and mlp start alike).
	Xavier Init = iota
	// Zeros sets every value to 0 (biases).
	Zeros
	// Ones sets every value to 1 (batch-norm scales).
	Ones
)

// Param declares one parameter tensor of an architecture. The flat
// parameter vector holds the parameters in the order of Arch.Params, each
// row-major in its Shape.
type Param struct {
	Name          string
	Shape         []int
	Init          Init
	FanIn, FanOut int // for Xavier
}

// Size is the number of values of the parameter.
func (p Param) Size() int {
	n := 1
	for _, d := range p.Shape {
		n *= d
	}
	return n
}

// JVPMode is how a model computes the directional derivative of its
// logits.
type JVPMode int

const (
	// Auto uses double backward when it agrees with a central difference
	// on a probe batch (every op's second derivative right), else the
	// central difference. The default.
	Auto JVPMode = iota
	// Exact insists on double backward: building a model whose graph
	// fails the probe is refused, naming the ops not known to be right.
	Exact
	// FiniteDifference always uses the float64 central difference.
	FiniteDifference
)

func (m JVPMode) String() string {
	switch m {
	case Exact:
		return "double backward"
	case FiniteDifference:
		return "float64 central difference"
	}
	return "auto"
}

// Arch is an architecture: its parameters, and how a batch becomes
// logits.
type Arch struct {
	Params []Param
	// Logits adds to x's graph the batch x k logits of the input x given
	// the parameter nodes p (in Params' order, shaped as declared). x is
	// batch x C x H x W when the input has an image shape (H or W above
	// 1), else batch x D. Constants must take x's dtype: the same Logits
	// builds float32 and float64 graphs.
	Logits func(x *G.Node, p []*G.Node) (*G.Node, error)
	// JVP is how the model computes its JVP (default Auto).
	JVP JVPMode
	// MaxRows is the most rows one graph run takes (default 0: MaxRows
	// for flat inputs, MaxImageRows for image inputs, whose graphs hold
	// image-shaped activations). An architecture that flattens an image
	// at once, as g:mlp does, holds no more per row than a flat one and
	// can take MaxRows.
	MaxRows int
}

// numParams is the length of the flat parameter vector.
func (a Arch) numParams() int {
	n := 0
	for _, p := range a.Params {
		n += p.Size()
	}
	return n
}

// init draws the flat parameters theta from rng, in Params' order.
func (a Arch) init(theta []float64, rng *rand.Rand) {
	off := 0
	for _, p := range a.Params {
		v := theta[off : off+p.Size()]
		off += p.Size()
		switch p.Init {
		case Xavier:
			b := math.Sqrt(6 / float64(p.FanIn+p.FanOut))
			for i := range v {
				v[i] = (2*rng.Float64() - 1) * b
			}
		case Zeros:
			clear(v)
		case Ones:
			for i := range v {
				v[i] = 1
			}
		}
	}
}

// Builder makes the architecture of a spec's arguments (what follows
// "g:KIND:") for inputs of shape in and k logits.
type Builder func(args string, in dataset.Shape, k int) (Arch, error)

// kind is one registered architecture.
type kind struct {
	syntax   string
	build    Builder
	examples []string
}

// kinds holds the architectures by name.
var kinds = registry.New[kind]("architecture")

// Register adds an architecture: specs g:name[:args] build it with b.
// syntax shows its spec in errors and help (g:name:ARGS); examples are
// offered in completion. It panics when name is taken or not a plain
// word (a programming error, found at init), as every registry of
// maple's does.
func Register(name, syntax string, b Builder, examples ...string) {
	if strings.ContainsAny(name, ": ,") {
		panic(fmt.Sprintf("architecture name %q: want a word without ':', ',' or spaces", name))
	}
	kinds.Register(name, kind{syntax: syntax, build: b, examples: examples})
}

// names lists the registered architectures, sorted.
func names() []string {
	out := kinds.Names()
	sort.Strings(out)
	return out
}

// lookupKind returns the architecture called name.
func lookupKind(name string) (kind, bool) { return kinds.Lookup(name) }

// parse splits a spec g:name[:args] and finds its architecture.
func parse(spec string) (kind, string, error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(spec), "g:")
	if !ok {
		return kind{}, "", fmt.Errorf("model %q: a gorgonia spec starts with \"g:\"", spec)
	}
	name, args, _ := strings.Cut(rest, ":")
	k, ok := lookupKind(name)
	if !ok {
		var syn []string
		for _, n := range names() {
			k, _ := lookupKind(n)
			syn = append(syn, k.syntax)
		}
		return kind{}, "", fmt.Errorf("model %q: unknown gorgonia architecture %q (want %s)", spec, name, strings.Join(syn, ", "))
	}
	return k, args, nil
}

// build makes the architecture of spec for inputs of shape in and k
// logits, and checks its parameters.
func build(spec string, in dataset.Shape, k int) (Arch, error) {
	kd, args, err := parse(spec)
	if err != nil {
		return Arch{}, err
	}
	a, err := kd.build(args, in, k)
	if err != nil {
		return Arch{}, fmt.Errorf("model %s: %w", spec, err)
	}
	if len(a.Params) == 0 || a.Logits == nil {
		return Arch{}, fmt.Errorf("model %s: its Arch has no parameters or no Logits", spec)
	}
	for _, p := range a.Params {
		if p.Size() <= 0 || slices.Contains(p.Shape, 0) {
			return Arch{}, fmt.Errorf("model %s: parameter %s has shape %v", spec, p.Name, p.Shape)
		}
	}
	return a, nil
}
