package baselines

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/internal/tinydata"
	"github.com/maple-ood/maple/train"
)

// spuriousSplit draws n rows of d features with classes classes and a
// spurious attribute a of as many values: the attribute equals the class
// with probability agree, else it is another at random (agree < 0: a
// is drawn apart from y, every group alike). Coordinates 0..classes-1
// hold the core signal (coreMean on the class's own, noise sd 1), the
// next classes hold the attribute's (spurMean on its own, noise sd 0.3),
// the rest noise; group = y*classes + a.
func spuriousSplit(name string, n, d, classes int, agree, coreMean, spurMean float64, rng *rand.Rand) *dataset.Dataset {
	ds := &dataset.Dataset{Name: name, N: n, D: d, Shape: dataset.Shape{C: d, H: 1, W: 1}, Classes: classes,
		X: make([]float32, n*d), Y: make([]int32, n), Env: make([]int32, n), Group: make([]int32, n), Attr: make([]int32, n), ID: make([]int64, n),
		EnvNames: []string{"e"}}
	for y := range classes {
		for a := range classes {
			ds.GroupNames = append(ds.GroupNames, "y="+string(rune('0'+y))+",a="+string(rune('0'+a)))
		}
	}
	for i := range n {
		y := rng.IntN(classes)
		a := rng.IntN(classes)
		if agree >= 0 {
			a = y
			if rng.Float64() >= agree {
				a = (y + 1 + rng.IntN(classes-1)) % classes
			}
		}
		ds.Y[i], ds.Attr[i], ds.Group[i], ds.ID[i] = int32(y), int32(a), int32(y*classes+a), int64(i)
		row := ds.X[i*d : (i+1)*d]
		for j := range row {
			sdj := 1.0
			if j >= classes && j < 2*classes {
				sdj = 0.3
			}
			row[j] = float32(sdj * rng.NormFloat64())
		}
		row[y] += float32(coreMean)
		row[classes+a] += float32(spurMean)
	}
	return ds
}

// coreAccuracy is the worst-group accuracy of the classifier that reads
// the core coordinates alone (the largest of 0..classes-1).
func coreWorst(ds *dataset.Dataset) float64 {
	k := ds.Classes
	f := make([]float32, ds.N*k)
	for i := range ds.N {
		copy(f[i*k:(i+1)*k], ds.Row(i)[:k])
	}
	if k == 2 { // one logit: class 1's margin
		g := make([]float32, ds.N)
		for i := range ds.N {
			g[i] = f[2*i+1] - f[2*i]
		}
		return train.AccuracyOf(g, 1, ds).Worst
	}
	return train.AccuracyOf(f, k, ds).Worst
}

// TestDFRAgainstERM: on features where a spurious attribute agrees with
// the class in most training and validation rows, ERM's linear head
// leans on the attribute and fails its minority groups; DFR, retrained
// on group-balanced validation data, comes near the classifier that
// reads the core coordinates alone and well above ERM.
func TestDFRAgainstERM(t *testing.T) {
	for _, tc := range []struct {
		name           string
		classes, d     int
		agree          float64
		nTrain, nVal   int
		core, spurious float64
	}{
		{name: "binary, 95% agree (Waterbirds-like)", classes: 2, d: 16, agree: 0.95, nTrain: 2000, nVal: 1200, core: 1.5, spurious: 2},
		{name: "binary, 98% agree", classes: 2, d: 16, agree: 0.98, nTrain: 2000, nVal: 4000, core: 1.5, spurious: 2},
		{name: "three classes, 90% agree", classes: 3, d: 12, agree: 0.9, nTrain: 3000, nVal: 2400, core: 2, spurious: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 7))
			sp := &dataset.Splits{Name: "spurious",
				Train: spuriousSplit("train", tc.nTrain, tc.d, tc.classes, tc.agree, tc.core, tc.spurious, rng),
				Val:   spuriousSplit("val", tc.nVal, tc.d, tc.classes, tc.agree, tc.core, tc.spurious, rng),
				Test:  spuriousSplit("test", 3000, tc.d, tc.classes, -1, tc.core, tc.spurious, rng)}
			es := Recipe("dfr", train.DefaultEval(), nil)
			r, err := Train(context.Background(), sp, "dfr", es)
			if err != nil {
				t.Fatal(err)
			}
			esERM := train.DefaultEval()
			esERM.Model = "linear"
			erm, err := Train(context.Background(), sp, "erm", esERM)
			if err != nil {
				t.Fatal(err)
			}
			coreW := coreWorst(sp.Test)
			t.Logf("test worst-group: dfr %.3f (C %g), erm %.3f, core coordinates alone %.3f", r.TestWorst, r.Tuned.Chosen, erm.TestWorst, coreW)
			if r.TestWorst < erm.TestWorst+0.2 {
				t.Errorf("dfr's test worst-group %.3f is not well above erm's %.3f", r.TestWorst, erm.TestWorst)
			}
			if r.TestWorst < coreW-0.06 {
				t.Errorf("dfr's test worst-group %.3f is not near the core classifier's %.3f", r.TestWorst, coreW)
			}
			if r.Model != "linear" || len(r.Theta) != (tc.d+1)*outputs(tc.classes) {
				t.Errorf("dfr's head: model %s, %d parameters", r.Model, len(r.Theta))
			}
		})
	}
}

