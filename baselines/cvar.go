package baselines

import (
	"context"
	"fmt"
	"math"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/train"
)

// cvarMethod is CVaR-DRO: training on the cvar objective at es.CVaRAlpha,
// no group or environment used.
type cvarMethod struct{}

func (cvarMethod) Name() string { return "cvar" }

func (cvarMethod) OwnFields() []string { return []string{"EvalSettings.CVaRAlpha"} }

func (cvarMethod) Train(ctx context.Context, sp *dataset.Splits, es train.EvalSettings) (*train.Result, error) {
	tr, err := train.NewTrainer(sp, es, nil)
	if err != nil {
		return nil, err
	}
	lab := core.Labels{Y: sp.Train.Y, Env: sp.Train.Env, Group: sp.Train.Group}
	obj := core.Objective{Name: "cvar", Alpha: es.CVaRAlpha, Loss: tr.Loss, K: tr.K}
	var worst []bool // the worst-alpha set of the last step
	res, err := tr.Run(ctx, "cvar", func(step int) error {
		f := tr.Logits()
		c := make([]float64, len(f))
		if _, err := obj.Eval(f, lab, c); err != nil {
			return err
		}
		if step == es.Steps-1 {
			worst = worstSet(tr.Loss, f, sp.Train.Y, tr.K, es.CVaRAlpha)
		}
		tr.CotGrad(c)
		return nil
	})
	if res != nil && worst != nil {
		// The last step's weights: 1 on its worst-alpha set, 0 elsewhere.
		// An alpha near 1 weighs (nearly) every sample: ERM.
		u := make([]float64, len(worst))
		for i, in := range worst {
			if in {
				u[i] = 1
			}
		}
		res.Reweighting = train.NewReweighting(fmt.Sprintf("the worst %g of the samples at the last step, the others at 0", es.CVaRAlpha),
			sp.Train, u, worst, "worst-alpha set")
	}
	return res, err
}

// worstSet marks the ceil(alpha n) samples of highest loss, ties broken
// by index, as the cvar objective takes them.
func worstSet(loss nets.Loss, f []float64, y []int32, k int, alpha float64) []bool {
	n := len(y)
	l := make([]float64, n)
	nets.Losses(loss, f, y, k, l, nil)
	in := make([]bool, n)
	for _, i := range core.Worst(l, int(math.Ceil(alpha*float64(n)))) {
		in[i] = true
	}
	return in
}
