package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/sweeps"
)

// warnLeftOut names on stderr the runs a table of the named sweeps
// leaves out.
func warnLeftOut(f *Factory, names ...string) {
	for _, m := range report.LeftOut(f.RunsDir, names...) {
		fmt.Fprintln(f.Err, "warning:", m)
	}
}

// TableOptions are the settings of `maple table`.
type TableOptions struct {
	F      *Factory
	Sweeps []string // --sweep, repeatable or comma-separated; none: every finished run
	Format string
	JSON   bool
	PerRun bool
	// GroupBy pools the runs by these settings (flags, or method,
	// dataset, seed, sweep, model) instead of by configuration.
	GroupBy []string
}

// NewCmdTable builds `maple table`; runF replaces the run function in
// tests.
func NewCmdTable(f *Factory, runF func(*TableOptions) error) *cobra.Command {
	o := &TableOptions{F: f}
	c := &cobra.Command{
		Use:        "table [--sweep NAME[,NAME...]]",
		SuggestFor: []string{"compare"}, // runs are compared by their sweep's table (or the browser)
		Short:      "Print the results table of a sweep, of several as one (a grid split over sweeps), or of every finished run",
		Args:       noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.PerRun && !cmd.Flags().Changed("format") {
				o.Format = "csv" // the one format of a row per run
			}
			if runF != nil {
				return runF(o)
			}
			return tableRun(o)
		},
	}
	c.Flags().BoolVar(&o.JSON, "json", false, "print the rows as JSON")
	c.Flags().StringSliceVar(&o.GroupBy, "group-by", nil, "pool the runs by these settings (flags such as objective, keep or model; or method, dataset, seed, sweep)")
	c.Flags().BoolVar(&o.PerRun, "per-run", false, "one row per finished run, as csv (or --json), instead of mean ± sd over seeds")
	c.Flags().StringSliceVar(&o.Sweeps, "sweep", nil, "only the runs of this sweep (repeat it, or separate names by commas, for one table of several)")
	c.Flags().StringVar(&o.Format, "format", "text", "text, markdown or csv")
	return c
}

func tableRun(o *TableOptions) error {
	f, names := o.F, o.Sweeps
	if len(o.GroupBy) > 0 {
		if o.PerRun {
			return usageError{fmt.Errorf("--group-by pools runs and --per-run lists them one by one: give one of them")}
		}
		if _, err := report.Table(f.RunsDir, names...); err != nil {
			return sweepUsage(err) // names a missing sweep
		}
		rows, err := report.GroupBy(f.RunsDir, o.GroupBy, names...)
		if err != nil {
			return usageError{err}
		}
		warnLeftOut(f, names...)
		warnMixedDatasets(f, o.GroupBy, rows)
		if o.JSON {
			return writeJSON(f, append([]report.GroupRow{}, rows...))
		}
		if len(rows) == 0 && o.Format != "csv" {
			return writeTable(f, nil, o.Format, names...)
		}
		return report.WriteGroups(f.Out, o.GroupBy, rows, o.Format)
	}
	if o.PerRun {
		if _, err := report.Table(f.RunsDir, names...); err != nil {
			return sweepUsage(err) // names a missing sweep
		}
		rows, err := report.Runs(f.RunsDir, names...)
		if err != nil {
			return err
		}
		warnLeftOut(f, names...)
		if o.JSON {
			return writeJSON(f, append([]report.RunRow{}, rows...))
		}
		if o.Format != "csv" {
			return usageError{fmt.Errorf("--format %s: --per-run writes csv or --json; leave --format out", o.Format)}
		}
		return report.WriteRunsCSV(f.Out, rows)
	}
	rows, err := report.Table(f.RunsDir, names...)
	if err != nil {
		return sweepUsage(err)
	}
	warnLeftOut(f, names...)
	if o.JSON {
		if err := writeJSON(f, append([]report.Row{}, rows...)); err != nil {
			return err
		}
		noteMissing(f, "json", names...)
		return nil
	}
	if err := writeTable(f, rows, o.Format, names...); err != nil {
		return err
	}
	noteMissing(f, o.Format, names...)
	return nil
}

// warnMixedDatasets warns of each group that pools runs of several
// datasets, whose mean mixes figures of different scales.
func warnMixedDatasets(f *Factory, keys []string, rows []report.GroupRow) {
	for _, r := range rows {
		if len(r.Datasets) < 2 {
			continue
		}
		var group []string
		for i, k := range keys {
			group = append(group, k+"="+r.Values[i])
		}
		fmt.Fprintf(f.Err, "warning: the group %s pools runs of %d datasets (%s) into one mean; --group-by %s,dataset keeps them apart\n",
			strings.Join(group, " "), len(r.Datasets), strings.Join(r.Datasets, ", "), strings.Join(keys, ","))
	}
}

// noteMissing marks a table of the named sweeps that lacks cells: which
// and why (sweeps.Missing), under a text or markdown table, on stderr for
// csv and JSON (which stay what they are for scripts).
func noteMissing(f *Factory, format string, names ...string) {
	for _, name := range names {
		lines, cells, err := sweeps.Missing(f.RunsDir, name)
		if err != nil {
			fmt.Fprintf(f.Err, "warning: %v\n", err)
			continue
		}
		if len(lines) == 0 {
			continue
		}
		w, item := f.Out, "  "
		switch format {
		case "csv", "json":
			w = f.Err
		case "markdown":
			item = "- "
		}
		fmt.Fprintf(w, "\nsweep %s: this table lacks %d of %d cells:\n", name, len(lines), cells)
		if format == "markdown" {
			fmt.Fprintln(w)
		}
		for _, l := range lines {
			fmt.Fprintln(w, item+l)
		}
	}
}

// sweepUsage makes a missing sweep's error a usage error (exit 2).
func sweepUsage(err error) error {
	var ns *report.NoSweepError
	if errors.As(err, &ns) {
		return usageError{err}
	}
	return err
}

// writeTable writes the results table of the named sweeps (every run
// when none is named) in format; a text or markdown table without a
// finished run is a line on stderr saying so instead of an empty table
// under its caption (csv keeps its header for scripts).
func writeTable(f *Factory, rows []report.Row, format string, names ...string) error {
	if len(rows) > 0 || format == "csv" {
		return report.WriteTable(f.Out, rows, format)
	}
	var named []string
	for _, n := range names {
		if n != "" {
			named = append(named, n)
		}
	}
	switch len(named) {
	case 0:
		fmt.Fprintf(f.Err, "no finished runs in %s yet (see maple ls)\n", f.RunsDir)
	case 1:
		fmt.Fprintf(f.Err, "no finished runs in sweep %s yet (see maple sweep --name %s --status)\n", named[0], named[0])
	default:
		fmt.Fprintf(f.Err, "no finished runs in sweeps %s yet (see maple sweep --name NAME --status)\n", strings.Join(named, ", "))
	}
	return nil
}
