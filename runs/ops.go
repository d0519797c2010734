package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// An Op is a maple rm or archive as it is under way: its journal,
// RUNS/.ops/*.json, is written before the first run is touched and
// removed after the last, and the process holds a lock on it all along.
// A journal that no process holds is an operation cut short (a kill -9,
// a power cut): the next command that opens the runs directory reports
// it with the command that finishes it.
type Op struct {
	Verb    string    `json:"verb"`   // "rm", "archive" or "restore"
	Runs    []string  `json:"runs"`   // the runs' ids, as resolved when it started
	Sweeps  []string  `json:"sweeps"` // the sweeps named, whose records go last
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`

	path string   // the journal's file
	lock *os.File // held while the operation runs
}

// OpsDir holds the journals of the rm and archive operations under way.
func (s Store) OpsDir() string { return filepath.Join(s.dir, ".ops") }

// StartOp writes the journal of an operation on runsDir and holds it
// until Done.
func (s Store) StartOp(verb string, ids, sweeps []string) (*Op, error) {
	op := &Op{Verb: verb, Runs: ids, Sweeps: sweeps, PID: os.Getpid(), Started: time.Now().UTC()}
	dir := s.OpsDir()
	if err := mkdirAll(dir); err != nil {
		return nil, err
	}
	name := fmt.Sprintf("%s-%d-%d", verb, op.Started.UnixNano(), op.PID)
	op.path = filepath.Join(dir, name+".json")
	// Written and locked under a name no reader lists, then renamed into
	// place: a reader never finds a journal unlocked or empty while its
	// operation is under way.
	tmp := filepath.Join(dir, "."+name+".tmp")
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, FilePerm)
	if err != nil {
		return nil, &WriteError{Path: tmp, Err: err}
	}
	fail := func(err error) (*Op, error) {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return fail(fmt.Errorf("locking %s: %w", tmp, err))
	}
	b, _ := json.Marshal(op)
	if _, err := f.Write(append(b, '\n')); err != nil {
		return fail(&WriteError{Path: tmp, Err: err})
	}
	if err := f.Sync(); err != nil {
		return fail(&WriteError{Path: tmp, Err: err})
	}
	if err := os.Rename(tmp, op.path); err != nil {
		return fail(&WriteError{Path: op.path, Err: err})
	}
	op.lock = f
	return op, nil
}

// Done removes the journal of a finished operation.
func (op *Op) Done() {
	if op == nil {
		return
	}
	os.Remove(op.path)
	if op.lock != nil {
		op.lock.Close()
		op.lock = nil
	}
}

// Drop removes the journal of an operation cut short that has nothing
// left to do, or that a later operation finished.
func (op *Op) Drop() { os.Remove(op.path) }

// Path is the journal's file.
func (op *Op) Path() string { return op.path }

// UnfinishedOps lists the operations on runsDir that were cut short:
// their journal is there and no process holds it. An unreadable journal
// is listed with its verb from its file name and no names.
func (s Store) UnfinishedOps() []*Op {
	paths, _ := filepath.Glob(filepath.Join(s.OpsDir(), "*.json"))
	var out []*Op
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			continue // under way
		}
		op := &Op{path: p}
		if b, err := os.ReadFile(p); err != nil || json.Unmarshal(b, op) != nil {
			op.Verb, _, _ = strings.Cut(filepath.Base(p), "-")
			op.Runs, op.Sweeps = nil, nil
		}
		f.Close()
		out = append(out, op)
	}
	return out
}

// removingPrefix names a run directory that Remove is deleting.
const removingPrefix = ".removing-"

// FinishRemovals deletes what a Remove cut short left behind,
// RUNS/.removing-ID (renamed out of every listing before its files
// went), and returns the ids it finished. One that another process is
// still deleting is left to it; one that cannot be deleted is an error
// naming it and the command that deletes it.
func (s Store) FinishRemovals() ([]string, error) {
	left, _ := filepath.Glob(filepath.Join(s.dir, removingPrefix+"*"))
	var done []string
	var errs []error
	for _, dir := range left {
		if Held(dir) {
			continue // a maple rm under way
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, fmt.Errorf("a deleted run's files are left in %s (%w): delete them with rm -rf %s", dir, unwrapPath(err), strconv.Quote(dir)))
			continue
		}
		done = append(done, strings.TrimPrefix(filepath.Base(dir), removingPrefix))
	}
	return done, errors.Join(errs...)
}

// unwrapPath is a path error's cause alone (its path is said already).
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Abandon lets the journal's lock go and keeps the file, as a process
// killed part way does: for tests.
func (op *Op) Abandon() {
	if op != nil && op.lock != nil {
		op.lock.Close()
		op.lock = nil
	}
}
