package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/tui"
	"github.com/spf13/cobra"
)

func lsCmd(g *globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "ls",
		Short: "List the runs: id, dataset, method, status, progress, best val and selected test worst-group accuracy",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return lsMain(cmd, g, asJSON) },
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	return c
}

func pct(v float64) string {
	if v < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

func lsMain(cmd *cobra.Command, g *globals, asJSON bool) error {
	if !asJSON && interactive() {
		return browse(cmd, g)
	}
	list, err := runs.List(g.runsDir)
	if err != nil {
		return err
	}
	if asJSON {
		if list == nil {
			list = []runs.Info{}
		}
		return writeJSON(cmd, list)
	}
	if len(list) == 0 {
		fmt.Fprintf(cmd.OutOrStdout(), "no runs in %s; start one with: maple run --dataset synthetic --headless\n", g.runsDir)
		return nil
	}
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tDATASET\tMETHOD\tSTATUS\tITER\tBEST VAL WG\tTEST WG (selected)\tTEST ACC")
	for _, in := range list {
		it := "-"
		if in.Total > 0 {
			it = fmt.Sprintf("%d/%d", in.Iter, in.Total)
		}
		status := in.Status
		if in.Problem != "" {
			status += " (damaged file)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", in.ID, in.Dataset, in.Method, status, it, pct(in.BestVal), pct(in.TestWorst), pct(in.TestAcc))
	}
	return tw.Flush()
}

// browse runs the runs browser, and what it asks for, until the person
// leaves it.
func browse(cmd *cobra.Command, g *globals) error {
	for {
		act, err := tui.Browse(cmd.Context(), tui.IO{}, g.runsDir)
		if err != nil || act.Kind == "" {
			return err
		}
		var args []string
		switch act.Kind {
		case "attach":
			args = []string{"attach", act.ID}
		case "resume":
			args = []string{"resume", act.ID}
		case "new":
			args = act.Args
		}
		root := rootCmd()
		root.SetArgs(append(args, "--runs-dir", g.runsDir))
		if err := root.ExecuteContext(cmd.Context()); err != nil {
			fmt.Fprintln(cmd.ErrOrStderr(), "maple:", err)
			fmt.Fprint(cmd.ErrOrStderr(), "press enter to go back to the runs browser ")
			fmt.Fscanln(os.Stdin)
		}
	}
}

func writeJSON(cmd *cobra.Command, v any) error {
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func runDir(g *globals, id string) (string, error) {
	dir := filepath.Join(g.runsDir, id)
	if _, err := os.Stat(filepath.Join(dir, runs.LockFile)); err != nil {
		return "", fmt.Errorf("no run %q in %s (see maple ls)", id, g.runsDir)
	}
	return dir, nil
}

func showCmd(g *globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "show ID",
		Short: "Show a run's config, final summary and events",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := runDir(g, args[0])
			if err != nil {
				return err
			}
			info := runs.Stat(dir)
			cfg, cerr := runs.ReadConfig(dir)
			sum, serr := runs.ReadSummary(dir)
			events, eerr := runs.ReadEvents(dir)
			if asJSON {
				return writeJSON(cmd, map[string]any{"info": info, "config": cfg, "summary": sum, "events": events})
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "run %s: %s on %s, %s", info.ID, info.Method, info.Dataset, info.Status)
			if info.Total > 0 {
				fmt.Fprintf(w, ", iteration %d/%d", info.Iter, info.Total)
			}
			fmt.Fprintln(w)
			for _, e := range []error{cerr, serr, eerr} {
				if e != nil {
					fmt.Fprintln(w, "  problem:", e)
				}
			}
			if cfg != nil {
				s, e := cfg.Settings, cfg.Eval
				fmt.Fprintf(w, "config: started %s, maple %s, seed %d\n", cfg.Started.Format("2006-01-02 15:04:05"), cfg.Version, s.Seed)
				if cfg.Method == "maple" {
					fmt.Fprintf(w, "  search: model %s, objective %s (beta %g) on %s, %d outer x %d inner steps, inner lr %g momentum %g wd %g, init %s\n",
						s.Model, s.Objective, s.Beta, s.OuterOn, s.OuterIters, s.InnerSteps, s.InnerLR, s.Momentum, s.WeightDecay, s.InnerInit)
					fmt.Fprintf(w, "          weight lr %g, keep lr %g, keep %g (from %g), checkpoint every %d\n", s.WeightLR, s.KeepLR, s.Keep, s.Keep0, cfg.CheckpointEvery)
				}
				fmt.Fprintf(w, "  evaluation: model %s, %d steps, lr %g, validation check every %d\n", e.Model, e.Steps, e.LR, e.EvalEvery)
				if cfg.Method == "maple" {
					snaps, _ := runs.ReadMetrics(dir)
					printSearchTime(w, snaps)
				}
			}
			if sum != nil && sum.Result != nil {
				fmt.Fprintf(w, "summary (%s): ", sum.Status)
				sum.Result.Report(w)
			} else if sum != nil {
				fmt.Fprintf(w, "summary: %s %s\n", sum.Status, sum.Error)
			}
			if len(events) > 0 {
				fmt.Fprintln(w, "events:")
				for _, e := range events {
					fmt.Fprintf(w, "  before iteration %d: %s%s%s\n", e.Iter+1, e.Kind, lrText(e.LR), errText(e.Error))
				}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}

func lrText(lr *core.LearningRates) string {
	if lr == nil {
		return ""
	}
	return fmt.Sprintf(" weight-lr %g keep-lr %g inner-lr %g", lr.Weight, lr.Keep, lr.Inner)
}

func errText(e string) string {
	if e == "" {
		return ""
	}
	return ": " + e
}

func resumeCmd(g *globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "resume ID",
		Short: "Continue an interrupted or stopped run from its checkpoint",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := runs.Open(g.runsDir, args[0])
			if err != nil {
				return err
			}
			if sum, _ := runs.ReadSummary(r.Dir); sum != nil {
				if sum.Done {
					r.Close()
					return fmt.Errorf("run %s is done; see maple show %s", args[0], args[0])
				}
				os.Remove(r.Path(runs.SummaryFile)) // a stopped run goes on
			}
			return execute(cmd, g, r, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the summary as one JSON object on the last line of stdout")
	return c
}

func exportCmd(g *globals) *cobra.Command {
	var format, out string
	c := &cobra.Command{
		Use:   "export ID",
		Short: "Write a run's learned weights as CSV or .npy",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "csv" && format != "npy" {
				return fmt.Errorf("--format %q: want csv or npy", format)
			}
			dir, err := runDir(g, args[0])
			if err != nil {
				return err
			}
			_, sp, o, err := runs.Final(dir, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if out == "" {
				out = dir
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			if err := runs.WriteExports(out, o, sp.Train, format); err != nil {
				return err
			}
			names := []string{runs.WeightsCSV}
			if format == "npy" {
				names = []string{runs.WeightsNPY, runs.KeepNPY}
			}
			for _, n := range names {
				fmt.Fprintln(cmd.OutOrStdout(), filepath.Join(out, n))
			}
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "csv", "csv or npy")
	c.Flags().StringVar(&out, "out", "", "output directory (default: the run directory)")
	return c
}

func evalCmd(g *globals) *cobra.Command {
	var model string
	var steps int
	c := &cobra.Command{
		Use:   "eval ID --model SPEC",
		Short: "Weighted ERM of another architecture on a run's learned weights (the transfer experiment)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if model == "" {
				return errors.New("--model is required (e.g. mlp:390,390 or cnn)")
			}
			dir, err := runDir(g, args[0])
			if err != nil {
				return err
			}
			cfg, sp, o, err := runs.Final(dir, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			es := cfg.Eval
			es.Model = model
			if steps > 0 {
				es.Steps = steps
			}
			res, err := core.WeightedERM(cmd.Context(), sp, o.Weights(), es, "maple")
			if err != nil {
				return err
			}
			name := "eval-" + strings.NewReplacer(":", "_", ",", "-").Replace(model) + ".json"
			b, _ := json.MarshalIndent(res, "", "  ")
			if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
				return err
			}
			printResult(cmd.ErrOrStderr(), &Summary{Result: res, RunID: cfg.ID, Status: "done"})
			fmt.Fprintln(cmd.OutOrStdout(), filepath.Join(dir, name))
			return nil
		},
	}
	c.Flags().StringVar(&model, "model", "", "architecture to train on the weights")
	c.Flags().IntVar(&steps, "eval-steps", 0, "SGD steps (default: the run's)")
	return c
}

func attachCmd(g *globals) *cobra.Command {
	var lines bool
	c := &cobra.Command{
		Use:   "attach ID",
		Short: "Open the live dashboard of a search running in another process",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := runDir(g, args[0])
			if err != nil {
				return err
			}
			cl, err := runs.Attach(dir)
			if err != nil {
				return err
			}
			defer cl.Close()
			if interactive() && !lines {
				return tui.RunAttached(cmd.Context(), tui.IO{}, dir, cl)
			}
			w := cmd.OutOrStdout()
			for m := range cl.Msgs {
				switch m.Kind {
				case "hello":
					fmt.Fprintf(w, "attached to %s (%s on %s), %d iterations so far\n", m.Config.ID, m.Config.Method, m.Config.Dataset.Name, len(m.History))
				case "snapshot":
					s := m.Snapshot
					fmt.Fprintf(w, "iter %4d/%d  outer %.5f  val wg %.4f  (test wg %.4f)  %s\n", s.Iter, s.Total, s.OuterRisk, s.ValWorst, s.TestWorst, s.Status)
				case "event":
					fmt.Fprintf(w, "event %s before iteration %d%s%s\n", m.Event.Kind, m.Event.Iter+1, lrText(m.Event.LR), errText(m.Event.Error))
				case "error":
					fmt.Fprintln(w, "error:", m.Error)
				}
			}
			fmt.Fprintln(w, "the search closed the connection (finished or stopped)")
			return nil
		},
	}
	c.Flags().BoolVar(&lines, "lines", false, "print progress lines instead of the dashboard (also without a terminal)")
	return c
}

// printSearchTime prints the seconds a search spent per phase (nothing
// before its first outer iteration).
func printSearchTime(w io.Writer, snaps []*core.Snapshot) {
	if len(snaps) == 0 {
		return
	}
	t, last := runs.SearchTime(snaps), snaps[len(snaps)-1]
	fmt.Fprintf(w, "search time over %d iterations: inner %.1f s (%.2f s per iteration), outer gradient %.1f s, hypergradient %.1f s; final keep fraction %.3f\n",
		len(snaps), t.Inner, t.Inner/float64(len(snaps)), t.OuterGrad, t.Hyper, last.KeepFrac)
}
