package sweeps

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
)

// Cell is one run of a sweep.
type Cell struct {
	Label  string // dataset|size|model|method|seed: the cell's key (LabelText: for people)
	Config runs.Config
}

// Sweep runs a grid of cells as normal runs under Dir, at most Jobs at a
// time. A cell is claimed with an exclusive lock on a file named by its
// config hash before anything is created, so that any number of sweep
// processes sharing Dir run each cell once: a finished cell is skipped,
// an interrupted one resumed, one held by another process left to it.
type Sweep struct {
	Name  string
	Dir   string // the runs dir
	Cells []Cell
	Jobs  int       // runs at a time; default 1
	Log   io.Writer // one line per cell event
	// EarlyStop runs a random search's searches by successive halving
	// (runHalving), one cell at a time.
	EarlyStop bool
	// SearchAgain makes every new search cell search, even where a
	// finished run in Dir searched alike (runs.Store.FindSearch). Default
	// false: such a cell takes that search (runs.Store.TakeSearch) and
	// trains only its final model, with the same figures bit for bit.
	SearchAgain bool
	// Since is when the sweep was asked for: a maple stop after it holds
	// this process back. Zero: the process's start. A Slurm task gets its
	// array's submission time, so that a task the queue starts after a
	// stop does not take itself for a rerun of the stopped sweep.
	Since time.Time
}

// StopKeeps says what stopping a sweep keeps of its running cells, which
// include searches (maple, checkpointed) and baselines (which keep no
// checkpoint and train again from the start when the sweep reruns).
func StopKeeps(searches, baselines bool) string {
	switch {
	case searches && baselines:
		return "its running searches are checkpointed, its running baselines train again from the start"
	case baselines:
		return "its running baselines train again from the start (a baseline keeps no checkpoint)"
	}
	return "its running cells are checkpointed"
}

// Kinds tells whether the grid has searches and whether it has baselines.
func (s *Sweep) Kinds() (searches, baselines bool) {
	for _, c := range s.Cells {
		if c.Config.Searches() {
			searches = true
		} else {
			baselines = true
		}
	}
	return searches, baselines
}

// CellResult is how one cell ended in this process.
type CellResult struct {
	Cell   Cell
	RunID  string
	Status core.Status // done, failed, stopped, interrupted; Unknown if skipped
	Note   string      // why it was skipped
	Err    error
}

// Run runs the cells that are not done. When ctx is cancelled the running
// cells are checkpointed (interrupted) and no new cell starts. It returns
// the cells' results and the errors of failed cells, joined.
func (s *Sweep) Run(ctx context.Context) ([]CellResult, error) {
	if err := os.MkdirAll(s.claimDir(), runs.DirPerm); err != nil {
		return nil, fmt.Errorf("cannot create the runs directory: %w", err)
	}
	var mu sync.Mutex
	logf := func(format string, a ...any) {
		if s.Log == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(s.Log, format+"\n", a...)
	}
	if s.EarlyStop {
		results := s.runHalving(ctx, logf)
		var errs []error
		for _, r := range results {
			if r.Err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", LabelText(r.Cell.Label), r.Err))
			}
		}
		return results, errors.Join(errs...)
	}
	results := make([]CellResult, len(s.Cells))
	sem := make(chan struct{}, max(1, s.Jobs))
	var wg sync.WaitGroup
	started := s.Since
	if started.IsZero() {
		started = time.Now()
	}
	stopped := func(i int, c Cell) bool {
		if !StopAsked(s.Dir, s.Name, started) {
			return false
		}
		results[i] = CellResult{Cell: c, Note: "not started: the sweep was stopped (maple stop); rerun it to go on"}
		logf("%-40s %s", LabelText(c.Label), results[i].Note)
		return true
	}
	for i, c := range s.Cells {
		if ctx.Err() != nil {
			results[i] = CellResult{Cell: c, Note: "not started: interrupted"}
			continue
		}
		if stopped(i, c) {
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			results[i] = CellResult{Cell: c, Note: "not started: interrupted"}
			continue
		}
		if stopped(i, c) {
			<-sem
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = s.runCell(ctx, c, logf, 0)
		}()
	}
	wg.Wait()
	var errs []error
	for _, r := range results {
		if r.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", LabelText(r.Cell.Label), r.Err))
		}
	}
	return results, errors.Join(errs...)
}

// store is the run store the sweep's runs are in (Dir).
func (s *Sweep) store() runs.Store { return runs.Open(s.Dir) }

func (s *Sweep) claimDir() string { return s.store().ClaimsDir() }

// claim takes the exclusive lock of a cell, or reports that another
// process holds it.
func (s *Sweep) claim(hash string) (*os.File, bool, error) {
	f, err := os.OpenFile(filepath.Join(s.claimDir(), s.Name+"-"+hash+".lock"), os.O_RDWR|os.O_CREATE, runs.FilePerm)
	if err != nil {
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, false, nil
	}
	return f, true, nil
}

