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
	r, err := runs.Open(dir).Create(cfg)
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

// TestPerRunFormat: --per-run alone writes csv (it was refused: the
// default format is text); --per-run with a table format is refused,
// naming the format.
func TestPerRunFormat(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"per-run alone", []string{"--per-run"}, "csv"},
		{"per-run as csv", []string{"--per-run", "--format", "csv"}, "csv"},
		{"a table", nil, "text"},
		{"per-run as markdown is passed on to be refused", []string{"--per-run", "--format", "markdown"}, "markdown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			c := NewCmdTable(&Factory{}, func(o *TableOptions) error { got = o.Format; return nil })
			c.SetArgs(tc.args)
			if err := c.Execute(); err != nil || got != tc.want {
				t.Errorf("format %q (err %v), want %q", got, err, tc.want)
			}
		})
	}
	var out, errOut bytes.Buffer
	f := &Factory{Out: &out, Err: &errOut, RunsDir: t.TempDir(), Terminal: func() bool { return false }}
	if err := tableRun(&TableOptions{F: f, PerRun: true, Format: "markdown"}); err == nil || !strings.Contains(err.Error(), "--format markdown: --per-run writes csv or --json") {
		t.Errorf("per-run as markdown: %v", err)
	}
}
