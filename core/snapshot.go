package core

import (
	"math"

	"github.com/maple-ood/maple/record"
)

// The records the engine reports, kept in package record: a Snapshot per
// outer iteration (one line of metrics.jsonl; see
// docs/ARCHITECTURE.md), the Events of changes made from outside, and
// the State a checkpoint holds.
type (
	Snapshot  = record.Snapshot
	IterEval  = record.IterEval
	TopSample = record.TopSample
	Timing    = record.Timing
	EventKind = record.EventKind
	Event     = record.Event
	State     = record.State
	Histogram = record.Histogram
	// Recorder receives what the engine reports, synchronously, from the
	// engine's goroutine (record.Recorder).
	Recorder = record.Recorder
)

// The events an engine reports (record.EventPause, ...).
const (
	EventPause      = record.EventPause
	EventResume     = record.EventResume
	EventSetLR      = record.EventSetLR
	EventCheckpoint = record.EventCheckpoint
	EventStop       = record.EventStop
	EventError      = record.EventError
	EventEvaluate   = record.EventEvaluate
	EventExport     = record.EventExport
	EventWarning    = record.EventWarning
)

// NewHistogram counts v in bins equal bins between lo and hi (hi <= lo:
// between lo and lo + 1).
func NewHistogram(v []float64, lo, hi float64, bins int) *Histogram {
	if hi <= lo {
		hi = lo + 1
	}
	h := &Histogram{Edges: make([]float64, bins+1), Counts: make([]int, bins), Min: math.Inf(1), Max: math.Inf(-1)}
	for b := range h.Edges {
		h.Edges[b] = lo + (hi-lo)*float64(b)/float64(bins)
	}
	for _, x := range v {
		b := min(max(int((x-lo)/(hi-lo)*float64(bins)), 0), bins-1)
		h.Counts[b]++
		h.Min, h.Max = math.Min(h.Min, x), math.Max(h.Max, x)
		h.Sum += x
		h.SumSq += x * x
	}
	if len(v) == 0 {
		h.Min, h.Max = 0, 0
	}
	return h
}
