package nets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

type netCase struct {
	name string
	spec string
	in   Shape
	k    int
}

var netCases = []netCase{
	{"linear-binary", "linear", Shape{7, 1, 1}, 1},
	{"linear-softmax", "linear", Shape{7, 1, 1}, 3},
	{"mlp-binary", "mlp:6,5", Shape{7, 1, 1}, 1},
	{"mlp-softmax", "mlp:6,5", Shape{7, 1, 1}, 4},
	{"mlp-deep", "mlp:5,4,3", Shape{6, 1, 1}, 1},
	{"cnn-pool-binary", "cnn:3,4", Shape{2, 6, 6}, 1},
	{"cnn-pool-softmax", "cnn:2,3", Shape{2, 7, 5}, 3},
	{"cnn-stride-binary", "cnns:3,2", Shape{2, 6, 6}, 1},
}

func randVec(rng *rand.Rand, n int, s float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64() * s
	}
	return v
}

func setup(t *testing.T, c netCase, n int, seed uint64) (*Net[float64], []float64, []float64, *rand.Rand) {
	t.Helper()
	m := MustNew[float64](c.spec, c.in, c.k)
	rng := rand.New(rand.NewPCG(seed, 7))
	theta := make([]float64, m.NumParams())
	m.Init(theta, rng)
	// Biases are zero after Init; perturb everything so that every
	// parameter matters.
	for i := range theta {
		theta[i] += 0.3 * rng.NormFloat64()
	}
	return m, theta, randVec(rng, n*c.in.Size(), 1), rng
}

