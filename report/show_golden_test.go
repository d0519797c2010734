package report

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestShowSettings: maple show lists the settings a run reads from the
// settings table, grouped as --help groups them, against golden files
// (go test -update rewrites them), each run's config built as maple run
// builds it from its flags: a search on synthetic, a baseline with a
// recipe on cmnist (its penalty, no search settings but the seed, cmnist's
// env split), a search on waterbirds (its image size, no cmnist option).
func TestShowSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string // maple run's
	}{
		{"maple-synthetic", nil},
		{"irmv1-cmnist", []string{"--dataset", "cmnist", "--method", "irmv1"}},
		{"maple-waterbirds", []string{"--dataset", "waterbirds", "--objective", "worst-group", "--model", "mlp:64,64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := runs.DefaultConfig("synthetic") // as maple run builds it
			cfg.Settings.Model = core.DefaultSettings().Model
			fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
			config.Register(fl, &cfg, func(config.Setting) bool { return true })
			if err := fl.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			set := map[string]bool{}
			fl.Visit(func(f *pflag.Flag) { set[f.Name] = true })
			cfg, err := config.Resolve(cfg, set, cfg.Eval.Model)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Version, cfg.Started = "v0.0.0-test", time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)
			r, err := runs.Open(dir).Create(cfg)
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
			var out strings.Builder
			WriteShow(&out, r.Dir)
			got := strings.ReplaceAll(out.String(), r.Config.ID, "ID")
			got = strings.ReplaceAll(got, r.Config.Build.String(), "BUILD")
			got = strings.ReplaceAll(got, dir, "RUNS")
			golden := filepath.Join("testdata", "show-"+tc.name+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if got != string(want) {
				t.Errorf("maple show:\n%s\nwant (%s):\n%s", got, golden, want)
			}
		})
	}
}
