package cmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/maple-ood/maple/runs"
)

// TestTableWithoutFinishedRuns: a table of a sweep none of whose runs has
// finished (a stopped sweep's, printed when it stops) says so on stderr
// instead of printing an empty table under its caption; csv keeps its
// header for scripts.
func TestTableWithoutFinishedRuns(t *testing.T) {
	dir := t.TempDir()
	cfg := runs.DefaultConfig("synthetic")
	cfg.Sweep = "s"
	r, err := runs.Create(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // interrupted: no summary
	for _, tc := range []struct {
		name, format string
		sweeps       []string
		out, err     string
	}{
		{name: "text", format: "text", sweeps: []string{"s"}, err: "no finished runs in sweep s yet (see maple sweep --name s --status)"},
		{name: "markdown, every run", format: "markdown", err: "no finished runs in " + dir + " yet"},
		{name: "csv", format: "csv", sweeps: []string{"s"}, out: "dataset,train_size,"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			f := &Factory{Out: &out, Err: &errOut, RunsDir: dir, Terminal: func() bool { return false }}
			if err := tableRun(&TableOptions{F: f, Sweeps: tc.sweeps, Format: tc.format}); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(out.String(), tc.out) || (tc.out == "" && out.Len() > 0) || !strings.Contains(errOut.String(), tc.err) {
				t.Errorf("stdout %q, stderr %q; want %q, %q", out.String(), errOut.String(), tc.out, tc.err)
			}
		})
	}
}
