package baselines

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/train"
)

// TestGCEFiniteDifference checks LfF's generalized cross-entropy gradient
// against float64 central differences, binary and softmax.
func TestGCEFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, k := range []int{1, 3} {
		classes := max(k, 2)
		n := 5
		f, y := make([]float64, n*k), make([]int32, n)
		for i := range f {
			f[i] = rng.NormFloat64()
		}
		for i := range y {
			y[i] = int32(rng.IntN(classes))
		}
		d := make([]float64, n*k)
		gce(f, y, k, 0.7, nil, d)
		loss := func() float64 {
			l := make([]float64, n)
			gce(f, y, k, 0.7, l, make([]float64, n*k))
			var s float64
			for _, v := range l {
				s += v
			}
			return s
		}
		const h = 1e-6
		for j := range f {
			x := f[j]
			f[j] = x + h
			up := loss()
			f[j] = x - h
			down := loss()
			f[j] = x
			if fd := (up - down) / (2 * h); relErr(fd, d[j], 1e-8) > 1e-6 {
				t.Errorf("k=%d logit %d: analytic %g, finite difference %g", k, j, d[j], fd)
			}
		}
	}
}

// TestLfFWeightsFailures: on data where a strong spurious feature agrees
// with the label for 90% of the samples, LfF's weights end higher on the
// 10% where it disagrees (the biased model's failures) than on the rest.
func TestLfFWeightsFailures(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	mk := func(name string, n int) *dataset.Dataset {
		ds := &dataset.Dataset{Name: name, N: n, D: 2, Shape: dataset.Shape{C: 2, H: 1, W: 1}, Classes: 2,
			EnvNames: []string{"e0"}, GroupNames: []string{"aligned", "conflicting"}, X: make([]float32, 2*n),
			Y: make([]int32, n), Env: make([]int32, n), Group: make([]int32, n), Attr: make([]int32, n), ID: make([]int64, n)}
		for i := 0; i < n; i++ {
			ds.Y[i], ds.ID[i] = int32(rng.IntN(2)), int64(i)
			s := 2*float64(ds.Y[i]) - 1
			if i%10 == 0 {
				s, ds.Group[i], ds.Attr[i] = -s, 1, 1 // conflicting
			}
			ds.X[2*i] = float32(2*s + 0.1*rng.NormFloat64())                      // spurious: strong, clean
			ds.X[2*i+1] = float32(0.5*(2*float64(ds.Y[i])-1) + rng.NormFloat64()) // the label's own: weak, noisy
		}
		return ds
	}
	sp := &dataset.Splits{Name: "shortcut", Train: mk("train", 400), Val: mk("val", 100), Test: mk("test", 100)}
	es := train.DefaultEval()
	es.Model, es.Steps, es.EvalEvery = "linear", 300, 10
	es = Recipe("lff", es, map[string]bool{"eval-lr": true})
	es.LR = 0.05 // a linear model on 400 samples: the recipe's 1e-3 is for an MLP over many epochs
	res, err := Train(context.Background(), sp, "lff", es)
	if err != nil {
		t.Fatal(err)
	}
	var al, co [2]float64
	for i, w := range res.SampleWeights {
		g := sp.Train.Group[i]
		if math.IsNaN(w) || w < 0 || w > 1 {
			t.Fatalf("weight %g of sample %d", w, i)
		}
		if g == 0 {
			al[0], al[1] = al[0]+w, al[1]+1
		} else {
			co[0], co[1] = co[0]+w, co[1]+1
		}
	}
	if mA, mC := al[0]/al[1], co[0]/co[1]; !(mC > 2*mA) {
		t.Errorf("mean weight: conflicting %.3f, aligned %.3f; want the conflicting ones well above", mC, mA)
	}
}
