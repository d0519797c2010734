package train

import (
	"context"
	"errors"
	"fmt"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/record"
)

// SharedTraining returns es trained as the shared evaluation trains:
// DefaultEval's optimizer, learning rate, momentum, weight decay, steps,
// checks and L2, from a fresh model seeded with es.Seed; the model, seed
// and method settings are es's own.
func SharedTraining(es EvalSettings) EvalSettings {
	def := DefaultEval()
	es.Optimizer, es.LR, es.Momentum, es.WeightDecay, es.L2 = def.Optimizer, def.LR, def.Momentum, def.WeightDecay, def.L2
	es.Steps, es.EvalEvery, es.MinStep, es.SameInit = def.Steps, def.EvalEvery, def.MinStep, false
	es.RefTrainAcc, es.AlsoShared = 0, false
	return es
}

// Trained names which training a chosen result came from
// (Choice.Chosen).
const (
	TrainedOwn    = record.TrainedOwn    // the settings' own training
	TrainedShared = record.TrainedShared // the shared evaluation (SharedTraining)
)

// ChooseWeightedERM is WeightedERMFrom, and with es.AlsoShared also the
// same weighted ERM trained by the shared evaluation: of the two, the
// result whose selected checkpoint validation ranks first (its
// criterion: worst-group accuracy, or accuracy without groups), a tie
// keeping es's own. The shared training runs first, reported as a stage
// of two; the result records which training it came from and both
// trainings' validation figures (Result.Choice). Where es's training is
// the shared one already, it trains once.
func ChooseWeightedERM(ctx context.Context, sp *dataset.Splits, u []float64, es EvalSettings, method string, init []float32) (*Result, error) {
	if !es.AlsoShared {
		return WeightedERMFrom(ctx, sp, u, es, method, init)
	}
	own := es
	own.AlsoShared = false
	shared := SharedTraining(es)
	if own == shared {
		return WeightedERMFrom(ctx, sp, u, own, method, init)
	}
	stage := Stage{Name: "the shared evaluation's candidate", N: 1, Of: 2}
	// The shared training's checks are no progress of the final
	// training's: they are told as a stage's steps.
	p, _ := ctx.Value(stageKey{}).(StageProgress)
	sctx := WithProgress(ctx, func(step, steps int, _, _ float64) {
		if p != nil && step > 0 {
			p(stage, step, steps)
		}
	})
	alt, altErr := WeightedERMFrom(sctx, sp, u, shared, method, nil)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := WeightedERMFrom(ctx, sp, u, own, method, init)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	// A candidate whose gradient stopped being finite before its first
	// selectable check is no candidate: the other stands, and the choice
	// says why; the run fails when both do, or on any other error.
	diverged := func(err error) bool { return errors.Is(err, ErrNotFinite) }
	switch {
	case err != nil && (altErr == nil && diverged(err)):
		alt.Choice = &Choice{Chosen: TrainedShared, Shared: figuresOf(alt), OwnError: err.Error()}
		return alt, nil
	case altErr != nil && err == nil && diverged(altErr):
		res.Choice = &Choice{Chosen: TrainedOwn, Own: figuresOf(res), SharedError: altErr.Error()}
		return res, nil
	case err != nil || altErr != nil:
		var errs []error
		if err != nil {
			errs = append(errs, fmt.Errorf("the final training: %w", err))
		}
		if altErr != nil {
			errs = append(errs, fmt.Errorf("the shared evaluation's candidate: %w", altErr))
		}
		return nil, errors.Join(errs...)
	}
	choice := &Choice{Own: figuresOf(res), Shared: figuresOf(alt), Chosen: TrainedOwn}
	if score(alt) > score(res) {
		res, choice.Chosen = alt, TrainedShared
	}
	res.Choice = choice
	return res, nil
}

func figuresOf(r *Result) *ChoiceFigures {
	return &ChoiceFigures{SelectedStep: r.SelectedStep, ValAcc: r.ValAcc, ValWorst: r.ValWorst}
}

// score is a result's selection criterion at its selected checkpoint.
func score(r *Result) float64 {
	if r.Criterion == CriterionAcc {
		return r.ValAcc
	}
	return r.ValWorst
}
