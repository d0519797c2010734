package baselines

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/train"
)

// bayesIRM is Bayesian Invariant Risk Minimization (Lin et al., CVPR
// 2022) with the classifier reduced to IRMv1's scalar w on the logits
// (p(y | x, w) = softmax or sigmoid of w f(x)): variational Gaussian
// posteriors of w, q_e = N(mu_e, sigma_e²) from each training
// environment's data and q_u from all of it, each fitted by Adam on its
// ELBO (prior N(1, 0.1²)) at every step; the network minimises the
// expected loss under q_u plus lambda times the invariance penalty, the
// gap per environment between the expected loss under q_u and under q_e
// (zero when the posteriors agree). Expectations use 8 reparameterised
// draws per step, shared by the posteriors.
type bayesIRM struct{}

func (bayesIRM) Name() string { return "bayesirm" }

func (bayesIRM) UsesPenalty() bool { return true }

func (bayesIRM) OwnFields() []string {
	return []string{"EvalSettings.Penalty", "EvalSettings.PenaltyAnneal", "EvalSettings.MaskLR"}
}

// recipe is the IRM code's ColoredMNIST optimiser and schedule (the BIRM
// paper builds its ColoredMNIST experiments on it): Adam lr 4.898e-4, L2
// 1.1079e-3, 501 steps, the penalty 91257.19 after 190 steps; posteriors
// by Adam lr 0.01.
func (bayesIRM) Recipe(es train.EvalSettings, keep map[string]bool) train.EvalSettings {
	set := train.RecipeSetter(keep)
	irmCodeSchedule(&es, set, true)
	set("EvalSettings.MaskLR", func() { es.MaskLR = 0.01 })
	es.Recipe = "BIRM (Lin et al. 2022) on the IRM code's schedule: Adam 4.898e-4, L2 1.1079e-3, penalty 91257.19 after 190, 501 steps"
	return es
}

// The posteriors' prior, and the draws per step.
const (
	birmPriorMu    = 1.0
	birmPriorSigma = 0.1
	birmDraws      = 8
)

// gaussPost is a Gaussian posterior N(Mu, exp(Rho)²) of the classifier
// scale.
type gaussPost struct{ Mu, Rho float64 }

func (q gaussPost) sigma() float64 { return math.Exp(q.Rho) }

// scaledLosses writes, for the rows of f (n x k) and the scale w, each
// row's loss of w f into l and dloss/d(w f) into d.
func scaledLosses(loss nets.Loss, f []float64, y []int32, k int, w float64, l, d []float64) {
	wf := make([]float64, len(f))
	for i, v := range f {
		wf[i] = w * v
	}
	nets.Losses(loss, wf, y, k, l, d)
}

// birmRows selects the rows of environment e, or every row when all.
type birmRows struct {
	e   int32
	all bool
}

func (r birmRows) has(env int32) bool { return r.all || env == r.e }

// expLoss is E_{w~q} of the mean over the rows r of loss(w f_i),
// estimated on the draws w = mu + sigma eps. Unless cot is nil it adds
// coef times its gradient in f to cot; it returns the expectation and
// its derivatives in mu and rho.
func expLoss(loss nets.Loss, f []float64, lab core.Labels, k int, q gaussPost, eps []float64, r birmRows, coef float64, cot []float64) (v, dMu, dRho float64) {
	n := len(lab.Y)
	rows := 0.0
	for _, e := range lab.Env {
		if r.has(e) {
			rows++
		}
	}
	if rows == 0 {
		return 0, 0, 0
	}
	l, d := make([]float64, n), make([]float64, n*k)
	scale := 1 / (rows * float64(len(eps)))
	for _, x := range eps {
		w := q.Mu + q.sigma()*x
		scaledLosses(loss, f, lab.Y, k, w, l, d)
		for i := range n {
			if !r.has(lab.Env[i]) {
				continue
			}
			v += scale * l[i]
			var dw float64 // dloss/dw = f . dloss/d(w f)
			for m := range k {
				dw += f[i*k+m] * d[i*k+m]
				if cot != nil {
					cot[i*k+m] += coef * scale * w * d[i*k+m]
				}
			}
			dMu += scale * dw
			dRho += scale * dw * q.sigma() * x
		}
	}
	return v, dMu, dRho
}

