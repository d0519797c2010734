package runs

import (
	"fmt"
	"os"
	"path/filepath"
)

// ArchiveDir is where archived runs are kept, below the runs directory:
// RUNS/.archive/ID, out of every listing but maple ls --archived, and
// restorable with maple archive --restore ID.
func ArchiveDir(runsDir string) string { return filepath.Join(runsDir, ".archive") }

// Archive moves run dir (a run of runsDir) into the archive. A run that
// a process holds (running, or open in a dashboard) is refused.
func Archive(runsDir, dir string) error {
	return moveRun(dir, filepath.Join(ArchiveDir(runsDir), filepath.Base(dir)))
}

// Restore moves archived run id back into runsDir.
func Restore(runsDir, id string) error {
	src := filepath.Join(ArchiveDir(runsDir), id)
	if !isRunDir(ArchiveDir(runsDir), id) {
		return fmt.Errorf("no archived run %q in %s (see maple ls --archived)", id, ArchiveDir(runsDir))
	}
	return moveRun(src, Dir(runsDir, id))
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