// pattern is the set of ReLU signs and pooling choices of the last forward
// pass: derivatives are only compared where a perturbation leaves it as is.
func (m *Net[T]) pattern() []int32 {
	var p []int32
	for i, l := range m.layers {
		switch l := l.(type) {
		case *maxPool[T]:
			p = append(p, l.arg...)
		case *dense[T]:
			if !l.relu {
				continue
			}
			for _, v := range m.acts[i] {
				p = append(p, b2i(v > 0))
			}
		case *conv[T]:
			for _, v := range m.acts[i] {
				p = append(p, b2i(v > 0))
			}
		}
	}
	return p
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

func closeRel(a, b, scale, tol float64) bool {
	return math.Abs(a-b) <= tol*(math.Max(math.Abs(a), math.Abs(b))+scale)
}

func TestVJPFiniteDifference(t *testing.T) {
	const n, h = 5, 1e-6
	for _, c := range netCases {
		t.Run(c.name, func(t *testing.T) {
			m, theta, x, rng := setup(t, c, n, 1)
			cot := randVec(rng, n*c.k, 1)
			grad := make([]float64, m.NumParams())
			m.VJP(theta, x, n, cot, grad)
			logits := make([]float64, n*c.k)
			obj := func(th []float64) ([]int32, float64) {
				m.Forward(th, x, n, logits)
				return m.pattern(), Dot(cot, logits)
			}
			base, _ := obj(theta)
			gmax := 0.0
			for _, g := range grad {
				gmax = math.Max(gmax, math.Abs(g))
			}
			skipped := 0
			for j := range theta {
				th := slices.Clone(theta)
				th[j] = theta[j] + h
				pp, fp := obj(th)
				th[j] = theta[j] - h
				pm, fm := obj(th)
				if !slices.Equal(pp, base) || !slices.Equal(pm, base) {
					skipped++
					continue
				}
				fd := (fp - fm) / (2 * h)
				if !closeRel(grad[j], fd, 1e-3*gmax, 1e-6) {
					t.Errorf("param %d: VJP %.12g, finite difference %.12g", j, grad[j], fd)
				}
			}
			if skipped > len(theta)/10 {
				t.Errorf("%d of %d parameters sit on a kink", skipped, len(theta))
			}
		})
	}
}

func TestJVPFiniteDifference(t *testing.T) {
	const n, h = 6, 1e-6
	for _, c := range netCases {
		t.Run(c.name, func(t *testing.T) {
			m, theta, x, rng := setup(t, c, n, 2)
			dir := randVec(rng, m.NumParams(), 1)
			tan := make([]float64, n*c.k)
			logits := make([]float64, n*c.k)
			m.JVP(theta, x, n, dir, logits, tan)
			want := make([]float64, n*c.k)
			m.Forward(theta, x, n, want)
			for i := range want {
				if math.Abs(want[i]-logits[i]) > 1e-12*(1+math.Abs(want[i])) {
					t.Fatalf("JVP logits %d: %g, Forward %g", i, logits[i], want[i])
				}
			}
			base := m.pattern()
			plus, minus := make([]float64, n*c.k), make([]float64, n*c.k)
			th := make([]float64, len(theta))
			for i := range th {
				th[i] = theta[i] + h*dir[i]
			}
			m.Forward(th, x, n, plus)
			pp := m.pattern()
			for i := range th {
				th[i] = theta[i] - h*dir[i]
			}
			m.Forward(th, x, n, minus)
			if !slices.Equal(pp, base) || !slices.Equal(m.pattern(), base) {
				t.Skip("the direction crosses a ReLU or pooling kink; change the seed")
			}
			tmax := 0.0
			for _, v := range tan {
				tmax = math.Max(tmax, math.Abs(v))
			}
			for i := range tan {
				fd := (plus[i] - minus[i]) / (2 * h)
				if !closeRel(tan[i], fd, 1e-3*tmax, 1e-6) {
					t.Errorf("output %d: JVP %.12g, finite difference %.12g", i, tan[i], fd)
				}
			}
		})
	}
}

func TestAdjointIdentity(t *testing.T) {
	const n = 9
	for _, c := range netCases {
		t.Run(c.name, func(t *testing.T) {
			m, theta, x, rng := setup(t, c, n, 3)
			for trial := 0; trial < 3; trial++ {
				g := randVec(rng, m.NumParams(), 1)
				cot := randVec(rng, n*c.k, 1)
				jtc := make([]float64, m.NumParams())
				m.VJP(theta, x, n, cot, jtc)
				jg := make([]float64, n*c.k)
				m.JVP(theta, x, n, g, nil, jg)
				a, b := Dot(g, jtc), Dot(jg, cot)
				if !closeRel(a, b, 1e-12, 1e-10) {
					t.Errorf("g.(J^T c) = %.15g but (J g).c = %.15g", a, b)
				}
			}
		})
	}
}

func TestChunkingAgrees(t *testing.T) {
	const n = 11
	for _, c := range netCases {
		t.Run(c.name, func(t *testing.T) {
			m, theta, x, rng := setup(t, c, n, 4)
			cot := randVec(rng, n*c.k, 1)
			dir := randVec(rng, m.NumParams(), 1)
			run := func(chunk int) (f, g, tan []float64) {
				m.SetChunk(chunk)
				f, g, tan = make([]float64, n*c.k), make([]float64, m.NumParams()), make([]float64, n*c.k)
				m.Forward(theta, x, n, f)
				m.VJP(theta, x, n, cot, g)
				m.JVP(theta, x, n, dir, nil, tan)
				return
			}
			f1, g1, t1 := run(n)
			f2, g2, t2 := run(3)
			for _, p := range [][2][]float64{{f1, f2}, {g1, g2}, {t1, t2}} {
				for i := range p[0] {
					if !closeRel(p[0][i], p[1][i], 1e-12, 1e-12) {
						t.Fatalf("chunked result differs at %d: %g vs %g", i, p[0][i], p[1][i])
					}
				}
			}
		})
	}
}

func TestFloat32MatchesFloat64(t *testing.T) {
	const n = 8
	for _, c := range netCases {
		t.Run(c.name, func(t *testing.T) {
			m64, theta, x, _ := setup(t, c, n, 5)
			m32 := MustNew[float32](c.spec, c.in, c.k)
			th32, x32 := to32(theta), to32(x)
			f64, f32 := make([]float64, n*c.k), make([]float32, n*c.k)
			m64.Forward(theta, x, n, f64)
			m32.Forward(th32, x32, n, f32)
			for i := range f64 {
				if !closeRel(float64(f32[i]), f64[i], 1e-2, 1e-4) {
					t.Errorf("logit %d: float32 %g, float64 %g", i, f32[i], f64[i])
				}
			}
		})
	}
}

func to32(v []float64) []float32 {
	o := make([]float32, len(v))
	for i, x := range v {
		o[i] = float32(x)
	}
	return o
}

func TestInitXavier(t *testing.T) {
	m := MustNew[float64]("mlp:50", Shape{40, 1, 1}, 1)
	theta := make([]float64, m.NumParams())
	m.Init(theta, rand.New(rand.NewPCG(1, 2)))
	a := math.Sqrt(6.0 / 90)
	w, b := theta[:2000], theta[2000:2050]
	var sq float64
	for _, v := range w {
		if math.Abs(v) > a {
			t.Fatalf("weight %g outside [-%g, %g]", v, a, a)
		}
		sq += v * v
	}
	// U(-a, a) has variance a^2/3.
	if got, want := sq/float64(len(w)), a*a/3; math.Abs(got-want) > 0.1*want {
		t.Errorf("weight variance %g, want about %g", got, want)
	}
	for _, v := range b {
		if v != 0 {
			t.Fatalf("bias %g, want 0", v)
		}
	}
	again := make([]float64, m.NumParams())
	m.Init(again, rand.New(rand.NewPCG(1, 2)))
	if !slices.Equal(theta, again) {
		t.Error("Init with the same seed differs")
	}
}

func TestParseSpec(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
		msg      string // part of the error
	}{
		{"linear", "linear", true, ""},
		{"mlp", "mlp:390,390", true, ""},
		{"mlp:64,32", "mlp:64,32", true, ""},
		{"cnn", "cnn:16,32", true, ""},
		{"cnns:8,8", "cnns:8,8", true, ""},
		{"mlp:65536", "mlp:65536", true, ""},
		{"mlp:0", "", false, "not a positive integer"},
		{"mlp:a", "", false, "not a positive integer"},
		{"mlp:200000,200000", "", false, "width 200000 is above the limit of 65536"},
		{"cnn:1,2,3", "", false, "exactly two"},
		{"linear:3", "", false, "no widths"},
		{"resnet", "", false, "unknown kind"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			s, err := ParseSpec(c.in)
			if (err == nil) != c.ok {
				t.Fatalf("ParseSpec(%q) error %v, want ok=%v", c.in, err, c.ok)
			}
			if err != nil && !strings.Contains(err.Error(), c.msg) {
				t.Errorf("ParseSpec(%q): %v, want it to say %q", c.in, err, c.msg)
			}
			if c.ok && s.String() != c.want {
				t.Errorf("ParseSpec(%q) = %s, want %s", c.in, s, c.want)
			}
		})
	}
	if _, err := New[float32](Spec{Kind: "cnn", Widths: []int{2, 2}}, Shape{10, 1, 1}, 1); err == nil {
		t.Error("cnn on flat features: want an error")
	}
}

