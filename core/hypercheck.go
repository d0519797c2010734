package core

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
)

// HyperComponent is one component of the hypergradient as the search
// computes it (Analytic) and as a float64 central difference of the
// outer risk finds it (Numeric): dR/dw_i (Which "w") or dR/dm_i ("m").
type HyperComponent struct {
	Which             string
	Index             int
	Analytic, Numeric float64
}

// HyperCheckOptions are the draws of HypergradientCheck.
type HyperCheckOptions struct {
	Seed uint64 // seeds the sample weights and keep masks
	// KeepAll keeps every sample (else most are dropped): for models
	// whose logits depend on the other samples of their batch (batch
	// norm), the regime where the per-sample hypergradient is exact.
	KeepAll bool
}

// HypergradientCheck compares every component of dR/dw and dR/dm with
// the central difference (step 1e-6) of R(theta_T(u)), theta_T the last
// inner step recomputed from the saved theta_{T-1} and momentum buffer,
// in float64, at sample weights and keep masks drawn as opt says, for
// the model and objective of set on sp. It is how a model family (a new
// one in particular) shows its derivatives right; scale is the largest
// |dR/du_i|, for relative errors.
func HypergradientCheck(sp *dataset.Splits, set Settings, opt HyperCheckOptions) (comps []HyperComponent, scale float64, err error) {
	e, err := newEngine[float64](sp, set)
	if err != nil {
		return nil, 0, err
	}
	n := e.train.n
	w, m := probeWeights(n, set, opt)
	lab := e.outer.labels()
	if needsHalves(set.Objective) {
		lab.Half = e.halves()
	}
	st, err := e.innerTrain(e.theta0, product(w, m), set.InnerLR)
	if err != nil {
		return nil, 0, err
	}
	_, g, _, err := e.outerGrad(st.final, lab)
	if err != nil {
		return nil, 0, err
	}
	h := e.hypergrad(st, g, product(w, m), set.InnerLR)
	if set.InnerBatch > 0 && st.batch == nil {
		return nil, 0, fmt.Errorf("no minibatch recorded")
	}
	ls := newLastStep(e, st, m, lab)
	// The recomputed last step reproduces theta_T.
	r0, err := ls.replay(product(w, m))
	if err != nil {
		return nil, 0, err
	}
	r1, err := ls.risk(st.final)
	if err != nil {
		return nil, 0, err
	}
	if math.Abs(r0-r1) > 1e-12*(math.Max(math.Abs(r0), math.Abs(r1))+1e-12) {
		return nil, 0, fmt.Errorf("the replayed last step gives R = %g, the inner loop %g", r0, r1)
	}
	for _, v := range h {
		scale = math.Max(scale, math.Abs(v))
	}
	const eps = 1e-6
	for i := range n {
		for _, which := range []string{"w", "m"} {
			wp, wm, mp, mm := slices.Clone(w), slices.Clone(w), slices.Clone(m), slices.Clone(m)
			want := m[i] * h[i]
			if which == "w" {
				wp[i] += eps
				wm[i] -= eps
			} else {
				mp[i] += eps
				mm[i] -= eps
				want = w[i] * h[i]
			}
			rp, err := ls.replay(product(wp, mp))
			if err != nil {
				return nil, 0, err
			}
			rm, err := ls.replay(product(wm, mm))
			if err != nil {
				return nil, 0, err
			}
			comps = append(comps, HyperComponent{Which: which, Index: i, Analytic: want, Numeric: (rp - rm) / (2 * eps)})
		}
	}
	return comps, scale, nil
}

// probeWeights draws the sample weights w (0.5 to 1.5) and keep masks m
// (mostly 0, so that the kept samples alone train; every sample with
// opt.KeepAll) of a hypergradient check.
func probeWeights(n int, set Settings, opt HyperCheckOptions) (w, m []float64) {
	rng := rand.New(rand.NewPCG(opt.Seed, opt.Seed))
	w, m = make([]float64, n), make([]float64, n)
	for i := range w {
		w[i] = 0.5 + rng.Float64()
		m[i] = float64(rng.IntN(4) / 3)
		if i < 2 || (set.InnerBatch > 0 && i < 7) || opt.KeepAll {
			m[i] = 1 // enough kept samples for several minibatches
		}
	}
	return w, m
}

// product is u_i = w_i m_i.
func product(w, m []float64) []float64 {
	u := make([]float64, len(w))
	for i := range u {
		u[i] = w[i] * m[i]
	}
	return u
}

// lastStep replays the inner loop's last step for any sample weights:
// its samples are every sample with full batch, else the last minibatch
// and the dropped samples (weight 0).
type lastStep struct {
	e    *engine[float64]
	st   *step[float64]
	lab  Labels
	rows []int
	xr   []float64
	yr   []int32
}

func newLastStep(e *engine[float64], st *step[float64], m []float64, lab Labels) *lastStep {
	ls := &lastStep{e: e, st: st, lab: lab, rows: slices.Clone(st.batch)}
	n, d := e.train.n, e.train.ds.D
	for i := range n {
		if st.batch == nil || m[i] == 0 {
			ls.rows = append(ls.rows, i)
		}
	}
	ls.xr, ls.yr = make([]float64, len(ls.rows)*d), make([]int32, len(ls.rows))
	for j, i := range ls.rows {
		copy(ls.xr[j*d:(j+1)*d], e.train.x[i*d:(i+1)*d])
		ls.yr[j] = e.train.ds.Y[i]
	}
	return ls
}

// risk is the outer risk R at theta.
func (ls *lastStep) risk(theta []float64) (float64, error) {
	e := ls.e
	f := make([]float64, e.outer.n*e.k)
	e.net.Forward(theta, e.outer.x, e.outer.n, f)
	r, err := e.obj.Eval(f, ls.lab, nil)
	return r * e.set.ResolvedOuterScale(), err
}

// replay is R after the last step taken with the sample weights u.
func (ls *lastStep) replay(u []float64) (float64, error) {
	e, st, set := ls.e, ls.st, ls.e.set
	s := st.sumU // held constant with --detach-sum
	if !set.DetachSum {
		s = 0
		for _, i := range ls.rows {
			s += u[i]
		}
	}
	grad := make([]float64, len(st.prev))
	e.net.Backprop(st.prev, ls.xr, len(ls.rows), func(lo, hi int, f, cot []float64) {
		nets.Losses(e.loss, f, ls.yr[lo:hi], e.k, nil, cot)
		for j := range cot {
			cot[j] *= u[ls.rows[lo+j/e.k]] / s
		}
	}, grad)
	opt := nets.SGD[float64]{LR: set.InnerLR, Momentum: set.Momentum, WeightDecay: set.WeightDecay, Buf: slices.Clone(st.buf)}
	th := slices.Clone(st.prev)
	opt.Step(th, grad)
	return ls.risk(th)
}
