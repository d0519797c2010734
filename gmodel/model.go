package gmodel

import (
	"fmt"
	"math/rand/v2"
	"sync"

	"gorgonia.org/tensor"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
)

// MaxRows is the default largest batch one graph runs: a batch of n rows
// runs in ceil(n/MaxRows) chunks of nearly equal size (so that at most
// two graph sizes serve it). A batch-norm architecture's statistics are
// those of each chunk. Image models run chunks of at most MaxImageRows:
// their graphs hold every layer's activations and im2col patches (a
// g:cnn:16,32 search on ColoredMNIST peaked at 8.4 GB with 2048).
const (
	MaxRows      = 2048
	MaxImageRows = 256
)

// graphsKept is how many graphs a model keeps cached.
const graphsKept = 8

// Model is a gorgonia architecture as a models.Model: flat parameters,
// row-major inputs, k logits per row.
type Model[T nets.Float] struct {
	spec string
	arch Arch
	in   dataset.Shape
	k    int
	n    int // parameters
	// MaxRows is the largest batch one graph runs (default MaxRows).
	MaxRows int

	mode JVPMode // resolved: Exact or FiniteDifference
	why  string  // why the mode was chosen

	mu     sync.Mutex
	graphs []*graph // most recently used last
	twin   *Model[float64]
}

// New builds the model of a g: spec for inputs of shape in and k logits,
// and chooses how it computes JVPs (see JVPMode).
func New[T nets.Float](spec string, in dataset.Shape, k int) (*Model[T], error) {
	a, err := build(spec, in, k)
	if err != nil {
		return nil, err
	}
	return NewArch[T](spec, a, in, k)
}

// NewArch builds the model of an architecture that no spec names (a
// graph of one's own); name labels it in errors.
func NewArch[T nets.Float](name string, a Arch, in dataset.Shape, k int) (*Model[T], error) {
	m := &Model[T]{spec: name, arch: a, in: in, k: k, n: a.numParams(), MaxRows: MaxRows}
	switch {
	case a.MaxRows > 0:
		m.MaxRows = a.MaxRows
	case in.H > 1 || in.W > 1:
		m.MaxRows = MaxImageRows
	}
	mode, why, err := chooseJVP(name, a, in, k)
	if err != nil {
		return nil, err
	}
	m.mode, m.why = mode, why
	return m, nil
}

// JVPMode tells how the model computes JVPs, and why.
func (m *Model[T]) JVPMode() (JVPMode, string) { return m.mode, m.why }

// String is the model's spec.
func (m *Model[T]) String() string { return m.spec }

// NumParams is the length of theta.
func (m *Model[T]) NumParams() int { return m.n }

// Init draws initial parameters into theta from rng.
func (m *Model[T]) Init(theta []T, rng *rand.Rand) {
	m.check(theta, "theta")
	v := make([]float64, m.n)
	m.arch.init(v, rng)
	for i := range v {
		theta[i] = T(v[i])
	}
}

func (m *Model[T]) check(v []T, name string) {
	if len(v) != m.n {
		panic(fmt.Sprintf("%s has length %d, model %s has %d parameters", name, len(v), m.spec, m.n))
	}
}

// chunks calls f for consecutive row ranges [lo, hi) of n rows, nearly
// equal, each at most MaxRows.
func (m *Model[T]) chunks(n int, f func(lo, hi int)) {
	if n <= 0 {
		return
	}
	c := (n + m.MaxRows - 1) / m.MaxRows
	base, extra := n/c, n%c
	lo := 0
	for i := range c {
		hi := lo + base
		if i < extra {
			hi++
		}
		f(lo, hi)
		lo = hi
	}
}

// Forward writes the n x K logits of x into logits.
func (m *Model[T]) Forward(theta, x []T, n int, logits []T) {
	m.check(theta, "theta")
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.in.Size()
	m.chunks(n, func(lo, hi int) {
		g := m.graph(kindForward, hi-lo)
		run(g, theta, x[lo*d:hi*d], nil)
		copy(logits[lo*m.k:hi*m.k], value[T](g.logits))
	})
}

