package nets

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// layer is one differentiable stage of a Net. Sizes are per sample.
type layer[T Float] interface {
	in() int
	out() int
	nparams() int
	init(p []T, rng *rand.Rand)
	// forward writes y (n x out) from x (n x in).
	forward(p, x, y []T, n int)
	// backward adds the parameter gradient for output cotangents dy to dp
	// and writes the input cotangents to dx unless dx is nil. It may
	// overwrite dy and relies on the forward pass of the same x.
	backward(p, x, y, dy, dp, dx []T, n int)
	// tangent writes the output tangent ty for the parameter direction dir
	// and input tangent tx (nil means zero). It relies on the forward pass
	// of the same x.
	tangent(p, dir, x, tx, y, ty []T, n int)
}

// Spec describes an architecture; see ParseSpec.
type Spec struct {
	Kind   string // "linear", "mlp", "cnn" (max-pool) or "cnns" (stride 2)
	Widths []int  // hidden widths (mlp) or channels (cnn, cnns)
}

// MaxWidth is the largest hidden width or channel count a spec may ask for.
const MaxWidth = 1 << 16

// ParseSpec reads an architecture:
//
//	linear           logistic (or softmax) regression
//	mlp:W1,W2,...    ReLU MLP with the given hidden widths; "mlp" = mlp:390,390
//	cnn:C1,C2        conv3x3+ReLU+maxpool2, twice, then dense; "cnn" = cnn:16,32
//	cnns:C1,C2       the same with stride-2 convolutions instead of pooling
func ParseSpec(s string) (Spec, error) {
	kind, args, hasArgs := strings.Cut(strings.TrimSpace(s), ":")
	var sp Spec
	switch kind {
	case "linear":
		if hasArgs {
			return sp, fmt.Errorf("model %q: linear takes no widths", s)
		}
		return Spec{Kind: kind}, nil
	case "mlp":
		sp = Spec{Kind: kind, Widths: []int{390, 390}}
	case "cnn", "cnns":
		sp = Spec{Kind: kind, Widths: []int{16, 32}}
	default:
		return sp, fmt.Errorf("model %q: unknown kind %q (want linear, mlp:W1,W2,..., cnn:C1,C2 or cnns:C1,C2)", s, kind)
	}
	if hasArgs {
		sp.Widths = nil
		for _, f := range strings.Split(args, ",") {
			w, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || w <= 0 {
				return Spec{}, fmt.Errorf("model %q: width %q is not a positive integer", s, f)
			}
			if w > MaxWidth {
				return Spec{}, fmt.Errorf("model %q: width %d is above the limit of %d", s, w, MaxWidth)
			}
			sp.Widths = append(sp.Widths, w)
		}
		if (kind == "cnn" || kind == "cnns") && len(sp.Widths) != 2 {
			return Spec{}, fmt.Errorf("model %q: %s takes exactly two channel counts", s, kind)
		}
	}
	return sp, nil
}

// String gives the canonical form accepted by ParseSpec.
func (s Spec) String() string {
	if s.Kind == "linear" {
		return s.Kind
	}
	f := make([]string, len(s.Widths))
	for i, w := range s.Widths {
		f[i] = strconv.Itoa(w)
	}
	return s.Kind + ":" + strings.Join(f, ",")
}

// WorkBudget bounds the number of values a Net keeps in its work buffers
// per chunk (activations, and gradient or tangent buffers; 32M values,
// 128 MiB of float32); larger batches are processed in chunks.
const WorkBudget = 32 << 20

// LargeData is the size, in values, of a training matrix from which a
// Net's work buffers shrink to LargeDataBudget (64M values, 256 MiB of
// float32): beside data that large the buffers are what takes a process
// past the data's own size, and the products of the smaller chunks are
// still large enough to run at full speed. Below it the chunks stay where
// they have always been, and so do the bits of every run on such data.
const LargeData = 64 << 20

// LargeDataBudget is the work budget of a Net beside a training matrix
// of more than LargeData values: 8M values, 32 MiB of float32.
const LargeDataBudget = 8 << 20

