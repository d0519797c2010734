package baselines

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/maple-ood/maple/internal/tinydata"
	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/train"
)

// TestMaskedGradientFiniteDifference checks the gradients of a masked
// network's loss through SparseIRM's relaxed mask, dL/dtheta (weights
// and biases) and dL/ds (keep probabilities), against float64 central
// differences, the noise held fixed.
func TestMaskedGradientFiniteDifference(t *testing.T) {
	x, n, k, net, theta, mk, rng := maskProbe(t, 4, 2)
	if nw, want := len(mk.idx), 3*4+4*1; nw != want {
		t.Fatalf("%d weights masked, want %d (the biases are not)", nw, want)
	}
	s := make([]float64, len(mk.idx))
	for j := range s {
		s[j] = 0.2 + 0.6*rng.Float64()
	}
	g := append([]float64(nil), mk.noise()...)
	const temp = 1.7
	c := make([]float64, n*k)
	for i := range c {
		c[i] = rng.NormFloat64()
	}
	masked := make([]float64, len(theta))
	// L = sum_i c_i f_i + 0.5 f_i², a smooth function of the logits.
	loss := func(theta, s []float64) float64 {
		z, _ := scoreMask(s, g, temp)
		f := maskedForward(net, x, n, k, theta, mk.idx, z, masked)
		var l float64
		for i, v := range f {
			l += c[i]*v + 0.5*v*v
		}
		return l
	}
	z, dzds := scoreMask(s, g, temp)
	f := maskedForward(net, x, n, k, theta, mk.idx, z, masked)
	cot := make([]float64, len(f))
	for i, v := range f {
		cot[i] = c[i] + v
	}
	grad := make([]float64, len(theta))
	gz := maskedVJP(net, x, n, theta, mk.idx, z, masked, cot, grad)
	// Errors relative to the largest component (the central difference's
	// own error is absolute, and BLAS backends sum in different orders).
	var gmax, smax float64
	for _, v := range grad {
		gmax = max(gmax, math.Abs(v))
	}
	for j := range gz {
		smax = max(smax, math.Abs(gz[j]*dzds[j]))
	}
	const h = 1e-6
	for p := range theta {
		tp, tm := append([]float64(nil), theta...), append([]float64(nil), theta...)
		tp[p] += h
		tm[p] -= h
		if fd := (loss(tp, s) - loss(tm, s)) / (2 * h); relErr(fd, grad[p], 1e-4*gmax) > 1e-5 {
			t.Errorf("dL/dtheta[%d] = %g, finite difference %g", p, grad[p], fd)
		}
	}
	for j := range s {
		sp, sm := append([]float64(nil), s...), append([]float64(nil), s...)
		sp[j] += h
		sm[j] -= h
		if fd, a := (loss(theta, sp)-loss(theta, sm))/(2*h), gz[j]*dzds[j]; relErr(fd, a, 1e-4*smax) > 1e-5 {
			t.Errorf("dL/ds[%d] = %g, finite difference %g", j, a, fd)
		}
	}
}

// TestSparseIRMKeepsBudget: SparseIRM's selected network keeps the
// requested fraction of its weights (within the Bernoulli draw's
// spread), and its scores respect the budget.
func TestSparseIRMKeepsBudget(t *testing.T) {
	sp := tinydata.Splits(60, 2, 5)
	es := Recipe("sparseirm", train.DefaultEval(), nil)
	es.Model, es.Steps, es.EvalEvery, es.PenaltyAnneal, es.MaskKeep = "mlp:64,64", 60, 5, 20, 0.4
	es.MinStep = 40 // after the budget reached its target (60% of the steps)
	res, err := Train(context.Background(), sp, "sparseirm", es)
	if err != nil {
		t.Fatal(err)
	}
	if res.KeptWeights == nil {
		t.Fatal("no kept fraction reported")
	}
	if k := *res.KeptWeights; math.Abs(k-0.4) > 0.05 {
		t.Errorf("the selected network (step %d) keeps %.3f of its weights, want 0.4", res.SelectedStep, k)
	}
	for _, c := range []struct{ t, want float64 }{{0, 1}, {0.27, 1}, {0.6, 0.4}, {0.9, 0.4}} {
		if b := budget(c.t, 0.4); math.Abs(b-c.want) > 1e-12 {
			t.Errorf("budget(%g) = %g, want %g", c.t, b, c.want)
		}
	}
	if b := budget(0.44, 0.4); !(b > 0.4 && b < 1) {
		t.Errorf("budget(0.44) = %g, want between the target and 1", b)
	}
}

// maskProbe is the set-up of a masked-gradient check: the float64 inputs
// of a tiny split (seed splitSeed), an mlp:4 with parameters drawn from
// rngSeed, a masker over its weights, and the generator for the rest.
func maskProbe(t *testing.T, splitSeed, rngSeed uint64) (x []float64, n, k int, net models.Model[float64], theta []float64, mk *masker, rng *rand.Rand) {
	t.Helper()
	sp := tinydata.Splits(9, 2, splitSeed)
	x, n, k = to64(sp.Train.X), sp.Train.N, 1
	net, err := models.New[float64]("mlp:4", sp.Train.Shape, k)
	if err != nil {
		t.Fatal(err)
	}
	rng = rand.New(rand.NewPCG(rngSeed, rngSeed))
	theta = make([]float64, net.NumParams())
	net.Init(theta, rng)
	return x, n, k, net, theta, newMasker(weightMask(net), rng), rng
}

// sparseirm-rex differs from sparseirm by its penalty alone: with no
// penalty and two environments of equal size the two train the same
// bits (the code's NLLs agree there); with a penalty they part.
func TestSparseIRMRexPenalty(t *testing.T) {
	sp := tinydata.Splits(40, 2, 4)
	for i := range sp.Train.Env {
		sp.Train.Env[i] = int32(i % 2)
	}
	es := train.DefaultEval()
	es.Model, es.Steps, es.EvalEvery, es.MinStep, es.PenaltyAnneal = "mlp:4", 30, 5, 30, 0
	train := func(method string, penalty float64) []float32 {
		t.Helper()
		v := es
		v.Penalty = penalty
		r, err := Train(context.Background(), sp, method, v)
		if err != nil {
			t.Fatal(err)
		}
		return r.Theta
	}
	if !slices.Equal(train("sparseirm", 0), train("sparseirm-rex", 0)) {
		t.Error("without a penalty sparseirm and sparseirm-rex train different parameters")
	}
	if slices.Equal(train("sparseirm", 100), train("sparseirm-rex", 100)) {
		t.Error("with a penalty sparseirm and sparseirm-rex train the same parameters")
	}
}
