package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/runs"
	"github.com/spf13/cobra"
)

// cell is one run of a sweep.
type cell struct {
	key string
	cfg runs.Config
}

func sweepCmd(g *globals) *cobra.Command {
	f := &runFlags{set: core.DefaultSettings(), eval: core.DefaultEval(), data: loaders.DefaultSpec("synthetic")}
	var name, datasets, methods, seeds, models, sizes, format string
	var jobs int
	c := &cobra.Command{
		Use:   "sweep --name NAME --datasets A,B --methods erm,maple:rex,... --seeds 1,2,3",
		Short: "Run a grid of datasets x methods x seeds (each cell a normal run; an interrupted sweep resumes) and print the table",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if name == "" {
				return errors.New("--name is required: it identifies the sweep's runs so that a rerun resumes it")
			}
			if jobs < 1 {
				return fmt.Errorf("--jobs %d: want at least 1", jobs)
			}
			if err := runs.WriteTable(new(strings.Builder), nil, format); err != nil {
				return err
			}
			cells, err := sweepCells(f, name, datasets, methods, seeds, models, sizes, cmd.Flags().Changed("model"))
			if err != nil {
				return err
			}
			if err := runSweep(cmd, g, name, cells, jobs); err != nil {
				return err
			}
			rows, err := runs.Table(g.runsDir, name)
			if err != nil {
				return err
			}
			return runs.WriteTable(cmd.OutOrStdout(), rows, format)
		},
	}
	fl := c.Flags()
	fl.StringVar(&name, "name", "", "sweep name (required)")
	fl.StringVar(&datasets, "datasets", "synthetic", "comma-separated datasets")
	fl.StringVar(&methods, "methods", "erm,oracle,maple:rex", "comma-separated methods; maple:OBJECTIVE for a search with that outer objective")
	fl.StringVar(&seeds, "seeds", "1,2,3", "comma-separated seeds")
	fl.StringVar(&models, "models", "", "semicolon-separated models to sweep (search and evaluation), e.g. 'mlp:64,64;mlp:390,390' (default: --model)")
	fl.StringVar(&sizes, "train-sizes", "", "comma-separated training sizes to sweep (default: --train-size)")
	fl.IntVar(&jobs, "jobs", 1, "runs at a time (each uses the BLAS threads of the machine)")
	fl.StringVar(&format, "format", "text", "table format: text, markdown or csv")
	f.register(fl)
	return c
}

func split(s string) []string { return splitOn(s, ",") }

