package report

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

// TestGroupBy pools runs by a setting whatever their other settings, and
// names what each group pools over.
func TestGroupBy(t *testing.T) {
	dir := t.TempDir()
	add := func(i int, keep float64, lr float64, seed uint64, acc float64) {
		cfg := runs.DefaultConfig("synthetic")
		cfg.Settings.Keep, cfg.Settings.Keep0, cfg.Settings.InnerLR, cfg.Settings.Seed = keep, keep, lr, seed
		cfg.Started = time.Date(2026, 11, 22, 8, 0, i, 0, time.UTC)
		r, err := runs.Open(dir).Create(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		b, _ := json.Marshal(runs.Summary{Done: true, Status: core.StatusDone, Result: &train.Result{TestAcc: acc, TestWorst: acc / 2, ValWorst: acc}})
		if err := os.WriteFile(r.Path(runs.SummaryFile), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	add(0, 0.3, 0.1, 1, 0.70)
	add(1, 0.3, 0.2, 2, 0.74) // another inner lr: pooled, and named
	add(2, 1, 0.1, 1, 0.60)
	rows, err := GroupBy(dir, []string{"keep"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Values[0] != "0.3" || rows[0].N != 2 || rows[1].N != 1 {
		t.Fatalf("rows %+v, want keep 0.3 (2 runs) and keep 1 (1 run)", rows)
	}
	if math.Abs(rows[0].TestAcc.Mean-72) > 1e-9 || math.Abs(rows[0].TestAcc.SD-2.8284271247) > 1e-6 || !rows[1].TestAcc.Single {
		t.Fatalf("keep 0.3: %+v; keep 1: %+v", rows[0].TestAcc, rows[1].TestAcc)
	}
	if strings.Join(rows[0].Varies, ",") != "inner-lr,seed" || len(rows[1].Varies) != 0 {
		t.Fatalf("pooled over %v and %v, want inner-lr,seed and nothing", rows[0].Varies, rows[1].Varies)
	}
	var b strings.Builder
	if err := WriteGroups(&b, []string{"keep"}, rows, "markdown"); err != nil || !strings.Contains(b.String(), "| 0.3 | 2 | 72.0 ± 2.8 | 36.0 ± 1.4 | 72.0 ± 2.8 | inner-lr, seed |") {
		t.Fatalf("markdown %v:\n%s", err, b.String())
	}
	if _, err := GroupBy(dir, []string{"kep"}); err == nil || !strings.Contains(err.Error(), "--group-by kep: not a setting") {
		t.Fatalf("a misspelt setting: %v", err)
	}
}
