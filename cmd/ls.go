package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
	"github.com/maple-ood/maple/tui"
)

// lsOrders are maple ls --sort's orders.
var lsOrders = map[string]func(a, b runs.Info) int{
	"started": func(a, b runs.Info) int { return a.Started.Compare(b.Started) },
	"time":    func(a, b runs.Info) int { return cmp.Compare(a.Elapsed, b.Elapsed) },
	"name":    func(a, b runs.Info) int { return cmp.Compare(a.Name, b.Name) },
	"status":  func(a, b runs.Info) int { return cmp.Compare(a.Status.String(), b.Status.String()) },
	"test":    func(a, b runs.Info) int { return cmp.Compare(b.TestAcc, a.TestAcc) },
}

// LsOptions are the settings of `maple ls`.
type LsOptions struct {
	F        *Factory
	JSON     bool
	Tags     []string // only runs with every one of these tags
	Sort     string   // started (default), time, name, status, test
	Archived bool     // list the archive (maple archive) instead
}

// NewCmdLs builds `maple ls`; runF replaces the run function in tests.
func NewCmdLs(f *Factory, runF func(*LsOptions) error) *cobra.Command {
	o := &LsOptions{F: f}
	c := &cobra.Command{
		Use:     "ls",
		Aliases: []string{"list"},
		Short:   "List the runs (the runs browser on a terminal)",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return lsRun(cmd.Context(), f, o)
		},
	}
	c.Flags().BoolVar(&o.JSON, "json", false, "print the list as JSON")
	c.Flags().StringArrayVar(&o.Tags, "tag", nil, "only the runs with this tag (repeat: with every one)")
	c.Flags().StringVar(&o.Sort, "sort", "started", "order: started, time (searching), name, status or test (test accuracy, best first)")
	c.Flags().BoolVar(&o.Archived, "archived", false, "list the archived runs (maple archive; --restore brings one back) instead")
	return c
}

func lsRun(ctx context.Context, f *Factory, o *LsOptions) error {
	asJSON := o.JSON
	if !asJSON && f.Terminal() && len(o.Tags) == 0 && !o.Archived {
		return browse(ctx, f)
	}
	less, ok := lsOrders[o.Sort]
	if !ok {
		return usageError{fmt.Errorf("--sort %q: want started, time, name, status or test", o.Sort)}
	}
	from := f.RunsDir
	if o.Archived {
		from = f.Store().ArchiveDir()
	}
	list, err := runs.Open(from).List()
	if err != nil {
		return err
	}
	list = slices.DeleteFunc(list, func(in runs.Info) bool {
		for _, t := range o.Tags {
			if !slices.Contains(in.Tags, t) {
				return true
			}
		}
		return false
	})
	slices.SortStableFunc(list, less)
	if asJSON {
		return writeJSON(f, append([]runs.Info{}, list...))
	}
	if len(list) == 0 && o.Archived {
		fmt.Fprintf(f.Out, "no archived runs in %s (maple archive ID|SWEEP moves runs there)\n", from)
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintf(f.Out, "no runs in %s; start one with: maple run --dataset synthetic --headless\n", f.RunsDir)
		return nil
	}
	return report.WriteList(f.Out, list)
}

// browse runs the runs browser and the actions it hands back (typed, with
// a run's whole config for a new run) until the person leaves it.
func browse(ctx context.Context, f *Factory) error {
	b := tui.NewBrowser(f.RunsDir)
	for ctx.Err() == nil {
		act, err := b.Run(ctx, tui.IO{})
		if err != nil || act.Kind == tui.ActionNone {
			return err
		}
		switch act.Kind {
		case tui.ActionAttach:
			err = attachRun(ctx, f, act.ID, false)
		case tui.ActionResume:
			err = resumeRun(ctx, &ResumeOptions{F: f, ID: act.ID})
		case tui.ActionNew:
			err = newRun(ctx, f, *act.Config, act.Set)
		case tui.ActionSweep:
			err = attachSweep(ctx, f, act.ID, false)
		}
		if err != nil && !errors.Is(err, errInterrupted) {
			fmt.Fprintln(f.Err, "maple:", err)
			fmt.Fprint(f.Err, "press enter to go back to the runs browser ")
			fmt.Fscanln(f.In)
		}
	}
	return errInterrupted
}

// newRun starts a run of the browser's new-run form: set holds the
// settings kept as cfg has them (the selected run's pinned settings and
// the fields the person changed); the others are derived as maple run
// derives them (the objective's outer scale, keep0 from keep).
func newRun(ctx context.Context, f *Factory, cfg runs.Config, set map[string]bool) error {
	cfg.Version, cfg.Commit = version, commit()
	cfg, err := config.ResolveSet(cfg, set)
	if err != nil {
		return err
	}
	cfg.Dataset = cfg.Dataset.WithDigest() // the person's own files, as they are now
	sp, err := config.Prepare(cfg, f.Err)
	if err != nil {
		return err
	}
	r, err := f.Store().Create(cfg)
	if err != nil {
		return err
	}
	defer r.Close()
	return executeRun(ctx, f, r, session.Options{Socket: true}, false, false, sp)
}
