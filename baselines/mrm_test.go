package baselines

import (
	"context"
	"math"
	"testing"

	"github.com/maple-ood/maple/internal/tinydata"
	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/train"
)

// TestMRMLogitGradientFiniteDifference checks MRM's stage-2 gradient in
// the mask logits (the loss through the relaxed mask plus the sparsity
// penalty) against float64 central differences, the noise held fixed.
func TestMRMLogitGradientFiniteDifference(t *testing.T) {
	x, n, k, net, theta, mk, rng := maskProbe(t, 6, 4)
	pi := make([]float64, len(mk.idx))
	for j := range pi {
		pi[j] = rng.NormFloat64()
	}
	g := append([]float64(nil), mk.noise()...)
	const alpha, temp = 0.7, 1.3
	masked := make([]float64, len(theta))
	loss := func(pi []float64) float64 {
		z, _ := logitMask(pi, g, temp)
		f := maskedForward(net, x, n, k, theta, mk.idx, z, masked)
		var l, p float64
		for i, v := range f {
			l += math.Sin(v) + float64(i%3)*v // a smooth loss of the logits
		}
		for _, v := range pi {
			p += 1 / (1 + math.Exp(-v))
		}
		return l + alpha*p/float64(len(pi))
	}
	z, dz := logitMask(pi, g, temp)
	f := maskedForward(net, x, n, k, theta, mk.idx, z, masked)
	cot := make([]float64, len(f))
	for i, v := range f {
		cot[i] = math.Cos(v) + float64(i%3)
	}
	gz := maskedVJP(net, x, n, theta, mk.idx, z, masked, cot, make([]float64, len(theta)))
	an := mrmLogitGrad(pi, gz, dz, alpha)
	var amax float64 // errors relative to the largest component, as above
	for _, v := range an {
		amax = max(amax, math.Abs(v))
	}
	const h = 1e-6
	for j := range pi {
		p, m := append([]float64(nil), pi...), append([]float64(nil), pi...)
		p[j] += h
		m[j] -= h
		if fd := (loss(p) - loss(m)) / (2 * h); relErr(fd, an[j], 1e-4*amax) > 1e-5 {
			t.Errorf("dL/dpi[%d] = %g, finite difference %g", j, an[j], fd)
		}
	}
}

// TestMRMKeepsFraction: asked for 30% of the weights, MRM's retrained
// subnetwork keeps exactly that many (the rest stay zero through the
// retraining), and without a fraction the mask is sigmoid(pi) > 1/2.
func TestMRMKeepsFraction(t *testing.T) {
	sp := tinydata.Splits(40, 2, 7)
	es := Recipe("mrm", train.DefaultEval(), nil)
	es.Model, es.Steps, es.EvalEvery, es.MaskKeep = "mlp:16", 30, 5, 0.3
	res, err := Train(context.Background(), sp, "mrm", es)
	if err != nil {
		t.Fatal(err)
	}
	weights := 3*16 + 16*1
	want := math.Round(0.3*float64(weights)) / float64(weights)
	if res.KeptWeights == nil || *res.KeptWeights != want {
		t.Fatalf("kept fraction %v, want %g", res.KeptWeights, want)
	}
	net, _ := models.New[float32]("mlp:16", sp.Train.Shape, 1)
	if k := keptFraction(res.Theta, weightMask(net)); *k > want {
		t.Errorf("the selected network has %.3f of its weights non-zero, more than the mask's %.3f", *k, want)
	}
	if got := binaryMask([]float64{-1, 2, 0.5, -0.1}, 0); got[0] || !got[1] || !got[2] || got[3] {
		t.Errorf("threshold mask %v", got)
	}
	if got := binaryMask([]float64{-1, 2, 0.5, -0.1}, 0.5); got[0] || !got[1] || !got[2] || got[3] {
		t.Errorf("top-half mask %v", got)
	}
}