func outputs(classes int) int {
	if classes == 2 {
		return 1
	}
	return classes
}

// TestDFRDeterministic: a seed gives the same head bit for bit, and
// another seed other subsets.
func TestDFRDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	sp := &dataset.Splits{Name: "spurious",
		Train: spuriousSplit("train", 200, 8, 2, 0.9, 1.5, 2, rng),
		Val:   spuriousSplit("val", 400, 8, 2, 0.9, 1.5, 2, rng),
		Test:  spuriousSplit("test", 400, 8, 2, -1, 1.5, 2, rng)}
	es := Recipe("dfr", train.DefaultEval(), nil)
	hash := func(seed uint64) string {
		e := es
		e.Seed = seed
		r, err := Train(context.Background(), sp, "dfr", e)
		if err != nil {
			t.Fatal(err)
		}
		return tinydata.Hash(r.Theta, []float64{r.ValWorst, r.TestWorst, r.Tuned.Chosen})
	}
	a, b, c := hash(1), hash(1), hash(2)
	if a != b {
		t.Error("the same seed gave two heads")
	}
	if a == c {
		t.Error("seeds 1 and 2 gave the same head: the seed draws nothing")
	}
}

// TestDFRNeedsValidationGroups: without group labels in the validation
// split dfr says what it needs instead of training.
func TestDFRNeedsValidationGroups(t *testing.T) {
	sp := tinydata.Splits(40, 2, 1)
	sp.Val.GroupNames = nil
	_, err := Train(context.Background(), sp, "dfr", train.DefaultEval())
	if err == nil || !strings.Contains(err.Error(), "validation split") || !strings.Contains(err.Error(), "--group-col") {
		t.Errorf("error %v, want one naming the validation split's groups and --group-col", err)
	}
}

// TestDFRRecipe: dfr's recipe says what it is and reads, its head is
// linear, and it reads the validation split's groups.
func TestDFRRecipe(t *testing.T) {
	es := Recipe("dfr", train.DefaultEval(), nil)
	if es.Model != "linear" || !strings.Contains(es.Recipe, "Kirichenko") || !strings.Contains(es.Recipe, "validation split's group labels") {
		t.Errorf("dfr's recipe: model %s, %q", es.Model, es.Recipe)
	}
	if !HasRecipe("dfr") || Supervision("dfr", "") != core.SupervisionValGroups {
		t.Errorf("dfr: recipe %v, supervision %q", HasRecipe("dfr"), Supervision("dfr", ""))
	}
	// It reads the seed alone of the shared settings, and a random
	// search draws nothing it ignores.
	if !ReadsShared("dfr", "EvalSettings.Seed") || ReadsShared("dfr", "EvalSettings.LR") || !ReadsShared("erm", "EvalSettings.LR") {
		t.Error("ReadsShared: want dfr to read the seed and no learning rate, erm the learning rate")
	}
	if sp := SearchSpace("dfr"); len(sp) != 0 {
		t.Errorf("a random search draws %v for dfr, which reads none of them", sp)
	}
}

