package export

import (
	"context"
	"strings"
	"testing"

	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

// TestEvalBaselineWeights: maple eval trains another model on the
// per-sample weights a baseline ended with (lff's u.npy), exactly as
// weighted ERM on those weights does; a baseline without weights is
// refused, naming the one that has some.
func TestEvalBaselineWeights(t *testing.T) {
	cfg := runs.DefaultConfig("synthetic")
	cfg.Method, cfg.Eval.Steps = "lff", 20
	sp, err := cfg.Dataset.Load(cfg.Settings.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := runs.Open(t.TempDir()).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	u := make([]float64, sp.Train.N)
	for i := range u {
		u[i] = 0.1 + float64(i%7)/3
	}
	if err := WriteSampleWeights(r.Dir, &r.Config, &train.Result{SampleWeights: u}, sp.Train); err != nil {
		t.Fatal(err)
	}
	_, got, _, err := Eval(context.Background(), r.Dir, "mlp:8", 0, Overrides{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	es := cfg.Eval
	es.Model = "mlp:8"
	want, err := train.WeightedERM(context.Background(), sp, u, es, "lff")
	if err != nil {
		t.Fatal(err)
	}
	if got.TestAcc != want.TestAcc || got.ValWorst != want.ValWorst || got.SelectedStep != want.SelectedStep || got.Method != "lff" {
		t.Errorf("eval on lff's weights: %+v, want weighted ERM's %+v", got, want)
	}
	cfg.Method = "mrm"
	m, err := runs.Open(t.TempDir()).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, _, _, err := Eval(context.Background(), m.Dir, "mlp:8", 0, Overrides{}, nil); err == nil || !strings.Contains(err.Error(), "(mrm) has no per-sample weights") {
		t.Errorf("eval of mrm: %v", err)
	}
}
