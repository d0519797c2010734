package baselines

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/train"
)

// sparseIRM is Sparse Invariant Risk Minimization (Zhou et al., ICML
// 2022), as its code (x-zho14/SparseIRM, ProbMaskConvLinear with
// --train_weights_at_the_same_time) trains it: every weight (not the
// biases) has a keep probability s_j in [0, 1]; each step draws a relaxed
// mask z = sigmoid((log s - log(1-s) + gumbel noise) T) and trains the
// weights theta and the scores s at the same time, by Adam, on the IRMv1
// (sparseirm) or REx (sparseirm-rex, the code's README command for
// ColoredMNIST) objective of the masked network theta * z; after each step the scores
// are projected onto a global budget sum s <= K (the fraction kept times
// the weights), which falls from all weights to the target along a cubic
// schedule, and the temperature 1/T anneals. A checkpoint is evaluated
// (and selected on validation) with a binary mask drawn from s.
type sparseIRM struct {
	penalty string // the objective of the penalty: irmv1 or rex
}

func (m sparseIRM) Name() string {
	if m.penalty == "irmv1" {
		return "sparseirm"
	}
	return "sparseirm-" + m.penalty
}

func (sparseIRM) UsesPenalty() bool { return true }

func (sparseIRM) OwnFields() []string {
	return []string{"EvalSettings.Penalty", "EvalSettings.PenaltyAnneal", "EvalSettings.MaskKeep", "EvalSettings.MaskLR"}
}

// recipe is the code's README command for ColoredMNIST (MLP 390, full
// batch): weights by Adam lr 6e-4, scores by Adam lr 6e-3 (cosine decay)
// from 1, keep 0.95 of the weights, L2 1e-3, penalty 10000 after 200
// steps, 1500 steps, the scores moving from 28% of the steps and the
// budget reaching its target at 60%.
func (m sparseIRM) Recipe(es train.EvalSettings, keep map[string]bool) train.EvalSettings {
	set := train.RecipeSetter(keep)
	set("EvalSettings.Optimizer", func() { es.Optimizer = "adam" })
	set("EvalSettings.LR", func() { es.LR = 6e-4 })
	set("EvalSettings.L2", func() { es.L2 = 1e-3 })
	set("EvalSettings.WeightDecay", func() { es.WeightDecay = 0 })
	set("EvalSettings.Penalty", func() { es.Penalty = 10000 })
	set("EvalSettings.PenaltyAnneal", func() { es.PenaltyAnneal = 200 })
	set("EvalSettings.Steps", func() { es.Steps = 1500 })
	set("EvalSettings.MaskKeep", func() { es.MaskKeep = 0.95 })
	set("EvalSettings.MaskLR", func() { es.MaskLR = 6e-3 })
	es.Recipe = "SparseIRM code (Zhou et al. 2022), " + m.penalty + ": Adam 6e-4 / scores 6e-3, keep 0.95, penalty 10000 after 200, 1500 steps"
	return es
}

// Schedule fractions of the code's defaults (--ts 0.28 as its README
// command, --te 0.6) and its temperature floor.
const (
	sparseStart  = 0.28 // the scores move, and the budget starts to fall
	sparseEnd    = 0.6  // the budget reaches its target
	sparseTFloor = 0.03
	gumbelEps    = 1e-20 // inside the mask's logarithms, as the code
)

