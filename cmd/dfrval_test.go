package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDFRValidationCheckedFirst: dfr fits on the validation split, half
// of each group to fit and half to choose C; data whose validation lacks
// 2 rows of a group is refused before a run is created (it was refused
// once training began, or not at all when a group was missing), naming
// the file, the group and what to do (exit 2). Data with 2 rows of each
// group runs.
func TestDFRValidationCheckedFirst(t *testing.T) {
	for _, tc := range []struct {
		name     string
		valRows  map[string]int // validation rows per group
		want     []string       // in the error; none: the run is made
		wantRuns int
	}{
		{"a group missing from validation", map[string]int{"g0": 6, "g1": 0, "g2": 6, "g3": 6},
			[]string{"--method dfr on ", "no rows of group g1 (12 in training, 3 in test)", "give it 2 or more rows of each group"}, 0},
		{"one validation row of a group", map[string]int{"g0": 6, "g1": 6, "g2": 1, "g3": 6},
			[]string{"1 row of group g2", "at least 2 validation rows of each group"}, 0},
		{"one validation row in all (refused once the run had begun)", map[string]int{"g0": 1},
			[]string{"no rows of group g1", "1 row of group g0"}, 0},
		{"two rows of each group", map[string]int{"g0": 2, "g1": 2, "g2": 2, "g3": 2}, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var csv strings.Builder
			csv.WriteString("label,group,split,x0,x1,x2\n")
			row := 0
			add := func(g int, split string, n int) {
				for range n {
					row++
					y := g / 2
					fmt.Fprintf(&csv, "%d,g%d,%s,%g,%g,%g\n", y, g, split, float64(y)+0.1*float64(row%7), float64(g%2), 0.01*float64(row%5))
				}
			}
			for g := range 4 {
				add(g, "train", 12)
				add(g, "val", tc.valRows[fmt.Sprintf("g%d", g)])
				add(g, "test", 3)
			}
			path := filepath.Join(dir, "labels.csv")
			if err := os.WriteFile(path, []byte(csv.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			runsDir := filepath.Join(dir, "runs")
			var out bytes.Buffer
			f := &Factory{In: strings.NewReader(""), Out: &out, Err: &out, RunsDir: runsDir, Terminal: func() bool { return false }}
			root := NewCmdRoot(f)
			root.SetArgs([]string{"run", "--dataset", "features", "--csv", path, "--method", "dfr", "--headless"})
			code := ExitCode(f, root.Execute())
			if tc.want == nil {
				if code != 0 {
					t.Errorf("exit %d, want 0:\n%s", code, out.String())
				}
			} else {
				if code != ExitUsage {
					t.Errorf("exit %d, want %d (usage)", code, ExitUsage)
				}
				for _, w := range append(tc.want, path) {
					if !strings.Contains(out.String(), w) {
						t.Errorf("the output lacks %q:\n%s", w, out.String())
					}
				}
			}
			ents, _ := os.ReadDir(runsDir)
			if len(ents) != tc.wantRuns {
				t.Errorf("%d entries in the runs dir, want %d", len(ents), tc.wantRuns)
			}
		})
	}
}
