package export

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

// TestMetricsCSVScreensRecords: a record beyond the run's iterations,
// out of sequence, or on an over-long line (a bogus record appended to
// metrics.jsonl: iteration 99 on a 20 MB line) is left out of
// metrics-csv with a warning naming its line and why (it was exported
// without a word).
func TestMetricsCSVScreensRecords(t *testing.T) {
	rec := func(it int, pad int) string {
		b, _ := json.Marshal(core.Snapshot{Iter: it, Total: 5, ValWorst: 0.5, Status: core.StatusRunning})
		if pad > 0 {
			return strings.TrimSuffix(string(b), "}") + `,"note":"` + strings.Repeat("x", pad) + `"}`
		}
		return string(b)
	}
	for _, tc := range []struct {
		name  string
		lines []string
		rows  int      // records exported
		warn  []string // in the warning
	}{
		{"whole", []string{rec(1, 0), rec(2, 0), rec(3, 0)}, 3, nil},
		{"iteration 99 on a 20 MB line", []string{rec(1, 0), rec(2, 0), rec(99, 20<<20)}, 2, []string{"line 3", "iteration 99", "20.0 MB", "left out"}},
		{"beyond the run's iterations", []string{rec(1, 0), rec(6, 0)}, 1, []string{"line 2", "iteration 6", "5 iterations"}},
		{"out of sequence", []string{rec(1, 0), rec(2, 0), rec(3, 0), rec(2, 0)}, 3, []string{"line 4", "iteration 2", "after iteration 3"}},
		{"an over-long line in sequence", []string{rec(1, 0), rec(2, 2<<20)}, 1, []string{"line 2", "2.0 MB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := runs.DefaultConfig("synthetic")
			cfg.Settings.OuterIters = 5
			r, err := runs.Open(t.TempDir()).Create(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			os.WriteFile(r.Path(runs.MetricsFile), []byte(strings.Join(tc.lines, "\n")+"\n"), 0o600)
			var warns []string
			path, err := MetricsCSV(r.Dir, t.TempDir(), func(m string) { warns = append(warns, m) })
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			if n := strings.Count(string(b), "\n") - 1; n != tc.rows {
				t.Errorf("%d records exported, want %d", n, tc.rows)
			}
			all := strings.Join(warns, "\n")
			if len(tc.warn) == 0 && all != "" {
				t.Errorf("warned %q", all)
			}
			for _, w := range tc.warn {
				if !strings.Contains(all, w) {
					t.Errorf("warning %q lacks %q", all, w)
				}
			}
			if len(all) > 2000 {
				t.Errorf("a warning of %d bytes", len(all))
			}
		})
	}
}
