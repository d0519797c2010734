package nets

import (
	"fmt"
	"math"
)

// Loss selects a per-sample classification loss on logits.
type Loss int

const (
	// BCE is binary cross-entropy with logits (K = 1, labels 0 or 1).
	BCE Loss = iota
	// SoftmaxCE is softmax cross-entropy (K >= 2, labels 0..K-1).
	SoftmaxCE
)

// LossFor returns the loss for K outputs: BCE for K = 1, else SoftmaxCE.
func LossFor(k int) Loss {
	if k == 1 {
		return BCE
	}
	return SoftmaxCE
}

func (l Loss) String() string {
	if l == BCE {
		return "bce"
	}
	return "softmax-ce"
}

func sigmoid(f float64) float64 {
	if f >= 0 {
		return 1 / (1 + math.Exp(-f))
	}
	e := math.Exp(f)
	return e / (1 + e)
}

// Sigmoid is the logistic function, computed stably.
func Sigmoid(f float64) float64 { return sigmoid(f) }

func checkLabels(loss Loss, y []int32, k int) {
	hi := int32(k)
	if loss == BCE {
		if k != 1 {
			panic(fmt.Sprintf("BCE needs K = 1, got %d", k))
		}
		hi = 2
	}
	for i, v := range y {
		if v < 0 || v >= hi {
			panic(fmt.Sprintf("label %d of sample %d out of range [0,%d)", v, i, hi))
		}
	}
}

// logSumExp returns log sum_j exp(f_j), computed stably.
func logSumExp[T Float](f []T) float64 {
	m := math.Inf(-1)
	for _, v := range f {
		m = max(m, float64(v))
	}
	var s float64
	for _, v := range f {
		s += math.Exp(float64(v) - m)
	}
	return m + math.Log(s)
}

// Losses writes the per-sample losses l (length n) and their derivatives
// with respect to the logits d (n x K) for n = len(y) samples. Either
// output may be nil.
func Losses[T Float](loss Loss, logits []T, y []int32, k int, l, d []T) {
	checkLabels(loss, y, k)
	n := len(y)
	parallelFor(n, 8*n*k, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			f := logits[i*k : i*k+k]
			if loss == BCE {
				x, t := float64(f[0]), float64(y[i])
				if l != nil {
					l[i] = T(max(x, 0) - x*t + math.Log1p(math.Exp(-math.Abs(x))))
				}
				if d != nil {
					d[i] = T(sigmoid(x) - t)
				}
				continue
			}
			lse := logSumExp(f)
			if l != nil {
				l[i] = T(lse - float64(f[y[i]]))
			}
			if d != nil {
				di := d[i*k : i*k+k]
				for j, v := range f {
					di[j] = T(math.Exp(float64(v) - lse))
				}
				di[y[i]] -= 1
			}
		}
	})
}

// ScaleGrads writes, per sample, the derivative of the loss with respect to
// a scalar multiplier s of the logits at s = 1 (IRMv1's dummy classifier):
// gs_i = d/ds l(s f_i, y_i) at s = 1 = l'(f_i) . f_i, and its gradient with
// respect to the logits dgs_i = l'(f_i) + H_i f_i (n x K), H_i the Hessian
// of the loss in the logits. dgs may be nil.
func ScaleGrads[T Float](loss Loss, logits []T, y []int32, k int, gs, dgs []T) {
	checkLabels(loss, y, k)
	p := make([]float64, k)
	for i := range y {
		f := logits[i*k : i*k+k]
		if loss == BCE {
			x, t := float64(f[0]), float64(y[i])
			s := sigmoid(x)
			gs[i] = T((s - t) * x)
			if dgs != nil {
				dgs[i] = T(s - t + s*(1-s)*x)
			}
			continue
		}
		lse := logSumExp(f)
		var pf float64 // p . f
		for j, v := range f {
			p[j] = math.Exp(float64(v) - lse)
			pf += p[j] * float64(v)
		}
		// l' = p - e_y; l' . f = p.f - f_y; H f = p * (f - p.f).
		gs[i] = T(pf - float64(f[y[i]]))
		if dgs != nil {
			for j := range p {
				v := p[j] + p[j]*(float64(f[j])-pf)
				if int32(j) == y[i] {
					v--
				}
				dgs[i*k+j] = T(v)
			}
		}
	}
}

// Predict returns the predicted class of sample i from its logits.
func Predict[T Float](logits []T, k, i int) int32 {
	f := logits[i*k : i*k+k]
	if k == 1 {
		if f[0] > 0 {
			return 1
		}
		return 0
	}
	best := 0
	for j, v := range f {
		if v > f[best] {
			best = j
		}
	}
	return int32(best)
}
