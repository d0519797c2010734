package baselines

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/maple-ood/maple/nets"
)

// l1LogReg is an L1-regularised logistic regression on n rows of d
// standardised features (X, row-major float64) with labels y: binary (k
// = 1, the logistic loss) or multinomial (k classes, softmax
// cross-entropy). It minimises
//
//	F(W, b) = sum_i loss(x_i W + b, y_i) + lambda sum_jk |W_jk|,
//
// the intercepts b unpenalised; lambda = 1/C gives scikit-learn's
// LogisticRegression(penalty="l1", C) scaling, as DFR's code uses it
// (liblinear also penalises the intercept; this does not). The
// parameters theta are package nets' linear layout: W (d x k, row by
// row), then b (k).
type l1LogReg struct {
	X      []float64
	y      []int32
	n, d   int
	k      int
	lambda float64
	loss   nets.Loss
	// work buffers: logits and their cotangents (n x k)
	f, cot []float64
}

func newL1LogReg(x []float64, y []int32, d, k int, lambda float64) *l1LogReg {
	n := len(y)
	return &l1LogReg{X: x, y: y, n: n, d: d, k: k, lambda: lambda, loss: nets.LossFor(k),
		f: make([]float64, n*k), cot: make([]float64, n*k)}
}

// params returns the number of parameters, d*k + k.
func (p *l1LogReg) params() int { return p.d*p.k + p.k }

// smooth returns sum_i loss_i at theta and, when grad is not nil, writes
// its gradient there.
func (p *l1LogReg) smooth(theta, grad []float64) float64 {
	n, d, k := p.n, p.d, p.k
	w, b := theta[:d*k], theta[d*k:]
	for i := range n {
		copy(p.f[i*k:i*k+k], b)
	}
	if k == 1 {
		nets.Gemv(false, n, d, 1, p.X, d, w, 1, p.f)
	} else {
		nets.Gemm(false, false, n, k, d, 1, p.X, d, w, k, 1, p.f, k)
	}
	l := make([]float64, n)
	var c []float64
	if grad != nil {
		c = p.cot
	}
	nets.Losses(p.loss, p.f, p.y, k, l, c)
	var s float64
	for _, v := range l {
		s += v
	}
	if grad == nil {
		return s
	}
	gw, gb := grad[:d*k], grad[d*k:]
	if k == 1 {
		nets.Gemv(true, n, d, 1, p.X, d, c, 0, gw)
	} else {
		nets.Gemm(true, false, d, k, n, 1, p.X, d, c, k, 0, gw, k)
	}
	clear(gb)
	for i := range n {
		for j := range k {
			gb[j] += c[i*k+j]
		}
	}
	return s
}

// objective returns F at theta: the smooth part plus the L1 penalty.
func (p *l1LogReg) objective(theta []float64) float64 {
	return p.smooth(theta, nil) + p.lambda*l1Norm(theta[:p.d*p.k])
}

func l1Norm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += math.Abs(x)
	}
	return s
}

// prox sets out to the proximal step of the penalty from z at step t:
// soft-thresholding of the weights by t*lambda, the intercepts as z.
func (p *l1LogReg) prox(z []float64, t float64, out []float64) {
	dk := p.d * p.k
	thr := t * p.lambda
	for j, v := range z[:dk] {
		switch {
		case v > thr:
			out[j] = v - thr
		case v < -thr:
			out[j] = v + thr
		default:
			out[j] = 0
		}
	}
	copy(out[dk:], z[dk:])
}

// lipschitz returns an upper estimate of the Lipschitz constant of the
// smooth part's gradient: the loss's curvature bound in the logits (1/4
// for the logistic loss, 1/2 for softmax) times the largest eigenvalue
// of [X 1]^T [X 1], by power iteration from a seeded start. The solver's
// backtracking raises it when it is too low.
func (p *l1LogReg) lipschitz() float64 {
	n, d := p.n, p.d
	v := make([]float64, d+1)
	rng := rand.New(rand.NewPCG(1, 2))
	for j := range v {
		v[j] = rng.NormFloat64()
	}
	u, w := make([]float64, n), make([]float64, d+1)
	var ev float64
	for it := 0; it < 50; it++ {
		nv := math.Sqrt(dot(v, v))
		if nv == 0 {
			break
		}
		for j := range v {
			v[j] /= nv
		}
		for i := range n { // u = [X 1] v
			u[i] = dot(p.X[i*d:i*d+d], v[:d]) + v[d]
		}
		clear(w) // w = [X 1]^T u
		for i := range n {
			axpy(u[i], p.X[i*d:i*d+d], w[:d])
			w[d] += u[i]
		}
		next := dot(v, w)
		v, w = w, v
		if it > 0 && math.Abs(next-ev) <= 1e-6*next {
			ev = next
			break
		}
		ev = next
	}
	c := 0.25
	if p.k > 1 {
		c = 0.5
	}
	return math.Max(c*ev, 1e-12)
}

