package baselines

import (
	"context"
	"fmt"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/train"
)

// oracle is ERM on the dataset's variant without the spurious signal.
type oracle struct{}

func (oracle) Name() string { return "oracle" }

func (oracle) Train(ctx context.Context, sp *dataset.Splits, es train.EvalSettings) (*train.Result, error) {
	if sp.Oracle == nil {
		return nil, fmt.Errorf("dataset %s has no oracle variant", sp.Name)
	}
	r, err := train.WeightedERM(ctx, sp.Oracle, train.Ones(sp.Oracle.Train.N), es, "oracle")
	if r != nil {
		r.Dataset = sp.Name
	}
	return r, err
}

func (oracle) Supervision() core.Supervision { return core.SupervisionOracle }
