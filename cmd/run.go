package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/tui"
)

// RunOptions are the settings of `maple run`.
type RunOptions struct {
	F                      *Factory
	Config                 runs.Config // defaults, then the flags
	EvalModel              string
	Set                    map[string]bool // the flags the person set
	Headless, JSON, Detach bool
}

// NewCmdRun builds `maple run`; runF replaces the run function in tests.
func NewCmdRun(f *Factory, runF func(*RunOptions) error) *cobra.Command {
	o := &RunOptions{F: f, Config: runs.DefaultConfig("synthetic")}
	o.Config.Settings.Model = core.DefaultSettings().Model
	c := &cobra.Command{
		Use:   "run",
		Short: "Start a MAPLE search (or a baseline), keep it in the runs dir and evaluate it by weighted ERM",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Set = changed(cmd)
			if runF != nil {
				return runF(o)
			}
			return runRun(cmd.Context(), o)
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.Config.Dataset.Name, "dataset", "synthetic", "dataset: "+strings.Join(loaders.Names, ", "))
	fl.StringVar(&o.Config.Method, "method", core.MethodMaple, core.MethodMaple+", or a baseline: "+strings.Join(core.Methods[1:], ", "))
	registerSettings(fl, &o.Config, &o.EvalModel)
	fl.BoolVar(&o.Headless, "headless", false, "print progress lines instead of the dashboard (also without a terminal)")
	fl.BoolVar(&o.JSON, "json", false, "print the outcome as one JSON object on the last line of stdout")
	fl.BoolVar(&o.Detach, "detach", false, "run in the background, surviving the terminal; print the run id once the search has started")
	return c
}

// changed returns the names of the flags set on cmd's command line.
func changed(cmd *cobra.Command) map[string]bool {
	set := map[string]bool{}
	cmd.Flags().Visit(func(f *pflag.Flag) { set[f.Name] = true })
	return set
}

// registerData adds the dataset options (all but --dataset) to fl.
func registerData(fl *pflag.FlagSet, d *loaders.Spec) {
	fl.StringVar(&d.DataDir, "data-dir", "", "data directory (default $MAPLE_DATA_DIR, else the user cache dir + /maple)")
	fl.IntVar(&d.TrainSize, "train-size", 0, "keep a seeded subset of this many training samples (0 = all)")
	fl.StringVar(&d.Corr, "corr", "", "per-env spurious parameters, train0,train1,test: cmnist colour flips (default 0.1,0.2,0.9), synthetic agreements (0.9,0.8,0.1), mnist-fashion/cifar-mnist correlations (0.999,0.7,0.1)")
	fl.StringVar(&d.Envs, "cmnist-envs", "", "cmnist: how the 50000 training images split into the two envs: shuffle (the IRM code's seeded shuffle; the default) or parity (even/odd MNIST index, as runs before this option were built)")
	fl.Float64Var(&d.LabelNoise, "label-noise", -1, "label flip probability (default 0.25 for cmnist, 0.1 for mnist-fashion and cifar-mnist)")
	fl.IntVar(&d.Downsample, "downsample", 0, "mnist-fashion / cifar-mnist: keep every k-th pixel (default 2 and 1)")
	fl.BoolVar(&d.Offline, "offline", false, "never download a missing file")
	fl.StringVar(&d.Dir, "dir", "", "waterbirds / celeba: the dataset folder (default <data-dir>/waterbirds or <data-dir>/celeba)")
	fl.IntVar(&d.ImageSize, "image-size", 64, "waterbirds / celeba: resize and centre-crop images to this size")
	fl.StringVar(&d.Features, "features", "", "waterbirds / celeba / features: .npy of per-sample features, one row per metadata row")
	fl.StringVar(&d.CSV, "csv", "", "features: CSV with a header (features and/or label, env, group, split columns)")
	for _, col := range []struct {
		p          *string
		name, help string
	}{{&d.Columns.Label, "label-col", "label column"}, {&d.Columns.Env, "env-col", "environment column (optional in the file)"},
		{&d.Columns.Group, "group-col", "group column (optional in the file)"}, {&d.Columns.Split, "split-col", "split column (train/val/test or 0/1/2)"},
		{&d.Columns.Attr, "attr-col", "spurious attribute column (optional in the file)"}, {&d.Columns.ID, "id-col", "sample id column (optional; default the row number)"}} {
		fl.StringVar(col.p, col.name, *col.p, "features: "+col.help)
	}
	fl.StringVar(&d.Columns.FeatureCols, "feature-cols", "", "features: comma-separated feature columns (default: every column that is not an annotation, nor pandas' unnamed index)")
}

