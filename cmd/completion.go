package cmd

import (
	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/export"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/report"
)

// Shell completion (cobra's `maple completion bash|zsh|fish|powershell`):
// run ids and sweep names from the runs directory, and the names maple
// knows for datasets, methods, objectives and models.

func runIDs(f *Factory) []string {
	list, _ := f.Store().List()
	var ids []string
	for _, in := range list {
		ids = append(ids, in.ID+"\t"+in.Method+" on "+in.Dataset+", "+in.Status.String())
	}
	return ids
}

func sweepNames(f *Factory) []string { return f.Store().SweepNames() }

// values completes a flag with the values vals returns when completion
// runs (after every registration).
func values(vals func() []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return vals(), cobra.ShellCompDirectiveNoFileComp
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

// sweepMethods are --methods' values: every method, and for a method
// that searches (maple) NAME:OBJECTIVE for every outer objective (from
// the registries).
func sweepMethods() []string {
	out := baselines.Methods()
	for _, s := range baselines.Searchers() {
		for _, o := range core.Objectives() {
			out = append(out, s+":"+o)
		}
	}
	return out
}

// registerCompletion adds the completions of every command's arguments
// and value flags: a setting's values from its row of the settings table
// (config.Setting.Values, from the registries), a sweep's axes from the
// datasets' and methods' registries.
func registerCompletion(f *Factory, root *cobra.Command) {
	flagValues := map[string]func() []string{
		"format":   func() []string { return report.TableFormats },
		"datasets": func() []string { return loaders.Names() },
		"methods":  sweepMethods,
	}
	for _, st := range config.Table {
		if st.Values != nil {
			flagValues[st.Flag] = st.Values
		}
	}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for name, vals := range flagValues {
			if name == "format" && c.Name() == "export" {
				vals = func() []string { return export.Formats } // export writes files, not tables
			}
			if c.Flags().Lookup(name) != nil {
				c.RegisterFlagCompletionFunc(name, values(vals))
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
			c.ValidArgsFunction = values(func() []string { return loaders.Names() })
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
