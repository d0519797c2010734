package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// WriteFile writes data to path atomically (a temporary file renamed
// into place, synced), its error a *WriteError: how every file of a run
// and of its exports is written.
func WriteFile(path string, data []byte) error { return writeFileAtomic(path, data) }

// WriteWith writes path atomically with write.
func WriteWith(path string, write func(*os.File) error) error { return writeAtomic(path, write) }

// MakeDir creates dir and its parents (DirPerm), its error a
// *WriteError.
func MakeDir(dir string) error { return mkdirAll(dir) }

// writeFileAtomic writes data to a temporary file beside path, syncs it,
// renames it over path and syncs the directory.
func writeFileAtomic(path string, data []byte) error {
	return writeAtomic(path, func(f *os.File) error { _, err := f.Write(data); return err })
}

// createTemp is os.CreateTemp (a test makes it fail).
var createTemp = os.CreateTemp

// WriteError is a file (or directory) maple could not write, said in
// words: what and why, never the temporary file it went through.
type WriteError struct {
	Path string
	Err  error
}

func (e *WriteError) Error() string {
	dir := filepath.Dir(e.Path)
	var why string
	switch {
	case errors.Is(e.Err, syscall.ENOSPC):
		why = "the disk is full; free some space and try again"
	case errors.Is(e.Err, syscall.EDQUOT):
		why = "the disk quota is used up; free some space and try again"
	case errors.Is(e.Err, syscall.EROFS):
		why = fmt.Sprintf("%s is on a read-only file system", dir)
	case errors.Is(e.Err, fs.ErrPermission):
		why = fmt.Sprintf("no permission to write in %s (make it writable, e.g. chmod u+w %s)", dir, dir)
	default:
		why = e.Err.Error()
		var pe *fs.PathError
		if errors.As(e.Err, &pe) {
			why = pe.Err.Error() // the system's words, without the temporary file's name
		}
	}
	return fmt.Sprintf("cannot write %s: %s", e.Path, why)
}

func (e *WriteError) Unwrap() error { return e.Err }

// mkdirAll is os.MkdirAll with DirPerm, its error a *WriteError.
func mkdirAll(dir string) error {
	if err := os.MkdirAll(dir, DirPerm); err != nil {
		return &WriteError{Path: dir, Err: err}
	}
	return nil
}

func writeAtomic(path string, write func(*os.File) error) error {
	fail := func(err error) error { return &WriteError{Path: path, Err: err} }
	tmp, err := createTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(FilePerm); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := write(tmp); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fail(err)
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	d.Sync()
	return nil
}

// WriteJSONAtomic writes v as indented JSON to path atomically.
func WriteJSONAtomic(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%w", err)
	}
	return writeFileAtomic(path, append(b, '\n'))
}
