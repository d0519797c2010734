package experiments

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
)

// CellKey names an experiment's cell as runs.csv's rows do: its sweep,
// its configuration hash (every setting that changes results but the
// seed) and its seed.
func CellKey(sweep, configHash string, seed uint64) string {
	return sweep + " " + configHash + " seed " + strconv.FormatUint(seed, 10)
}

func (r Run) key() string { return CellKey(r.Sweep, r.ConfigHash, r.Seed) }

// Committed is what an experiment's results directory holds already:
// runs.csv's rows and iterations.csv's, read back. Run directories are
// not kept on every machine; the committed rows are, so that a rerun of
// the experiment on another machine goes on where the committed files
// stand instead of training their cells again.
type Committed struct {
	Rows       []Run
	Iterations []Iteration
}

// ReadCommitted reads dir's runs.csv and iterations.csv (an empty
// Committed where dir has no runs.csv yet).
func ReadCommitted(dir string) (*Committed, error) {
	c := &Committed{}
	t, err := ReadCSV(filepath.Join(dir, RunsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	if c.Rows, err = RunsOf(t); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, RunsFile), err)
	}
	t, err = ReadCSV(filepath.Join(dir, IterationsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	if c.Iterations, err = IterationsOf(t); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, IterationsFile), err)
	}
	return c, nil
}

// Has tells whether a committed row is the cell (sweep, configuration
// hash, seed).
func (c *Committed) Has(sweep, configHash string, seed uint64) bool {
	k := CellKey(sweep, configHash, seed)
	for _, r := range c.Rows {
		if r.key() == k {
			return true
		}
	}
	return false
}

// Merge returns fresh (the rows of finished runs in the runs directory)
// with the committed rows whose cell fresh lacks, in Collect's order, and
// the iterations of both: a cell finished here replaces its committed
// row; a committed cell not run here keeps its row, its commit and its
// iterations. cells are the keys (CellKey) of the experiment's cells as
// its file and the current build define them: a row of another cell (a
// configuration the file no longer gives, or whose defaults changed) is
// left out, fresh or committed. kept counts the committed rows kept,
// stale the cells left out.
func (c *Committed) Merge(exp *File, cells map[string]bool, fresh []Run, freshIts []Iteration) (rows []Run, its []Iteration, kept, stale int) {
	have, left := map[string]bool{}, map[string]bool{}
	for _, r := range fresh {
		if !cells[r.key()] {
			left[r.key()] = true
			continue
		}
		have[r.key()] = true
		rows = append(rows, r)
	}
	keptIDs := map[string]bool{}
	for _, r := range c.Rows {
		if have[r.key()] {
			continue
		}
		if !cells[r.key()] {
			left[r.key()] = true
			continue
		}
		have[r.key()] = true
		rows = append(rows, r)
		keptIDs[r.RunID] = true
		kept++
	}
	sortRows(exp, rows)
	stale = len(left)
	// Iterations in rows' order, each run's in its own order.
	byRun := map[string][]Iteration{}
	for _, it := range freshIts {
		byRun[it.RunID] = append(byRun[it.RunID], it)
	}
	for _, it := range c.Iterations {
		if keptIDs[it.RunID] {
			byRun[it.RunID] = append(byRun[it.RunID], it)
		}
	}
	for _, r := range rows {
		its = append(its, byRun[r.RunID]...)
	}
	return rows, its, kept, stale
}

// IterationsOf reads the rows of an iterations.csv table back.
func IterationsOf(t *Table) ([]Iteration, error) {
	var out []Iteration
	for i, m := range t.Rows {
		var err error
		num := cellNumber(m, i, &err)
		it := Iteration{Experiment: m["experiment"], Sweep: m["sweep"], RunID: m["run_id"], ConfigHash: m["config_hash"], Dataset: m["dataset"],
			TrainSize: int(num("train_size")), Model: m["model"], Method: m["method"], Settings: m["settings"], Seed: uint64(num("seed")),
			Iter: int(num("iter")), OuterRisk: num("outer_risk"), SearchValWorst: num("search_val_worst"), KeepPct: num("keep_pct"),
			Selected: m["selected"] == "yes"}
		if m["conflict_weight_pct"] != "" {
			v := num("conflict_weight_pct")
			it.ConflictWeight = &v
		}
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}
