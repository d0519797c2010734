package cmd

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/runs"
)

// TagOptions are the settings of `maple tag`.
type TagOptions struct {
	F           *Factory
	ID          string
	Name, Note  *string // nil: unchanged
	Add, Remove []string
}

// NewCmdTag builds `maple tag`; runF replaces the run function in tests.
func NewCmdTag(f *Factory, runF func(*TagOptions) error) *cobra.Command {
	o := &TagOptions{F: f}
	var name, note string
	c := &cobra.Command{
		Use:   "tag ID [--name NAME] [--add TAG] [--remove TAG] [--note TEXT]",
		Short: "Name a run, tag it or write a note on it (also while it runs); with no flag, print its labels",
		Args:  needArgs(1, "a run id", "see maple ls"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if cmd.Flags().Changed("name") {
				o.Name = &name
			}
			if cmd.Flags().Changed("note") {
				o.Note = &note
			}
			if err := errors.Join(runs.CheckTags(o.Add), checkName(o.Name)); err != nil {
				return usageError{err}
			}
			if runF != nil {
				return runF(o)
			}
			return tagRun(o)
		},
	}
	c.Flags().StringVar(&name, "name", "", "the run's name (\"\" removes it)")
	c.Flags().StringArrayVar(&o.Add, "add", nil, "add a tag (repeat for more)")
	c.Flags().StringArrayVar(&o.Remove, "remove", nil, "remove a tag (repeat for more)")
	c.Flags().StringVar(&note, "note", "", "the run's note (\"\" removes it)")
	return c
}

func checkName(name *string) error {
	if name == nil {
		return nil
	}
	return runs.CheckName(*name)
}

func tagRun(o *TagOptions) error {
	dir, err := runDir(o.F, o.ID)
	if err != nil {
		return err
	}
	if o.Name != nil && *o.Name != "" {
		if other, err := o.F.Store().Find(*o.Name); err == nil && other != dir {
			return usageError{fmt.Errorf("--name %s: run %s already has that name", *o.Name, filepath.Base(other))}
		}
	}
	cfg, err := runs.Relabel(dir, o.Name, o.Note, o.Add, o.Remove)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.F.Out, "run %s: name %q, tags [%s], note %q\n", cfg.ID, cfg.Name, strings.Join(cfg.Tags, " "), cfg.Note)
	return nil
}
