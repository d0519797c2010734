package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maple-ood/maple/sweeps"
)

// TestFailedSlurmSubmissionRecordsNothing: a sweep whose sbatch fails
// leaves no record (it left one with every cell "waiting", which
// --status and table reported as a sweep); one that sbatch takes is
// recorded. The sbatch is a fake on the PATH.
func TestFailedSlurmSubmissionRecordsNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sbatch string // the fake's script
		code   int
		record bool
	}{
		{"sbatch fails", "#!/bin/sh\necho 'sbatch: error: invalid partition specified: nope' >&2\nexit 1\n", ExitFailed, false},
		{"sbatch takes it", "#!/bin/sh\necho '4242;cluster'\n", ExitOK, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := t.TempDir()
			if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte(tc.sbatch), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			dir := t.TempDir()
			var out bytes.Buffer
			f := &Factory{In: strings.NewReader(""), Out: &out, Err: &out, RunsDir: dir, Terminal: func() bool { return false }}
			root := NewCmdRoot(f)
			root.SetArgs([]string{"sweep", "--name", "s", "--datasets", "synthetic", "--methods", "erm,upweight", "--seeds", "1,2", "--slurm", "--runs-dir", dir})
			if code := ExitCode(f, root.Execute()); code != tc.code {
				t.Errorf("exit %d, want %d: %s", code, tc.code, out.String())
			}
			rec, err := sweeps.ReadSweep(dir, "s")
			if tc.record && (err != nil || len(rec.Cells) != 4) {
				t.Errorf("after a submission: record %+v, %v", rec, err)
			}
			if !tc.record && err == nil {
				t.Errorf("a failed submission left a record of %d cells", len(rec.Cells))
			}
		})
	}
}
