package core

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/train"
)

// The MAPLE code (x-zho14/MAPLE, cnn_mnist_probability_1step_irm.py) run
// with its first outer iteration dumped to .npy files (README, "Side by
// side with the authors' code", says how): its ColoredMNIST tensors, the
// model's initial parameters, the mask it drew, the inner training's
// last two iterates and momentum buffer, the outer gradient, the
// per-sample hypergradient, the straight-through derivative, the keep
// scores before and after the update, and the evaluation retraining's
// (test, full-train) accuracy after each of its 200 steps.
// TestAuthorsStages runs each stage of maple's search on the same inputs
// and reports how far apart the two are; it fails where a stage of maple
// (with the maple-reference recipe's settings) does not reproduce the
// code's. Skipped without MAPLE_AUTHORS_DUMP (the dump is 110 MB and the
// code is not ours to commit).

// authorsDump reads the dump in dir.
type authorsDump struct {
	dir string
	t   *testing.T
}

func (a authorsDump) get(name string) []float32 {
	a.t.Helper()
	_, v, err := loaders.ReadNPYFile(filepath.Join(a.dir, name+".npy"))
	if err != nil {
		a.t.Fatal(err)
	}
	return v
}

// torchMLP converts a flat parameter vector in torch's nn.Linear order
// (per layer the out x in weight, then the bias) to maple's (per layer
// the in x out weight, then the bias) for the widths dims (inputs first).
func torchMLP(p []float32, dims []int) []float32 {
	out := make([]float32, 0, len(p))
	off := 0
	for l := 0; l+1 < len(dims); l++ {
		in, o := dims[l], dims[l+1]
		w := p[off : off+in*o]
		for i := 0; i < in; i++ {
			for j := 0; j < o; j++ {
				out = append(out, w[j*in+i])
			}
		}
		out = append(out, p[off+in*o:off+in*o+o]...)
		off += in*o + o
	}
	return out
}

// relNorm is |a-b| / |b| over two vectors.
func relNorm[T, U nets.Float](a []T, b []U) float64 {
	var d, n float64
	for i := range a {
		x := float64(a[i]) - float64(b[i])
		d += x * x
		n += float64(b[i]) * float64(b[i])
	}
	return math.Sqrt(d / n)
}

// authorsSplits builds the dump's ColoredMNIST: train = the code's 50000
// training images, val = test = its 10000 test images.
func authorsSplits(a authorsDump) *dataset.Splits {
	mk := func(name, pre string, env int32) *dataset.Dataset {
		x, y, c := a.get(pre+"_x"), a.get(pre+"_y"), a.get(pre+"_c")
		n := len(y)
		ds := &dataset.Dataset{Name: name, N: n, D: 392, Shape: dataset.Shape{C: 2, H: 14, W: 14}, X: x,
			Y: make([]int32, n), Env: make([]int32, n), Group: make([]int32, n), Attr: make([]int32, n), ID: make([]int64, n),
			Classes: 2, EnvNames: []string{"train0", "train1", "test"}, GroupNames: []string{"y=0,c=0", "y=0,c=1", "y=1,c=0", "y=1,c=1"}}
		var g []float32
		if env < 0 {
			g = a.get(pre + "_g")
		}
		for i := range ds.Y {
			yi := int32(y[i])
			col := yi
			if c[i] < 0.5 { // c = 1: the colour agrees with the label
				col = 1 - yi
			}
			ds.Y[i], ds.Attr[i], ds.Group[i], ds.ID[i] = yi, col, 2*yi+col, int64(i)
			ds.Env[i] = env
			if env < 0 {
				ds.Env[i] = int32(g[i])
			}
		}
		return ds
	}
	test := mk("test", "test", 2)
	return &dataset.Splits{Name: "authors", Train: mk("train", "train", -1), Val: test, Test: test}
}

