package baselines

import (
	"context"
	"fmt"
	"math"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/train"
)

// lff is Learning from Failure (Nam et al., NeurIPS 2020): a biased model
// trained with the generalized cross-entropy, which amplifies its reliance
// on what is easy (the spurious attribute), and a debiased model trained
// at the same time by cross-entropy with per-sample weights
// W = CE_b / (CE_b + CE_d), from exponential moving averages of the two
// models' losses, each divided by its class's largest (the authors' code,
// alinlab/LfF). The debiased model is the one evaluated and selected on
// validation. Full batch here, as every maple baseline; the paper used
// minibatches of 256.
type lff struct{}

func (lff) Name() string { return "lff" }

func (lff) OwnFields() []string { return []string{"EvalSettings.LfFQ", "EvalSettings.LfFEMA"} }

func (lff) FieldHelp(field string) string {
	switch field {
	case "EvalSettings.LfFQ":
		return "the generalized cross-entropy's exponent q of the biased model (0 = the paper's 0.7)"
	case "EvalSettings.LfFEMA":
		return "the decay of the per-sample loss averages that weight the debiased model (0 = the paper's 0.7)"
	}
	return ""
}

// recipe is the paper's ColoredMNIST recipe (Nam et al. 2020, section 4
// and appendix; alinlab/LfF's train.py): Adam at lr 1e-3, q = 0.7, EMA
// decay 0.7.
func (lff) Recipe(es train.EvalSettings, keep map[string]bool) train.EvalSettings {
	set := train.RecipeSetter(keep)
	set("EvalSettings.Optimizer", func() { es.Optimizer = "adam" })
	set("EvalSettings.LR", func() { es.LR = 1e-3 })
	set("EvalSettings.WeightDecay", func() { es.WeightDecay = 0 })
	es.Recipe = "LfF (Nam et al. 2020): Adam lr 1e-3, GCE q 0.7, EMA 0.7"
	return es
}

func (m lff) Train(ctx context.Context, sp *dataset.Splits, es train.EvalSettings) (*train.Result, error) {
	q, decay := es.LfFQ, es.LfFEMA
	if q == 0 {
		q = 0.7
	}
	if decay == 0 {
		decay = 0.7
	}
	if !(q > 0 && q <= 1) || !(decay >= 0 && decay < 1) {
		return nil, fmt.Errorf("lff: q %g must be in (0, 1] and the EMA decay %g in [0, 1)", q, decay)
	}
	deb, err := train.NewTrainer(sp, es, nil)
	if err != nil {
		return nil, err
	}
	esB := es
	esB.Seed = es.Seed + 1 // the biased model starts elsewhere
	bia, err := train.NewTrainer(sp, esB, nil)
	if err != nil {
		return nil, err
	}
	n, k, y := sp.Train.N, deb.K, sp.Train.Y
	emaB, emaD := make([]float64, n), make([]float64, n)
	w := make([]float64, n)
	lb, ld := make([]float64, n), make([]float64, n)
	db, dd := make([]float64, n*k), make([]float64, n*k) // the two models' logit cotangents, reused every step
	res, err := deb.Run(ctx, "lff", func(step int) error {
		fb, fd := bia.Logits(), deb.Logits()
		nets.Losses(bia.Loss, fb, y, k, lb, nil)
		nets.Losses(deb.Loss, fd, y, k, ld, dd)
		for i := range emaB {
			emaB[i] = decay*emaB[i] + (1-decay)*lb[i]
			emaD[i] = decay*emaD[i] + (1-decay)*ld[i]
			if step == 0 {
				emaB[i], emaD[i] = lb[i], ld[i]
			}
		}
		nb, nd := classMax(emaB, y), classMax(emaD, y)
		for i := range w {
			b, d := emaB[i]/nb[y[i]], emaD[i]/nd[y[i]]
			w[i] = b / (b + d + 1e-8)
		}
		// The biased model: generalized cross-entropy.
		gce(fb, y, k, q, nil, db)
		for i := range db {
			db[i] /= float64(n)
		}
		bia.CotGrad(db)
		bia.Opt.Step(bia.Theta, bia.Grad)
		// The debiased model: cross-entropy weighted by W (the mean, as
		// the authors' code takes it).
		for i := range dd {
			dd[i] *= w[i/k] / float64(n)
		}
		deb.CotGrad(dd)
		return nil
	})
	if res != nil {
		res.SampleWeights = w
		// Weights left equal (or nearly) make the debiased model ERM's.
		res.Reweighting = train.NewReweighting("the debiased model's W at the last step", sp.Train, w, nil, "")
	}
	return res, err
}

// classMax is the largest value of v over each class's samples (1 where
// a class has none, or only zeros).
func classMax(v []float64, y []int32) map[int32]float64 {
	m := map[int32]float64{}
	for i, c := range y {
		m[c] = math.Max(m[c], v[i])
	}
	for c, x := range m {
		if x <= 0 {
			m[c] = 1
		}
	}
	return m
}

// gce is LfF's generalized cross-entropy, scaled by q as its code trains
// it: L_i = 1 - p_i^q for the probability p_i of sample i's label, whose
// gradient q p_i^q (softmax(f_i) - e_y) is the cross-entropy's times
// q p_i^q. It writes the losses into l (unless nil) and dL/df into d.
// Binary tasks (k = 1) use p = sigmoid(f) for label 1.
func gce(f []float64, y []int32, k int, q float64, l, d []float64) {
	for i := range y {
		if k == 1 {
			s := nets.Sigmoid(f[i])
			p, grad := s, s-1 // label 1: dp/df = p(1-p); CE gradient s - 1
			if y[i] == 0 {
				p, grad = 1-s, s
			}
			pq := math.Pow(p, q)
			if l != nil {
				l[i] = 1 - pq
			}
			d[i] = q * pq * grad
			continue
		}
		row := f[i*k : (i+1)*k]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = math.Max(mx, v)
		}
		var z float64
		for _, v := range row {
			z += math.Exp(v - mx)
		}
		p := math.Exp(row[y[i]]-mx) / z
		pq := math.Pow(p, q)
		if l != nil {
			l[i] = 1 - pq
		}
		for j, v := range row {
			pj := math.Exp(v-mx) / z
			if int32(j) == y[i] {
				pj -= 1
			}
			d[i*k+j] = q * pq * pj
		}
	}
}
