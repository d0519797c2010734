package runs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/loaders"
)

// Options configure Execute.
type Options struct {
	Log    io.Writer // progress lines and messages; nil for none
	Lines  bool      // print a progress line per outer iteration on Log
	Hub    *Hub      // live listeners; nil for a private hub
	Socket bool      // serve the attach socket while the search runs
	// Ready is called with the engine once it exists and the socket
	// listens, before the search starts (never for a baseline).
	Ready func(Control)
	// Watched tells whether someone can act on a paused search; nil
	// means: whenever a listener (an attached client, a dashboard) is
	// subscribed to the hub. Unwatched, a NaN or a disk error ends the
	// run as failed, checkpointed at its last good iteration, instead of
	// waiting for a resume that nobody will send.
	Watched func() bool
	// Rates, when set, replace the learning rates from the first
	// iteration this Execute runs (maple resume ID --inner-lr X).
	Rates *core.LearningRates
}

// withProgressLines returns ctx carrying a progress function that logs a
// line every tenth of a training run's steps (the final evaluation's, a
// baseline's).
func withProgressLines(ctx context.Context, steps int, logf func(string, ...any)) context.Context {
	every := max(1, steps/10)
	last := -every
	return core.WithProgress(ctx, func(step, steps int, valWorst, testWorst float64) {
		if step-last >= every || step == steps {
			last = step
			logf("training step %d/%d: val worst-group %.4f  (test worst-group %.4f)", step, steps, valWorst, testWorst)
		}
	})
}

// runBaseline trains the comparison method of r and writes its summary.
func runBaseline(ctx, trainCtx context.Context, r *Run, sp *dataset.Splits, start time.Time) (*Summary, error) {
	res, err := core.Baseline(trainCtx, sp, r.Config.Method, r.Config.Eval)
	if ctx.Err() != nil {
		return &Summary{Status: core.StatusInterrupted}, nil
	}
	if err != nil {
		return nil, r.fail(err, 0, 0, start)
	}
	s := &Summary{Done: true, Status: core.StatusDone, Result: res, Finished: time.Now(), Seconds: time.Since(start).Seconds(), BestValWorst: -1}
	return s, writeJSONAtomic(r.Path(SummaryFile), s)
}

// restore gives eng the state of r's checkpoint, if it has one, and
// returns it and its iteration (0 for a run that starts from the
// beginning, also one stopped before its first checkpoint).
func restore(r *Run, eng *core.Engine, logf func(string, ...any), warn func(string)) (*core.State, int, error) {
	st, err := ReadCheckpoint(r.Dir, func(m string) { warn(m + "; using the previous checkpoint") })
	if err != nil {
		return nil, 0, err
	}
	if st != nil {
		if err := eng.Restore(st); err != nil {
			return nil, 0, fmt.Errorf("%s does not fit this run: %w", r.Path(CheckpointFile), err)
		}
		logf("resuming %s from its checkpoint at iteration %d", r.Config.ID, st.Iter)
		return st, st.Iter, nil
	}
	if snaps, _ := ReadMetrics(r.Dir); len(snaps) > 0 {
		// Stopped before its first checkpoint: it starts again from the
		// beginning, its records set aside (cutMetrics says where).
		logf("run %s has no checkpoint yet: it starts again from iteration 1", r.Config.ID)
	}
	return nil, 0, nil
}

