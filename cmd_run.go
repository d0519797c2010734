package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
	"github.com/spf13/cobra"
)

// runFlags are the settings of `maple run`.
type runFlags struct {
	data            loaders.Spec
	method, runsDir string
	headless, json  bool
	set             core.Settings
	eval            core.EvalSettings
	evalModel       string
}

func runCmd() *cobra.Command {
	f := &runFlags{set: core.DefaultSettings(), eval: core.DefaultEval(), data: loaders.DefaultSpec("synthetic")}
	c := &cobra.Command{
		Use:   "run",
		Short: "Run a MAPLE search (or a baseline) and evaluate it by weighted ERM",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("model") && f.data.Name == "synthetic" {
				f.set.Model = "linear"
			}
			if f.evalModel == "" {
				f.evalModel = f.set.Model
			}
			f.eval.Model, f.eval.Seed = f.evalModel, f.set.Seed
			return runMain(cmd, f)
		},
	}
	fl := c.Flags()
	s, e := &f.set, &f.eval
	fl.StringVar(&f.data.Name, "dataset", "synthetic", "dataset: "+strings.Join(loaders.Names, ", "))
	registerData(fl, &f.data)
	fl.StringVar(&f.method, "method", "maple", "maple, erm, oracle, irmv1, rex, groupdro, cvar, jtt or upweight")
	fl.StringVar(&s.Objective, "objective", s.Objective, "outer objective: irmv1, irmv1b, rex, cvar, worst-group, erm")
	fl.Float64Var(&s.Beta, "beta", s.Beta, "weight of the mean loss added to the outer objective")
	fl.Float64Var(&s.CVaRAlpha, "cvar-alpha", s.CVaRAlpha, "tail fraction of the cvar objective")
	fl.StringVar(&s.OuterOn, "outer-on", s.OuterOn, "split the outer objective is evaluated on: val or train")
	fl.StringVar(&s.Model, "model", s.Model, "search model: linear, mlp:W1,W2,..., cnn:C1,C2 (default linear on synthetic)")
	fl.StringVar(&f.evalModel, "eval-model", "", "model of the final weighted ERM (default: the search model)")
	fl.Uint64Var(&s.Seed, "seed", s.Seed, "seed of the data, the search and the evaluation")
	fl.IntVar(&s.OuterIters, "outer-iters", s.OuterIters, "outer iterations")
	fl.IntVar(&s.InnerSteps, "inner-steps", s.InnerSteps, "inner SGD steps per outer iteration")
	fl.Float64Var(&s.InnerLR, "inner-lr", s.InnerLR, "inner SGD learning rate")
	fl.Float64Var(&s.Momentum, "momentum", s.Momentum, "inner SGD momentum")
	fl.Float64Var(&s.WeightDecay, "weight-decay", s.WeightDecay, "inner SGD weight decay")
	fl.StringVar(&s.InnerInit, "inner-init", s.InnerInit, "inner initialisation: fixed, fresh or warm")
	fl.Float64Var(&s.WeightLR, "weight-lr", s.WeightLR, "Adam learning rate of the sample weights")
	fl.Float64Var(&s.KeepLR, "keep-lr", s.KeepLR, "Adam learning rate of the keep probabilities")
	fl.Float64Var(&s.Keep, "keep", s.Keep, "final keep fraction K/n (1 = no sparsity)")
	fl.Float64Var(&s.Keep0, "keep0", s.Keep0, "initial keep fraction K0/n")
	fl.IntVar(&e.Steps, "eval-steps", e.Steps, "SGD steps of the final weighted ERM and the baselines")
	fl.Float64Var(&e.LR, "eval-lr", e.LR, "learning rate of the final weighted ERM and the baselines")
	fl.IntVar(&e.EvalEvery, "eval-every", e.EvalEvery, "validation check every N steps")
	fl.Float64Var(&e.Penalty, "penalty", e.Penalty, "irmv1/rex baseline penalty weight")
	fl.StringVar(&f.runsDir, "runs-dir", "runs", "runs directory (persistence is not built yet)")
	fl.BoolVar(&f.headless, "headless", false, "print progress lines instead of the dashboard")
	fl.BoolVar(&f.json, "json", false, "print the summary as one JSON object on the last line of stdout")
	return c
}