func (m sparseIRM) Train(ctx context.Context, sp *dataset.Splits, es train.EvalSettings) (*train.Result, error) {
	keepFrac, maskLR := es.MaskKeep, es.MaskLR
	if keepFrac == 0 {
		keepFrac = 0.95
	}
	if maskLR == 0 {
		maskLR = 6e-3
	}
	if !(keepFrac > 0 && keepFrac <= 1) || !(maskLR > 0) {
		return nil, fmt.Errorf("%s: the kept fraction %g must be in (0, 1] and the score learning rate %g positive", m.Name(), keepFrac, maskLR)
	}
	tr, err := train.NewTrainer(sp, es, nil)
	if err != nil {
		return nil, err
	}
	wm := weightMask(tr.Net)
	mk := newMasker(wm, rand.New(rand.NewPCG(es.Seed, 0x5ba7)))
	s := make([]float64, len(mk.idx))
	for i := range s {
		s[i] = 1 // --score-init-constant 1
	}
	sAdam := core.NewAdam(len(s))
	lab := core.Labels{Y: sp.Train.Y, Env: sp.Train.Env, Group: sp.Train.Group}
	pen := core.Objective{Name: m.penalty, Loss: tr.Loss, K: tr.K}
	envN := envSizes(lab.Env)
	nEnv := float64(len(envN))
	// The code's NLL and penalty scales: irmv1's NLL is the mean over
	// every row and its penalty the mean over environments (maple's
	// objective sums them); rex's NLL is the mean over environments of
	// each one's mean, its penalty the variance (maple's already).
	nllScale := make([]float64, sp.Train.N)
	penScale := 1.0
	for i, e := range lab.Env {
		nllScale[i] = 1 / float64(sp.Train.N)
		if m.penalty == "rex" {
			nllScale[i] = 1 / (nEnv * envN[e])
		}
	}
	if m.penalty == "irmv1" {
		penScale = 1 / nEnv
	}
	masked := make([]float32, len(tr.Theta))
	evalRng := rand.New(rand.NewPCG(es.Seed, 0xe7a1))
	tr.View = func() []float32 { // a binary mask drawn from s, as the code's fix_subnet
		copy(masked, tr.Theta)
		for j, p := range mk.idx {
			if !(evalRng.Float64() < s[j]) {
				masked[p] = 0
			}
		}
		return masked
	}
	steps := float64(es.Steps)
	// The step's buffers, allocated once.
	nk := sp.Train.N * tr.K
	c0, c1, cot, gs := make([]float64, nk), make([]float64, nk), make([]float32, nk), make([]float64, len(s))
	res, err := tr.Run(ctx, m.Name(), func(step int) error {
		t := float64(step) / steps
		temp := 1 / ((1-sparseTFloor)*(1-t) + sparseTFloor)
		z, dzds := scoreMask(s, mk.noise(), temp)
		f := maskedForward(tr.Net, sp.Train.X, sp.Train.N, tr.K, tr.Theta, mk.idx, z, masked)
		nets.Losses(tr.Loss, f, lab.Y, tr.K, nil, c0)
		if _, err := pen.Eval(f, lab, c1); err != nil {
			return err
		}
		lam := 0.0
		if step >= es.PenaltyAnneal {
			lam = es.Penalty
		}
		div := 1.0
		if lam > 1 {
			div = 1 + lam
		}
		// The code's loss: the NLL + L2 sum theta² + lam times the
		// penalty, divided by 1 + lam once lam > 1.
		for i := range c0 {
			cot[i] = float32((c0[i]*nllScale[i/tr.K] + lam*c1[i]*penScale) / div)
		}
		gz := maskedVJP(tr.Net, sp.Train.X, sp.Train.N, tr.Theta, mk.idx, z, masked, cot, tr.Grad)
		for j := range gs {
			gs[j] = gz[j] * dzds[j]
		}
		tr.AddL2(1 / div)
		if t >= sparseStart {
			lr := maskLR * 0.5 * (1 + math.Cos(math.Pi*t)) // cosine_lr
			sAdam.Step(s, gs, lr, math.Inf(1))
		}
		core.ProjectKeep(s, budget(t, keepFrac)*float64(len(s)))
		return nil
	})
	if res != nil {
		res.KeptWeights = keptFraction(res.Theta, wm)
	}
	return res, err
}

// budget is the fraction of weights kept at progress t: all until
// sparseStart, the target after sparseEnd, a cubic fall between (the
// code's --iterative schedule from --pr_start 1).
func budget(t, target float64) float64 {
	switch {
	case t < sparseStart:
		return 1
	case t < sparseEnd:
		return target + (1-target)*math.Pow(1-(t-sparseStart)/(sparseEnd-sparseStart), 3)
	}
	return target
}

// envSizes counts the samples of each environment.
func envSizes(env []int32) map[int32]float64 {
	n := map[int32]float64{}
	for _, e := range env {
		n[e]++
	}
	return n
}

// weightMask is the model's weights (true) against its biases, when it
// says (nets and gmodel do); else every parameter is a weight.
func weightMask[T nets.Float](m models.Model[T]) []bool {
	if w, ok := m.(interface{ WeightMask() []bool }); ok {
		return w.WeightMask()
	}
	out := make([]bool, m.NumParams())
	for i := range out {
		out[i] = true
	}
	return out
}

