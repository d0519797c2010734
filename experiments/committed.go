package experiments

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
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
	// Lenders are the committed rows (and their iterations) of every
	// experiment made with the same build and thread count, this one's
	// other sweeps included (ReadLenders): a cell that has no row of its
	// own takes the row of a run with its configuration hash and seed
	// from there instead of being trained again (the same computation,
	// bit for bit on that build and thread count). Empty: none lends.
	Lenders          []Run
	LenderIterations []Iteration
}

// ReadLenders fills c's Lenders with the committed rows of every
// experiment file under docs/experiments whose build and thread count
// are exp's (exp's own included), in the files' order.
func (c *Committed) ReadLenders(docs string, exp *File) error {
	files, err := List(filepath.Join(docs, "experiments"))
	if err != nil {
		return err
	}
	if len(exp.Env) > 0 {
		return nil // its rows are made in an environment of their own
	}
	for _, f := range files {
		if f.Build != exp.Build || f.Threads != exp.Threads || len(f.Env) > 0 {
			continue
		}
		o, err := ReadCommitted(ResultsDir(docs, f.Name))
		if err != nil {
			return err
		}
		c.Lenders = append(c.Lenders, o.Rows...)
		c.LenderIterations = append(c.LenderIterations, o.Iterations...)
	}
	return nil
}

// Dirty tells whether the row was made by a binary built from a
// checkout with uncommitted changes (a commit ending "-dirty"): nobody
// can build that binary again, so the row stands for no cell.
func (r Run) Dirty() bool { return dirtyCommit(r.Commit) }

// lender returns the first lender row of a configuration and seed; a
// row of a -dirty build lends nothing.
func (c *Committed) lender(configHash string, seed uint64) (Run, bool) {
	for _, r := range c.Lenders {
		if r.ConfigHash == configHash && r.Seed == seed && !r.Dirty() {
			return r, true
		}
	}
	return Run{}, false
}

// Lends tells whether a lender row is the configuration and seed.
func (c *Committed) Lends(configHash string, seed uint64) bool {
	_, ok := c.lender(configHash, seed)
	return ok
}

// MergeStats counts what Merge took from where.
type MergeStats struct {
	Kept     int // the experiment's own committed rows kept
	Borrowed int // rows taken from another sweep's or experiment's run of the cell's configuration and seed
	Stale    int // cells left out: no cell of the file as it stands
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
// hash, seed); a row of a -dirty build is not.
func (c *Committed) Has(sweep, configHash string, seed uint64) bool {
	k := CellKey(sweep, configHash, seed)
	for _, r := range c.Rows {
		if r.key() == k && !r.Dirty() {
			return true
		}
	}
	return false
}

// Stands tells whether a committed row stands for the cell, so that
// maple reproduce need not train it: its own row, or a lender's of its
// configuration and seed. A row of a -dirty build stands for none: its
// cell is trained again, as a missing one is.
func (c *Committed) Stands(sweep, configHash string, seed uint64) bool {
	return c.Has(sweep, configHash, seed) || c.Lends(configHash, seed)
}

// Dirty counts the experiment's own committed rows made by a -dirty
// build.
func (c *Committed) Dirty() int {
	n := 0
	for _, r := range c.Rows {
		if r.Dirty() {
			n++
		}
	}
	return n
}

// Merge returns fresh (the rows of finished runs in the runs directory)
// with the committed rows whose cell fresh lacks, in Collect's order, and
// the iterations of both: a cell finished here replaces its committed
// row; a committed cell not run here keeps its row, its commit and its
// iterations (a row of a -dirty build only while no lender stands for
// it); a cell with neither takes a lender's row of its
// configuration and seed (its run id and commit, the experiment's and
// cell's names). cells are the keys (CellKey) of the experiment's cells as
// its file and the current build define them: a row of another cell (a
// configuration the file no longer gives, or whose defaults changed) is
// left out, fresh or committed.
func (c *Committed) Merge(exp *File, cells map[string]bool, fresh []Run, freshIts []Iteration) (rows []Run, its []Iteration, st MergeStats) {
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
		if r.Dirty() && c.Lends(r.ConfigHash, r.Seed) {
			continue // stands for no cell: the clean lender takes its place below
		}
		have[r.key()] = true
		rows = append(rows, r)
		keptIDs[r.RunID] = true
		st.Kept++
	}
	// Iterations in rows' order, each run's in its own order, keyed by
	// sweep and run: a borrowed run's are its lender's, renamed.
	byRun := map[string][]Iteration{}
	runKey := func(sweep, id string) string { return sweep + " " + id }
	for _, it := range freshIts {
		byRun[runKey(it.Sweep, it.RunID)] = append(byRun[runKey(it.Sweep, it.RunID)], it)
	}
	for _, it := range c.Iterations {
		if keptIDs[it.RunID] {
			byRun[runKey(it.Sweep, it.RunID)] = append(byRun[runKey(it.Sweep, it.RunID)], it)
		}
	}
	keys := make([]string, 0, len(cells))
	for k := range cells {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if have[k] {
			continue
		}
		sweep, hash, seed, ok := parseCellKey(k)
		if !ok {
			continue
		}
		l, ok := c.lender(hash, seed)
		if !ok {
			continue
		}
		b := l
		b.Experiment, b.Sweep = exp.Name, sweep
		have[k] = true
		rows = append(rows, b)
		st.Borrowed++
		for _, it := range c.LenderIterations {
			if it.RunID == l.RunID && it.Sweep == l.Sweep && it.Experiment == l.Experiment {
				it.Experiment, it.Sweep = exp.Name, sweep
				byRun[runKey(sweep, l.RunID)] = append(byRun[runKey(sweep, l.RunID)], it)
			}
		}
	}
	sortRows(exp, rows)
	st.Stale = len(left)
	for _, r := range rows {
		its = append(its, byRun[runKey(r.Sweep, r.RunID)]...)
	}
	return rows, its, st
}

// DescribeCells sets each row's settings to described's text of its cell
// (CellKey: Differences of the cell's configuration as the current build
// resolves it). A settings text names what differs from the defaults of
// the build that wrote it; a committed or borrowed row of a cell is the
// cell's computation (its configuration hash is the cell's), so where a
// default changed since, its text is rewritten to say what the run
// computed in today's terms (a search's former shared evaluation spelt
// out once the MAPLE code's became the default).
func DescribeCells(rows []Run, described map[string]string) {
	for i, r := range rows {
		if s, ok := described[r.key()]; ok {
			rows[i].Settings = s
		}
	}
}

// parseCellKey splits a CellKey.
func parseCellKey(k string) (sweep, hash string, seed uint64, ok bool) {
	f := strings.Fields(k)
	if len(f) != 4 || f[2] != "seed" {
		return "", "", 0, false
	}
	n, err := strconv.ParseUint(f[3], 10, 64)
	if err != nil {
		return "", "", 0, false
	}
	return f[0], f[1], n, true
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
		// Columns a row may leave empty: no such groups, or recorded
		// after the row was committed.
		for _, c := range []struct {
			col   string
			field **float64
		}{{"conflict_weight_pct", &it.ConflictWeight}, {"keep_grad_norm", &it.KeepGrad}, {"keep_high_pct", &it.KeepHigh}} {
			if m[c.col] != "" {
				v := num(c.col)
				*c.field = &v
			}
		}
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}
