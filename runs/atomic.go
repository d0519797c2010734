package runs

import "os"

// WriteFile writes data to path atomically (a temporary file renamed
// into place, synced), its error a *WriteError: how every file of a run
// and of its exports is written.
func WriteFile(path string, data []byte) error { return writeFileAtomic(path, data) }

// WriteWith writes path atomically with write.
func WriteWith(path string, write func(*os.File) error) error { return writeAtomic(path, write) }

// MakeDir creates dir and its parents (DirPerm), its error a
// *WriteError.
func MakeDir(dir string) error { return mkdirAll(dir) }
