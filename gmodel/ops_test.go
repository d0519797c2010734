package gmodel

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestDenseOpsFiniteDifference checks each op of ops.go and its
// derivative in float64: the value against a loop written here, and the
// gradient gorgonia builds from SymDiff of f = sum(c * op(inputs)), c
// random, against a central difference of f in every input entry. The
// ops a double backward builds (gate, colSum, rows) are checked as ops in
// their own right, so the JVP's second derivative is made of checked
// parts (and TestJVPModes checks g:mlp's whole).
func TestDenseOpsFiniteDifference(t *testing.T) {
	const n, m = 3, 4
	relu := func(v float64) float64 { return max(v, 0) }
	for _, c := range []struct {
		name   string
		kind   opKind
		shapes [][]int
		// want is the op's value from its inputs, written out.
		want func(in [][]float64) []float64
	}{
		{"biasReLU", opBiasReLU, [][]int{{n, m}, {m}}, func(in [][]float64) []float64 {
			out := make([]float64, n*m)
			for i := range out {
				out[i] = relu(in[0][i] + in[1][i%m])
			}
			return out
		}},
		{"biasAdd", opBiasAdd, [][]int{{n, m}, {m}}, func(in [][]float64) []float64 {
			out := make([]float64, n*m)
			for i := range out {
				out[i] = in[0][i] + in[1][i%m]
			}
			return out
		}},
		{"gate", opGate, [][]int{{n, m}, {n, m}}, func(in [][]float64) []float64 {
			out := make([]float64, n*m)
			for i := range out {
				if in[1][i] > 0 {
					out[i] = in[0][i]
				}
			}
			return out
		}},
		{"colSum", opColSum, [][]int{{n, m}}, func(in [][]float64) []float64 {
			out := make([]float64, m)
			for i, v := range in[0] {
				out[i%m] += v
			}
			return out
		}},
		{"rows", opRows, [][]int{{m}}, func(in [][]float64) []float64 {
			out := make([]float64, n*m)
			for i := range out {
				out[i] = in[0][i%m]
			}
			return out
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, uint64(c.kind)))
			g := G.NewGraph()
			var nodes G.Nodes
			var in [][]float64
			for i, s := range c.shapes {
				tt, b := newTensor(tensor.Float64, s)
				v := b.([]float64)
				for j := range v {
					v[j] = rng.NormFloat64()
				}
				in = append(in, v)
				nodes = append(nodes, G.NewTensor(g, tensor.Float64, len(s), G.WithShape(s...), G.WithName(string(rune('a'+i))), G.WithValue(tt)))
			}
			out, err := apply(c.kind, tensor.Float64, n, nodes...)
			if err != nil {
				t.Fatal(err)
			}
			ct, cb := newTensor(tensor.Float64, out.Shape())
			cw := cb.([]float64)
			for j := range cw {
				cw[j] = rng.NormFloat64()
			}
			cn := G.NewTensor(g, tensor.Float64, out.Dims(), G.WithShape(out.Shape()...), G.WithName("c"), G.WithValue(ct))
			cost := must(G.Sum(must(G.HadamardProd(out, cn))))
			wrt := nodes
			if c.kind == opGate {
				wrt = nodes[:1] // none with respect to y
			}
			grads, err := G.Grad(cost, wrt...)
			if err != nil {
				t.Fatal(err)
			}
			vm := G.NewTapeMachine(g)
			defer vm.Close()
			f := func() float64 {
				vm.Reset()
				if err := vm.RunAll(); err != nil {
					t.Fatal(err)
				}
				return cost.Value().Data().(float64)
			}
			f()
			if got, want := out.Value().Data().([]float64), c.want(in); relDiff(got, want) != 0 {
				t.Fatalf("value %v, want %v", got, want)
			}
			var exact [][]float64
			for _, gn := range grads {
				exact = append(exact, append([]float64(nil), gn.Value().Data().([]float64)...))
			}
			const h = 1e-6
			for i := range wrt {
				fd := make([]float64, len(in[i]))
				for j := range in[i] {
					v := in[i][j]
					in[i][j] = v + h
					fp := f()
					in[i][j] = v - h
					fm := f()
					in[i][j] = v
					fd[j] = (fp - fm) / (2 * h)
				}
				if d := relDiff(exact[i], fd); !(d < 1e-8) {
					t.Errorf("gradient with respect to input %d: %v, central difference %v (relative %g)", i, exact[i], fd, d)
				}
			}
			if c.kind == opGate {
				// Zero almost everywhere with respect to y: f does not move.
				v := in[1][0]
				base := f()
				in[1][0] = v + math.Copysign(1e-3*math.Abs(v), v) // away from 0, the kink
				if moved := f(); moved != base {
					t.Errorf("gate moved with y away from its kink: %g to %g", base, moved)
				}
				in[1][0] = v
			}
		})
	}
}
