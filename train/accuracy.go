package train

import (
	"math"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
)

// Accuracy is the accuracy of predictions on a split, overall and per group.
type Accuracy struct {
	Avg      float64   `json:"acc"`
	Worst    float64   `json:"worst_group_acc"` // over groups with samples
	PerGroup []float64 `json:"per_group_acc"`   // NaN-free: -1 for an empty group
}

// AccuracyOf measures the n x k logits against ds's labels, overall
// and per group.
func AccuracyOf[T nets.Float](logits []T, k int, ds *dataset.Dataset) Accuracy {
	ng := len(ds.GroupNames)
	right, cnt := make([]int, ng), make([]int, ng)
	total := 0
	for i := 0; i < ds.N; i++ {
		ok := nets.Predict(logits, k, i) == ds.Y[i]
		if ok {
			total++
		}
		if ng > 0 {
			g := ds.Group[i]
			cnt[g]++
			if ok {
				right[g]++
			}
		}
	}
	a := Accuracy{Avg: float64(total) / float64(ds.N), Worst: math.Inf(1), PerGroup: make([]float64, ng)}
	for g := range cnt {
		a.PerGroup[g] = -1
		if cnt[g] > 0 {
			a.PerGroup[g] = float64(right[g]) / float64(cnt[g])
			a.Worst = math.Min(a.Worst, a.PerGroup[g])
		}
	}
	if math.IsInf(a.Worst, 1) {
		a.Worst = a.Avg
	}
	return a
}

func to64[T nets.Float](v []T) []float64 {
	if f, ok := any(v).([]float64); ok {
		return f
	}
	o := make([]float64, len(v))
	for i, x := range v {
		o[i] = float64(x)
	}
	return o
}
