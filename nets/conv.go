package nets

import "math/rand/v2"

// Shape is the per-sample shape of an image batch: C channels of H x W.
// A flat feature vector of length D has Shape{C: D, H: 1, W: 1}.
type Shape struct{ C, H, W int }

// Size is the number of values per sample.
func (s Shape) Size() int { return s.C * s.H * s.W }

// layout gives the strides of channel, row and column inside one sample.
type layout struct{ c, h, w int }

func chw(s Shape) layout { return layout{c: s.H * s.W, h: s.W, w: 1} }
func hwc(s Shape) layout { return layout{c: 1, h: s.W * s.C, w: s.C} }

// conv is a 3x3 convolution with padding 1 and the given stride, followed
// by a ReLU, computed by im2col and one GEMM. Its input is read with the
// layout lin (CHW for the network input, HWC after a conv); its output is
// HWC. Parameters: W ((C*9) x Co, row index c*9 + kh*3 + kw) then b (Co).
type conv[T Float] struct {
	ins         Shape
	lin         layout
	co, stride  int
	ho, wo      int
	cols, tcols []T
	part        [][]T
}

func newConv[T Float](ins Shape, lin layout, co, stride int) *conv[T] {
	return &conv[T]{ins: ins, lin: lin, co: co, stride: stride,
		ho: (ins.H-1)/stride + 1, wo: (ins.W-1)/stride + 1}
}

func (l *conv[T]) outShape() Shape { return Shape{C: l.co, H: l.ho, W: l.wo} }
func (l *conv[T]) in() int         { return l.ins.Size() }
func (l *conv[T]) out() int        { return l.co * l.ho * l.wo }
func (l *conv[T]) k() int          { return l.ins.C * 9 }
func (l *conv[T]) nparams() int    { return l.k()*l.co + l.co }

func (l *conv[T]) init(p []T, rng *rand.Rand) {
	// PyTorch's fan convention for convolutions: fan_in = C*9, fan_out = Co*9.
	xavier(p[:l.k()*l.co], l.k(), l.co*9, rng)
	clear(p[l.k()*l.co:])
}

func (l *conv[T]) split(p []T) (w, b []T) { return p[:l.k()*l.co], p[l.k()*l.co:] }

