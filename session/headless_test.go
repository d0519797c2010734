package session

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

func headlessConfig() runs.Config {
	set := core.DefaultSettings()
	set.Model = "linear"
	ev := train.DefaultEval()
	ev.Model = "linear"
	return runs.Config{ID: "20261122-000000-01", Dataset: loaders.DefaultSpec("synthetic"), Method: "maple", Settings: set, Eval: ev, CheckpointEvery: 5}
}

// TestHeadlessWritesLog: a run in the foreground without the dashboard
// (a baseline, --headless) writes its progress lines to log.txt as well
// as to the terminal, so that maple logs -f, maple show and the browser
// follow it from another terminal (they found no log.txt); a detached
// search, whose standard error is its log already, writes each line once.
func TestHeadlessWritesLog(t *testing.T) {
	for _, tc := range []struct {
		name     string
		method   string
		detached bool
	}{
		{name: "search on a terminal", method: "maple"},
		{name: "baseline on a terminal", method: "erm"},
		{name: "detached search", method: "maple", detached: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := headlessConfig()
			cfg.Method = tc.method
			cfg.Settings.OuterIters, cfg.Settings.InnerSteps = 3, 5
			cfg.Eval.Steps, cfg.Eval.EvalEvery = 20, 10
			r, err := runs.Open(t.TempDir()).Create(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var term strings.Builder
			var errOut io.Writer = &term
			if tc.detached {
				f, err := r.OpenLog()
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				errOut = f
			}
			if _, err := Headless(context.Background(), r, nil, Options{}, errOut); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(r.Path(runs.LogFile))
			if err != nil {
				t.Fatal(err)
			}
			log := string(b)
			if n := strings.Count(log, "run "+r.Config.ID+" in "); n != 1 || !strings.Contains(log, runs.ProgressPrefix+"20/20") {
				t.Errorf("log.txt (%d headers):\n%s", n, log)
			}
			if !tc.detached && term.String() != log {
				t.Errorf("the terminal and log.txt differ:\n%s\n--- log.txt:\n%s", term.String(), log)
			}
			if p := runs.LastProgress(r.Dir); !strings.HasPrefix(p, runs.ProgressPrefix+"20/20") {
				t.Errorf("last progress %q", p)
			}
		})
	}
}

// TestSearchReweighting: a search's summary records what its weights did
// (the mask's dropped set per group, the weight moved off uniform), and a
// search whose mask kept every sample and whose weights hardly moved
// (--keep 1 --keep0 1 at a weight rate of 1e-9; w frozen as well is
// refused before the run) says in its log and summary that it changed
// nothing that matters: its final training was ERM's, or nearly. Before,
// nothing said so.
func TestSearchReweighting(t *testing.T) {
	for _, tc := range []struct {
		name       string
		keep       float64
		degenerate bool
	}{
		{"the mask keeps every sample, w hardly moves", 1, true},
		{"the mask keeps 0.3", 0.3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := headlessConfig()
			cfg.Settings.OuterIters, cfg.Settings.InnerSteps = 2, 3
			cfg.Settings.Keep, cfg.Settings.Keep0, cfg.Settings.WeightLR = tc.keep, tc.keep, 1e-9
			cfg.Eval.Steps, cfg.Eval.EvalEvery = 10, 5
			r, err := runs.Open(t.TempDir()).Create(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			sum, err := Headless(context.Background(), r, nil, Options{}, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			rw := sum.Result.Reweighting
			if rw == nil || rw.Set == nil {
				t.Fatalf("no reweighting recorded: %+v", rw)
			}
			if (rw.Degenerate != "") != tc.degenerate {
				t.Errorf("degenerate %q, want degenerate %v: %s", rw.Degenerate, tc.degenerate, rw)
			}
			dropped := 0
			for _, g := range rw.Groups {
				dropped += g.InSet
			}
			if dropped != rw.Set.Size || (tc.keep < 1) != (dropped > 0) {
				t.Errorf("dropped %d in the groups, %d in all, at keep %g", dropped, rw.Set.Size, tc.keep)
			}
			b, _ := os.ReadFile(r.Path(runs.LogFile))
			if said := strings.Contains(string(b), "reweighting: the weights w of iterate ") && strings.Contains(string(b), "\nchanged "); said != tc.degenerate {
				t.Errorf("log.txt says it changed nothing: %v, want %v:\n%s", said, tc.degenerate, b)
			}
		})
	}
}
