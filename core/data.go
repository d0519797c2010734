package core

import (
	"math"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
)

// data is a split with its features in the engine's float type.
type data[T nets.Float] struct {
	ds *dataset.Dataset
	x  []T
	n  int
}

func newData[T nets.Float](ds *dataset.Dataset) data[T] {
	if x, ok := any(ds.X).([]T); ok {
		return data[T]{ds: ds, x: x, n: ds.N}
	}
	x := make([]T, len(ds.X))
	for i, v := range ds.X {
		x[i] = T(v)
	}
	return data[T]{ds: ds, x: x, n: ds.N}
}

func (d data[T]) labels() Labels { return Labels{Y: d.ds.Y, Env: d.ds.Env, Group: d.ds.Group} }

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

func finite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
