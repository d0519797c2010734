package core

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/train"
)

// engine is the MAPLE search over a float type T (float32 in use, float64
// in the derivative tests).
type engine[T nets.Float] struct {
	set              Settings
	sp               *dataset.Splits
	train, val, test data[T]
	outer            *data[T]
	net              models.Model[T]
	k                int
	loss             nets.Loss
	obj              Objective
	theta0           []T

	// Search state.
	iter   int
	w, s   []float64
	aw, as Adam
	pcg    *rand.PCG
	rng    *rand.Rand
	lr     LearningRates
	theta  []T // warm start only

	// Per-iteration buffers.
	m, dmds, u []float64
	xk         []T // the inner training's gathered rows, when few (gatherMax)
	rows       models.Rows[T]

	// The validation-selected iterate so far (bestIter 0: none).
	bestIter     int
	bestScore    float64
	bestW, bestS []float64
	bestM        []bool

	// interrupted, when set, is asked between inner steps; true abandons
	// the outer iteration with errInterrupted.
	interrupted func() bool
}

func newEngine[T nets.Float](sp *dataset.Splits, set Settings) (*engine[T], error) {
	if err := set.CheckRecorded(); err != nil { // the bound on rates given now is the callers' (config, the form, set_lr)
		return nil, err
	}
	if err := set.CheckMachine(); err != nil {
		return nil, err
	}
	if err := sp.Validate(); err != nil {
		return nil, err
	}
	k := models.Outputs(sp.Train)
	net, err := models.New[T](set.Model, sp.Train.Shape, k)
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	models.FitData(net, sp.Train.N*sp.Train.D)
	e := &engine[T]{set: set, sp: sp, train: newData[T](sp.Train), val: newData[T](sp.Val), test: newData[T](sp.Test),
		net: net, k: k, loss: nets.LossFor(k)}
	e.rows = models.Rows[T]{M: net, D: sp.Train.D}
	e.outer = &e.val
	if set.OuterOn == "train" {
		e.outer = &e.train
	}
	e.obj = Objective{Name: set.Objective, Beta: set.Beta, Alpha: set.CVaRAlpha, Loss: e.loss, K: k}
	e.theta0 = make([]T, net.NumParams())
	net.Init(e.theta0, rand.New(rand.NewPCG(set.Seed, 0x7e7a)))
	n := e.train.n
	e.w, e.s = make([]float64, n), make([]float64, n)
	for i := range e.w {
		e.w[i], e.s[i] = 1, set.Keep0
	}
	e.aw, e.as = NewAdam(n), NewAdam(n)
	e.pcg = rand.NewPCG(set.Seed, 0x3a91e)
	e.rng = rand.New(e.pcg)
	e.lr = set.Rates()
	if set.InnerInit == "warm" {
		e.theta = append([]T(nil), e.theta0...)
	}
	e.m, e.dmds, e.u = make([]float64, n), make([]float64, n), make([]float64, n)
	return e, nil
}

func (e *engine[T]) state() *State {
	rng, _ := e.pcg.MarshalBinary()
	st := &State{Iter: e.iter, W: e.w, S: e.s, WM: e.aw.M, WV: e.aw.V, SM: e.as.M, SV: e.as.V,
		AdamT: e.aw.T, RNG: rng, LR: e.lr, BestIter: e.bestIter, BestScore: e.bestScore, BestW: e.bestW, BestS: e.bestS, BestM: e.bestM}
	for _, v := range e.theta {
		st.Theta = append(st.Theta, float32(v))
	}
	return st.Clone()
}

func (e *engine[T]) restore(st *State) error {
	n := e.train.n
	for _, v := range [][]float64{st.W, st.S, st.WM, st.WV, st.SM, st.SV} {
		if len(v) != n {
			return fmt.Errorf("state holds %d values per vector, the training set has %d samples", len(v), n)
		}
	}
	if st.Iter < 0 || st.Iter > e.set.OuterIters {
		return fmt.Errorf("state at iteration %d, the search has %d", st.Iter, e.set.OuterIters)
	}
	if err := e.set.CheckRates(st.LR.Recorded()); err != nil {
		return err
	}
	if st.BestIter < 0 || st.BestIter > st.Iter || (st.BestIter > 0 && (len(st.BestW) != n || len(st.BestS) != n || len(st.BestM) != n)) {
		return fmt.Errorf("state's selected iterate %d does not fit a search at iteration %d over %d samples", st.BestIter, st.Iter, n)
	}
	if e.set.InnerInit == "warm" && len(st.Theta) != e.net.NumParams() {
		return fmt.Errorf("warm-start state holds %d parameters, the model has %d", len(st.Theta), e.net.NumParams())
	}
	pcg := rand.NewPCG(0, 0)
	if err := pcg.UnmarshalBinary(st.RNG); err != nil {
		return fmt.Errorf("state's generator: %w", err)
	}
	c := st.Clone()
	e.iter, e.w, e.s, e.lr = c.Iter, c.W, c.S, c.LR
	e.aw = Adam{M: c.WM, V: c.WV, T: c.AdamT}
	e.as = Adam{M: c.SM, V: c.SV, T: c.AdamT}
	e.pcg, e.rng = pcg, rand.New(pcg)
	e.bestIter, e.bestScore, e.bestW, e.bestS, e.bestM = c.BestIter, c.BestScore, c.BestW, c.BestS, c.BestM
	if c.BestIter == 0 {
		e.bestW, e.bestS, e.bestM = nil, nil, nil
	}
	if e.set.InnerInit == "warm" {
		for i, v := range c.Theta {
			e.theta[i] = T(v)
		}
	}
	return nil
}

