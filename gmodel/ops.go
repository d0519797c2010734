package gmodel

import (
	"fmt"
	"hash"
	"hash/fnv"
	"slices"
	"unsafe"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/maple-ood/maple/nets"
)

// The dense layer's ops of the built-in g:mlp: biasAct, gate and colSum
// are each one parallel pass of nets' kernels where gorgonia's own would
// take several single-threaded ones (BroadcastAdd: a repeat of the bias
// then an addition; Rectify: a comparison then a multiplication; their
// gradients: a multiplication and a sum): see docs/PERFORMANCE.md; rows
// (met only in a JVP graph, on a bias's direction) is a copy per row.
// Each writes into the register the tape machine hands it when that is a
// tensor of its output's shape, and is differentiable twice in terms of
// the others, so that the JVP by double backward stays exact:
//
//	biasAct(y, b)  = act(y + b), the bias added to each row of y, act the ReLU or the identity
//	gate(g, y)     = g where y > 0 (or y is -0, which a ReLU never gives), else +0: the ReLU's derivative, y the ReLU's output
//	colSum(x)      = the column sums of x
//	rows(v)        = v repeated as the n rows of a matrix
//
// d biasAct = (gate(grad, out) or grad, colSum of that); d gate wrt g =
// gate(grad, y), and none wrt y (zero almost everywhere); d colSum =
// rows(grad); d rows = colSum(grad).

// opKind names one of the ops above.
type opKind int

const (
	opBiasReLU opKind = iota
	opBiasAdd
	opGate
	opColSum
	opRows
)

var opNames = [...]string{opBiasReLU: "biasReLU", opBiasAdd: "biasAdd", opGate: "gate", opColSum: "colSum", opRows: "rows"}

// denseOp is one of the ops above in dtype; rows is the row count of a
// rows op's output.
type denseOp struct {
	kind  opKind
	dt    tensor.Dtype
	rows  int
	parts any // colSum's per-worker partial sums ([][]float32 or [][]float64), kept across runs
}

func (op *denseOp) Arity() int {
	if op.kind == opColSum || op.kind == opRows {
		return 1
	}
	return 2
}

func (op *denseOp) Type() hm.Type {
	mat, vec := G.TensorType{Dims: 2, Of: op.dt}, G.TensorType{Dims: 1, Of: op.dt}
	switch op.kind {
	case opColSum:
		return hm.NewFnType(mat, vec)
	case opRows:
		return hm.NewFnType(vec, mat)
	case opGate:
		return hm.NewFnType(mat, mat, mat)
	}
	return hm.NewFnType(mat, vec, mat)
}

func (op *denseOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if len(in) != op.Arity() {
		return nil, fmt.Errorf("%s: %d inputs, want %d", op, len(in), op.Arity())
	}
	s, ok := in[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("%s: input shape %v unknown", op, in[0])
	}
	switch op.kind {
	case opColSum:
		if len(s) != 2 {
			return nil, fmt.Errorf("colSum of shape %v, want a matrix", s)
		}
		return tensor.Shape{s[1]}, nil
	case opRows:
		if len(s) != 1 {
			return nil, fmt.Errorf("rows of shape %v, want a vector", s)
		}
		return tensor.Shape{op.rows, s[0]}, nil
	}
	t, ok := in[1].(tensor.Shape)
	if !ok || len(s) != 2 {
		return nil, fmt.Errorf("%s of shapes %v and %v, want a matrix first", op, s, in[1])
	}
	if op.kind == opGate && !s.Eq(t) || op.kind != opGate && (len(t) != 1 || t[0] != s[1]) {
		return nil, fmt.Errorf("%s of shapes %v and %v do not fit", op, s, t)
	}
	return s.Clone(), nil
}

func (op *denseOp) Do(v ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, v...) }

