package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/tui"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// runFlags are the settings of `maple run`.
type runFlags struct {
	data            loaders.Spec
	method          string
	headless, json  bool
	detach          bool
	set             core.Settings
	eval            core.EvalSettings
	evalModel       string
	checkpointEvery int
}

func runCmd(g *globals) *cobra.Command {
	f := &runFlags{set: core.DefaultSettings(), eval: core.DefaultEval(), data: loaders.DefaultSpec("synthetic")}
	c := &cobra.Command{
		Use:   "run",
		Short: "Start a MAPLE search (or a baseline), keep it in the runs dir and evaluate it by weighted ERM",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config(cmd.Flags().Changed("model"))
			if err != nil {
				return err
			}
			r, err := runs.Create(g.runsDir, cfg)
			if err != nil {
				return err
			}
			if f.detach {
				return detach(cmd, g, r)
			}
			if !f.headless && !f.json && interactive() {
				return executeTUI(cmd, g, r)
			}
			return execute(cmd, g, r, f.json)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.data.Name, "dataset", "synthetic", "dataset: "+strings.Join(loaders.Names, ", "))
	fl.StringVar(&f.method, "method", "maple", "maple, or a baseline: erm, oracle, irmv1, rex, groupdro, cvar, jtt, upweight")
	f.register(fl)
	fl.BoolVar(&f.headless, "headless", false, "print progress lines instead of the dashboard (also without a terminal)")
	fl.BoolVar(&f.json, "json", false, "print the summary as one JSON object on the last line of stdout")
	fl.BoolVar(&f.detach, "detach", false, "run in the background, surviving the terminal; print the run id and return")
	return c
}

// register adds the dataset options and every search and evaluation
// setting to fl (all but --dataset and --method).
func (f *runFlags) register(fl *pflag.FlagSet) {
	s, e := &f.set, &f.eval
	registerData(fl, &f.data)
	fl.StringVar(&s.Objective, "objective", s.Objective, "outer objective: irmv1, irmv1b, rex, cvar, worst-group, erm")
	fl.Float64Var(&s.Beta, "beta", s.Beta, "weight of the mean loss added to the outer objective")
	fl.Float64Var(&s.CVaRAlpha, "cvar-alpha", s.CVaRAlpha, "tail fraction of the cvar objective")
	fl.StringVar(&s.OuterOn, "outer-on", s.OuterOn, "split the outer objective is evaluated on: val or train")
	fl.StringVar(&s.Model, "model", s.Model, "search model: linear, mlp:W1,W2,..., cnn:C1,C2, cnns:C1,C2 (default linear on synthetic)")
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
	fl.IntVar(&e.EvalEvery, "eval-every", e.EvalEvery, "validation check every N steps of the final weighted ERM")
	fl.IntVar(&e.MinStep, "eval-min-step", e.MinStep, "first step whose checkpoint may be selected (0 = a tenth of --eval-steps)")
	fl.Float64Var(&e.Penalty, "penalty", e.Penalty, "irmv1/rex baseline penalty weight")
	fl.IntVar(&e.PenaltyAnneal, "penalty-anneal", e.PenaltyAnneal, "irmv1/rex baseline: steps with penalty weight 1 before --penalty applies")
	fl.IntVar(&f.checkpointEvery, "checkpoint-every", 5, "outer iterations between checkpoints")
}

// config checks the flags and returns the run's config. The model
// defaults to linear on the synthetic dataset unless it was set.
func (f *runFlags) config(modelSet bool) (runs.Config, error) {
	set, ev := f.set, f.eval
	if !modelSet && f.data.Name == "synthetic" {
		set.Model = "linear"
	}
	ev.Model, ev.Seed = f.evalModel, set.Seed
	if ev.Model == "" {
		ev.Model = set.Model
	}
	if !validMethod(f.method) {
		return runs.Config{}, fmt.Errorf("--method %q: want one of %s", f.method, strings.Join(core.Methods, ", "))
	}
	if err := set.Check(); err != nil {
		return runs.Config{}, err
	}
	if _, err := nets.ParseSpec(ev.Model); err != nil {
		return runs.Config{}, fmt.Errorf("--eval-model: %w", err)
	}
	if err := ev.Check(); err != nil {
		return runs.Config{}, err
	}
	if f.checkpointEvery < 1 {
		return runs.Config{}, fmt.Errorf("--checkpoint-every %d: want at least 1", f.checkpointEvery)
	}
	return runs.Config{Version: version, Dataset: f.data, Method: f.method, Settings: set, Eval: ev,
		CheckpointEvery: f.checkpointEvery, Args: os.Args}, nil
}

func validMethod(m string) bool {
	for _, x := range core.Methods {
		if x == m {
			return true
		}
	}
	return false
}

// execute runs r in this process with progress on stderr.
func execute(cmd *cobra.Command, g *globals, r *runs.Run, asJSON bool) error {
	defer r.Close()
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	stderr := cmd.ErrOrStderr()
	fmt.Fprintf(stderr, "run %s in %s\n", r.Config.ID, r.Dir)
	sum, err := runs.Execute(ctx, r, runs.Options{Log: stderr, Socket: true})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted; the state is checkpointed: continue with maple resume %s --runs-dir %s", r.Config.ID, g.runsDir)
		}
		return err
	}
	out := resultSummary(cmd.Context(), r.Config, sum)
	printResult(stderr, out)
	if asJSON {
		b, _ := json.Marshal(out)
		fmt.Fprintln(cmd.OutOrStdout(), string(b))
	}
	return nil
}

