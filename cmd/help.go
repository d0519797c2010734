package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// examples are each command's --help examples.
var examples = map[string]string{
	"run": `  maple run --dataset synthetic --objective rex               # the dashboard on a terminal
  maple run --dataset cmnist --model mlp:64,64 --eval-model mlp:390,390 --outer-iters 50 --inner-steps 50 --headless
  maple run --dataset cmnist --method irmv1                      # a baseline at its published recipe
  maple run --dataset cmnist --keep 0.3 --detach                 # in the background; prints the run id`,
	"resume": `  maple resume 20261122-151839-01
  maple resume 20261122-151839-01 --inner-lr 0.01 --detach      # after a NaN, with a lower rate`,
	"ls":     `  maple ls --json | jq '.[] | select(.status == "done") | .id'`,
	"show":   `  maple show 20261122-151839-01 --json`,
	"export": `  maple export 20261122-151839-01 --format npy --out weights/  # u.npy, weights.npy, keep_prob.npy, mask.npy, ids.npy, export.json`,
	"eval":   `  maple eval 20261122-151839-01 --model cnn:16,32                # transfer the weights to another model`,
	"attach": `  maple attach 20261122-151839-01            # the dashboard; q or esc leaves, the search goes on
  maple attach 20261122-151839-01 --lines    # progress lines, e.g. in a log`,
	"data": `  maple data cmnist --data-dir ../shared/data`,
	"sweep": `  maple sweep --name cm --datasets cmnist --methods erm,irmv1,maple:rex --seeds 1,2,3 --jobs 2
  maple sweep --name cm --datasets cmnist --methods erm,maple:rex --seeds 1,2,3 --slurm --slurm-args '--time=4:00:00'
  maple sweep --name cm --status`,
	"table": `  maple table --sweep cm --format markdown`,
	"plot": `  maple plot 20261122-151839-01 --out figures/   # a run's figures
  maple plot cm                                  # a sweep's accuracy against model width`,
}

// flagGroups sort a command's flags under headings in --help.
var flagGroups = []struct {
	title string
	flags string
}{
	{"Search", "objective beta cvar-alpha outer-on model seed outer-iters inner-steps inner-batch precision inner-lr momentum weight-decay inner-init weight-lr keep-lr keep keep0 select-iterate recipe eval-each-iter detach-sum mask-eps outer-scale init-params"},
	{"Evaluation and baselines", "method eval-model eval-steps eval-lr eval-momentum eval-weight-decay eval-same-init eval-every eval-min-step eval-optimizer l2 penalty penalty-anneal"},
	{"Data", "dataset data-dir train-size corr cmnist-envs label-noise downsample offline dir image-size features csv label-col env-col group-col split-col attr-col id-col"},
}

// groupedUsage prints a command's flags under the headings of flagGroups,
// the rest under "Run".
func groupedUsage(c *cobra.Command) error {
	w := c.OutOrStderr()
	fmt.Fprintf(w, "Usage:\n  %s\n", c.UseLine())
	if c.Example != "" {
		fmt.Fprintf(w, "\nExamples:\n%s\n", c.Example)
	}
	placed := map[string]bool{}
	for _, g := range flagGroups {
		fs := pflag.NewFlagSet(g.title, pflag.ContinueOnError)
		for _, name := range strings.Fields(g.flags) {
			if fl := c.LocalFlags().Lookup(name); fl != nil && !fl.Hidden {
				fs.AddFlag(fl)
				placed[name] = true
			}
		}
		if fs.HasFlags() {
			fmt.Fprintf(w, "\n%s flags:\n%s", g.title, fs.FlagUsages())
		}
	}
	rest := pflag.NewFlagSet("run", pflag.ContinueOnError)
	c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
		if !placed[fl.Name] && !fl.Hidden {
			rest.AddFlag(fl)
		}
	})
	c.InheritedFlags().VisitAll(func(fl *pflag.Flag) { rest.AddFlag(fl) })
	fmt.Fprintf(w, "\nRun flags:\n%s", rest.FlagUsages())
	return nil
}

// addHelp sets every command's examples, and the grouped flag help of
// run and sweep.
func addHelp(root *cobra.Command) {
	for _, c := range root.Commands() {
		if ex, ok := examples[c.Name()]; ok {
			c.Example = ex
		}
		if c.Name() == "run" || c.Name() == "sweep" {
			c.SetUsageFunc(groupedUsage)
		}
		// Defaults the help text states itself, not as a sentinel value.
		for _, name := range []string{"label-noise", "penalty", "penalty-anneal"} {
			if fl := c.Flags().Lookup(name); fl != nil {
				fl.DefValue = ""
			}
		}
	}
}
