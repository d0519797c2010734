package gmodel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// opCase is one op of ops.go on inputs of the given shapes, with its
// value written out as a loop.
type opCase struct {
	name   string
	shapes [][]int
	build  func(in G.Nodes) (*G.Node, error)
	// wrt are the inputs the op is differentiable in.
	wrt  []int
	want func(in [][]float64) []float64
}

func opCases(n, m int) []opCase {
	relu := func(v float64) float64 { return max(v, 0) }
	dense := func(kind opKind, rows int) func(G.Nodes) (*G.Node, error) {
		return func(in G.Nodes) (*G.Node, error) { return apply(kind, in[0].Dtype(), rows, in...) }
	}
	return []opCase{
		{"biasReLU", [][]int{{n, m}, {m}}, dense(opBiasReLU, 0), []int{0, 1}, func(in [][]float64) []float64 {
			out := make([]float64, n*m)
			for i := range out {
				out[i] = relu(in[0][i] + in[1][i%m])
			}
			return out
		}},
		{"biasAdd", [][]int{{n, m}, {m}}, dense(opBiasAdd, 0), []int{0, 1}, func(in [][]float64) []float64 {
			out := make([]float64, n*m)
			for i := range out {
				out[i] = in[0][i] + in[1][i%m]
			}
			return out
		}},
		{"gate", [][]int{{n, m}, {n, m}}, dense(opGate, 0), []int{0}, func(in [][]float64) []float64 {
			out := make([]float64, n*m)
			for i := range out {
				if in[1][i] > 0 {
					out[i] = in[0][i]
				}
			}
			return out
		}},
		{"colSum", [][]int{{n, m}}, dense(opColSum, 0), []int{0}, func(in [][]float64) []float64 {
			out := make([]float64, m)
			for i, v := range in[0] {
				out[i%m] += v
			}
			return out
		}},
		{"rows", [][]int{{m}}, dense(opRows, n), []int{0}, func(in [][]float64) []float64 {
			out := make([]float64, n*m)
			for i := range out {
				out[i] = in[0][i%m]
			}
			return out
		}},
		{"dot", [][]int{{n, m}, {n, m}}, func(in G.Nodes) (*G.Node, error) { return dotNodes(in[0], in[1]) }, []int{0, 1}, func(in [][]float64) []float64 {
			var s float64
			for i, v := range in[0] {
				s += v * in[1][i]
			}
			return []float64{s}
		}},
	}
}

// opGraph is one case's graph in one dtype: f = sum(c * op(inputs)), c
// random, and f's gradient in the differentiable inputs by SymDiff.
type opGraph struct {
	in     [][]float64 // the inputs' values, which set writes into the graph's tensors
	set    func()
	out    *G.Node
	cost   *G.Node
	grads  G.Nodes
	vm     G.VM
	values func(*G.Node) []float64
}