// TrainFLOPs counts forward, weight-gradient and input-gradient products,
// skipping the first layer's input gradient.
func TestTrainFLOPs(t *testing.T) {
	m := MustNew[float32]("mlp:390,390", Shape{C: 392, H: 1, W: 1}, 1)
	l1, l2, l3 := 2.0*392*390, 2.0*390*390, 2.0*390*1
	if got, want := m.TrainFLOPs(), 2*l1+3*l2+3*l3; got != want {
		t.Errorf("TrainFLOPs = %g, want %g", got, want)
	}
	if got, want := m.FLOPs(), l1+l2+l3; got != want {
		t.Errorf("FLOPs = %g, want %g", got, want)
	}
}

// TestRowsSameBits: the Rows passes over an index list (repeats, any
// order) give the same bits as the plain passes over those rows gathered
// whole, at the same chunk size, with several chunks and a last short one.
func TestRowsSameBits(t *testing.T) {
	const n = 13
	rows := []int{12, 0, 5, 5, 7, 3, 11, 1, 9, 2, 8}
	for _, c := range netCases {
		for _, chunk := range []int{4, 64} {
			t.Run(fmt.Sprintf("%s/chunk=%d", c.name, chunk), func(t *testing.T) {
				_, th64, x64, rng := setup(t, c, n, 9)
				m := MustNew[float32](c.spec, c.in, c.k)
				m.SetChunk(chunk)
				theta, x := to32(th64), to32(x64)
				dir := to32(randVec(rng, m.NumParams(), 1))
				cot := to32(randVec(rng, len(rows)*c.k, 1))
				d := c.in.Size()
				xg := make([]float32, 0, len(rows)*d)
				for _, i := range rows {
					xg = append(xg, x[i*d:(i+1)*d]...)
				}
				nr, k := len(rows), c.k
				fill := func(lo, hi int, _, cv []float32) { copy(cv, cot[lo*k:hi*k]) }
				f1, f2 := make([]float32, nr*k), make([]float32, nr*k)
				m.Forward(theta, xg, nr, f1)
				m.ForwardRows(theta, x, rows, f2)
				g1, g2 := make([]float32, m.NumParams()), make([]float32, m.NumParams())
				m.Backprop(theta, xg, nr, fill, g1)
				m.BackpropRows(theta, x, rows, fill, g2)
				l1, t1, l2, t2 := make([]float32, nr*k), make([]float32, nr*k), make([]float32, nr*k), make([]float32, nr*k)
				m.JVP(theta, xg, nr, dir, l1, t1)
				m.JVPRows(theta, x, rows, dir, l2, t2)
				for _, p := range []struct {
					what string
					a, b []float32
				}{{"logits", f1, f2}, {"gradient", g1, g2}, {"JVP logits", l1, l2}, {"tangents", t1, t2}} {
					if !slices.Equal(p.a, p.b) {
						t.Errorf("%s over the rows differ from those over the gathered copy", p.what)
					}
				}
			})
		}
	}
}

