package cmd

import (
	"runtime/debug"
	"testing"
)

// run.json's commit names the revision, marked when the tree was dirty.
func TestRevision(t *testing.T) {
	cases := []struct {
		name     string
		settings []debug.BuildSetting
		want     string
	}{
		{"clean", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "false"}}, "abc123"},
		{"dirty", []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, {Key: "vcs.revision", Value: "abc123"}}, "abc123-dirty"},
		{"not stamped", []debug.BuildSetting{{Key: "-tags", Value: "openblas"}}, "unknown"},
		{"no build info", nil, "unknown"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := revision(c.settings); got != c.want {
				t.Errorf("revision = %q, want %q", got, c.want)
			}
		})
	}
}
