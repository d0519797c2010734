package baselines

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/train"
)

// mrm is Modular Risk Minimization (Zhang et al., ICML 2021, "Can
// Subnetwork Structure be the Key to Out-of-Distribution
// Generalization?"), in three stages: (1) the full network trained by
// ERM from its initialisation theta0; (2) with those weights frozen, mask
// logits pi (one per weight, not the biases) learned by Adam on the ERM
// loss of the network masked by relaxed Bernoulli (Gumbel-sigmoid) masks
// z = sigmoid(pi + g), plus alpha times the mean keep probability
// sigmoid(pi) (the sparsity penalty); (3) the binary mask (keep
// probability above 1/2, or the top --mask-keep fraction when given)
// applied to theta0 and the subnetwork retrained by ERM, selected on
// validation.
type mrm struct{}

func (mrm) Name() string { return "mrm" }

func (mrm) OwnFields() []string {
	return []string{"EvalSettings.Penalty", "EvalSettings.MaskKeep", "EvalSettings.MaskLR"}
}

// recipe: each stage with the IRM code's ColoredMNIST optimiser (the
// paper builds on it): Adam lr 4.898e-4, L2 1.1079e-3, 501 steps; mask
// logits from 3 (keep probability 0.95) by Adam lr 0.1; sparsity
// coefficient alpha 0.1 (--penalty; maple's choice: the paper's value is in
// no source reachable here; 1 pruned every weight of the linear case).
func (mrm) Recipe(es train.EvalSettings, keep map[string]bool) train.EvalSettings {
	set := train.RecipeSetter(keep)
	irmCodeSchedule(&es, set, false)
	set("EvalSettings.Penalty", func() { es.Penalty = 0.1 })
	set("EvalSettings.MaskLR", func() { es.MaskLR = 0.1 })
	es.Recipe = "MRM (Zhang et al. 2021): ERM, mask logits (Adam 0.1, sparsity 0.1), subnetwork retrained; IRM code's Adam 4.898e-4, L2 1.1079e-3, 501 steps each"
	return es
}

// mrmLogit0 is the mask logits' start: keep probability 0.95.
const mrmLogit0 = 3.0