// BudgetFor returns the work budget of a Net over a training matrix of
// the given number of values: WorkBudget, or LargeDataBudget above
// LargeData.
func BudgetFor(values int) int {
	if values > LargeData {
		return LargeDataBudget
	}
	return WorkBudget
}

// Net is a feed-forward network over a flat parameter vector.
type Net[T Float] struct {
	spec   Spec
	in     Shape
	k      int
	layers []layer[T]
	off    []int // parameter offset of each layer, plus the total
	chunk  int   // samples per chunk
	per    int   // values a sample takes in the work buffers, by the budget's count

	acts [][]T // acts[i]: output of layer i for the current chunk
	g    [2][]T
	t    [2][]T
	xs   []T // the current chunk's input rows, gathered by the Rows passes
}

// New builds the network spec for inputs of shape in and k outputs.
// Flat inputs may use Shape{C: D, H: 1, W: 1}; cnn needs an image shape.
func New[T Float](spec Spec, in Shape, k int) (*Net[T], error) {
	if in.Size() <= 0 || k <= 0 {
		return nil, fmt.Errorf("model %s: bad input shape %v or output count %d", spec, in, k)
	}
	m := &Net[T]{spec: spec, in: in, k: k}
	d := in.Size()
	switch spec.Kind {
	case "linear":
		m.layers = append(m.layers, newDense[T](d, k, false))
	case "mlp":
		for _, w := range spec.Widths {
			m.layers = append(m.layers, newDense[T](d, w, true))
			d = w
		}
		m.layers = append(m.layers, newDense[T](d, k, false))
	case "cnn", "cnns":
		if in.H < 4 || in.W < 4 {
			return nil, fmt.Errorf("model %s needs image inputs of at least 4x4, got %dx%dx%d (use linear or mlp for flat features)", spec, in.C, in.H, in.W)
		}
		s, lay := in, chw(in)
		for _, c := range spec.Widths {
			if spec.Kind == "cnn" {
				cv := newConv[T](s, lay, c, 1)
				mp := newMaxPool[T](cv.outShape())
				m.layers = append(m.layers, cv, mp)
				s = mp.outShape()
			} else {
				cv := newConv[T](s, lay, c, 2)
				m.layers = append(m.layers, cv)
				s = cv.outShape()
			}
			lay = hwc(s)
		}
		m.layers = append(m.layers, newDense[T](s.Size(), k, false))
	default:
		return nil, fmt.Errorf("unknown model kind %q", spec.Kind)
	}
	m.off = make([]int, len(m.layers)+1)
	per, widest := 0, 0
	for i, l := range m.layers {
		m.off[i+1] = m.off[i] + l.nparams()
		per += l.out()
		widest = max(widest, l.out(), l.in())
	}
	per += 2 * widest // the gradient or the tangent buffers (one kind per pass)
	m.per = per
	m.SetWorkBudget(WorkBudget)
	return m, nil
}

// MustNew is New for specs known to be valid; it panics on error.
func MustNew[T Float](spec string, in Shape, k int) *Net[T] {
	sp, err := ParseSpec(spec)
	if err != nil {
		panic(err)
	}
	m, err := New[T](sp, in, k)
	if err != nil {
		panic(err)
	}
	return m
}

// Spec returns the architecture.
func (m *Net[T]) Spec() Spec { return m.spec }

// InShape returns the per-sample input shape.
func (m *Net[T]) InShape() Shape { return m.in }

// Outputs returns K, the number of logits per sample.
func (m *Net[T]) Outputs() int { return m.k }

// NumParams returns the length of the parameter vector.
func (m *Net[T]) NumParams() int { return m.off[len(m.layers)] }

// SetWorkBudget sets the number of values the work buffers may hold per
// chunk (WorkBudget by default; see BudgetFor): the chunk is as many
// samples as fit it, and at least 64.
func (m *Net[T]) SetWorkBudget(values int) { m.chunk = max(64, values/m.per) }

