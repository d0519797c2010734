package core

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/maple-ood/maple/internal/tinydata"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/train"
)

// scriptRec records everything and runs hooks after snapshots.
type scriptRec struct {
	mu      sync.Mutex
	snaps   []*Snapshot
	events  []Event
	ckpts   []*State
	after   func(s *Snapshot)
	failOne bool // fail the next Snapshot call
}

func (r *scriptRec) Snapshot(s *Snapshot) error {
	r.mu.Lock()
	if r.failOne {
		r.failOne = false
		r.mu.Unlock()
		return errors.New("disk full")
	}
	r.snaps = append(r.snaps, s)
	r.mu.Unlock()
	if r.after != nil {
		r.after(s)
	}
	return nil
}

func (r *scriptRec) Event(e Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	return nil
}

func (r *scriptRec) Checkpoint(st *State) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ckpts = append(r.ckpts, st)
	return nil
}

// waitEvent waits until the engine has reported an event, and fails
// the test if none comes within a generous deadline.
func (r *scriptRec) waitEvent(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		n := len(r.events)
		r.mu.Unlock()
		if n > 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the engine reported no event within 30 s")
}

func engineSettings(mode string) Settings {
	s := tinySettings("rex")
	s.InnerSteps, s.OuterIters, s.InnerInit = 4, 8, mode
	s.Keep, s.Keep0 = 0.5, 0.9
	return s
}

