package baselines

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/internal/tinydata"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/train"
)

func birmCase(k int) (f []float64, lab core.Labels, pooled gaussPost, env map[int32]gaussPost, eps []float64) {
	rng := rand.New(rand.NewPCG(11, uint64(k)))
	n := 14
	f = make([]float64, n*k)
	for i := range f {
		f[i] = rng.NormFloat64()
	}
	lab = core.Labels{Y: make([]int32, n), Env: make([]int32, n)}
	for i := range n {
		lab.Y[i], lab.Env[i] = int32(rng.IntN(max(k, 2))), int32(i%2)
	}
	pooled = gaussPost{Mu: 0.9, Rho: -1.5}
	env = map[int32]gaussPost{0: {Mu: 1.2, Rho: -2}, 1: {Mu: 0.7, Rho: -1.2}}
	eps = []float64{0.3, -1.1, 0.8, 1.7}
	return
}

// TestBayesIRMFiniteDifference checks BayesianIRM's derivatives against
// float64 central differences: the network's loss in the logits, and
// each posterior's negative ELBO in its mean and log standard deviation.
func TestBayesIRMFiniteDifference(t *testing.T) {
	const h = 1e-6
	for _, k := range []int{1, 3} {
		f, lab, pooled, env, eps := birmCase(k)
		loss := nets.LossFor(k)
		const lam = 3.5
		_, _, cot := birmObjective(loss, f, lab, k, pooled, env, eps, lam)
		for i := range f {
			x := f[i]
			f[i] = x + h
			up, _, _ := birmObjective(loss, f, lab, k, pooled, env, eps, lam)
			f[i] = x - h
			down, _, _ := birmObjective(loss, f, lab, k, pooled, env, eps, lam)
			f[i] = x
			if fd := (up - down) / (2 * h); relErr(fd, cot[i], 1e-8) > 1e-6 {
				t.Errorf("k=%d dJ/df[%d] = %g, finite difference %g", k, i, cot[i], fd)
			}
		}
		for _, r := range []birmRows{{all: true}, {e: 1}} {
			q := env[1]
			_, gm, gr := negELBO(loss, f, lab, k, q, eps, r)
			at := func(mu, rho float64) float64 {
				v, _, _ := negELBO(loss, f, lab, k, gaussPost{Mu: mu, Rho: rho}, eps, r)
				return v
			}
			if fd := (at(q.Mu+h, q.Rho) - at(q.Mu-h, q.Rho)) / (2 * h); relErr(fd, gm, 1e-8) > 1e-6 {
				t.Errorf("k=%d rows %+v: d(-ELBO)/dmu = %g, finite difference %g", k, r, gm, fd)
			}
			if fd := (at(q.Mu, q.Rho+h) - at(q.Mu, q.Rho-h)) / (2 * h); relErr(fd, gr, 1e-8) > 1e-6 {
				t.Errorf("k=%d rows %+v: d(-ELBO)/drho = %g, finite difference %g", k, r, gr, fd)
			}
		}
	}
}

// TestBayesIRMPenaltyZeroWhenPosteriorsAgree: the invariance penalty is
// exactly zero when every environment's posterior is the pooled one, and
// not zero otherwise.
func TestBayesIRMPenaltyZeroWhenPosteriorsAgree(t *testing.T) {
	f, lab, pooled, env, eps := birmCase(1)
	loss := nets.LossFor(1)
	if _, pen, _ := birmObjective(loss, f, lab, 1, pooled, env, eps, 10); pen == 0 {
		t.Error("the penalty is zero for posteriors that differ")
	}
	same := map[int32]gaussPost{0: pooled, 1: pooled}
	j0, _, _ := birmObjective(loss, f, lab, 1, pooled, same, eps, 0)
	if j, pen, _ := birmObjective(loss, f, lab, 1, pooled, same, eps, 10); pen != 0 || relErr(j, j0, 1e-12) > 1e-12 {
		t.Errorf("posteriors that agree: penalty %g (want 0), loss %g with lam 10 vs %g without", pen, j, j0)
	}
}

// TestBayesIRMTrains: a short run trains, selects on validation and
// reports the penalty's recipe.
func TestBayesIRMTrains(t *testing.T) {
	sp := tinydata.Splits(40, 2, 8)
	es := Recipe("bayesirm", train.DefaultEval(), nil)
	es.Model, es.Steps, es.EvalEvery, es.PenaltyAnneal = "mlp:8", 40, 5, 20
	res, err := Train(context.Background(), sp, "bayesirm", es)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Done || res.SelectedStep < 0 || es.Recipe == "" {
		t.Errorf("result %+v", res)
	}
}
