package sweeps

import (
	"fmt"
	"github.com/maple-ood/maple/runs"
	"os"
	"time"
)

// stopFile marks a sweep as stopped: its processes start no further cell
// once it is newer than they are (a later rerun of the sweep is newer
// than it, and goes on).
func stopFile(runsDir, sweep string) (string, error) {
	return runs.Open(runsDir).SweepFile(sweep, ".stop")
}

// AskSweepStop marks sweep name as stopped (see StopAsked).
func AskSweepStop(runsDir, name string) error {
	if err := os.MkdirAll(runs.Open(runsDir).SweepsDir(), runs.DirPerm); err != nil {
		return fmt.Errorf("%w", err)
	}
	path, err := stopFile(runsDir, name)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, runs.FilePerm)
	if err != nil {
		return fmt.Errorf("%w", err)
	}
	fmt.Fprintln(f, time.Now().Format(time.RFC3339Nano))
	return f.Close()
}

// StopAsked tells whether sweep name was stopped (maple stop) after
// since, the start of the process asking.
func StopAsked(runsDir, name string, since time.Time) bool {
	path, err := stopFile(runsDir, name)
	if err != nil {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && fi.ModTime().After(since)
}
