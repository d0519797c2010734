package core

import (
	"math"
	"slices"
)

// cvar is CVaR at level alpha: the mean loss of the worst ceil(alpha n)
// samples.
type cvar struct{}

func (cvar) Name() string { return "cvar" }

func (cvar) Risk(b *RiskBatch) (float64, error) {
	n, l := b.N, b.L
	m := int(math.Ceil(b.Alpha * float64(n)))
	order := Worst(l[:n], m)
	var r float64
	for _, i := range order {
		r += l[i]
		b.Add(i, 1/float64(m), b.D)
	}
	return r / float64(m), nil
}

// Worst returns the indices of the m highest losses in l, highest first,
// ties broken by index: the samples the cvar objective averages over.
func Worst(l []float64, m int) []int {
	order := make([]int, len(l))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case l[a] > l[b]:
			return -1
		case l[a] < l[b]:
			return 1
		}
		return 0
	})
	return order[:m]
}
