package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

// Export is export.json: what a set of exported weights is.
type Export struct {
	RunID      string       `json:"run_id"`
	ConfigHash string       `json:"config_hash"` // runs.Config.Hash: every setting that changes results
	Dataset    loaders.Spec `json:"dataset"`
	Seed       uint64       `json:"seed"`
	Status     core.Status  `json:"status"`    // the run's status when exported
	Iteration  int          `json:"iteration"` // outer iterations of the checkpoint exported
	// Iterate is the search iterate whose weights these are (1-based);
	// 0 means the weights after the last iteration (--select-iterate final).
	Iterate   int    `json:"iterate"`
	Which     string `json:"which"`      // Iterate in words
	TrainWith string `json:"train_with"` // the file to train with: u.npy, or weights.csv when only csv is written
	// TrainColumn is the column of TrainWith to train with when it is a
	// table (weights.csv: u); "" for u.npy.
	TrainColumn string   `json:"train_column,omitempty"`
	N           int      `json:"n"` // training samples, rows of every file
	GroupNames  []string `json:"group_names"`
	EnvNames    []string `json:"env_names"`
	LabelNames  []string `json:"label_names,omitempty"` // when the data named its classes: label i is label_names[i]
	Files       []string `json:"files"`
}

// Export file names besides weights.npy, keep_prob.npy and weights.csv.
const (
	UNPY       = "u.npy"
	MaskNPY    = "mask.npy"
	IDsNPY     = "ids.npy"
	ExportJSON = "export.json"
)

// WriteExports writes into dir, for the training split in its order:
// with npy, u.npy (u = w·m, the weights maple's evaluation trains on: 0
// for a dropped sample), weights.npy (w), keep_prob.npy (s), mask.npy
// (m, uint8) and ids.npy (the dataset's sample ids, int64); with csv,
// weights.csv (index, sample id, u, w, s, kept, label, env, group and
// their names); and always export.json saying what they are.
func WriteExports(dir string, cfg *runs.Config, status core.Status, iteration int, out *core.Output, train *dataset.Dataset, formats ...string) error {
	which := fmt.Sprintf("the validation-selected iterate %d of %d", out.Iter, iteration)
	if out.Iter == 0 {
		which = fmt.Sprintf("the weights after iteration %d (--select-iterate final)", iteration)
	}
	if status != core.StatusDone {
		which += fmt.Sprintf("; the run is %s: these are from its latest checkpoint", status)
	}
	return writeExports(dir, cfg, status, iteration, out, train, which, formats)
}

// WriteSampleWeights writes the per-sample weights a baseline ended with
// (LfF's W = CE_b / (CE_b + CE_d)) as maple writes a search's: u.npy and
// weights.npy hold them, keep_prob.npy and mask.npy are all ones, and
// export.json says whose they are.
func WriteSampleWeights(dir string, cfg *runs.Config, res *train.Result, train *dataset.Dataset) error {
	if len(res.SampleWeights) != train.N {
		return fmt.Errorf("%d sample weights for %d training samples", len(res.SampleWeights), train.N)
	}
	ones, keep := make([]float64, train.N), make([]bool, train.N)
	for i := range ones {
		ones[i], keep[i] = 1, true
	}
	out := &core.Output{W: res.SampleWeights, S: ones, Keep: keep}
	which := fmt.Sprintf("%s's per-sample training weights at its last step (%d); its evaluated model was selected at step %d", cfg.Method, cfg.Eval.Steps, res.SelectedStep)
	return writeExports(dir, cfg, core.StatusDone, 0, out, train, which, nil)
}

func writeExports(dir string, cfg *runs.Config, status core.Status, iteration int, out *core.Output, train *dataset.Dataset, which string, formats []string) error {
	if len(formats) == 0 {
		formats = []string{"npy", "csv"}
	}
	u := out.Weights()
	man := Export{RunID: cfg.ID, ConfigHash: cfg.Hash(false), Dataset: cfg.Dataset.Effective(), Seed: cfg.Settings.Seed, Status: status,
		Iteration: iteration, Iterate: out.Iter, Which: which, TrainWith: UNPY, N: len(u), GroupNames: train.GroupNames, EnvNames: train.EnvNames, LabelNames: train.LabelNames}
	name := func(names []string, i int32) string {
		if int(i) < len(names) {
			return names[i]
		}
		return strconv.Itoa(int(i))
	}
	for _, f := range formats {
		switch f {
		case "npy":
			mask := make([]uint8, len(u))
			for i, k := range out.Keep {
				if k {
					mask[i] = 1
				}
			}
			for _, x := range []struct {
				name  string
				write func(io.Writer) error
			}{
				{UNPY, func(w io.Writer) error { return loaders.WriteNPY(w, u) }},
				{runs.WeightsNPY, func(w io.Writer) error { return loaders.WriteNPY(w, out.W) }},
				{runs.KeepNPY, func(w io.Writer) error { return loaders.WriteNPY(w, out.S) }},
				{MaskNPY, func(w io.Writer) error { return loaders.WriteNPY(w, mask) }},
				{IDsNPY, func(w io.Writer) error { return loaders.WriteNPY(w, train.ID) }},
			} {
				var b bytes.Buffer
				if err := x.write(&b); err != nil {
					return err
				}
				if err := runs.WriteFile(filepath.Join(dir, x.name), b.Bytes()); err != nil {
					return err
				}
				man.Files = append(man.Files, x.name)
			}
		case "csv":
			err := runs.WriteWith(filepath.Join(dir, runs.WeightsCSV), func(f *os.File) error {
				w := bufio.NewWriter(f)
				w.WriteString("index,sample_id,u,weight,keep_prob,kept,label,env,group,env_name,group_name\n")
				g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
				for i := range out.W {
					kept := 0
					if out.Keep[i] {
						kept = 1
					}
					fmt.Fprintf(w, "%d,%d,%s,%s,%s,%d,%d,%d,%d,%q,%q\n", i, train.ID[i], g(u[i]), g(out.W[i]), g(out.S[i]),
						kept, train.Y[i], train.Env[i], train.Group[i], name(train.EnvNames, train.Env[i]), name(train.GroupNames, train.Group[i]))
				}
				return w.Flush()
			})
			if err != nil {
				return err
			}
			man.Files = append(man.Files, runs.WeightsCSV)
		default:
			return fmt.Errorf("export format %q: want csv or npy", f)
		}
	}
	if !slices.Contains(man.Files, UNPY) { // csv alone
		man.TrainWith, man.TrainColumn = runs.WeightsCSV, "u"
	}
	return runs.WriteJSONAtomic(filepath.Join(dir, ExportJSON), man)
}

// ReadExport reads export.json in dir.
func ReadExport(dir string) (*Export, error) {
	b, err := os.ReadFile(filepath.Join(dir, ExportJSON))
	if err != nil {
		return nil, err
	}
	var e Export
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("%s is damaged: %w", filepath.Join(dir, ExportJSON), err)
	}
	return &e, nil
}
