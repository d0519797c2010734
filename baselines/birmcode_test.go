package baselines

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/internal/tinydata"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/train"
)

// birmCodeCase is a small problem with two environments of equal size
// and ten draws of their scales.
func birmCodeCase(k int) (f []float64, lab core.Labels, envs []int32, omega [][]float64) {
	rng := rand.New(rand.NewPCG(12, uint64(k)))
	n := 16
	f = make([]float64, n*k)
	for i := range f {
		f[i] = rng.NormFloat64()
	}
	lab = core.Labels{Y: make([]int32, n), Env: make([]int32, n)}
	for i := range n {
		lab.Y[i], lab.Env[i] = int32(rng.IntN(max(k, 2))), int32(3+i%2)
	}
	envs = []int32{3, 4}
	omega = make([][]float64, birmCodeDraws)
	for d := range omega {
		omega[d] = []float64{1 + 0.2*rng.NormFloat64(), 1 + 0.2*rng.NormFloat64()}
	}
	return
}

// TestBayesIRMCodeFiniteDifference checks the code-form BayesianIRM's
// loss gradient in the logits against float64 central differences, for
// BCE and softmax.
func TestBayesIRMCodeFiniteDifference(t *testing.T) {
	const h = 1e-6
	for _, k := range []int{1, 3} {
		f, lab, envs, omega := birmCodeCase(k)
		loss := nets.LossFor(k)
		const lam = 3.5
		_, _, cot := birmCodeLoss(loss, f, lab, k, envs, omega, lam)
		for i := range f {
			x := f[i]
			f[i] = x + h
			up, _, _ := birmCodeLoss(loss, f, lab, k, envs, omega, lam)
			f[i] = x - h
			down, _, _ := birmCodeLoss(loss, f, lab, k, envs, omega, lam)
			f[i] = x
			if fd := (up - down) / (2 * h); relErr(fd, cot[i], 1e-8) > 1e-6 {
				t.Errorf("k=%d dJ/df[%d] = %g, finite difference %g", k, i, cot[i], fd)
			}
		}
	}
}

// With every draw at 1 (no posterior noise) and environments of equal
// size, the code's penalty is IRMv1's, averaged over the environments
// where maple's objective sums them, and its loss the plain mean loss.
func TestBayesIRMCodeReducesToIRMv1(t *testing.T) {
	for _, k := range []int{1, 3} {
		f, lab, envs, omega := birmCodeCase(k)
		for _, om := range omega {
			om[0], om[1] = 1, 1
		}
		loss := nets.LossFor(k)
		j, pen, _ := birmCodeLoss(loss, f, lab, k, envs, omega, 2)
		irm := core.Objective{Name: "irmv1", Loss: loss, K: k}
		want, err := irm.Eval(f, lab, nil)
		if err != nil {
			t.Fatal(err)
		}
		l := make([]float64, len(lab.Y))
		nets.Losses(loss, f, lab.Y, k, l, nil)
		var mean float64
		for _, v := range l {
			mean += v / float64(len(l))
		}
		if relErr(pen, want/2, 1e-12) > 1e-10 || relErr(j, mean+2*pen, 1e-12) > 1e-10 {
			t.Errorf("k=%d: penalty %g, want IRMv1's %g / 2; loss %g, want %g", k, pen, want, j, mean+2*pen)
		}
		// Noise in the draws moves the penalty.
		_, _, _, noisy := birmCodeCase(k)
		if _, pn, _ := birmCodeLoss(loss, f, lab, k, envs, noisy, 2); pn == pen {
			t.Errorf("k=%d: the draws do not change the penalty", k)
		}
	}
}

// The recipe's learning rate falls tenfold at half the steps, as the
// code's StepLR(step_size = steps/2, gamma = 0.1).
func TestBayesIRMCodeLR(t *testing.T) {
	for _, c := range []struct {
		name        string
		step, steps int
		want        float64
	}{
		{"first step", 0, 1500, 4e-4},
		{"before half", 749, 1500, 4e-4},
		{"at half", 750, 1500, 4e-5},
		{"last step", 1499, 1500, 4e-5},
	} {
		if got := birmCodeLR(4e-4, c.step, c.steps); relErr(got, c.want, 1e-15) > 1e-12 {
			t.Errorf("%s: lr %g, want %g", c.name, got, c.want)
		}
	}
}

// TestBayesIRMCodeTrains: a short run at the recipe trains and selects
// on validation; one training environment is refused with what to do.
func TestBayesIRMCodeTrains(t *testing.T) {
	sp := tinydata.Splits(40, 2, 8)
	es := Recipe("bayesirm-code", train.DefaultEval(), nil)
	if es.Steps != 1500 || es.Penalty != 1e4 || es.PenaltyAnneal != 200 || es.LR != 4e-4 || es.L2 != 1e-3 || es.Optimizer != "adam" {
		t.Fatalf("recipe %+v", es)
	}
	es.Model, es.Steps, es.EvalEvery, es.PenaltyAnneal = "mlp:8", 40, 5, 20
	res, err := Train(context.Background(), sp, "bayesirm-code", es)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Done || res.SelectedStep < 0 {
		t.Errorf("result %+v", res)
	}
	one := tinydata.Splits(40, 2, 8)
	for i := range one.Train.Env {
		one.Train.Env[i] = 0
	}
	if _, err := Train(context.Background(), one, "bayesirm-code", es); err == nil || !strings.Contains(err.Error(), "environment") {
		t.Errorf("one environment: %v", err)
	}
}
