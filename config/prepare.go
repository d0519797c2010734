package config

import (
	"context"
	"fmt"
	"io"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/runs"
)

// PrepareContext is Prepare that returns ctx's error as soon as ctx is
// done (a signal while a large dataset is read and built): the load is
// abandoned, which is safe since it creates nothing.
func PrepareContext(ctx context.Context, c runs.Config, progress io.Writer) (*dataset.Splits, error) {
	return untilDone(ctx, func() (*dataset.Splits, error) { return Prepare(c, progress) })
}

// UntilDone runs f on its own goroutine and returns its result, or ctx's
// error once ctx is done (a signal): for work that reads a person's files
// and creates nothing, such as hashing them or describing them, which a
// signal abandons.
func UntilDone[T any](ctx context.Context, f func() (T, error)) (T, error) { return untilDone(ctx, f) }

// untilDone runs f on its own goroutine and returns its result, or ctx's
// error once ctx is done, whichever comes first.
func untilDone[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1) // f's goroutine never blocks on it
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// Prepare checks c, loads its data and checks that the models fit the
// data and the machine's memory: everything that can be known before a
// run directory is created. Download progress goes to progress.
func Prepare(c runs.Config, progress io.Writer) (*dataset.Splits, error) {
	sp, err := prepare(c, progress)
	return sp, FlagError(err)
}

func prepare(c runs.Config, progress io.Writer) (*dataset.Splits, error) {
	if err := Check(c); err != nil {
		return nil, err
	}
	sp, err := c.Dataset.Load(c.Settings.Seed, progress)
	if err != nil {
		return nil, err
	}
	if progress != nil {
		for _, w := range sp.Warnings {
			fmt.Fprintf(progress, "warning: %s\n", w)
		}
	}
	if c.Method == "maple" && c.Settings.InitParams != "" {
		theta, err := runs.ReadInit(c.Settings.InitParams)
		if err != nil {
			return nil, err
		}
		if n, err := models.NumParams(sp, c.Settings.Model); err != nil {
			return nil, fmt.Errorf("--model: %w", err)
		} else if len(theta) != n {
			return nil, fmt.Errorf("--init-params %s holds %d parameters, model %s on this data has %d; write that model's parameters as one flat float32 vector", c.Settings.InitParams, len(theta), c.Settings.Model, n)
		}
	}
	need, err := Memory(sp, c.Method, c.Settings, c.Eval)
	if err != nil {
		return nil, err
	}
	if mem := loaders.MemTotal(); mem > 0 && float64(need) > 0.8*float64(mem) {
		return nil, fmt.Errorf("this run would need about %.1f GiB of memory (models %s / %s on %d training samples of dimension %d); the machine has %.1f GiB: choose a smaller --model, --eval-model or --train-size",
			float64(need)/(1<<30), c.Settings.Model, c.Eval.Model, sp.Train.N, sp.Train.D, float64(mem)/(1<<30))
	}
	return sp, nil
}

// LoadContext loads the data of c (no checks: a run that exists passed
// them) and returns ctx's error as soon as ctx is done.
func LoadContext(ctx context.Context, c runs.Config, progress io.Writer) (*dataset.Splits, error) {
	return untilDone(ctx, func() (*dataset.Splits, error) { return c.Dataset.Load(c.Settings.Seed, progress) })
}