// TestRelease: Release drops every work buffer, and the passes after it
// give the same bits as before.
func TestRelease(t *testing.T) {
	c := netCases[2]
	_, th64, x64, rng := setup(t, c, 9, 5)
	m := MustNew[float32](c.spec, c.in, c.k)
	theta, x := to32(th64), to32(x64)
	cot := to32(randVec(rng, 9*c.k, 1))
	g1, g2 := make([]float32, m.NumParams()), make([]float32, m.NumParams())
	m.VJP(theta, x, 9, cot, g1)
	m.ForwardRows(theta, x, []int{1, 2}, make([]float32, 2*c.k))
	m.Release()
	if m.acts != nil || m.g[0] != nil || m.xs != nil {
		t.Fatal("work buffers kept after Release")
	}
	m.VJP(theta, x, 9, cot, g2)
	if !slices.Equal(g1, g2) {
		t.Error("the gradient after Release differs")
	}
}

// TestWorkBuffersBesideLargeData: beside a training matrix of more than
// LargeData values a net's work buffers (activations, gradients and the
// gathered rows of a chunk) hold at most LargeDataBudget values, where
// WorkBudget let them take four times that; below it the chunk is the
// one it always was.
func TestWorkBuffersBesideLargeData(t *testing.T) {
	held := func(m *Net[float32]) int {
		n := len(m.xs) + len(m.g[0]) + len(m.g[1])
		for _, a := range m.acts {
			n += len(a)
		}
		return n
	}
	for _, c := range []struct {
		name      string
		values    int // the training matrix's size
		wantChunk int
		maxHeld   int
	}{
		{"ColoredMNIST's size", 45000 * 392, WorkBudget / (256 + 2 + 2*1024), WorkBudget},
		{"at LargeData", LargeData, WorkBudget / (256 + 2 + 2*1024), WorkBudget},
		{"300,000 x 1,024", 300000 * 1024, LargeDataBudget / (256 + 2 + 2*1024), LargeDataBudget},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := MustNew[float32]("mlp:256", Shape{C: 1024, H: 1, W: 1}, 2)
			m.SetWorkBudget(BudgetFor(c.values))
			if m.chunk != c.wantChunk {
				t.Fatalf("chunk %d samples, want %d", m.chunk, c.wantChunk)
			}
			const n = 16000 // more than one chunk at the smaller budget
			x := make([]float32, n*1024)
			rows := make([]int, n)
			for i := range rows {
				rows[i] = n - 1 - i
			}
			theta, grad := make([]float32, m.NumParams()), make([]float32, m.NumParams())
			m.Init(theta, rand.New(rand.NewPCG(1, 2)))
			m.BackpropRows(theta, x, rows, func(lo, hi int, _, cot []float32) { clear(cot) }, grad)
			if h := held(m); h > c.maxHeld {
				t.Errorf("work buffers hold %d values, more than %d", h, c.maxHeld)
			}
		})
	}
}
