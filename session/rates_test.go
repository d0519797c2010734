package session

import (
	"context"
	"testing"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

// recordSetLR records a rate change at the end of iteration iter in r's
// events.jsonl, as the engine records one.
func recordSetLR(t *testing.T, r *runs.Run, iter int, lr core.LearningRates) {
	t.Helper()
	fr, err := runs.OpenRecorder(r, nil, iter)
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	if err := fr.Event(core.Event{Kind: core.EventSetLR, Iter: iter, LR: &lr}); err != nil {
		t.Fatal(err)
	}
}

// TestResumeKeepsRecordedRates: a rate change is checkpointed before it
// is recorded, so a search killed after the change and before its next
// checkpoint has a checkpoint with the rates before it. Resumed, it goes
// on with the rates on record, those maple show and the dashboard name
// (it went on with the checkpoint's, dropping the change).
func TestResumeKeepsRecordedRates(t *testing.T) {
	runsDir := t.TempDir()
	cfg := runs.DefaultConfig("synthetic")
	cfg.Settings.Model, cfg.Settings.OuterIters, cfg.Settings.InnerSteps, cfg.Eval.Steps, cfg.CheckpointEvery = "linear", 4, 5, 10, 1
	r, err := runs.Open(runsDir).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := Execute(context.Background(), r, nil, Options{StopAt: 2}); err != nil || sum.Status != core.StatusStopped {
		t.Fatalf("first part: %+v %v", sum, err)
	}
	changed := cfg.Settings.Rates()
	changed.Inner /= 2
	recordSetLR(t, r, 2, changed)
	r.Close()
	if got := runs.RatesNow(r.Dir, &r.Config); got.LearningRates != changed {
		t.Fatalf("rates in force %+v, want %+v", got.LearningRates, changed)
	}
	r2, rates, _, err := Reopen(runs.Open(runsDir), r.Config.ID, runs.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if rates != nil {
		t.Errorf("nothing given, yet rates %+v to set", *rates)
	}
	if sum, err := Execute(context.Background(), r2, nil, Options{StopAt: 3}); err != nil || sum.Status != core.StatusStopped {
		t.Fatalf("resume: %+v %v", sum, err)
	}
	snaps, _ := runs.ReadMetrics(r2.Dir)
	if n := len(snaps); n != 3 || snaps[2].LR != changed {
		t.Fatalf("iteration 3 after the resume ran with %+v, want %+v (%d records)", snaps[n-1].LR, changed, n)
	}
}
