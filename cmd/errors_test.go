package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorsInWords: refusals are said in words with the right exit
// code: a missing sweep is a usage error (exit 2; it was 1), and an
// export into a directory that cannot be made names it without Go's
// text ("mkdir ...: not a directory").
func TestErrorsInWords(t *testing.T) {
	runsDir := t.TempDir()
	dir := damagedMetricsRun(t, runsDir)
	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, nil, 0o600)
	for _, tc := range []struct {
		name     string
		run      func(f *Factory) error
		code     int
		want     string
		notWants []string
	}{
		{"table of a missing sweep", func(f *Factory) error {
			return tableRun(&TableOptions{F: f, Sweeps: []string{"nosuch"}, Format: "text"})
		},
			ExitUsage, `no sweep "nosuch"`, nil},
		{"export into a path below a file", func(f *Factory) error {
			return exportRun(&ExportOptions{F: f, ID: filepath.Base(dir), Format: "metrics-csv", Out: filepath.Join(file, "out")})
		}, ExitFailed, "cannot write " + filepath.Join(file, "out") + ": not a directory", []string{"mkdir"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			f := &Factory{Out: &out, Err: &errOut, RunsDir: runsDir, Terminal: func() bool { return false }}
			code := ExitCode(f, tc.run(f))
			msg := errOut.String()
			if code != tc.code || !strings.Contains(msg, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, msg, tc.code, tc.want)
			}
			for _, no := range tc.notWants {
				if strings.Contains(msg, no) {
					t.Errorf("stderr %q has %q", msg, no)
				}
			}
		})
	}
}
