package record

import "fmt"

// Status is the state of a search or a run. It is one type for the
// engine, summary.json, the runs listing, the socket and the UI; it
// marshals as its name ("running", "done", ...).
type Status int

// The statuses. The engine reports Running, Paused, Done, Stopped and
// Failed; a run directory adds Evaluating (the search finished, the final
// weighted ERM runs) and Interrupted (nobody holds the run and it has no
// summary: the process died).
const (
	StatusUnknown Status = iota
	StatusRunning
	StatusPaused
	StatusEvaluating
	StatusDone
	StatusStopped
	StatusFailed
	StatusInterrupted
)

var statusNames = [...]string{"unknown", "running", "paused", "evaluating", "done", "stopped", "failed", "interrupted"}

// String returns the status's name.
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// Live reports whether a process is working on the run.
func (s Status) Live() bool { return s == StatusRunning || s == StatusPaused || s == StatusEvaluating }

// Resumable reports whether `maple resume` can continue the run.
func (s Status) Resumable() bool {
	return s == StatusStopped || s == StatusInterrupted || s == StatusFailed
}

// MarshalText writes the status's name.
func (s Status) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(statusNames) {
		return nil, fmt.Errorf("status %d has no name", int(s))
	}
	return []byte(statusNames[s]), nil
}

// UnmarshalText reads a status's name.
func (s *Status) UnmarshalText(b []byte) error {
	v, err := ParseStatus(string(b))
	*s = v
	return err
}

// ParseStatus returns the status named name.
func ParseStatus(name string) (Status, error) {
	for i, n := range statusNames {
		if n == name {
			return Status(i), nil
		}
	}
	return StatusUnknown, fmt.Errorf("unknown status %q", name)
}