// TestL1LogRegGradient: the smooth part's gradient against central
// differences, float64, for the logistic loss and softmax.
func TestL1LogRegGradient(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n, d, k int
	}{
		{name: "binary", n: 13, d: 5, k: 1},
		{name: "three classes", n: 11, d: 4, k: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 1))
			x := make([]float64, tc.n*tc.d)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			classes := max(tc.k, 2)
			y := make([]int32, tc.n)
			for i := range y {
				y[i] = int32(rng.IntN(classes))
			}
			p := newL1LogReg(x, y, tc.d, tc.k, 0.5)
			theta := make([]float64, p.params())
			for i := range theta {
				theta[i] = rng.NormFloat64()
			}
			g := make([]float64, len(theta))
			p.smooth(theta, g)
			const h = 1e-6
			for j := range theta {
				tp := append([]float64(nil), theta...)
				tm := append([]float64(nil), theta...)
				tp[j] += h
				tm[j] -= h
				fd := (p.smooth(tp, nil) - p.smooth(tm, nil)) / (2 * h)
				if e := relErr(g[j], fd, 1e-3); e > 1e-6 {
					t.Errorf("parameter %d: gradient %.10g, central difference %.10g (relative error %.2g)", j, g[j], fd, e)
				}
			}
		})
	}
}

// TestL1LogRegOptimal: the solver's answer meets the L1 problem's
// optimality conditions: on every nonzero weight the smooth gradient is
// -lambda times its sign, on every zero weight at most lambda in size,
// on the intercepts zero; and the penalty zeroes some weights.
func TestL1LogRegOptimal(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n, d, k   int
		lambda    float64
		wantZeros bool
	}{
		{name: "binary, light penalty", n: 80, d: 10, k: 1, lambda: 1, wantZeros: false},
		{name: "binary, heavy penalty", n: 80, d: 10, k: 1, lambda: 8, wantZeros: true},
		{name: "three classes", n: 90, d: 6, k: 3, lambda: 3, wantZeros: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(9, 2))
			x := make([]float64, tc.n*tc.d)
			y := make([]int32, tc.n)
			classes := max(tc.k, 2)
			for i := range y {
				y[i] = int32(rng.IntN(classes))
				for j := range tc.d {
					x[i*tc.d+j] = rng.NormFloat64()
				}
				x[i*tc.d] += 2 * float64(y[i]) // one informative feature
			}
			p := newL1LogReg(x, y, tc.d, tc.k, tc.lambda)
			fit, err := p.fit(context.Background(), nil, 1e-9, 100000)
			if err != nil || !fit.Converged {
				t.Fatalf("fit: converged %v after %d iterations, error %v", fit.Converged, fit.Iters, err)
			}
			g := make([]float64, len(fit.Theta))
			p.smooth(fit.Theta, g)
			dk := tc.d * tc.k
			zeros := 0
			const tol = 1e-5
			for j, w := range fit.Theta {
				switch {
				case j >= dk:
					if math.Abs(g[j]) > tol {
						t.Errorf("intercept %d: gradient %g, want 0", j-dk, g[j])
					}
				case w != 0:
					if math.Abs(g[j]+tc.lambda*math.Copysign(1, w)) > tol {
						t.Errorf("weight %d = %g: gradient %g, want %g", j, w, g[j], -tc.lambda*math.Copysign(1, w))
					}
				default:
					zeros++
					if math.Abs(g[j]) > tc.lambda+tol {
						t.Errorf("weight %d = 0: gradient %g, above lambda %g", j, g[j], tc.lambda)
					}
				}
			}
			if tc.wantZeros && zeros == 0 {
				t.Error("the heavy penalty zeroed no weight")
			}
			if fit.Theta[0] == 0 {
				t.Errorf("the informative feature's weight is zero: %v, gradient %v", fit.Theta, g)
			}
		})
	}
}

// TestFoldStandardisation: the folded head on raw features gives the
// logits of the head on standardised ones.
func TestFoldStandardisation(t *testing.T) {
	mu, sd := []float64{1, -2}, []float64{2, 0.5}
	th := []float64{0.3, -1, 0.7, 2, 0.1, -0.4} // d 2, k 2: W row by row, then b
	folded := foldStandardisation(th, mu, sd, 2)
	x := []float64{3, 1}
	for c := range 2 {
		want := th[4+c]
		got := float64(folded[4+c])
		for j := range 2 {
			want += (x[j] - mu[j]) / sd[j] * th[j*2+c]
			got += x[j] * float64(folded[j*2+c])
		}
		if math.Abs(got-want) > 1e-5 {
			t.Errorf("logit %d: %g on raw features, %g on standardised", c, got, want)
		}
	}
}
