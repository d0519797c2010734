package baselines

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/train"
)

// bayesIRMCode is BayesianIRM as its authors' code trains it on
// ColoredMNIST (Lin et al., CVPR 2022; linyongver/
// Bayesian-Invariant-Risk-Minmization, main.py with --irm_type birm
// --dataset CMNIST, its "bayes_fullbatch" branch, run by auto_CMNIST.sh).
// The code does not fit the per-environment posteriors of the paper's
// ELBO (bayesirm does): every step it draws each training environment's
// classifier scale omega_e from N(1, (1200/n)²), n the training
// samples, 10 times, and penalises the mean over the draws of IRMv1's
// squared gradient in omega of envs x the mean loss of the scaled
// logits. The loss it adds to the penalty is that of the last draw's
// scaled logits. No penalty before the anneal step; after it the whole
// loss is divided by 1 + penalty. The learning rate falls tenfold at
// half the steps (StepLR, gamma 0.1).
type bayesIRMCode struct{}

func (bayesIRMCode) Name() string { return "bayesirm-code" }

func (bayesIRMCode) UsesPenalty() bool { return true }

func (bayesIRMCode) OwnFields() []string {
	return []string{"EvalSettings.Penalty", "EvalSettings.PenaltyAnneal"}
}

// recipe is auto_CMNIST.sh's: Adam lr 4e-4, L2 1e-3 on the loss, the
// penalty 10000 after 200 steps, 1500 full-batch steps.
func (bayesIRMCode) Recipe(es train.EvalSettings, keep map[string]bool) train.EvalSettings {
	set := train.RecipeSetter(keep)
	set("EvalSettings.Optimizer", func() { es.Optimizer = "adam" })
	set("EvalSettings.LR", func() { es.LR = 4e-4 })
	set("EvalSettings.L2", func() { es.L2 = 1e-3 })
	set("EvalSettings.WeightDecay", func() { es.WeightDecay = 0 })
	set("EvalSettings.Steps", func() { es.Steps = 1500 })
	set("EvalSettings.Penalty", func() { es.Penalty = 1e4 })
	set("EvalSettings.PenaltyAnneal", func() { es.PenaltyAnneal = 200 })
	es.Recipe = "BIRM authors' code, auto_CMNIST.sh (Lin et al. 2022): Adam 4e-4 (x0.1 at half the steps), L2 1e-3, penalty 10000 after 200, 1500 steps, 10 draws of N(1, (1200/n)²)"
	return es
}

// The code's draws per step, the scale of their standard deviation
// (prior_sd_coef / data_num) and its learning-rate decay at half the steps.
const (
	birmCodeDraws  = 10
	birmCodeSDCoef = 1200.0
	birmCodeGamma  = 0.1
)

// birmCodeLoss is the code's loss on the logits f (n x k), without L2
// and before its division: the mean loss of the last draw's scaled
// logits plus lam times the mean over the draws of the IRMv1 penalty,
// (1/E) sum_e g_e², g_e = d/d(omega_e) of E times the mean loss over all
// n rows of omega_{env(i)} f_i. omega[d][p] is draw d's scale of the
// environment envs[p]. It returns the loss, the mean penalty and dJ/df.
func birmCodeLoss(loss nets.Loss, f []float64, lab core.Labels, k int, envs []int32, omega [][]float64, lam float64) (j, pen float64, cot []float64) {
	return newBirmCodeStep(loss, lab, k, envs).eval(f, omega, lam)
}

// birmCodeStep evaluates birmCodeLoss step after step on one training
// set: each row's environment position and the buffers are made once.
type birmCodeStep struct {
	loss                      nets.Loss
	y                         []int32
	k, nEnv                   int
	pos                       []int // row -> position of its environment in envs
	z, l, dl, gs, dgs, cot, g []float64
}

func newBirmCodeStep(loss nets.Loss, lab core.Labels, k int, envs []int32) *birmCodeStep {
	n := len(lab.Y)
	b := &birmCodeStep{loss: loss, y: lab.Y, k: k, nEnv: len(envs), pos: make([]int, n),
		z: make([]float64, n*k), l: make([]float64, n), dl: make([]float64, n*k), gs: make([]float64, n),
		dgs: make([]float64, n*k), cot: make([]float64, n*k), g: make([]float64, len(envs))}
	for i, e := range lab.Env {
		b.pos[i] = slices.Index(envs, e)
	}
	return b
}

