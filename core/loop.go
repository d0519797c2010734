package core

// The control loop of Run: commands from the mailbox, pauses, failures,
// the recorder and the per-iteration evaluation.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/train"
)

// errInterrupted is what an outer iteration abandoned by Stop or by the
// context returns inside the engine.
var errInterrupted = errors.New("interrupted")

// Run performs the outer iterations that remain, reporting to rec. It
// returns StatusDone after the last one, StatusStopped after Stop or
// when ctx is cancelled (with ctx's error), and StatusFailed with the
// error when an unwatched search meets a non-finite value or a recorder
// error. A watched search pauses instead, the last good state kept;
// Resume (after SetLR, say) retries. Whatever Run returns, State is the
// state of the last iteration rec took.
func (E *Engine) Run(ctx context.Context, rec Recorder) (Status, error) {
	e := E.e
	defer E.box.close()
	e.interrupted = func() bool { return E.box.stop.Load() || ctx.Err() != nil }
	defer func() { e.interrupted = nil }()
	// The final training that follows a search has a model of its own:
	// the search's work buffers (a chunk's activations and rows) go.
	defer models.Release(e.net)
	// evalCtx ends a per-iteration evaluation on Stop as on ctx.
	evalCtx, cancelEval := context.WithCancel(ctx)
	defer cancelEval()
	E.box.setOnStop(cancelEval)
	r := &runLoop{E: E, rec: rec}
	for {
		if st, done, err := r.commands(ctx); done {
			return r.end(st, err)
		}
		if r.pending != nil {
			if err := rec.Snapshot(r.pending); err != nil {
				if r.fail(err) {
					return r.end(StatusFailed, err)
				}
				continue
			}
			r.pending, r.beforePending = nil, nil
		}
		if e.iter >= e.set.OuterIters {
			return r.end(StatusDone, nil)
		}
		before := e.state()
		t0 := time.Now()
		snap, err := e.iterate()
		r.active += time.Since(t0).Seconds()
		if errors.Is(err, errInterrupted) {
			continue // the mailbox holds the stop, or ctx is done
		}
		if err == nil && E.EvalEach != nil {
			if err = r.evaluate(evalCtx, snap, before); err != nil && evalCtx.Err() != nil {
				continue // stopped or cancelled: the mailbox or ctx says which
			}
		}
		if err != nil {
			if r.fail(err) {
				return r.end(StatusFailed, err)
			}
			continue
		}
		snap.Elapsed = E.Elapsed + r.active
		if e.iter == e.set.OuterIters {
			snap.Status = StatusDone
		}
		if err := rec.Snapshot(snap); err != nil {
			r.pending, r.beforePending = snap, before
			if r.fail(err) {
				return r.end(StatusFailed, err)
			}
		}
	}
}

// runLoop is the state of one Run: whether it is paused, the snapshot
// the recorder has not taken yet, and the time spent iterating.
type runLoop struct {
	E      *Engine
	rec    Recorder
	paused bool
	// pending is a snapshot the recorder has not taken yet; the engine's
	// state is then rolled back to beforePending on return.
	pending       *Snapshot
	beforePending *State
	active        float64 // seconds spent iterating in this Run
}

// end returns st and err, the engine rolled back to the last iteration
// the recorder took.
func (r *runLoop) end(st Status, err error) (Status, error) {
	if r.pending != nil {
		if rerr := r.E.e.restore(r.beforePending); rerr != nil {
			panic(rerr) // the state was taken from this engine
		}
	}
	return st, err
}

// commands applies what has been asked, then waits while paused. done
// says the run ends with st and err.
func (r *runLoop) commands(ctx context.Context) (st Status, done bool, err error) {
	for {
		for _, c := range r.E.box.take() {
			stop, err := r.apply(c)
			if err != nil && r.fail(err) {
				return StatusFailed, true, err
			}
			if stop {
				return StatusStopped, true, nil
			}
		}
		if ctx.Err() != nil {
			return StatusStopped, true, ctx.Err()
		}
		if !r.paused {
			return StatusUnknown, false, nil
		}
		select {
		case <-r.E.box.notify:
		case <-ctx.Done():
		}
	}
}

// apply carries out one command and records its event.
func (r *runLoop) apply(c command) (stop bool, err error) {
	e := r.E.e
	ev := Event{Kind: c.kind, Iter: e.iter}
	switch c.kind {
	case EventPause:
		r.paused = true
	case EventResume:
		r.paused = false
	case EventStop:
		stop = true
	case EventCheckpoint:
		if r.pending != nil {
			return false, errors.New("checkpoint refused: the last record is not written yet")
		}
		if err := r.rec.Checkpoint(e.state()); err != nil {
			return false, err
		}
	case EventSetLR:
		if r.pending == nil {
			if err := r.rec.Checkpoint(e.state()); err != nil {
				return false, err
			}
		}
		lr := c.lr
		e.lr, ev.LR = lr, &lr
	case EventExport:
		ev.Export = c.iter
	}
	return stop, r.rec.Event(ev)
}

// fail pauses a watched search (and returns false), or ends an unwatched
// one (true).
func (r *runLoop) fail(err error) bool {
	watched := r.E.Watched != nil && r.E.Watched()
	what := "; the search ends as failed at its last good iteration"
	if watched {
		what = "; the search is paused: fix the cause (change the rates, free space) and resume"
	}
	_ = r.rec.Event(Event{Kind: EventError, Iter: r.E.e.iter, Error: err.Error() + what})
	if watched {
		r.paused = true
		return false
	}
	return true
}

// evaluate trains the evaluation model on the weights of the iterate
// just taken and records its figures in snap; on an error the engine is
// rolled back to before, the iterate to be taken again.
func (r *runLoop) evaluate(ctx context.Context, snap *Snapshot, before *State) error {
	e, ev := r.E.e, r.E.EvalEach
	t1 := time.Now()
	var init []float32
	if ev.SameInit {
		init = e.theta0
	}
	res, err := train.WeightedERMFrom(ctx, e.sp, append([]float64(nil), e.u...), *ev, "maple", init)
	r.active += time.Since(t1).Seconds()
	if err != nil {
		if rerr := e.restore(before); rerr != nil {
			panic(rerr) // taken from this engine
		}
		return fmt.Errorf("evaluation of iterate %d: %w", snap.Iter, err)
	}
	snap.IterEval = &IterEval{ValAcc: res.ValAcc, ValWorst: res.ValWorst, TestAcc: res.TestAcc, TestWorst: res.TestWorst,
		Step: res.SelectedStep, Reference: res.Reference, Last: res.Last}
	if snap.IterEval.Reference != nil {
		snap.IterEval.Reference.Iter = snap.Iter
	}
	return nil
}
