package main

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/maple-ood/maple/cmd"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/internal/tinydata"
	"github.com/maple-ood/maple/runs"
)

// TestHypergradientFiniteDifference: g:resmlp's hypergradient (dR/dw and
// dR/dm of every sample) against float64 central differences of the
// outer risk, through core's check.
func TestHypergradientFiniteDifference(t *testing.T) {
	for _, spec := range []string{"g:resmlp:4,0", "g:resmlp:4,2"} {
		t.Run(spec, func(t *testing.T) {
			set := core.DefaultSettings()
			set.Model, set.Objective, set.InnerSteps, set.Beta, set.WeightDecay = spec, "irmv1", 3, 0.3, 0.01
			comps, scale, err := core.HypergradientCheck(tinydata.Splits(12, 2, 3), set, core.HyperCheckOptions{Seed: 9})
			if err != nil {
				t.Fatal(err)
			}
			if scale == 0 {
				t.Fatal("the hypergradient is identically zero")
			}
			for _, h := range comps {
				if e := math.Abs(h.Analytic-h.Numeric) / (math.Max(math.Abs(h.Analytic), math.Abs(h.Numeric)) + 1e-4*scale); e > 1e-4 {
					t.Errorf("dR/d%s[%d] = %.10g, finite difference %.10g (rel err %.2g)", h.Which, h.Index, h.Analytic, h.Numeric, e)
				}
			}
		})
	}
}

// TestConverges: the short search .ci/run makes with g:resmlp, and a
// wider and deeper one, train their final model without diverging (its
// gradient stayed finite: the input layer had no ReLU and the blocks
// added up unscaled, and the final training at a maple search's lr 1
// blew up), and the search .ci/run makes reaches a sensible test
// worst-group accuracy on the synthetic data.
func TestConverges(t *testing.T) {
	for _, c := range []struct {
		name, model, seed string
		minWorst          float64 // 0: not checked
	}{
		{"ci's search", "g:resmlp:16,2", "1", 0.4},
		{"wider and deeper", "g:resmlp:64,3", "1", 0},
		{"wider and deeper, another seed", "g:resmlp:64,3", "4", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out, errb := new(bytes.Buffer), new(bytes.Buffer)
			f := &cmd.Factory{In: strings.NewReader(""), Out: out, Err: errb, RunsDir: dir, Terminal: func() bool { return false }}
			root := cmd.NewCmdRoot(f)
			root.SetArgs([]string{"run", "--model", c.model, "--seed", c.seed, "--outer-iters", "2", "--inner-steps", "10", "--eval-steps", "50", "--runs-dir", dir})
			root.SetOut(out)
			root.SetErr(errb)
			if err := root.ExecuteContext(context.Background()); err != nil {
				t.Fatalf("maple run: %v\n%s", err, errb)
			}
			infos, err := runs.Open(dir).List()
			if err != nil || len(infos) != 1 {
				t.Fatalf("%d runs (%v), want 1", len(infos), err)
			}
			sum, err := runs.ReadSummary(runs.Open(dir).RunDir(infos[0].ID))
			if err != nil || sum == nil || !sum.Done || sum.Result == nil {
				t.Fatalf("the run did not finish (%v)\n%s", err, errb)
			}
			if s := sum.Result.Stopped; s != nil {
				t.Errorf("the final training diverged at step %d", *s)
			}
			if w := sum.Result.TestWorst; w < c.minWorst {
				t.Errorf("test worst-group accuracy %.4f, want at least %.2f", w, c.minWorst)
			}
		})
	}
}
