package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/report"
)

// ShowOptions are the settings of `maple show`.
type ShowOptions struct {
	F    *Factory
	ID   string
	JSON bool
}

// NewCmdShow builds `maple show`; runF replaces the run function in tests.
func NewCmdShow(f *Factory, runF func(*ShowOptions) error) *cobra.Command {
	o := &ShowOptions{F: f}
	c := &cobra.Command{
		Use:   "show ID",
		Short: "Show a run's config, final summary and events",
		Args:  needArgs(1, "a run id", "see maple ls"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if runF != nil {
				return runF(o)
			}
			return showRun(o)
		},
	}
	c.Flags().BoolVar(&o.JSON, "json", false, "print as JSON")
	return c
}

func showRun(o *ShowOptions) error {
	f := o.F
	dir, err := runDir(f, o.ID)
	if err != nil {
		return err
	}
	if o.JSON {
		d, problems := report.ReadShow(dir)
		for _, e := range problems { // as the text form lists them
			fmt.Fprintln(f.Err, "problem:", e)
		}
		return writeJSON(f, d)
	}
	report.WriteShow(f.Out, dir)
	return nil
}
