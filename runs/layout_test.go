package runs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFind resolves run ids as people type them: whole, by a unique
// prefix or suffix, or "latest"; an ambiguous or unknown one is an error
// that names the absolute runs directory.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"20261123-140715-01", "20261123-140715-02", "20261124-090000-01"} {
		os.MkdirAll(filepath.Join(dir, id), 0o700)
		os.WriteFile(filepath.Join(dir, id, ConfigFile), []byte("{}"), 0o600)
	}
	os.MkdirAll(filepath.Join(dir, ".sweeps"), 0o700)
	os.MkdirAll(filepath.Join(dir, "20261125-000000-01"), 0o700) // no run.json, no lock: not a run
	for _, tc := range []struct{ name, id, want, err string }{
		{"whole id", "20261123-140715-02", "20261123-140715-02", ""},
		{"unique suffix", "090000-01", "20261124-090000-01", ""},
		{"unique prefix", "20261124", "20261124-090000-01", ""},
		{"latest", "latest", "20261124-090000-01", ""},
		{"ambiguous prefix", "20261123", "", `run id "20261123" is ambiguous in ` + dir + `: it matches 20261123-140715-01, 20261123-140715-02`},
		{"unknown", "nosuch", "", `no run "nosuch" in ` + dir},
		{"not a run", "20261125-000000-01", "", "no run"},
		{"a dot directory", ".sweeps", "", "no run"},
		{"empty", "", "", "no run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Find(dir, tc.id)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("Find(%q) = %q, %v; want an error containing %q", tc.id, got, err, tc.err)
				}
				return
			}
			if err != nil || got != filepath.Join(dir, tc.want) {
				t.Errorf("Find(%q) = %q, %v; want %s", tc.id, got, err, tc.want)
			}
		})
	}
}