// SetChunk sets the number of samples processed at once (default: as many
// as fit a budget of 128M activation values). It is for tests and tuning.
func (m *Net[T]) SetChunk(c int) { m.chunk = max(1, c) }

// FLOPs returns the multiply-add count times two of one forward pass of one
// sample through the weight layers (GEMM work only).
func (m *Net[T]) FLOPs() float64 {
	var f float64
	for _, l := range m.layers {
		switch l := l.(type) {
		case *dense[T]:
			f += 2 * float64(l.nin*l.nout)
		case *conv[T]:
			f += 2 * float64(l.ho*l.wo*l.k()*l.co)
		}
	}
	return f
}

// TrainFLOPs returns the GEMM flops of one training step (forward and
// backward) of one sample: each weight layer's forward product, its
// weight gradient, and its input gradient except for the first layer
// (nobody needs the gradient with respect to the data).
func (m *Net[T]) TrainFLOPs() float64 {
	var f float64
	for i, l := range m.layers {
		var fwd float64
		switch l := l.(type) {
		case *dense[T]:
			fwd = 2 * float64(l.nin*l.nout)
		case *conv[T]:
			fwd = 2 * float64(l.ho*l.wo*l.k()*l.co)
		}
		f += 2 * fwd
		if i > 0 {
			f += fwd
		}
	}
	return f
}

// SetBF16 switches the dense layers' products to bf16 inputs with float32
// accumulation (the parameters, activations and gradients stay float32)
// or back. It applies to every pass until switched back; it fails for
// float64 nets and where BF16 reports no support.
func (m *Net[T]) SetBF16(on bool) error {
	if on {
		if !is32[T]() {
			return fmt.Errorf("bf16 products need a float32 net")
		}
		if ok, why := BF16(); !ok {
			return fmt.Errorf("bf16 is not available: %s", why)
		}
	}
	for _, l := range m.layers {
		if d, ok := l.(*dense[T]); ok && d.nout > 1 {
			d.bf16 = on // a one-output head stays float32: it is memory-bound
		}
	}
	return nil
}

// Init writes Xavier-uniform weights and zero biases into theta.
func (m *Net[T]) Init(theta []T, rng *rand.Rand) {
	m.check(theta, "theta")
	for i, l := range m.layers {
		l.init(theta[m.off[i]:m.off[i+1]], rng)
	}
}

func (m *Net[T]) check(v []T, name string) {
	if len(v) != m.NumParams() {
		panic(fmt.Sprintf("%s has length %d, model %s has %d parameters", name, len(v), m.spec, m.NumParams()))
	}
}

func (m *Net[T]) checkX(x []T, n int) {
	if len(x) < n*m.in.Size() {
		panic(fmt.Sprintf("x has %d values, want %d x %d", len(x), n, m.in.Size()))
	}
}

// pass names the buffers a pass needs beside the activations.
type pass int

const (
	passForward pass = iota
	passBackprop
	passTangent
)

// ensure sizes the work buffers for chunks of c samples: the activations,
// and the gradient buffers for Backprop or the tangent ones for JVP, so
// that a net used only forward (or only at small batches backward) keeps
// no large buffers it does not use. The gradient and tangent buffers hold
// a layer's output or the input of a layer above the first: the input
// rows themselves never pass through them (the chunk size still counts
// them, as it always has, so that the chunks stay where they were).
func (m *Net[T]) ensure(c int, p pass) {
	if len(m.acts) != len(m.layers) {
		m.acts = make([][]T, len(m.layers))
	}
	widest := 0
	for i, l := range m.layers {
		m.acts[i] = grow(m.acts[i], c*l.out())
		widest = max(widest, l.out())
		if i > 0 {
			widest = max(widest, l.in())
		}
	}
	for i := range m.g {
		switch p {
		case passBackprop:
			m.g[i] = grow(m.g[i], c*widest)
		case passTangent:
			m.t[i] = grow(m.t[i], c*widest)
		}
	}
}

