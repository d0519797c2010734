package export

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sbinet/npyio/npy"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

// Eval trains model by weighted ERM on the learned weights of the run in
// dir (steps > 0 replaces the run's evaluation steps), writes the result
// to eval-<model>.json in the run, and returns it and the file's path.
func Eval(ctx context.Context, dir, model string, steps int, ov Overrides, progress io.Writer) (*runs.Config, *train.Result, string, error) {
	cfg, err := runs.ReadConfig(dir)
	if err != nil {
		return nil, nil, "", err
	}
	var sp *dataset.Splits
	var u []float64
	method := cfg.Method
	if cfg.Searches() {
		var o *core.Output
		if cfg, sp, o, _, err = Final(dir, ov, progress); err != nil {
			return nil, nil, "", err
		}
		u = o.Weights()
	} else if sp, u, err = baselineWeights(dir, cfg, ov, progress); err != nil {
		return nil, nil, "", err
	}
	es := cfg.Eval
	es.Model = model
	if steps > 0 {
		es.Steps = steps
	}
	if _, err := config.Memory(sp, "erm", cfg.Settings, es); err != nil {
		return nil, nil, "", err
	}
	res, err := train.ChooseWeightedERM(ctx, sp, u, es, method, nil)
	if err != nil {
		return nil, nil, "", err
	}
	path, err := runs.WriteEval(dir, model, res)
	return cfg, res, path, err
}

// baselineWeights reads the per-sample weights a baseline run ended with
// (its u.npy, float64 as written; of the baselines only lff writes one)
// and the run's dataset.
func baselineWeights(dir string, cfg *runs.Config, ov Overrides, progress io.Writer) (*dataset.Splits, []float64, error) {
	if _, err := ReadExport(dir); err != nil {
		return nil, nil, fmt.Errorf("run %s (%s) has no per-sample weights to train on (of the baselines only lff ends with some)", cfg.ID, cfg.Method)
	}
	path := filepath.Join(dir, UNPY)
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w", err)
	}
	defer f.Close()
	var u []float64
	if err := npy.Read(f, &u); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if ov.DataDir != "" {
		cfg.Dataset.DataDir = ov.DataDir
	}
	sp, err := cfg.Dataset.Load(cfg.Settings.Seed, progress)
	if err != nil {
		return nil, nil, err
	}
	if len(u) != sp.Train.N {
		return nil, nil, fmt.Errorf("%s holds %d weights for %d training samples; was the file replaced?", path, len(u), sp.Train.N)
	}
	return sp, u, nil
}
