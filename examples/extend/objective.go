package extend

import "github.com/maple-ood/maple/core"

func init() { core.RegisterObjective(meanLoss{}) }

// meanLoss is the outer risk R = mean of the per-sample losses, its logit
// cotangents dR/df_i = dl_i/df_i / N.
type meanLoss struct{}

func (meanLoss) Name() string { return "meanloss" }

func (meanLoss) Risk(b *core.RiskBatch) (float64, error) {
	var r float64
	for i := range b.N {
		r += b.L[i]
		b.Add(i, 1/float64(b.N), b.D)
	}
	return r / float64(b.N), nil
}
