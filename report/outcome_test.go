package report

import (
	"context"
	"strings"
	"testing"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

// TestOutcomeNamesItsERM: the summary's ERM reference on the synthetic
// dataset is trained with the run's own evaluation settings, which a
// baseline's published recipe sets (lff: Adam lr 1e-3; sparseirm: Adam
// 6e-4 with L2, 1500 steps), so it differs between methods on the same
// data and seed; the line says which ERM it is. It read "(erm: 0.3363,
// ...)" for every method alike.
func TestOutcomeNamesItsERM(t *testing.T) {
	for _, tc := range []struct {
		name, method string
		want         string
	}{
		{"lff's recipe", "lff", "erm trained as this run's evaluation (adam lr 0.001, 40 steps"},
		{"a search's evaluation", "maple", "erm trained as this run's evaluation (sgd lr 1, 40 steps"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := runs.DefaultConfig("synthetic")
			cfg.Method = tc.method
			cfg, err := config.Resolve(cfg, map[string]bool{"eval-steps": true}, cfg.Eval.Model)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Eval.Steps = 40
			sp, err := cfg.Dataset.Load(cfg.Settings.Seed, nil)
			if err != nil {
				t.Fatal(err)
			}
			method := tc.method
			if method == "maple" {
				method = "erm" // a stand-in result: only its coefficients matter here
			}
			res, err := baselines.Train(context.Background(), sp, method, cfg.Eval)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			WriteOutcome(&b, NewOutcome(context.Background(), cfg, &runs.Summary{Done: true, Status: core.StatusDone, Result: res}))
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("outcome:\n%s\nwant %q", b.String(), tc.want)
			}
		})
	}
}
