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

// TestDamagedSummary: every command that reads a finished run's
// summary.json, given a damaged one, names the file, says it is damaged
// and says what writes it again (maple resume ID); the command said does
// (export said "run is interrupted, not done ... resume it first"
// without naming the file; plot named it without a next step).
func TestDamagedSummary(t *testing.T) {
	runsDir := t.TempDir()
	var errb bytes.Buffer
	f := &Factory{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &errb, RunsDir: runsDir, Terminal: func() bool { return false }}
	c := NewCmdSweep(f, nil)
	c.SetArgs([]string{"--name", "dmg", "--datasets", "synthetic", "--methods", "maple:rex", "--seeds", "1",
		"--outer-iters", "3", "--inner-steps", "10", "--eval-steps", "50"})
	c.SetOut(f.Out)
	c.SetErr(&errb)
	if err := c.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("sweep: %v\n%s", err, errb.String())
	}
	infos, err := runs.Open(runsDir).List()
	if err != nil || len(infos) != 1 {
		t.Fatalf("%d runs (%v)", len(infos), err)
	}
	id := infos[0].ID
	path := filepath.Join(runs.Open(runsDir).RunDir(id), runs.SummaryFile)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := runs.ReadSummary(runs.Open(runsDir).RunDir(id))
	if err := os.WriteFile(path, good[:len(good)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		run  func(f *Factory) error
	}{
		{"show", func(f *Factory) error { return showRun(&ShowOptions{F: f, ID: id}) }},
		{"plot", func(f *Factory) error { return plotRun(&PlotOptions{F: f, Name: id, Out: t.TempDir()}) }},
		{"export csv", func(f *Factory) error {
			return exportRun(&ExportOptions{F: f, ID: id, Format: "csv", Out: t.TempDir()})
		}},
		{"export training-csv", func(f *Factory) error {
			return exportRun(&ExportOptions{F: f, ID: id, Format: "training-csv", Out: t.TempDir()})
		}},
		{"export tensorboard", func(f *Factory) error {
			return exportRun(&ExportOptions{F: f, ID: id, Format: "tensorboard", Out: t.TempDir()})
		}},
		{"table", func(f *Factory) error { return tableRun(&TableOptions{F: f, Sweeps: []string{"dmg"}, Format: "text"}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			f := &Factory{In: strings.NewReader(""), Out: &out, Err: &out, RunsDir: runsDir, Terminal: func() bool { return false }}
			err := tc.run(f)
			msg := out.String()
			if err != nil {
				msg += "\nerror: " + err.Error()
			}
			for _, want := range []string{path, "damaged", "maple resume " + id} {
				if !strings.Contains(msg, want) {
					t.Errorf("lacks %q:\n%s", want, msg)
				}
			}
			if strings.Contains(msg, "interrupted") {
				t.Errorf("calls the finished run interrupted:\n%s", msg)
			}
		})
	}
	// What the messages say writes the file again.
	var out bytes.Buffer
	f.Out, f.Err = &out, &out
	if err := resumeRun(context.Background(), &ResumeOptions{F: f, ID: id, Headless: true}); err != nil {
		t.Fatalf("maple resume %s: %v\n%s", id, err, out.String())
	}
	after, err := runs.ReadSummary(runs.Open(runsDir).RunDir(id))
	if err != nil || after == nil || !after.Done || after.Result == nil {
		t.Fatalf("after maple resume: %+v, %v", after, err)
	}
	if after.Result.TestWorst != before.Result.TestWorst || after.Iter != before.Iter {
		t.Errorf("rebuilt summary: test worst-group %v at iteration %d, had %v at %d", after.Result.TestWorst, after.Iter, before.Result.TestWorst, before.Iter)
	}
}
