package tui

import (
	"math"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/train"
)

// The metric a comparison charts: v and V cycle through the figures the
// compared runs record, each outer iteration's in metrics.jsonl (a
// search's), or each validation check's of their training (baselines'
// only). The first is the validation worst-group accuracy; a search's
// comparison charts its outer risk below any other.

// metricMsg moves the comparison's metric by that many places.
type metricMsg int

// searchMetric is a figure of a search's records, NaN where a record
// lacks it.
type searchMetric struct {
	name string
	f    func(*core.Snapshot) float64
	risk bool // positive and spanning decades: y takes the log scale
}

// searchMetrics are the figures of metrics.jsonl a comparison can chart:
// the accuracies, the risks and norms, and per group (named as the first
// run with groups names them) its share of the weights and its
// validation accuracy.
func searchMetrics(groups []string) []searchMetric {
	ms := []searchMetric{
		{"val worst-group accuracy", func(s *core.Snapshot) float64 { return s.ValWorst }, false},
		{"test worst-group accuracy", func(s *core.Snapshot) float64 { return s.TestWorst }, false},
		{"val accuracy", func(s *core.Snapshot) float64 { return s.ValAcc }, false},
		{"test accuracy", func(s *core.Snapshot) float64 { return s.TestAcc }, false},
		{"outer risk", func(s *core.Snapshot) float64 { return s.OuterRisk }, true},
		{"inner loss", func(s *core.Snapshot) float64 { return s.InnerLoss }, true},
		{"kept fraction (samples with m = 1)", func(s *core.Snapshot) float64 { return s.KeepFrac }, false},
		{"hypergradient norm", func(s *core.Snapshot) float64 { return s.HyperNorm }, true},
	}
	for g, name := range groups {
		ms = append(ms, searchMetric{"weight fraction of group " + name, func(s *core.Snapshot) float64 { return at(s.GroupFrac, g) }, false})
	}
	for g, name := range groups {
		ms = append(ms, searchMetric{"val accuracy of group " + name, func(s *core.Snapshot) float64 {
			if v := at(s.ValGroups, g); v >= 0 {
				return v
			}
			return math.NaN() // a group the validation split lacks
		}, false})
	}
	return ms
}

// at is v[i], NaN past its end.
func at(v []float64, i int) float64 {
	if i < len(v) {
		return v[i]
	}
	return math.NaN()
}

// trainingMetric is a figure of a training's validation checks.
type trainingMetric struct {
	name string
	f    func(train.CheckPoint) float64
}

// trainingMetrics are the figures of a training's validation checks.
var trainingMetrics = []trainingMetric{
	{"val worst-group accuracy", func(p train.CheckPoint) float64 { return p.ValWorst }},
	{"test worst-group accuracy", func(p train.CheckPoint) float64 { return p.TestWorst }},
	{"val accuracy", func(p train.CheckPoint) float64 { return p.ValAcc }},
	{"test accuracy", func(p train.CheckPoint) float64 { return p.TestAcc }},
}

// groupNames are the groups of the first compared run that records some.
func (c *comparison) groupNames() []string {
	for _, s := range c.series {
		for _, x := range s {
			if len(x.GroupNames) > 0 {
				return x.GroupNames
			}
		}
	}
	return nil
}
