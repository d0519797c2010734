package config

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/models"
)

// PrepareContext is Prepare that returns ctx's error as soon as ctx is
// done (a signal while a large dataset is read and built): the load is
// abandoned, which is safe since it creates nothing.
func PrepareContext(ctx context.Context, c Config, progress io.Writer) (*dataset.Splits, error) {
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
func Prepare(c Config, progress io.Writer) (*dataset.Splits, error) {
	sp, err := prepare(c, progress)
	return sp, FlagError(err)
}

func prepare(c Config, progress io.Writer) (*dataset.Splits, error) {
	if err := Check(c); err != nil {
		return nil, err
	}
	// The person's own files are weighed before they are read: a file
	// larger than the memory left is refused before it is loaded.
	if data := c.Dataset.DataBytes(); data > 0 {
		if m := machineMemory(); m.Known() && data > m.Free() {
			return nil, fmt.Errorf("the data of this run (%s) would take about %s in memory as float32, and the machine has %s: give maple a machine or a Slurm job with more memory, or fewer rows or columns (a seeded subset of the rows, or the features projected to fewer dimensions)",
				dataFiles(c.Dataset), loaders.SizeText(data), m)
		}
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
	if err := baselines.CheckData(c.Method, sp); err != nil {
		on := dataFiles(c.Dataset)
		if on == "" {
			on = c.Dataset.Name
		}
		return nil, fmt.Errorf("--method %s on %s: %w", c.Method, on, err)
	}
	if c.Searches() && c.Settings.InitParams != "" {
		theta, err := ReadInit(c.Settings.InitParams)
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
	// The data are in memory now: what the run needs beyond them is
	// weighed against what is left.
	loaded := int64(sp.Train.N+sp.Val.N+sp.Test.N) * int64(sp.Train.D) * 4
	if m := machineMemory(); m.Known() && need-loaded > m.Free() {
		return nil, fmt.Errorf("this run would need about %s of memory besides its %s of data (models %s / %s on %d training samples of dimension %d), and the machine has %s: choose a smaller --model, --eval-model or --train-size, or give maple a machine or a Slurm job with more memory",
			loaders.SizeText(need-loaded), loaders.SizeText(loaded), c.Settings.Model, c.Eval.Model, sp.Train.N, sp.Train.D, m)
	}
	return sp, nil
}

// dataFiles names d's files for a message.
func dataFiles(d loaders.Spec) string {
	var files []string
	for _, f := range []string{d.Features, d.CSV} {
		if f != "" {
			files = append(files, f)
		}
	}
	return strings.Join(files, " and ")
}

// LoadContext loads the data of c (no checks: a run that exists passed
// them) and returns ctx's error as soon as ctx is done.
func LoadContext(ctx context.Context, c Config, progress io.Writer) (*dataset.Splits, error) {
	return untilDone(ctx, func() (*dataset.Splits, error) { return c.Dataset.Load(c.Settings.Seed, progress) })
}

// machineMemory is what the machine can give a run (a test's own).
var machineMemory = loaders.MachineMemory