// Backprop sets grad = J^T c, the gradient of sum_i c_i . f_i; fill is
// given the logits of rows [lo, hi) and writes their cotangents c.
func (m *Model[T]) Backprop(theta, x []T, n int, fill func(lo, hi int, logits, cot []T), grad []T) {
	m.check(theta, "theta")
	m.check(grad, "grad")
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(grad)
	d := m.in.Size()
	m.chunks(n, func(lo, hi int) {
		m.gradChunk(theta, x[lo*d:hi*d], hi-lo, func(logits, cot any) { fill(lo, hi, logits.([]T), cot.([]T)) }, grad)
	})
}

// VJP sets grad = J^T cot for the n x K output cotangents cot.
func (m *Model[T]) VJP(theta, x []T, n int, cot, grad []T) {
	m.check(theta, "theta")
	m.check(grad, "grad")
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(grad)
	d := m.in.Size()
	m.chunks(n, func(lo, hi int) {
		m.gradChunk(theta, x[lo*d:hi*d], hi-lo, func(_, c any) { copy(c.([]T), cot[lo*m.k:hi*m.k]) }, grad)
	})
}

// gradChunk adds J^T cot of one chunk of rows to grad, in one run of the
// gradient graph that calls fill for the cotangents cot of the logits.
func (m *Model[T]) gradChunk(theta, x []T, rows int, fill func(logits, cot any), grad []T) {
	vg := m.graph(kindVJP, rows)
	vg.fill = fill
	defer func() { vg.fill = nil }()
	run(vg, theta, x, nil)
	addGrads(vg, grad)
}

// JVP writes the logits and their directional derivative J dir.
func (m *Model[T]) JVP(theta, x []T, n int, dir, logits, tan []T) {
	m.check(theta, "theta")
	m.check(dir, "dir")
	if m.mode == FiniteDifference {
		m.Forward(theta, x, n, logits)
		m.centralDiff(theta, x, n, dir, tan)
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.in.Size()
	m.chunks(n, func(lo, hi int) {
		jg := m.graph(kindJVP, hi-lo)
		run(jg, theta, x[lo*d:hi*d], dir)
		copy(logits[lo*m.k:hi*m.k], value[T](jg.logits))
		copy(tan[lo*m.k:hi*m.k], value[T](jg.tangent))
	})
}

// graph returns the cached graph of kind and rows, building it when it
// is not cached (the least recently used one dropped beyond graphsKept).
func (m *Model[T]) graph(kind graphKind, rows int) *graph {
	for i, g := range m.graphs {
		if g.kind == kind && g.rows == rows {
			m.graphs = append(append(m.graphs[:i:i], m.graphs[i+1:]...), g)
			return g
		}
	}
	g, err := newGraph(m.arch, dtypeOf[T](), m.in, m.k, kind, rows)
	if err != nil {
		// The same architecture built at other sizes when the model was
		// made: a size-dependent failure is the architecture's defect.
		panic(fmt.Sprintf("model %s: graph of %d rows: %v", m.spec, rows, err))
	}
	if len(m.graphs) == graphsKept {
		m.graphs[0].close()
		m.graphs = m.graphs[1:]
	}
	m.graphs = append(m.graphs, g)
	return g
}

// Close frees the model's graphs.
func (m *Model[T]) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, g := range m.graphs {
		g.close()
	}
	m.graphs = nil
	if m.twin != nil {
		m.twin.Close()
	}
}

func dtypeOf[T nets.Float]() tensor.Dtype {
	if _, ok := any(*new(T)).(float32); ok {
		return tensor.Float32
	}
	return tensor.Float64
}

// WeightMask marks the parameters drawn by Xavier (weights) as true, the
// rest (biases, batch-norm scales and shifts) false: what a
// weight-masking method (SparseIRM, MRM) may prune.
func (m *Model[T]) WeightMask() []bool {
	out := make([]bool, 0, m.n)
	for _, p := range m.arch.Params {
		for range p.Size() {
			out = append(out, p.Init == Xavier)
		}
	}
	return out
}