// UsePreallocDo writes into prealloc when it is a tensor of exactly the
// output's shape and dtype that owns its memory (not a view) and shares no
// memory with an input, else into a new one. gorgonia v0.9.18 hands an
// op whose OverwritesInput is -1 a register of its own, so prealloc is
// this node's output of the machine's last run; the check keeps that
// true of another gorgonia.
func (op *denseOp) UsePreallocDo(prealloc G.Value, v ...G.Value) (G.Value, error) {
	if len(v) != op.Arity() {
		return nil, fmt.Errorf("%s: %d inputs, want %d", op, len(v), op.Arity())
	}
	in0, ok := v[0].(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("%s: input is a %T, want a dense tensor", op, v[0])
	}
	s := in0.Shape()
	var want tensor.Shape
	switch op.kind {
	case opColSum:
		want = tensor.Shape{s[1]}
	case opRows:
		want = tensor.Shape{op.rows, s[0]}
	default:
		want = s
	}
	out, ok := prealloc.(*tensor.Dense)
	if !ok || out.Dtype() != op.dt || !slices.Equal(out.Shape(), want) || out.IsView() || !out.IsNativelyAccessible() || sharesInput(out, v) {
		out = tensor.New(tensor.Of(op.dt), tensor.WithShape(want.Clone()...))
	}
	var err error
	switch op.dt {
	case tensor.Float32:
		err = doDense[float32](op, out, v)
	case tensor.Float64:
		err = doDense[float64](op, out, v)
	default:
		err = fmt.Errorf("%s of %v, want float32 or float64", op, op.dt)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

func doDense[T nets.Float](op *denseOp, out *tensor.Dense, v []G.Value) error {
	data := func(x G.Value) ([]T, error) {
		d, ok := x.(*tensor.Dense)
		if !ok || d.Dtype() != op.dt {
			return nil, fmt.Errorf("%s: input is a %T of %v, want a dense tensor of %v", op, x, x.Dtype(), op.dt)
		}
		return backing[T](d), nil
	}
	dst := backing[T](out)
	a, err := data(v[0])
	if err != nil {
		return err
	}
	switch op.kind {
	case opColSum:
		n, m := v[0].Shape()[0], v[0].Shape()[1]
		parts, _ := op.parts.([][]T)
		clear(dst)
		op.parts = nets.ColSums(dst, a, n, m, parts)
		return nil
	case opRows:
		for i := range op.rows {
			copy(dst[i*len(a):(i+1)*len(a)], a)
		}
		return nil
	}
	b, err := data(v[1])
	if err != nil {
		return err
	}
	n, m := v[0].Shape()[0], v[0].Shape()[1]
	if op.kind == opGate {
		nets.Gate(dst, a, b, n, m)
		return nil
	}
	nets.BiasAct(dst, a, b, n, m, op.kind == opBiasReLU)
	return nil
}

// sharesInput reports whether out's memory starts where an input's does.
func sharesInput(out *tensor.Dense, in []G.Value) bool {
	for _, v := range in {
		if d, ok := v.(*tensor.Dense); ok && d.Uintptr() == out.Uintptr() {
			return true
		}
	}
	return false
}

// backing is d's data as []T, T d's dtype, without the allocation of
// Data's interface.
func backing[T nets.Float](d *tensor.Dense) []T {
	var z T
	if _, ok := any(z).(float32); ok {
		f := d.Float32s()
		return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(f))), len(f))
	}
	f := d.Float64s()
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(f))), len(f))
}

func (op *denseOp) ReturnsPtr() bool     { return false }
func (op *denseOp) CallsExtern() bool    { return false }
func (op *denseOp) OverwritesInput() int { return -1 }
func (op *denseOp) String() string       { return opNames[op.kind] }

func (op *denseOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "maple.%s %v %d", opNames[op.kind], op.dt, op.rows)
}

func (op *denseOp) Hashcode() uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

func (op *denseOp) DiffWRT(inputs int) []bool {
	d := make([]bool, inputs)
	for i := range d {
		d[i] = op.kind != opGate || i == 0
	}
	return d
}

