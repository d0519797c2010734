package core

import "math"

// KeepSize is K_t, the keep budget at outer iteration t of T for n
// samples: K0 until ts*T, then the cubic annealing
// K + (K0-K)(1-(t-ts*T)/((te-ts)T))^3 until te*T, then K.
func KeepSize(t, T int, k0, k, ts, te float64) float64 {
	start, end := ts*float64(T), te*float64(T)
	switch ft := float64(t); {
	case ft <= start:
		return k0
	case ft >= end:
		return k
	default:
		r := 1 - (ft-start)/(end-start)
		return k + (k0-k)*r*r*r
	}
}

// Temperature is tau_t = 1/((1-0.03)(1-t/T)+0.03).
func Temperature(t, T int) float64 {
	return 1 / ((1-0.03)*(1-float64(t)/float64(T)) + 0.03)
}

// sEps keeps the logit of a keep probability finite.
const sEps = 1e-6

// Mask draws m = 1[sigmoid((log s - log(1-s) + G1 - G0) tau) >= 0.5] with
// G0, G1 the given Gumbel(0,1) draws and returns m and the straight-through
// derivative dm/ds, the derivative of the sigmoid expression.
func Mask(s, g0, g1, tau float64) (m, dmds float64) {
	sc := min(max(s, sEps), 1-sEps)
	z := (math.Log(sc) - math.Log(1-sc) + g1 - g0) * tau
	sig := 1 / (1 + math.Exp(-z))
	if sig >= 0.5 {
		m = 1
	}
	return m, sig * (1 - sig) * tau / (sc * (1 - sc))
}

// MaskEps is Mask as the MAPLE code writes it (x-zho14/MAPLE,
// obtain_mask): eps added inside the logarithms, log(s+eps) -
// log(1-s+eps), instead of s clamped to [1e-6, 1-1e-6]. The two agree
// for s away from 0 and 1. At s = 0 the straight-through derivative is
// about e^{-(tau-1) log(1e-6/eps)} times Mask's: with eps = 1e-20, 0.34
// at tau 1.03, 0.11 at 1.07, 1e-9 at 1.63, so a sample pushed to 0 stops
// moving as tau grows. At s = 1 it is exactly 0 in float64 at every tau
// (the sigmoid rounds to 1 unless G1 - G0 < -9 or so), where Mask's is
// about tau e^{-(tau-1) log 1e6 - (G1-G0) tau}, of the order of 1 for tau
// near 1: a sample pushed to 1 gets no gradient of its own. eps 0 is
// Mask.
func MaskEps(s, g0, g1, tau, eps float64) (m, dmds float64) {
	if eps == 0 {
		return Mask(s, g0, g1, tau)
	}
	z := (math.Log(s+eps) - math.Log(1-s+eps) + g1 - g0) * tau
	sig := 1 / (1 + math.Exp(-z))
	if sig >= 0.5 {
		m = 1
	}
	return m, sig * (1 - sig) * tau * (1/(s+eps) + 1/(1-s+eps))
}

// gumbel draws a standard Gumbel variate from u in (0, 1).
func gumbel(u float64) float64 { return -math.Log(-math.Log(u)) }