func newOpGraph(t *testing.T, c opCase, dt tensor.Dtype, seed uint64) *opGraph {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, seed))
	g := G.NewGraph()
	og := &opGraph{}
	var nodes G.Nodes
	var backs []any
	for i, s := range c.shapes {
		tt, b := newTensor(dt, s)
		v := make([]float64, tt.Size())
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		og.in, backs = append(og.in, v), append(backs, b)
		nodes = append(nodes, G.NewTensor(g, dt, len(s), G.WithShape(s...), G.WithName(fmt.Sprint("in", i)), G.WithValue(tt)))
	}
	og.set = func() {
		for i, v := range og.in {
			switch b := backs[i].(type) {
			case []float32:
				for j := range v {
					b[j] = float32(v[j])
				}
			case []float64:
				copy(b, v)
			}
		}
	}
	var err error
	if og.out, err = c.build(nodes); err != nil {
		t.Fatal(err)
	}
	cs := og.out.Shape()
	if len(cs) == 0 {
		cs = tensor.Shape{1}
	}
	ct, cb := newTensor(dt, cs)
	cw := make([]float64, ct.Size())
	for j := range cw {
		cw[j] = rng.NormFloat64()
	}
	switch b := cb.(type) {
	case []float32:
		for j := range cw {
			b[j] = float32(cw[j])
		}
	case []float64:
		copy(b, cw)
	}
	prod := og.out
	if og.out.IsScalar() {
		prod = must(G.Reshape(og.out, tensor.Shape{1}))
	}
	cn := G.NewTensor(g, dt, prod.Dims(), G.WithShape(prod.Shape()...), G.WithName("c"), G.WithValue(ct))
	og.cost = must(G.Sum(must(G.HadamardProd(prod, cn))))
	var wrt G.Nodes
	for _, i := range c.wrt {
		wrt = append(wrt, nodes[i])
	}
	if og.grads, err = G.Grad(og.cost, wrt...); err != nil {
		t.Fatal(err)
	}
	og.vm = G.NewTapeMachine(g)
	t.Cleanup(func() { og.vm.Close() })
	og.values = func(n *G.Node) []float64 {
		switch d := n.Value().Data().(type) {
		case []float32:
			return toF64(d)
		case []float64:
			return slices.Clone(d)
		case float32:
			return []float64{float64(d)}
		case float64:
			return []float64{d}
		}
		t.Fatalf("%v holds %T", n, n.Value().Data())
		return nil
	}
	return og
}

// run evaluates the graph on og.in: afresh (empty registers), or into the
// registers of the last run as gmodel runs its graphs.
func (og *opGraph) run(t *testing.T, fresh bool) float64 {
	t.Helper()
	og.set()
	if fresh || !rewind(og.vm) {
		og.vm.Reset()
	}
	if err := og.vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return og.values(og.cost)[0]
}

// TestDenseOpsFiniteDifference checks each op of ops.go (and the dot of
// the JVP graph) and its derivative: in float64 the value against a loop
// written here and the gradient gorgonia builds from SymDiff of f =
// sum(c * op(inputs)), c random, against a central difference of f in
// every input entry; in float32 both against float64's; and a run into
// the registers of the last one (on other inputs) against a fresh run.
// The ops a double backward builds (gate, colSum, rows) are checked as
// ops in their own right, so the JVP's second derivative is made of
// checked parts (and TestJVPModes checks g:mlp's whole).
func TestDenseOpsFiniteDifference(t *testing.T) {
	for _, size := range []struct{ n, m int }{{3, 4}, {1, 5}} {
		for ci, c := range opCases(size.n, size.m) {
			t.Run(fmt.Sprintf("%s/%dx%d", c.name, size.n, size.m), func(t *testing.T) {
				g64 := newOpGraph(t, c, tensor.Float64, uint64(ci))
				g64.run(t, true)
				if got, want := g64.values(g64.out), c.want(g64.in); !(relDiff(got, want) < 1e-15) {
					t.Fatalf("value %v, want %v", got, want)
				}
				var exact [][]float64
				for _, gn := range g64.grads {
					exact = append(exact, g64.values(gn))
				}
				const h = 1e-6
				for wi, i := range c.wrt {
					in := g64.in[i]
					fd := make([]float64, len(in))
					for j := range in {
						v := in[j]
						in[j] = v + h
						fp := g64.run(t, false)
						in[j] = v - h
						fm := g64.run(t, false)
						in[j] = v
						fd[j] = (fp - fm) / (2 * h)
					}
					if d := relDiff(exact[wi], fd); !(d < 1e-8) {
						t.Errorf("gradient in input %d: %v, central difference %v (relative %g)", i, exact[wi], fd, d)
					}
				}
				if c.name == "gate" {
					// Zero almost everywhere in y: f does not move.
					y := g64.in[1]
					base := g64.run(t, false)
					v := y[0]
					y[0] = v + math.Copysign(1e-3*math.Abs(v), v) // away from 0, the kink
					if moved := g64.run(t, false); moved != base {
						t.Errorf("gate moved with y away from its kink: %g to %g", base, moved)
					}
					y[0] = v
				}

				// float32 against float64, on the same inputs.
				g32 := newOpGraph(t, c, tensor.Float32, uint64(ci))
				g32.run(t, true)
				g64.run(t, true)
				if d := relDiff(g32.values(g32.out), g64.values(g64.out)); !(d < 1e-6) {
					t.Errorf("float32 value differs from float64's by %g", d)
				}
				for wi := range c.wrt {
					if d := relDiff(g32.values(g32.grads[wi]), g64.values(g64.grads[wi])); !(d < 1e-6) {
						t.Errorf("float32 gradient %d differs from float64's by %g", wi, d)
					}
				}

				// Into the last run's registers, on new inputs, as a fresh run.
				for _, og := range []*opGraph{g32, g64} {
					for _, v := range og.in {
						for j := range v {
							v[j] = -0.5 * v[j]
						}
					}
					og.run(t, false)
					reused := [][]float64{og.values(og.out)}
					for _, gn := range og.grads {
						reused = append(reused, og.values(gn))
					}
					og.run(t, true)
					fresh := [][]float64{og.values(og.out)}
					for _, gn := range og.grads {
						fresh = append(fresh, og.values(gn))
					}
					for k := range fresh {
						if !slices.Equal(reused[k], fresh[k]) {
							t.Errorf("%v: output %d into the last run's registers %v, afresh %v", og.out.Dtype(), k, reused[k], fresh[k])
						}
					}
				}
			})
		}
	}
}

