package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/export"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

// Options configure Execute.
type Options struct {
	Log    io.Writer // progress lines and messages; nil for none
	Lines  bool      // print a progress line per outer iteration on Log
	Hub    *Hub      // live listeners; nil for a private hub
	Socket bool      // serve the attach socket while the search runs (a baseline's: to stop it)
	// Ready is called once the socket listens (when Socket is set),
	// before the search or the baseline's training starts: with the
	// engine of a search, with the control of a baseline (it can only
	// stop).
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
	// Progress and Stage, when set, are told what the progress lines
	// tell: a training's validation checks (a baseline's, a search's
	// final weighted ERM) and the steps of the stages some baselines
	// train before it (a baseline's live view draws them). They are
	// called on the training's goroutine and must not block.
	Progress train.Progress
	Stage    train.StageProgress
	// StopAt, when positive, stops a search once it has recorded outer
	// iteration StopAt, before it starts the next (a run restored at or
	// past it stops at once), checkpointed as by Stop. Default 0: it runs
	// to its end.
	StopAt int
}

// stopAtRecorder stops the engine from within the recorder's call, once
// iteration at is on record: the engine takes the stop before its next
// iteration, never one past it.
type stopAtRecorder struct {
	eng *core.Engine
	at  int
}

func (s stopAtRecorder) Snapshot(sn *core.Snapshot) error {
	if sn.Iter >= s.at {
		s.eng.Stop() // never blocks; Run is running, so it is taken
	}
	return nil
}
func (s stopAtRecorder) Event(core.Event) error       { return nil }
func (s stopAtRecorder) Checkpoint(*core.State) error { return nil }

// withProgressLines returns ctx carrying a progress function that logs a
// line every tenth of a training run's steps (the final evaluation's, a
// baseline's), and one every tenth of the steps of the stages some
// baselines train before it (mrm's first two, jtt's first), which have no
// validation checks to report; logf nil logs nothing. opt's Progress and
// Stage are told too.
func withProgressLines(ctx context.Context, steps int, logf func(string, ...any), opt Options) context.Context {
	every := max(1, steps/10)
	last := -every
	ctx = train.WithStageProgress(ctx, func(st train.Stage, step, steps int) {
		if e := max(1, steps/10); logf != nil && (step%e == 0 || step == steps) {
			logf("%s%d/%d, stage %d of %d (%s)", runs.ProgressPrefix, step, steps, st.N, st.Of, st.Name)
		}
		if opt.Stage != nil {
			opt.Stage(st, step, steps)
		}
	})
	return train.WithProgress(ctx, func(step, steps int, valWorst, testWorst float64) {
		if logf != nil && (step-last >= every || step == steps) {
			last = step
			logf("%s%d/%d: val worst-group %.4f  (test worst-group %.4f)", runs.ProgressPrefix, step, steps, valWorst, testWorst)
		}
		if opt.Progress != nil {
			opt.Progress(step, steps, valWorst, testWorst)
		}
	})
}

// baselineControl is what a baseline's socket serves: it can stop (maple
// stop, a sweep's stop), and has no search to pause, checkpoint or change
// the rates of.
type baselineControl struct {
	cancel  context.CancelFunc
	stopped atomic.Bool
}

// errBaselineControl is the answer to what a baseline cannot do.
var errBaselineControl = errors.New("a baseline has no search to pause, resume, checkpoint or change the rates of; it can only stop")

func (c *baselineControl) Stop() error {
	c.stopped.Store(true)
	c.cancel()
	return nil
}
func (*baselineControl) Pause() error                   { return errBaselineControl }
func (*baselineControl) Resume() error                  { return errBaselineControl }
func (*baselineControl) SetLR(core.LearningRates) error { return errBaselineControl }
func (*baselineControl) Checkpoint() error              { return errBaselineControl }
func (*baselineControl) Exported(int) error             { return errBaselineControl }