// openRecorder opens r's metrics and events files for appending, after
// iteration iter.
func openRecorder(r *Run, eng *core.Engine, iter int) (*recorder, error) {
	fr := &recorder{run: r, eng: eng, written: iter}
	var err error
	if fr.metrics, err = os.OpenFile(r.Path(MetricsFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, filePerm); err != nil {
		return nil, err
	}
	if fr.events, err = os.OpenFile(r.Path(EventsFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, filePerm); err != nil {
		fr.metrics.Close()
		return nil, err
	}
	return fr, nil
}

func (fr *recorder) close() {
	fr.metrics.Close()
	fr.events.Close()
}

// unfinished ends a search that stopped before its end: the engine's
// state (that of the last iteration on record) checkpointed, and the
// summary of a failed or stopped run written; an interrupted one has none
// (it is resumable, and maple ls tells it by its free lock).
func unfinished(r *Run, sum *Summary, final *core.State, runErr error, logf func(string, ...any)) (*Summary, error) {
	sum.CheckpointErr = r.WriteCheckpoint(final)
	if sum.CheckpointErr != nil {
		logf("warning: final checkpoint: %v", sum.CheckpointErr)
	}
	switch {
	case sum.Status == core.StatusFailed:
		sum.Error = runErr.Error()
		sum.Rates = final.LR
		return sum, errors.Join(runErr, writeJSONAtomic(r.Path(SummaryFile), sum))
	case runErr != nil: // ctx cancelled: interrupted, resumable
		sum.Status = core.StatusInterrupted
		return sum, nil
	}
	return sum, writeJSONAtomic(r.Path(SummaryFile), sum)
}

// Execute runs (or continues, from its checkpoint) the search or baseline
// of r on sp (nil: loaded from the run's config) and evaluates it,
// keeping everything on disk as it goes. The returned summary's status
// says how it ended:
//
//   - done, failed, stopped: written to summary.json;
//   - interrupted (ctx cancelled, a signal): no summary.json, so the run
//     lists as interrupted; the state is checkpointed unless
//     Summary.CheckpointErr says otherwise.
//
// The error is non-nil when the run could not go on (failed) or could
// not start.
func Execute(ctx context.Context, r *Run, sp *dataset.Splits, opt Options) (*Summary, error) {
	start := time.Now()
	logf := func(format string, a ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, format+"\n", a...)
		}
	}
	cfg := r.Config
	trainCtx := ctx // the baseline's or final evaluation's, with progress lines
	if opt.Lines && opt.Log != nil {
		trainCtx = withProgressLines(ctx, cfg.Eval.Steps, logf)
	}
	total := cfg.Settings.OuterIters
	if cfg.Method != "maple" {
		total = 0
	}
	if sp == nil {
		var err error
		sp, err = untilDone(ctx, func() (*dataset.Splits, error) { return cfg.Dataset.Load(cfg.Settings.Seed, opt.Log) })
		if ctx.Err() != nil {
			return &Summary{Status: core.StatusInterrupted}, nil // stopped while the data loaded
		}
		if err != nil {
			return nil, r.fail(err, 0, total, start)
		}
	}
	if cfg.Method != "maple" {
		return runBaseline(ctx, trainCtx, r, sp, start)
	}
	eng, err := core.New(sp, cfg.Settings)
	if err != nil {
		return nil, r.fail(err, 0, total, start)
	}
	if err := setInit(eng, cfg.Settings.InitParams); err != nil {
		return nil, r.fail(err, 0, total, start)
	}
	// What was set aside or skipped on disk: logged, and told to the
	// dashboard and attached clients as warning events once they listen.
	var warnings []string
	warn := func(m string) {
		logf("warning: %s", m)
		warnings = append(warnings, m)
	}
	st, iter, err := restore(r, eng, logf, warn)
	if err != nil {
		return nil, err
	}
	if rate := opt.Rates; rate != nil {
		// maple resume ID --inner-lr X: new rates from the next iteration.
		if err := eng.SetLR(*rate); err != nil {
			return nil, err
		}
	}
	hist, err := cutMetrics(r, iter, warn)
	if err != nil {
		return nil, err
	}
	if len(hist) > 0 {
		eng.Elapsed = hist[len(hist)-1].Elapsed
	}
	events, _ := ReadEvents(r.Dir)
	hub := opt.Hub
	if hub == nil {
		hub = NewHub()
	}
	hub.SetHistory(hist, events)
	fr, err := openRecorder(r, eng, iter)
	if err != nil {
		return nil, err
	}
	defer fr.close()
	recs := []core.Recorder{fr, hubRecorder{hub}}
	if opt.Lines && opt.Log != nil {
		recs = append(recs, Printer{W: opt.Log})
	}
	rec := core.Tee(recs...)
	if st != nil {
		rec.Event(core.Event{Kind: core.EventResume, Iter: iter})
	}
	for _, m := range warnings {
		rec.Event(core.Event{Kind: core.EventWarning, Iter: iter, Error: m})
	}
	if opt.Socket {
		srv, err := Serve(r, hub, eng)
		if err != nil {
			return nil, err
		}
		defer srv.Close()
	}
	if cfg.Settings.EvalEachIter {
		es := cfg.Eval
		eng.EvalEach = &es
	}
	eng.Watched = opt.Watched
	if eng.Watched == nil {
		eng.Watched = func() bool { return hub.Listeners() > 0 }
	}
	if opt.Ready != nil {
		opt.Ready(eng)
	}
	status, runErr := eng.Run(ctx, rec)
	final := eng.State()
	sum := &Summary{Status: status, Iter: final.Iter, Total: total, Finished: time.Now(),
		Seconds: time.Since(start).Seconds(), BestValWorst: bestVal(hub)}
	if status != core.StatusDone {
		return unfinished(r, sum, final, runErr, logf)
	}
	out := eng.Output()
	sum.SelectedIter = out.Iter
	if err := WriteExports(r.Dir, &cfg, core.StatusDone, final.Iter, out, sp.Train); err != nil {
		return nil, r.fail(err, final.Iter, total, start)
	}
	logf("search done; evaluating weighted ERM of %s on the learned weights", cfg.Eval.Model)
	rec.Event(core.Event{Kind: core.EventEvaluate, Iter: final.Iter})
	var init []float32
	if cfg.Eval.SameInit {
		init = eng.Init()
	}
	res, err := core.WeightedERMFrom(trainCtx, sp, out.Weights(), cfg.Eval, "maple", init)
	if ctx.Err() != nil {
		return &Summary{Status: core.StatusInterrupted, Iter: final.Iter, Total: total}, nil
	}
	if err != nil {
		return nil, r.fail(err, final.Iter, total, start)
	}
	sum.Done, sum.Status, sum.Result = true, core.StatusDone, res
	sum.Reference = referenceFigure(hub.History())
	sum.Finished, sum.Seconds = time.Now(), time.Since(start).Seconds()
	return sum, writeJSONAtomic(r.Path(SummaryFile), sum)
}

