package core

import "math"

// ProjectWeights sets w <- max(w, 0).
func ProjectWeights(w []float64) {
	for i, v := range w {
		if !(v > 0) {
			w[i] = 0
		}
	}
}

// ProjectKeep sets s <- clamp(s - v, 0, 1) with v >= 0 the smallest shift
// (found by bisection) for which sum s <= k. It returns v.
func ProjectKeep(s []float64, k float64) float64 {
	sum := func(v float64) float64 {
		var t float64
		for _, x := range s {
			t += min(max(x-v, 0), 1)
		}
		return t
	}
	v := 0.0
	if sum(0) > k {
		lo, hi := 0.0, 0.0
		for _, x := range s {
			hi = math.Max(hi, x)
		}
		for it := 0; it < 100 && hi-lo > 1e-12*(1+hi); it++ {
			mid := (lo + hi) / 2
			if sum(mid) > k {
				lo = mid
			} else {
				hi = mid
			}
		}
		v = hi
	}
	for i, x := range s {
		s[i] = min(max(x-v, 0), 1)
	}
	return v
}

// Adam is Adam (beta1 0.9, beta2 0.999, eps 1e-8, bias-corrected) over a
// vector, with its gradient clipped to a maximum L2 norm first.
type Adam struct {
	M, V []float64
	T    int
}

// NewAdam returns Adam over a vector of n values.
func NewAdam(n int) Adam { return Adam{M: make([]float64, n), V: make([]float64, n)} }

// Step clips g in place to norm clip, then updates x. It returns the
// norm of g before clipping.
func (a *Adam) Step(x, g []float64, lr, clip float64) float64 {
	const b1, b2, eps = 0.9, 0.999, 1e-8
	var n2 float64
	for _, v := range g {
		n2 += v * v
	}
	norm := math.Sqrt(n2)
	if norm > clip {
		for i := range g {
			g[i] *= clip / norm
		}
	}
	a.T++
	c1 := 1 - math.Pow(b1, float64(a.T))
	c2 := 1 - math.Pow(b2, float64(a.T))
	for i, gi := range g {
		a.M[i] = b1*a.M[i] + (1-b1)*gi
		a.V[i] = b2*a.V[i] + (1-b2)*gi*gi
		x[i] -= lr * (a.M[i] / c1) / (math.Sqrt(a.V[i]/c2) + eps)
	}
	return norm
}
