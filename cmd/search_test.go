package cmd

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/sweeps"
)

// TestRandomSearchEarlyStop runs a random search with successive halving
// on the synthetic data: of 4 maple trials, 2 stop at a quarter of the
// outer iterations and 1 at half, tagged early-stopped and resumable; the
// survivor and every erm trial finish; the table keeps the best trial per
// method, chosen on validation; a rerun repeats the decisions and runs
// nothing new.
func TestRandomSearchEarlyStop(t *testing.T) {
	dir := t.TempDir()
	sweep := func() (string, string) {
		out, errb := new(bytes.Buffer), new(bytes.Buffer)
		f := &Factory{In: strings.NewReader(""), Out: out, Err: errb, RunsDir: dir, Terminal: func() bool { return false }}
		c := NewCmdSweep(f, nil)
		c.SetArgs([]string{"--name", "rs", "--datasets", "synthetic", "--methods", "erm,maple:rex", "--seeds", "1",
			"--search", "random", "--trials", "4", "--early-stop", "--outer-iters", "8", "--inner-steps", "20", "--eval-steps", "50"})
		c.SetOut(out)
		c.SetErr(errb)
		if err := c.ExecuteContext(context.Background()); err != nil {
			t.Fatalf("sweep: %v\n%s", err, errb)
		}
		return out.String(), errb.String()
	}
	table, log := sweep()
	infos, err := runs.Open(dir).List()
	if err != nil {
		t.Fatal(err)
	}
	stoppedAt := map[int]int{} // iteration -> early-stopped maple runs
	var done, ids []string
	for _, in := range infos {
		ids = append(ids, in.ID)
		cfg, _ := runs.ReadConfig(runs.Open(dir).RunDir(in.ID))
		sum, _ := runs.ReadSummary(runs.Open(dir).RunDir(in.ID))
		if slices.Contains(cfg.Tags, sweeps.EarlyStoppedTag) {
			if cfg.Method != "maple" || sum == nil || sum.Done {
				t.Fatalf("run %s tagged early-stopped: method %s, summary %+v", in.ID, cfg.Method, sum)
			}
			stoppedAt[sum.Iter]++
			continue
		}
		if sum == nil || !sum.Done {
			t.Fatalf("run %s (%s) neither done nor early-stopped", in.ID, cfg.Cell)
		}
		done = append(done, cfg.MethodName())
	}
	slices.Sort(done)
	if len(infos) != 8 || stoppedAt[2] != 2 || stoppedAt[4] != 1 || !slices.Equal(done, []string{"erm", "erm", "erm", "erm", "maple/rex"}) {
		t.Fatalf("%d runs; early-stopped by iteration %v; done %v\n%s", len(infos), stoppedAt, done, log)
	}
	if !strings.Contains(log, "early-stopped at iteration 2") || !strings.Contains(log, "early-stopped at iteration 4") {
		t.Fatalf("the log does not say which trials stopped:\n%s", log)
	}
	for _, want := range []string{"erm (trial ", "the best on validation of 4 finished trials: eval-lr ", "maple/rex (trial ", "of 1 finished trials: weight-lr "} {
		if !strings.Contains(table, want) {
			t.Fatalf("table lacks %q:\n%s", want, table)
		}
	}
	// A rerun makes the same decisions and starts nothing.
	table2, log2 := sweep()
	again, _ := runs.Open(dir).List()
	if len(again) != len(infos) || strings.Contains(log2, "started") || table2 != table {
		t.Fatalf("rerun: %d runs (had %d); log:\n%s\ntable:\n%s", len(again), len(ids), log2, table2)
	}
}