// eval is birmCodeLoss; the cotangent it returns is its own buffer,
// overwritten by the next call.
func (b *birmCodeStep) eval(f []float64, omega [][]float64, lam float64) (j, pen float64, cot []float64) {
	k, pos, n := b.k, b.pos, len(b.y)
	nE, nf := float64(b.nEnv), float64(n)
	z, l, dl, gs, dgs, g := b.z, b.l, b.dl, b.gs, b.dgs, b.g
	cot = b.cot
	clear(cot)
	for d, om := range omega {
		for i := range n {
			for m := range k {
				z[i*k+m] = om[pos[i]] * f[i*k+m]
			}
		}
		nets.Losses(b.loss, z, b.y, k, l, dl)
		// d/dz [l'(z).z] at z = omega f is d/df [l'(omega f).f], the
		// derivative of row i's share of g in its logits.
		nets.ScaleGrads(b.loss, z, b.y, k, gs, dgs)
		clear(g)
		for i := range n {
			var h float64 // d/d(omega) l(omega f_i) = l'(z_i).f_i
			for m := range k {
				h += dl[i*k+m] * f[i*k+m]
			}
			g[pos[i]] += nE / nf * h
		}
		var p float64
		for _, v := range g {
			p += v * v / nE
		}
		pen += p / float64(len(omega))
		c := lam / float64(len(omega)) * 2 / nf // d(lam mean_d pen_d)/dg_e = lam/D 2 g_e/E, times dg_e/dh_i = E/n
		for i := range n {
			for m := range k {
				cot[i*k+m] += c * g[pos[i]] * dgs[i*k+m]
			}
		}
		if d == len(omega)-1 { // the code's train_nll is the last draw's
			for i := range n {
				j += l[i] / nf
				for m := range k {
					cot[i*k+m] += om[pos[i]] * dl[i*k+m] / nf
				}
			}
		}
	}
	return j + lam*pen, pen, cot
}

// birmCodeLR is the learning rate at step of steps: lr, then lr x 0.1
// from half the steps on (the code's StepLR(step_size = steps/2)).
func birmCodeLR(lr float64, step, steps int) float64 {
	if step >= steps/2 {
		return lr * birmCodeGamma
	}
	return lr
}

func (bayesIRMCode) Train(ctx context.Context, sp *dataset.Splits, es train.EvalSettings) (*train.Result, error) {
	lab := core.Labels{Y: sp.Train.Y, Env: sp.Train.Env, Group: sp.Train.Group}
	envs := make([]int32, 0, 2)
	for e := range envSizes(lab.Env) {
		envs = append(envs, e)
	}
	slices.Sort(envs)
	if len(envs) < 2 {
		return nil, fmt.Errorf("bayesirm-code: the training split has %d environment(s); its penalty compares two or more: choose a dataset with training environments", len(envs))
	}
	tr, err := train.NewTrainer(sp, es, nil)
	if err != nil {
		return nil, err
	}
	sd := birmCodeSDCoef / float64(len(lab.Y))
	rng := rand.New(rand.NewPCG(es.Seed, 0xb1c0de))
	step := newBirmCodeStep(tr.Loss, lab, tr.K, envs)
	omega := make([][]float64, birmCodeDraws)
	for d := range omega {
		omega[d] = make([]float64, len(envs))
	}
	return tr.Run(ctx, "bayesirm-code", func(it int) error {
		tr.SetLR(birmCodeLR(es.LR, it, es.Steps))
		for _, om := range omega {
			for p := range om {
				om[p] = 1 + sd*rng.NormFloat64()
			}
		}
		lam := 0.0
		if it >= es.PenaltyAnneal {
			lam = es.Penalty
		}
		_, _, cot := step.eval(tr.Logits(), omega, lam)
		div := 1.0
		if lam > 1 {
			div = 1 + lam
		}
		for i := range cot {
			cot[i] /= div
		}
		tr.CotGrad(cot)
		tr.AddL2(1 / div)
		return nil
	})
}

func (bayesIRMCode) Supervision() core.Supervision { return core.SupervisionEnvs }

func (bayesIRMCode) FieldHelp(field string) string { return sparseCodeHelp[field] }
