package gmodel

import (
	"fmt"
	"strconv"
	"strings"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/maple-ood/maple/dataset"
)

func init() {
	Register("mlp", "g:mlp:W1,W2,...", buildMLP, "g:mlp:390,390", "g:mlp:64,64")
	Register("cnn", "g:cnn:C1,C2", buildCNN, "g:cnn:16,32")
	Register("resnet", "g:resnet:C,B", buildResNet, "g:resnet:16,2")
}

// ints parses comma-separated positive integers.
func ints(args, what string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(args, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 1 || v > 1<<16 {
			return nil, fmt.Errorf("%s %q: want positive whole numbers separated by commas", what, args)
		}
		out = append(out, v)
	}
	return out, nil
}

// dense declares the parameters of a dense layer nin -> nout: weights
// (nin x nout, row-major, as nets lays them out) then biases.
func dense(name string, nin, nout int) []Param {
	return []Param{
		{Name: name + "_w", Shape: []int{nin, nout}, Init: Xavier, FanIn: nin, FanOut: nout},
		{Name: name + "_b", Shape: []int{nout}, Init: Zeros},
	}
}

// affine is x W + b for a batch x nin matrix x.
func affine(x, w, b *G.Node) (*G.Node, error) {
	y, err := G.Mul(x, w)
	if err != nil {
		return nil, err
	}
	return G.BroadcastAdd(y, b, nil, []byte{0})
}

// flat reshapes an image batch to batch x features.
func flat(x *G.Node) (*G.Node, error) {
	s := x.Shape()
	if len(s) == 2 {
		return x, nil
	}
	return G.Reshape(x, tensor.Shape{s[0], s.TotalSize() / s[0]})
}

// buildMLP is g:mlp:W1,W2,...: dense layers with ReLU, then a dense layer
// to the logits. Its parameters are laid out as nets' mlp, so the same
// theta is the same function (and Init draws the same theta); its bias
// and ReLU passes are nets' own (ops.go).
func buildMLP(args string, in dataset.Shape, k int) (Arch, error) {
	if args == "" {
		args = "390,390"
	}
	widths, err := ints(args, "widths")
	if err != nil {
		return Arch{}, err
	}
	var ps []Param
	d := in.Size()
	for i, w := range widths {
		ps = append(ps, dense(fmt.Sprintf("l%d", i), d, w)...)
		d = w
	}
	ps = append(ps, dense("out", d, k)...)
	// Image inputs are flattened at once, so the graph holds flat rows:
	// chunks of 1024, not MaxImageRows' 256 (a ColoredMNIST JVP over 45000
	// rows ran as 176 graph runs). A g:mlp:390,390 ColoredMNIST search
	// took the same time with 1024 as with 2048 and 632 MB at its peak
	// against 961 MB (loaded; docs/PERFORMANCE.md).
	rows := 0 // flat inputs: MaxRows
	if in.H > 1 || in.W > 1 {
		rows = 1024
	}
	return Arch{MaxRows: rows, Params: ps, Logits: func(x *G.Node, p []*G.Node) (*G.Node, error) {
		h, err := flat(x)
		if err != nil {
			return nil, err
		}
		for i := 0; i+2 < len(p); i += 2 {
			if h, err = denseAct(h, p[i], p[i+1], true); err != nil {
				return nil, err
			}
		}
		return denseAct(h, p[len(p)-2], p[len(p)-1], false)
	}}, nil
}

// conv declares a 3x3 convolution ci -> co: filters (co x ci x 3 x 3)
// then biases, with nets' fan convention.
func conv(name string, ci, co int) []Param {
	return []Param{
		{Name: name + "_w", Shape: []int{co, ci, 3, 3}, Init: Xavier, FanIn: ci * 9, FanOut: co * 9},
		{Name: name + "_b", Shape: []int{co}, Init: Zeros},
	}
}

// conv3 is a 3x3 convolution with padding 1 and stride 1, plus bias.
func conv3(x, w, b *G.Node) (*G.Node, error) {
	y, err := G.Conv2d(x, w, tensor.Shape{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1})
	if err != nil {
		return nil, err
	}
	bb, err := G.Reshape(b, tensor.Shape{1, b.Shape()[0], 1, 1})
	if err != nil {
		return nil, err
	}
	return G.BroadcastAdd(y, bb, nil, []byte{0, 2, 3})
}

func needImage(in dataset.Shape, spec string) error {
	if in.H < 4 || in.W < 4 {
		return fmt.Errorf("%s needs image inputs of at least 4x4, got %dx%dx%d (use g:mlp for flat features)", spec, in.C, in.H, in.W)
	}
	return nil
}

