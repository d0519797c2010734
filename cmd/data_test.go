package cmd

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestDataSimEmbeddings: maple data describes the simulated embeddings
// (their construction, the published group sizes per split, env = the
// attribute) against golden files (go test -update rewrites them); the
// dimension is the one --dim gives.
func TestDataSimEmbeddings(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"waterbirds-sim", []string{"data", "waterbirds-sim"}},
		{"celeba-sim-dim-16", []string{"data", "celeba-sim", "--dim", "16"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runRoot(t, t.TempDir(), tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			golden := filepath.Join("testdata", "data-"+tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if out != string(want) {
				t.Errorf("maple %v:\n%s\nwant (%s):\n%s", tc.args, out, golden, want)
			}
		})
	}
}
