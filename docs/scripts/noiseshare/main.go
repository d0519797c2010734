// Command noiseshare tells where a run's exported training weights
// (u.npy: a maple search's, or LfF's) go with respect to the dataset's
// label noise: the fraction of the training samples whose label the
// construction flipped, and the fraction of the total weight they carry.
// A method that learns the noise puts far more than their share on them.
// One CSV row per run:
//
//	go run ./docs/scripts/noiseshare -runs-dir DIR ID...
//
// The data is loaded from each run's run.json as maple loads it
// (MAPLE_DATA_DIR as for maple itself).
package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/runs"
)

func main() {
	dir := flag.String("runs-dir", "", "the directory that holds the runs")
	flag.Parse()
	if *dir == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: noiseshare -runs-dir DIR ID...")
		os.Exit(2)
	}
	w := csv.NewWriter(os.Stdout)
	w.Write([]string{"run_id", "dataset", "method", "seed", "noisy_frac", "noisy_weight_share"})
	for _, id := range flag.Args() {
		row, err := share(*dir, id)
		if err != nil {
			fmt.Fprintf(os.Stderr, "noiseshare: %s: %v\n", id, err)
			os.Exit(1)
		}
		w.Write(row)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		fmt.Fprintln(os.Stderr, "noiseshare:", err)
		os.Exit(1)
	}
}

func share(dir, id string) ([]string, error) {
	r, err := runs.Open(dir, id)
	if err != nil {
		return nil, err
	}
	_, u, err := loaders.ReadNPYFile(filepath.Join(r.Dir, "u.npy"))
	if err != nil {
		return nil, fmt.Errorf("its weights: %w (only a finished search or LfF run has them)", err)
	}
	sp, err := runs.LoadContext(context.Background(), r.Config, io.Discard)
	if err != nil {
		return nil, err
	}
	tr := sp.Train
	if tr.CleanY == nil {
		return nil, fmt.Errorf("dataset %s records no label noise", sp.Name)
	}
	if len(u) != tr.N {
		return nil, fmt.Errorf("u.npy has %d weights for %d training samples", len(u), tr.N)
	}
	var noisy, total, onNoisy float64
	for i, v := range u {
		total += float64(v)
		if tr.Y[i] != tr.CleanY[i] {
			noisy++
			onNoisy += float64(v)
		}
	}
	if !(total > 0) {
		return nil, fmt.Errorf("every weight is zero")
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
	return []string{id, sp.Name, r.Config.Method, strconv.FormatUint(r.Config.Settings.Seed, 10), f(noisy / float64(tr.N)), f(onNoisy / total)}, nil
}
