package extend

import (
	"context"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/train"
)

func init() { baselines.Register(balanced{}) }

// balanced is weighted ERM with each class weighted by the inverse of its
// training frequency.
type balanced struct{}

func (balanced) Name() string { return "balanced" }

func (balanced) Train(ctx context.Context, sp *dataset.Splits, es train.EvalSettings) (*train.Result, error) {
	count := map[int32]float64{}
	for _, y := range sp.Train.Y {
		count[y]++
	}
	u := make([]float64, sp.Train.N)
	for i, y := range sp.Train.Y {
		u[i] = 1 / count[y]
	}
	return train.WeightedERM(ctx, sp, u, es, "balanced")
}
