package core

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/maple-ood/maple/internal/tinydata"
	"github.com/maple-ood/maple/setting"
	"github.com/maple-ood/maple/train"
)

// Commands never block: thousands before Run, from inside the recorder
// (the engine's own goroutine), and after Run returned, where they are
// answered with ErrEnded.
func TestCommandsNeverBlock(t *testing.T) {
	e, _ := New(tinydata.Splits(40, 2, 3), engineSettings("fixed"))
	for range 1000 {
		e.Checkpoint()
	}
	rec := &scriptRec{}
	rec.after = func(s *Snapshot) {
		for range 1000 {
			if err := e.Pause(); err != nil {
				t.Error(err)
			}
			e.Resume()
		}
	}
	done := make(chan Status, 1)
	go func() { st, _ := e.Run(context.Background(), rec); done <- st }()
	select {
	case st := <-done:
		if st != StatusDone {
			t.Fatalf("status %v", st)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return")
	}
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for range 1000 {
			for _, f := range []func() error{e.Pause, e.Resume, e.Checkpoint, e.Stop} {
				if err := f(); !errors.Is(err, ErrEnded) {
					t.Errorf("command after the end: %v, want ErrEnded", err)
					return
				}
			}
		}
	}()
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		t.Fatal("a command after the end blocked")
	}
	// Repeats merged: one checkpoint request, one pause/resume pair per
	// iteration at most.
	if len(rec.ckpts) != 1 {
		t.Errorf("%d checkpoints for 1000 merged requests, want 1", len(rec.ckpts))
	}
}

// Stop abandons the outer iteration under way between inner steps; the
// state stays at the last completed iteration.
func TestStopInterruptsIteration(t *testing.T) {
	set := engineSettings("fixed")
	set.InnerSteps = setting.MaxIters // an iteration that would not end before the test does
	e, _ := New(tinydata.Splits(40, 2, 3), set)
	before := e.State()
	done := make(chan Status, 1)
	ctx := newStepProbe(context.Background())
	go func() { st, _ := e.Run(ctx, &scriptRec{}); done <- st }()
	ctx.waitMidIteration(t)
	t0 := time.Now()
	e.Stop()
	select {
	case st := <-done:
		if st != StatusStopped {
			t.Errorf("status %v", st)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Stop did not interrupt the iteration")
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("stop took %v", d)
	}
	if after := e.State(); after.Iter != 0 || !bitsEqual(after.W, before.W) {
		t.Error("the abandoned iteration changed the state")
	}
}

// A cancelled context interrupts likewise and is reported.
func TestContextInterruptsIteration(t *testing.T) {
	set := engineSettings("fixed")
	set.InnerSteps = setting.MaxIters
	e, _ := New(tinydata.Splits(40, 2, 3), set)
	parent, cancel := context.WithCancel(context.Background())
	ctx := newStepProbe(parent)
	done := make(chan error, 1)
	go func() { _, err := e.Run(ctx, &scriptRec{}); done <- err }()
	ctx.waitMidIteration(t)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancel did not interrupt the iteration")
	}
}

// Unwatched, a non-finite value ends the search as failed with the last
// good state instead of waiting for a Resume that nobody will send.
func TestUnwatchedNonFiniteFails(t *testing.T) {
	set := engineSettings("fixed")
	set.InnerLR, set.WeightDecay, set.InnerSteps = 10, 1, 30 // overflows in the first iteration
	e, err := New(tinydata.Splits(40, 2, 4), set)
	if err != nil {
		t.Fatal(err)
	}
	before := e.State()
	rec := &scriptRec{}
	st, err := e.Run(context.Background(), rec)
	if st != StatusFailed || !errors.Is(err, errNonFinite) {
		t.Fatalf("status %v err %v, want failed with a non-finite error", st, err)
	}
	if len(rec.events) != 1 || rec.events[0].Kind != EventError {
		t.Errorf("events %+v, want one error", rec.events)
	}
	if after := e.State(); after.Iter != 0 || !bitsEqual(after.W, before.W) {
		t.Error("the failed iteration changed the state")
	}
}