// birmObjective is the network's loss on the logits f, without L2: the
// mean over environments of (1+lam) E_{q_u}[loss_e] - lam E_{q_e}[loss_e],
// that is the expected loss under the pooled posterior plus lam times the
// penalty, the mean over environments of E_{q_u}[loss_e] -
// E_{q_e}[loss_e]. It returns the loss, the penalty and dloss/df.
func birmObjective(loss nets.Loss, f []float64, lab core.Labels, k int, pooled gaussPost, env map[int32]gaussPost, eps []float64, lam float64) (j, pen float64, cot []float64) {
	cot = make([]float64, len(f))
	nEnv := float64(len(env))
	for e, q := range env {
		r := birmRows{e: e}
		a, _, _ := expLoss(loss, f, lab, k, pooled, eps, r, (1+lam)/nEnv, cot)
		b, _, _ := expLoss(loss, f, lab, k, q, eps, r, -lam/nEnv, cot)
		j += ((1+lam)*a - lam*b) / nEnv
		pen += (a - b) / nEnv
	}
	return j, pen, cot
}

// negELBO is q's negative evidence lower bound per sample on the rows r:
// E_q[mean loss] + KL(q || prior) / rows, and its gradient in (mu, rho).
func negELBO(loss nets.Loss, f []float64, lab core.Labels, k int, q gaussPost, eps []float64, r birmRows) (v, gMu, gRho float64) {
	rows := 0.0
	for _, e := range lab.Env {
		if r.has(e) {
			rows++
		}
	}
	v, gMu, gRho = expLoss(loss, f, lab, k, q, eps, r, 0, nil)
	s, s0 := q.sigma(), birmPriorSigma
	kl := math.Log(s0/s) + (s*s+(q.Mu-birmPriorMu)*(q.Mu-birmPriorMu))/(2*s0*s0) - 0.5
	v += kl / rows
	gMu += (q.Mu - birmPriorMu) / (s0 * s0 * rows)
	gRho += (-1 + s*s/(s0*s0)) / rows
	return v, gMu, gRho
}

func (m bayesIRM) Train(ctx context.Context, sp *dataset.Splits, es train.EvalSettings) (*train.Result, error) {
	lr := es.MaskLR
	if lr == 0 {
		lr = 0.01
	}
	if !(lr > 0) {
		return nil, fmt.Errorf("bayesirm: the posteriors' learning rate %g must be positive", lr)
	}
	tr, err := train.NewTrainer(sp, es, nil)
	if err != nil {
		return nil, err
	}
	lab := core.Labels{Y: sp.Train.Y, Env: sp.Train.Env, Group: sp.Train.Group}
	prior := gaussPost{Mu: birmPriorMu, Rho: math.Log(birmPriorSigma)}
	pooled, env := prior, map[int32]gaussPost{}
	adams := map[int32]*core.Adam{}
	for e := range envSizes(lab.Env) {
		env[e] = prior
		a := core.NewAdam(2)
		adams[e] = &a
	}
	pooledAdam := core.NewAdam(2)
	rng := rand.New(rand.NewPCG(es.Seed, 0xb1e5))
	eps := make([]float64, birmDraws)
	fit := func(q gaussPost, a *core.Adam, f []float64, r birmRows) gaussPost {
		_, gm, gr := negELBO(tr.Loss, f, lab, tr.K, q, eps, r)
		x := []float64{q.Mu, q.Rho}
		a.Step(x, []float64{gm, gr}, lr, math.Inf(1))
		return gaussPost{Mu: x[0], Rho: x[1]}
	}
	return tr.Run(ctx, "bayesirm", func(step int) error {
		f := tr.Logits()
		for i := range eps {
			eps[i] = rng.NormFloat64()
		}
		// The posteriors follow the network: one Adam step on each ELBO.
		pooled = fit(pooled, &pooledAdam, f, birmRows{all: true})
		for e, q := range env {
			env[e] = fit(q, adams[e], f, birmRows{e: e})
		}
		lam := 1.0
		if step >= es.PenaltyAnneal {
			lam = es.Penalty
		}
		_, _, cot := birmObjective(tr.Loss, f, lab, tr.K, pooled, env, eps, lam)
		// As the IRM code: divided by lam once lam > 1.
		div := max(lam, 1)
		for i := range cot {
			cot[i] /= div
		}
		tr.CotGrad(cot)
		tr.AddL2(1 / div)
		return nil
	})
}

func (bayesIRM) Supervision() core.Supervision { return core.SupervisionEnvs }

func (bayesIRM) FieldHelp(field string) string {
	if field == "EvalSettings.MaskLR" {
		return "Adam learning rate of the classifier posteriors (the recipe: 0.01)"
	}
	return irmCodeHelp[field]
}
