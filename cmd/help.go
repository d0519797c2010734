package cmd

import (
	"fmt"

	"github.com/maple-ood/maple/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// examples are each command's --help examples.
var examples = map[string]string{
	"run": `  maple run --dataset synthetic --objective rex               # the dashboard on a terminal
  maple run --dataset cmnist --model mlp:64,64 --eval-model mlp:390,390 --outer-iters 50 --inner-steps 50 --headless
  maple run --dataset cmnist --method irmv1                      # a baseline at its published recipe
  maple run --dataset cmnist --detach                            # in the background; prints the run id
  maple run --dataset cmnist --weight-lr 0.25 --keep 1 --keep0 1  # weights learnt, every sample kept`,
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
	"stop": `  maple stop 140715-01          # a run: checkpointed, resumable with maple resume
  maple stop cm                 # a sweep: its running cells, and no new ones until it is rerun`,
	"tag": `  maple tag 140715-01 --name baseline-rex --add paper --note "the rex baseline for Table 2"
  maple show baseline-rex       # a name works wherever an id does`,
	"logs": `  maple logs latest -f          # follow the progress lines of a detached run`,
	"plot": `  maple plot 20261122-151839-01 --out figures/   # a run's figures
  maple plot cm                                  # a sweep's accuracy by method and against model width`,
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
	for _, g := range config.Groups {
		fs := pflag.NewFlagSet(string(g), pflag.ContinueOnError)
		for _, st := range config.Table {
			if fl := c.LocalFlags().Lookup(st.Flag); fl != nil && !fl.Hidden && st.Group == g {
				fs.AddFlag(fl)
				placed[st.Flag] = true
			}
		}
		if fs.HasFlags() {
			fmt.Fprintf(w, "\n%s flags:\n%s", g, fs.FlagUsages())
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
				fl.DefValue = "0" // pflag's zero value for numbers: no "(default ...)" is printed
			}
		}
	}
}
