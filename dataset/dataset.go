package dataset

import (
	"fmt"
	"math"
)

// Shape is the per-sample image shape C x H x W (H = W = 1 for flat
// features, where C = D).
type Shape struct{ C, H, W int }

// Size is the number of values per sample.
func (s Shape) Size() int { return s.C * s.H * s.W }

// Dataset is one split of a dataset. Row i of X (D values) is sample i.
type Dataset struct {
	Name  string
	N, D  int
	Shape Shape
	X     []float32 // N x D, row-major
	Y     []int32   // label in [0, Classes)
	Env   []int32   // environment index (global across splits)
	Group []int32   // group index in [0, len(GroupNames)), e.g. (label, attribute)
	Attr  []int32   // spurious attribute
	ID    []int64   // stable sample id for joining exported weights back
	// CleanY is the label before the construction's label noise, where
	// the dataset adds some; else nil.
	CleanY []int32

	Classes    int      // number of classes; 2 for binary
	LabelNames []string // names of the classes when the data named them (label i is LabelNames[i]); nil otherwise
	EnvNames   []string // names of all environments, indexed by Env
	GroupNames []string // names of all groups, indexed by Group
}

// Row returns the features of sample i.
func (d *Dataset) Row(i int) []float32 { return d.X[i*d.D : (i+1)*d.D] }

// Subset returns a new Dataset holding the samples idx, in that order.
func (d *Dataset) Subset(name string, idx []int) *Dataset {
	s := &Dataset{Name: name, N: len(idx), D: d.D, Shape: d.Shape, Classes: d.Classes,
		EnvNames: d.EnvNames, GroupNames: d.GroupNames, LabelNames: d.LabelNames,
		X: make([]float32, len(idx)*d.D), Y: make([]int32, len(idx)), Env: make([]int32, len(idx)),
		Group: make([]int32, len(idx)), Attr: make([]int32, len(idx)), ID: make([]int64, len(idx))}
	for j, i := range idx {
		copy(s.X[j*d.D:(j+1)*d.D], d.Row(i))
		s.Y[j], s.Env[j], s.Group[j], s.Attr[j], s.ID[j] = d.Y[i], d.Env[i], d.Group[i], d.Attr[i], d.ID[i]
	}
	if d.CleanY != nil {
		s.CleanY = make([]int32, len(idx))
		for j, i := range idx {
			s.CleanY[j] = d.CleanY[i]
		}
	}
	return s
}

// Validate checks sizes, label, env and group ranges and that every
// feature is finite. It names the dataset and the first bad sample.
func (d *Dataset) Validate() error {
	if d.N <= 0 || d.D <= 0 || len(d.X) != d.N*d.D {
		return fmt.Errorf("dataset %s: %d features for %d samples of dimension %d", d.Name, len(d.X), d.N, d.D)
	}
	if d.Shape.Size() != d.D {
		return fmt.Errorf("dataset %s: shape %dx%dx%d does not match dimension %d", d.Name, d.Shape.C, d.Shape.H, d.Shape.W, d.D)
	}
	for _, c := range []struct {
		name string
		v    []int32
		hi   int
	}{{"label", d.Y, d.Classes}, {"env", d.Env, len(d.EnvNames)}, {"group", d.Group, len(d.GroupNames)}, {"attribute", d.Attr, math.MaxInt32}} {
		if len(c.v) != d.N {
			return fmt.Errorf("dataset %s: %d %s values for %d samples", d.Name, len(c.v), c.name, d.N)
		}
		for i, v := range c.v {
			if v < 0 || int(v) >= c.hi {
				return fmt.Errorf("dataset %s: sample %d (id %d): %s %d out of range [0,%d)", d.Name, i, d.ID[i], c.name, v, c.hi)
			}
		}
	}
	if len(d.ID) != d.N {
		return fmt.Errorf("dataset %s: %d ids for %d samples", d.Name, len(d.ID), d.N)
	}
	for i, v := range d.X {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("dataset %s: sample %d (id %d) feature %d is %v; clean the features or drop the sample", d.Name, i/d.D, d.ID[i/d.D], i%d.D, v)
		}
	}
	return nil
}

// Splits is a dataset ready for MAPLE: training, validation and test sets
// over the same feature space, groups and environments.
type Splits struct {
	Name             string
	Train, Val, Test *Dataset
	Source           string  // where the data came from (a directory, or "generated")
	LabelNoise       float64 // the construction's label-flip probability, 0 if none

	// Oracle is the variant without the spurious signal, with its own
	// training and validation sets and the same test set, when the
	// dataset provides one; else nil.
	Oracle *Splits

	// Basis, for the synthetic dataset, is the D x D row-major orthogonal
	// matrix S with x = S [z_c; z_s], and CoreDims the length of z_c.
	Basis    []float64
	CoreDims int

	// About says what a generated dataset's construction is, a line a
	// sentence, for maple data; nil for data read from files.
	About []string

	// Warnings are what a person should know about the data before
	// training on it (features of a scale that makes training diverge or
	// saturate, ...); the caller shows them.
	Warnings []string
}

// Validate checks every split.
func (s *Splits) Validate() error {
	for _, d := range []*Dataset{s.Train, s.Val, s.Test} {
		if d == nil {
			return fmt.Errorf("dataset %s: a split is missing", s.Name)
		}
		if err := d.Validate(); err != nil {
			return err
		}
		if d.D != s.Train.D || d.Classes != s.Train.Classes {
			return fmt.Errorf("dataset %s: split %s has dimension %d and %d classes, training has %d and %d", s.Name, d.Name, d.D, d.Classes, s.Train.D, s.Train.Classes)
		}
	}
	return nil
}
