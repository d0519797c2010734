package baselines

import (
	"context"
	"math"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/train"
)

// groupDRO is online group DRO (Sagawa et al. 2020): exponentiated-
// gradient weights over the groups (step es.DROStep) on each group's mean
// loss.
type groupDRO struct{}

func (groupDRO) Name() string { return "groupdro" }

func (groupDRO) OwnFields() []string { return []string{"EvalSettings.DROStep"} }

func (groupDRO) Train(ctx context.Context, sp *dataset.Splits, es train.EvalSettings) (*train.Result, error) {
	tr, err := train.NewTrainer(sp, es, nil)
	if err != nil {
		return nil, err
	}
	n, ng := sp.Train.N, len(sp.Train.GroupNames)
	q := make([]float64, ng)
	cnt := make([]float64, ng)
	for _, g := range sp.Train.Group {
		cnt[g]++
	}
	for g := range q {
		q[g] = 1 / float64(ng)
	}
	res, err := tr.Run(ctx, "groupdro", func(int) error {
		f := tr.Logits()
		l, d := make([]float64, n), make([]float64, len(f))
		nets.Losses(tr.Loss, f, sp.Train.Y, tr.K, l, d)
		lg := make([]float64, ng)
		for i, g := range sp.Train.Group {
			lg[g] += l[i] / cnt[g]
		}
		var z float64
		for g := range q {
			if cnt[g] > 0 {
				q[g] *= math.Exp(es.DROStep * lg[g])
			} else {
				q[g] = 0
			}
			z += q[g]
		}
		for g := range q {
			q[g] /= z
		}
		for i := range d {
			g := sp.Train.Group[i/tr.K]
			d[i] *= q[g] / cnt[g]
		}
		tr.CotGrad(d)
		return nil
	})
	if res != nil {
		// Each sample at its group's q over the group's size, as the last
		// step weighted it: equal weights (q following the groups' sizes)
		// make it ERM's.
		u := make([]float64, n)
		for i, g := range sp.Train.Group {
			u[i] = q[g] / cnt[g]
		}
		res.Reweighting = train.NewReweighting("each group's q over its size, at the last step", sp.Train, u, nil, "")
	}
	return res, err
}

func (groupDRO) Supervision() core.Supervision { return core.SupervisionGroups }
