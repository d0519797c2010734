package config_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/runs"
)

// TestPinnedConfigs reads two run.json files written by maple before the
// settings table existed (the reference preset of commit 4054fe3 and a paper-scale
// rex search) and checks that they still read to the same config hashes
// (with and without the seed) and the same Flags, which sweeps and tables
// key runs by: testdata/pinned-configs.golden is what the code before
// the table printed for them.
func TestPinnedConfigs(t *testing.T) {
	want, err := os.ReadFile("testdata/pinned-configs.golden")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(want)), "\n")
	for i := 0; i+1 < len(lines); i += 2 {
		head := strings.Fields(lines[i])
		name := head[0]
		cfg, err := runs.ReadConfig("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%s %s %s", name, cfg.Hash(false), cfg.Hash(true)); got != lines[i] {
			t.Errorf("hashes: %s, want %s", got, lines[i])
		}
		// Every setting recorded then reads the same; settings added since
		// (a new method's, say) may join.
		fl := config.Flags(*cfg)
		for _, kv := range strings.Split(strings.TrimSuffix(lines[i+1], ";"), ";") {
			k, v, _ := strings.Cut(kv, "=")
			if got, ok := fl[k]; !ok || got != v {
				t.Errorf("%s: --%s reads %q (present %v), want %q", name, k, got, ok, v)
			}
		}
	}
}