func TestAuthorsStages(t *testing.T) {
	dir := os.Getenv("MAPLE_AUTHORS_DUMP")
	if dir == "" {
		t.Skip("MAPLE_AUTHORS_DUMP names no dump of the MAPLE code's first iteration (README, \"Side by side with the authors' code\")")
	}
	a := authorsDump{dir, t}
	sp := authorsSplits(a)
	if err := sp.Validate(); err != nil {
		t.Fatal(err)
	}
	dims := []int{392, 390, 390, 1}
	set, _ := ReferenceRecipe(DefaultSettings(), train.DefaultEval(), nil)
	e, err := newEngine[float32](sp, set)
	if err != nil {
		t.Fatal(err)
	}
	copy(e.theta0, torchMLP(a.get("init"), dims))
	mask := a.get("mask")
	u := make([]float64, len(mask))
	var kept float64
	for i, m := range mask {
		u[i] = float64(m)
		kept += u[i]
	}
	w99, buf99, w100 := torchMLP(a.get("w99"), dims), torchMLP(a.get("buf99"), dims), torchMLP(a.get("w100"), dims)

	// train.Stage 1: the inner training (100 full-batch SGD steps, lr 0.1,
	// momentum 0.9, no weight decay) from the same start on the same mask.
	st, err := e.innerTrain(e.theta0, u, set.InnerLR)
	if err != nil {
		t.Fatal(err)
	}
	// The code's optimizer.state_dict() holds the momentum buffer by
	// reference, so its cache has the buffer after the last step:
	// (theta_99 - theta_100) / lr.
	buf100 := make([]float32, len(st.prev))
	for i := range buf100 {
		buf100[i] = (st.prev[i] - st.final[i]) / float32(set.InnerLR)
	}
	for _, c := range []struct {
		name string
		got  []float32
		want []float32
		tol  float64 // 100 float32 steps apart; the buffer is a difference of two iterates
	}{{"theta_99", st.prev, w99, 1e-3}, {"momentum buffer after the last step", buf100, buf99, 5e-2}, {"theta_100", st.final, w100, 1e-3}} {
		r := relNorm(c.got, c.want)
		t.Logf("inner training: %s relative difference %.2e", c.name, r)
		if r > c.tol {
			t.Errorf("inner training: %s differs by %.2e (relative)", c.name, r)
		}
	}

	// train.Stage 2: the outer gradient at the code's theta_100. The code's
	// IRMv1 risk is the mean over the 2 environments of (grad of 2 x the
	// pooled mean loss w.r.t. the environment's scale)^2 = (1/2) sum_e
	// g_e^2 with equal environment sizes; maple's is sum_e g_e^2, which
	// the recipe's --outer-scale 0.5 halves.
	gA := torchMLP(a.get("outer_grad"), dims)
	_, g, _, err := e.outerGrad(w100, e.outer.labels())
	if err != nil {
		t.Fatal(err)
	}
	r := relNorm(g, gA)
	t.Logf("outer gradient (--outer-scale %g): relative difference %.2e (|g| = %.3g)", set.OuterScale, r, norm32(gA))
	if r > 1e-3 {
		t.Errorf("outer gradient differs by %.2e (relative)", r)
	}

	// train.Stage 3: the hypergradient through the last step, from the code's
	// theta_99 and outer gradient: the code holds the weight sum constant.
	hA := a.get("grad_subnet")
	var diff [2]float64
	for k, detach := range []bool{true, false} {
		e.set.DetachSum = detach
		h := e.hypergrad(&step[float32]{prev: w99, sumU: kept}, gA, u, set.InnerLR)
		diff[k] = relNorm(h, hA)
		t.Logf("hypergradient (detach-sum %v): relative difference %.2e; |h| = %.3g, max |h_i| %.3g", detach, diff[k], normF(h), maxAbs(h))
	}
	e.set.DetachSum = set.DetachSum
	if diff[0] > 1e-3 || diff[1] < 10*diff[0] {
		t.Errorf("hypergradient: %.2e from the code's with --detach-sum, %.2e without: want the first below 1e-3 and far below the second", diff[0], diff[1])
	}

	// train.Stage 4: the keep-score update (gradient x straight-through
	// derivative, clip to norm 3, Adam lr 1.5, projection on the budget).
	dmds, sb, sa := a.get("dmds"), a.get("scores_before"), a.get("scores_after")
	s := make([]float64, len(sb))
	gs := make([]float64, len(sb))
	for i := range s {
		s[i], gs[i] = float64(sb[i]), float64(hA[i])*float64(dmds[i])
	}
	ad := NewAdam(len(s))
	n2 := ad.Step(s, gs, set.KeepLR, set.ClipNorm)
	ProjectKeep(s, set.Keep*float64(len(s)))
	var worst float64
	moved := 0
	for i := range s {
		worst = math.Max(worst, math.Abs(s[i]-float64(sa[i])))
		if math.Abs(float64(sa[i])-float64(sb[i])) > 1e-6 {
			moved++
		}
	}
	t.Logf("keep-score update: |g| = %.3g before clipping; %d of %d scores moved; largest difference %.2e", n2, moved, len(s), worst)
	if worst > 1e-3 {
		t.Errorf("keep scores after the update differ by up to %.2e", worst)
	}
	// Without --outer-scale 0.5 maple's IRMv1 risk is twice the code's:
	// Adam divides the scale out but for its eps (1e-8, against |h_i| ~
	// 1e-7 here).
	s2, ad2 := make([]float64, len(sb)), NewAdam(len(sb))
	for i := range s2 {
		s2[i], gs[i] = float64(sb[i]), 2*float64(hA[i])*float64(dmds[i])
	}
	ad2.Step(s2, gs, set.KeepLR, set.ClipNorm)
	ProjectKeep(s2, set.Keep*float64(len(s2)))
	var worst2 float64
	apart := 0
	for i := range s2 {
		d := math.Abs(s2[i] - float64(sa[i]))
		worst2 = math.Max(worst2, d)
		if d > 0.01 {
			apart++
		}
	}
	t.Logf("keep-score update with maple's IRMv1 scale (2x the code's): largest difference %.3f, %d of %d scores more than 0.01 apart", worst2, apart, len(s2))
	if apart == 0 {
		t.Errorf("the IRMv1 scale made no difference to the update: --outer-scale would not be needed")
	}

	// train.Stage 5: the evaluation retraining (SGD lr 1, momentum 0.9, no
	// weight decay, 200 steps from the search's initial parameters),
	// test and full-training accuracy after every step.
	_, es := ReferenceRecipe(DefaultSettings(), train.DefaultEval(), nil)
	curve := a.get("eval_curve")
	codeTest, codeTrain := make([]float64, es.Steps), make([]float64, es.Steps)
	for i := range codeTest {
		codeTest[i], codeTrain[i] = float64(curve[2*i]), float64(curve[2*i+1])
	}
	test, train := authorsEvalCurve(t, sp, es, e.theta0, u)
	var worstTest, worstTrain float64
	parted := 0 // the first step whose accuracies differ by more than 0.01
	for i := range test {
		dt, dtr := math.Abs(test[i]-codeTest[i]), math.Abs(train[i]-codeTrain[i])
		worstTest, worstTrain = math.Max(worstTest, dt), math.Max(worstTrain, dtr)
		if parted == 0 && (dt > 0.01 || dtr > 0.01) {
			parted = i + 1
		}
		if (i+1)%50 == 0 || i == 0 {
			t.Logf("evaluation step %3d: test %.4f (code %.4f), train %.4f (code %.4f)", i+1, test[i], codeTest[i], train[i], codeTrain[i])
		}
	}
	ref, refA := referenceOf(test, train), referenceOf(codeTest, codeTrain)
	t.Logf("evaluation: the accuracies part (by > 0.01) at step %d; largest per-step difference: test %.4f, train %.4f; reference protocol %.4f (code %.4f)",
		parted, worstTest, worstTrain, ref, refA)
	// SGD at lr 1 with momentum 0.9 is on the edge of stability: float32
	// rounding takes the two apart after some tens of steps (the code
	// itself gave 41.3 and 44.7 here on one and on two threads), so the
	// curves must agree at step 50 (measured: test 0.1500 vs 0.1497), and
	// the reference figure within that spread.
	if math.Abs(test[49]-codeTest[49]) > 0.01 || math.Abs(train[49]-codeTrain[49]) > 0.01 {
		t.Errorf("evaluation at step 50: test %.4f (code %.4f), train %.4f (code %.4f)", test[49], codeTest[49], train[49], codeTrain[49])
	}
	if math.Abs(ref-refA) > 0.05 {
		t.Errorf("evaluation: reference protocol %.4f, the code's %.4f", ref, refA)
	}
}

