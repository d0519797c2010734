// Command gorgonia is maple with one more model: a residual MLP written
// as a gorgonia graph and registered as g:resmlp:WIDTH,BLOCKS. It runs
// maple's own command tree, so everything maple does (the dashboard, the
// run directory, resume, export, eval, sweeps) works with the new model:
//
//	go run ./examples/gorgonia run --model g:resmlp:32,2 --outer-iters 5
//
// CI builds it, runs a short search on the synthetic data and checks that
// its final training converged.
package main

import (
	"context"
	"fmt"
	"math"
	"os"

	G "gorgonia.org/gorgonia"

	"github.com/maple-ood/maple/cmd"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/gmodel"
	"github.com/maple-ood/maple/session"
)

// resMLP is g:resmlp:W,B: a dense layer to W units with a ReLU, B
// residual blocks (h + relu(h W_i + b_i)) / sqrt(2), and a dense layer to
// the logits. The ReLU and the scale keep the logits' size from growing
// with the blocks: without them the final training, at a maple search's
// lr 1, diverged.
func resMLP(args string, in dataset.Shape, k int) (gmodel.Arch, error) {
	var w, blocks int
	if _, err := fmt.Sscanf(args, "%d,%d", &w, &blocks); err != nil || w < 1 || blocks < 0 {
		return gmodel.Arch{}, fmt.Errorf("%q: want WIDTH,BLOCKS, e.g. 32,2", args)
	}
	d := in.Size()
	layer := func(name string, nin, nout int) []gmodel.Param {
		return []gmodel.Param{
			{Name: name + "_w", Shape: []int{nin, nout}, Init: gmodel.Xavier, FanIn: nin, FanOut: nout},
			{Name: name + "_b", Shape: []int{nout}, Init: gmodel.Zeros},
		}
	}
	ps := layer("in", d, w)
	for i := range blocks {
		ps = append(ps, layer(fmt.Sprintf("block%d", i), w, w)...)
	}
	ps = append(ps, layer("out", w, k)...)
	affine := func(x, wt, b *G.Node) (*G.Node, error) {
		y, err := G.Mul(x, wt)
		if err != nil {
			return nil, err
		}
		return G.BroadcastAdd(y, b, nil, []byte{0})
	}
	return gmodel.Arch{Params: ps, Logits: func(x *G.Node, p []*G.Node) (*G.Node, error) {
		h, err := affine(x, p[0], p[1])
		if err != nil {
			return nil, err
		}
		if h, err = G.Rectify(h); err != nil {
			return nil, err
		}
		var half *G.Node
		if h.Dtype() == G.Float64 {
			half = G.NewConstant(math.Sqrt(0.5))
		} else {
			half = G.NewConstant(float32(math.Sqrt(0.5)))
		}
		for i := 2; i+2 < len(p); i += 2 {
			r, err := affine(h, p[i], p[i+1])
			if err != nil {
				return nil, err
			}
			if r, err = G.Rectify(r); err != nil {
				return nil, err
			}
			if h, err = G.Add(h, r); err != nil {
				return nil, err
			}
			if h, err = G.Mul(h, half); err != nil {
				return nil, err
			}
		}
		return affine(h, p[len(p)-2], p[len(p)-1])
	}}, nil
}

func init() {
	gmodel.Register("resmlp", "g:resmlp:WIDTH,BLOCKS", resMLP, "g:resmlp:32,2")
}

func main() {
	ctx, stop := session.Interrupts(context.Background(), os.Exit)
	defer stop()
	f := cmd.NewFactory()
	os.Exit(cmd.ExitCode(f, cmd.NewCmdRoot(f).ExecuteContext(ctx)))
}