// Release drops the work buffers (a chunk's activations, gradients,
// tangents and gathered rows): a net done with its passes then holds
// only its parameters' layout. The next pass allocates them again.
func (m *Net[T]) Release() {
	m.acts, m.g, m.t, m.xs = nil, [2][]T{}, [2][]T{}, nil
}

// chunkIn returns the input of the chunk of c samples from lo: x's rows
// from lo when rows is nil, else x's rows rows[lo:lo+c] gathered into the
// net's chunk buffer (at most one chunk of rows is ever copied).
func (m *Net[T]) chunkIn(x []T, rows []int, lo, c int) []T {
	d := m.in.Size()
	if rows == nil {
		return x[lo*d:]
	}
	m.xs = grow(m.xs, c*d)
	for j, i := range rows[lo : lo+c] {
		copy(m.xs[j*d:(j+1)*d], x[i*d:(i+1)*d])
	}
	return m.xs
}

// checkRows panics unless every row of rows is a row of x.
func (m *Net[T]) checkRows(x []T, rows []int) {
	n := len(x) / m.in.Size()
	for _, i := range rows {
		if i < 0 || i >= n {
			panic(fmt.Sprintf("row %d of a matrix of %d rows", i, n))
		}
	}
}

func (m *Net[T]) p(theta []T, i int) []T { return theta[m.off[i]:m.off[i+1]] }

// forwardChunk runs the layers on c samples x; the logits end in acts[last].
func (m *Net[T]) forwardChunk(theta, x []T, c int) {
	in := x
	for i, l := range m.layers {
		l.forward(m.p(theta, i), in, m.acts[i], c)
		in = m.acts[i]
	}
}

func (m *Net[T]) input(i int, x []T) []T {
	if i == 0 {
		return x
	}
	return m.acts[i-1]
}

// Forward writes the logits (n x K) of the n samples in x.
func (m *Net[T]) Forward(theta, x []T, n int, logits []T) {
	m.checkX(x, n)
	m.forward(theta, x, nil, n, logits)
}

// ForwardRows is Forward over the rows rows of x (row-major, D values a
// row), in that order: each chunk's rows are gathered into a buffer of
// one chunk, with the chunks of Forward over those rows gathered whole,
// so the logits are the same bits.
func (m *Net[T]) ForwardRows(theta, x []T, rows []int, logits []T) {
	m.checkRows(x, rows)
	m.forward(theta, x, rows, len(rows), logits)
}

func (m *Net[T]) forward(theta, x []T, rows []int, n int, logits []T) {
	m.check(theta, "theta")
	k := m.k
	for lo := 0; lo < n; lo += m.chunk {
		c := min(m.chunk, n-lo)
		m.ensure(c, passForward)
		m.forwardChunk(theta, m.chunkIn(x, rows, lo, c), c)
		copy(logits[lo*k:(lo+c)*k], m.acts[len(m.layers)-1])
	}
}

// Backprop computes grad = J^T c, the parameter gradient of sum_i c_i . f_i,
// where the cotangents c are produced chunk by chunk: after the forward
// pass of samples [lo, hi), fill receives their logits and writes their
// cotangents into cot (both (hi-lo) x K). grad is overwritten.
func (m *Net[T]) Backprop(theta, x []T, n int, fill func(lo, hi int, logits, cot []T), grad []T) {
	m.checkX(x, n)
	m.backprop(theta, x, nil, n, fill, grad)
}

// BackpropRows is Backprop over the rows rows of x, in that order (fill
// sees positions in rows), one chunk of rows gathered at a time: the same
// bits as Backprop over those rows gathered whole.
func (m *Net[T]) BackpropRows(theta, x []T, rows []int, fill func(lo, hi int, logits, cot []T), grad []T) {
	m.checkRows(x, rows)
	m.backprop(theta, x, rows, len(rows), fill, grad)
}

