package extend_test

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/maple-ood/maple/cmd"
	"github.com/maple-ood/maple/core"
	_ "github.com/maple-ood/maple/examples/extend" // the toy dataset, method, objective and model family
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/runs"
)

// maple runs the command line in-process, without a terminal.
func maple(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	out, errb := new(bytes.Buffer), new(bytes.Buffer)
	f := &cmd.Factory{In: strings.NewReader(""), Out: out, Err: errb, RunsDir: "unused", Terminal: func() bool { return false }}
	root := cmd.NewCmdRoot(f)
	root.SetArgs(args)
	root.SetOut(out)
	root.SetErr(errb)
	err := root.ExecuteContext(context.Background())
	return out.String(), errb.String(), err
}

// TestFromOutside: a dataset, a method, an objective and a model family,
// each one file and one registration line outside maple's packages, work
// through maple run and maple sweep, the help and completion list them,
// and maple show lists a toy run's settings.
func TestFromOutside(t *testing.T) {
	dir := t.TempDir()
	if _, errb, err := maple(t, "run", "--dataset", "toy2d", "--method", "balanced", "--model", "wide:4", "--eval-steps", "60", "--runs-dir", dir, "--headless"); err != nil {
		t.Fatalf("maple run of the toy method: %v\n%s", err, errb)
	}
	if _, errb, err := maple(t, "run", "--dataset", "toy2d", "--method", "maple", "--objective", "meanloss", "--model", "wide:4",
		"--outer-iters", "3", "--inner-steps", "5", "--eval-steps", "60", "--runs-dir", dir, "--headless"); err != nil {
		t.Fatalf("maple run of a search with the toy objective: %v\n%s", err, errb)
	}
	infos, err := runs.Open(dir).List()
	if err != nil || len(infos) != 2 {
		t.Fatalf("%d runs (%v), want 2", len(infos), err)
	}
	for _, in := range infos {
		if sum, _ := runs.ReadSummary(runs.Open(dir).RunDir(in.ID)); sum == nil || !sum.Done || sum.Result == nil {
			t.Fatalf("run %s (%s) did not finish", in.ID, in.Method)
		}
	}
	table, errb, err := maple(t, "sweep", "--name", "toy", "--datasets", "toy2d", "--methods", "balanced,maple:meanloss", "--model", "wide:4",
		"--seeds", "1,2", "--outer-iters", "2", "--inner-steps", "5", "--eval-steps", "60", "--runs-dir", dir, "--format", "csv")
	if err != nil {
		t.Fatalf("maple sweep: %v\n%s", err, errb)
	}
	for _, want := range []string{"toy2d,0,wide:4,balanced,2,", "toy2d,0,wide:4,maple/meanloss,2,"} {
		if !strings.Contains(table, want) {
			t.Fatalf("the sweep's table lacks %q:\n%s", want, table)
		}
	}
	help, _, _ := maple(t, "run", "--help")
	for _, want := range []string{"toy2d", "balanced", "meanloss", "wide:M"} {
		if !strings.Contains(help, want) {
			t.Errorf("maple run --help does not name %s", want)
		}
	}
	for flag, want := range map[string]string{"dataset": "toy2d", "method": "balanced", "objective": "meanloss"} {
		if out, _, _ := maple(t, "__complete", "run", "--"+flag, ""); !strings.Contains(out, want+"\n") {
			t.Errorf("completion of --%s does not offer %s:\n%s", flag, want, out)
		}
	}
	show, _, _ := maple(t, "show", infos[0].ID, "--runs-dir", dir)
	for _, want := range []string{"dataset toy2d", "eval-steps 60"} {
		if !strings.Contains(show, want) {
			t.Errorf("maple show does not list %s:\n%s", want, show)
		}
	}
}

// TestCapabilitiesFromOutside: the optional parts of a Source that the
// toy dataset implements from outside maple's packages are asked for:
// its default model (loaders.ModelDefaulter) and its check
// (loaders.Checker).
func TestCapabilitiesFromOutside(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		model   string // the run's search model, "" when it is refused
		refusal string
	}{
		{"the dataset's default model", nil, "wide:2", ""},
		{"a model given", []string{"--model", "wide:4"}, "wide:4", ""},
		{"the dataset's check", []string{"--train-size", "50"}, "", "--train-size 50: toy2d always has 400 training samples"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"run", "--dataset", "toy2d", "--method", "erm", "--eval-steps", "20", "--runs-dir", dir, "--headless"}, tc.args...)
			_, errb, err := maple(t, args...)
			if tc.refusal != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refusal) {
					t.Fatalf("maple %s: error %v, want one saying %q", strings.Join(args, " "), err, tc.refusal)
				}
				if infos, _ := runs.Open(dir).List(); len(infos) != 0 {
					t.Errorf("a refused run left %d runs on disk", len(infos))
				}
				return
			}
			if err != nil {
				t.Fatalf("maple %s: %v\n%s", strings.Join(args, " "), err, errb)
			}
			infos, err := runs.Open(dir).List()
			if err != nil || len(infos) != 1 {
				t.Fatalf("%d runs (%v), want 1", len(infos), err)
			}
			cfg, err := runs.ReadConfig(runs.Open(dir).RunDir(infos[0].ID))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Settings.Model != tc.model {
				t.Errorf("the run's model is %s, want %s", cfg.Settings.Model, tc.model)
			}
		})
	}
}

// TestMeanLossHypergradient checks the toy objective's derivatives, and
// the model family's, by a float64 central difference of the outer risk
// (core.HypergradientCheck).
func TestMeanLossHypergradient(t *testing.T) {
	sp, err := loaders.DefaultSpec("toy2d").Load(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A dozen samples per split, as core's own check uses: each sample's
	// hypergradient large enough for a central difference to resolve.
	first := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	sp.Train, sp.Val, sp.Test = sp.Train.Subset("train", first), sp.Val.Subset("val", first), sp.Test.Subset("test", first)
	set := core.DefaultSettings()
	set.Model, set.Objective, set.InnerSteps = "wide:2", "meanloss", 3
	comps, scale, err := core.HypergradientCheck(sp, set, core.HyperCheckOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if scale == 0 || len(comps) == 0 {
		t.Fatal("no hypergradient to check")
	}
	for _, h := range comps {
		if e := math.Abs(h.Analytic-h.Numeric) / (math.Max(math.Abs(h.Analytic), math.Abs(h.Numeric)) + 1e-4*scale); e > 1e-5 {
			t.Errorf("dR/d%s[%d] = %.10g, finite difference %.10g (rel err %.2g)", h.Which, h.Index, h.Analytic, h.Numeric, e)
		}
	}
}
