package gmodel

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"unsafe"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
)

// graphKind is what a graph computes.
type graphKind int

const (
	kindForward graphKind = iota // the logits
	kindVJP                      // the logits and J^T cot
	kindJVP                      // the logits and J dir, by double backward
)

// graph is one compiled gorgonia graph of fixed batch size: its input,
// parameter, cotangent and direction tensors are backed by Go slices that
// each run fills.
type graph struct {
	kind graphKind
	rows int
	g    *G.ExprGraph
	vm   G.VM

	x, params, cot, dir any  // backing slices ([]float32 or []float64)
	reuse               bool // the next run may write into the last run's registers
	ran                 bool // vm has run and holds its registers
	logits, tangent     *G.Node
	grads               G.Nodes

	// fill writes the cotangents of the logits (a gradient graph's
	// cotOp calls it during the run): fill(logits, cot), []T each.
	fill func(logits, cot any)
}

// newGraph builds and compiles the graph of kind for rows inputs.
func newGraph(a Arch, dt tensor.Dtype, in dataset.Shape, k int, kind graphKind, rows int) (gr *graph, err error) {
	defer func() {
		// gorgonia panics on some graphs (a second derivative it lacks):
		// an error naming the architecture's ops, not a crash.
		if r := recover(); r != nil {
			gr, err = nil, fmt.Errorf("gorgonia: %v", r)
		}
	}()
	g := G.NewGraph()
	gr = &graph{kind: kind, rows: rows, g: g}
	shape := []int{rows, in.Size()}
	if in.H > 1 || in.W > 1 {
		shape = []int{rows, in.C, in.H, in.W}
	}
	xt, xb := newTensor(dt, shape)
	gr.x = xb
	x := G.NewTensor(g, dt, len(shape), G.WithShape(shape...), G.WithName("x"), G.WithValue(xt))
	total := a.numParams()
	pb := newSlice(dt, total)
	gr.params = pb
	ps := paramNodes(g, dt, a.Params, pb, "")
	logits, err := a.Logits(x, ps)
	if err != nil {
		return nil, err
	}
	if s := logits.Shape(); len(s) != 2 || s[0] != rows || s[1] != k {
		return nil, fmt.Errorf("the logits have shape %v, want (%d, %d)", s, rows, k)
	}
	gr.logits = logits
	switch kind {
	case kindVJP:
		ct, cb := newTensor(dt, []int{rows, k})
		gr.cot = cb
		u, err := G.ApplyOp(&cotOp{gr: gr, out: ct}, logits)
		if err != nil {
			return nil, err
		}
		if gr.grads, err = G.Backpropagate(G.Nodes{logits}, G.Nodes{u}, ps); err != nil {
			return nil, err
		}
	case kindJVP:
		ct, _ := newTensor(dt, []int{rows, k})
		u := G.NewMatrix(g, dt, G.WithShape(rows, k), G.WithName("cot"), G.WithValue(ct))
		cost, err := dotNodes(logits, u)
		if err != nil {
			return nil, err
		}
		if gr.grads, err = G.Grad(cost, ps...); err != nil {
			return nil, err
		}
		// J dir = d/du <J^T u, dir>: the derivative of a linear
		// function of u, whatever u's value (zero here).
		db := newSlice(dt, total)
		gr.dir = db
		var terms G.Nodes
		for i, v := range paramNodes(g, dt, a.Params, db, "_dir") {
			terms = append(terms, must(dotNodes(gr.grads[i], v)))
		}
		s := terms[0]
		if len(terms) > 1 {
			if s, err = G.ReduceAdd(terms); err != nil {
				return nil, err
			}
		}
		jv, err := G.Grad(s, u)
		if err != nil {
			return nil, err
		}
		gr.tangent = jv[0]
	}
	if kind == kindJVP {
		// Only what the logits and the tangent need: not the gradient's
		// own products, which the tangent's derivative does not read.
		zero := G.NewConstant(0.0)
		if dt == tensor.Float32 {
			zero = G.NewConstant(float32(0))
		}
		gr.logits = must(G.Add(gr.logits, zero))
		gr.vm = G.NewTapeMachine(g.SubgraphRoots(gr.logits, gr.tangent))
	} else if kind == kindVJP {
		// Only what the parameters' gradients need: not the input's
		// gradient (the first layer's product with its weights'
		// transpose, a sixth of the products of an MLP's call), which
		// Backpropagate builds because every op differentiates all its
		// inputs.
		gr.vm = G.NewTapeMachine(g.SubgraphRoots(gr.grads...))
	} else {
		gr.vm = G.NewTapeMachine(g)
	}
	gr.reuse = true
	for _, n := range g.AllNodes() {
		if op := n.Op(); op != nil && !slices.Contains(reuseOps, opName(op)) {
			gr.reuse = false
		}
	}
	return gr, nil
}

