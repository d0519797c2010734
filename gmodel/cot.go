package gmodel

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// cotOp is the cotangent of the logits inside a gradient graph: it hands
// the logits of the run under way to its graph's fill (Backprop's, or a
// copy of VJP's cotangents) and returns what fill wrote, so that one run
// computes the logits, their cotangents and the gradient, each layer's
// forward once. It is not differentiated: the gradient starts from it.
type cotOp struct {
	gr  *graph
	out *tensor.Dense // rows x k, the graph's cot backing
}

func (op *cotOp) Arity() int { return 1 }

func (op *cotOp) Type() hm.Type {
	t := G.TensorType{Dims: 2, Of: op.out.Dtype()}
	return hm.NewFnType(t, t)
}

func (op *cotOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return op.out.Shape().Clone(), nil
}

func (op *cotOp) Do(v ...G.Value) (G.Value, error) {
	if len(v) != 1 {
		return nil, fmt.Errorf("cotangent: %d inputs, want 1", len(v))
	}
	op.gr.fill(v[0].Data(), op.out.Data())
	return op.out, nil
}

func (op *cotOp) ReturnsPtr() bool     { return true }
func (op *cotOp) CallsExtern() bool    { return false }
func (op *cotOp) OverwritesInput() int { return -1 }
func (op *cotOp) String() string       { return "cotangent" }

func (op *cotOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "cotangent %p", op) }

func (op *cotOp) Hashcode() uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

// DiffWRT and SymDiff declare the op constant in its input: the gradient
// does not flow back through the cotangents.
func (op *cotOp) DiffWRT(inputs int) []bool { return make([]bool, inputs) }

func (op *cotOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	return make(G.Nodes, len(inputs)), nil
}
