package runs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
)

// WriteExports writes weights.npy and keep_prob.npy (float64, one value
// per training sample in training-set order) and weights.csv (index,
// sample id, weight, keep probability, kept, label, env, group) into dir.
func WriteExports(dir string, out *core.Output, train *loaders.Dataset, formats ...string) error {
	if len(formats) == 0 {
		formats = []string{"npy", "csv"}
	}
	for _, f := range formats {
		switch f {
		case "npy":
			for _, x := range []struct {
				name string
				v    []float64
			}{{WeightsNPY, out.W}, {KeepNPY, out.S}} {
				var b bytes.Buffer
				if err := loaders.WriteNPY(&b, x.v); err != nil {
					return err
				}
				if err := writeFileAtomic(dir+"/"+x.name, b.Bytes()); err != nil {
					return err
				}
			}
		case "csv":
			err := writeAtomic(dir+"/"+WeightsCSV, func(f *os.File) error {
				w := bufio.NewWriter(f)
				w.WriteString("index,sample_id,weight,keep_prob,kept,label,env,group\n")
				for i := range out.W {
					kept := 0
					if out.Keep[i] {
						kept = 1
					}
					fmt.Fprintf(w, "%d,%d,%s,%s,%d,%d,%d,%d\n", i, train.ID[i],
						strconv.FormatFloat(out.W[i], 'g', -1, 64), strconv.FormatFloat(out.S[i], 'g', -1, 64),
						kept, train.Y[i], train.Env[i], train.Group[i])
				}
				return w.Flush()
			})
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("export format %q: want csv or npy", f)
		}
	}
	return nil
}

// WriteEval writes the result of `maple eval ID --model SPEC` into the
// run directory as eval-<spec>.json and returns its path.
func WriteEval(dir, model string, res *core.Result) (string, error) {
	name := "eval-" + strings.NewReplacer(":", "_", ",", "-").Replace(model) + ".json"
	path := filepath.Join(dir, name)
	return path, writeJSONAtomic(path, res)
}

// ExportTo writes the exports of the run in dir in format (csv or npy)
// into out (the run directory when ""), and returns the files written.
func ExportTo(dir, out, format string, ov Overrides, progress io.Writer) ([]string, error) {
	if format != "csv" && format != "npy" {
		return nil, fmt.Errorf("--format %q: want csv or npy", format)
	}
	_, sp, o, err := Final(dir, ov, progress)
	if err != nil {
		return nil, err
	}
	if out == "" {
		out = dir
	}
	if err := os.MkdirAll(out, dirPerm); err != nil {
		return nil, err
	}
	if err := WriteExports(out, o, sp.Train, format); err != nil {
		return nil, err
	}
	names := []string{WeightsCSV}
	if format == "npy" {
		names = []string{WeightsNPY, KeepNPY}
	}
	for i, n := range names {
		names[i] = filepath.Join(out, n)
	}
	return names, nil
}

// Eval trains model by weighted ERM on the learned weights of the run in
// dir (steps > 0 replaces the run's evaluation steps), writes the result
// to eval-<model>.json in the run, and returns it and the file's path.
func Eval(ctx context.Context, dir, model string, steps int, ov Overrides, progress io.Writer) (*Config, *core.Result, string, error) {
	cfg, sp, o, err := Final(dir, ov, progress)
	if err != nil {
		return nil, nil, "", err
	}
	es := cfg.Eval
	es.Model = model
	if steps > 0 {
		es.Steps = steps
	}
	if _, err := core.Memory(sp, "erm", cfg.Settings, es); err != nil {
		return nil, nil, "", err
	}
	res, err := core.WeightedERM(ctx, sp, o.Weights(), es, "maple")
	if err != nil {
		return nil, nil, "", err
	}
	path, err := WriteEval(dir, model, res)
	return cfg, res, path, err
}
