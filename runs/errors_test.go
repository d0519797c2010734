package runs

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteErrorsInWords: a file maple cannot write (maple tag, maple
// export on a read-only runs directory, a full disk) is named with what
// went wrong in words, never the temporary file's name and Go's text
// (it read "open .../.run.json.tmp-197400879: permission denied").
func TestWriteErrorsInWords(t *testing.T) {
	for _, tc := range []struct {
		name  string
		errno syscall.Errno
		want  string
	}{
		{"permission", syscall.EACCES, "no permission to write in"},
		{"read-only file system", syscall.EROFS, "read-only file system"},
		{"full disk", syscall.ENOSPC, "the disk is full"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Open(t.TempDir()).Create(DefaultConfig("synthetic"))
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
			createTemp = func(dir, pattern string) (*os.File, error) {
				return nil, &fs.PathError{Op: "open", Path: filepath.Join(dir, strings.Replace(pattern, "*", "197400879", 1)), Err: tc.errno}
			}
			t.Cleanup(func() { createTemp = os.CreateTemp })
			add := "x"
			_, err = Relabel(r.Dir, nil, nil, []string{add}, nil)
			if err == nil {
				t.Fatal("Relabel wrote through a failing file system")
			}
			msg := err.Error()
			if !strings.Contains(msg, "cannot write "+filepath.Join(r.Dir, ConfigFile)) || !strings.Contains(msg, tc.want) || strings.Contains(msg, ".tmp-") || strings.Contains(msg, "open ") {
				t.Errorf("error %q; want it to name %s and say %q, without the temporary file", msg, ConfigFile, tc.want)
			}
		})
	}
}

// TestDamagedCheckpointsSayWhatToDo: when both checkpoints are damaged
// the error says how to go on (start again from iteration 1) and with
// which commands; it stopped at "no usable checkpoint: ... checksum
// mismatch".
func TestDamagedCheckpointsSayWhatToDo(t *testing.T) {
	runsDir := t.TempDir()
	r, err := Open(runsDir).Create(DefaultConfig("synthetic"))
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	for _, f := range []string{CheckpointFile, PrevCheckpoint} {
		os.WriteFile(r.Path(f), []byte("damaged"), FilePerm)
	}
	_, err = ReadCheckpoint(r.Dir, func(string) {})
	if err == nil {
		t.Fatal("damaged checkpoints accepted")
	}
	for _, want := range []string{"no usable checkpoint", "iteration 1", "mv " + r.Path(CheckpointFile), "maple resume " + r.Config.ID + " --runs-dir " + runsDir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%s", want, err)
		}
	}
}

// TestOpenRecordedSettings: a run.json recorded before the rates were
// bounded (setting.MaxRate), with a rate above the bound, opens; an
// impossible rate is still refused as damaged. A run recorded in bf16
// (on a cluster's node with native bf16 products, say) opens on any
// machine: its settings are not damaged, this CPU just cannot resume it.
// Before, the read refused it as "edited or damaged" wherever bf16 is
// unavailable, so that show, ls and export failed on the laptop the run
// was copied to.
func TestOpenRecordedSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		ok   bool
	}{
		{"a rate above the bound", func(c *Config) { c.Settings.InnerLR, c.Eval.LR = 50, 30 }, true},
		{"a negative rate", func(c *Config) { c.Settings.InnerLR, c.Eval.LR = -1, 30 }, false},
		{"bf16, on any machine", func(c *Config) { c.Settings.Precision = "bf16" }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runsDir := t.TempDir()
			r, err := Open(runsDir).Create(DefaultConfig("synthetic"))
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
			cfg := r.Config
			tc.edit(&cfg)
			if err := WriteJSONAtomic(r.Path(ConfigFile), cfg); err != nil {
				t.Fatal(err)
			}
			o, err := Open(runsDir).Open(cfg.ID)
			if (err == nil) != tc.ok {
				t.Fatalf("Open: %v, want it to open: %v", err, tc.ok)
			}
			if o == nil {
				return
			}
			defer o.Close()
			if o.Config.Settings != cfg.Settings {
				t.Errorf("settings read back %+v, want %+v", o.Config.Settings, cfg.Settings)
			}
		})
	}
}