// referenceFigure is the reference protocol's figure over a search: the
// highest per-iteration one (test-selected: an oracle figure); nil when
// the iterates were not evaluated.
func referenceFigure(snaps []*core.Snapshot) *core.ReferenceFigure {
	var best *core.ReferenceFigure
	for _, s := range snaps {
		if s.IterEval != nil && s.IterEval.Reference != nil && (best == nil || s.IterEval.Reference.TestAcc > best.TestAcc) {
			r := *s.IterEval.Reference
			best = &r
		}
	}
	return best
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
	s := &Summary{Status: core.StatusFailed, Error: err.Error(), Iter: iter, Total: total, Finished: time.Now(), Seconds: time.Since(start).Seconds(), BestValWorst: -1}
	if werr := writeJSONAtomic(r.Path(SummaryFile), s); werr != nil {
		return errors.Join(err, werr)
	}
	return err
}

// ExportLatest writes the exports of the run in dir from its latest
// checkpoint and returns the checkpoint's iteration.
func ExportLatest(dir string) (int, error) {
	cfg, sp, out, iter, err := final(dir, Overrides{}, nil)
	if err != nil {
		return 0, err
	}
	return iter, WriteExports(dir, cfg, Stat(dir).Status, iter, out, sp.Train)
}

// Overrides replace recorded settings of a run when it is read back:
// the data location may have moved since the run started.
type Overrides struct {
	DataDir string // "" keeps the recorded one
}

// Final rebuilds a finished (or checkpointed) search: its dataset, and
// its output from the last checkpoint. It is what export and eval use.
func Final(dir string, ov Overrides, progress io.Writer) (*Config, *dataset.Splits, *core.Output, error) {
	cfg, sp, out, _, err := final(dir, ov, progress)
	return cfg, sp, out, err
}

func final(dir string, ov Overrides, progress io.Writer) (*Config, *dataset.Splits, *core.Output, int, error) {
	cfg, err := ReadConfig(dir)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	if cfg.Method != "maple" {
		return nil, nil, nil, 0, fmt.Errorf("run %s is a %s baseline: it has no learned weights", cfg.ID, cfg.Method)
	}
	if ov.DataDir != "" {
		cfg.Dataset.DataDir = ov.DataDir
	}
	st, err := ReadCheckpoint(dir, func(string) {})
	if err != nil {
		return nil, nil, nil, 0, err
	}
	if st == nil {
		return nil, nil, nil, 0, fmt.Errorf("run %s has no checkpoint yet", cfg.ID)
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

// setInit gives the search the initial parameters of --init-params, if
// any.
func setInit(eng *core.Engine, path string) error {
	if path == "" {
		return nil
	}
	theta, err := readInit(path)
	if err != nil {
		return err
	}
	if err := eng.SetInit(theta); err != nil {
		return fmt.Errorf("--init-params %s: %w; write the model's parameters as one flat float32 vector", path, err)
	}
	return nil
}

// readInit reads a flat vector of initial parameters.
func readInit(path string) ([]float32, error) {
	shape, theta, err := loaders.ReadNPYFile(path)
	if err != nil {
		return nil, fmt.Errorf("--init-params: %w", err)
	}
	if len(shape) != 1 {
		return nil, fmt.Errorf("--init-params %s: shape %v, want one flat vector of parameters", path, shape)
	}
	return theta, nil
}
