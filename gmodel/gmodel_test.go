package gmodel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
)

func randn[T nets.Float](n int, rng *rand.Rand) []T {
	v := make([]T, n)
	for i := range v {
		v[i] = T(rng.NormFloat64())
	}
	return v
}

// relDiff is ||a - b|| / max(||b||, tiny).
func relDiff[T nets.Float](a, b []T) float64 {
	var num, den float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		num += d * d
		den += float64(b[i]) * float64(b[i])
	}
	return math.Sqrt(num / math.Max(den, 1e-300))
}

// agree checks that g:mlp and nets' mlp give the same logits, gradients
// (Backprop and VJP) and JVPs from the same parameters.
func agree[T nets.Float](t *testing.T, tol float64) {
	in, k, n := dataset.Shape{C: 7, H: 1, W: 1}, 3, 37
	ns, err := nets.ParseSpec("mlp:6,5")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := nets.New[T](ns, nets.Shape{C: in.C, H: 1, W: 1}, k)
	if err != nil {
		t.Fatal(err)
	}
	g, err := New[T]("g:mlp:6,5", in, k)
	if err != nil {
		t.Fatal(err)
	}
	g.MaxRows = 16 // three chunks
	if g.NumParams() != ref.NumParams() {
		t.Fatalf("%d parameters, nets %d", g.NumParams(), ref.NumParams())
	}
	// The same seed draws the same initial parameters.
	ta, tb := make([]T, g.NumParams()), make([]T, ref.NumParams())
	g.Init(ta, rand.New(rand.NewPCG(3, 4)))
	ref.Init(tb, rand.New(rand.NewPCG(3, 4)))
	if d := relDiff(ta, tb); d != 0 {
		t.Errorf("Init differs from nets' by %g", d)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	theta, x, cot, dir := randn[T](g.NumParams(), rng), randn[T](n*in.C, rng), randn[T](n*k, rng), randn[T](g.NumParams(), rng)
	f1, f2 := make([]T, n*k), make([]T, n*k)
	g.Forward(theta, x, n, f1)
	ref.Forward(theta, x, n, f2)
	if d := relDiff(f1, f2); d > tol {
		t.Errorf("logits differ by %g", d)
	}
	g1, g2 := make([]T, g.NumParams()), make([]T, g.NumParams())
	g.VJP(theta, x, n, cot, g1)
	ref.VJP(theta, x, n, cot, g2)
	if d := relDiff(g1, g2); d > tol {
		t.Errorf("VJP differs by %g", d)
	}
	fill := func(lo, hi int, f, c []T) {
		for i := range c {
			c[i] = f[i] * cot[lo*k+i] // depends on the logits, as a loss's cotangent does
		}
	}
	g.Backprop(theta, x, n, fill, g1)
	ref.Backprop(theta, x, n, fill, g2)
	if d := relDiff(g1, g2); d > tol {
		t.Errorf("Backprop differs by %g", d)
	}
	j1, j2 := make([]T, n*k), make([]T, n*k)
	g.JVP(theta, x, n, dir, f1, j1)
	ref.JVP(theta, x, n, dir, f2, j2)
	if d := relDiff(j1, j2); d > tol {
		t.Errorf("JVP differs by %g", d)
	}
	if d := relDiff(f1, f2); d > tol {
		t.Errorf("JVP's logits differ by %g", d)
	}
}

// TestMLPAgreesWithNets: the gorgonia MLP and nets' MLP, from the same
// parameters, in float64 to 1e-10 and float32 to 1e-5.
func TestMLPAgreesWithNets(t *testing.T) {
	t.Run("f64", func(t *testing.T) { agree[float64](t, 1e-10) })
	t.Run("f32", func(t *testing.T) { agree[float32](t, 1e-5) })
}

// TestJVPModes: double backward for the MLP; the central difference for
// the CNN (gorgonia's max-pool panics when differentiated twice) and the
// ResNet (its batch norm's second derivative is wrong); and an architecture that insists on double backward
// through batch norm refused, naming the op.
func TestJVPModes(t *testing.T) {
	img := dataset.Shape{C: 2, H: 8, W: 8}
	for _, c := range []struct {
		spec string
		in   dataset.Shape
		want JVPMode
	}{
		{"g:mlp:5", dataset.Shape{C: 6, H: 1, W: 1}, Exact},
		{"g:cnn:3,4", img, FiniteDifference},
		{"g:resnet:3,1", img, FiniteDifference},
	} {
		m, err := New[float64](c.spec, c.in, 2)
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		got, why := m.JVPMode()
		if got != c.want {
			t.Errorf("%s: JVP by %v (%s), want %v", c.spec, got, why, c.want)
		}
		t.Logf("%s: %v: %s", c.spec, got, why)
	}
	// A convolution without max-pool: im2col and transpose are right
	// twice.
	convOnly := Arch{Params: append(conv("c0", 2, 3), dense("out", 3*8*8, 2)...),
		Logits: func(x *G.Node, p []*G.Node) (*G.Node, error) {
			y, err := conv3(x, p[0], p[1])
			if err != nil {
				return nil, err
			}
			if y, err = G.Rectify(y); err != nil {
				return nil, err
			}
			if y, err = flat(y); err != nil {
				return nil, err
			}
			return affine(y, p[2], p[3])
		}}
	if m, err := NewArch[float64]("conv", convOnly, img, 2); err != nil {
		t.Fatal(err)
	} else if got, why := m.JVPMode(); got != Exact {
		t.Errorf("a convolution without max-pool: %v (%s), want double backward", got, why)
	}
	// A batch norm without max-pool: gorgonia differentiates it twice, and
	// wrongly. Auto falls back to the central difference; Exact refuses,
	// naming the op.
	bnArch := Arch{Params: append(append(dense("l0", 6, 5), batchNorm("bn", 5)...), dense("out", 5, 2)...),
		Logits: func(x *G.Node, p []*G.Node) (*G.Node, error) {
			h, err := affine(x, p[0], p[1])
			if err != nil {
				return nil, err
			}
			s, b := must(G.Reshape(p[2], tensor.Shape{1, 5})), must(G.Reshape(p[3], tensor.Shape{1, 5}))
			if h, _, _, _, err = G.BatchNorm(h, s, b, 0.9, 1e-5); err != nil {
				return nil, err
			}
			if h, err = G.Rectify(h); err != nil {
				return nil, err
			}
			return affine(h, p[4], p[5])
		}}
	flatIn := dataset.Shape{C: 6, H: 1, W: 1}
	m, err := NewArch[float64]("mlp-bn", bnArch, flatIn, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, why := m.JVPMode(); got != FiniteDifference || !strings.Contains(why, "disagrees") {
		t.Errorf("mlp-bn: %v (%s), want the central difference after a disagreement", got, why)
	}
	bnArch.JVP = Exact
	_, err = NewArch[float64]("mlp-bn-exact", bnArch, flatIn, 2)
	if err == nil || !strings.Contains(err.Error(), "BatchNormOp") || !strings.Contains(err.Error(), "disagrees") {
		t.Fatalf("double backward through batch norm: %v, want a refusal naming BatchNormOp", err)
	}
	t.Log(err)
	// docs/MODELS.md quotes the refusal and its disagreement as a
	// percentage: a changed figure fails.
	b, rerr := os.ReadFile(modelsPage)
	if rerr != nil {
		t.Fatal(rerr)
	}
	page := string(b)
	for _, m := range refusalMismatches(page, err.Error()) {
		t.Errorf("%s: %s", modelsPage, m)
	}
	for _, c := range []struct{ name, from, to string }{
		{"the refusal's figure", "central difference by 0.72", "central difference by 0.71"},
		{"the percentage", "off by 72% on the probe", "off by 71% on the probe"},
	} {
		if !strings.Contains(page, c.from) {
			t.Errorf("%s: %q not found in %s", c.name, c.from, modelsPage)
		} else if len(refusalMismatches(strings.Replace(page, c.from, c.to, 1), err.Error())) == 0 {
			t.Errorf("%s: %q passes", c.name, c.to)
		}
	}
}

// modelsPage quotes what TestJVPModes finds.
const modelsPage = "../docs/MODELS.md"

// refusalMismatches says where the page (its words joined by single
// spaces) does not quote the refusal of double backward through batch
// norm (msg, up to the op it names), or its disagreement as a percentage
// ("off by N% on the probe").
func refusalMismatches(page, msg string) []string {
	page = strings.Join(strings.Fields(page), " ")
	m := regexp.MustCompile(`(double backward disagrees with the central difference by ([\d.]+) \(relative\); ops not known to be right twice: BatchNormOp)`).FindStringSubmatch(msg)
	if m == nil {
		return []string{fmt.Sprintf("the refusal %q quotes no disagreement", msg)}
	}
	var out []string
	if !strings.Contains(page, m[1]) {
		out = append(out, fmt.Sprintf("want the refusal quoted as %q", m[1]))
	}
	rel, _ := strconv.ParseFloat(m[2], 64)
	if pct := fmt.Sprintf("off by %.0f%% on the probe", 100*rel); !strings.Contains(page, pct) {
		out = append(out, fmt.Sprintf("want %q", pct))
	}
	return out
}

// tinySplits makes random splits of n training samples of shape in, two
// environments, (label, attribute) groups.
func tinySplits(n int, in dataset.Shape, seed uint64) *dataset.Splits {
	rng := rand.New(rand.NewPCG(seed, 1))
	split := func(name string, n int, envBase int32) *dataset.Dataset {
		d := in.Size()
		ds := &dataset.Dataset{Name: name, N: n, D: d, Shape: in, Classes: 2,
			EnvNames: []string{"e0", "e1", "test"}, GroupNames: []string{"a", "b", "c", "d"},
			X: randn[float32](n*d, rng), Y: make([]int32, n), Env: make([]int32, n), Group: make([]int32, n),
			Attr: make([]int32, n), ID: make([]int64, n)}
		for i := range n {
			ds.Y[i], ds.Attr[i] = int32(rng.IntN(2)), int32(rng.IntN(2))
			ds.Env[i] = envBase + int32(i%2)
			if envBase == 2 {
				ds.Env[i] = 2
			}
			ds.Group[i] = 2*ds.Y[i] + ds.Attr[i]
			ds.ID[i] = int64(i)
		}
		return ds
	}
	return &dataset.Splits{Name: "tiny", Train: split("train", n, 0), Val: split("val", 10, 0), Test: split("test", 10, 2)}
}

// TestHypergradientFiniteDifference: every gorgonia spec's hypergradient
// (dR/dw and dR/dm of every sample) against float64 central differences
// of the outer risk, through core's check: the MLP with its exact JVP,
// the CNN and the ResNet with the central-difference JVP.
func TestHypergradientFiniteDifference(t *testing.T) {
	img := dataset.Shape{C: 1, H: 6, W: 6}
	for _, c := range []struct {
		spec    string
		in      dataset.Shape
		tol     float64
		keepAll bool
	}{
		{"g:mlp:4", dataset.Shape{C: 3, H: 1, W: 1}, 1e-5, false},
		{"g:cnn:2", img, 1e-4, false},
		// Batch norm: a sample's logits depend on its batch; the
		// per-sample hypergradient is exact when the batch is the same
		// in training and in the JVP (every sample kept).
		{"g:resnet:2,1", img, 1e-4, true},
	} {
		t.Run(c.spec, func(t *testing.T) {
			set := core.DefaultSettings()
			set.Model, set.Objective, set.InnerSteps, set.Beta, set.WeightDecay = c.spec, "irmv1", 3, 0.3, 0.01
			comps, scale, err := core.HypergradientCheck(tinySplits(12, c.in, 3), set, core.HyperCheckOptions{Seed: 9, KeepAll: c.keepAll})
			if err != nil {
				t.Fatal(err)
			}
			if scale == 0 {
				t.Fatal("the hypergradient is identically zero")
			}
			worst := 0.0
			for _, h := range comps {
				e := math.Abs(h.Analytic-h.Numeric) / (math.Max(math.Abs(h.Analytic), math.Abs(h.Numeric)) + 1e-4*scale)
				worst = math.Max(worst, e)
				if e > c.tol {
					t.Errorf("dR/d%s[%d] = %.10g, finite difference %.10g (rel err %.2g)", h.Which, h.Index, h.Analytic, h.Numeric, e)
				}
			}
			t.Logf("%d components, worst relative error %.2g", len(comps), worst)
		})
	}
}

// TestChunkRows: image inputs run in chunks of MaxImageRows, except in
// an architecture that says otherwise: g:mlp flattens them at once and
// takes 1024 rows a run (a ColoredMNIST JVP over 45000 rows was 176
// graph runs of 256); flat inputs MaxRows.
func TestChunkRows(t *testing.T) {
	img, flat := dataset.Shape{C: 2, H: 14, W: 14}, dataset.Shape{C: 7, H: 1, W: 1}
	for _, c := range []struct {
		spec string
		in   dataset.Shape
		want int
	}{
		{"g:mlp:5", img, 1024},
		{"g:mlp:5", flat, MaxRows},
		{"g:cnn:2,3", img, MaxImageRows},
	} {
		m, err := New[float32](c.spec, c.in, 2)
		if err != nil {
			t.Fatal(err)
		}
		if m.MaxRows != c.want {
			t.Errorf("%s on %v: chunks of %d rows, want %d", c.spec, c.in, m.MaxRows, c.want)
		}
	}
}