// interactive reports whether stdin and stdout are terminals.
func interactive() bool {
	for _, f := range []*os.File{os.Stdin, os.Stdout} {
		fi, err := f.Stat()
		if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			return false
		}
	}
	return true
}

// executeTUI runs r in this process under the live dashboard; the
// progress lines go to the run's log.txt.
func executeTUI(cmd *cobra.Command, g *globals, r *runs.Run) error {
	defer r.Close()
	ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	logf, err := os.OpenFile(r.Path(runs.LogFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	type result struct {
		sum *runs.Summary
		err error
	}
	hub := runs.NewHub()
	ready := make(chan runs.Control, 1)
	done := make(chan result, 1)
	go func() {
		sum, err := runs.Execute(ctx, r, runs.Options{Log: logf, Hub: hub, Socket: true, Ready: func(c runs.Control) { ready <- c }})
		done <- result{sum, err}
	}()
	var ctl runs.Control
	select {
	case ctl = <-ready:
	case res := <-done:
		if res.err == nil {
			res.err = fmt.Errorf("run %s ended before it started", r.Config.ID)
		}
		return res.err
	}
	end := make(chan tui.EndMsg, 1)
	final := make(chan result, 1)
	go func() {
		res := <-done
		m := tui.EndMsg{Err: res.err}
		if res.sum != nil {
			m.Status = res.sum.Status
		}
		end <- m
		final <- res
	}()
	uiErr := tui.RunLocal(ctx, tui.IO{}, r.Dir, r.Config, hub, ctl, end)
	var res result
	select {
	case res = <-final:
	default:
		// The screen closed while the search runs: stop it (resumable).
		ctl.Stop()
		res = <-final
	}
	if uiErr != nil {
		return uiErr
	}
	if res.err != nil {
		return res.err
	}
	if res.sum.Status != "done" {
		fmt.Fprintf(cmd.ErrOrStderr(), "run %s %s at iteration %d; continue with maple resume %s --runs-dir %s\n", r.Config.ID, res.sum.Status, res.sum.Iter, r.Config.ID, g.runsDir)
		return nil
	}
	printResult(cmd.ErrOrStderr(), resultSummary(cmd.Context(), r.Config, res.sum))
	return nil
}

// detach starts `maple resume ID` in a new session with its output in the
// run's log.txt, and returns.
func detach(cmd *cobra.Command, g *globals, r *runs.Run) error {
	id := r.Config.ID
	r.Close()
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	logf, err := os.OpenFile(r.Path(runs.LogFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	child := exec.Command(exe, "resume", id, "--runs-dir", g.runsDir)
	child.Stdout, child.Stderr = logf, logf
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := child.Start(); err != nil {
		return fmt.Errorf("cannot start the background search: %w", err)
	}
	child.Process.Release()
	fmt.Fprintln(cmd.OutOrStdout(), id)
	fmt.Fprintf(cmd.ErrOrStderr(), "search %s runs in the background (log: %s); watch it with maple attach %s\n", id, r.Path(runs.LogFile), id)
	return nil
}

// Summary is the final line of `maple run --json`.
type Summary struct {
	*core.Result
	RunID     string `json:"run_id"`
	Status    string `json:"status"`
	Objective string `json:"objective,omitempty"`
	// Linear-case figures on the synthetic dataset with a linear model.
	SpuriousShare    *float64 `json:"spurious_share,omitempty"`
	ERMSpuriousShare *float64 `json:"erm_spurious_share,omitempty"`
	ERMTestAcc       *float64 `json:"erm_test_acc,omitempty"`
	Seconds          float64  `json:"seconds"`
}

func resultSummary(ctx context.Context, cfg runs.Config, s *runs.Summary) *Summary {
	out := &Summary{Result: s.Result, RunID: cfg.ID, Status: s.Status, Seconds: s.Seconds}
	if out.Result == nil {
		out.Result = &core.Result{Method: cfg.Method, Dataset: cfg.Dataset.Name}
	}
	if cfg.Method == "maple" {
		out.Objective = cfg.Settings.Objective
	}
	if s.Result == nil || cfg.Dataset.Name != "synthetic" {
		return out
	}
	sp, err := cfg.Dataset.Load(cfg.Settings.Seed, nil)
	if err != nil {
		return out
	}
	if share, err := core.SpuriousShare(sp, s.Result.Theta); err == nil {
		out.SpuriousShare = &share
		if cfg.Method != "erm" {
			if erm, err := core.Baseline(ctx, sp, "erm", cfg.Eval); err == nil {
				if es, err := core.SpuriousShare(sp, erm.Theta); err == nil {
					out.ERMSpuriousShare, out.ERMTestAcc = &es, &erm.TestAcc
				}
			}
		}
	}
	return out
}

func printResult(w io.Writer, s *Summary) {
	if s.Status != "done" {
		fmt.Fprintf(w, "run %s: %s\n", s.RunID, s.Status)
		return
	}
	fmt.Fprintf(w, "%s on %s (model %s, seed %d), ", s.Method, s.Dataset, s.Model, s.Seed)
	s.Report(w)
	if s.SpuriousShare != nil {
		fmt.Fprintf(w, "  spurious share of the linear coefficient: %.4f", *s.SpuriousShare)
		if s.ERMSpuriousShare != nil {
			fmt.Fprintf(w, " (erm: %.4f, erm test acc %.4f)", *s.ERMSpuriousShare, *s.ERMTestAcc)
		}
		fmt.Fprintln(w)
	}
}
