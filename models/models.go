package models

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/internal/registry"
	"github.com/maple-ood/maple/nets"
)

// Model is a differentiable model as the search and the trainers use it:
// flat parameters theta, n row-major input rows x, K logits per row.
// nets.Net is one; a Family makes them from a spec.
type Model[T nets.Float] interface {
	// NumParams is the length of theta.
	NumParams() int
	// Init draws initial parameters into theta.
	Init(theta []T, rng *rand.Rand)
	// Forward writes the n x K logits of x into logits.
	Forward(theta, x []T, n int, logits []T)
	// Backprop sets grad = J^T c, the gradient of sum_i c_i . f_i; fill
	// is given the logits of rows [lo, hi) and writes their cotangents c.
	Backprop(theta, x []T, n int, fill func(lo, hi int, logits, cot []T), grad []T)
	// VJP sets grad = J^T cot for the n x K output cotangents cot.
	VJP(theta, x []T, n int, cot, grad []T)
	// JVP writes the logits and their directional derivative J dir.
	JVP(theta, x []T, n int, dir, logits, tan []T)
}

// bf16Model is a Model that can run its products in bf16 (--precision
// bf16); a model without it refuses bf16.
type bf16Model interface{ SetBF16(on bool) error }

// A Family makes models from the specs of its kinds (the part of a spec
// before ':', "mlp" in "mlp:390,390"). A new family is a type that
// implements it and one Register call (from init in models, or from the
// family's package).
type Family interface {
	// Kinds are the spec kinds the family makes.
	Kinds() []string
	// Syntax describes the specs it accepts, one entry per kind, for
	// error messages ("mlp:W1,W2,...").
	Syntax() []string
	// Check reports what is wrong with spec, if anything.
	Check(spec string) error
	// New32 and New64 make a model for inputs of shape in with k logits.
	New32(spec string, in dataset.Shape, k int) (Model[float32], error)
	New64(spec string, in dataset.Shape, k int) (Model[float64], error)
	// Examples are specs to offer in completion.
	Examples() []string
}

// families holds the model families by their kinds (joined by ","),
// and kinds each family by each of its kinds.
var (
	families = registry.New[Family]("model family")
	kinds    = registry.New[Family]("model kind")
)

func init() { Register(netsFamily{}) }

// Register adds a family from a package that models does not import; it
// panics when one of its kinds is taken (a programming error, at init).
func Register(f Family) {
	for _, k := range f.Kinds() {
		if _, ok := kinds.Lookup(k); ok {
			panic(fmt.Sprintf("model kind %q registered twice", k))
		}
	}
	for _, k := range f.Kinds() {
		kinds.Register(k, f)
	}
	families.Register(strings.Join(f.Kinds(), ","), f)
}

// familyOf returns the family whose kind starts spec.
func familyOf(spec string) (Family, error) {
	kind, _, _ := strings.Cut(strings.TrimSpace(spec), ":")
	if f, ok := kinds.Lookup(kind); ok {
		return f, nil
	}
	syntax := Syntax()
	want := syntax[len(syntax)-1]
	if len(syntax) > 1 {
		want = strings.Join(syntax[:len(syntax)-1], ", ") + " or " + want
	}
	return nil, fmt.Errorf("model %q: unknown kind %q (want %s)", spec, kind, want)
}

// Check reports what is wrong with a model spec, if anything.
func Check(spec string) error {
	f, err := familyOf(spec)
	if err != nil {
		return err
	}
	return f.Check(spec)
}

// Syntax lists the specs every family accepts, in registry order
// ("linear", "mlp:W1,W2,...", ...), for help texts.
func Syntax() []string {
	var out []string
	for _, f := range families.Values() {
		out = append(out, f.Syntax()...)
	}
	return out
}

// Examples lists example specs of every family, for completion.
func Examples() []string {
	var out []string
	for _, f := range families.Values() {
		out = append(out, f.Examples()...)
	}
	return out
}

// New makes the model spec names for inputs of shape in with k logits.
func New[T nets.Float](spec string, in dataset.Shape, k int) (Model[T], error) {
	f, err := familyOf(spec)
	if err != nil {
		return nil, err
	}
	var m any
	switch any(*new(T)).(type) {
	case float32:
		m, err = f.New32(spec, in, k)
	default:
		m, err = f.New64(spec, in, k)
	}
	if err != nil {
		return nil, err
	}
	return m.(Model[T]), nil
}

// TrainFLOPs is a model's floating-point operations per sample of one
// training step (forward and backward), 0 when the model does not say.
func TrainFLOPs[T nets.Float](m Model[T]) float64 {
	if f, ok := m.(interface{ TrainFLOPs() float64 }); ok {
		return f.TrainFLOPs()
	}
	return 0
}

// SetBF16 switches m's products to bf16 and back, refusing models that
// cannot.
func SetBF16[T nets.Float](m Model[T], on bool) error {
	b, ok := m.(bf16Model)
	if !ok {
		if !on {
			return nil
		}
		return fmt.Errorf("this model has no bf16 products")
	}
	return b.SetBF16(on)
}

// Outputs is K, the logits of a model for ds: 1 for binary tasks, else
// one per class.
func Outputs(ds *dataset.Dataset) int {
	if ds.Classes == 2 {
		return 1
	}
	return ds.Classes
}

// NumParams returns the parameter count of model on sp's data.
func NumParams(sp *dataset.Splits, model string) (int, error) {
	net, err := New[float32](model, sp.Train.Shape, Outputs(sp.Train))
	if err != nil {
		return 0, err
	}
	return net.NumParams(), nil
}