// registerSettings adds the dataset options and every search and
// evaluation setting to fl (all but --dataset and --method).
func registerSettings(fl *pflag.FlagSet, c *runs.Config, evalModel *string) {
	s, e := &c.Settings, &c.Eval
	registerData(fl, &c.Dataset)
	fl.StringVar(&s.Objective, "objective", s.Objective, "outer objective: "+strings.Join(core.Objectives, ", "))
	fl.Float64Var(&s.Beta, "beta", s.Beta, "weight of the mean loss added to the outer objective")
	fl.Float64Var(&s.CVaRAlpha, "cvar-alpha", s.CVaRAlpha, "tail fraction of the cvar objective")
	fl.StringVar(&s.OuterOn, "outer-on", s.OuterOn, "split the outer objective is evaluated on: val or train")
	fl.StringVar(&s.Model, "model", s.Model, "search model: linear, mlp:W1,W2,..., cnn:C1,C2, cnns:C1,C2; linear on synthetic unless given")
	fl.StringVar(evalModel, "eval-model", "", "model of the final weighted ERM (default: the search model)")
	fl.Uint64Var(&s.Seed, "seed", s.Seed, "seed of the data, the search and the evaluation")
	fl.IntVar(&s.OuterIters, "outer-iters", s.OuterIters, "outer iterations")
	fl.IntVar(&s.InnerSteps, "inner-steps", s.InnerSteps, "inner SGD steps per outer iteration")
	fl.StringVar(&s.Precision, "precision", "f32", "precision of the inner training's matrix products: f32, or bf16 (float32 accumulation; onednn build on a CPU with avx512_bf16)")
	fl.IntVar(&s.InnerBatch, "inner-batch", s.InnerBatch, "inner minibatch size (0 = full batch over the kept samples); each step's loss normalised by its minibatch's weight sum")
	fl.Float64Var(&s.InnerLR, "inner-lr", s.InnerLR, "inner SGD learning rate")
	fl.Float64Var(&s.Momentum, "momentum", s.Momentum, "inner SGD momentum")
	fl.Float64Var(&s.WeightDecay, "weight-decay", s.WeightDecay, "inner SGD weight decay")
	fl.StringVar(&s.InnerInit, "inner-init", s.InnerInit, "inner initialisation: fixed, fresh or warm")
	fl.Float64Var(&s.WeightLR, "weight-lr", s.WeightLR, "Adam learning rate of the sample weights")
	fl.Float64Var(&s.KeepLR, "keep-lr", s.KeepLR, "Adam learning rate of the keep probabilities")
	fl.Float64Var(&s.Keep, "keep", s.Keep, "final keep fraction K/n (1 = no sparsity)")
	fl.Float64Var(&s.Keep0, "keep0", s.Keep0, "initial keep fraction K0/n")
	fl.StringVar(&s.Recipe, "recipe", "", "a preset: maple-reference (the MAPLE code's ColoredMNIST recipe: keep scores only, keep 0.3, keep lr 1.5, outer on train, 30 x 100, the code's hypergradient, mask and IRMv1 scale (--detach-sum, --mask-eps 1e-20, --outer-scale 0.5), every iterate evaluated from the search's initial model by SGD lr 1.0 momentum 0.9 for 200 steps, checked at every step; flags given override it)")
	fl.BoolVar(&s.DetachSum, "detach-sum", false, "hold the inner loss's weight sum constant in the hypergradient, as the MAPLE code does (an approximation; maple-reference sets it)")
	fl.Float64Var(&s.MaskEps, "mask-eps", 0, "draw keep masks with this eps inside the logarithms of the keep logit, as the MAPLE code does (1e-20; maple-reference sets it); 0 clamps the keep probability to [1e-6, 1-1e-6]")
	fl.Float64Var(&s.OuterScale, "outer-scale", 0, "multiply the outer risk and its gradient by this (0 = 1); Adam's steps change only through its eps (maple-reference sets 0.5 for irmv1, the MAPLE code's mean over two environments)")
	fl.StringVar(&s.InitParams, "init-params", "", "a .npy of the search model's initial parameters (flat float32; per layer the in x out weights row by row, then the biases) instead of the seeded initialisation")
	fl.BoolVar(&e.SameInit, "eval-same-init", false, "start the evaluation model from the search model's initial parameters, as the MAPLE code does (the two models must match; maple-reference sets it)")
	fl.Float64Var(&e.Momentum, "eval-momentum", e.Momentum, "SGD momentum of the final weighted ERM and the baselines")
	fl.Float64Var(&e.WeightDecay, "eval-weight-decay", e.WeightDecay, "SGD weight decay of the final weighted ERM and the baselines")
	fl.BoolVar(&s.EvalEachIter, "eval-each-iter", false, "train the evaluation model on every iterate's weights and record its figures (costly)")
	fl.StringVar(&s.SelectIterate, "select-iterate", s.SelectIterate, "weights the final weighted ERM trains on: val (the iterate whose inner model scores best on validation) or final")
	fl.IntVar(&e.Steps, "eval-steps", e.Steps, "SGD steps of the final weighted ERM and the baselines")
	fl.Float64Var(&e.LR, "eval-lr", e.LR, "learning rate of the final weighted ERM and the baselines")
	fl.IntVar(&e.EvalEvery, "eval-every", e.EvalEvery, "validation check every N steps of the final weighted ERM")
	fl.IntVar(&e.MinStep, "eval-min-step", e.MinStep, "first step whose checkpoint may be selected (0 = a tenth of --eval-steps)")
	fl.Float64Var(&e.Penalty, "penalty", e.Penalty, "irmv1/rex baseline penalty weight (those baselines default to the IRM paper's recipe: 91257.19, anneal 190, Adam lr 4.898e-4, L2 1.1079e-3, 501 steps)")
	fl.IntVar(&e.PenaltyAnneal, "penalty-anneal", e.PenaltyAnneal, "irmv1/rex baseline: steps with penalty weight 1 before --penalty applies")
	fl.StringVar(&e.Optimizer, "eval-optimizer", e.Optimizer, "optimizer of the final weighted ERM and the baselines: sgd or adam")
	fl.Float64Var(&e.L2, "l2", e.L2, "coefficient of the L2 term sum theta² added to the evaluation and baseline loss")
	fl.IntVar(&c.CheckpointEvery, "checkpoint-every", c.CheckpointEvery, "outer iterations between checkpoints")
}

