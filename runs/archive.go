package runs

import (
	"fmt"
	"os"
	"path/filepath"
)

// ArchiveDir is where archived runs are kept, below the runs directory:
// RUNS/.archive/ID, out of every listing but maple ls --archived, and
// restorable with maple archive --restore ID.
func (s Store) ArchiveDir() string { return filepath.Join(s.dir, ".archive") }

// Archive moves run id into the archive. A run that a process holds
// (running, or open in a dashboard) is refused.
func (s Store) Archive(id string) error {
	return moveRun(s.RunDir(id), filepath.Join(s.ArchiveDir(), id))
}

// Restore moves archived run id back into runsDir.
func (s Store) Restore(id string) error {
	src := filepath.Join(s.ArchiveDir(), id)
	if !isRunDir(s.ArchiveDir(), id) {
		return fmt.Errorf("no archived run %q in %s (see maple ls --archived)", id, s.ArchiveDir())
	}
	return moveRun(src, s.RunDir(id))
}

// moveRun renames run directory src to dst while holding its lock.
func moveRun(src, dst string) error {
	r := &Run{Dir: src}
	if err := r.takeLock(); err != nil {
		return err
	}
	defer r.Close()
	if _, err := os.Stat(dst); err == nil {
		return fmt.Errorf("%s already exists: move or remove it first", dst)
	}
	if err := mkdirAll(filepath.Dir(dst)); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err != nil {
		return &WriteError{Path: dst, Err: err}
	}
	return nil
}

// Remove deletes run dir and everything in it. A run that a process
// holds is refused.
func Remove(dir string) error {
	r := &Run{Dir: dir}
	if err := r.takeLock(); err != nil {
		return err
	}
	defer r.Close()
	// Rename first, so that a removal cut short leaves no half run that
	// listings would show.
	gone := filepath.Join(filepath.Dir(dir), removingPrefix+filepath.Base(dir))
	if err := os.Rename(dir, gone); err != nil {
		return &WriteError{Path: dir, Err: err}
	}
	if err := os.RemoveAll(gone); err != nil {
		return fmt.Errorf("removing %s: %w", gone, err)
	}
	return nil
}
