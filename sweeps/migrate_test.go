package sweeps

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/maple-ood/maple/runs"
)

// TestSweepFormats reads sweep records of every format (recorded
// fixtures in testdata/formats) into the current SweepRecord: a record
// before the format field (one cell in maple 0.1's Go field names), one
// with it, and one from a newer maple, which is refused. Every cell's
// config reads with the hash the record holds for it.
func TestSweepFormats(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		cells      int
		newer      bool
	}{
		{name: "before the format field", file: "v0.json", cells: 2},
		{name: "format 1", file: "v1.json", cells: 1},
		{name: "a newer maple's", file: "v2-newer.json", newer: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join("testdata", "formats", tc.file)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := decodeSweep(path, b)
			var newer *runs.NewerFormatError
			if tc.newer {
				if !errors.As(err, &newer) || newer.Format != 2 || newer.Know != SweepFormat {
					t.Fatalf("err %v, want a NewerFormatError for format 2", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Format != SweepFormat || len(r.Cells) != tc.cells {
				t.Fatalf("format %d with %d cells, want %d with %d", r.Format, len(r.Cells), SweepFormat, tc.cells)
			}
			for _, c := range r.Cells {
				if h := c.Config.Hash(false); h != c.Hash || c.Config.Settings.OuterIters == 0 {
					t.Errorf("cell %s: hash %s (outer iterations %d), the record holds %s", c.Label, h, c.Config.Settings.OuterIters, c.Hash)
				}
				if c.Config.Format != runs.ConfigFormat {
					t.Errorf("cell %s: config format %d, want %d", c.Label, c.Config.Format, runs.ConfigFormat)
				}
			}
		})
	}
}

// TestSweepFormatWritten: Record writes the current format, its cells'
// configs at run.json's.
func TestSweepFormatWritten(t *testing.T) {
	s := &Sweep{Name: "fmt", Dir: t.TempDir(), Cells: []Cell{{Label: "a", Config: runs.DefaultConfig("synthetic")}}}
	if err := s.Record(); err != nil {
		t.Fatal(err)
	}
	path, _ := runs.Open(s.Dir).SweepFile(s.Name, ".json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Format int `json:"format"`
		Cells  []struct {
			Hash   string `json:"hash"`
			Config struct {
				Format int `json:"format"`
			} `json:"config"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &raw); err != nil || raw.Format != SweepFormat || len(raw.Cells) != 1 || raw.Cells[0].Config.Format != runs.ConfigFormat {
		t.Fatalf("record %s (%v): want format %d, one cell at config format %d", b, err, SweepFormat, runs.ConfigFormat)
	}
	if raw.Cells[0].Hash != runs.DefaultConfig("synthetic").Hash(false) {
		t.Error("the recorded cell's hash changed")
	}
}
