package sweeps

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

// takeSearchSweep runs a one-cell maple sweep named name in dir with the
// final training's learning rate lr, and returns the cell's run.
func takeSearchSweep(t *testing.T, dir, name string, lr float64, again bool) (CellResult, string) {
	t.Helper()
	g, err := ParseGrid("synthetic", "maple:rex", "1", "", "")
	if err != nil {
		t.Fatal(err)
	}
	base := runs.DefaultConfig("synthetic")
	base.Settings.OuterIters, base.Settings.InnerSteps = 6, 10
	base.Eval.Steps, base.Eval.LR = 30, lr
	set := map[string]bool{"outer-iters": true, "inner-steps": true, "eval-steps": true, "eval-lr": true}
	cells, err := g.Cells(base, set, "")
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	res, err := (&Sweep{Name: name, Dir: dir, Cells: cells, Log: &log, SearchAgain: again}).Run(context.Background())
	if err != nil || len(res) != 1 || res[0].Status != core.StatusDone {
		t.Fatalf("sweep %s: %v %+v\n%s", name, err, res, log.String())
	}
	return res[0], log.String()
}

// TestSweepTakesFinishedSearch: a search cell whose search settings a
// finished run shares takes that run's search and trains only its final
// model, with the figures and exports of a cell that searched again, bit
// for bit; a run whose learning rates were changed lends nothing, and
// --search-again searches.
func TestSweepTakesFinishedSearch(t *testing.T) {
	dir, fresh := t.TempDir(), t.TempDir()
	first, _ := takeSearchSweep(t, dir, "first", 0.1, false)
	took, log := takeSearchSweep(t, dir, "second", 0.05, false)
	if !strings.Contains(log, "takes the search of run "+first.RunID) {
		t.Fatalf("the second sweep did not take the first's search:\n%s", log)
	}
	searched, _ := takeSearchSweep(t, fresh, "second", 0.05, false)
	cfg, err := runs.ReadConfig(runs.Open(dir).RunDir(took.RunID))
	if err != nil || cfg.SearchFrom != first.RunID {
		t.Fatalf("run.json's search_from %q (%v), want %s", cfg.SearchFrom, err, first.RunID)
	}
	a, _ := runs.ReadSummary(runs.Open(dir).RunDir(took.RunID))
	b, _ := runs.ReadSummary(runs.Open(fresh).RunDir(searched.RunID))
	if a.SelectedIter != b.SelectedIter || a.Iter != b.Iter || a.Result.TestAcc != b.Result.TestAcc ||
		a.Result.TestWorst != b.Result.TestWorst || a.Result.ValWorst != b.Result.ValWorst || a.Result.SelectedStep != b.Result.SelectedStep {
		t.Fatalf("taken search: iter %d/%d selected %d, result %+v\nsearched again: iter %d/%d selected %d, result %+v",
			a.Iter, a.Total, a.SelectedIter, *a.Result, b.Iter, b.Total, b.SelectedIter, *b.Result)
	}
	for _, f := range []string{runs.WeightsNPY, runs.KeepNPY} {
		x, err1 := os.ReadFile(filepath.Join(runs.Open(dir).RunDir(took.RunID), f))
		y, err2 := os.ReadFile(filepath.Join(runs.Open(fresh).RunDir(searched.RunID), f))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !bytes.Equal(x, y) {
			t.Fatalf("%s differs between the taken search and the one searched again", f)
		}
	}
	// A steered run lends nothing: its search is not the one its
	// settings describe.
	other := t.TempDir()
	steered, _ := takeSearchSweep(t, other, "first", 0.1, false)
	ev := filepath.Join(runs.Open(other).RunDir(steered.RunID), runs.EventsFile)
	f, err := os.OpenFile(ev, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"kind":"set_lr","iter":2}` + "\n")
	f.Close()
	if _, log := takeSearchSweep(t, other, "second", 0.05, false); strings.Contains(log, "takes the search") {
		t.Fatalf("a cell took the search of a steered run:\n%s", log)
	}
	// Nor does a run resumed on another backend: its search is not the
	// one this build computes.
	moved := t.TempDir()
	resumed, _ := takeSearchSweep(t, moved, "first", 0.1, false)
	cfg, err = runs.ReadConfig(runs.Open(moved).RunDir(resumed.RunID))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Build = &runs.Build{MatrixProducts: "another backend", Threads: 1, GOMAXPROCS: 1}
	warning, _ := json.Marshal(core.Event{Kind: core.EventWarning, Iter: 3, Error: runs.BuildChange(*cfg)})
	f, err = os.OpenFile(filepath.Join(runs.Open(moved).RunDir(resumed.RunID), runs.EventsFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(append(warning, '\n'))
	f.Close()
	if _, log := takeSearchSweep(t, moved, "second", 0.05, false); strings.Contains(log, "takes the search") {
		t.Fatalf("a cell took the search of a run resumed on another backend:\n%s", log)
	}
	// A search that cannot be taken (its records gone) leaves nothing
	// behind: the cell searches instead.
	gone := t.TempDir()
	lender, _ := takeSearchSweep(t, gone, "first", 0.1, false)
	if err := os.Remove(filepath.Join(runs.Open(gone).RunDir(lender.RunID), runs.MetricsFile)); err != nil {
		t.Fatal(err)
	}
	if res, log := takeSearchSweep(t, gone, "second", 0.05, false); !strings.Contains(log, "it searches instead") {
		t.Fatalf("a search whose records are gone: %+v\n%s", res, log)
	} else if cfg, err := runs.ReadConfig(runs.Open(gone).RunDir(res.RunID)); err != nil || cfg.SearchFrom != "" {
		t.Fatalf("the cell that searched records search_from %q (%v)", cfg.SearchFrom, err)
	}
	if infos, _ := runs.Open(gone).List(); len(infos) != 2 {
		t.Fatalf("%d runs after a failed take, want 2 (the lender and the cell)", len(infos))
	}
	// --search-again searches even where a run lends its search.
	if _, log := takeSearchSweep(t, dir, "third", 0.02, true); strings.Contains(log, "takes the search") {
		t.Fatalf("--search-again took a search:\n%s", log)
	}
}