func (op *denseOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	switch op.kind {
	case opColSum:
		r, err := apply(opRows, op.dt, in[0].Shape()[0], grad)
		return G.Nodes{r}, err
	case opRows:
		c, err := apply(opColSum, op.dt, 0, grad)
		return G.Nodes{c}, err
	case opGate:
		g, err := apply(opGate, op.dt, 0, grad, in[1])
		return G.Nodes{g, nil}, err
	}
	dy := grad
	if op.kind == opBiasReLU {
		var err error
		if dy, err = apply(opGate, op.dt, 0, grad, out); err != nil {
			return nil, err
		}
	}
	db, err := apply(opColSum, op.dt, 0, dy)
	return G.Nodes{dy, db}, err
}

// apply adds the op kind on in to in's graph.
func apply(kind opKind, dt tensor.Dtype, rows int, in ...*G.Node) (*G.Node, error) {
	return G.ApplyOp(&denseOp{kind: kind, dt: dt, rows: rows}, in...)
}

// denseAct is act(x W + b) for a batch x nin matrix x, act the ReLU when
// relu: the product by gorgonia's Mul (nets' BLAS), then one pass of
// biasAct.
func denseAct(x, w, b *G.Node, relu bool) (*G.Node, error) {
	y, err := G.Mul(x, w)
	if err != nil {
		return nil, err
	}
	kind := opBiasAdd
	if relu {
		kind = opBiasReLU
	}
	return apply(kind, y.Dtype(), 0, y, b)
}

// dotOp is sum(a * b) over all entries of two tensors of one shape, a
// scalar, by a plain loop accumulating in float64 (a JVP graph needs
// only its derivative: its value is computed only where something reads
// it). Its derivative with respect to a is b times the scalar
// gradient, which reads b and not a: gorgonia's Sum of a HadamardProd
// differentiates through the sizes of its input, so a JVP graph's
// tangent read every gradient's value and the run computed the gradient's
// products, which J dir does not need (about a third of a JVP's product
// flops for a two-layer MLP).
type dotOp struct{ dt tensor.Dtype }

func (op *dotOp) Arity() int { return 2 }

func (op *dotOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(a, a, op.dt)
}

func (op *dotOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("dot: %d inputs, want 2", len(in))
	}
	s, ok1 := in[0].(tensor.Shape)
	t, ok2 := in[1].(tensor.Shape)
	if !ok1 || !ok2 || !s.Eq(t) {
		return nil, fmt.Errorf("dot of shapes %v and %v, want one shape", in[0], in[1])
	}
	return tensor.ScalarShape(), nil
}

func (op *dotOp) Do(v ...G.Value) (G.Value, error) {
	if len(v) != 2 {
		return nil, fmt.Errorf("dot: %d inputs, want 2", len(v))
	}
	a, ok1 := v[0].(*tensor.Dense)
	b, ok2 := v[1].(*tensor.Dense)
	if !ok1 || !ok2 || a.Dtype() != op.dt || b.Dtype() != op.dt || a.Size() != b.Size() {
		return nil, fmt.Errorf("dot of a %T %v and a %T %v, want two dense tensors of %v and one size", v[0], v[0].Shape(), v[1], v[1].Shape(), op.dt)
	}
	if op.dt == tensor.Float32 {
		return G.NewF32(float32(dot(backing[float32](a), backing[float32](b)))), nil
	}
	return G.NewF64(dot(backing[float64](a), backing[float64](b))), nil
}

func dot[T nets.Float](a, b []T) float64 {
	var s float64
	for i, x := range a {
		s += float64(x) * float64(b[i])
	}
	return s
}

func (op *dotOp) ReturnsPtr() bool     { return false }
func (op *dotOp) CallsExtern() bool    { return false }
func (op *dotOp) OverwritesInput() int { return -1 }
func (op *dotOp) String() string       { return "dot" }

func (op *dotOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "maple.dot %v", op.dt) }

func (op *dotOp) Hashcode() uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

func (op *dotOp) DiffWRT(inputs int) []bool { return []bool{true, true} }

func (op *dotOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	da, err := G.Mul(in[1], grad)
	if err != nil {
		return nil, err
	}
	db, err := G.Mul(in[0], grad)
	return G.Nodes{da, db}, err
}

// dotNodes is sum(a * b), a dotOp node.
func dotNodes(a, b *G.Node) (*G.Node, error) {
	return G.ApplyOp(&dotOp{dt: a.Dtype()}, a, b)
}