// A record the recorder could not take is never passed by the state:
// after a failed Snapshot the engine's state is the one before it.
func TestUnwrittenRecordRollsBack(t *testing.T) {
	e, _ := New(tinydata.Splits(40, 2, 5), engineSettings("fixed"))
	rec := &scriptRec{}
	rec.after = func(s *Snapshot) {
		if s.Iter == 2 {
			rec.mu.Lock()
			rec.failOne = true
			rec.mu.Unlock()
		}
	}
	st, err := e.Run(context.Background(), rec)
	if st != StatusFailed || err == nil {
		t.Fatalf("status %v err %v", st, err)
	}
	if got := e.State().Iter; got != 2 {
		t.Errorf("state at iteration %d after the record of 3 failed, want 2", got)
	}
}

// The final weighted ERM trains on the validation-selected iterate: the
// one whose inner model had the best validation worst-group accuracy
// (the earliest of equals), with the w, s and mask of that iteration.
func TestIterateSelection(t *testing.T) {
	for _, mode := range []string{"val", "final"} {
		t.Run(mode, func(t *testing.T) {
			set := engineSettings("fixed")
			set.SelectIterate = mode
			e, _ := New(tinydata.Splits(40, 2, 7), set)
			states := []*State{e.State()} // states[t]: after t iterations
			rec := &scriptRec{}
			rec.after = func(*Snapshot) { states = append(states, e.State()) }
			runAll(t, e, rec)
			best, bestScore := 0, -1.0
			for _, s := range rec.snaps {
				if s.ValWorst > bestScore {
					best, bestScore = s.Iter, s.ValWorst
				}
			}
			out := e.Output()
			last := rec.snaps[len(rec.snaps)-1]
			if mode == "final" {
				if out.Iter != 0 || !bitsEqual(out.W, states[len(states)-1].W) || last.Selected != last.Iter {
					t.Errorf("final: output iterate %d, snapshot selects %d", out.Iter, last.Selected)
				}
				return
			}
			if best == last.Iter {
				t.Fatalf("the best iterate is the last (%d): this case shows nothing; change the seed", best)
			}
			if out.Iter != best || last.Selected != best {
				t.Fatalf("selected iterate %d (snapshot says %d), want %d (val worst-group %g)", out.Iter, last.Selected, best, bestScore)
			}
			if !bitsEqual(out.W, states[best-1].W) || !bitsEqual(out.S, states[best-1].S) {
				t.Error("the selected weights are not those of the selected iterate")
			}
			kept := 0
			for _, k := range out.Keep {
				if k {
					kept++
				}
			}
			if got, want := float64(kept)/float64(len(out.Keep)), rec.snaps[best-1].KeepFrac; got != want {
				t.Errorf("selected mask keeps %g, the iterate kept %g", got, want)
			}
		})
	}
}