// config returns the run's config from the flags, resolved and checked.
func (o *RunOptions) config() (runs.Config, error) {
	c := o.Config
	c.Version, c.Commit, c.Args = version, commit(), os.Args
	c, err := runs.Resolve(c, o.Set, o.EvalModel)
	if err != nil {
		return c, usageError{err}
	}
	return c, nil
}

func runRun(ctx context.Context, o *RunOptions) error {
	cfg, err := o.config()
	if err != nil {
		return err
	}
	sp, err := runs.PrepareContext(ctx, cfg, o.F.Err) // everything checked before the run directory exists
	if ctx.Err() != nil {
		return errInterrupted // while the data loaded: nothing was created
	}
	if err != nil {
		return usageError{err}
	}
	r, err := runs.Create(o.F.RunsDir, cfg)
	if err != nil {
		return err
	}
	if o.Detach {
		return detach(o.F, r, nil)
	}
	defer r.Close()
	return executeRun(ctx, o.F, r, runs.Options{Socket: true}, o.Headless || o.JSON, o.JSON, sp)
}

// executeRun runs r in this process: under the dashboard on a terminal
// (a maple search), else with progress lines on stderr; then prints the
// outcome, or how to continue.
func executeRun(ctx context.Context, f *Factory, r *runs.Run, opt runs.Options, headless, asJSON bool, splits *dataset.Splits) error {
	sum, err := tui.Execute(ctx, f.Terminal() && !headless, f.Err, r, splits, opt)
	if sum == nil {
		return err
	}
	if sum.Status != core.StatusDone {
		fmt.Fprintln(f.Err, runs.Continue(f.RunsDir, sum, r.Config.ID))
		switch {
		case sum.Status == core.StatusInterrupted:
			return errInterrupted
		case err != nil:
			return fmt.Errorf("run %s failed", r.Config.ID)
		}
		return nil
	}
	out := runs.NewOutcome(ctx, r.Config, sum)
	out.Print(f.Err)
	if asJSON {
		b, _ := json.Marshal(out)
		fmt.Fprintln(f.Out, string(b))
	}
	return nil
}

