package session

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/maple-ood/maple/runs"
)

// StopRun asks the search running in dir to stop, through its socket (so
// only its owner can), as SIGTERM would: it checkpoints its last completed
// iteration and ends, resumable. It waits for states, never for a time:
// for the socket of a run that is held but does not listen yet (it loads
// its data), then until the run's summary says it ended or its process
// has let go of it (a process that stays open after its search ended, a
// dashboard in another terminal, keeps the run). ctx bounds the wait; it
// returns the run's status then.
func StopRun(ctx context.Context, dir string) (runs.Info, error) {
	cl, err := attachHeld(ctx, dir)
	if err != nil {
		return runs.Info{}, err
	}
	defer cl.Close()
	if err := cl.Stop(); err != nil {
		return runs.Info{}, err
	}
	for runs.Held(dir) && !ended(dir) {
		select {
		case <-ctx.Done():
			return runs.Stat(dir), fmt.Errorf("stop asked; %s is still stopping (it ends within an inner step, or an evaluation)", filepath.Base(dir))
		case <-time.After(50 * time.Millisecond):
		}
	}
	return runs.Stat(dir), nil
}

// noSocketHook, when set (by tests), is called each time attachHeld
// finds no socket yet.
var noSocketHook func()

// attachHeld connects to the run in dir, waiting while some process
// holds the run but does not listen yet: a run starting (loading its
// data) or a sweep's cell between its claim and its socket.
func attachHeld(ctx context.Context, dir string) (*Client, error) {
	for {
		cl, err := Attach(dir)
		if err == nil || !runs.Held(dir) {
			return cl, err
		}
		if noSocketHook != nil {
			noSocketHook()
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("run %s is held by a process that does not listen on its socket yet; try again in a moment: %w", filepath.Base(dir), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// ended reports whether the run in dir has written the summary of a
// search that ended (stopped, failed or done): its process may still
// hold it, showing the end to its person.
func ended(dir string) bool {
	sum, err := runs.ReadSummary(dir)
	return err == nil && sum != nil && !sum.Status.Live()
}
