package export

import (
	"fmt"
	"io"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/runs"
)

// Latest writes the exports of the run in dir from its latest
// checkpoint and returns what they hold (export.json's manifest: the
// checkpoint's iteration, the iterate exported, Which in words: the
// validation-selected iterate unless --select-iterate final).
func Latest(dir string) (*Export, error) {
	cfg, sp, out, iter, err := Final(dir, Overrides{}, nil)
	if err != nil {
		return nil, err
	}
	if err := WriteExports(dir, cfg, runs.Stat(dir).Status, iter, out, sp.Train); err != nil {
		return nil, err
	}
	return ReadExport(dir)
}

// Overrides replace recorded settings of a run when it is read back:
// the data location may have moved since the run started.
type Overrides struct {
	DataDir string // "" keeps the recorded one
}

// Final rebuilds a finished (or checkpointed) search: its dataset, its
// output from the last checkpoint, and that checkpoint's iteration. It
// is what export and eval use.
func Final(dir string, ov Overrides, progress io.Writer) (*runs.Config, *dataset.Splits, *core.Output, int, error) {
	cfg, err := runs.ReadConfig(dir)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	if !cfg.Searches() {
		return nil, nil, nil, 0, fmt.Errorf("run %s is a baseline (%s): it has no search checkpoint", cfg.ID, cfg.Method)
	}
	if ov.DataDir != "" {
		cfg.Dataset.DataDir = ov.DataDir
	}
	st, err := runs.ReadCheckpoint(dir, func(string) {})
	if err != nil {
		return nil, nil, nil, 0, err
	}
	if st == nil {
		return nil, nil, nil, 0, fmt.Errorf("run %s has no checkpoint yet", cfg.ID)
	}
	sp, err := cfg.Dataset.Load(cfg.Settings.Seed, progress)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	eng, err := core.New(sp, cfg.Settings)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	if err := eng.Restore(st); err != nil {
		return nil, nil, nil, 0, err
	}
	return cfg, sp, eng.Output(), st.Iter, nil
}
