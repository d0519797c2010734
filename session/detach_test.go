package session

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

// TestReopen: resume's flags given change what they name: a rate replaces
// the one in force (the checkpoint's) from the next iteration, the others
// going on as they are, while run.json keeps the rates the run started
// with; the data directory moves in the run's config, made absolute; a
// rate that cannot work is refused naming its flag. The arguments for a
// detached child repeat the choices, and parsed by resume's flags give
// the same.
func TestReopen(t *testing.T) {
	runsDir := t.TempDir()
	cfg := runs.DefaultConfig("synthetic")
	cfg.Settings.WeightLR, cfg.Settings.KeepLR, cfg.Settings.InnerLR = 0, 1.5, 0.1
	r, err := runs.Open(runsDir).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	inForce := core.LearningRates{Weight: 0, Keep: 1.2, Inner: 0.07}
	if err := r.WriteCheckpoint(&core.State{Iter: 2, LR: inForce}); err != nil {
		t.Fatal(err)
	}
	recordSetLR(t, r, 2, inForce) // changed live at iteration 2, checkpointed since
	id := r.Config.ID
	r.Close()
	abs, _ := filepath.Abs("moved")
	for _, tc := range []struct {
		name    string
		args    []string
		rates   *core.LearningRates
		dataDir string
		err     string
	}{
		{name: "nothing given"},
		{name: "the inner rate", args: []string{"--inner-lr", "0.05"}, rates: &core.LearningRates{Weight: 0, Keep: 1.2, Inner: 0.05}},
		{name: "the weights' rate", args: []string{"--weight-lr=0.01"}, rates: &core.LearningRates{Weight: 0.01, Keep: 1.2, Inner: 0.07}},
		{name: "the rate in force", args: []string{"--keep-lr", "1.2"}},
		{name: "the data directory", args: []string{"--data-dir", "moved"}, dataDir: abs},
		{name: "a keep rate of 0", args: []string{"--keep-lr", "0"}, err: "--keep-lr 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			given, set := parseResume(t, tc.args)
			r, rates, args, err := Reopen(runs.Open(runsDir), id, given, set)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rates, tc.rates) {
				t.Errorf("rates %+v, want %+v", rates, tc.rates)
			}
			if got := r.Config.Settings.Rates(); got != cfg.Settings.Rates() {
				t.Errorf("the config's rates became %+v", got)
			}
			if r.Config.Dataset.DataDir != tc.dataDir {
				t.Errorf("data dir %q, want %q", r.Config.Dataset.DataDir, tc.dataDir)
			}
			r.Close()
			// The detached child reopens the run with args: the same.
			again, againSet := parseResume(t, args)
			r2, rates2, args2, err := Reopen(runs.Open(runsDir), id, again, againSet)
			if err != nil {
				t.Fatalf("the child's arguments %q: %v", args, err)
			}
			defer r2.Close()
			if !reflect.DeepEqual(rates2, rates) || r2.Config.Dataset.DataDir != tc.dataDir || !reflect.DeepEqual(args2, args) {
				t.Errorf("the child's arguments %q: rates %+v, data dir %q, arguments %q", args, rates2, r2.Config.Dataset.DataDir, args2)
			}
		})
	}
}

// parseResume parses args with resume's flags: the settings given and
// the flags set.
func parseResume(t *testing.T, args []string) (runs.Config, map[string]bool) {
	var given runs.Config
	fl := pflag.NewFlagSet("resume", pflag.ContinueOnError)
	config.RegisterResume(fl, &given)
	if err := fl.Parse(args); err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	fl.Visit(func(f *pflag.Flag) { set[f.Name] = true })
	return given, set
}

// TestReopenRefusesNothingToLearn: resuming a search that keeps every
// sample with its weights frozen (--weight-lr 0) is refused by Reopen,
// naming both flags, before the run is resumed (the refusal came from
// the engine, after the run had been reopened and its summary removed).
func TestReopenRefusesNothingToLearn(t *testing.T) {
	runsDir := t.TempDir()
	cfg := runs.DefaultConfig("synthetic")
	cfg.Settings.WeightLR, cfg.Settings.Keep, cfg.Settings.Keep0 = 0.25, 1, 1
	r, err := runs.Open(runsDir).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WriteCheckpoint(&core.State{Iter: 2, LR: cfg.Settings.Rates()}); err != nil {
		t.Fatal(err)
	}
	id := r.Config.ID
	r.Close()
	given, set := parseResume(t, []string{"--weight-lr", "0"})
	if r, _, _, err := Reopen(runs.Open(runsDir), id, given, set); err == nil {
		r.Close()
		t.Fatal("--weight-lr 0 with every sample kept: accepted")
	} else if !strings.Contains(err.Error(), "--weight-lr 0") || !strings.Contains(err.Error(), "--keep 1") {
		t.Errorf("error %v, want it to name --weight-lr 0 and --keep 1", err)
	}
}

// TestReopenRecordedRateAboveTheBound: a run whose checkpoint holds a
// keep rate above setting.MaxRate (made before the bound) resumes with a
// new inner rate given; a rate given above the bound is refused.
func TestReopenRecordedRateAboveTheBound(t *testing.T) {
	runsDir := t.TempDir()
	r, err := runs.Open(runsDir).Create(runs.DefaultConfig("synthetic"))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WriteCheckpoint(&core.State{Iter: 2, LR: core.LearningRates{Weight: 0, Keep: 40, Inner: 0.1}}); err != nil {
		t.Fatal(err)
	}
	recordSetLR(t, r, 2, core.LearningRates{Weight: 0, Keep: 40, Inner: 0.1})
	id := r.Config.ID
	r.Close()
	for _, tc := range []struct {
		name string
		args []string
		err  string
	}{
		{"a new inner rate", []string{"--inner-lr", "0.05"}, ""},
		{"an inner rate above the bound", []string{"--inner-lr", "20"}, "--inner-lr 20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			given, set := parseResume(t, tc.args)
			r, _, _, err := Reopen(runs.Open(runsDir), id, given, set)
			if r != nil {
				r.Close()
			}
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}
