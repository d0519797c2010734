package core

import (
	"fmt"

	"github.com/maple-ood/maple/internal/registry"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/record"
)

// Objective is an outer risk R on the per-sample logits of a labelled set.
type Objective struct {
	Name  string    // irmv1, irmv1b, rex, cvar, worst-group or erm
	Beta  float64   // weight of the mean loss added to R
	Alpha float64   // cvar tail fraction
	Loss  nets.Loss // per-sample loss
	K     int       // logits per sample
}

// Labels are the per-sample annotations an objective may need.
type Labels struct {
	Y, Env, Group []int32
	// Half, for irmv1b, assigns each sample to half 0 or 1 of its
	// environment.
	Half []bool
}

// An OuterRisk is one outer objective R on the per-sample logits of a
// labelled set. A new objective is a type in a file of its own and one
// line in objectives; --objective, its help, completion and the
// browser's form list the registry.
type OuterRisk interface {
	// Name is the objective's name for --objective and in run.json.
	Name() string
	// Risk returns R on b and adds dR/df_i to b's cotangents (b.Add).
	Risk(b *RiskBatch) (float64, error)
}

// Optional parts of an OuterRisk, which an objective from outside
// maple's packages may implement too.
type (
	// HalfSplitter is an OuterRisk that needs Labels.Half: each outer
	// sample assigned to a random half of its environment at every
	// iteration.
	HalfSplitter interface{ NeedsHalves() bool }
	// MeanWeighter is an OuterRisk whose mean-loss term is weighted
	// otherwise than by Objective.Beta (erm: the risk is the mean loss
	// itself).
	MeanWeighter interface{ MeanWeight(beta float64) float64 }
	// Scaler is an OuterRisk with a default OuterScale other than 1
	// (ObjectiveScale).
	Scaler interface{ DefaultScale() float64 }
	// Supervised is an OuterRisk that reads more than y
	// (ObjectiveSupervision); the others read y alone.
	Supervised interface{ Supervision() Supervision }
)

// ObjectiveScale is the objective's scale of the outer risk: 0.5 for
// irmv1 (the MAPLE code's mean over its two environments, where maple
// sums them), 1 for the others and for a name not registered.
func ObjectiveScale(name string) float64 {
	o, _ := lookupObjective(name)
	return scaleOf(o)
}

// scaleOf is o's scale of the outer risk: its DefaultScale, else 1.
func scaleOf(o OuterRisk) float64 {
	if sc, ok := o.(Scaler); ok {
		return sc.DefaultScale()
	}
	return 1
}

// ObjectiveDefaults returns s with the settings that follow its objective
// (OuterScale: ObjectiveScale, 0 for a scale of 1) set to the objective's
// own, except those among keep (the fields the person set,
// "Settings.OuterScale").
func ObjectiveDefaults(s Settings, keep map[string]bool) Settings {
	if !keep["Settings.OuterScale"] {
		s.OuterScale = Settings{OuterScale: ObjectiveScale(s.Objective)}.Canonical().OuterScale // 1 as runs recorded it before this default
	}
	return s
}

// objectives holds the outer objectives, in the order --help and
// completion show them.
var objectives = func() *registry.Registry[OuterRisk] {
	r := registry.New[OuterRisk]("objective")
	for _, o := range []OuterRisk{irmv1{}, irmv1{halves: true}, rex{}, cvar{}, worstGroup{}, erm{}} {
		register(r, o)
	}
	return r
}()

// register adds o to r, and its name and scale to the records'
// (record.RegisterObjective: what a run's settings are checked against).
func register(r *registry.Registry[OuterRisk], o OuterRisk) {
	r.Register(o.Name(), o)
	record.RegisterObjective(o.Name(), scaleOf(o))
}

// Objectives lists the outer objectives' names, in the order registered.
func Objectives() []string { return objectives.Names() }

// RegisterObjective adds an outer objective from a package of its own
// (from its init: --objective, its help, completion and sweeps' maple:NAME
// follow); it panics when the name is taken (a programming error).
func RegisterObjective(o OuterRisk) { register(objectives, o) }

// lookupObjective returns the registered objective called name.
func lookupObjective(name string) (OuterRisk, bool) { return objectives.Lookup(name) }

// needsHalves tells whether the objective called name needs Labels.Half.
func needsHalves(name string) bool {
	o, _ := lookupObjective(name)
	h, ok := o.(HalfSplitter)
	return ok && h.NeedsHalves()
}

// RiskBatch is what an OuterRisk sees: the logits, labels and per-sample
// losses of one labelled set, and the cotangents it adds to.
type RiskBatch struct {
	N, K  int       // samples, logits per sample
	F     []float64 // logits, N x K
	Lab   Labels
	Loss  nets.Loss
	Alpha float64   // the cvar tail fraction (Objective.Alpha)
	L     []float64 // per-sample losses
	D     []float64 // their logit gradients, N x K
	cot   []float64 // dR/df, nil when not wanted
}

// Add adds scale * v_i (v is N x K) to sample i's cotangent.
func (b *RiskBatch) Add(i int, scale float64, v []float64) {
	if b.cot != nil {
		for j := 0; j < b.K; j++ {
			b.cot[i*b.K+j] += scale * v[i*b.K+j]
		}
	}
}

// Eval returns R for logits f (n x K) and writes its logit cotangents
// dR/df into cot unless cot is nil. Environments or groups that have no
// sample are ignored; an objective that needs environments (irmv1,
// irmv1b, rex) or groups (worst-group) and finds none is an error.
func (o Objective) Eval(f []float64, lab Labels, cot []float64) (float64, error) {
	n, k := len(lab.Y), o.K
	if n == 0 {
		return 0, fmt.Errorf("objective %s on an empty set", o.Name)
	}
	risk, ok := lookupObjective(o.Name)
	if !ok {
		return 0, fmt.Errorf("unknown objective %q", o.Name)
	}
	b := &RiskBatch{N: n, K: k, F: f, Lab: lab, Loss: o.Loss, Alpha: o.Alpha, L: make([]float64, n), D: make([]float64, n*k), cot: cot}
	nets.Losses(o.Loss, f, lab.Y, k, b.L, b.D)
	if cot != nil {
		clear(cot[:n*k])
	}
	r, err := risk.Risk(b)
	if err != nil {
		return 0, err
	}
	w := o.Beta
	if mw, ok := risk.(MeanWeighter); ok {
		w = mw.MeanWeight(o.Beta)
	}
	if w != 0 {
		var mean float64
		for i := 0; i < n; i++ {
			mean += b.L[i]
			b.Add(i, w/float64(n), b.D)
		}
		r += w * mean / float64(n)
	}
	return r, nil
}

// groupSums adds v over the parts of a labelling (parts per label value).
func groupSums(n int, label []int32, parts int, part func(int) int, v []float64) (sum []float64, cnt []int, err error) {
	if len(label) != n {
		return nil, nil, fmt.Errorf("the objective needs environment or group labels, and this split has none")
	}
	hi := int32(-1)
	for _, e := range label {
		hi = max(hi, e)
	}
	sum, cnt = make([]float64, int(hi+1)*parts), make([]int, int(hi+1)*parts)
	for i := 0; i < n; i++ {
		p := part(i)
		sum[p] += v[i]
		cnt[p]++
	}
	return sum, cnt, nil
}
