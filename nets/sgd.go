package nets

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
