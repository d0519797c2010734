package nets

import "math"

// SGD is stochastic gradient descent with momentum and weight decay exactly
// as torch.optim.SGD defines it (no dampening, no Nesterov):
//
//	d   = grad + WeightDecay * theta
//	buf = Momentum * buf + d        (buf = d at the first step)
//	theta -= LR * buf
//
// Buf is exposed so that a caller can replay or differentiate the last step.
type SGD[T Float] struct {
	LR          float64 // learning rate; no default, must be set
	Momentum    float64 // momentum mu; default 0
	WeightDecay float64 // L2 weight decay lambda; default 0
	Buf         []T     // momentum buffer; nil before the first step
}

// Step applies one update to theta given grad.
func (o *SGD[T]) Step(theta, grad []T) {
	if len(theta) != len(grad) {
		panic("SGD.Step: theta and grad lengths differ")
	}
	lr, mu, wd := T(o.LR), T(o.Momentum), T(o.WeightDecay)
	first := o.Buf == nil
	if first {
		o.Buf = make([]T, len(theta))
	}
	for i, g := range grad {
		d := g
		if wd != 0 {
			d += wd * theta[i]
		}
		b := d
		if !first && mu != 0 {
			b = mu*o.Buf[i] + d
		}
		o.Buf[i] = b
		theta[i] -= lr * b
	}
}

// Reset forgets the momentum buffer.
func (o *SGD[T]) Reset() { o.Buf = nil }

// Adam is the Adam optimizer exactly as torch.optim.Adam defines it
// (L2 not included: add it to the gradient):
//
//	m = Beta1*m + (1-Beta1)*grad;  v = Beta2*v + (1-Beta2)*grad²
//	theta -= LR * (m / (1-Beta1^t)) / (sqrt(v / (1-Beta2^t)) + Eps)
type Adam[T Float] struct {
	LR    float64 // learning rate; no default, must be set
	Beta1 float64 // default 0.9 when 0
	Beta2 float64 // default 0.999 when 0
	Eps   float64 // default 1e-8 when 0
	M, V  []T     // moments; nil before the first step
	T     int     // steps taken
}

// Step applies one update to theta given grad.
func (o *Adam[T]) Step(theta, grad []T) {
	if len(theta) != len(grad) {
		panic("Adam.Step: theta and grad lengths differ")
	}
	b1, b2, eps := o.Beta1, o.Beta2, o.Eps
	if b1 == 0 {
		b1 = 0.9
	}
	if b2 == 0 {
		b2 = 0.999
	}
	if eps == 0 {
		eps = 1e-8
	}
	if o.M == nil {
		o.M, o.V = make([]T, len(theta)), make([]T, len(theta))
	}
	o.T++
	c1, c2 := 1-math.Pow(b1, float64(o.T)), 1-math.Pow(b2, float64(o.T))
	for i, g := range grad {
		m := T(b1)*o.M[i] + T(1-b1)*g
		v := T(b2)*o.V[i] + T(1-b2)*g*g
		o.M[i], o.V[i] = m, v
		theta[i] -= T(o.LR) * (m / T(c1)) / (T(math.Sqrt(float64(v)/c2)) + T(eps))
	}
}
