package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

// TestGroupByWarnsMixedDatasets: maple table --group-by whose group
// pools runs of several datasets warns, naming them and the grouping
// that keeps them apart (it pooled them into one mean without a word).
func TestGroupByWarnsMixedDatasets(t *testing.T) {
	runsDir := t.TempDir()
	for i, ds := range []string{"synthetic", "cmnist", "synthetic"} {
		cfg := runs.DefaultConfig(ds)
		cfg.Settings.Seed = uint64(1 + i/2)
		cfg.Started = time.Date(2026, 11, 22, 8, 0, i, 0, time.UTC)
		r, err := runs.Open(runsDir).Create(cfg)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(runs.Summary{Done: true, Status: core.StatusDone, Result: &train.Result{TestAcc: 0.7, TestWorst: 0.5, ValWorst: 0.6}})
		os.WriteFile(r.Path(runs.SummaryFile), b, 0o600)
		r.Close()
	}
	for _, tc := range []struct {
		name    string
		groupBy []string
		warn    string // "" for none
	}{
		{"method,seed", []string{"method", "seed"}, "seed=1 pools runs of 2 datasets (cmnist, synthetic)"},
		{"method", []string{"method"}, "--group-by method,dataset"},
		{"method,seed,dataset", []string{"method", "seed", "dataset"}, ""},
		{"seed,dataset", []string{"dataset", "seed"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			f := &Factory{Out: &out, Err: &errb, RunsDir: runsDir, Terminal: func() bool { return false }}
			if err := tableRun(&TableOptions{F: f, GroupBy: tc.groupBy, Format: "text"}); err != nil {
				t.Fatal(err)
			}
			got := errb.String()
			if tc.warn == "" && strings.Contains(got, "datasets") {
				t.Errorf("warned: %s", got)
			}
			if tc.warn != "" && !strings.Contains(got, tc.warn) {
				t.Errorf("stderr lacks %q:\n%s", tc.warn, got)
			}
		})
	}
}