func dot(a, b []float64) float64 {
	var s float64
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

func axpy(a float64, x, y []float64) {
	for i, v := range x {
		y[i] += a * v
	}
}

// l1Fit is the outcome of a fit: the parameters, the iterations taken
// and whether the stopping rule was met before maxIter.
type l1Fit struct {
	Theta     []float64
	Iters     int
	Converged bool
}

// fit minimises F by FISTA (Beck and Teboulle 2009) with backtracking
// on the step and adaptive restart (O'Donoghue and Candès 2015), from
// theta0 (nil: zero). It stops when the gradient mapping's largest entry
// (which is zero exactly at a minimiser) is at most tol times that at
// zero (or tol, when that is below 1), or after maxIter iterations; it
// is deterministic. With softmax, whose intercepts may all move by one
// constant, the intercepts returned sum to zero. ctx ends it
// early with ctx's error.
func (p *l1LogReg) fit(ctx context.Context, theta0 []float64, tol float64, maxIter int) (l1Fit, error) {
	m := p.params()
	x := make([]float64, m)
	if theta0 != nil {
		copy(x, theta0)
	}
	xPrev, y := make([]float64, m), make([]float64, m)
	copy(xPrev, x)
	copy(y, x)
	g, z, next := make([]float64, m), make([]float64, m), make([]float64, m)
	L := p.lipschitz()
	// The scale of the stopping rule: the gradient mapping at zero.
	zero := make([]float64, m)
	p.smooth(zero, g)
	p.prox(scaleAdd(zero, -1/L, g, z), 1/L, next)
	scale := 1.0 // at least 1: at zero the mapping may vanish, a minimiser
	for j := range next {
		scale = math.Max(scale, math.Abs(L*(zero[j]-next[j])))
	}
	t := 1.0
	for it := 1; it <= maxIter; it++ {
		if it%64 == 0 {
			if err := ctx.Err(); err != nil {
				return l1Fit{}, err
			}
		}
		fy := p.smooth(y, g)
		for {
			p.prox(scaleAdd(y, -1/L, g, z), 1/L, next)
			var lin, sq float64
			for j := range next {
				dj := next[j] - y[j]
				lin += g[j] * dj
				sq += dj * dj
			}
			if p.smooth(next, nil) <= fy+lin+L/2*sq+1e-12*math.Abs(fy) {
				break
			}
			L *= 2
		}
		var gm float64
		for j := range next {
			gm = math.Max(gm, math.Abs(L*(y[j]-next[j])))
		}
		// Restart the momentum when it points uphill.
		var up float64
		for j := range next {
			up += (y[j] - next[j]) * (next[j] - x[j])
		}
		copy(xPrev, x)
		copy(x, next)
		if gm <= tol*scale {
			return l1Fit{Theta: p.centred(x), Iters: it, Converged: true}, nil
		}
		tNext := (1 + math.Sqrt(1+4*t*t)) / 2
		beta := (t - 1) / tNext
		if up > 0 {
			tNext, beta = 1, 0
		}
		for j := range y {
			y[j] = x[j] + beta*(x[j]-xPrev[j])
		}
		t = tNext
	}
	return l1Fit{Theta: p.centred(x), Iters: maxIter}, nil
}

// centred returns theta with its softmax intercepts moved to sum to
// zero (the loss is the same); a binary model's as it is.
func (p *l1LogReg) centred(theta []float64) []float64 {
	if p.k == 1 {
		return theta
	}
	b := theta[p.d*p.k:]
	var m float64
	for _, v := range b {
		m += v
	}
	m /= float64(len(b))
	for j := range b {
		b[j] -= m
	}
	return theta
}

// scaleAdd sets out to a + s*b and returns it.
func scaleAdd(a []float64, s float64, b, out []float64) []float64 {
	for j := range out {
		out[j] = a[j] + s*b[j]
	}
	return out
}
