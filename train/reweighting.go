package train

import (
	"math"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/record"
)

// MinMoved is the share of the training weight a reweighting has to move
// off uniform to count (record.MinMoved).
const MinMoved = record.MinMoved

// Why a reweighting changed nothing, or nothing that matters
// (record.Degeneracy).
const (
	DegenerateEmptySet = record.DegenerateEmptySet
	DegenerateEqual    = record.DegenerateEqual
	DegenerateSmall    = record.DegenerateSmall
)

// What a reweighting method did to the training samples' weights, kept
// in package record (record.Reweighting).
type (
	Reweighting = record.Reweighting
	Degeneracy  = record.Degeneracy
	SampleSet   = record.SampleSet
	GroupWeight = record.GroupWeight
	Change      = record.Change
)

// NewReweighting describes the per-sample weights u (non-negative, any
// scale) on the training split d; set, unless nil, marks the samples
// the method singled out (named setName). It judges whether the weights
// changed nothing (Degenerate); the method adds what to change.
func NewReweighting(weights string, d *dataset.Dataset, u []float64, set []bool, setName string) *Reweighting {
	r := &Reweighting{Weights: weights, Samples: d.N}
	var total float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, w := range u {
		total += w
		lo, hi = math.Min(lo, w), math.Max(hi, w)
	}
	if lo > 0 {
		r.MaxOverMin = hi / lo
	}
	if total > 0 {
		for _, w := range u {
			r.Moved += math.Abs(w/total - 1/float64(d.N))
		}
		r.Moved /= 2
	}
	if set != nil {
		r.Set = &SampleSet{Name: setName}
		for _, in := range set {
			if in {
				r.Set.Size++
			}
		}
	}
	if len(d.GroupNames) > 0 && len(d.Group) == d.N {
		r.Groups = make([]GroupWeight, len(d.GroupNames))
		for g, name := range d.GroupNames {
			r.Groups[g].Name = name
		}
		for i, g := range d.Group {
			r.Groups[g].Size++
			if total > 0 {
				r.Groups[g].Weight += u[i] / total
			}
			if set != nil && set[i] {
				r.Groups[g].InSet++
			}
		}
	}
	switch {
	case r.Set != nil && r.Set.Size == 0 && r.Moved < 1e-9:
		r.Degenerate = DegenerateEmptySet
	case r.Moved < 1e-9:
		r.Degenerate = DegenerateEqual
	case r.Moved < MinMoved:
		r.Degenerate = DegenerateSmall
	}
	return r
}
