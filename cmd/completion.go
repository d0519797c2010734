package cmd

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/export"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/runs"
)

// Shell completion (cobra's `maple completion bash|zsh|fish|powershell`):
// run ids and sweep names from the runs directory, and the names maple
// knows for datasets, methods, objectives and models.

func runIDs(f *Factory) []string {
	list, _ := runs.List(f.RunsDir)
	var ids []string
	for _, in := range list {
		ids = append(ids, in.ID+"\t"+in.Method+" on "+in.Dataset+", "+in.Status.String())
	}
	return ids
}

func sweepNames(f *Factory) []string { return runs.SweepNames(f.RunsDir) }

func fixed(v ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return v, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeRuns completes a command's one run id argument (and sweep
// names when sweeps is set).
func completeRuns(f *Factory, sweeps bool) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		out := runIDs(f)
		if sweeps {
			out = append(out, sweepNames(f)...)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// sweepMethods are --methods' values: every method, and maple:OBJECTIVE
// for every outer objective (both from core's registries).
func sweepMethods() []string {
	out := slices.Clone(baselines.Methods)
	for _, o := range core.Objectives {
		out = append(out, core.MethodMaple+":"+o)
	}
	return out
}

// registerCompletion adds the completions of every command's arguments
// and value flags.
func registerCompletion(f *Factory, root *cobra.Command) {
	models := models.Examples()
	flagValues := map[string][]string{
		"dataset": loaders.Names, "method": baselines.Methods, "objective": core.Objectives, "model": models,
		"eval-model": models, "outer-on": {"val", "train"}, "inner-init": {"fixed", "fresh", "warm"},
		"select-iterate": {"val", "final"}, "eval-optimizer": {"sgd", "adam"}, "format": {"text", "markdown", "csv"},
		"datasets": loaders.Names, "methods": sweepMethods(),
	}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for name, vals := range flagValues {
			if name == "format" && c.Name() == "export" {
				vals = export.Formats // export writes files, not tables
			}
			if c.Flags().Lookup(name) != nil {
				c.RegisterFlagCompletionFunc(name, fixed(vals...))
			}
		}
		for _, name := range []string{"sweep", "name"} {
			if c.Flags().Lookup(name) != nil {
				c.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
					return sweepNames(f), cobra.ShellCompDirectiveNoFileComp
				})
			}
		}
		switch c.Name() {
		case "show", "resume", "export", "eval", "attach", "logs":
			c.ValidArgsFunction = completeRuns(f, false)
		case "plot", "stop":
			c.ValidArgsFunction = completeRuns(f, true)
		case "data":
			c.ValidArgsFunction = fixed(loaders.Names...)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
