package runs

import "testing"

// TestHashOuterScaleOne: an outer scale of 0 means 1, so a search that
// records 1 (runs of a build that wrote the objective's scale as 1) and
// one that records 0 are one configuration; 0.5 is another.
func TestHashOuterScaleOne(t *testing.T) {
	c := DefaultConfig("synthetic")
	c.Settings.Objective = "rex"
	hash := func(scale float64) string {
		c.Settings.OuterScale = scale
		return c.Hash(true)
	}
	if hash(1) != hash(0) {
		t.Error("outer scale 1 and 0 hash differently")
	}
	if hash(0.5) == hash(0) {
		t.Error("outer scale 0.5 and 0 hash alike")
	}
}