// iterate runs one outer iteration. On error the search state is as it
// was before the call.
func (e *engine[T]) iterate() (*Snapshot, error) {
	before := e.state()
	snap, err := e.tryIterate()
	if err != nil {
		if rerr := e.restore(before); rerr != nil {
			panic(rerr) // the state was just taken from this engine
		}
		return nil, err
	}
	return snap, nil
}

func (e *engine[T]) tryIterate() (*Snapshot, error) {
	set, n, t, T_ := e.set, e.train.n, e.iter, e.set.OuterIters
	kt := KeepSize(t, T_, set.Keep0*float64(n), set.Keep*float64(n), set.AnnealStart, set.AnnealEnd)
	tau := Temperature(t, T_)
	kept := 0
	for i := range e.m {
		if set.Sparse() {
			e.m[i], e.dmds[i] = MaskEps(e.s[i], gumbel(e.open01()), gumbel(e.open01()), tau, set.MaskEps)
		} else {
			e.m[i], e.dmds[i] = 1, 0
		}
		e.u[i] = e.w[i] * e.m[i]
		if e.m[i] == 1 {
			kept++
		}
	}
	lab := e.outer.labels()
	if needsHalves(set.Objective) {
		lab.Half = e.halves()
	}
	var tm Timing
	t0 := time.Now()
	st, err := e.innerTrain(e.innerStart(), e.u, e.lr.Inner)
	if err != nil {
		return nil, err
	}
	t1 := time.Now()
	r, g, outerLogits, err := e.outerGrad(st.final, lab)
	if err != nil {
		return nil, err
	}
	t2 := time.Now()
	h := e.hypergrad(st, g, e.u, e.lr.Inner)
	gw, gs := make([]float64, n), make([]float64, n)
	for i, hi := range h {
		gw[i] = e.m[i] * hi
		gs[i] = e.w[i] * hi * e.dmds[i]
	}
	if !finite(gw...) || !finite(gs...) {
		return nil, fmt.Errorf("hypergradient: %w; lower the inner learning rate", errNonFinite)
	}
	tm.Inner, tm.OuterGrad, tm.Hyper = t1.Sub(t0).Seconds(), t2.Sub(t1).Seconds(), time.Since(t2).Seconds()

	snap := e.metrics(st.final, outerLogits)
	snap.OuterRisk, snap.InnerLoss, snap.Seconds = r, st.loss, tm
	snap.KeepFrac, snap.KeepSize, snap.Temp = float64(kept)/float64(n), kt, tau
	e.groupStats(snap)
	e.consider(t+1, snap)
	snap.Selected = e.bestIter
	if set.ResolvedSelectIterate() == "final" {
		snap.Selected = t + 1
	}

	snap.HyperNorm = e.aw.Step(e.w, gw, e.lr.Weight, set.ClipNorm)
	ProjectWeights(e.w)
	if set.Sparse() {
		snap.KeepNorm = e.as.Step(e.s, gs, e.lr.Keep, set.ClipNorm)
		ProjectKeep(e.s, kt)
	} else {
		e.as.T = e.aw.T
	}
	if set.InnerInit == "warm" {
		copy(e.theta, st.final)
	}
	e.iter++
	snap.Iter, snap.Total, snap.LR, snap.Status = e.iter, T_, e.lr, StatusRunning
	return snap, nil
}

func (e *engine[T]) open01() float64 {
	for {
		if u := e.rng.Float64(); u > 0 {
			return u
		}
	}
}

// output returns the weights the final weighted ERM trains on: the
// validation-selected iterate's w, s and drawn mask, or with
// SelectIterate final the last w and s with a mask drawn from s (all kept
// without sparsity). It also returns the iterate (0: the final weights).
func (e *engine[T]) output() (w, s []float64, keep []bool, iter int) {
	if e.set.ResolvedSelectIterate() == "val" && e.bestIter > 0 {
		return append([]float64(nil), e.bestW...), append([]float64(nil), e.bestS...), append([]bool(nil), e.bestM...), e.bestIter
	}
	keep = make([]bool, len(e.w))
	for i := range keep {
		keep[i] = true
		if e.set.Sparse() {
			m, _ := MaskEps(e.s[i], gumbel(e.open01()), gumbel(e.open01()), Temperature(e.set.OuterIters, e.set.OuterIters), e.set.MaskEps)
			keep[i] = m == 1
		}
	}
	return append([]float64(nil), e.w...), append([]float64(nil), e.s...), keep, 0
}

