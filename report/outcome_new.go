package report

import (
	"context"
	"fmt"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

// Outcome is what `maple run` reports when a run ends: the result of the
// final weighted ERM (or the baseline) with the run's identity, and on
// the synthetic dataset with a linear model the linear-case figures.
type Outcome struct {
	*train.Result
	RunID     string      `json:"run_id"`
	Status    core.Status `json:"status"`
	Objective string      `json:"objective,omitempty"`
	// Linear-case figures on the synthetic dataset with a linear model.
	SpuriousShare    *float64 `json:"spurious_share,omitempty"`
	ERMSpuriousShare *float64 `json:"erm_spurious_share,omitempty"`
	ERMTestAcc       *float64 `json:"erm_test_acc,omitempty"`
	// ERMSettings is how that ERM was trained: as this run's evaluation
	// (a baseline's published recipe sets it), so the ERM figures of two
	// methods on one dataset and seed differ with their recipes.
	ERMSettings string  `json:"erm_settings,omitempty"`
	Seconds     float64 `json:"seconds"`
}

// trainingText names how es trains, for people: "adam lr 0.001, 500
// steps", with L2 and weight decay when set.
func trainingText(es train.EvalSettings) string {
	s := fmt.Sprintf("%s lr %g, %d steps", es.Optimizer, es.LR, es.Steps)
	if es.L2 != 0 {
		s += fmt.Sprintf(", L2 %g", es.L2)
	}
	if es.WeightDecay != 0 {
		s += fmt.Sprintf(", weight decay %g", es.WeightDecay)
	}
	return s
}

// NewOutcome builds the outcome of a run with config cfg that ended with
// s. On the synthetic dataset it trains an ERM baseline for comparison.
func NewOutcome(ctx context.Context, cfg runs.Config, s *runs.Summary) *Outcome {
	out := &Outcome{Result: s.Result, RunID: cfg.ID, Status: s.Status, Seconds: s.Seconds}
	if out.Result == nil {
		out.Result = &train.Result{Method: cfg.Method, Dataset: cfg.Dataset.Name}
	}
	if cfg.Searches() {
		out.Objective = cfg.Settings.Objective
	}
	if s.Result == nil || cfg.Dataset.Name != "synthetic" {
		return out
	}
	sp, err := cfg.Dataset.Load(cfg.Settings.Seed, nil)
	if err != nil {
		return out
	}
	if share, err := train.SpuriousShare(sp, s.Result.Theta); err == nil {
		out.SpuriousShare = &share
		if cfg.Method != "erm" {
			if erm, err := baselines.Train(ctx, sp, "erm", cfg.Eval); err == nil {
				if es, err := train.SpuriousShare(sp, erm.Theta); err == nil {
					out.ERMSpuriousShare, out.ERMTestAcc = &es, &erm.TestAcc
					out.ERMSettings = trainingText(cfg.Eval)
				}
			}
		}
	}
	return out
}
