package sweeps

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

// TestClaims: a cell's claim is exclusive while held, per sweep and
// hash, and free again once released.
func TestClaims(t *testing.T) {
	s := &Sweep{Name: "a", Dir: t.TempDir()}
	if err := os.MkdirAll(s.claimDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	f, ok, err := s.claim("0123456789abcdef")
	if err != nil || !ok {
		t.Fatalf("first claim: %v %v", ok, err)
	}
	if _, ok, _ := s.claim("0123456789abcdef"); ok {
		t.Fatal("a held claim was taken twice")
	}
	other := &Sweep{Name: "a-b", Dir: s.Dir}
	if g, ok, _ := other.claim("0123456789abcdef"); !ok {
		t.Fatal("another sweep's cell of the same hash was refused")
	} else {
		g.Close()
	}
	f.Close()
	if g, ok, _ := s.claim("0123456789abcdef"); !ok {
		t.Fatal("a released claim could not be taken again")
	} else {
		g.Close()
	}
}

// TestSweepRunsEachCellOnce: two jobs at a time run every cell of a
// grid; a rerun finds them done and starts nothing.
func TestSweepRunsEachCellOnce(t *testing.T) {
	g, err := ParseGrid("synthetic", "erm,upweight", "1,2", "", "")
	if err != nil {
		t.Fatal(err)
	}
	base := runs.DefaultConfig("synthetic")
	base.Eval.Steps = 40
	cells, err := g.Cells(base, map[string]bool{"eval-steps": true}, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var log strings.Builder
	s := &Sweep{Name: "once", Dir: dir, Cells: cells, Jobs: 2, Log: &log} // Run serialises its log lines
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Status != core.StatusDone || r.RunID == "" {
			t.Fatalf("cell %s: %+v", r.Cell.Label, r)
		}
	}
	again, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range again {
		if r.Note != "done already" || r.RunID != res[i].RunID {
			t.Fatalf("rerun of %s: %+v", r.Cell.Label, r)
		}
	}
	if infos, _ := runs.Open(dir).List(); len(infos) != 4 {
		t.Fatalf("%d runs, want 4", len(infos))
	}
}

// TestRecordSupersedes: a sweep rerun with another configuration under
// the same name (a changed flag, or a default that changed between
// builds) records its cells in place of the ones with the same labels,
// so that its table does not report the old ones as missing; a rerun of
// another seed adds its cells beside the first seed's.
func TestRecordSupersedes(t *testing.T) {
	dir := t.TempDir()
	record := func(seeds string, steps int) {
		t.Helper()
		g, err := ParseGrid("synthetic", "erm,upweight", seeds, "", "")
		if err != nil {
			t.Fatal(err)
		}
		base := runs.DefaultConfig("synthetic")
		base.Eval.Steps = steps
		cells, err := g.Cells(base, map[string]bool{"eval-steps": true}, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := (&Sweep{Name: "s", Dir: dir, Cells: cells}).Record(); err != nil {
			t.Fatal(err)
		}
	}
	record("1", 40)
	record("2", 40)
	// A record written before cells were superseded holds seed 1's
	// cells twice, with 40 and 45 eval steps.
	rec, err := ReadSweep(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range slices.Clone(rec.Cells) {
		if strings.HasSuffix(c.Label, "|1") {
			c.Config.Eval.Steps = 45
			c.Hash = c.Config.Hash(false)
			rec.Cells = append(rec.Cells, c)
		}
	}
	if err := runs.WriteJSONAtomic(filepath.Join(runs.Open(dir).SweepsDir(), "s.json"), rec); err != nil {
		t.Fatal(err)
	}
	record("1", 50) // seed 1's cells again, with another configuration
	if rec, err = ReadSweep(dir, "s"); err != nil {
		t.Fatal(err)
	}
	steps := map[string]int{}
	for _, c := range rec.Cells {
		if _, dup := steps[c.Label]; dup {
			t.Errorf("cell %s recorded twice", LabelText(c.Label))
		}
		steps[c.Label] = c.Config.Eval.Steps
	}
	if len(rec.Cells) != 4 {
		t.Errorf("%d cells recorded, want 4 (2 methods x 2 seeds)", len(rec.Cells))
	}
	for label, n := range steps {
		want := 50
		if strings.HasSuffix(label, "|2") {
			want = 40
		}
		if n != want {
			t.Errorf("cell %s recorded with %d eval steps, want %d", LabelText(label), n, want)
		}
	}
}

// TestStopHoldsBackQueuedTasks: a sweep stopped after a Slurm array was
// submitted starts no cell in a task the queue starts later (it took
// itself for a rerun and resumed the stopped cells); a sweep process
// started after the stop, a rerun, goes on.
func TestStopHoldsBackQueuedTasks(t *testing.T) {
	g, err := ParseGrid("synthetic", "erm", "1", "", "")
	if err != nil {
		t.Fatal(err)
	}
	base := runs.DefaultConfig("synthetic")
	base.Eval.Steps = 20
	cells, err := g.Cells(base, map[string]bool{"eval-steps": true}, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	submitted := time.Now().Add(-time.Minute)
	if err := AskSweepStop(dir, "q"); err != nil {
		t.Fatal(err)
	}
	task := &Sweep{Name: "q", Dir: dir, Cells: cells, Since: submitted}
	res, _ := task.Run(context.Background())
	if len(res) != 1 || res[0].Status != core.StatusUnknown || !strings.Contains(res[0].Note, "stopped") {
		t.Fatalf("a task submitted before the stop: %+v", res)
	}
	time.Sleep(20 * time.Millisecond) // the rerun starts after the stop file's time
	rerun := &Sweep{Name: "q", Dir: dir, Cells: cells}
	res, err = rerun.Run(context.Background())
	if err != nil || len(res) != 1 || res[0].Status != core.StatusDone {
		t.Fatalf("a rerun after the stop: %+v %v", res, err)
	}
}

// TestFindCellSkipsHidden: a cell's run is found among the runs of the
// directory, never in a hidden one: a run being created (.new-*, whose
// run.json is written before it is renamed into place), being removed
// (.removing-*) or archived (maple stop of a sweep found a cell running
// in .new-*, then no socket there).
func TestFindCellSkipsHidden(t *testing.T) {
	dir := t.TempDir()
	cfg := runs.DefaultConfig("synthetic")
	cfg.Sweep = "sw"
	hash := cfg.Hash(false)
	for _, hidden := range []string{".new-123", ".removing-20261122-000000-01"} {
		if err := os.MkdirAll(filepath.Join(dir, hidden), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := runs.WriteJSONAtomic(filepath.Join(dir, hidden, runs.ConfigFile), cfg); err != nil {
			t.Fatal(err)
		}
	}
	if id, err := FindCell(dir, "sw", hash); err != nil || id != "" {
		t.Errorf("FindCell = %q, %v; want no run", id, err)
	}
	r, err := runs.Open(dir).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if id, err := FindCell(dir, "sw", hash); err != nil || id != r.Config.ID {
		t.Errorf("FindCell = %q, %v; want %s", id, err, r.Config.ID)
	}
}
