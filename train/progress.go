package train

import "context"

// Progress is told at every validation check of a training run (the
// final weighted ERM, a baseline): the step, the steps in all, and the
// checkpoint's validation and test worst-group accuracy.
type Progress func(step, steps int, valWorst, testWorst float64)

type progressKey struct{}

// WithProgress returns ctx carrying p, which Trainer.Run (WeightedERM,
// every method of package baselines) calls at every validation check.
func WithProgress(ctx context.Context, p Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// Stage names one of a method's trainings that come before the one it
// selects on validation (MRM's ERM and mask stages, JTT's first ERM):
// stage N of Of, which ends with the validated training.
type Stage struct {
	Name  string // what the stage trains, in words
	N, Of int    // this stage's number, from 1, and the stages in all
}

// StageProgress is told after every step of a Stage: the step (from 1)
// and the stage's steps.
type StageProgress func(st Stage, step, steps int)

type stageKey struct{}

// WithStageProgress returns ctx carrying p, which the methods with stages
// before their validated training call after every step of them.
func WithStageProgress(ctx context.Context, p StageProgress) context.Context {
	return context.WithValue(ctx, stageKey{}, p)
}

// RunStage runs the steps of stage st, step(i) for i from 0: it stops
// with ctx's error when ctx ends and tells ctx's StageProgress after
// every step.
func RunStage(ctx context.Context, st Stage, steps int, step func(i int) error) error {
	p, _ := ctx.Value(stageKey{}).(StageProgress)
	for i := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := step(i); err != nil {
			return err
		}
		if p != nil {
			p(st, i+1, steps)
		}
	}
	return nil
}
