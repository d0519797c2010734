package baselines

import (
	"math"

	"github.com/maple-ood/maple/nets"
)

func relErr(a, b, scale float64) float64 {
	return math.Abs(a-b) / (math.Max(math.Abs(a), math.Abs(b)) + scale)
}

func to64[T nets.Float](v []T) []float64 {
	o := make([]float64, len(v))
	for i, x := range v {
		o[i] = float64(x)
	}
	return o
}
