package sweeps

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/maple-ood/maple/runs"
)

// ErrSweepRunning is returned by Exclusive when a process of the sweep
// holds it.
var ErrSweepRunning = errors.New("a process of the sweep holds it")

// ErrSweepBusy is returned by Hold when a maple rm or archive of the
// sweep holds it.
var ErrSweepBusy = errors.New("maple rm or archive of the sweep holds it")

// Lock is a sweep's own lock (runs.SweepLockFile) as one process holds
// it; Release lets it go.
type Lock struct {
	f    *os.File
	path string
}

// Hold takes sweep name's lock shared, for the life of a process that
// runs (or records, or submits) the sweep: between its cells as well as
// in them, so that maple rm and archive refuse the sweep all along. Any
// number of the sweep's processes hold it at once. It fails with
// ErrSweepBusy while maple rm or archive of the sweep holds it.
func Hold(runsDir, name string) (*Lock, error) {
	l, err := lockSweep(runsDir, name, syscall.LOCK_SH)
	if errors.Is(err, errHeld) {
		return nil, &lockError{kind: ErrSweepBusy, text: fmt.Sprintf("maple rm or maple archive of sweep %s is under way in another process; run the sweep again once it has ended", name)}
	}
	return l, err
}

// Exclusive takes sweep name's lock for maple rm or archive. It fails
// with ErrSweepRunning while a process of the sweep holds it.
func Exclusive(runsDir, name string) (*Lock, error) {
	l, err := lockSweep(runsDir, name, syscall.LOCK_EX)
	if errors.Is(err, errHeld) {
		return nil, &lockError{kind: ErrSweepRunning, text: fmt.Sprintf("sweep %s is running (between cells too; maple sweep --name %s --status shows its cells): stop it first with maple stop %s",
			name, name, name)}
	}
	return l, err
}

// Running tells whether a process of sweep name holds its lock. It
// creates nothing.
func Running(runsDir, name string) bool {
	path, err := runs.Open(runsDir).SweepLockFile(name)
	return err == nil && runs.Held(path) // a lock file is probed as a run's directory is
}

var errHeld = errors.New("held")

// lockError says why a sweep's lock was refused, in words for people; it
// is its kind (errors.Is).
type lockError struct {
	kind error
	text string
}

func (e *lockError) Error() string { return e.text }
func (e *lockError) Unwrap() error { return e.kind }

// lockWait is how long a refused lock is tried again: a probe of another
// process (Running, runs.Held) holds it for an instant.
const lockWait = 300 * time.Millisecond

// lockSweep takes the lock of sweep name as how (LOCK_SH or LOCK_EX)
// without waiting. The lock file is the one at its path when the lock is
// taken: a file that maple rm deleted while another process opened it is
// opened again.
func lockSweep(runsDir, name string, how int) (*Lock, error) {
	path, err := runs.Open(runsDir).SweepLockFile(name)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(runs.Open(runsDir).ClaimsDir(), runs.DirPerm); err != nil {
		return nil, &runs.WriteError{Path: runs.Open(runsDir).ClaimsDir(), Err: err}
	}
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, runs.FilePerm)
		if err != nil {
			return nil, &runs.WriteError{Path: path, Err: err}
		}
		err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		for deadline := time.Now().Add(lockWait); errors.Is(err, syscall.EWOULDBLOCK) && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
			err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		}
		if err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, errHeld
			}
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return &Lock{f: f, path: path}, nil
		}
		f.Close() // removed (or replaced) before the lock was taken
	}
}

// Release lets the lock go.
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// Remove deletes the lock's file and lets the lock go: the end of a
// sweep deleted by maple rm, which holds it exclusively. A process that
// opened the file before it went opens the new one (lockSweep).
func (l *Lock) Remove() {
	if l != nil && l.f != nil {
		os.Remove(l.path)
		l.Release()
	}
}
