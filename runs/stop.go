package runs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// stopFile marks a sweep as stopped: its processes start no further cell
// once it is newer than they are (a later rerun of the sweep is newer
// than it, and goes on).
func stopFile(runsDir, sweep string) string {
	return filepath.Join(sweepsDir(runsDir), sweep+".stop")
}

// AskSweepStop marks sweep name as stopped (see StopAsked).
func AskSweepStop(runsDir, name string) error {
	if err := os.MkdirAll(sweepsDir(runsDir), dirPerm); err != nil {
		return fmt.Errorf("%w", err)
	}
	f, err := os.OpenFile(stopFile(runsDir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, filePerm)
	if err != nil {
		return fmt.Errorf("%w", err)
	}
	fmt.Fprintln(f, time.Now().Format(time.RFC3339Nano))
	return f.Close()
}

// StopAsked tells whether sweep name was stopped (maple stop) after
// since, the start of the process asking.
func StopAsked(runsDir, name string, since time.Time) bool {
	fi, err := os.Stat(stopFile(runsDir, name))
	return err == nil && fi.ModTime().After(since)
}

// StopRun asks the search running in dir to stop, through its socket (so
// only its owner can), as SIGTERM would: it checkpoints its last completed
// iteration and ends, resumable. It waits until the run's process has let
// go of it or ctx ends, and returns the run's status then.
func StopRun(ctx context.Context, dir string) (Info, error) {
	cl, err := Attach(dir)
	if err != nil {
		return Info{}, err
	}
	defer cl.Close()
	if err := cl.Stop(); err != nil {
		return Info{}, err
	}
	for Held(dir) {
		select {
		case <-ctx.Done():
			return Stat(dir), fmt.Errorf("stop asked; %s is still stopping (it ends within an inner step, or an evaluation)", filepath.Base(dir))
		case <-time.After(50 * time.Millisecond):
		}
	}
	return Stat(dir), nil
}