// runBaseline trains the comparison method of r and writes its summary.
// With opt.Socket it listens on the run's socket, so that maple stop can
// end it (stopped: it keeps no checkpoint, resume trains it again).
func runBaseline(ctx, trainCtx context.Context, r *runs.Run, sp *dataset.Splits, opt Options, start time.Time) (*runs.Summary, error) {
	trainCtx, cancel := context.WithCancel(trainCtx)
	defer cancel()
	ctl := &baselineControl{cancel: cancel}
	if opt.Socket {
		hub := opt.Hub
		if hub == nil {
			hub = NewHub()
		}
		srv, err := Serve(r, hub, ctl)
		if err != nil {
			return nil, err
		}
		defer srv.Close()
	}
	if opt.Ready != nil {
		opt.Ready(ctl) // a detached parent returns now: maple stop finds the socket
	}
	res, err := baselines.Train(trainCtx, sp, r.Config.Method, r.Config.Eval)
	switch {
	case ctx.Err() != nil:
		return &runs.Summary{Status: core.StatusInterrupted}, nil
	case err != nil && ctl.stopped.Load(): // a stop after the last step leaves it done
		s := &runs.Summary{Status: core.StatusStopped, Finished: time.Now(), Seconds: time.Since(start).Seconds(), BestValWorst: -1}
		return s, r.WriteSummary(s)
	case err != nil:
		return nil, fail(r, err, 0, 0, start)
	}
	if rw := res.Reweighting; rw != nil && opt.Log != nil {
		for _, l := range rw.Lines(config.FlagName) {
			fmt.Fprintln(opt.Log, l)
		}
	}
	if res.SampleWeights != nil { // LfF's weights, exportable as a search's
		cfg := r.Config
		if err := export.WriteSampleWeights(r.Dir, &cfg, res, sp.Train); err != nil {
			return nil, fail(r, err, 0, 0, start)
		}
	}
	s := &runs.Summary{Done: true, Status: core.StatusDone, Result: res, Finished: time.Now(), Seconds: time.Since(start).Seconds(), BestValWorst: -1}
	return s, r.WriteSummary(s)
}

// restore gives eng the state of r's checkpoint, if it has one, and
// returns it and its iteration (0 for a run that starts from the
// beginning, also one stopped before its first checkpoint).
func restore(r *runs.Run, eng *core.Engine, firstStart bool, logf func(string, ...any), warn func(string)) (*core.State, int, error) {
	st, err := runs.ReadCheckpoint(r.Dir, func(m string) { warn(m + "; using the previous checkpoint") })
	if err != nil {
		return nil, 0, err
	}
	if st != nil {
		// The search goes on with the rates on record (RatesInForce), not
		// the checkpoint's: a change is recorded after the checkpoint
		// made for it.
		events, _ := runs.ReadEvents(r.Dir)
		st.LR = runs.RatesInForce(&r.Config, events, st.Iter).LearningRates
		if err := eng.Restore(st); err != nil {
			return nil, 0, fmt.Errorf("%s does not fit this run: %w", r.Path(runs.CheckpointFile), err)
		}
		if from := r.Config.SearchFrom; from != "" && firstStart {
			logf("run %s trains its final model on the search of run %s (iteration %d of %d)", r.Config.ID, from, st.Iter, r.Config.Settings.OuterIters)
		} else {
			logf("resuming %s from its checkpoint at iteration %d", r.Config.ID, st.Iter)
		}
		if m := runs.BuildChange(r.Config); m != "" {
			warn(m)
		}
		return st, st.Iter, nil
	}
	if snaps, _ := runs.ReadMetrics(r.Dir); len(snaps) > 0 {
		// Stopped before its first checkpoint: it starts again from the
		// beginning, its records set aside (Run.CutMetrics says where).
		logf("run %s has no checkpoint yet: it starts again from iteration 1", r.Config.ID)
	}
	return nil, 0, nil
}

