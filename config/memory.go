package config

import (
	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/setting"
	"github.com/maple-ood/maple/train"
)

// Memory estimates the bytes a run of method (maple or a baseline) with
// these settings needs on sp, without allocating any of it: the
// features, the per-sample vectors, the parameter-sized copies of the
// search and evaluation models, and their work buffers.
func Memory(sp *dataset.Splits, method string, set core.Settings, ev train.EvalSettings) (int64, error) {
	n, d := float64(sp.Train.N), float64(sp.Train.D)
	all := float64(sp.Train.N + sp.Val.N + sp.Test.N)
	bytes := all * d * 4 // features, float32
	k := models.Outputs(sp.Train)
	work := 4 * float64(nets.BudgetFor(sp.Train.N*sp.Train.D)) // a net's work buffers
	params := func(model string) (float64, error) {
		n, err := models.NumParams(sp, model)
		return float64(n), err
	}
	if _, search := baselines.SearcherOf(method); search {
		ps, err := params(set.Model)
		if err != nil {
			return 0, setting.Parsed("Settings.Model", err)
		}
		// theta0, theta, grad, momentum, prev, buf, final, outer gradient,
		// warm theta; the kept subset's features; ~30 float64 per sample;
		// logits and tangents over all samples.
		bytes += ps*4*10 + n*d*4 + n*30*8 + all*float64(k)*4*4 + work
	}
	pe, err := params(ev.Model)
	if err != nil {
		return 0, setting.Parsed("EvalSettings.Model", err)
	}
	// Evaluation: theta, grad, momentum, the selected copy, plus work.
	bytes += pe*4*5 + work
	return int64(bytes), nil
}
