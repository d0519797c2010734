package gmodel_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	G "gorgonia.org/gorgonia"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/gmodel"
)

// An architecture of one's own: a one-hidden-layer network with tanh,
// registered as g:tanh:WIDTH. Every maple command then takes --model
// g:tanh:32 (examples/gorgonia runs a search with it).
func ExampleRegister() {
	gmodel.Register("tanh", "g:tanh:WIDTH", func(args string, in dataset.Shape, k int) (gmodel.Arch, error) {
		w, err := strconv.Atoi(args)
		if err != nil || w < 1 {
			return gmodel.Arch{}, fmt.Errorf("width %q: want a positive whole number", args)
		}
		return gmodel.Arch{
			Params: []gmodel.Param{
				{Name: "w1", Shape: []int{in.Size(), w}, Init: gmodel.Xavier, FanIn: in.Size(), FanOut: w},
				{Name: "b1", Shape: []int{w}, Init: gmodel.Zeros},
				{Name: "w2", Shape: []int{w, k}, Init: gmodel.Xavier, FanIn: w, FanOut: k},
				{Name: "b2", Shape: []int{k}, Init: gmodel.Zeros},
			},
			Logits: func(x *G.Node, p []*G.Node) (*G.Node, error) {
				h := G.Must(G.BroadcastAdd(G.Must(G.Mul(x, p[0])), p[1], nil, []byte{0}))
				h = G.Must(G.Tanh(h))
				return G.BroadcastAdd(G.Must(G.Mul(h, p[2])), p[3], nil, []byte{0})
			},
		}, nil
	}, "g:tanh:32")
	m, err := gmodel.New[float64]("g:tanh:3", dataset.Shape{C: 2, H: 1, W: 1}, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	theta := make([]float64, m.NumParams())
	m.Init(theta, rand.New(rand.NewPCG(1, 2)))
	logits := make([]float64, 2)
	m.Forward(theta, []float64{1, 0, 0, 1}, 2, logits)
	mode, _ := m.JVPMode()
	fmt.Printf("%d parameters, JVP by %v, logits %.4f %.4f\n", m.NumParams(), mode, logits[0], logits[1])
	// Output:
	// 13 parameters, JVP by double backward, logits 0.3433 -0.6245
}