// reuseOps are the ops that take the memory a register held in the last
// run only when its shape is theirs (a machine's registers serve nodes of
// several shapes in turn); TestGraphsReused checks a graph of them. Others
// (im2colOp) write into whatever they are given: graphs with them start
// each run from empty registers.
var reuseOps = []string{"cotOp", "denseOp", "dotOp", "constantScalar", "elemBinOp", "elemUnaryOp", "linAlgBinOp", "repeatOp", "reshapeOp", "sizeOp", "sumOp"}

// paramNodes adds one input node per parameter, shaped as declared and
// backed by consecutive stretches of backing (a []float32 or []float64),
// named after the parameter with suffix.
func paramNodes(g *G.ExprGraph, dt tensor.Dtype, params []Param, backing any, suffix string) G.Nodes {
	var out G.Nodes
	off := 0
	for _, p := range params {
		t := tensor.New(tensor.WithShape(p.Shape...), tensor.WithBacking(sub(backing, off, off+p.Size())))
		off += p.Size()
		out = append(out, G.NewTensor(g, dt, len(p.Shape), G.WithShape(p.Shape...), G.WithName(p.Name+suffix), G.WithValue(t)))
	}
	return out
}

// must panics on err: newGraph recovers it as an error.
func must(n *G.Node, err error) *G.Node {
	if err != nil {
		panic(err)
	}
	return n
}

// run copies theta, x and the direction into the graph's tensors and
// runs it; a gradient graph calls its fill for the cotangents.
func run[T nets.Float](gr *graph, theta, x, dir []T) {
	copy(gr.params.([]T), theta)
	copy(gr.x.([]T), x)
	if dir != nil {
		copy(gr.dir.([]T), dir)
	}
	if !gr.reuse || !gr.ran || !rewind(gr.vm) {
		// The first run, a graph with ops that cannot reuse registers,
		// or a machine this gorgonia does not let us rewind: registers
		// allocated afresh.
		gr.vm.Reset()
	}
	if err := gr.vm.RunAll(); err != nil {
		gr.ran = false
		panic(fmt.Sprintf("gorgonia graph of %d rows: %v", gr.rows, err))
	}
	gr.ran = true
}

// tapePC locates the program counter of gorgonia's tape machine: the
// machine's type and the counter's offset, or ok false where it has none
// (another gorgonia).
var tapePC = sync.OnceValues(func() (reflect.Type, uintptr) {
	t := reflect.TypeOf(G.NewTapeMachine).Out(0)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, 0
	}
	f, ok := t.Elem().FieldByName("pc")
	if !ok || f.Type.Kind() != reflect.Int || len(f.Index) != 1 {
		return nil, 0
	}
	return t, f.Offset
})

// rewind sets a tape machine that has run back to its first instruction
// and keeps its registers, so that the next run writes every value into
// the memory of the last one (gorgonia's ops reuse a register that holds
// a value of the right shape) instead of allocating it again, as Reset,
// which clears the registers, makes it do. gorgonia has no method for
// this; rewind reports false when it cannot find the machine's program
// counter.
func rewind(vm G.VM) bool {
	t, off := tapePC()
	v := reflect.ValueOf(vm)
	if t == nil || v.Type() != t {
		return false
	}
	*(*int)(unsafe.Add(v.UnsafePointer(), off)) = 0
	return true
}

// value returns the data of n as []T: its backing slice, without the
// interface Data allocates, where its value is a dense tensor.
func value[T nets.Float](n *G.Node) []T {
	if d, ok := n.Value().(*tensor.Dense); ok && d.Dtype() == dtypeOf[T]() {
		return backing[T](d)
	}
	return n.Value().Data().([]T)
}

// addGrads adds the gradient of the last run to grad, in Params' order.
func addGrads[T nets.Float](gr *graph, grad []T) {
	off := 0
	for _, gn := range gr.grads {
		v := value[T](gn)
		for i, x := range v {
			grad[off+i] += x
		}
		off += len(v)
	}
}

func (gr *graph) close() {
	if gr.vm != nil {
		gr.vm.Close()
	}
}

func newSlice(dt tensor.Dtype, n int) any {
	if dt == tensor.Float32 {
		return make([]float32, n)
	}
	return make([]float64, n)
}

func sub(b any, lo, hi int) any {
	switch s := b.(type) {
	case []float32:
		return s[lo:hi]
	case []float64:
		return s[lo:hi]
	}
	panic("not a float slice")
}

func newTensor(dt tensor.Dtype, shape []int) (*tensor.Dense, any) {
	n := 1
	for _, d := range shape {
		n *= d
	}
	b := newSlice(dt, n)
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(b)), b
}