func splitOn(s, sep string) []string {
	var out []string
	for _, x := range strings.Split(s, sep) {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// sweepCells builds the grid's configs from the shared flags.
func sweepCells(f *runFlags, name, datasets, methods, seeds, models, sizes string, modelSet bool) ([]cell, error) {
	var cells []cell
	modelList := splitOn(models, ";")
	if len(modelList) == 0 {
		modelList = []string{""}
	}
	sizeList := split(sizes)
	if len(sizeList) == 0 {
		sizeList = []string{strconv.Itoa(f.data.TrainSize)}
	}
	for _, ds := range split(datasets) {
		for _, size := range sizeList {
			n, err := strconv.Atoi(size)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("--train-sizes: %q is not a size", size)
			}
			for _, model := range modelList {
				for _, m := range split(methods) {
					for _, sd := range split(seeds) {
						c, err := sweepCell(f, name, ds, n, model, m, sd, modelSet)
						if err != nil {
							return nil, err
						}
						cells = append(cells, c)
					}
				}
			}
		}
	}
	if len(cells) == 0 {
		return nil, errors.New("the grid is empty: give --datasets, --methods and --seeds")
	}
	return cells, nil
}

// sweepCell builds one cell: dataset ds at training size n, model (""
// keeps the flags'), method m (maple:OBJECTIVE for a search), seed sd.
func sweepCell(f *runFlags, name, ds string, n int, model, m, sd string, modelSet bool) (cell, error) {
	method, obj, isMaple := strings.Cut(m, ":")
	seed, err := strconv.ParseUint(sd, 10, 64)
	if err != nil {
		return cell{}, fmt.Errorf("--seeds: %q is not a seed", sd)
	}
	g := *f
	g.data.Name, g.data.TrainSize, g.method, g.set.Seed = ds, n, method, seed
	if model != "" {
		g.set.Model, g.evalModel, modelSet = model, "", true
	}
	if isMaple {
		if method != "maple" {
			return cell{}, fmt.Errorf("--methods: %q: only maple takes an objective (maple:rex)", m)
		}
		g.set.Objective = obj
	}
	cfg, err := g.config(modelSet)
	if err != nil {
		return cell{}, fmt.Errorf("cell %s %s seed %d: %w", ds, m, seed, err)
	}
	cfg.Sweep, cfg.Cell = name, fmt.Sprintf("%s|%d|%s|%s|%d", ds, n, cfg.Settings.Model, m, seed)
	return cell{key: cfg.Cell, cfg: cfg}, nil
}

// runSweep runs the cells that are not done, at most jobs at a time:
// finished cells are skipped, interrupted or stopped ones resumed.
func runSweep(cmd *cobra.Command, g *globals, name string, cells []cell, jobs int) error {
	existing := map[string]string{} // cell -> run id
	infos, err := runs.List(g.runsDir)
	if err != nil {
		return err
	}
	status := map[string]string{}
	for _, in := range infos {
		if cfg, err := runs.ReadConfig(filepath.Join(g.runsDir, in.ID)); err == nil && cfg.Sweep == name {
			existing[cfg.Cell], status[cfg.Cell] = in.ID, in.Status
		}
	}
	stderr := cmd.ErrOrStderr()
	var mu sync.Mutex
	logf := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, format+"\n", a...)
	}
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	var errs []error
	for _, c := range cells {
		id, ok := existing[c.key]
		switch {
		case ok && status[c.key] == "done":
			logf("%-40s done already (%s)", c.key, id)
			continue
		case ok && (status[c.key] == "running" || status[c.key] == "paused"):
			logf("%-40s running in another process (%s); skipped", c.key, id)
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			var r *runs.Run
			var err error
			if ok {
				r, err = runs.Open(g.runsDir, id)
				if err == nil {
					os.Remove(r.Path(runs.SummaryFile)) // a stopped run goes on
				}
			} else {
				r, err = runs.Create(g.runsDir, c.cfg)
			}
			if err == nil {
				err = runCell(cmd, r, logf, c.key)
			}
			if err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("%s: %w", c.key, err))
				mu.Unlock()
				logf("%-40s failed: %v", c.key, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func runCell(cmd *cobra.Command, r *runs.Run, logf func(string, ...any), key string) error {
	defer r.Close()
	lf, err := os.OpenFile(r.Path(runs.LogFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer lf.Close()
	logf("%-40s started (%s)", key, r.Config.ID)
	sum, err := runs.Execute(cmd.Context(), r, runs.Options{Log: lf, Socket: true})
	if err != nil {
		return err
	}
	if sum.Result != nil {
		logf("%-40s %s: test acc %.1f%%, test worst-group %.1f%% (selected on validation)", key, sum.Status, 100*sum.Result.TestAcc, 100*sum.Result.TestWorst)
	}
	return nil
}

func tableCmd(g *globals) *cobra.Command {
	var sweep, format string
	c := &cobra.Command{
		Use:   "table [--sweep NAME]",
		Short: "Print the results table of a sweep (or of every finished run)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rows, err := runs.Table(g.runsDir, sweep)
			if err != nil {
				return err
			}
			return runs.WriteTable(cmd.OutOrStdout(), rows, format)
		},
	}
	c.Flags().StringVar(&sweep, "sweep", "", "only the runs of this sweep")
	c.Flags().StringVar(&format, "format", "text", "text, markdown or csv")
	return c
}

func plotCmd(g *globals) *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "plot ID|SWEEP --out DIR",
		Short: "Write a run's figures (weight fractions, histograms, outer risk, worst-group accuracy) or a sweep's accuracy-vs-width figure, as PNG and SVG",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var files []string
			dir, err := runDir(g, args[0])
			if err != nil {
				// Not a run: a sweep name.
				if out == "" {
					out = filepath.Join(g.runsDir, "figures-"+args[0])
				}
				files, err = runs.PlotSweep(g.runsDir, args[0], out)
			} else {
				if out == "" {
					out = filepath.Join(dir, "figures")
				}
				files, err = runs.Plot(dir, out)
			}
			for _, f := range files {
				fmt.Fprintln(cmd.OutOrStdout(), f)
			}
			return err
		},
	}
	c.Flags().StringVar(&out, "out", "", "output directory (default: the run's figures/)")
	return c
}
