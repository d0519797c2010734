package runs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
)

// Options configure Execute.
type Options struct {
	Log    io.Writer     // progress lines and messages; nil for none
	Hub    *Hub          // live listeners; nil for a private hub
	Socket bool          // serve the attach socket while the search runs
	Ready  func(Control) // called with the engine once it exists, before it starts
}

// Execute runs (or continues, from its checkpoint) the search or baseline
// of r and evaluates it, keeping everything on disk as it goes. When ctx
// is cancelled the state is checkpointed and ctx's error returned: the run
// can be resumed. The summary is written when the run ends otherwise.
func Execute(ctx context.Context, r *Run, opt Options) (*Summary, error) {
	start := time.Now()
	logf := func(format string, a ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, format+"\n", a...)
		}
	}
	cfg := r.Config
	sp, err := cfg.Dataset.Load(cfg.Settings.Seed, opt.Log)
	if err != nil {
		return nil, err
	}
	if cfg.Method != "maple" {
		res, err := core.Baseline(ctx, sp, cfg.Method, cfg.Eval)
		if err != nil {
			return nil, r.fail(err, 0, 0, start)
		}
		s := &Summary{Done: true, Status: "done", Result: res, Finished: time.Now(), Seconds: time.Since(start).Seconds(), BestValWorst: -1}
		return s, writeJSONAtomic(r.Path(SummaryFile), s)
	}
	eng, err := core.New(sp, cfg.Settings)
	if err != nil {
		return nil, err
	}
	st, err := ReadCheckpoint(r.Dir, func(m string) { logf("warning: %s; using the previous checkpoint", m) })
	if err != nil {
		return nil, err
	}
	iter := 0
	if st != nil {
		if err := eng.Restore(st); err != nil {
			return nil, fmt.Errorf("runs: %s does not fit this run: %w", r.Path(CheckpointFile), err)
		}
		iter = st.Iter
		logf("resuming %s from its checkpoint at iteration %d", cfg.ID, iter)
	}
	hist, err := truncateMetrics(r, iter)
	if err != nil {
		return nil, err
	}
	events, _ := ReadEvents(r.Dir)
	hub := opt.Hub
	if hub == nil {
		hub = NewHub()
	}
	hub.SetHistory(hist, events)
	rec := &recorder{run: r, eng: eng, hub: hub, log: opt.Log}
	if rec.metrics, err = os.OpenFile(r.Path(MetricsFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	defer rec.metrics.Close()
	if rec.events, err = os.OpenFile(r.Path(EventsFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	defer rec.events.Close()
	if st != nil {
		rec.Event(core.Event{Kind: core.EventResume, Iter: iter})
	}
	if opt.Socket {
		srv, err := Serve(r, hub, eng)
		if err != nil {
			return nil, err
		}
		defer srv.Close()
	}
	if opt.Ready != nil {
		opt.Ready(eng)
	}
	status, err := eng.Run(ctx, rec)
	final := eng.State()
	if err != nil || status == core.StatusStopped {
		if cerr := r.WriteCheckpoint(final); cerr != nil {
			logf("warning: final checkpoint: %v", cerr)
		}
		if err != nil {
			return nil, err
		}
		s := &Summary{Status: "stopped", Iter: final.Iter, Total: cfg.Settings.OuterIters, Finished: time.Now(),
			Seconds: time.Since(start).Seconds(), BestValWorst: bestVal(hub)}
		return s, writeJSONAtomic(r.Path(SummaryFile), s)
	}
	out := eng.Output()
	if err := WriteExports(r.Dir, out, sp.Train); err != nil {
		return nil, r.fail(err, final.Iter, cfg.Settings.OuterIters, start)
	}
	logf("search done; evaluating weighted ERM of %s on the learned weights", cfg.Eval.Model)
	res, err := core.WeightedERM(ctx, sp, out.Weights(), cfg.Eval, "maple")
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, r.fail(err, final.Iter, cfg.Settings.OuterIters, start)
	}
	s := &Summary{Done: true, Status: "done", Iter: final.Iter, Total: cfg.Settings.OuterIters, Result: res,
		Finished: time.Now(), Seconds: time.Since(start).Seconds(), BestValWorst: bestVal(hub)}
	return s, writeJSONAtomic(r.Path(SummaryFile), s)
}

func bestVal(h *Hub) float64 {
	best := -1.0
	for _, s := range h.History() {
		best = max(best, s.ValWorst)
	}
	return best
}

// fail records a failed run and returns err.
func (r *Run) fail(err error, iter, total int, start time.Time) error {
	s := &Summary{Status: "failed", Error: err.Error(), Iter: iter, Total: total, Finished: time.Now(), Seconds: time.Since(start).Seconds(), BestValWorst: -1}
	if werr := writeJSONAtomic(r.Path(SummaryFile), s); werr != nil {
		return errors.Join(err, werr)
	}
	return err
}

// ExportLatest writes the exports of the run in dir from its latest
// checkpoint and returns the checkpoint's iteration.
func ExportLatest(dir string) (int, error) {
	_, sp, out, iter, err := final(dir, nil)
	if err != nil {
		return 0, err
	}
	return iter, WriteExports(dir, out, sp.Train)
}

// Final rebuilds a finished (or checkpointed) search: its dataset, and
// its output from the last checkpoint. It is what export and eval use.
func Final(dir string, progress io.Writer) (*Config, *loaders.Splits, *core.Output, error) {
	cfg, sp, out, _, err := final(dir, progress)
	return cfg, sp, out, err
}

func final(dir string, progress io.Writer) (*Config, *loaders.Splits, *core.Output, int, error) {
	cfg, err := ReadConfig(dir)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	if cfg.Method != "maple" {
		return nil, nil, nil, 0, fmt.Errorf("runs: run %s is a %s baseline: it has no learned weights", cfg.ID, cfg.Method)
	}
	st, err := ReadCheckpoint(dir, func(string) {})
	if err != nil {
		return nil, nil, nil, 0, err
	}
	if st == nil {
		return nil, nil, nil, 0, fmt.Errorf("runs: run %s has no checkpoint yet", cfg.ID)
	}
	sp, err := cfg.Dataset.Load(cfg.Settings.Seed, progress)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	eng, err := core.New(sp, cfg.Settings)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	if err := eng.Restore(st); err != nil {
		return nil, nil, nil, 0, err
	}
	return cfg, sp, eng.Output(), st.Iter, nil
}