// unfinished ends a search that stopped before its end: the engine's
// state (that of the last iteration on record) checkpointed, and the
// summary of a failed or stopped run written; an interrupted one has none
// (it is resumable, and maple ls tells it by its free lock).
func unfinished(r *runs.Run, sum *runs.Summary, final *core.State, runErr error, logf func(string, ...any)) (*runs.Summary, error) {
	sum.CheckpointErr = r.WriteCheckpoint(final)
	if sum.CheckpointErr != nil {
		logf("warning: final checkpoint: %v", sum.CheckpointErr)
	}
	switch {
	case sum.Status == core.StatusFailed:
		sum.Error = runErr.Error()
		sum.Rates = final.LR
		return sum, errors.Join(runErr, r.WriteSummary(sum))
	case runErr != nil: // ctx cancelled: interrupted, resumable
		sum.Status = core.StatusInterrupted
		return sum, nil
	}
	return sum, r.WriteSummary(sum)
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
func Execute(ctx context.Context, r *runs.Run, sp *dataset.Splits, opt Options) (*runs.Summary, error) {
	start := time.Now()
	logf := func(format string, a ...any) {
		if opt.Log != nil {
			fmt.Fprintf(opt.Log, format+"\n", a...)
		}
	}
	cfg := r.Config
	trainCtx := ctx // the baseline's or final evaluation's, with progress lines
	switch {
	case opt.Lines && opt.Log != nil:
		trainCtx = withProgressLines(ctx, cfg.Eval.Steps, logf, opt)
	case opt.Progress != nil || opt.Stage != nil:
		trainCtx = withProgressLines(ctx, cfg.Eval.Steps, nil, opt)
	}
	total := cfg.Settings.OuterIters
	if !cfg.Searches() {
		total = 0
	}
	if sp == nil {
		var err error
		sp, err = config.LoadContext(ctx, cfg, opt.Log)
		if ctx.Err() != nil {
			return &runs.Summary{Status: core.StatusInterrupted}, nil // stopped while the data loaded
		}
		if err != nil {
			return nil, fail(r, err, 0, total, start)
		}
	}
	if !cfg.Searches() {
		return runBaseline(ctx, trainCtx, r, sp, opt, start)
	}
	eng, err := core.New(sp, cfg.Settings)
	if err != nil {
		return nil, fail(r, err, 0, total, start)
	}
	if err := setInit(eng, cfg.Settings.InitParams); err != nil {
		return nil, fail(r, err, 0, total, start)
	}
	// What was set aside or skipped on disk: logged, and told to the
	// dashboard and attached clients as warning events once they listen.
	var warnings []string
	warn := func(m string) {
		logf("warning: %s", m)
		warnings = append(warnings, m)
	}
	// A run that took another's search starts at that search's end: its
	// first start (no event recorded yet) is no resume.
	events, _ := runs.ReadEvents(r.Dir)
	taken := r.Config.SearchFrom != "" && len(events) == 0
	st, iter, err := restore(r, eng, taken, logf, warn)
	if err != nil {
		return nil, err
	}
	if rate := opt.Rates; rate != nil {
		// maple resume ID --inner-lr X: new rates from the next iteration.
		if err := eng.SetLR(*rate); err != nil {
			return nil, err
		}
	}
	hist, err := r.CutMetrics(iter, warn)
	if err != nil {
		return nil, err
	}
	if len(hist) > 0 {
		eng.Elapsed = hist[len(hist)-1].Elapsed
	}
	hub := opt.Hub
	if hub == nil {
		hub = NewHub()
	}
	hub.SetHistory(hist, events)
	fr, err := runs.OpenRecorder(r, eng.State, iter)
	if err != nil {
		return nil, err
	}
	defer fr.Close()
	recs := []core.Recorder{fr, hubRecorder{hub}}
	if opt.Lines && opt.Log != nil {
		recs = append(recs, runs.Printer{W: opt.Log})
	}
	if opt.StopAt > 0 {
		recs = append(recs, stopAtRecorder{eng, opt.StopAt})
	}
	rec := runs.Tee(recs...)
	if st != nil && !taken {
		rec.Event(core.Event{Kind: core.EventResume, Iter: iter, Restart: true})
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
	if opt.StopAt > 0 && iter >= opt.StopAt {
		eng.Stop() // restored at its stop: no iteration past it
	}
	status, runErr := eng.Run(ctx, rec)
	final := eng.State()
	sum := &runs.Summary{Status: status, Iter: final.Iter, Total: total, Finished: time.Now(),
		Seconds: time.Since(start).Seconds(), BestValWorst: bestVal(hub)}
	if status != core.StatusDone {
		return unfinished(r, sum, final, runErr, logf)
	}
	return evaluateFinal(ctx, trainCtx, r, eng, sp, rec, sum, referenceFigure(hub.History()), start, logf)
}

// writeExports is export.WriteExports (a test makes it fail).
var writeExports = export.WriteExports

// evaluateFinal ends a search that is done: the exports of its weights,
// then the final weighted ERM on them, and the summary.
func evaluateFinal(ctx, trainCtx context.Context, r *runs.Run, eng *core.Engine, sp *dataset.Splits, rec core.Recorder, sum *runs.Summary, ref *train.ReferenceFigure, start time.Time, logf func(string, ...any)) (*runs.Summary, error) {
	cfg := r.Config
	out := eng.Output()
	sum.SelectedIter = out.Iter
	if err := writeExports(r.Dir, &cfg, core.StatusDone, sum.Iter, out, sp.Train); err != nil {
		return failedAfterSearch(r, err, sum, start)
	}
	logf("search done; evaluating weighted ERM of %s on the learned weights", cfg.Eval.Model)
	rec.Event(core.Event{Kind: core.EventEvaluate, Iter: sum.Iter})
	var init []float32
	if cfg.Eval.SameInit {
		init = eng.Init()
	}
	u := out.Weights()
	res, err := train.ChooseWeightedERM(trainCtx, sp, u, cfg.Eval, "maple", init)
	if ctx.Err() != nil {
		return &runs.Summary{Status: core.StatusInterrupted, Iter: sum.Iter, Total: sum.Total}, nil
	}
	if err != nil {
		return failedAfterSearch(r, err, sum, start)
	}
	// What the search's weights did: a mask that dropped nothing and
	// weights left equal (--keep 1 --keep0 1, w frozen) train as ERM.
	dropped := make([]bool, len(out.Keep))
	for i, k := range out.Keep {
		dropped[i] = !k
	}
	it := out.Iter
	if it == 0 {
		it = sum.Iter
	}
	res.Reweighting = train.NewReweighting(fmt.Sprintf("the weights w of iterate %d on its keep mask", it), sp.Train, u, dropped, "dropped set")
	for _, l := range res.Reweighting.Lines(config.FlagName) {
		logf("%s", l)
	}
	sum.Done, sum.Status, sum.Result, sum.Reference = true, core.StatusDone, res, ref
	sum.Finished, sum.Seconds = time.Now(), time.Since(start).Seconds()
	if err := r.WriteSummary(sum); err != nil {
		return failedAfterSearch(r, fmt.Errorf("the result could not be recorded: %w", err), sum, start)
	}
	return sum, nil
}

// failedAfterSearch ends a search whose end could not be recorded or
// evaluated (a full disk while writing its exports or summary, an
// evaluation that failed): its last iteration is checkpointed, so the
// failed summary it returns (written when the disk lets it) says how to
// go on, maple resume, which evaluates it again without searching.
func failedAfterSearch(r *runs.Run, err error, done *runs.Summary, start time.Time) (*runs.Summary, error) {
	s := &runs.Summary{Status: core.StatusFailed, Error: err.Error(), Iter: done.Iter, Total: done.Total, Finished: time.Now(),
		Seconds: time.Since(start).Seconds(), BestValWorst: done.BestValWorst}
	if werr := r.WriteSummary(s); werr != nil {
		err = errors.Join(err, werr)
	}
	return s, err
}

// referenceFigure is the reference protocol's figure over a search: the
// highest per-iteration one (test-selected: an oracle figure); nil when
// the iterates were not evaluated.
func referenceFigure(snaps []*core.Snapshot) *train.ReferenceFigure {
	var best *train.ReferenceFigure
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
func fail(r *runs.Run, err error, iter, total int, start time.Time) error {
	s := &runs.Summary{Status: core.StatusFailed, Error: err.Error(), Iter: iter, Total: total, Finished: time.Now(), Seconds: time.Since(start).Seconds(), BestValWorst: -1}
	if werr := r.WriteSummary(s); werr != nil {
		return errors.Join(err, werr)
	}
	return err
}