// TestPreallocOnlyWhenItFits: an op writes into the tensor it is handed
// only when that is a tensor of exactly its output's shape that is not an
// input; else into a new one, with the right value either way.
func TestPreallocOnlyWhenItFits(t *testing.T) {
	x := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float64{1, 2, 3, 4, 5, 6}))
	sums := []float64{5, 7, 9}
	for _, c := range []struct {
		name     string
		prealloc G.Value
		used     bool
	}{
		{"none", nil, false},
		{"its shape", tensor.New(tensor.WithShape(3), tensor.WithBacking([]float64{9, 9, 9})), true},
		{"a row of its entries", tensor.New(tensor.WithShape(1, 3), tensor.WithBacking([]float64{9, 9, 9})), false},
		{"another dtype", tensor.New(tensor.WithShape(3), tensor.WithBacking([]float32{9, 9, 9})), false},
		{"a view", must2(tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float64{9, 9, 9, 9, 9, 9})).Slice(tensor.S(0))), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := (&denseOp{kind: opColSum, dt: tensor.Float64}).UsePreallocDo(c.prealloc, x)
			if err != nil {
				t.Fatal(err)
			}
			d := v.(*tensor.Dense)
			if !slices.Equal(d.Shape(), tensor.Shape{3}) || !slices.Equal(d.Float64s(), sums) {
				t.Errorf("shape %v value %v, want (3) %v", d.Shape(), d.Float64s(), sums)
			}
			if used := c.prealloc != nil && v == c.prealloc; used != c.used {
				t.Errorf("wrote into the tensor handed: %v, want %v", used, c.used)
			}
		})
	}
	// An input handed as the output's tensor: a new one.
	y := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float64{1, -2, 3, -4, 5, -6}))
	v, err := (&denseOp{kind: opGate, dt: tensor.Float64}).UsePreallocDo(y, x, y)
	if err != nil {
		t.Fatal(err)
	}
	if v == G.Value(y) || !slices.Equal(y.Float64s(), []float64{1, -2, 3, -4, 5, -6}) {
		t.Errorf("gate wrote into its input y: %v", y.Float64s())
	}
	if got := v.(*tensor.Dense).Float64s(); !slices.Equal(got, []float64{1, 0, 3, 0, 5, 0}) {
		t.Errorf("gate %v, want [1 0 3 0 5 0]", got)
	}
}

func must2(v tensor.View, err error) G.Value {
	if err != nil {
		panic(err)
	}
	return v.(*tensor.Dense)
}
