package session

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/runs"
)

// TestBackendRecorded: run.json records the matrix backend and its
// thread count, leaving the config's hash as it was; resuming a run that
// started on another backend or thread count warns (in the log and as a
// warning event), since its results then differ from an uninterrupted
// run's in the last bits. Nothing recorded either before.
func TestBackendRecorded(t *testing.T) {
	runsDir := t.TempDir()
	cfg := runs.DefaultConfig("synthetic")
	cfg.Settings.OuterIters, cfg.Settings.InnerSteps, cfg.Eval.Steps, cfg.CheckpointEvery = 4, 5, 10, 2
	hash := cfg.Hash(false)
	r, err := runs.Open(runsDir).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Config.Hash(false) != hash {
		t.Errorf("the recorded build changed the config's hash")
	}
	b, _ := os.ReadFile(r.Path(runs.ConfigFile))
	var raw map[string]any
	json.Unmarshal(b, &raw)
	build, _ := raw["build"].(map[string]any)
	if build["matrix_products"] != nets.BLAS() || build["threads"] == nil {
		t.Fatalf("run.json's build is %v; want the backend %q and its threads", raw["build"], nets.BLAS())
	}
	// Stop it after its first checkpoint, as if on another machine.
	ctx, cancel := context.WithCancel(context.Background())
	sum, err := Execute(ctx, r, nil, Options{Ready: func(c Control) { c.Stop() }})
	cancel()
	r.Close()
	if err != nil || sum.Status != core.StatusStopped {
		t.Fatalf("first part: %+v %v", sum, err)
	}
	build["matrix_products"], build["threads"] = "OtherBLAS (elsewhere)", 64.0
	b, _ = json.Marshal(raw)
	os.WriteFile(r.Path(runs.ConfigFile), b, runs.FilePerm)
	r2, _, _, err := Reopen(runs.Open(runsDir), r.Config.ID, runs.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	os.Remove(r2.Path(runs.SummaryFile))
	var log strings.Builder
	if sum, err := Execute(context.Background(), r2, nil, Options{Log: &log}); err != nil || sum.Status != core.StatusDone {
		t.Fatalf("resume: %+v %v", sum, err)
	}
	if !strings.Contains(log.String(), "OtherBLAS (elsewhere), 64 threads") || !strings.Contains(log.String(), nets.BLAS()) {
		t.Errorf("no warning of the other backend in the log:\n%s", log.String())
	}
	ev, _ := os.ReadFile(r2.Path(runs.EventsFile))
	if !strings.Contains(string(ev), "OtherBLAS") {
		t.Errorf("no warning event:\n%s", ev)
	}
}
