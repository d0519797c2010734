package runs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestConfigFormats reads run.json files of every format (recorded
// fixtures in testdata/formats) into the current Config: maple 0.1's Go
// field names, a run.json before the format field, one with it, and one
// from a newer maple, which is refused. Migration leaves every hash as
// it was (the reference preset's are pinned in config's
// pinned-configs.golden; maple 0.1's was taken by the decoder before
// the format field).
func TestConfigFormats(t *testing.T) {
	for _, tc := range []struct {
		name, file   string
		hash, noSeed string
		check        func(c *Config) string
		newer        bool
	}{
		{name: "maple 0.1: Go field names", file: "v0-maple-0.1.json", hash: "e52c0bc996945117", noSeed: "399bb835c963aa0d",
			check: func(c *Config) string {
				s, e, col := c.Settings, c.Eval, c.Dataset.Columns
				if s.Model != "linear" || s.Objective != "rex" || s.OuterIters != 7 || s.InnerSteps != 20 || s.InnerLR != 0.5 || s.Seed != 3 ||
					e.Model != "linear" || e.Steps != 9 || e.LR != 0.2 || e.EvalEvery != 3 || e.Seed != 3 ||
					col.CSV != "t.csv" || col.Label != "y" || col.ID != "id" || c.CheckpointEvery != 5 {
					return "settings not read"
				}
				return ""
			}},
		{name: "before the format field", file: "v0-reference-preset.json", hash: "cdf0a6b2eb51f4ec", noSeed: "9eaeb4155d7229b4",
			check: func(c *Config) string {
				if c.Settings.OuterIters != 30 || c.Settings.Objective != "irmv1" || c.Eval.Steps != 200 || c.Dataset.Envs != "shuffle" {
					return "settings not read"
				}
				return ""
			}},
		{name: "format 1", file: "v1-reference-preset.json", hash: "cdf0a6b2eb51f4ec", noSeed: "9eaeb4155d7229b4",
			check: func(c *Config) string {
				if c.Settings.OuterIters != 30 || c.Eval.Steps != 200 {
					return "settings not read"
				}
				return ""
			}},
		{name: "an outer scale of 1 recorded", file: "v1-outer-scale-one.json", hash: "46fe06c60a7e1cbd", noSeed: "5f6ecd5e820b7f9c",
			check: func(c *Config) string {
				if c.Settings.Objective != "rex" || c.Settings.OuterScale != 0 {
					return "outer scale 1 not read as 0, its canonical form"
				}
				return ""
			}},
		{name: "a newer maple's", file: "v2-newer.json", newer: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join("testdata", "formats", tc.file)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			c, err := DecodeConfig(path, b)
			var newer *NewerFormatError
			if tc.newer {
				if !errors.As(err, &newer) || newer.Format != 2 || newer.Know != ConfigFormat {
					t.Fatalf("err %v, want a NewerFormatError for format 2", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Format != ConfigFormat {
				t.Errorf("format %d after migration, want %d", c.Format, ConfigFormat)
			}
			if msg := tc.check(c); msg != "" {
				t.Errorf("%s: %+v", msg, c)
			}
			if h, n := c.Hash(false), c.Hash(true); h != tc.hash || n != tc.noSeed {
				t.Errorf("hashes %s %s, want %s %s", h, n, tc.hash, tc.noSeed)
			}
		})
	}
}

// TestFormatWritten: Create writes the current format, and the format
// is no part of the hash.
func TestFormatWritten(t *testing.T) {
	cfg := DefaultConfig("synthetic")
	r, err := Open(t.TempDir()).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := os.ReadFile(r.Path(ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if f, err := formatOf(b); err != nil || f != ConfigFormat {
		t.Errorf("run.json has format %d (%v), want %d", f, err, ConfigFormat)
	}
	old := r.Config
	old.Format = 0
	if old.Hash(false) != r.Config.Hash(false) || cfg.Hash(false) != r.Config.Hash(false) {
		t.Error("the format changes the hash")
	}
}

// TestCreateCanonical: Create writes a search's settings in canonical
// form (core.Settings.Canonical): an outer scale of 1 is written 0,
// absent from run.json, and the hash is the one of 1.
func TestCreateCanonical(t *testing.T) {
	cfg := DefaultConfig("synthetic")
	cfg.Settings.Objective, cfg.Settings.OuterScale = "rex", 1
	r, err := Open(t.TempDir()).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := os.ReadFile(r.Path(ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if r.Config.Settings.OuterScale != 0 || bytes.Contains(b, []byte("outer_scale")) {
		t.Errorf("outer scale %g, run.json:\n%s", r.Config.Settings.OuterScale, b)
	}
	if r.Config.Hash(false) != cfg.Hash(false) {
		t.Error("the canonical form changed the hash")
	}
}
