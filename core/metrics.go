package core

// What a snapshot reports beyond the risks: validation and test
// accuracy, group weights and histograms, the listed samples, and the
// validation-selected iterate.

import (
	"math"

	"github.com/maple-ood/maple/train"
)

// metrics evaluates theta_T on validation and test.
func (e *engine[T]) metrics(theta, outerLogits []T) *Snapshot {
	vl := outerLogits
	if e.outer != &e.val {
		vl = make([]T, e.val.n*e.k)
		e.net.Forward(theta, e.val.x, e.val.n, vl)
	}
	tl := make([]T, e.test.n*e.k)
	e.net.Forward(theta, e.test.x, e.test.n, tl)
	va, ta := train.AccuracyOf(vl, e.k, e.val.ds), train.AccuracyOf(tl, e.k, e.test.ds)
	return &Snapshot{ValAcc: va.Avg, ValWorst: va.Worst, TestAcc: ta.Avg, TestWorst: ta.Worst, ValGroups: va.PerGroup}
}

// histBins is the number of weight histogram bins.
const histBins = 20

// groupStats fills the group weight fractions and histograms from u.
func (e *engine[T]) groupStats(s *Snapshot) {
	ds := e.train.ds
	ng := len(ds.GroupNames)
	s.GroupNames = append([]string(nil), ds.GroupNames...)
	s.GroupFrac = make([]float64, ng)
	var total, hi float64
	for i, u := range e.u {
		s.GroupFrac[ds.Group[i]] += u
		total += u
		hi = math.Max(hi, u)
	}
	for g := range s.GroupFrac {
		s.GroupFrac[g] /= total
	}
	if hi == 0 {
		hi = 1
	}
	s.HistEdges = make([]float64, histBins+1)
	for b := range s.HistEdges {
		s.HistEdges[b] = hi * float64(b) / histBins
	}
	s.Hist = make([][]int, ng)
	for g := range s.Hist {
		s.Hist[g] = make([]int, histBins)
	}
	for i, u := range e.u {
		b := min(int(u/hi*histBins), histBins-1)
		s.Hist[ds.Group[i]][b]++
	}
	wHi := 0.0
	for _, w := range e.w {
		wHi = math.Max(wHi, w)
	}
	s.WeightHist, s.KeepHist = NewHistogram(e.w, 0, wHi, histBins), NewHistogram(e.s, 0, 1, histBins)
	top := mostWeighted(e.u, e.s, topK)
	for _, i := range top {
		s.Top = append(s.Top, TopSample{Index: i, ID: ds.ID[i], Label: ds.Y[i], Group: ds.Group[i], Weight: e.u[i], Keep: e.s[i], W: e.w[i]})
	}
	for _, i := range leastKept(e.s, e.w, topK) {
		s.Dropped = append(s.Dropped, TopSample{Index: i, ID: ds.ID[i], Label: ds.Y[i], Group: ds.Group[i], Weight: e.u[i], Keep: e.s[i], W: e.w[i]})
	}
}

// topK is how many top-weighted samples a snapshot lists.
const topK = 5

// score is an iterate's validation criterion, higher better: the inner
// model's validation worst-group accuracy where the validation split has
// more than one group, else minus the outer risk.
func (e *engine[T]) score(s *Snapshot) float64 {
	if len(e.val.ds.GroupNames) > 1 {
		return s.ValWorst
	}
	return -s.OuterRisk
}

// consider keeps iterate it (its w, s and drawn mask, before this
// iteration's update) when it scores better than the best so far; the
// earliest wins a tie. Only validation figures take part.
func (e *engine[T]) consider(it int, s *Snapshot) {
	sc := e.score(s)
	if e.bestIter > 0 && !(sc > e.bestScore) {
		return
	}
	e.bestIter, e.bestScore = it, sc
	e.bestW = append(e.bestW[:0], e.w...)
	e.bestS = append(e.bestS[:0], e.s...)
	e.bestM = e.bestM[:0]
	for _, m := range e.m {
		e.bestM = append(e.bestM, m == 1)
	}
}

// mostWeighted returns the k samples of the largest weights u, largest
// first; ties (every kept sample's u is 1 when w is frozen at 1) by the
// keep probability s, the higher first, then by index.
func mostWeighted(u, s []float64, k int) []int {
	return firstK(len(u), k, func(i, j int) bool { return u[i] > u[j] || u[i] == u[j] && s[i] > s[j] })
}

// leastKept returns the k samples least likely kept, in order: the
// lowest keep probabilities s_i, ties by the lowest weight w_i, then by
// index (the dashboard's samples view).
func leastKept(s, w []float64, k int) []int {
	return firstK(len(s), k, func(i, j int) bool { return s[i] < s[j] || s[i] == s[j] && w[i] < w[j] })
}

// firstK returns the first k of the indices 0..n-1 in the order before
// (ties by index), by insertion into a short sorted list.
func firstK(n, k int, before func(i, j int) bool) []int {
	var top []int
	for i := range n {
		if len(top) == k && !before(i, top[k-1]) {
			continue
		}
		j := len(top)
		if j < k {
			top = append(top, i)
		} else {
			j = k - 1
		}
		for ; j > 0 && before(i, top[j-1]); j-- {
			top[j] = top[j-1]
		}
		top[j] = i
	}
	return top
}
