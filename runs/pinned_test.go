package runs

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// TestPinnedConfigs reads two run.json files written by maple before the
// settings table existed (session 8's reference preset and a paper-scale
// rex search) and checks that they still read to the same config hashes
// (with and without the seed) and the same Flags, which sweeps and tables
// key runs by: testdata/pinned-configs.golden is what the code before
// the table printed for them.
func TestPinnedConfigs(t *testing.T) {
	var b strings.Builder
	for _, name := range []string{"reference-preset", "paper-scale-rex"} {
		cfg, err := ReadConfig("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		fl := Flags(*cfg)
		keys := make([]string, 0, len(fl))
		for k := range fl {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(&b, "%s %s %s\n", name, cfg.Hash(false), cfg.Hash(true))
		for _, k := range keys {
			b.WriteString(k + "=" + fl[k] + ";")
		}
		b.WriteString("\n")
	}
	want, err := os.ReadFile("testdata/pinned-configs.golden")
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("hashes or flags changed:\n%s\nwant\n%s", b.String(), want)
	}
}
