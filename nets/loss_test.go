package nets

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestLossDerivatives(t *testing.T) {
	cases := []struct {
		name string
		loss Loss
		k    int
	}{
		{"bce", BCE, 1},
		{"softmax-2", SoftmaxCE, 2},
		{"softmax-5", SoftmaxCE, 5},
	}
	const n, h = 7, 1e-6
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, uint64(c.k)))
			f := randVec(rng, n*c.k, 2)
			y := make([]int32, n)
			for i := range y {
				y[i] = int32(rng.IntN(max(2, c.k)))
				if c.loss == SoftmaxCE {
					y[i] = int32(rng.IntN(c.k))
				}
			}
			l, d := make([]float64, n), make([]float64, n*c.k)
			Losses(c.loss, f, y, c.k, l, d)
			gs, dgs := make([]float64, n), make([]float64, n*c.k)
			ScaleGrads(c.loss, f, y, c.k, gs, dgs)
			lp, lm := make([]float64, n), make([]float64, n)
			gp, gm := make([]float64, n), make([]float64, n)
			for j := range f {
				i := j / c.k
				fp, fm := slices.Clone(f), slices.Clone(f)
				fp[j] += h
				fm[j] -= h
				Losses(c.loss, fp, y, c.k, lp, nil)
				Losses(c.loss, fm, y, c.k, lm, nil)
				if fd := (lp[i] - lm[i]) / (2 * h); !closeRel(d[j], fd, 1e-6, 1e-6) {
					t.Errorf("dl/df[%d] = %.12g, finite difference %.12g", j, d[j], fd)
				}
				ScaleGrads(c.loss, fp, y, c.k, gp, nil)
				ScaleGrads(c.loss, fm, y, c.k, gm, nil)
				if fd := (gp[i] - gm[i]) / (2 * h); !closeRel(dgs[j], fd, 1e-6, 1e-6) {
					t.Errorf("d(gs)/df[%d] = %.12g, finite difference %.12g", j, dgs[j], fd)
				}
			}
			// gs is the derivative in the logit scale s at s = 1.
			for i := 0; i < n; i++ {
				fi := f[i*c.k : i*c.k+c.k]
				scaled := func(s float64) float64 {
					g := make([]float64, c.k)
					for j := range g {
						g[j] = s * fi[j]
					}
					out := make([]float64, 1)
					Losses(c.loss, g, y[i:i+1], c.k, out, nil)
					return out[0]
				}
				if fd := (scaled(1+h) - scaled(1-h)) / (2 * h); !closeRel(gs[i], fd, 1e-6, 1e-6) {
					t.Errorf("sample %d: gs %.12g, finite difference %.12g", i, gs[i], fd)
				}
			}
		})
	}
}

func TestLossValuesAndStability(t *testing.T) {
	l, d := make([]float64, 4), make([]float64, 4)
	Losses(BCE, []float64{0, 1000, -1000, 2}, []int32{1, 0, 0, 1}, 1, l, d)
	want := []float64{math.Log(2), 1000, 0, math.Log1p(math.Exp(-2))}
	for i := range want {
		if !closeRel(l[i], want[i], 1e-15, 1e-12) {
			t.Errorf("BCE loss %d = %g, want %g", i, l[i], want[i])
		}
	}
	if d[1] != 1 || d[2] != 0 || !closeRel(d[0], -0.5, 0, 1e-15) {
		t.Errorf("BCE derivatives %v", d)
	}
	ls, ds := make([]float64, 1), make([]float64, 3)
	Losses(SoftmaxCE, []float64{1000, 0, -1000}, []int32{1}, 3, ls, ds)
	if !closeRel(ls[0], 1000, 0, 1e-12) || math.IsNaN(ds[0]) || !closeRel(ds[0], 1, 0, 1e-12) {
		t.Errorf("softmax at large logits: loss %g, grad %v", ls[0], ds)
	}
	Losses(SoftmaxCE, []float64{math.Log(1), math.Log(3)}, []int32{0}, 2, ls, nil)
	if !closeRel(ls[0], math.Log(4), 0, 1e-14) {
		t.Errorf("softmax loss %g, want log 4", ls[0])
	}
}

func TestPredict(t *testing.T) {
	if Predict([]float32{0.1}, 1, 0) != 1 || Predict([]float32{-0.1}, 1, 0) != 0 {
		t.Error("binary prediction")
	}
	if Predict([]float64{0, 1, 3, 2, 9, 9, 1, 0}, 4, 1) != 0 || Predict([]float64{0, 1, 3, 2}, 4, 0) != 2 {
		t.Error("multiclass prediction")
	}
}

func TestSGDTwoSteps(t *testing.T) {
	// lr 0.1, momentum 0.9, weight decay 0.01, theta0 = [1, -2]:
	// step 1, grad [0.5, 0.25]: d = [0.51, 0.23], buf = d,
	//   theta = [1 - 0.051, -2 - 0.023] = [0.949, -2.023];
	// step 2, grad [-1, 2]: d = [-1 + 0.00949, 2 - 0.02023] = [-0.99051, 1.97977],
	//   buf = 0.9*[0.51, 0.23] + d = [-0.53151, 2.18677],
	//   theta = [0.949 + 0.053151, -2.023 - 0.218677] = [1.002151, -2.241677].
	o := SGD[float64]{LR: 0.1, Momentum: 0.9, WeightDecay: 0.01}
	theta := []float64{1, -2}
	o.Step(theta, []float64{0.5, 0.25})
	if !closeRel(theta[0], 0.949, 0, 1e-14) || !closeRel(theta[1], -2.023, 0, 1e-14) {
		t.Fatalf("after step 1: %v", theta)
	}
	o.Step(theta, []float64{-1, 2})
	want := []float64{1.002151, -2.241677}
	wantBuf := []float64{-0.53151, 2.18677}
	for i := range want {
		if !closeRel(theta[i], want[i], 0, 1e-13) || !closeRel(o.Buf[i], wantBuf[i], 0, 1e-13) {
			t.Errorf("after step 2: theta %v buf %v, want %v %v", theta, o.Buf, want, wantBuf)
		}
	}
	o.Reset()
	if o.Buf != nil {
		t.Error("Reset kept the buffer")
	}
}

// TestAdam checks Adam against the update written out by hand for two
// steps (torch.optim.Adam's definition, float64).
func TestAdam(t *testing.T) {
	o := Adam[float64]{LR: 0.1}
	theta := []float64{1, -2}
	g1, g2 := []float64{0.5, -4}, []float64{-1, 2}
	o.Step(theta, g1)
	// Step 1: m = 0.1 g, v = 0.001 g², bias-corrected m/v^½ = g/|g|.
	want := []float64{1 - 0.1*0.5/(0.5+1e-8), -2 + 0.1*4/(4+1e-8)}
	for i := range theta {
		if math.Abs(theta[i]-want[i]) > 1e-12 {
			t.Fatalf("step 1: theta %v, want %v", theta, want)
		}
	}
	o.Step(theta, g2)
	for i := range theta {
		m := 0.9*0.1*g1[i] + 0.1*g2[i]
		v := 0.999*0.001*g1[i]*g1[i] + 0.001*g2[i]*g2[i]
		want[i] -= 0.1 * (m / (1 - 0.81)) / (math.Sqrt(v/(1-0.999*0.999)) + 1e-8)
		if math.Abs(theta[i]-want[i]) > 1e-12 {
			t.Errorf("step 2: theta[%d] %g, want %g", i, theta[i], want[i])
		}
	}
}