// keptFraction is the fraction of the weights that are not zero in
// theta (a masked network's kept weights).
func keptFraction(theta []float32, wm []bool) *float64 {
	if theta == nil {
		return nil
	}
	var kept, all float64
	for i, w := range wm {
		if w {
			all++
			if theta[i] != 0 {
				kept++
			}
		}
	}
	f := kept / math.Max(all, 1)
	return &f
}

// masker draws relaxed (Gumbel-sigmoid) masks over the weights idx.
type masker struct {
	idx []int // the parameters masked: the weights
	rng *rand.Rand
	g   []float64 // the last noise drawn
}

func newMasker(wm []bool, rng *rand.Rand) *masker {
	mk := &masker{rng: rng}
	for i, w := range wm {
		if w {
			mk.idx = append(mk.idx, i)
		}
	}
	mk.g = make([]float64, len(mk.idx))
	return mk
}

// noise draws fresh logistic noise g_j = -log(log(u0)/log(u1)) for
// every masked weight (the code's, with its eps).
func (mk *masker) noise() []float64 {
	for j := range mk.idx {
		u0, u1 := mk.rng.Float64(), mk.rng.Float64()
		mk.g[j] = -math.Log(math.Log(u0+gumbelEps)/math.Log(u1+gumbelEps) + gumbelEps)
	}
	return mk.g
}

// scoreMask is SparseIRM's relaxed mask of keep probabilities s with
// noise g at inverse temperature T: z_j = sigmoid((log(s_j+eps) -
// log(1-s_j+eps) + g_j) T), and dz_j/ds_j.
func scoreMask(s, g []float64, temp float64) (z, dzds []float64) {
	z, dzds = make([]float64, len(s)), make([]float64, len(s))
	for j, v := range s {
		z[j] = nets.Sigmoid((math.Log(v+gumbelEps) - math.Log(1-v+gumbelEps) + g[j]) * temp)
		dzds[j] = temp * z[j] * (1 - z[j]) * (1/(v+gumbelEps) + 1/(1-v+gumbelEps))
	}
	return z, dzds
}

// maskedForward writes theta with its weights idx multiplied by z into
// masked and returns the n x k logits of the masked network on x.
func maskedForward[T nets.Float](net models.Model[T], x []T, n, k int, theta []T, idx []int, z []float64, masked []T) []float64 {
	copy(masked, theta)
	for j, p := range idx {
		masked[p] *= T(z[j])
	}
	f := make([]T, n*k)
	net.Forward(masked, x, n, f)
	out := make([]float64, len(f))
	for i, v := range f {
		out[i] = float64(v)
	}
	return out
}

// maskedVJP sets grad to dL/dtheta of the masked network (masked = theta
// with its weights idx times z) for the logit cotangents cot, and returns
// dL/dz_j = dL/dmasked_p theta_p for each masked weight p = idx[j].
func maskedVJP[T nets.Float](net models.Model[T], x []T, n int, theta []T, idx []int, z []float64, masked, cot, grad []T) []float64 {
	net.VJP(masked, x, n, cot, grad)
	gz := make([]float64, len(idx))
	for j, p := range idx {
		gz[j] = float64(grad[p]) * float64(theta[p])
		grad[p] *= T(z[j])
	}
	return gz
}

func (sparseIRM) Supervision() core.Supervision { return core.SupervisionEnvs }

func (sparseIRM) FieldHelp(field string) string {
	switch field {
	case "EvalSettings.MaskKeep":
		return "the fraction of the weights kept (the recipe: 0.95)"
	case "EvalSettings.MaskLR":
		return "Adam learning rate of the mask scores (the recipe: 6e-3)"
	}
	return sparseCodeHelp[field]
}

// sparseCodeHelp is what the penalty settings mean for the methods whose
// code trains without the penalty first (sparseirm, sparseirm-rex,
// bayesirm-code), with their recipes' values.
var sparseCodeHelp = map[string]string{
	"EvalSettings.Penalty":       "penalty weight (their code's recipe: 10000 after 200)",
	"EvalSettings.PenaltyAnneal": "steps without the penalty before it applies (the recipe: 200)",
}
