package experiments

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

// writeJSONL writes one JSON line per value to dir/name.
func writeJSONL(t *testing.T, dir, name string, lines ...any) {
	t.Helper()
	var text []string
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		text = append(text, string(b))
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(text, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSelectedShares reads the selected iterate's record: the weight on
// the groups whose attribute disagrees with the label, and the samples
// kept.
func TestSelectedShares(t *testing.T) {
	dir := t.TempDir()
	var snaps []any
	for i, frac := range [][]float64{{0.4, 0.1, 0.1, 0.4}, {0.3, 0.2, 0.25, 0.25}} {
		snaps = append(snaps, core.Snapshot{Iter: i + 1, KeepFrac: 0.3 + 0.1*float64(i), GroupNames: []string{"y=0,a=0", "y=0,a=1", "y=1,a=0", "y=1,a=1"}, GroupFrac: frac})
	}
	writeJSONL(t, dir, runs.MetricsFile, snaps...)
	for _, tc := range []struct {
		name           string
		selected       int
		conflict, keep float64
	}{
		{"iterate 1", 1, 20, 30},
		{"iterate 2", 2, 45, 40},
		{"none selected: the last", 0, 45, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, k := selectedShares(dir, tc.selected)
			if c == nil || k == nil || math.Abs(*c-tc.conflict) > 1e-9 || math.Abs(*k-tc.keep) > 1e-9 {
				t.Fatalf("shares %v %v, want %v%% and %v%%", c, k, tc.conflict, tc.keep)
			}
		})
	}
	if c, k := selectedShares(t.TempDir(), 1); c != nil || k != nil {
		t.Fatal("a run without records has shares")
	}
}

// TestEarlierMinutes counts the time a resumed search spent before its
// last resume, from the elapsed time its metrics record there.
func TestEarlierMinutes(t *testing.T) {
	snaps := []any{core.Snapshot{Iter: 1, Elapsed: 60}, core.Snapshot{Iter: 2, Elapsed: 150}, core.Snapshot{Iter: 3, Elapsed: 240}, core.Snapshot{Iter: 4, Elapsed: 330}}
	for _, tc := range []struct {
		name   string
		events []any
		want   float64
	}{
		{"never resumed", nil, 0},
		{"resumed at iteration 2", []any{core.Event{Kind: core.EventResume, Iter: 2}, core.Event{Kind: core.EventEvaluate, Iter: 4}}, 2.5},
		{"resumed twice: the last resume counts", []any{core.Event{Kind: core.EventResume, Iter: 1}, core.Event{Kind: core.EventResume, Iter: 3}}, 4},
		{"resumed after its last iteration, to evaluate", []any{core.Event{Kind: core.EventResume, Iter: 4}}, 5.5},
		{"resumed before its first iteration", []any{core.Event{Kind: core.EventResume, Iter: 0}}, 0},
		{"resumed at an iteration with no record", []any{core.Event{Kind: core.EventResume, Iter: 7}}, 0},
		{"other events only", []any{core.Event{Kind: core.EventEvaluate, Iter: 4}}, 0},
		{"paused and unpaused in one process", []any{core.Event{Kind: core.EventPause, Iter: 2}, core.Event{Kind: core.EventResume, Iter: 2}}, 0},
		{"restarted, then paused and unpaused", []any{core.Event{Kind: core.EventResume, Iter: 1, Restart: true}, core.Event{Kind: core.EventPause, Iter: 3}, core.Event{Kind: core.EventResume, Iter: 3}}, 1},
		{"paused, stopped and restarted (marked)", []any{core.Event{Kind: core.EventPause, Iter: 2}, core.Event{Kind: core.EventStop, Iter: 2}, core.Event{Kind: core.EventResume, Iter: 2, Restart: true}}, 2.5},
		{"paused, stopped and restarted (unmarked: the last process alone)", []any{core.Event{Kind: core.EventPause, Iter: 2}, core.Event{Kind: core.EventStop, Iter: 2}, core.Event{Kind: core.EventResume, Iter: 2}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeJSONL(t, dir, runs.MetricsFile, snaps...)
			if tc.events != nil {
				writeJSONL(t, dir, runs.EventsFile, tc.events...)
			}
			if got := earlierMinutes(dir); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("earlierMinutes = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCollectResumedMinutes: a search resumed at iteration 2 records
// in its summary the last process's seconds alone; its row's minutes add
// the time its metrics record before the resume.
func TestCollectResumedMinutes(t *testing.T) {
	dir := t.TempDir()
	cfg := runs.DefaultConfig("synthetic")
	cfg.Method, cfg.Sweep = core.MethodMaple, "s"
	r, err := runs.Open(dir).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	writeJSONL(t, r.Dir, runs.MetricsFile, core.Snapshot{Iter: 1, Elapsed: 60}, core.Snapshot{Iter: 2, Elapsed: 120}, core.Snapshot{Iter: 3, Elapsed: 180})
	writeJSONL(t, r.Dir, runs.EventsFile, core.Event{Kind: core.EventResume, Iter: 2, Restart: true}, core.Event{Kind: core.EventEvaluate, Iter: 3})
	sum := &runs.Summary{Done: true, Status: core.StatusDone, Iter: 3, Total: 3, Seconds: 90, Result: &train.Result{TestAcc: 0.7}}
	if err := r.WriteSummary(sum); err != nil {
		t.Fatal(err)
	}
	rows, err := Collect(dir, &File{Name: "x", Sweeps: []Sweep{{Name: "s"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	if want := 3.5; math.Abs(rows[0].Minutes-want) > 1e-12 { // 120 s before the resume, 90 s after
		t.Errorf("minutes %v, want %v", rows[0].Minutes, want)
	}
	// A run that took another run's search (its metrics copied, elapsed
	// times and all) and was then resumed counts its own time alone: the
	// search's is the other run's.
	cfg.SearchFrom = "20260101-000000-01"
	if err := runs.WriteJSONAtomic(filepath.Join(r.Dir, runs.ConfigFile), cfg); err != nil {
		t.Fatal(err)
	}
	if rows, err = Collect(dir, &File{Name: "x", Sweeps: []Sweep{{Name: "s"}}}); err != nil || len(rows) != 1 {
		t.Fatalf("rows %v, err %v", rows, err)
	}
	if want := 1.5; math.Abs(rows[0].Minutes-want) > 1e-12 {
		t.Errorf("a taken search's minutes %v, want %v", rows[0].Minutes, want)
	}
}

// TestRunsRoundTrip writes rows and reads them back: every column the
// schema prints survives, the optional ones empty when absent.
func TestRunsRoundTrip(t *testing.T) {
	k, c, p := 12.5, 47.25, 30.0
	rows := []Run{
		{Experiment: "e", Sweep: "s", RunID: "r1", Commit: "abc", ConfigHash: "h", Dataset: "cmnist", Model: "mlp:390,390", SearchModel: "mlp:390,390",
			Method: "maple/irmv1", Objective: "irmv1", Settings: "recipe maple-reference; outer-on val", Seed: 2, Supervision: "environments",
			Selection: "val worst-group accuracy", GroupsInSelection: true, SelectedIterate: 7, SelectedStep: 113, TestAcc: 70.15, TestWorst: 66.8639,
			ValWorst: 70.3896, Minutes: 24.38, Precision: "f32", Backend: "OpenBLAS", Threads: 2, KeptWeights: &k, ConflictWeight: &c, KeepPct: &p},
		{Experiment: "e", Sweep: "s", RunID: "r2", ConfigHash: "h2", Dataset: "cmnist", Method: "erm", Seed: 1, Supervision: "none", TestAcc: 14.1},
	}
	var b strings.Builder
	if err := WriteRuns(&b, rows); err != nil {
		t.Fatal(err)
	}
	tab, err := ParseCSV(b.String())
	if err != nil {
		t.Fatal(err)
	}
	back, err := RunsOf(tab)
	if err != nil {
		t.Fatal(err)
	}
	var b2 strings.Builder
	if err := WriteRuns(&b2, back); err != nil {
		t.Fatal(err)
	}
	if b.String() != b2.String() {
		t.Fatalf("round trip differs:\n%s\n%s", b.String(), b2.String())
	}
	if back[1].KeptWeights != nil || back[1].ConflictWeight != nil || back[0].ConflictWeight == nil || *back[0].ConflictWeight != 47.25 {
		t.Fatalf("optional columns: %+v %+v", back[0], back[1])
	}
}

// TestDifferencesLeaveDerivedOut: a row's settings name a setting that
// follows from the others only once: a search given a flag of its final
// training trains by it alone (--eval-also-shared false follows), and
// the text names the flag alone; given without such a flag, the setting
// is named.
func TestDifferencesLeaveDerivedOut(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*runs.Config) map[string]bool
		want string
	}{
		{"a training flag", func(c *runs.Config) map[string]bool { c.Eval.Steps = 300; return map[string]bool{"eval-steps": true} }, "eval-steps 300"},
		{"also-shared off alone", func(c *runs.Config) map[string]bool {
			c.Eval.AlsoShared = false
			return map[string]bool{"eval-also-shared": true}
		}, "eval-also-shared false"},
		{"the defaults", func(c *runs.Config) map[string]bool { return map[string]bool{} }, ""},
		{"also-shared on beside a training flag: both named", func(c *runs.Config) map[string]bool {
			c.Eval.Steps, c.Eval.AlsoShared = 300, true
			return map[string]bool{"eval-steps": true, "eval-also-shared": true}
		}, "eval-also-shared true; eval-steps 300"},
		{"keep0 at its plain default, which keep would change: both named", func(c *runs.Config) map[string]bool {
			c.Settings.Keep, c.Settings.Keep0 = 0.1, 0.3
			return map[string]bool{"keep": true, "keep0": true}
		}, "keep 0.1; keep0 0.3"},
		{"keep alone: keep0 follows", func(c *runs.Config) map[string]bool {
			c.Settings.Keep = 0.1
			return map[string]bool{"keep": true}
		}, "keep 0.1"},
		{"a baseline under the reference preset: its training named flag by flag", func(c *runs.Config) map[string]bool {
			c.Method, c.Settings.Recipe = "erm", "maple-reference"
			return map[string]bool{"method": true, "recipe": true}
		}, "eval-every 1; eval-lr 1; eval-min-step 1; eval-same-init true; eval-steps 200; eval-weight-decay 0; ref-train-acc 0.68"},
		{"a baseline trained by the MAPLE code's recipe: nothing follows", func(c *runs.Config) map[string]bool {
			c.Method = "erm"
			c.Eval.LR, c.Eval.Steps, c.Eval.WeightDecay, c.Eval.EvalEvery, c.Eval.MinStep = 1, 200, 0, 1, 1
			return map[string]bool{"method": true, "eval-lr": true, "eval-steps": true, "eval-weight-decay": true, "eval-every": true, "eval-min-step": true}
		}, "eval-every 1; eval-lr 1; eval-min-step 1; eval-steps 200; eval-weight-decay 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := runs.DefaultConfig("cmnist")
			c.Dataset = loaders.DefaultSpec("cmnist")
			flagDefaults(&c) // as maple run's flags start
			set := tc.set(&c)
			set["model"] = true
			r, err := config.Resolve(c, set, "")
			if err != nil {
				t.Fatal(err)
			}
			if got := Differences(r); got != tc.want {
				t.Errorf("Differences = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSortRowsOrder orders rows as a reader of a width study expects:
// training sizes ascending with every image last, models by width as a
// number (64 before 128), methods as the sweep lists them.
func TestSortRowsOrder(t *testing.T) {
	exp := &File{Sweeps: []Sweep{{Name: "w", Args: []string{"--methods", "oracle,maple:rex"}}}}
	var rows []Run
	for _, size := range []int{0, 10000, 2500} {
		for _, model := range []string{"mlp:390,390", "mlp:64,64", "mlp:128,128"} {
			for _, method := range []string{"maple/rex", "oracle"} {
				rows = append(rows, Run{Sweep: "w", Dataset: "cmnist", TrainSize: size, Model: model, Method: method, Seed: 1})
			}
		}
	}
	sortRows(exp, rows)
	var got []string
	for _, r := range rows {
		if r.Method == "oracle" {
			got = append(got, fmt.Sprintf("%d %s", r.TrainSize, r.Model))
		}
	}
	want := []string{
		"2500 mlp:64,64", "2500 mlp:128,128", "2500 mlp:390,390",
		"10000 mlp:64,64", "10000 mlp:128,128", "10000 mlp:390,390",
		"0 mlp:64,64", "0 mlp:128,128", "0 mlp:390,390",
	}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("order:\n got %q\nwant %q", got, want)
	}
	for i := 0; i < len(rows); i += 2 {
		if rows[i].Method != "oracle" || rows[i+1].Method != "maple/rex" {
			t.Errorf("rows %d-%d: methods %s, %s; want oracle, maple/rex as the sweep lists them", i, i+1, rows[i].Method, rows[i+1].Method)
		}
	}
}
