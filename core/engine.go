package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/setting"
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
	if err := e.set.checkRates(st.LR.recorded()); err != nil {
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

// gatherMax is the most feature values inner training copies into a
// buffer of its own (32 MiB of float32): more rows, a share of a large
// data set, are read through their indices one chunk at a time.
var gatherMax = 8 << 20

// errNonFinite marks a NaN or Inf found during an iteration.
var errNonFinite = errors.New("non-finite value")

// step is the result of inner training with the last step unrolled.
type step[T nets.Float] struct {
	prev, buf, final []T     // theta_{T-1}, the momentum buffer before the last step, theta_T
	loss             float64 // weighted loss at theta_{T-1} on the last step's samples
	sumU             float64 // the last step's weight sum S (of its minibatch)
	batch            []int   // the last step's minibatch (training rows); nil: every kept sample
}

// innerTrain runs T_in SGD steps from theta0 on L(theta; u) = sum u_i l_i
// / sum u_i over the samples with u_i > 0: full batch, or with
// Settings.InnerBatch = B minibatches of B kept samples drawn by a seeded
// shuffle (a new permutation whenever fewer than B remain), each step's
// loss normalised by its own minibatch's weight sum.
func (e *engine[T]) innerTrain(theta0 []T, u []float64, lr float64) (*step[T], error) {
	var idx []int
	var sumU float64
	for i, v := range u {
		if v > 0 {
			idx = append(idx, i)
			sumU += v
		}
	}
	if len(idx) == 0 || !(sumU > 0) || math.IsInf(sumU, 0) {
		return nil, fmt.Errorf("every sample weight is zero or the total is %g; raise the keep fraction or lower the weight learning rate", sumU)
	}
	if e.set.precision() == "bf16" {
		if err := models.SetBF16(e.net, true); err != nil {
			return nil, &setting.Error{Field: "Settings.Precision", Value: "bf16", Text: ": " + err.Error(), Err: err}
		}
		defer models.SetBF16(e.net, false)
	}
	b := len(idx)
	mini := e.set.InnerBatch > 0 && e.set.InnerBatch < len(idx)
	if mini {
		b = e.set.InnerBatch
	}
	d, k := e.train.ds.D, e.k
	// Full batch over every training row (idx is ascending) trains on
	// the split's own matrix. Otherwise a step's rows are copied into the
	// engine's buffer, reused across outer iterations, when they are few
	// (gatherMax values); more rows go to a model that reads them through
	// their indices, one chunk at a time, so that no copy of a share of
	// the data is made (the same bits: the chunks are the same).
	whole := !mini && b == e.train.n
	_, rowsModel := e.net.(models.RowsModel[T])
	byRows := !whole && rowsModel && b*d > gatherMax
	var xk []T
	switch {
	case whole:
		xk = e.train.x[:b*d]
	case !byRows:
		if cap(e.xk) < b*d {
			e.xk = make([]T, b*d)
		}
		xk = e.xk[:b*d]
	}
	yk, uk := make([]int32, b), make([]T, b)
	// gather loads the rows rows into the step's buffers, weights
	// normalised by their sum, which it returns.
	gather := func(rows []int) float64 {
		var s float64
		for _, i := range rows {
			s += u[i]
		}
		for j, i := range rows {
			if !whole && !byRows {
				copy(xk[j*d:(j+1)*d], e.train.x[i*d:(i+1)*d])
			}
			yk[j], uk[j] = e.train.ds.Y[i], T(u[i]/s)
		}
		return s
	}
	var perm []int
	next := 0
	rows := idx
	batch := make([]int, 0, b) // the minibatch's rows, reused every step
	var s float64
	if !mini {
		s = gather(idx)
	}
	theta := append([]T(nil), theta0...)
	grad := make([]T, len(theta))
	opt := nets.SGD[T]{LR: lr, Momentum: e.set.Momentum, WeightDecay: e.set.WeightDecay}
	st := &step[T]{}
	l := make([]T, b)
	last := e.set.InnerSteps - 1
	for t := 0; t <= last; t++ {
		if e.interrupted != nil && e.interrupted() {
			return nil, errInterrupted
		}
		if mini {
			if perm == nil || next+b > len(perm) {
				perm, next = e.rng.Perm(len(idx)), 0
			}
			batch = batch[:0]
			for _, p := range perm[next : next+b] {
				batch = append(batch, idx[p])
			}
			rows = batch
			next += b
			s = gather(rows)
		}
		if t == last {
			st.prev = append([]T(nil), theta...)
			st.buf = make([]T, len(theta))
			copy(st.buf, opt.Buf)
			st.sumU = s
			if mini {
				st.batch = append([]int(nil), rows...)
			}
		}
		fill := func(lo, hi int, f, cot []T) {
			var lt []T
			if t == last {
				lt = l[lo:hi]
			}
			nets.Losses(e.loss, f, yk[lo:hi], k, lt, cot)
			for j := lo; j < hi; j++ {
				for q := 0; q < k; q++ {
					cot[(j-lo)*k+q] *= uk[j]
				}
			}
		}
		if byRows {
			e.rows.Backprop(theta, e.train.x, rows, fill, grad)
		} else {
			e.net.Backprop(theta, xk, b, fill, grad)
		}
		opt.Step(theta, grad)
	}
	for j := range l {
		st.loss += float64(uk[j]) * float64(l[j])
	}
	st.final = theta
	if !finite(st.loss) {
		return nil, fmt.Errorf("inner loss is %g: %w; lower the inner learning rate", st.loss, errNonFinite)
	}
	return st, nil
}

// outerGrad returns R(theta) on the outer set, g = dR/dtheta, and the
// outer set's logits.
func (e *engine[T]) outerGrad(theta []T, lab Labels) (float64, []T, []T, error) {
	o := e.outer
	f := make([]T, o.n*e.k)
	e.net.Forward(theta, o.x, o.n, f)
	cot := make([]float64, o.n*e.k)
	r, err := e.obj.Eval(to64(f), lab, cot)
	if err != nil {
		return 0, nil, nil, err
	}
	if sc := e.set.outerScale(); sc != 1 {
		r *= sc
		for i := range cot {
			cot[i] *= sc
		}
	}
	if !finite(r) {
		return 0, nil, nil, fmt.Errorf("outer risk is %g: %w; lower the inner learning rate", r, errNonFinite)
	}
	c := make([]T, len(cot))
	for i, v := range cot {
		c[i] = T(v)
	}
	g := make([]T, len(theta))
	e.net.VJP(theta, o.x, o.n, c, g)
	return r, g, f, nil
}

// hypergrad returns h_i = dR/du_i through the last inner step:
// h_i = -(eta/S)(d_i - sum_j u_j d_j / S) over the last step's samples
// (S their weight sum), d_i = l'(f_i, y_i) . (J g)_i at theta_{T-1}, J g
// one forward-mode JVP over those samples. With full batch they are all n
// samples (a dropped one, u_i = 0, enters with weight 0, so its gradient
// through its mask is kept); with minibatches, the last minibatch and
// every dropped sample, and h_i = 0 for the kept samples the last step
// did not see. With Settings.DetachSum, S is held constant (the MAPLE
// code's .detach()): h_i = -(eta/S) d_i.
func (e *engine[T]) hypergrad(st *step[T], g []T, u []float64, lr float64) []float64 {
	n, k := e.train.n, e.k
	rows := st.batch
	if rows != nil {
		rows = append([]int(nil), rows...)
		for i, v := range u {
			if v == 0 {
				rows = append(rows, i)
			}
		}
	}
	y := e.train.ds.Y
	if rows != nil {
		y = make([]int32, len(rows))
		for j, i := range rows {
			y[j] = e.train.ds.Y[i]
		}
	}
	m := len(y)
	f, jg := make([]T, m*k), make([]T, m*k)
	if rows == nil {
		e.net.JVP(st.prev, e.train.x, m, g, f, jg)
	} else {
		// The rows are read through their indices, one chunk at a time
		// where the model can (a copy of every dropped row was as large
		// as most of the data); else copied into a buffer freed after.
		r := models.Rows[T]{M: e.net, D: e.train.ds.D}
		if _, ok := e.net.(models.RowsModel[T]); ok {
			r = e.rows
		}
		r.JVP(st.prev, e.train.x, rows, g, f, jg)
	}
	dl := make([]T, m*k)
	nets.Losses(e.loss, f, y, k, nil, dl)
	row := func(j int) int {
		if rows == nil {
			return j
		}
		return rows[j]
	}
	d := make([]float64, m)
	var ud float64
	for j := range d {
		for q := 0; q < k; q++ {
			d[j] += float64(dl[j*k+q]) * float64(jg[j*k+q])
		}
		ud += u[row(j)] * d[j]
	}
	if e.set.DetachSum {
		ud = 0 // S held constant: no term through the normaliser
	}
	h := make([]float64, n)
	for j := range d {
		h[row(j)] = -(lr / st.sumU) * (d[j] - ud/st.sumU)
	}
	return h
}

// halves assigns each outer sample to a random half of its environment.
func (e *engine[T]) halves() []bool {
	env := e.outer.ds.Env
	byEnv := map[int32][]int{}
	for i, v := range env {
		byEnv[v] = append(byEnv[v], i)
	}
	h := make([]bool, len(env))
	for v := int32(0); int(v) < len(e.outer.ds.EnvNames); v++ {
		idx := byEnv[v]
		for j, p := range e.rng.Perm(len(idx)) {
			h[idx[p]] = j%2 == 1
		}
	}
	return h
}

func (e *engine[T]) innerStart() []T {
	switch e.set.InnerInit {
	case "fresh":
		th := make([]T, e.net.NumParams())
		e.net.Init(th, e.rng)
		return th
	case "warm":
		return e.theta
	}
	return e.theta0
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
		if set.sparse() {
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
	if set.selectIterate() == "final" {
		snap.Selected = t + 1
	}

	snap.HyperNorm = e.aw.Step(e.w, gw, e.lr.Weight, set.ClipNorm)
	ProjectWeights(e.w)
	if set.sparse() {
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

// metrics evaluates theta_T on validation and test.
func (e *engine[T]) metrics(theta, outerLogits []T) *Snapshot {
	vl := outerLogits
	if e.outer != &e.val {
		vl = make([]T, e.val.n*e.k)
		e.net.Forward(theta, e.val.x, e.val.n, vl)
	}
	tl := make([]T, e.test.n*e.k)
	e.net.Forward(theta, e.test.x, e.test.n, tl)
	va, ta := train.AccuracyOf(vl, e.k, e.val.ds), train.AccuracyOf(tl, e.k, e.test.ds)
	return &Snapshot{ValAcc: va.Avg, ValWorst: va.Worst, TestAcc: ta.Avg, TestWorst: ta.Worst, ValGroups: va.PerGroup}
}

// histBins is the number of weight histogram bins.
const histBins = 20

// groupStats fills the group weight fractions and histograms from u.
func (e *engine[T]) groupStats(s *Snapshot) {
	ds := e.train.ds
	ng := len(ds.GroupNames)
	s.GroupNames = append([]string(nil), ds.GroupNames...)
	s.GroupFrac = make([]float64, ng)
	var total, hi float64
	for i, u := range e.u {
		s.GroupFrac[ds.Group[i]] += u
		total += u
		hi = math.Max(hi, u)
	}
	for g := range s.GroupFrac {
		s.GroupFrac[g] /= total
	}
	if hi == 0 {
		hi = 1
	}
	s.HistEdges = make([]float64, histBins+1)
	for b := range s.HistEdges {
		s.HistEdges[b] = hi * float64(b) / histBins
	}
	s.Hist = make([][]int, ng)
	for g := range s.Hist {
		s.Hist[g] = make([]int, histBins)
	}
	for i, u := range e.u {
		b := min(int(u/hi*histBins), histBins-1)
		s.Hist[ds.Group[i]][b]++
	}
	wHi := 0.0
	for _, w := range e.w {
		wHi = math.Max(wHi, w)
	}
	s.WeightHist, s.KeepHist = NewHistogram(e.w, 0, wHi, histBins), NewHistogram(e.s, 0, 1, histBins)
	top := mostWeighted(e.u, e.s, topK)
	for _, i := range top {
		s.Top = append(s.Top, TopSample{Index: i, ID: ds.ID[i], Label: ds.Y[i], Group: ds.Group[i], Weight: e.u[i], Keep: e.s[i], W: e.w[i]})
	}
	for _, i := range leastKept(e.s, e.w, topK) {
		s.Dropped = append(s.Dropped, TopSample{Index: i, ID: ds.ID[i], Label: ds.Y[i], Group: ds.Group[i], Weight: e.u[i], Keep: e.s[i], W: e.w[i]})
	}
}

// topK is how many top-weighted samples a snapshot lists.
const topK = 5

// score is an iterate's validation criterion, higher better: the inner
// model's validation worst-group accuracy where the validation split has
// more than one group, else minus the outer risk.
func (e *engine[T]) score(s *Snapshot) float64 {
	if len(e.val.ds.GroupNames) > 1 {
		return s.ValWorst
	}
	return -s.OuterRisk
}

// consider keeps iterate it (its w, s and drawn mask, before this
// iteration's update) when it scores better than the best so far; the
// earliest wins a tie. Only validation figures take part.
func (e *engine[T]) consider(it int, s *Snapshot) {
	sc := e.score(s)
	if e.bestIter > 0 && !(sc > e.bestScore) {
		return
	}
	e.bestIter, e.bestScore = it, sc
	e.bestW = append(e.bestW[:0], e.w...)
	e.bestS = append(e.bestS[:0], e.s...)
	e.bestM = e.bestM[:0]
	for _, m := range e.m {
		e.bestM = append(e.bestM, m == 1)
	}
}

// output returns the weights the final weighted ERM trains on: the
// validation-selected iterate's w, s and drawn mask, or with
// SelectIterate final the last w and s with a mask drawn from s (all kept
// without sparsity). It also returns the iterate (0: the final weights).
func (e *engine[T]) output() (w, s []float64, keep []bool, iter int) {
	if e.set.selectIterate() == "val" && e.bestIter > 0 {
		return append([]float64(nil), e.bestW...), append([]float64(nil), e.bestS...), append([]bool(nil), e.bestM...), e.bestIter
	}
	keep = make([]bool, len(e.w))
	for i := range keep {
		keep[i] = true
		if e.set.sparse() {
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
	if err := E.e.set.checkRates(lr); err != nil {
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

// mostWeighted returns the k samples of the largest weights u, largest
// first; ties (every kept sample's u is 1 when w is frozen at 1) by the
// keep probability s, the higher first, then by index.
func mostWeighted(u, s []float64, k int) []int {
	return firstK(len(u), k, func(i, j int) bool { return u[i] > u[j] || u[i] == u[j] && s[i] > s[j] })
}

// leastKept returns the k samples least likely kept, in order: the
// lowest keep probabilities s_i, ties by the lowest weight w_i, then by
// index (the dashboard's samples view).
func leastKept(s, w []float64, k int) []int {
	return firstK(len(s), k, func(i, j int) bool { return s[i] < s[j] || s[i] == s[j] && w[i] < w[j] })
}

// firstK returns the first k of the indices 0..n-1 in the order before
// (ties by index), by insertion into a short sorted list.
func firstK(n, k int, before func(i, j int) bool) []int {
	var top []int
	for i := range n {
		if len(top) == k && !before(i, top[k-1]) {
			continue
		}
		j := len(top)
		if j < k {
			top = append(top, i)
		} else {
			j = k - 1
		}
		for ; j > 0 && before(i, top[j-1]); j-- {
			top[j] = top[j-1]
		}
		top[j] = i
	}
	return top
}
