package core

import (
	"fmt"

	"github.com/maple-ood/maple/nets"
)

// irmv1 is IRMv1 (Arjovsky et al. 2019): the sum over environments of the
// squared gradient of each one's mean loss with respect to a scale on the
// logits. With halves (irmv1b), the unbiased estimate: the product of the
// two halves' gradients of each environment.
type irmv1 struct{ halves bool }

func (o irmv1) Name() string {
	if o.halves {
		return "irmv1b"
	}
	return "irmv1"
}

func (o irmv1) NeedsHalves() bool { return o.halves }

// DefaultScale: the MAPLE code averages its two environments' penalties
// (irmv1b, which that code does not have, keeps maple's sum).
func (o irmv1) DefaultScale() float64 {
	if o.halves {
		return 1
	}
	return 0.5
}

func (o irmv1) Risk(b *RiskBatch) (float64, error) {
	n, lab := b.N, b.Lab
	gs, dgs := make([]float64, n), make([]float64, n*b.K)
	nets.ScaleGrads(b.Loss, b.F, lab.Y, b.K, gs, dgs)
	parts := 1
	if o.halves {
		if len(lab.Half) != n {
			return 0, fmt.Errorf("irmv1b needs a half assignment per sample")
		}
		parts = 2
	}
	part := func(i int) int {
		if parts == 2 && lab.Half[i] {
			return int(lab.Env[i])*2 + 1
		}
		return int(lab.Env[i]) * parts
	}
	sum, cnt, err := groupSums(n, lab.Env, parts, part, gs)
	if err != nil {
		return 0, err
	}
	mean := make([]float64, len(sum))
	for p := range sum {
		if cnt[p] > 0 {
			mean[p] = sum[p] / float64(cnt[p])
		}
	}
	var r float64
	for e := 0; e < len(sum)/parts; e++ {
		if parts == 1 {
			r += mean[e] * mean[e]
		} else {
			r += mean[2*e] * mean[2*e+1]
		}
	}
	for i := 0; i < n; i++ {
		p := part(i)
		other := mean[p] * 2 // d(m^2)/dm
		if parts == 2 {
			other = mean[p^1]
		}
		b.Add(i, other/float64(cnt[p]), dgs)
	}
	return r, nil
}
