package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/export"
	"github.com/maple-ood/maple/runs"
)

// damagedMetricsRun makes a finished search whose metrics.jsonl has one
// damaged line (line 3 of 5) and returns its directory.
func damagedMetricsRun(t *testing.T, runsDir string) string {
	t.Helper()
	cfg := runs.DefaultConfig("synthetic")
	r, err := runs.Open(runsDir).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var lines []string
	for i := 1; i <= 5; i++ {
		s := core.Snapshot{Iter: i, Total: 5, OuterRisk: 1 / float64(i), ValWorst: 0.5, TestWorst: 0.4, Status: core.StatusRunning,
			GroupNames: []string{"a", "b"}, GroupFrac: []float64{0.6, 0.4}, Hist: [][]int{{3, 1}, {0, 2}}, HistEdges: []float64{0, 1, 2}}
		b, _ := json.Marshal(s)
		lines = append(lines, string(b))
	}
	lines[2] = lines[2][:len(lines[2])/2] // cut mid-line
	os.WriteFile(r.Path(runs.MetricsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	if err := r.WriteSummary(&runs.Summary{Done: true, Status: core.StatusDone, Iter: 5, Total: 5, Finished: time.Now(), BestValWorst: 0.5}); err != nil {
		t.Fatal(err)
	}
	return r.Dir
}

// TestDamagedMetricsLine: a finished run with one damaged metrics.jsonl
// line is plotted and exported (metrics-csv, tensorboard) from the other
// lines, with a warning that names the line; they exited 1 and wrote
// nothing while the message said the line was "skipped".
func TestDamagedMetricsLine(t *testing.T) {
	runsDir := t.TempDir()
	dir := damagedMetricsRun(t, runsDir)
	id := filepath.Base(dir)
	for _, tc := range []struct {
		name  string
		run   func(f *Factory, out string) error
		files int // at least
	}{
		{"plot", func(f *Factory, out string) error { return plotRun(&PlotOptions{F: f, Name: id, Out: out}) }, 2},
		{"export metrics-csv", func(f *Factory, out string) error {
			return exportRun(&ExportOptions{F: f, ID: id, Format: "metrics-csv", Out: out})
		}, 1},
		{"export tensorboard", func(f *Factory, out string) error {
			return exportRun(&ExportOptions{F: f, ID: id, Format: "tensorboard", Out: out})
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			f := &Factory{Out: &stdout, Err: &stderr, RunsDir: runsDir, Terminal: func() bool { return false }}
			out := t.TempDir()
			if err := tc.run(f, out); err != nil {
				t.Fatalf("%v (stderr %q)", err, stderr.String())
			}
			files := strings.Fields(stdout.String())
			if len(files) < tc.files {
				t.Errorf("files written: %q", stdout.String())
			}
			if !strings.Contains(stderr.String(), "line 3") || !strings.Contains(stderr.String(), "skipped") {
				t.Errorf("stderr %q does not say line 3 was skipped", stderr.String())
			}
		})
	}
	var stdout bytes.Buffer
	f := &Factory{Out: &stdout, Err: &bytes.Buffer{}, RunsDir: runsDir, Terminal: func() bool { return false }}
	out := t.TempDir()
	if err := exportRun(&ExportOptions{F: f, ID: id, Format: "metrics-csv", Out: out}); err == nil {
		b, _ := os.ReadFile(filepath.Join(out, export.MetricsFile))
		if n := strings.Count(string(b), "\n"); n != 5 { // the header and 4 records
			t.Errorf("metrics.csv has %d lines, want 5:\n%s", n, b)
		}
	}
}

// TestShowNamesDamagedMetrics: maple show names a damaged metrics line,
// as maple ls marks the run "(damaged file)" (show said nothing of it).
func TestShowNamesDamagedMetrics(t *testing.T) {
	runsDir := t.TempDir()
	dir := damagedMetricsRun(t, runsDir)
	var out bytes.Buffer
	f := &Factory{Out: &out, Err: &out, RunsDir: runsDir, Terminal: func() bool { return false }}
	if err := showRun(&ShowOptions{F: f, ID: filepath.Base(dir)}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "problem:") || !strings.Contains(out.String(), "metrics.jsonl") {
		t.Errorf("maple show:\n%s", out.String())
	}
	out.Reset()
	if err := showRun(&ShowOptions{F: f, ID: filepath.Base(dir), JSON: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "problem:") {
		t.Errorf("maple show --json says nothing of the damaged line on stderr:\n%s", out.String())
	}
}