// buildCNN is g:cnn:C1,C2: per width a 3x3 convolution with ReLU and a
// 2x2 max-pool, then a dense layer to the logits (nets' cnn, in
// gorgonia's NCHW layout).
func buildCNN(args string, in dataset.Shape, k int) (Arch, error) {
	if args == "" {
		args = "16,32"
	}
	chans, err := ints(args, "channels")
	if err != nil {
		return Arch{}, err
	}
	if err := needImage(in, "g:cnn"); err != nil {
		return Arch{}, err
	}
	var ps []Param
	c, h, w := in.C, in.H, in.W
	for i, co := range chans {
		ps = append(ps, conv(fmt.Sprintf("c%d", i), c, co)...)
		c, h, w = co, h/2, w/2
		if h < 1 || w < 1 {
			return Arch{}, fmt.Errorf("%d max-pools leave no pixels of a %dx%d image", i+1, in.H, in.W)
		}
	}
	ps = append(ps, dense("out", c*h*w, k)...)
	return Arch{Params: ps, Logits: func(x *G.Node, p []*G.Node) (*G.Node, error) {
		y := x
		var err error
		for i := 0; i+2 < len(p); i += 2 {
			if y, err = conv3(y, p[i], p[i+1]); err != nil {
				return nil, err
			}
			if y, err = G.Rectify(y); err != nil {
				return nil, err
			}
			if y, err = G.MaxPool2D(y, tensor.Shape{2, 2}, []int{0, 0}, []int{2, 2}); err != nil {
				return nil, err
			}
		}
		if y, err = flat(y); err != nil {
			return nil, err
		}
		return affine(y, p[len(p)-2], p[len(p)-1])
	}}, nil
}

// batchNorm declares a batch norm's scale (ones) and shift (zeros) over c
// channels.
func batchNorm(name string, c int) []Param {
	return []Param{
		{Name: name + "_scale", Shape: []int{c}, Init: Ones},
		{Name: name + "_shift", Shape: []int{c}, Init: Zeros},
	}
}

// bn normalises x (batch x C x H x W) by gorgonia's BatchNorm with the
// batch's statistics, then scales and shifts per channel.
func bn(x, scale, shift *G.Node) (*G.Node, error) {
	c := scale.Shape()[0]
	s, err := G.Reshape(scale, tensor.Shape{1, c, 1, 1})
	if err != nil {
		return nil, err
	}
	b, err := G.Reshape(shift, tensor.Shape{1, c, 1, 1})
	if err != nil {
		return nil, err
	}
	y, _, _, _, err := G.BatchNorm(x, s, b, 0.9, 1e-5)
	return y, err
}

// buildResNet is g:resnet:C,B: a 3x3 convolution to C channels with batch
// norm and ReLU and a 2x2 max-pool, then B residual blocks (conv, batch
// norm, ReLU, conv, batch norm, plus the block's input, ReLU), a global
// average pool and a dense layer to the logits: the small ResNet family
// of the paper's CIFARMNIST and ColoredObject experiments, at a size a
// CPU trains. Batch norm uses each chunk's statistics (see MaxRows).
func buildResNet(args string, in dataset.Shape, k int) (Arch, error) {
	if args == "" {
		args = "16,2"
	}
	v, err := ints(args, "channels and blocks")
	if err != nil {
		return Arch{}, err
	}
	if len(v) != 2 {
		return Arch{}, fmt.Errorf("%q: want C,B (channels, residual blocks)", args)
	}
	if err := needImage(in, "g:resnet"); err != nil {
		return Arch{}, err
	}
	c, blocks := v[0], v[1]
	ps := append(conv("stem", in.C, c), batchNorm("stem_bn", c)...)
	for i := range blocks {
		for j := range 2 {
			ps = append(ps, conv(fmt.Sprintf("b%d_c%d", i, j), c, c)...)
			ps = append(ps, batchNorm(fmt.Sprintf("b%d_bn%d", i, j), c)...)
		}
	}
	ps = append(ps, dense("out", c, k)...)
	return Arch{Params: ps, Logits: func(x *G.Node, p []*G.Node) (*G.Node, error) {
		// convBN is conv, then batch norm, of the 4 parameters at p[i:].
		convBN := func(y *G.Node, i int) (*G.Node, error) {
			y, err := conv3(y, p[i], p[i+1])
			if err != nil {
				return nil, err
			}
			return bn(y, p[i+2], p[i+3])
		}
		y, err := convBN(x, 0)
		if err != nil {
			return nil, err
		}
		if y, err = G.Rectify(y); err != nil {
			return nil, err
		}
		if y, err = G.MaxPool2D(y, tensor.Shape{2, 2}, []int{0, 0}, []int{2, 2}); err != nil {
			return nil, err
		}
		i := 4
		for range blocks {
			h, err := convBN(y, i)
			if err != nil {
				return nil, err
			}
			if h, err = G.Rectify(h); err != nil {
				return nil, err
			}
			if h, err = convBN(h, i+4); err != nil {
				return nil, err
			}
			if y, err = G.Add(y, h); err != nil {
				return nil, err
			}
			if y, err = G.Rectify(y); err != nil {
				return nil, err
			}
			i += 8
		}
		// The global average pool as two means: gorgonia's
		// GlobalAveragePool2D has no derivative.
		if y, err = G.Mean(y, 3); err != nil {
			return nil, err
		}
		if y, err = G.Mean(y, 2); err != nil {
			return nil, err
		}
		return affine(y, p[i], p[i+1])
	}}, nil
}