// Output is what a search produces: per training sample, the weight, the
// keep probability and whether it is kept. The weighted set is
// {(x_i, y_i, W_i) : Keep_i}.
type Output struct {
	W, S []float64
	Keep []bool
	// Iter is the selected iterate (1-based) the weights are from; 0 for
	// the weights after the last iteration (--select-iterate final).
	Iter int
}

// Weights returns u_i = W_i if kept, else 0.
func (o *Output) Weights() []float64 {
	u := make([]float64, len(o.W))
	for i, k := range o.Keep {
		if k {
			u[i] = o.W[i]
		}
	}
	return u
}

// Engine runs a MAPLE search. Create it with New, run it with Run in a
// goroutine of its own, and steer it with Pause, Resume, SetLR,
// Checkpoint and Stop from any goroutine: they never block, and answer
// ErrEnded once Run has returned.
type Engine struct {
	e   *engine[float32]
	box *mailbox
	// Watched, when set, tells Run whether someone can act on a pause: on
	// a non-finite value or a recorder error a watched search pauses (the
	// person changes the rates and resumes); an unwatched one ends with
	// StatusFailed and the last good state. nil means unwatched.
	Watched func() bool
	// EvalEach, when set, trains the evaluation model on every iterate's
	// weights u and records the figures on its snapshot (IterEval).
	EvalEach *train.EvalSettings
	// Elapsed is the seconds spent on this search's iterations before
	// Run (a resumed search sets it from its last record). Each snapshot's
	// Elapsed adds the time of the iterations since, pauses excluded.
	Elapsed float64
}

// New prepares a search of sp's training set with the settings set.
func New(sp *dataset.Splits, set Settings) (*Engine, error) {
	e, err := newEngine[float32](sp, set)
	if err != nil {
		return nil, err
	}
	return &Engine{e: e, box: newMailbox()}, nil
}

// SetInit replaces the seeded initial parameters theta_0 of the inner
// training (and the start of a warm one) with theta, a flat vector in the
// model's layout (Settings.InitParams). Call it before Restore and Run.
func (E *Engine) SetInit(theta []float32) error {
	e := E.e
	if len(theta) != e.net.NumParams() {
		return fmt.Errorf("%d initial parameters, model %s has %d", len(theta), e.set.Model, e.net.NumParams())
	}
	for i, v := range theta {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("initial parameter %d is %v", i, v)
		}
	}
	copy(e.theta0, theta)
	if e.theta != nil {
		copy(e.theta, theta)
	}
	return nil
}

// Init returns a copy of theta_0, the inner training's initial parameters.
func (E *Engine) Init() []float32 { return append([]float32(nil), E.e.theta0...) }

// Settings returns the settings the engine was made with.
func (E *Engine) Settings() Settings { return E.e.set }

// State returns a deep copy of the search state. Call it only while Run
// is not running (before, after, or from a Recorder callback). After Run
// it is the state of the last iteration the recorder took.
func (E *Engine) State() *State { return E.e.state() }

// Restore replaces the search state; Run then continues from st.Iter.
func (E *Engine) Restore(st *State) error { return E.e.restore(st) }

// Output returns the learned weights and a keep mask drawn from the keep
// probabilities. Call it after Run has finished.
func (E *Engine) Output() *Output {
	w, s, k, it := E.e.output()
	return &Output{W: w, S: s, Keep: k, Iter: it}
}

// Pause asks the search to pause before its next outer iteration.
func (E *Engine) Pause() error { return E.box.post(command{kind: EventPause}) }

// Resume continues a paused search.
func (E *Engine) Resume() error { return E.box.post(command{kind: EventResume}) }

// SetLR changes the learning rates from the next outer iteration on, after
// a checkpoint. Invalid rates are refused here and change nothing.
func (E *Engine) SetLR(lr LearningRates) error {
	if err := E.e.set.CheckRates(lr); err != nil {
		return err
	}
	return E.box.post(command{kind: EventSetLR, lr: lr})
}

// Exported records, before the next outer iteration, that the weights of
// the checkpoint at iteration iter were exported (an event, nothing more).
func (E *Engine) Exported(iter int) error {
	return E.box.post(command{kind: EventExport, iter: iter})
}

// Checkpoint asks for a checkpoint before the next outer iteration.
func (E *Engine) Checkpoint() error { return E.box.post(command{kind: EventCheckpoint}) }

// Stop ends the search: the outer iteration under way is abandoned
// between two inner steps and the state stays at the last completed one.
func (E *Engine) Stop() error { return E.box.post(command{kind: EventStop}) }
