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
			got, err := Open(dir).Find(tc.id)
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

// TestNames: a run's --name finds it, names are checked, and Relabel
// edits name, tags and note in run.json without touching what the run
// computes.
func TestNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{{"baseline-rex", true}, {"", true}, {"latest", false}, {"two words", false}, {"a/b", false}, {"20261123-01", false}, {"r2", true}} {
		if err := CheckName(tc.name); (err == nil) != tc.ok {
			t.Errorf("CheckName(%q) = %v", tc.name, err)
		}
	}
	if err := CheckTags([]string{"paper", "a b"}); err == nil {
		t.Error("a tag with a space was taken")
	}
	dir := t.TempDir()
	r, err := Open(dir).Create(Config{Method: "maple", Name: "first", Tags: []string{"paper"}})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	hash := r.Config.Hash(false)
	if got, err := Open(dir).Find("first"); err != nil || got != r.Dir {
		t.Errorf("Find by name: %q %v", got, err)
	}
	name, note := "second", "a note"
	cfg, err := Relabel(r.Dir, &name, &note, []string{"rerun"}, []string{"paper"})
	if err != nil || cfg.Name != "second" || cfg.Note != "a note" || strings.Join(cfg.Tags, ",") != "rerun" || cfg.Hash(false) != hash {
		t.Errorf("Relabel: %+v %v", cfg, err)
	}
	if in := Stat(r.Dir); in.Name != "second" || in.TagsText() != "rerun" {
		t.Errorf("Stat after Relabel: %q %q", in.Name, in.TagsText())
	}
	if _, err := Open(dir).Find("first"); err == nil {
		t.Error("the old name still finds the run")
	}
}

// TestSweepNames: a sweep's files stay in the runs directory whatever
// name is given, and a new sweep's name is one a Slurm script and a file
// system take as it is.
func TestSweepNames(t *testing.T) {
	for _, tc := range []struct {
		name       string
		file, make bool
	}{
		{"cm-maple", true, true},
		{"abl-preset-eps1e-17", true, true},
		{"a.b_c-1", true, true},
		{"sp ace", true, false}, // an old record's name still reads
		{"../../victim", false, false},
		{"a/b", false, false},
		{".hidden", false, false},
		{"..", false, false},
		{"", false, false},
		{"-x", true, false},
		{"a..b", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Open("/runs").SweepFile(tc.name, ".json")
			if (err == nil) != tc.file {
				t.Errorf("SweepFile: %q, %v; want a file: %v", p, err, tc.file)
			}
			if err == nil && filepath.Dir(p) != Open("/runs").SweepsDir() {
				t.Errorf("SweepFile %q is not in %s", p, Open("/runs").SweepsDir())
			}
			if err := CheckSweepName(tc.name); (err == nil) != tc.make {
				t.Errorf("CheckSweepName: %v; want accepted: %v", err, tc.make)
			}
		})
	}
}