// --eval-each-iter: every snapshot carries the evaluation model's figures
// on that iterate's weights, with the reference protocol's figure when a
// training-accuracy threshold is set; Stop ends a running evaluation.
func TestEvalEachIter(t *testing.T) {
	set := engineSettings("fixed")
	e, _ := New(tinydata.Splits(40, 2, 3), set)
	es := train.DefaultEval()
	es.Model, es.Steps, es.EvalEvery, es.RefTrainAcc = "linear", 20, 5, 0.01
	e.EvalEach = &es
	rec := &scriptRec{}
	runAll(t, e, rec)
	for _, s := range rec.snaps {
		ie := s.IterEval
		if ie == nil || ie.TestAcc < 0 || ie.TestAcc > 1 || ie.Reference == nil || ie.Reference.Iter != s.Iter || ie.Reference.TrainAcc <= 0.01 {
			t.Fatalf("iteration %d: %+v", s.Iter, ie)
		}
	}
	// A long evaluation is cut short by Stop.
	e2, _ := New(tinydata.Splits(40, 2, 3), set)
	long := es
	long.Steps, long.MinStep = setting.MaxIters, 1
	e2.EvalEach = &long
	evaluating := make(chan struct{})
	var once sync.Once
	ctx := train.WithProgress(context.Background(), func(step, steps int, _, _ float64) {
		once.Do(func() { close(evaluating) })
	})
	done := make(chan Status, 1)
	go func() { st, _ := e2.Run(ctx, &scriptRec{}); done <- st }()
	select {
	case <-evaluating:
	case st := <-done:
		t.Fatalf("Run returned %v before the evaluation checked a step", st)
	case <-time.After(30 * time.Second):
		t.Fatal("the evaluation checked no step within 30 s")
	}
	e2.Stop()
	select {
	case st := <-done:
		if st != StatusStopped || e2.State().Iter != 0 {
			t.Errorf("status %v at iteration %d", st, e2.State().Iter)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Stop did not end the evaluation")
	}
}

// The evaluation of each iterate draws nothing from the search: with
// and without it the search takes the same iterates bit for bit and
// selects the same one, so a run without --eval-each-iter reaches the
// same final weights (and final evaluation) as one with it.
func TestEvalEachIterLeavesSearchAlone(t *testing.T) {
	set := engineSettings("fixed")
	set.Objective, set.DetachSum, set.MaskEps = "irmv1", true, 1e-20
	es := train.DefaultEval()
	es.Model, es.Steps, es.EvalEvery, es.Momentum, es.SameInit = set.Model, 15, 1, 0.9, true
	var states [2][]*State
	var outs [2]*Output
	for i, each := range []bool{false, true} {
		e, err := New(tinydata.Splits(40, 2, 3), set)
		if err != nil {
			t.Fatal(err)
		}
		if each {
			e.EvalEach = &es
		}
		rec := &scriptRec{after: func(*Snapshot) { states[i] = append(states[i], e.State()) }}
		runAll(t, e, rec)
		if got := rec.snaps[len(rec.snaps)-1].IterEval != nil; got != each {
			t.Fatalf("eval each %v: the last snapshot has an evaluation: %v", each, got)
		}
		outs[i] = e.Output()
	}
	if len(states[0]) != set.OuterIters || len(states[1]) != set.OuterIters {
		t.Fatalf("%d and %d iterates, want %d", len(states[0]), len(states[1]), set.OuterIters)
	}
	for k := range states[0] {
		a, b := states[0][k], states[1][k]
		if !bitsEqual(a.W, b.W) || !bitsEqual(a.S, b.S) || string(a.RNG) != string(b.RNG) || a.BestIter != b.BestIter {
			t.Fatalf("iterate %d differs with the evaluation of each iterate (best %d vs %d)", k+1, a.BestIter, b.BestIter)
		}
	}
	if outs[0].Iter != outs[1].Iter || !bitsEqual(outs[0].Weights(), outs[1].Weights()) {
		t.Errorf("selected iterate %d vs %d, or its weights differ", outs[0].Iter, outs[1].Iter)
	}
}

// An export from the dashboard becomes an event of the search.
func TestExportedEvent(t *testing.T) {
	e, _ := New(tinydata.Splits(40, 2, 3), engineSettings("fixed"))
	rec := &scriptRec{}
	rec.after = func(s *Snapshot) {
		if s.Iter == 2 {
			e.Exported(2)
		}
	}
	runAll(t, e, rec)
	if len(rec.events) != 1 || rec.events[0].Kind != EventExport || rec.events[0].Export != 2 || rec.events[0].Iter != 2 {
		t.Errorf("events %+v", rec.events)
	}
}

// stepProbe is a context that counts the engine's questions whether it
// is done: one before each outer iteration, then one before every inner
// step. Once it has been asked probeAt times, the engine is inside an
// outer iteration, between two inner steps.
type stepProbe struct {
	context.Context
	n       atomic.Int64
	reached chan struct{}
}

// probeAt is how many questions mean mid-iteration: the one before the
// iteration and two inner steps.
const probeAt = 3

func newStepProbe(parent context.Context) *stepProbe {
	return &stepProbe{Context: parent, reached: make(chan struct{})}
}

func (c *stepProbe) Err() error {
	if c.n.Add(1) == probeAt {
		close(c.reached)
	}
	return c.Context.Err()
}

// waitMidIteration waits until the engine is inside an outer iteration
// and fails the test if it does not get there within 30 s.
func (c *stepProbe) waitMidIteration(t *testing.T) {
	t.Helper()
	select {
	case <-c.reached:
	case <-time.After(30 * time.Second):
		t.Fatal("the engine took no inner step within 30 s")
	}
}
