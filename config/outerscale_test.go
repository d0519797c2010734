package config_test

import (
	"encoding/json"
	"testing"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/runs"
)

// TestFlagsOuterScaleOne: a search that records an outer scale of 1 and
// one that records 0 (meaning 1) read alike, so that a table names no
// difference between them ("outer-scale 1" was listed for rex runs that
// recorded the objective's scale as 1): a run.json read is canonical.
func TestFlagsOuterScaleOne(t *testing.T) {
	c := config.DefaultConfig("synthetic")
	c.Settings.Objective = "rex"
	read := func(scale float64) string {
		c.Settings.OuterScale = scale
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := runs.DecodeConfig("run.json", b)
		if err != nil {
			t.Fatal(err)
		}
		return config.Flags(*got)["outer-scale"]
	}
	if one, zero := read(1), read(0); one != zero {
		t.Errorf("outer-scale 1 reads %q, 0 reads %q", one, zero)
	}
	if half := read(0.5); half != "0.5" {
		t.Errorf("outer-scale 0.5 reads %q", half)
	}
}
