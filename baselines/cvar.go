package baselines

import (
	"context"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/train"
)

// cvarMethod is CVaR-DRO: training on the cvar objective at es.CVaRAlpha,
// no group or environment used.
type cvarMethod struct{}

func (cvarMethod) Name() string { return "cvar" }

func (cvarMethod) ownFields() []string { return []string{"EvalSettings.CVaRAlpha"} }

func (cvarMethod) Train(ctx context.Context, sp *dataset.Splits, es train.EvalSettings) (*train.Result, error) {
	tr, err := train.NewTrainer(sp, es, nil)
	if err != nil {
		return nil, err
	}
	lab := core.Labels{Y: sp.Train.Y, Env: sp.Train.Env, Group: sp.Train.Group}
	obj := core.Objective{Name: "cvar", Alpha: es.CVaRAlpha, Loss: tr.Loss, K: tr.K}
	return tr.Run(ctx, "cvar", func(int) error {
		f := tr.Logits()
		c := make([]float64, len(f))
		if _, err := obj.Eval(f, lab, c); err != nil {
			return err
		}
		tr.CotGrad(c)
		return nil
	})
}