// Summary is the final line of `maple run --json`.
type Summary struct {
	*core.Result
	// Linear-case figures on the synthetic dataset with a linear model.
	SpuriousShare    *float64 `json:"spurious_share,omitempty"`
	ERMSpuriousShare *float64 `json:"erm_spurious_share,omitempty"`
	ERMTestAcc       *float64 `json:"erm_test_acc,omitempty"`
	Objective        string   `json:"objective,omitempty"`
	Seconds          float64  `json:"seconds"`
}

func runMain(cmd *cobra.Command, f *runFlags) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	sp, err := f.data.Load(f.set.Seed, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if err := f.set.Check(); err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	var res *core.Result
	if f.method == "maple" {
		eng, err := core.New(sp, f.set)
		if err != nil {
			return err
		}
		status, err := eng.Run(ctx, &lineRecorder{w: stderr})
		if err != nil {
			return err
		}
		if status != core.StatusDone {
			return fmt.Errorf("search %s", status)
		}
		out := eng.Output()
		res, err = core.WeightedERM(ctx, sp, out.Weights(), f.eval, "maple")
		if err != nil {
			return err
		}
	} else {
		res, err = core.Baseline(ctx, sp, f.method, f.eval)
		if err != nil {
			return err
		}
	}
	sum := Summary{Result: res, Seconds: time.Since(start).Seconds()}
	if f.method == "maple" {
		sum.Objective = f.set.Objective
	}
	if share, err := core.SpuriousShare(sp, res.Theta); err == nil {
		sum.SpuriousShare = &share
		if f.method != "erm" {
			if erm, err := core.Baseline(ctx, sp, "erm", f.eval); err == nil {
				if es, err := core.SpuriousShare(sp, erm.Theta); err == nil {
					sum.ERMSpuriousShare, sum.ERMTestAcc = &es, &erm.TestAcc
				}
			}
		}
	}
	printResult(stderr, &sum)
	if f.json {
		b, _ := json.Marshal(sum)
		fmt.Fprintln(cmd.OutOrStdout(), string(b))
	}
	return nil
}

func printResult(w io.Writer, s *Summary) {
	fmt.Fprintf(w, "%s on %s (model %s, seed %d), selected on validation (%s) at step %d:\n",
		s.Method, s.Dataset, s.Model, s.Seed, s.Criterion, s.SelectedStep)
	fmt.Fprintf(w, "  val  acc %.4f  worst-group %.4f\n  test acc %.4f  worst-group %.4f\n", s.ValAcc, s.ValWorst, s.TestAcc, s.TestWorst)
	for g, a := range s.PerGroupTest {
		fmt.Fprintf(w, "    test group %-10s %.4f\n", s.GroupNames[g], a)
	}
	fmt.Fprintf(w, "  oracle selection (test-selected, reference only): test acc %.4f worst-group %.4f at step %d\n",
		s.OracleSelection.TestAcc, s.OracleSelection.TestWorst, s.OracleSelection.Step)
	if s.SpuriousShare != nil {
		fmt.Fprintf(w, "  spurious share of the linear coefficient: %.4f", *s.SpuriousShare)
		if s.ERMSpuriousShare != nil {
			fmt.Fprintf(w, " (erm: %.4f, erm test acc %.4f)", *s.ERMSpuriousShare, *s.ERMTestAcc)
		}
		fmt.Fprintln(w)
	}
}

// lineRecorder prints one progress line per outer iteration.
type lineRecorder struct{ w io.Writer }

func (r *lineRecorder) Snapshot(s *core.Snapshot) error {
	eta := time.Duration(s.Elapsed / float64(s.Iter) * float64(s.Total-s.Iter) * float64(time.Second))
	fmt.Fprintf(r.w, "iter %4d/%d  outer %.5f  inner %.4f  val wg %.4f  test wg %.4f  |g| %.3g  %5.1fs  eta %s\n",
		s.Iter, s.Total, s.OuterRisk, s.InnerLoss, s.ValWorst, s.TestWorst, s.HyperNorm, s.Elapsed, eta.Round(time.Second))
	return nil
}

func (r *lineRecorder) Event(e core.Event) error {
	fmt.Fprintf(r.w, "event %s at iteration %d %s\n", e.Kind, e.Iter, e.Error)
	return nil
}

func (r *lineRecorder) Checkpoint(*core.State) error { return nil }
