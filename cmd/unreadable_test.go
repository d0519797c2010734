package cmd

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maple-ood/maple/runs"
)

// TestAnotherUsersRun: a run whose directory the user cannot read
// (another user's) is said to be one, not "no run", by every command
// that opens a run; exit 1, not 2 (the id was right). Run as root, which
// reads every directory, the refusal is made by the stat seam.
func TestAnotherUsersRun(t *testing.T) {
	runsDir := t.TempDir()
	id := "20260101-120000-01"
	dir := runs.Open(runsDir).RunDir(id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		t.Log("running as root, which reads every directory: the run's files are refused by the stat seam")
		old := statPath
		statPath = func(p string) (fs.FileInfo, error) {
			if strings.HasPrefix(p, dir+string(os.PathSeparator)) {
				return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrPermission}
			}
			return old(p)
		}
		defer func() { statPath = old }()
	} else {
		if err := os.WriteFile(filepath.Join(dir, runs.ConfigFile), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(dir, 0o700)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		id   string
		run  func(f *Factory, id string) error
	}{
		{"show", id, func(f *Factory, id string) error { return showRun(&ShowOptions{F: f, ID: id}) }},
		{"show by a suffix", "120000-01", func(f *Factory, id string) error { return showRun(&ShowOptions{F: f, ID: id}) }},
		{"logs", id, func(f *Factory, id string) error { return logsRun(ctx, &LogsOptions{F: f, ID: id}) }},
		{"attach", id, func(f *Factory, id string) error { return attachRun(ctx, f, id, true) }},
		{"stop", id, func(f *Factory, id string) error { return stopRun(ctx, &StopOptions{F: f, Name: id}) }},
		{"export", id, func(f *Factory, id string) error { return exportRun(&ExportOptions{F: f, ID: id, Format: "csv"}) }},
		{"resume", id, func(f *Factory, id string) error {
			return resumeRun(ctx, &ResumeOptions{F: f, ID: id, Headless: true})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			f := &Factory{In: strings.NewReader(""), Out: &out, Err: &out, RunsDir: runsDir, Terminal: func() bool { return false }}
			err := tc.run(f, tc.id)
			if err == nil {
				t.Fatalf("no error; output %q", out.String())
			}
			if msg := err.Error(); !strings.Contains(msg, "permission denied") || !strings.Contains(msg, id) || strings.Contains(msg, "no run") {
				t.Errorf("error %q: want the run named and permission denied", msg)
			}
			var u usageError
			if errors.As(err, &u) {
				t.Errorf("a usage error (exit 2): %v", err)
			}
		})
	}
}

// TestUnreadableClassified: only a permission error makes a run
// unreadable; a missing run stays "no run".
func TestUnreadableClassified(t *testing.T) {
	runsDir := t.TempDir()
	os.MkdirAll(runs.Open(runsDir).RunDir("20260101-120000-01"), 0o700)
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"permission", fs.ErrPermission, true},
		{"not there", fs.ErrNotExist, false},
		{"other", errors.New("input/output error"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stat := func(p string) (fs.FileInfo, error) { return nil, &fs.PathError{Op: "stat", Path: p, Err: tc.err} }
			got := unreadableRun(runsDir, "120000-01", stat) != nil
			if got != tc.want {
				t.Errorf("unreadable %v, want %v", got, tc.want)
			}
		})
	}
}