// detach continues r in the background and prints its id once its
// search has started.
func detach(f *Factory, r *runs.Run, extra []string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if err := runs.Detach(exe, r, f.RunsDir, extra); err != nil {
		return err
	}
	fmt.Fprintln(f.Out, r.Config.ID)
	fmt.Fprintf(f.Err, "search %s runs in the background (log: %s); watch it with maple attach %s\n", r.Config.ID, r.Path(runs.LogFile), r.Config.ID)
	return nil
}

// ResumeOptions are the settings of `maple resume`.
type ResumeOptions struct {
	F              *Factory
	ID             string
	Headless, JSON bool
	Detach         bool
	Rates          core.LearningRates // 0 keeps the rate in force
	DataDir        string
	ReadyFD        int // internal: the detaching parent's pipe
}

// NewCmdResume builds `maple resume`.
func NewCmdResume(f *Factory, runF func(*ResumeOptions) error) *cobra.Command {
	o := &ResumeOptions{F: f}
	c := &cobra.Command{
		Use:   "resume ID",
		Short: "Continue an interrupted, stopped or failed run from its checkpoint (optionally with new learning rates)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if runF != nil {
				return runF(o)
			}
			return resumeRun(cmd.Context(), o)
		},
	}
	fl := c.Flags()
	fl.BoolVar(&o.Headless, "headless", false, "print progress lines instead of the dashboard (also without a terminal)")
	fl.BoolVar(&o.JSON, "json", false, "print the outcome as one JSON object on the last line of stdout")
	fl.BoolVar(&o.Detach, "detach", false, "continue in the background; print the run id once the search has started")
	fl.Float64Var(&o.Rates.Weight, "weight-lr", 0, "new Adam learning rate of the sample weights (default: the one in force)")
	fl.Float64Var(&o.Rates.Keep, "keep-lr", 0, "new Adam learning rate of the keep probabilities (default: the one in force)")
	fl.Float64Var(&o.Rates.Inner, "inner-lr", 0, "new inner SGD learning rate (default: the one in force)")
	fl.StringVar(&o.DataDir, "data-dir", "", "the data directory, when it moved since the run started")
	fl.IntVar(&o.ReadyFD, "ready-fd", 0, "")
	fl.MarkHidden("ready-fd")
	return c
}

func resumeRun(ctx context.Context, o *ResumeOptions) error {
	r, rates, extra, err := runs.Reopen(o.F.RunsDir, o.ID, o.Rates, o.DataDir)
	if err != nil {
		return err
	}
	if o.Detach {
		return detach(o.F, r, extra)
	}
	os.Remove(r.Path(runs.SummaryFile)) // a stopped or failed run goes on
	defer r.Close()
	opt := runs.Options{Socket: true, Rates: rates}
	if o.ReadyFD > 0 {
		if opt.Ready = runs.ReadyPipe(o.ReadyFD); r.Config.Method != "maple" {
			opt.Ready(nil) // a baseline has no search to wait for
		}
	}
	return executeRun(ctx, o.F, r, opt, o.Headless || o.JSON, o.JSON, nil)
}
