// Command noiseshare tells where a run's exported training weights
// (u.npy: a maple search's, or LfF's) go with respect to the dataset's
// label noise and its spurious attribute: the fraction of the training
// samples whose label the construction flipped, and the fraction of the
// total weight they carry (a method that learns the noise puts far more
// than their share on them); and the same for the samples whose
// spurious attribute disagrees with their label (the bias-conflicting
// ones, which LfF sets out to upweight). The noise columns are empty
// for a dataset without label noise. One CSV row per run:
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

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/dataset"
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
	w.Write([]string{"run_id", "dataset", "method", "seed", "noisy_frac", "noisy_weight_share", "conflict_frac", "conflict_weight_share"})
	for _, id := range flag.Args() {
		row, err := rowFor(*dir, id)
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

// rowFor is the CSV row of run id in dir.
func rowFor(dir, id string) ([]string, error) {
	r, err := runs.Open(dir).Open(id)
	if err != nil {
		return nil, err
	}
	_, u, err := loaders.ReadNPYFile(filepath.Join(r.Dir, "u.npy"))
	if err != nil {
		return nil, fmt.Errorf("its weights: %w (only a finished search or LfF run has them)", err)
	}
	sp, err := config.LoadContext(context.Background(), r.Config, io.Discard)
	if err != nil {
		return nil, err
	}
	s, err := shares(u, sp.Train)
	if err != nil {
		return nil, err
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
	noisyFrac, noisyShare := "", "" // a dataset without label noise
	if s.noise {
		noisyFrac, noisyShare = f(s.noisyFrac), f(s.noisyShare)
	}
	return []string{id, sp.Name, r.Config.Method, strconv.FormatUint(r.Config.Settings.Seed, 10),
		noisyFrac, noisyShare, f(s.conflictFrac), f(s.conflictShare)}, nil
}

// share is where the weights go: the fractions of the training samples
// with a flipped label (where the dataset has label noise: noise) and
// with an attribute that disagrees with their (observed) label, and the
// fractions of the total weight on each.
type share struct {
	noise                                              bool
	noisyFrac, noisyShare, conflictFrac, conflictShare float64
}

// shares computes them for the weights u of tr's samples.
func shares(u []float32, tr *dataset.Dataset) (share, error) {
	if len(u) != tr.N {
		return share{}, fmt.Errorf("u.npy has %d weights for %d training samples", len(u), tr.N)
	}
	var s share
	var total float64
	for i, v := range u {
		total += float64(v)
		if tr.CleanY != nil && tr.Y[i] != tr.CleanY[i] {
			s.noisyFrac++
			s.noisyShare += float64(v)
		}
		if tr.Attr[i] != tr.Y[i] {
			s.conflictFrac++
			s.conflictShare += float64(v)
		}
	}
	if !(total > 0) {
		return share{}, fmt.Errorf("every weight is zero")
	}
	n := float64(tr.N)
	return share{tr.CleanY != nil, s.noisyFrac / n, s.noisyShare / total, s.conflictFrac / n, s.conflictShare / total}, nil
}
