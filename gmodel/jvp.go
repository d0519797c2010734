package gmodel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
)

// probeRows is the batch of the probe that compares double backward with
// the central difference (more than one row: batch statistics).
const probeRows = 4

// probeTol is the largest relative error ||exact - fd|| / ||fd|| the
// probe accepts from double backward; the central difference's own error
// is about 1e-9 away from ReLU kinks.
const probeTol = 1e-6

// knownOps are the forward ops whose second derivative gorgonia gets
// right: each is in a graph that passes the probe in TestJVPModes (the
// MLP, and a convolution without max-pool).
var knownOps = []string{"denseOp", "linAlgBinOp", "elemBinOp", "elemUnaryOp", "reshapeOp", "sizeOp", "repeatOp", "constantScalar", "im2colOp", "transposeOp"}

// jvpChoices caches each architecture's mode by spec and shape: the
// probe runs once per process.
var jvpChoices sync.Map

type jvpKey struct {
	name string
	in   dataset.Shape
	k    int
}

type jvpChoice struct {
	mode JVPMode
	why  string
	err  error
}

// chooseJVP decides how the model computes JVPs (see JVPMode).
func chooseJVP(name string, a Arch, in dataset.Shape, k int) (JVPMode, string, error) {
	if a.JVP == FiniteDifference {
		return FiniteDifference, "the architecture asks for it", nil
	}
	key := jvpKey{name, in, k}
	if c, ok := jvpChoices.Load(key); ok && a.JVP == Auto {
		c := c.(jvpChoice)
		return c.mode, c.why, c.err
	}
	c := probe(name, a, in, k)
	if a.JVP == Auto {
		jvpChoices.Store(key, c)
	}
	return c.mode, c.why, c.err
}

// probe compares double backward with the central difference on a
// random batch in float64.
func probe(name string, a Arch, in dataset.Shape, k int) jvpChoice {
	refuse := func(what string) jvpChoice {
		if a.JVP == Exact {
			return jvpChoice{err: fmt.Errorf("model %s: %s; ops not known to be right twice: %s; use the central difference (gmodel.FiniteDifference or Auto)", name, what, unknownOps(a, in, k))}
		}
		return jvpChoice{mode: FiniteDifference, why: what}
	}
	for _, kind := range []graphKind{kindForward, kindVJP} {
		g, err := newGraph(a, tensor.Float64, in, k, kind, probeRows)
		if err != nil {
			return jvpChoice{err: fmt.Errorf("model %s: %w", name, err)}
		}
		g.close()
	}
	jg, err := newGraph(a, tensor.Float64, in, k, kindJVP, probeRows)
	if err != nil {
		return refuse(fmt.Sprintf("gorgonia cannot differentiate its graph twice (%v)", err))
	}
	defer jg.close()
	m := &Model[float64]{spec: name, arch: a, in: in, k: k, n: a.numParams(), MaxRows: probeRows, mode: FiniteDifference}
	defer m.Close()
	rng := rand.New(rand.NewPCG(0x9e37, 0x79b9))
	theta := make([]float64, m.n)
	m.Init(theta, rng)
	for i := range theta {
		theta[i] += 0.1 * rng.NormFloat64() // no parameter at a special value (zero biases, unit scales)
	}
	x, dir := make([]float64, probeRows*in.Size()), make([]float64, m.n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	for i := range dir {
		dir[i] = rng.NormFloat64()
	}
	var exact []float64
	if err := safely(func() {
		run(jg, theta, x, dir)
		exact = slices.Clone(value[float64](jg.tangent))
	}); err != nil {
		return refuse(fmt.Sprintf("its second derivative fails to run (%v)", err))
	}
	fd := make([]float64, probeRows*k)
	m.centralDiff(theta, x, probeRows, dir, fd)
	var num, den float64
	for i := range fd {
		num += (exact[i] - fd[i]) * (exact[i] - fd[i])
		den += fd[i] * fd[i]
	}
	rel := math.Sqrt(num / math.Max(den, 1e-300))
	if !(rel <= probeTol) {
		return refuse(fmt.Sprintf("double backward disagrees with the central difference by %.2g (relative)", rel))
	}
	return jvpChoice{mode: Exact, why: fmt.Sprintf("double backward agrees with the central difference to %.1g", rel)}
}

// safely runs f, returning a panic as an error.
func safely(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	f()
	return nil
}

// unknownOps names the forward graph's ops that are not in knownOps (all
// its ops when every one is known).
func unknownOps(a Arch, in dataset.Shape, k int) string {
	g, err := newGraph(a, tensor.Float64, in, k, kindForward, probeRows)
	if err != nil {
		return "(the graph does not build)"
	}
	defer g.close()
	var unknown, all []string
	for _, n := range g.g.AllNodes() {
		if n.Op() == nil {
			continue
		}
		op := opName(n.Op())
		if !slices.Contains(all, op) {
			all = append(all, op)
		}
		if !slices.Contains(knownOps, op) && !slices.Contains(unknown, op) {
			unknown = append(unknown, op)
		}
	}
	if len(unknown) == 0 {
		return strings.Join(all, ", ")
	}
	return strings.Join(unknown, ", ")
}

// opName is an op's Go type without its package: BatchNormOp, maxPoolOp.
func opName(op G.Op) string {
	s := strings.TrimPrefix(fmt.Sprintf("%T", op), "*")
	if i := strings.LastIndex(s, "."); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// centralDiff writes J dir by a float64 central difference of the
// logits along dir.
func (m *Model[T]) centralDiff(theta, x []T, n int, dir, tan []T) {
	th, v := toF64(theta), toF64(dir)
	var thMax, vMax float64
	for i := range th {
		thMax, vMax = math.Max(thMax, math.Abs(th[i])), math.Max(vMax, math.Abs(v[i]))
	}
	if vMax == 0 {
		clear(tan[:n*m.k])
		return
	}
	h := math.Cbrt(0x1p-52) * math.Max(1, thMax) / vMax
	plus, minus := make([]float64, len(th)), make([]float64, len(th))
	for i := range th {
		plus[i], minus[i] = th[i]+h*v[i], th[i]-h*v[i]
	}
	tw := m.float64Twin()
	xf := toF64(x[:n*m.in.Size()])
	fp, fm := make([]float64, n*m.k), make([]float64, n*m.k)
	tw.Forward(plus, xf, n, fp)
	tw.Forward(minus, xf, n, fm)
	for i := range fp {
		tan[i] = T((fp[i] - fm[i]) / (2 * h))
	}
}

// float64Twin is the model in float64, for central differences.
func (m *Model[T]) float64Twin() *Model[float64] {
	if t, ok := any(m).(*Model[float64]); ok {
		return t
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.twin == nil {
		m.twin = &Model[float64]{spec: m.spec, arch: m.arch, in: m.in, k: m.k, n: m.n, MaxRows: m.MaxRows, mode: FiniteDifference}
	}
	return m.twin
}

func toF64[T nets.Float](v []T) []float64 {
	if f, ok := any(v).([]float64); ok {
		return f
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
