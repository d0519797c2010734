package core

import (
	"fmt"
	"math"
	"slices"

	"github.com/maple-ood/maple/nets"
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

// Eval returns R for logits f (n x K) and writes its logit cotangents
// dR/df into cot unless cot is nil. Environments or groups that have no
// sample are ignored; an objective that needs environments (irmv1,
// irmv1b, rex) or groups (worst-group) and finds none is an error.
func (o Objective) Eval(f []float64, lab Labels, cot []float64) (float64, error) {
	n, k := len(lab.Y), o.K
	if n == 0 {
		return 0, fmt.Errorf("objective %s on an empty set", o.Name)
	}
	l, d := make([]float64, n), make([]float64, n*k)
	nets.Losses(o.Loss, f, lab.Y, k, l, d)
	if cot != nil {
		clear(cot[:n*k])
	}
	// addCot adds scale * v_i to sample i's cotangent.
	addCot := func(i int, scale float64, v []float64) {
		if cot != nil {
			for j := 0; j < k; j++ {
				cot[i*k+j] += scale * v[i*k+j]
			}
		}
	}
	var r float64
	switch o.Name {
	case "erm":
	case "irmv1", "irmv1b":
		gs, dgs := make([]float64, n), make([]float64, n*k)
		nets.ScaleGrads(o.Loss, f, lab.Y, k, gs, dgs)
		parts := 1
		if o.Name == "irmv1b" {
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
			addCot(i, other/float64(cnt[p]), dgs)
		}
	case "rex":
		sum, cnt, err := groupSums(n, lab.Env, 1, func(i int) int { return int(lab.Env[i]) }, l)
		if err != nil {
			return 0, err
		}
		var means []float64
		idx := make([]int, len(sum))
		for e := range sum {
			idx[e] = -1
			if cnt[e] > 0 {
				idx[e] = len(means)
				means = append(means, sum[e]/float64(cnt[e]))
			}
		}
		var bar float64
		for _, m := range means {
			bar += m
		}
		bar /= float64(len(means))
		for _, m := range means {
			r += (m - bar) * (m - bar)
		}
		ne := float64(len(means))
		r /= ne
		for i := 0; i < n; i++ {
			e := lab.Env[i]
			addCot(i, 2*(means[idx[e]]-bar)/ne/float64(cnt[e]), d)
		}
	case "cvar":
		m := int(math.Ceil(o.Alpha * float64(n)))
		order := make([]int, n)
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
		for _, i := range order[:m] {
			r += l[i]
			addCot(i, 1/float64(m), d)
		}
		r /= float64(m)
	case "worst-group":
		sum, cnt, err := groupSums(n, lab.Group, 1, func(i int) int { return int(lab.Group[i]) }, l)
		if err != nil {
			return 0, err
		}
		worst := -1
		for g := range sum {
			if cnt[g] > 0 && (worst < 0 || sum[g]/float64(cnt[g]) > sum[worst]/float64(cnt[worst])) {
				worst = g
			}
		}
		r = sum[worst] / float64(cnt[worst])
		for i := 0; i < n; i++ {
			if int(lab.Group[i]) == worst {
				addCot(i, 1/float64(cnt[worst]), d)
			}
		}
	default:
		return 0, fmt.Errorf("unknown objective %q", o.Name)
	}
	if o.Name == "erm" || o.Beta != 0 {
		b := o.Beta
		if o.Name == "erm" {
			b = 1 + o.Beta
		}
		var mean float64
		for i := 0; i < n; i++ {
			mean += l[i]
			addCot(i, b/float64(n), d)
		}
		r += b * mean / float64(n)
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
