package sweeps

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/maple-ood/maple/runs"
)

// halvingSweep is a random search of 4 maple trials by successive
// halving (rungs at iterations 2 and 4 of 8) in dir.
func halvingSweep(t *testing.T, dir string, log io.Writer) *Sweep {
	t.Helper()
	g, err := ParseGrid("synthetic", "maple:rex", "1", "", "")
	if err != nil {
		t.Fatal(err)
	}
	g.Search = Search{Trials: 4, Seed: 1}
	base := runs.DefaultConfig("synthetic")
	base.Settings.OuterIters, base.Settings.InnerSteps, base.Eval.Steps = 8, 20, 50
	cells, err := g.Cells(base, map[string]bool{"outer-iters": true, "inner-steps": true, "eval-steps": true}, "")
	if err != nil {
		t.Fatal(err)
	}
	return &Sweep{Name: "halving", Dir: dir, Cells: cells, Log: log, EarlyStop: true}
}

// sweepOutcome is, per cell, what a sweep left of it: its tags, how its
// summary ends, and its recorded iterations with their validation
// figures.
func sweepOutcome(t *testing.T, dir string) map[string]string {
	t.Helper()
	infos, err := runs.Open(dir).List()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, in := range infos {
		d := runs.Open(dir).RunDir(in.ID)
		cfg, err := runs.ReadConfig(d)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "tags %v", cfg.Tags)
		if sum, _ := runs.ReadSummary(d); sum != nil {
			fmt.Fprintf(&b, "; %s at %d of %d", sum.Status, sum.Iter, sum.Total)
			if sum.Result != nil {
				fmt.Fprintf(&b, ", test worst-group %v", sum.Result.TestWorst)
			}
		} else {
			b.WriteString("; no summary")
		}
		snaps, _ := runs.ReadMetrics(d)
		for _, sn := range snaps {
			fmt.Fprintf(&b, "; %d: %v", sn.Iter, sn.ValWorst)
		}
		out[cfg.Cell] = b.String()
	}
	return out
}

// copyTree copies the regular files and directories under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o700)
		case !d.Type().IsRegular():
			return nil // sockets
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestHalvingKillPoints: a sweep by successive halving killed at any
// point between its steps, and rerun, ends as the uninterrupted sweep
// does: each cell stopped at the same iteration with the same records.
// The states a kill leaves are taken from the uninterrupted sweep: after
// a cell reached its rung (its summary written, the halving not decided
// yet), the same without the summary (killed between the checkpoint at
// the rung and the summary), the same with the checkpoint before it
// (killed between the rung's record and its checkpoint), and after each
// early-stop tag.
func TestHalvingKillPoints(t *testing.T) {
	whole := t.TempDir()
	type state struct{ name, dir string }
	var states []state
	s := halvingSweep(t, whole, io.Discard)
	diskStep = func(what, runID string) {
		base := filepath.Join(t.TempDir(), "runs")
		copyTree(t, whole, base)
		states = append(states, state{what, base})
		if runID == "" {
			return
		}
		noSum := filepath.Join(t.TempDir(), "runs")
		copyTree(t, base, noSum)
		os.Remove(filepath.Join(runs.Open(noSum).RunDir(runID), runs.SummaryFile))
		states = append(states, state{what + ", before its summary", noSum})
		noCkpt := filepath.Join(t.TempDir(), "runs")
		copyTree(t, noSum, noCkpt)
		d := runs.Open(noCkpt).RunDir(runID)
		if err := os.Rename(filepath.Join(d, runs.PrevCheckpoint), filepath.Join(d, runs.CheckpointFile)); err != nil {
			os.Remove(filepath.Join(d, runs.CheckpointFile))
		}
		states = append(states, state{what + ", before its checkpoint there", noCkpt})
	}
	defer func() { diskStep = nil }()
	if _, err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	diskStep = nil
	want := sweepOutcome(t, whole)
	if len(want) != 4 || len(states) < 10 {
		t.Fatalf("%d cells, %d kill states", len(want), len(states))
	}
	for _, st := range states {
		t.Run(st.name, func(t *testing.T) {
			var log strings.Builder
			if _, err := halvingSweep(t, st.dir, &log).Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			got := sweepOutcome(t, st.dir)
			var keys []string
			for k := range want {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if got[k] != want[k] {
					t.Errorf("%s:\n got %s\nwant %s", LabelText(k), got[k], want[k])
				}
			}
			if t.Failed() {
				t.Logf("rerun's log:\n%s", log.String())
			}
		})
	}
}
