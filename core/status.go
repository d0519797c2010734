package core

import "github.com/maple-ood/maple/record"

// Status is the state of a search or a run (record.Status). It is one
// type for the engine, summary.json, the runs listing, the socket and
// the UI; it marshals as its name ("running", "done", ...).
type Status = record.Status

// The statuses. The engine reports Running, Paused, Done, Stopped and
// Failed; a run directory adds Evaluating (the search finished, the final
// weighted ERM runs) and Interrupted (nobody holds the run and it has no
// summary: the process died).
const (
	StatusUnknown     = record.StatusUnknown
	StatusRunning     = record.StatusRunning
	StatusPaused      = record.StatusPaused
	StatusEvaluating  = record.StatusEvaluating
	StatusDone        = record.StatusDone
	StatusStopped     = record.StatusStopped
	StatusFailed      = record.StatusFailed
	StatusInterrupted = record.StatusInterrupted
)

// ParseStatus returns the status named name.
func ParseStatus(name string) (Status, error) { return record.ParseStatus(name) }