func (m mrm) Train(ctx context.Context, sp *dataset.Splits, es train.EvalSettings) (*train.Result, error) {
	alpha, maskLR, keepFrac := es.Penalty, es.MaskLR, es.MaskKeep
	if maskLR == 0 {
		maskLR = 0.1
	}
	if !(alpha >= 0) || !(maskLR > 0) || !(keepFrac >= 0 && keepFrac <= 1) {
		return nil, fmt.Errorf("mrm: the sparsity coefficient %g must be at least 0, the mask learning rate %g positive and the kept fraction %g in [0, 1]", alpha, maskLR, keepFrac)
	}
	// train.Stage 1: the full network by ERM.
	full, err := train.NewTrainer(sp, es, nil)
	if err != nil {
		return nil, err
	}
	theta0 := slices.Clone(full.Theta)
	ones := make([]float64, sp.Train.N)
	for i := range ones {
		ones[i] = 1
	}
	err = train.RunStage(ctx, train.Stage{Name: "ERM of the full network", N: 1, Of: 3}, es.Steps, func(int) error {
		if err := full.WeightedGrad(ones); err != nil {
			return err
		}
		full.Opt.Step(full.Theta, full.Grad)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// train.Stage 2: the mask logits, the weights frozen.
	wm := weightMask(full.Net)
	mk := newMasker(wm, rand.New(rand.NewPCG(es.Seed, 0x3a5c)))
	pi := make([]float64, len(mk.idx))
	for j := range pi {
		pi[j] = mrmLogit0
	}
	piAdam := core.NewAdam(len(pi))
	masked, grad := make([]float32, len(full.Theta)), make([]float32, len(full.Theta))
	n, k, y := sp.Train.N, full.K, sp.Train.Y
	err = train.RunStage(ctx, train.Stage{Name: "the mask's logits, the weights frozen", N: 2, Of: 3}, es.Steps, func(int) error {
		z, dzdpi := logitMask(pi, mk.noise(), 1)
		f := maskedForward(full.Net, sp.Train.X, n, k, full.Theta, mk.idx, z, masked)
		c := make([]float64, len(f))
		nets.Losses(full.Loss, f, y, k, nil, c)
		cot := make([]float32, len(c))
		for i, v := range c {
			cot[i] = float32(v / float64(n))
		}
		gz := maskedVJP(full.Net, sp.Train.X, n, full.Theta, mk.idx, z, masked, cot, grad)
		g := mrmLogitGrad(pi, gz, dzdpi, alpha)
		for _, v := range g {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("mrm: the mask gradient is not finite; lower --mask-lr")
			}
		}
		piAdam.Step(pi, g, maskLR, math.Inf(1))
		return nil
	})
	if err != nil {
		return nil, err
	}
	keep := binaryMask(pi, keepFrac)
	// train.Stage 3: the subnetwork from theta0, by ERM, selected on validation.
	sub, err := train.NewTrainer(sp, es, theta0)
	if err != nil {
		return nil, err
	}
	for j, p := range mk.idx {
		if !keep[j] {
			sub.Theta[p] = 0
		}
	}
	res, err := sub.Run(ctx, "mrm", func(int) error {
		if err := sub.WeightedGrad(ones); err != nil {
			return err
		}
		for j, p := range mk.idx {
			if !keep[j] {
				sub.Grad[p] = 0 // pruned weights stay at zero
			}
		}
		return nil
	})
	if res != nil {
		kept := 0.0
		for _, b := range keep {
			if b {
				kept++
			}
		}
		f := kept / math.Max(1, float64(len(keep)))
		res.KeptWeights = &f
	}
	return res, err
}

// logitMask is a relaxed Bernoulli mask of logits pi with noise g at
// inverse temperature T: z_j = sigmoid((pi_j + g_j) T), and dz_j/dpi_j.
func logitMask(pi, g []float64, temp float64) (z, dzdpi []float64) {
	z, dzdpi = make([]float64, len(pi)), make([]float64, len(pi))
	for j, v := range pi {
		z[j] = nets.Sigmoid((v + g[j]) * temp)
		dzdpi[j] = temp * z[j] * (1 - z[j])
	}
	return z, dzdpi
}

// mrmLogitGrad is the gradient of the stage-2 loss in the logits: the
// ERM loss's through the mask (gz dz/dpi), plus alpha times that of the
// mean keep probability.
func mrmLogitGrad(pi, gz, dzdpi []float64, alpha float64) []float64 {
	g := make([]float64, len(pi))
	for j, v := range pi {
		p := nets.Sigmoid(v)
		g[j] = gz[j]*dzdpi[j] + alpha*p*(1-p)/float64(len(pi))
	}
	return g
}

// binaryMask keeps the weights whose keep probability sigmoid(pi) is
// above 1/2, or, when frac > 0, the top frac of them by logit (ties by
// index).
func binaryMask(pi []float64, frac float64) []bool {
	keep := make([]bool, len(pi))
	if frac <= 0 {
		for j, v := range pi {
			keep[j] = v > 0
		}
		return keep
	}
	order := make([]int, len(pi))
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case pi[a] > pi[b]:
			return -1
		case pi[a] < pi[b]:
			return 1
		}
		return 0
	})
	for _, j := range order[:int(math.Round(frac*float64(len(pi))))] {
		keep[j] = true
	}
	return keep
}

func (mrm) FieldHelp(field string) string {
	switch field {
	case "EvalSettings.Penalty":
		return "its sparsity coefficient (the recipe: 0.1)"
	case "EvalSettings.MaskKeep":
		return "the fraction of the weights kept (the recipe: none, its sparsity penalty decides)"
	case "EvalSettings.MaskLR":
		return "Adam learning rate of the mask logits (the recipe: 0.1)"
	}
	return ""
}