func (m *Net[T]) backprop(theta, x []T, rows []int, n int, fill func(lo, hi int, logits, cot []T), grad []T) {
	m.check(theta, "theta")
	m.check(grad, "grad")
	clear(grad)
	k, last := m.k, len(m.layers)-1
	for lo := 0; lo < n; lo += m.chunk {
		c := min(m.chunk, n-lo)
		m.ensure(c, passBackprop)
		xc := m.chunkIn(x, rows, lo, c)
		m.forwardChunk(theta, xc, c)
		dy := m.g[0][:c*k]
		fill(lo, lo+c, m.acts[last][:c*k], dy)
		masked := false
		for i := last; i >= 0; i-- {
			var dx []T
			if i > 0 {
				dx = m.g[(last-i+1)%2]
			}
			d, ok := m.layers[i].(*dense[T])
			if !ok {
				m.layers[i].backward(m.p(theta, i), m.input(i, xc), m.acts[i], dy, m.p(grad, i), dx, c)
				dy, masked = dx, false
				continue
			}
			var next *gateNext[T]
			if prev, ok := m.layerBelow(i); ok && d.nout == 1 && prev.relu {
				_, db := prev.split(m.p(grad, i-1))
				next = &gateNext[T]{layer: prev, y: m.acts[i-1], db: db}
			}
			d.backwardGated(m.p(theta, i), m.input(i, xc), m.acts[i], dy, m.p(grad, i), dx, c, masked, next)
			dy, masked = dx, next != nil
		}
	}
}

// layerBelow returns layer i-1 when it is dense.
func (m *Net[T]) layerBelow(i int) (*dense[T], bool) {
	if i == 0 {
		return nil, false
	}
	d, ok := m.layers[i-1].(*dense[T])
	return d, ok
}

// VJP computes grad = J^T cot for output cotangents cot (n x K).
func (m *Net[T]) VJP(theta, x []T, n int, cot, grad []T) {
	k := m.k
	m.Backprop(theta, x, n, func(lo, hi int, _, c []T) { copy(c, cot[lo*k:hi*k]) }, grad)
}

// JVP writes the per-sample output tangents tan = J dir (n x K) for the
// parameter direction dir, by forward-mode tangent propagation, and the
// logits too unless logits is nil.
func (m *Net[T]) JVP(theta, x []T, n int, dir, logits, tan []T) {
	m.checkX(x, n)
	m.jvp(theta, x, nil, n, dir, logits, tan)
}

// JVPRows is JVP over the rows rows of x, in that order, one chunk of
// rows gathered at a time: the same bits as JVP over them gathered whole.
func (m *Net[T]) JVPRows(theta, x []T, rows []int, dir, logits, tan []T) {
	m.checkRows(x, rows)
	m.jvp(theta, x, rows, len(rows), dir, logits, tan)
}

func (m *Net[T]) jvp(theta, x []T, rows []int, n int, dir, logits, tan []T) {
	m.check(theta, "theta")
	m.check(dir, "dir")
	k, last := m.k, len(m.layers)-1
	for lo := 0; lo < n; lo += m.chunk {
		c := min(m.chunk, n-lo)
		m.ensure(c, passTangent)
		xc := m.chunkIn(x, rows, lo, c)
		var tx []T
		for i, l := range m.layers {
			in := m.input(i, xc)
			l.forward(m.p(theta, i), in, m.acts[i], c)
			ty := m.t[i%2]
			l.tangent(m.p(theta, i), m.p(dir, i), in, tx, m.acts[i], ty, c)
			tx = ty
		}
		copy(tan[lo*k:(lo+c)*k], tx[:c*k])
		if logits != nil {
			copy(logits[lo*k:(lo+c)*k], m.acts[last])
		}
	}
}

// WeightMask marks the parameters that are weights (true) rather than
// biases: what a weight-masking method (SparseIRM, MRM) may prune.
func (m *Net[T]) WeightMask() []bool {
	out := make([]bool, m.NumParams())
	for i, l := range m.layers {
		s, ok := l.(interface{ split(p []T) (w, b []T) })
		if !ok {
			continue
		}
		p := make([]T, l.nparams())
		w, _ := s.split(p)
		for j := range w {
			out[m.off[i]+j] = true
		}
	}
	return out
}
