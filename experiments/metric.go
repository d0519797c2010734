package experiments

import (
	"fmt"
	"slices"
	"strings"
)

// Metric is a test figure an experiment's comparisons are made on: its
// Welch's tests, Holm's corrections, differences at a seed and the
// interval its tables give.
type Metric struct {
	// Column is runs.csv's column, and summary.csv's prefix
	// (COLUMN_mean, COLUMN_ci95_lo ...).
	Column string
	Head   string // as a column header names it: "test acc"
	Name   string // as a sentence names it: "test accuracy"
	Short  string // as a cell names it where the header cannot ("" for the default)
}

// DefaultMetric is the metric of an experiment file without one.
const DefaultMetric = "test_acc"

// Metrics are the metrics an experiment file may name (metric = "...").
var Metrics = map[string]Metric{
	"test_acc":   {Column: "test_acc", Head: "test acc", Name: "test accuracy"},
	"test_worst": {Column: "test_worst", Head: "test worst-group", Name: "test worst-group accuracy", Short: "worst-group"},
}

// metricNames lists the metrics for an error: `"test_acc" (test
// accuracy, the default) or ...`.
func metricNames() string {
	var names []string
	for k := range Metrics {
		names = append(names, k)
	}
	slices.Sort(names)
	var out []string
	for _, k := range names {
		s := fmt.Sprintf("%q (%s", k, Metrics[k].Name)
		if k == DefaultMetric {
			s += ", the default"
		}
		out = append(out, s+")")
	}
	return strings.Join(out, " or ")
}

// Compared returns the metric the experiment's comparisons are made on.
func (f *File) Compared() Metric {
	if f == nil || f.Metric == "" {
		return Metrics[DefaultMetric]
	}
	return Metrics[f.Metric]
}

// compared is the metric of r's comparisons (the default without a
// file).
func (r Results) compared() Metric { return r.File.Compared() }

// isDefault tells whether m is the default metric: its headers keep the
// text they had before metrics could be chosen.
func (m Metric) isDefault() bool { return m.Column == DefaultMetric }