func runAll(t *testing.T, e *Engine, rec Recorder) Status {
	t.Helper()
	st, err := e.Run(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func bitsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

func TestSameSeedSameWeights(t *testing.T) {
	for _, mode := range []string{"fixed", "fresh", "warm"} {
		t.Run(mode, func(t *testing.T) {
			var outs []*Output
			for range 2 {
				e, err := New(tinydata.Splits(40, 2, 1), engineSettings(mode))
				if err != nil {
					t.Fatal(err)
				}
				if st := runAll(t, e, &scriptRec{}); st != StatusDone {
					t.Fatalf("status %s", st)
				}
				outs = append(outs, e.Output())
			}
			if !bitsEqual(outs[0].W, outs[1].W) || !bitsEqual(outs[0].S, outs[1].S) || !slices.Equal(outs[0].Keep, outs[1].Keep) {
				t.Error("two runs with the same seed differ")
			}
			if bitsEqual(outs[0].W, make([]float64, len(outs[0].W))) {
				t.Error("weights are all zero")
			}
		})
	}
}

// TestPrecision checks Settings.Precision: unknown values and bf16 where
// it is unavailable are refused naming the field; where bf16 is available a bf16
// search ends near the f32 one (group weight fractions within 0.05) but
// not at the same weights, so the bf16 products did run.
func TestPrecision(t *testing.T) {
	set := engineSettings("fixed")
	set.Precision = "f16"
	if err := set.Check(); err == nil || !strings.Contains(err.Error(), "Settings.Precision") {
		t.Fatalf("precision f16: %v", err)
	}
	set.Precision = "bf16"
	ok, why := nets.BF16()
	if err := set.Check(); err != nil {
		t.Fatalf("bf16 is a setting on every machine: Check: %v", err)
	}
	if err := set.CheckMachine(); ok != (err == nil) || (!ok && !strings.Contains(err.Error(), "Settings.Precision bf16")) {
		t.Fatalf("bf16 available %v (%s), CheckMachine: %v", ok, why, err)
	}
	if _, err := New(tinydata.Splits(50, 2, 3), set); !ok && (err == nil || !strings.Contains(err.Error(), "Settings.Precision bf16")) {
		t.Fatalf("a bf16 search where bf16 is unavailable: %v, want refused naming the field", err)
	}
	if !ok {
		t.Skip(why)
	}
	sp := tinydata.Splits(200, 2, 3)
	set.SelectIterate = "final" // an early selected iterate could precede any difference
	var outs []*Output
	for _, p := range []string{"", "bf16"} {
		set.Precision = p
		e, err := New(sp, set)
		if err != nil {
			t.Fatal(err)
		}
		if st := runAll(t, e, &scriptRec{}); st != StatusDone {
			t.Fatalf("%q: status %s", p, st)
		}
		outs = append(outs, e.Output())
	}
	if bitsEqual(outs[0].W, outs[1].W) {
		t.Fatal("bf16 and f32 searches ended at identical weights: bf16 did not run")
	}
	frac := func(o *Output) []float64 {
		f, w := make([]float64, 4), o.Weights()
		var tot float64
		for i, v := range w {
			f[sp.Train.Group[i]] += v
			tot += v
		}
		for g := range f {
			f[g] /= tot
		}
		return f
	}
	a, b := frac(outs[0]), frac(outs[1])
	for g := range a {
		if math.Abs(a[g]-b[g]) > 0.05 {
			t.Errorf("group %d weight fraction: f32 %.3f, bf16 %.3f", g, a[g], b[g])
		}
	}
}

func TestRestoreContinuesBitForBit(t *testing.T) {
	for _, mode := range []string{"fixed", "fresh", "warm", "fixed+minibatch", "fixed+bf16"} {
		t.Run(mode, func(t *testing.T) {
			sp := tinydata.Splits(40, 2, 2)
			init, mini := strings.CutSuffix(mode, "+minibatch")
			init, bf16 := strings.CutSuffix(init, "+bf16")
			set := engineSettings(init)
			if mini {
				set.InnerBatch = 7
			}
			if bf16 {
				if ok, why := nets.BF16(); !ok {
					t.Skip(why)
				}
				set.Precision = "bf16"
			}
			ref, _ := New(sp, set)
			refRec := &scriptRec{}
			runAll(t, ref, refRec)

			first, _ := New(sp, set)
			rec := &scriptRec{}
			rec.after = func(s *Snapshot) {
				if s.Iter == 3 {
					first.Stop()
				}
			}
			if st := runAll(t, first, rec); st != StatusStopped {
				t.Fatalf("status %s, want stopped", st)
			}
			st := first.State()
			if st.Iter != 3 {
				t.Fatalf("stopped at %d", st.Iter)
			}
			second, _ := New(sp, set)
			if err := second.Restore(st); err != nil {
				t.Fatal(err)
			}
			rec2 := &scriptRec{}
			runAll(t, second, rec2)
			a, b := ref.Output(), second.Output()
			if !bitsEqual(a.W, b.W) || !bitsEqual(a.S, b.S) || !slices.Equal(a.Keep, b.Keep) {
				t.Error("restored search differs from the uninterrupted one")
			}
			if len(rec2.snaps) != 5 || rec2.snaps[0].Iter != 4 {
				t.Errorf("restored run reported %d snapshots from iteration %d", len(rec2.snaps), rec2.snaps[0].Iter)
			}
			for i, s := range rec2.snaps {
				if s.OuterRisk != refRec.snaps[i+3].OuterRisk {
					t.Errorf("iteration %d: outer risk %g, uninterrupted %g", s.Iter, s.OuterRisk, refRec.snaps[i+3].OuterRisk)
				}
			}
		})
	}
}

func TestCommands(t *testing.T) {
	e, _ := New(tinydata.Splits(40, 2, 3), engineSettings("fixed"))
	rec := &scriptRec{}
	newLR := LearningRates{Weight: 0.1, Keep: 0.02, Inner: 0.05}
	rec.after = func(s *Snapshot) {
		switch s.Iter {
		case 2:
			e.Pause()
			if err := e.SetLR(LearningRates{Weight: -1, Keep: 1, Inner: 1}); err == nil {
				t.Error("negative learning rate accepted")
			}
			if err := e.SetLR(newLR); err != nil {
				t.Error(err)
			}
			e.Checkpoint()
			e.Resume()
		}
	}
	if st := runAll(t, e, rec); st != StatusDone {
		t.Fatalf("status %s", st)
	}
	var kinds []EventKind
	for _, ev := range rec.events {
		kinds = append(kinds, ev.Kind)
		if ev.Iter != 2 {
			t.Errorf("event %s at iteration %d, want 2", ev.Kind, ev.Iter)
		}
	}
	if want := []EventKind{EventPause, EventSetLR, EventCheckpoint, EventResume}; !slices.Equal(kinds, want) {
		t.Errorf("events %v, want %v", kinds, want)
	}
	if len(rec.ckpts) != 2 || rec.ckpts[0].Iter != 2 || rec.ckpts[0].LR.Weight != 0.25 {
		t.Errorf("want a checkpoint with the old rates before the change, then one on request; got %d", len(rec.ckpts))
	}
	if rec.snaps[1].LR.Weight != 0.25 || rec.snaps[2].LR != newLR {
		t.Errorf("rates in force: %v then %v", rec.snaps[1].LR, rec.snaps[2].LR)
	}
	if len(rec.snaps) != 8 || rec.snaps[7].Status != StatusDone {
		t.Errorf("%d snapshots, last status %s", len(rec.snaps), rec.snaps[len(rec.snaps)-1].Status)
	}
}

func TestNonFinitePausesAndKeepsState(t *testing.T) {
	set := engineSettings("fixed")
	set.InnerLR, set.WeightDecay, set.InnerSteps = 10, 1, 30 // overflows in the first iteration
	e, err := New(tinydata.Splits(40, 2, 4), set)
	if err != nil {
		t.Fatal(err)
	}
	e.Watched = func() bool { return true }
	before := e.State()
	rec := &scriptRec{}
	done := make(chan Status)
	go func() {
		st, _ := e.Run(context.Background(), rec)
		done <- st
	}()
	// Wait for the error event, then check the state and recover.
	rec.waitEvent(t)
	rec.mu.Lock()
	ev := rec.events[0]
	rec.mu.Unlock()
	if ev.Kind != EventError || ev.Iter != 0 || ev.Error == "" {
		t.Fatalf("event %+v, want an error at iteration 0", ev)
	}
	if err := e.SetLR(LearningRates{Weight: 0.25, Keep: 0.05, Inner: 0.1}); err != nil {
		t.Fatal(err)
	}
	e.Resume()
	if st := <-done; st != StatusDone {
		t.Fatalf("status %s", st)
	}
	// The checkpoint taken before the rate change is the untouched state.
	c := rec.ckpts[0]
	if c.Iter != 0 || !bitsEqual(c.W, before.W) || !slices.Equal(c.RNG, before.RNG) {
		t.Error("the failed iteration changed the search state")
	}
	if len(rec.snaps) != set.OuterIters {
		t.Errorf("%d snapshots, want %d", len(rec.snaps), set.OuterIters)
	}
}

func TestRecorderFailurePausesWithoutLoss(t *testing.T) {
	e, _ := New(tinydata.Splits(40, 2, 5), engineSettings("fixed"))
	e.Watched = func() bool { return true }
	rec := &scriptRec{}
	rec.after = func(s *Snapshot) {
		if s.Iter == 2 {
			rec.mu.Lock()
			rec.failOne = true
			rec.mu.Unlock()
		}
	}
	done := make(chan Status)
	go func() { st, _ := e.Run(context.Background(), rec); done <- st }()
	rec.waitEvent(t)
	e.Resume()
	<-done
	for i, s := range rec.snaps {
		if s.Iter != i+1 {
			t.Fatalf("snapshot %d is iteration %d: a record was lost or repeated", i, s.Iter)
		}
	}
	if len(rec.snaps) != 8 {
		t.Errorf("%d snapshots", len(rec.snaps))
	}
}

func TestSnapshotContents(t *testing.T) {
	e, _ := New(tinydata.Splits(40, 2, 6), engineSettings("fixed"))
	rec := &scriptRec{}
	runAll(t, e, rec)
	s := rec.snaps[0]
	var frac float64
	for _, f := range s.GroupFrac {
		frac += f
	}
	if math.Abs(frac-1) > 1e-12 {
		t.Errorf("group fractions sum to %g", frac)
	}
	total := 0
	for _, h := range s.Hist {
		for _, c := range h {
			total += c
		}
	}
	if total != 40 {
		t.Errorf("histogram counts %d samples, want 40", total)
	}
	// The worst of the per-group validation accuracies is the worst-group one.
	worst := math.Inf(1)
	for _, a := range s.ValGroups {
		if a >= 0 {
			worst = math.Min(worst, a)
		}
	}
	if len(s.ValGroups) != len(s.GroupNames) || worst != s.ValWorst {
		t.Errorf("per-group validation accuracy %v, worst-group %g", s.ValGroups, s.ValWorst)
	}
	if s.KeepSize != 0.9*40 || s.Temp != 1 || s.KeepFrac <= 0 || s.KeepFrac > 1 {
		t.Errorf("keep size %g, temperature %g, keep fraction %g", s.KeepSize, s.Temp, s.KeepFrac)
	}
	// The last snapshot's top samples against the engine's last u.
	last, u := rec.snaps[len(rec.snaps)-1], e.e.u
	if len(last.Top) != 5 {
		t.Fatalf("%d top samples", len(last.Top))
	}
	listed := map[int]bool{}
	for k, ts := range last.Top {
		listed[ts.Index] = true
		if ts.Weight != u[ts.Index] || (k > 0 && ts.Weight > last.Top[k-1].Weight) {
			t.Errorf("top sample %d: %+v", k, ts)
		}
	}
	for i, v := range u {
		if !listed[i] && v > last.Top[4].Weight {
			t.Errorf("sample %d (u %g) outweighs the listed %g", i, v, last.Top[4].Weight)
		}
	}
	// The least likely kept (leastKept, tested below): five, in order.
	if len(last.Dropped) != 5 {
		t.Fatalf("%d dropped samples", len(last.Dropped))
	}
	for k := 1; k < 5; k++ {
		if last.Dropped[k].Keep < last.Dropped[k-1].Keep {
			t.Errorf("dropped samples out of order: %+v", last.Dropped)
		}
	}
	// Snapshots own their data.
	s.GroupFrac[0] = 42
	if rec.snaps[1].GroupFrac[0] == 42 {
		t.Error("snapshots share buffers")
	}
}

// TestLinearCase checks the paper's Theorem 4.1 on the synthetic data with
// a linear model: ERM leans on the spurious direction, MAPLE's weights
// remove most of it, and weighted ERM on them is close to the oracle.
func TestLinearCase(t *testing.T) {
	if testing.Short() {
		t.Skip("trains several models")
	}
	sp, err := loaders.Synthetic(loaders.DefaultSynthetic())
	if err != nil {
		t.Fatal(err)
	}
	set := priorDefaults()
	set.Model, set.Objective = "linear", "rex"
	es := train.DefaultEval()
	es.Model = "linear"
	ctx := context.Background()
	e, err := New(sp, set)
	if err != nil {
		t.Fatal(err)
	}
	runAll(t, e, &scriptRec{})
	maple, err := train.WeightedERM(ctx, sp, e.Output().Weights(), es, "maple")
	if err != nil {
		t.Fatal(err)
	}
	erm, err := train.WeightedERM(ctx, sp, train.Ones(sp.Train.N), es, "erm") // baselines' erm
	if err != nil {
		t.Fatal(err)
	}
	oracle, err := train.WeightedERM(ctx, sp.Oracle, train.Ones(sp.Oracle.Train.N), es, "oracle") // baselines' oracle
	if err != nil {
		t.Fatal(err)
	}
	shM, _ := train.SpuriousShare(sp, maple.Theta)
	shE, _ := train.SpuriousShare(sp, erm.Theta)
	t.Logf("spurious share: erm %.4f maple %.4f; test acc: erm %.4f maple %.4f oracle %.4f", shE, shM, erm.TestAcc, maple.TestAcc, oracle.TestAcc)
	if shE < 0.2 {
		t.Errorf("ERM's spurious share %.3f: want clearly non-zero", shE)
	}
	if shM > shE/4 {
		t.Errorf("MAPLE's spurious share %.4f is not below a quarter of ERM's %.4f", shM, shE)
	}
	if maple.TestAcc < oracle.TestAcc-0.05 {
		t.Errorf("MAPLE test acc %.4f more than 5 points below the oracle's %.4f", maple.TestAcc, oracle.TestAcc)
	}
	if maple.TestAcc < erm.TestAcc+0.15 {
		t.Errorf("MAPLE test acc %.4f not 15 points above ERM's %.4f", maple.TestAcc, erm.TestAcc)
	}
}

// TestMostWeighted checks the short-list selection of the most
// up-weighted samples against a full sort: ties in u (every kept sample
// at u 1 when w is frozen at 1) by the keep probability s, not by index.
func TestMostWeighted(t *testing.T) {
	cases := []struct {
		name string
		u, s []float64
		want []int
	}{
		{"frozen weights: kept samples tie at u 1", []float64{1, 1, 0, 1, 1, 1, 1}, []float64{0.2, 0.5, 0.9, 0.99, 0.3, 0.7, 0.1}, []int{3, 5, 1, 4, 0}},
		{"distinct weights", []float64{0.5, 2, 1, 3}, []float64{1, 0, 0, 0}, []int{3, 1, 2, 0}},
		{"equal u and s: by index", []float64{1, 1, 1}, []float64{0.5, 0.5, 0.5}, []int{0, 1, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := mostWeighted(c.u, c.s, 5); !slices.Equal(got, c.want) {
				t.Errorf("%v, want %v", got, c.want)
			}
		})
	}
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 50; trial++ {
		n := 1 + r.IntN(60)
		u, s := make([]float64, n), make([]float64, n)
		for i := range u {
			u[i], s[i] = float64(r.IntN(2)), float64(r.IntN(5))/4 // many ties
		}
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		sort.SliceStable(want, func(a, b int) bool {
			i, j := want[a], want[b]
			return u[i] > u[j] || u[i] == u[j] && s[i] > s[j]
		})
		if got := mostWeighted(u, s, 5); !slices.Equal(got, want[:min(5, n)]) {
			t.Fatalf("n %d: %v, want %v", n, got, want[:min(5, n)])
		}
	}
}

// TestLeastKept checks the short-list selection against a full sort, ties
// included.
func TestLeastKept(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 50; trial++ {
		n := 1 + r.IntN(60)
		s, w := make([]float64, n), make([]float64, n)
		for i := range s {
			s[i], w[i] = float64(r.IntN(5))/4, float64(r.IntN(3)) // many ties
		}
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		sort.SliceStable(want, func(a, b int) bool {
			i, j := want[a], want[b]
			return s[i] < s[j] || s[i] == s[j] && w[i] < w[j]
		})
		k := min(5, n)
		if got := leastKept(s, w, 5); !slices.Equal(got, want[:k]) {
			t.Fatalf("n %d: %v, want %v", n, got, want[:k])
		}
	}
}
