package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maple-ood/maple/runs"
)

// TestDamagedSweepRecord: a damaged .sweeps/NAME.json is named, called
// damaged, and given a next step by every command that reads it (they
// said "unexpected end of JSON input", or no sweep at all).
func TestDamagedSweepRecord(t *testing.T) {
	runsDir := t.TempDir()
	if err := os.MkdirAll(runs.Open(runsDir).SweepsDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(runs.Open(runsDir).SweepsDir(), "sw.json")
	if err := os.WriteFile(path, []byte(`{"name":"sw","cells":[{"hash":"ab`), 0o600); err != nil {
		t.Fatal(err)
	}
	sweepArgs := func(extra ...string) func(f *Factory) error {
		return func(f *Factory) error {
			c := NewCmdSweep(f, nil)
			c.SetArgs(append([]string{"--name", "sw", "--datasets", "synthetic", "--methods", "erm", "--seeds", "1", "--eval-steps", "20"}, extra...))
			c.SetOut(f.Out)
			c.SetErr(f.Err)
			return c.ExecuteContext(context.Background())
		}
	}
	for _, tc := range []struct {
		name string
		run  func(f *Factory) error
	}{
		{"sweep", sweepArgs()},
		{"sweep --status", sweepArgs("--status")},
		{"table", func(f *Factory) error { return tableRun(&TableOptions{F: f, Sweeps: []string{"sw"}, Format: "text"}) }},
		{"stop", func(f *Factory) error { return stopRun(context.Background(), &StopOptions{F: f, Name: "sw"}) }},
		{"attach", func(f *Factory) error { return attachRun(context.Background(), f, "sw", true) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			f := &Factory{In: strings.NewReader(""), Out: &out, Err: &out, RunsDir: runsDir, Terminal: func() bool { return false }}
			err := tc.run(f)
			msg := out.String()
			if err != nil {
				msg += "\nerror: " + err.Error()
			}
			for _, want := range []string{path, "damaged", "mv " + path} {
				if !strings.Contains(msg, want) {
					t.Errorf("lacks %q:\n%s", want, msg)
				}
			}
		})
	}
	if infos, _ := runs.Open(runsDir).List(); len(infos) != 0 {
		t.Errorf("%d runs made on a damaged record", len(infos))
	}
}
