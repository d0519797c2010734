package cmd

import (
	"strings"
	"testing"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
)

// TestSweepAxes: maple sweep's axis flags are the settings of the table
// with a Sweep flag, and their help lists what the registries hold (a
// dataset, method or objective registered later joins it).
func TestSweepAxes(t *testing.T) {
	c := NewCmdSweep(NewFactory(), func(*SweepOptions) error { return nil })
	n := 0
	for _, s := range config.Table {
		if s.Sweep == "" {
			continue
		}
		n++
		if c.Flags().Lookup(s.Sweep) == nil {
			t.Errorf("setting %s: maple sweep has no --%s", s.Flag, s.Sweep)
		}
	}
	if n != 5 {
		t.Errorf("%d settings with a sweep flag, want 5 (datasets, train-sizes, methods, models, seeds)", n)
	}
	for _, tc := range []struct {
		name, flag string
		want       []string
	}{
		{"datasets", "datasets", loaders.Names()},
		{"baselines", "methods", baselines.Trainers()},
		{"searches", "methods", []string{core.MethodMaple + ":OBJECTIVE"}},
		{"objectives", "methods", core.Objectives()},
		{"models set both models", "models", []string{"models, search and evaluation"}},
		{"train sizes", "train-sizes", []string{"training sizes"}},
		{"searches say by what", "methods", []string{":OBJECTIVE searches by OBJECTIVE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			help := c.Flags().Lookup(tc.flag).Usage
			for _, w := range tc.want {
				if !strings.Contains(help, w) {
					t.Errorf("--%s's help %q lacks %s", tc.flag, help, w)
				}
			}
		})
	}
}
