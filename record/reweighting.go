package record

import (
	"fmt"
	"strings"
)

// MinMoved is the share of the training weight a reweighting has to move
// off uniform (the total variation distance between its normalised
// weights and 1/n each) to count: below it the training is nearly ERM's.
// At JTT's default upweight of 6, an error set of about 0.4% of the
// training samples moves 2%.
const MinMoved = 0.02

// Why a reweighting changed nothing, or nothing that matters.
type Degeneracy string

const (
	// DegenerateEmptySet: the set the method singled out is empty and
	// every sample weighs the same (JTT's first stage misclassified no
	// training sample; a search's mask dropped none, its weights equal).
	DegenerateEmptySet Degeneracy = "empty-set"
	// DegenerateEqual: every training sample weighs the same (upweighting
	// over groups of one size, or one group).
	DegenerateEqual Degeneracy = "equal-weights"
	// DegenerateSmall: the weights moved less than MinMoved of the
	// training weight off uniform.
	DegenerateSmall Degeneracy = "moved-little"
)

// Reweighting is what a reweighting method did to the training samples'
// weights: the set it singled out, if any, how far its weights are from
// ERM's, per group, and whether it changed nothing (with what to
// change). Methods that do not reweight have none.
type Reweighting struct {
	// Weights says which weights these are (JTT's, LfF's at the last
	// step, ...).
	Weights string `json:"weights"`
	Samples int    `json:"samples"` // training samples
	// Set is the samples the method singled out (JTT's error set, CVaR's
	// worst-alpha set at the last step); nil for a method without one.
	Set *SampleSet `json:"set,omitempty"`
	// Moved is the share of the training weight moved off uniform: the
	// total variation distance between the normalised weights and 1/n
	// each. 0: ERM's weights.
	Moved float64 `json:"moved_weight"`
	// MaxOverMin is the largest weight over the smallest (0 when the
	// smallest is 0: a sample left out).
	MaxOverMin float64       `json:"max_over_min"`
	Groups     []GroupWeight `json:"groups,omitempty"`
	// Degenerate, when set, says why the reweighting changed nothing (or
	// too little to matter: MinMoved); Change says what to try.
	Degenerate Degeneracy `json:"degenerate,omitempty"`
	Change     []Change   `json:"change,omitempty"`
}

// SampleSet is the samples a method singled out.
type SampleSet struct {
	Name string `json:"name"` // what the set is, e.g. "error set"
	Size int    `json:"size"`
}

// GroupWeight is one training group under a reweighting.
type GroupWeight struct {
	Name   string  `json:"name"`
	Size   int     `json:"size"`         // its training samples
	InSet  int     `json:"in_set"`       // of them in the set (Reweighting.Set; 0 without one)
	Weight float64 `json:"weight_share"` // its share of the training weight
}

// Change is a setting to change to make a degenerate reweighting act.
type Change struct {
	Field string  `json:"field"` // the field path (EvalSettings.JTTSteps)
	Lower bool    `json:"lower"` // lower it (else raise it)
	Now   float64 `json:"now"`   // its value in the run
	Why   string  `json:"why,omitempty"`
}

// Lines describes r for a person, one line each: the set and the weight
// moved, each group, and when it changed nothing, why and what to try.
// flag names a field as the person sets it (--jtt-steps).
func (r *Reweighting) Lines(flag func(field string) string) []string {
	head := "reweighting: " + r.Weights
	if s := r.Set; s != nil {
		head += fmt.Sprintf("; %s %d of %d training samples (%.1f%%)", s.Name, s.Size, r.Samples, pct(s.Size, r.Samples))
	}
	head += fmt.Sprintf("; %.1f%% of the training weight moved off uniform", 100*r.Moved)
	out := []string{head}
	for _, g := range r.Groups {
		l := fmt.Sprintf("  train %-18s %d samples", g.Name, g.Size)
		if r.Set != nil {
			l += fmt.Sprintf(", %d in the %s", g.InSet, r.Set.Name)
		}
		out = append(out, l+fmt.Sprintf(", %.1f%% of the weight (%.1f%% of the samples)", 100*g.Weight, pct(g.Size, r.Samples)))
	}
	if r.Degenerate == "" {
		return out
	}
	var why string
	switch r.Degenerate {
	case DegenerateEmptySet:
		why = fmt.Sprintf("the %s is empty, so every sample weighed the same: the training was ERM's", r.Set.Name)
	case DegenerateEqual:
		why = "every training sample weighed the same: the training was ERM's"
	case DegenerateSmall:
		why = fmt.Sprintf("it moved %.1f%% of the training weight off uniform, under the %.0f%% taken to matter: the training was nearly ERM's", 100*r.Moved, 100*MinMoved)
	default:
		why = string(r.Degenerate)
	}
	line := "changed nothing: " + why
	if r.Degenerate == DegenerateSmall {
		line = "changed too little to matter: " + why
	}
	for i, c := range r.Change {
		way := "above"
		if c.Lower {
			way = "below"
		}
		sep := "; try "
		if i > 0 {
			sep = ", or "
		}
		line += fmt.Sprintf("%s%s %s %g", sep, flag(c.Field), way, c.Now)
		if c.Why != "" {
			line += " (" + c.Why + ")"
		}
	}
	return append(out, line)
}

// String is r's lines with each field named by its path.
func (r *Reweighting) String() string {
	return strings.Join(r.Lines(func(f string) string { return f }), "\n")
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}
