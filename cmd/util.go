package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/maple-ood/maple/runs"
)

// writeJSON writes v as indented JSON on f's output.
func writeJSON(f *Factory, v any) error {
	enc := json.NewEncoder(f.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// warnTo returns a function that writes a warning on f's error stream.
func warnTo(f *Factory) func(string) {
	return func(m string) { fmt.Fprintln(f.Err, "maple: warning:", m) }
}

// runDir returns the directory of run id (runs.Store.Find), a usage error when
// there is none; a run the user may not read (another user's) is said so,
// not taken for none.
func runDir(f *Factory, id string) (string, error) {
	dir, err := f.Store().Find(id)
	if err != nil {
		if uerr := unreadableRun(f.RunsDir, id, statPath); uerr != nil {
			return "", uerr
		}
		return "", usageError{err}
	}
	return dir, nil
}

// statPath is os.Stat; a test run as root, who may read every file,
// refuses a run's files through it as they are refused to other users.
var statPath = os.Stat

// unreadableRun returns an error naming the run id (its directory, or
// one whose name starts or ends with id) when its run.json is refused to
// the user, or the runs directory itself is; nil when neither is.
func unreadableRun(runsDir, id string, stat func(string) (fs.FileInfo, error)) error {
	if id == "" || strings.ContainsRune(id, os.PathSeparator) {
		return nil
	}
	ents, err := os.ReadDir(runsDir)
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("the runs directory %s cannot be read: %w%s; ask its owner for access, or give --runs-dir a directory of your own", runsDir, fs.ErrPermission, ownerOf(runsDir))
	}
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") || !strings.HasPrefix(name, id) && !strings.HasSuffix(name, id) {
			continue
		}
		dir := runs.Open(runsDir).RunDir(name)
		if _, err := stat(filepath.Join(dir, runs.ConfigFile)); errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("run %s in %s cannot be read: %w%s; ask its owner to share it (chmod -R a+rX %s), or copy it into a runs directory of your own", name, runsDir, fs.ErrPermission, ownerOf(dir), dir)
		}
	}
	return nil
}

// ownerOf is " (it belongs to user NAME)" for a file of another user,
// else "".
func ownerOf(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() {
		return ""
	}
	name := strconv.Itoa(int(st.Uid))
	if u, err := user.LookupId(name); err == nil {
		name = u.Username
	}
	return fmt.Sprintf(" (it belongs to user %s)", name)
}

// plural is n and noun, with an s for any n but 1 ("1 running cell",
// "2 running cells").
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