func grow[T Float | uint16](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// im2col writes the (n*ho*wo) x (C*9) patch matrix of x into cols.
func (l *conv[T]) im2col(x, cols []T, n int) {
	C, H, W, K, P := l.ins.C, l.ins.H, l.ins.W, l.k(), l.ho*l.wo
	sz := l.ins.Size()
	parallelFor(n, n*P*K, func(_, lo, hi int) {
		for s := lo; s < hi; s++ {
			xs := x[s*sz : (s+1)*sz]
			for oh := 0; oh < l.ho; oh++ {
				for ow := 0; ow < l.wo; ow++ {
					row := cols[((s*P)+oh*l.wo+ow)*K:][:K]
					for c := 0; c < C; c++ {
						for kh := 0; kh < 3; kh++ {
							ih := oh*l.stride + kh - 1
							for kw := 0; kw < 3; kw++ {
								iw := ow*l.stride + kw - 1
								v := T(0)
								if ih >= 0 && ih < H && iw >= 0 && iw < W {
									v = xs[c*l.lin.c+ih*l.lin.h+iw*l.lin.w]
								}
								row[c*9+kh*3+kw] = v
							}
						}
					}
				}
			}
		}
	})
}

// col2im adds the patch gradients back onto dx (which it zeroes first).
func (l *conv[T]) col2im(cols, dx []T, n int) {
	C, H, W, K, P := l.ins.C, l.ins.H, l.ins.W, l.k(), l.ho*l.wo
	sz := l.ins.Size()
	parallelFor(n, n*P*K, func(_, lo, hi int) {
		for s := lo; s < hi; s++ {
			xs := dx[s*sz : (s+1)*sz]
			clear(xs)
			for oh := 0; oh < l.ho; oh++ {
				for ow := 0; ow < l.wo; ow++ {
					row := cols[((s*P)+oh*l.wo+ow)*K:][:K]
					for c := 0; c < C; c++ {
						for kh := 0; kh < 3; kh++ {
							ih := oh*l.stride + kh - 1
							if ih < 0 || ih >= H {
								continue
							}
							for kw := 0; kw < 3; kw++ {
								iw := ow*l.stride + kw - 1
								if iw >= 0 && iw < W {
									xs[c*l.lin.c+ih*l.lin.h+iw*l.lin.w] += row[c*9+kh*3+kw]
								}
							}
						}
					}
				}
			}
		}
	})
}

func (l *conv[T]) forward(p, x, y []T, n int) {
	w, b := l.split(p)
	m := n * l.ho * l.wo
	l.cols = grow(l.cols, m*l.k())
	l.im2col(x, l.cols, n)
	Gemm(false, false, m, l.co, l.k(), 1, l.cols, l.k(), w, l.co, 0, y, l.co)
	biasAct(y, b, nil, m, l.co, true)
}

// backward needs the patch matrix of the forward pass of the same x.
func (l *conv[T]) backward(p, x, y, dy, dp, dx []T, n int) {
	w, _ := l.split(p)
	dw, db := l.split(dp)
	m := n * l.ho * l.wo
	l.part = maskColSum(dy, y, db, m, l.co, true, l.part)
	Gemm(true, false, l.k(), l.co, m, 1, l.cols, l.k(), dy, l.co, 1, dw, l.co)
	if dx != nil {
		l.tcols = grow(l.tcols, m*l.k())
		Gemm(false, true, m, l.k(), l.co, 1, dy, l.co, w, l.co, 0, l.tcols, l.k())
		l.col2im(l.tcols, dx, n)
	}
}

// tangent needs the patch matrix of the forward pass of the same x.
func (l *conv[T]) tangent(p, dir, x, tx, y, ty []T, n int) {
	w, _ := l.split(p)
	dw, db := l.split(dir)
	m := n * l.ho * l.wo
	beta := T(0)
	if tx != nil {
		l.tcols = grow(l.tcols, m*l.k())
		l.im2col(tx, l.tcols, n)
		Gemm(false, false, m, l.co, l.k(), 1, l.tcols, l.k(), w, l.co, 0, ty, l.co)
		beta = 1
	}
	Gemm(false, false, m, l.co, l.k(), 1, l.cols, l.k(), dw, l.co, beta, ty, l.co)
	biasAct(ty, db, y, m, l.co, true)
}

// maxPool is a 2x2, stride-2 max pooling over an HWC input (odd trailing
// rows and columns are dropped, as in PyTorch).
type maxPool[T Float] struct {
	ins    Shape
	ho, wo int
	arg    []int32 // per output value: offset of the maximum inside its sample
}

func newMaxPool[T Float](ins Shape) *maxPool[T] {
	return &maxPool[T]{ins: ins, ho: ins.H / 2, wo: ins.W / 2}
}

func (l *maxPool[T]) outShape() Shape      { return Shape{C: l.ins.C, H: l.ho, W: l.wo} }
func (l *maxPool[T]) in() int              { return l.ins.Size() }
func (l *maxPool[T]) out() int             { return l.ins.C * l.ho * l.wo }
func (l *maxPool[T]) nparams() int         { return 0 }
func (l *maxPool[T]) init([]T, *rand.Rand) {}

func (l *maxPool[T]) forward(_, x, y []T, n int) {
	C, W := l.ins.C, l.ins.W
	in, out := l.in(), l.out()
	if cap(l.arg) < n*out {
		l.arg = make([]int32, n*out)
	}
	l.arg = l.arg[:n*out]
	parallelFor(n, n*in, func(_, lo, hi int) {
		for s := lo; s < hi; s++ {
			xs, ys, as := x[s*in:(s+1)*in], y[s*out:(s+1)*out], l.arg[s*out:(s+1)*out]
			for oh := 0; oh < l.ho; oh++ {
				for ow := 0; ow < l.wo; ow++ {
					for c := 0; c < C; c++ {
						base := ((2*oh)*W+2*ow)*C + c
						best := base
						for _, o := range [3]int{C, W * C, W*C + C} {
							if xs[base+o] > xs[best] {
								best = base + o
							}
						}
						k := (oh*l.wo+ow)*C + c
						ys[k], as[k] = xs[best], int32(best)
					}
				}
			}
		}
	})
}

func (l *maxPool[T]) backward(_, _, _, dy, _, dx []T, n int) {
	if dx == nil {
		return
	}
	in, out := l.in(), l.out()
	parallelFor(n, n*in, func(_, lo, hi int) {
		for s := lo; s < hi; s++ {
			xs := dx[s*in : (s+1)*in]
			clear(xs)
			for k, a := range l.arg[s*out : (s+1)*out] {
				xs[a] += dy[s*out+k]
			}
		}
	})
}

func (l *maxPool[T]) tangent(_, _, _, tx, _, ty []T, n int) {
	if tx == nil {
		clear(ty[:n*l.out()])
		return
	}
	in, out := l.in(), l.out()
	parallelFor(n, n*out, func(_, lo, hi int) {
		for s := lo; s < hi; s++ {
			for k, a := range l.arg[s*out : (s+1)*out] {
				ty[s*out+k] = tx[s*in+int(a)]
			}
		}
	})
}
