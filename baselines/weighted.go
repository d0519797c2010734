package baselines

import (
	"context"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/train"
)

// weightedMethod is weighted ERM with fixed per-sample weights: erm (every
// sample at 1) or upweight (each sample at the inverse of its group's
// training frequency).
type weightedMethod struct{ name string }

func (m weightedMethod) Name() string { return m.name }

func (m weightedMethod) Train(ctx context.Context, sp *dataset.Splits, es train.EvalSettings) (*train.Result, error) {
	u := train.Ones(sp.Train.N)
	if m.name == "upweight" {
		cnt := make([]float64, len(sp.Train.GroupNames))
		for _, g := range sp.Train.Group {
			cnt[g]++
		}
		for i, g := range sp.Train.Group {
			u[i] = 1 / cnt[g]
		}
	}
	res, err := train.WeightedERM(ctx, sp, u, es, m.name)
	if res != nil && m.name == "upweight" {
		// Equal weights when the training groups are of one size (or
		// there is one): then upweighting is ERM.
		res.Reweighting = train.NewReweighting("each sample at the inverse of its group's training size", sp.Train, u, nil, "")
	}
	return res, err
}

func (m weightedMethod) Supervision() core.Supervision {
	if m.name == "upweight" {
		return core.SupervisionGroups
	}
	return core.SupervisionNone
}