// FindCell returns the run of sweep name whose config hash is hash, or
// "" when there is none.
func FindCell(runsDir, name, hash string) (string, error) {
	ents, err := os.ReadDir(runsDir)
	if err != nil && !os.IsNotExist(err) {
		return "", err
	}
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue // a run being created (.new-*) or removed, the archive, the claims
		}
		cfg, err := runs.ReadConfig(runs.Open(runsDir).RunDir(e.Name()))
		if err == nil && cfg.Sweep == name && cfg.Hash(false) == hash {
			return e.Name(), nil
		}
	}
	return "", nil
}

// runCell runs (or resumes) cell c to its end, or with rung > 0 until it
// has recorded outer iteration rung (successive halving); a cell already
// there, or done, is left as it is.
func (s *Sweep) runCell(ctx context.Context, c Cell, logf func(string, ...any), rung int) CellResult {
	res := CellResult{Cell: c}
	hash := c.Config.Hash(false)
	lock, ok, err := s.claim(hash)
	if err != nil {
		res.Err = err
		return res
	}
	if !ok {
		res.Note = "running in another process"
		logf("%-40s %s; skipped", LabelText(c.Label), res.Note)
		return res
	}
	defer lock.Close()
	id, err := FindCell(s.Dir, s.Name, hash)
	if err != nil {
		res.Err = err
		return res
	}
	var r *runs.Run
	var sp *dataset.Splits // loaded by config.Prepare for a new cell; by Execute for a resumed one
	if id != "" {
		sum, _ := runs.ReadSummary(s.store().RunDir(id))
		if sum != nil && sum.Done {
			res.RunID, res.Status, res.Note = id, core.StatusDone, "done already"
			logf("%-40s done already (%s)", LabelText(c.Label), id)
			return res
		}
		if rung > 0 && sum != nil && sum.Iter >= rung {
			res.RunID, res.Status, res.Note = id, sum.Status, fmt.Sprintf("at iteration %d already", sum.Iter)
			return res
		}
		if cfg, err := runs.ReadConfig(s.store().RunDir(id)); err == nil && slices.Contains(cfg.Tags, EarlyStoppedTag) {
			res.RunID, res.Status, res.Note = id, core.StatusStopped, "early-stopped"
			logf("%-40s early-stopped (%s); maple resume %s continues it", LabelText(c.Label), id, id)
			return res
		}
		if r, err = s.store().Open(id); err != nil {
			res.Err = err
			return res
		}
		os.Remove(r.Path(runs.SummaryFile)) // a stopped or failed run goes on
	} else {
		if sp, err = config.Prepare(c.Config, nil); err != nil {
			res.Err = err
			logf("%-40s failed: %v", LabelText(c.Label), err)
			return res
		}
		cfg := c.Config
		cfg.Sweep, cfg.Cell = s.Name, c.Label
		if !s.SearchAgain {
			if cfg.SearchFrom, err = s.store().FindSearch(cfg, runs.CurrentBuild()); err != nil {
				res.Err = err
				return res
			}
		}
		if r, err = s.store().Create(cfg); err != nil {
			res.Err = err
			return res
		}
		if from := cfg.SearchFrom; from != "" {
			if err := s.store().TakeSearch(r, from); err != nil {
				// Nothing of it is kept: the cell searches instead.
				r.Close()
				os.RemoveAll(r.Dir)
				logf("%-40s %v; it searches instead", LabelText(c.Label), err)
				cfg.SearchFrom = ""
				if r, err = s.store().Create(cfg); err != nil {
					res.Err = err
					return res
				}
			} else {
				logf("%-40s takes the search of run %s (the same search settings and build): it trains only its final model", LabelText(c.Label), from)
			}
		}
	}
	defer r.Close()
	res.RunID = r.Config.ID
	lf, err := os.OpenFile(r.Path(runs.LogFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, runs.FilePerm)
	if err != nil {
		res.Err = err
		return res
	}
	defer lf.Close()
	verb := "started"
	if id != "" {
		verb = "resumed"
	}
	logf("%-40s %s (%s)", LabelText(c.Label), verb, r.Config.ID)
	sum, err := session.Execute(ctx, r, sp, stopAt(session.Options{Log: lf, Lines: true, Socket: true}, rung))
	if sum != nil {
		res.Status = sum.Status
	}
	switch {
	case err != nil:
		res.Err = err
		res.Status = core.StatusFailed
		logf("%-40s failed (%s): %v", LabelText(c.Label), r.Config.ID, err)
		if sum != nil {
			logf("%-40s %s", "", strings.ReplaceAll(s.store().Continue(sum, r.Config), "\n", " "))
		}
	case sum.Status == core.StatusDone && sum.Result != nil:
		logf("%-40s done: test acc %.1f%%, test worst-group %.1f%% (selected on validation)", LabelText(c.Label), 100*sum.Result.TestAcc, 100*sum.Result.TestWorst)
	case rung > 0 && sum.Status == core.StatusStopped:
		logf("%-40s at iteration %d of %d, where successive halving compares its trials (%s)", LabelText(c.Label), sum.Iter, sum.Total, r.Config.ID)
	case !r.Config.Searches(): // no checkpoint, no iterations
		logf("%-40s %s before it finished (%s); rerun the sweep to train it again from the start", LabelText(c.Label), sum.Status, r.Config.ID)
	default:
		logf("%-40s %s at iteration %d (%s); rerun the sweep to resume it", LabelText(c.Label), sum.Status, sum.Iter, r.Config.ID)
	}
	return res
}