// authorsEvalCurve retrains es.Model on weights u from init (nil: seeded)
// and returns the test and training accuracy after every step.
func authorsEvalCurve(t *testing.T, sp *dataset.Splits, es train.EvalSettings, init []float32, u []float64) (test, trainAcc []float64) {
	tr, err := train.NewTrainer(sp, es, init)
	if err != nil {
		t.Fatal(err)
	}
	tf := make([]float32, sp.Test.N)
	for step := 1; step <= es.Steps; step++ {
		if err := tr.WeightedGrad(u); err != nil {
			t.Fatal(err)
		}
		tr.Opt.Step(tr.Theta, tr.Grad)
		tr.Net.Forward(tr.Theta, sp.Test.X, sp.Test.N, tf)
		test = append(test, train.AccuracyOf(tf, 1, sp.Test).Avg)
		trainAcc = append(trainAcc, train.AccuracyOf(tr.Logits32(), 1, sp.Train).Avg)
	}
	return test, trainAcc
}

// referenceOf is the reference protocol's figure over a curve (index i
// is step i+1): the highest test accuracy where the training accuracy
// exceeds 0.68.
func referenceOf(test, train []float64) float64 {
	var best float64
	for i := range test {
		if train[i] > 0.68 {
			best = math.Max(best, test[i])
		}
	}
	return best
}

func norm32(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func normF(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}
