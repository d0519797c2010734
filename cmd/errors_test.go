package cmd

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestErrorsInWords: refusals are said in words with the right exit
// code: a missing sweep is a usage error (exit 2; it was 1), and an
// export into a directory that cannot be made names it without Go's
// text ("mkdir ...: not a directory"). A write to a standard stream
// whose reader has gone ends quietly (`maple ls | head -1` printed
// "write /dev/stdout: broken pipe" and exited 1 about one time in three).
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
		{"stdout's reader gone (maple ls | head -1)", func(f *Factory) error {
			return fmt.Errorf("listing: %w", &fs.PathError{Op: "write", Path: os.Stdout.Name(), Err: syscall.EPIPE})
		}, ExitOK, "", []string{"broken pipe"}},
		{"a socket's reader gone is an error", func(f *Factory) error {
			return &fs.PathError{Op: "write", Path: "/runs/x/sock", Err: syscall.EPIPE}
		}, ExitFailed, "broken pipe", nil},
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
