package core

// The search's mathematics: inner training with its last step unrolled,
// the outer risk's gradient and the hypergradient through that step.

import (
	"errors"
	"fmt"
	"math"

	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/setting"
)

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
	if e.set.ResolvedPrecision() == "bf16" {
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
	if sc := e.set.ResolvedOuterScale(); sc != 1 {
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
