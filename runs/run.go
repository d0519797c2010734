package runs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/maple-ood/maple/record"
	"github.com/maple-ood/maple/setting"
)

// Permissions of what maple writes into a run: private to the user (the
// umask can only make them stricter).
const (
	DirPerm  = 0o700
	FilePerm = 0o600
)

// Run is an open run directory whose lock this process holds.
type Run struct {
	Dir    string
	Config Config
	lock   *os.File
}

// ErrLocked means another process holds the run.
var ErrLocked = errors.New("the run is held by another process")

// Create makes a new run directory under runsDir with a fresh id that
// sorts by start time (YYYYMMDD-HHMMSS-NN, NN counting runs started in the
// same second), with run.json written and the lock taken. The directory
// is built under a hidden name and renamed into place, so that a run
// directory never exists without its run.json.
func (s Store) Create(cfg Config) (*Run, error) {
	if err := os.MkdirAll(s.dir, DirPerm); err != nil {
		return nil, fmt.Errorf("cannot create the runs directory: %w", err)
	}
	if err := checkRunsDir(s.dir); err != nil {
		return nil, err
	}
	if cfg.Started.IsZero() {
		cfg.Started = time.Now()
	}
	cfg.Build = CurrentBuild()              // a new run starts on this process's backend, whatever a copied config says
	cfg.Settings = cfg.Settings.Canonical() // each computation spelt one way in run.json
	tmp, err := os.MkdirTemp(s.dir, ".new-")
	if err != nil {
		return nil, fmt.Errorf("cannot create a run in %s: %w", s.dir, err)
	}
	if err := os.Chmod(tmp, DirPerm); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	r := &Run{Dir: tmp}
	if err := r.takeLock(); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	stamp := cfg.Started.UTC().Format("20060102-150405")
	for seq := 1; seq < 10000; seq++ {
		id := fmt.Sprintf("%s-%02d", stamp, seq)
		dir := s.RunDir(id)
		if _, err := os.Lstat(dir); err == nil {
			continue
		}
		cfg.ID, cfg.Format = id, ConfigFormat
		if err := WriteJSONAtomic(filepath.Join(tmp, ConfigFile), cfg); err != nil {
			r.Close()
			os.RemoveAll(tmp)
			return nil, err
		}
		// rename(2) does not replace a non-empty directory: a run made
		// with the same id meanwhile makes this fail, and the next id is
		// tried.
		if err := os.Rename(tmp, dir); err != nil {
			if _, serr := os.Lstat(dir); serr == nil {
				continue
			}
			r.Close()
			os.RemoveAll(tmp)
			return nil, err
		}
		syncDir(s.dir)
		r.Dir, r.Config = dir, cfg
		return r, nil
	}
	r.Close()
	os.RemoveAll(tmp)
	return nil, fmt.Errorf("no free run id for %s in %s", stamp, s.dir)
}

// Open takes the lock of an existing run, reads its config and removes
// the temporary files a killed writer left behind.
func (s Store) Open(id string) (*Run, error) {
	dir := s.RunDir(id)
	if _, err := os.Stat(filepath.Join(dir, ConfigFile)); err != nil || id == "" || strings.HasPrefix(id, ".") {
		if _, derr := os.Stat(dir); derr == nil && id != "" {
			return nil, fmt.Errorf("run %s has no readable run.json (%v): it cannot be resumed, but its other files are untouched", id, err)
		}
		return nil, fmt.Errorf("no run %q in %s (see maple ls)", id, s.dir)
	}
	r := &Run{Dir: dir}
	if err := r.takeLock(); err != nil {
		return nil, err
	}
	cfg, err := ReadConfig(dir)
	if err != nil {
		r.Close()
		return nil, err
	}
	if err := checkRecorded(filepath.Join(dir, ConfigFile), cfg); err != nil {
		r.Close()
		return nil, err
	}
	r.Config = *cfg
	if tmps, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(tmps) > 0 {
		for _, t := range tmps {
			os.Remove(t) // an atomic write cut short; the file it was for is intact
		}
	}
	return r, nil
}

// checkRecorded refuses a recorded config (run.json at path) whose
// settings cannot work, naming the file and the field as the file spells
// it (settings.outer_iters), not a flag: the person gave no flag, the
// file was edited or is damaged.
func checkRecorded(path string, c *Config) error {
	var err error
	if c.Searches() && c.Settings.Model != "" {
		err = c.Settings.CheckRecorded()
	}
	if err == nil && c.Eval.Model != "" { // every run maple writes has one
		err = c.Eval.CheckRecorded()
	}
	if err == nil {
		return nil
	}
	text := err.Error()
	var se *setting.Error
	if errors.As(err, &se) {
		text = strings.Replace(text, se.Error(), se.Format(jsonField), 1)
	}
	return &setting.Renamed{Text: fmt.Sprintf("%s: %s; the file was edited or is damaged: put a value that works back in that field (maple show %s lists the run's settings)", path, text, c.ID), Err: err}
}

// jsonField names a core field path (Settings.OuterIters) as run.json
// spells it (settings.outer_iters).
func jsonField(field string) string {
	sect, name, ok := strings.Cut(field, ".")
	var t reflect.Type
	switch {
	case !ok:
		return field
	case sect == "Settings":
		sect, t = "settings", reflect.TypeFor[record.Settings]()
	case sect == "EvalSettings":
		sect, t = "eval", reflect.TypeFor[record.EvalSettings]()
	default:
		return field
	}
	f, ok := t.FieldByName(name)
	if !ok {
		return field
	}
	tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if tag == "" || tag == "-" {
		tag = name
	}
	return sect + "." + tag
}

// ReadConfig reads run.json of the run in dir.
func ReadConfig(dir string) (*Config, error) {
	p := filepath.Join(dir, ConfigFile)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	c, err := DecodeConfig(p, b)
	var newer *NewerFormatError
	if errors.As(err, &newer) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v); it cannot be resumed, but its other files are untouched", p, err)
	}
	return c, nil
}

// takeLock takes an exclusive flock on the run directory itself (so
// that deleting the lock file cannot let a second writer in) and writes
// this process's id into the lock file for people.
func (r *Run) takeLock() error {
	d, err := os.Open(r.Dir)
	if err != nil {
		return err
	}
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		d.Close()
		pid, _ := os.ReadFile(filepath.Join(r.Dir, LockFile))
		id := filepath.Base(r.Dir)
		return fmt.Errorf("%w: run %s is being written by process %s; attach to it with maple attach %s, or wait", ErrLocked, id, strings.TrimSpace(string(pid)), id)
	}
	os.WriteFile(filepath.Join(r.Dir, LockFile), []byte(strconv.Itoa(os.Getpid())), FilePerm)
	r.lock = d
	return nil
}

// Held reports whether some process holds the run in dir (or a lock
// file at that path) with flock.
func Held(dir string) bool {
	d, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer d.Close()
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	syscall.Flock(int(d.Fd()), syscall.LOCK_UN)
	return false
}

// Close releases the lock.
func (r *Run) Close() error {
	if r.lock == nil {
		return nil
	}
	err := r.lock.Close()
	r.lock = nil
	return err
}

// Path returns the path of a file of the run.
func (r *Run) Path(name string) string { return filepath.Join(r.Dir, name) }

// OpenLog opens the run's log.txt for appending.
func (r *Run) OpenLog() (*os.File, error) {
	return os.OpenFile(r.Path(LogFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, FilePerm)
}

// checkRunsDir refuses a runs directory in which another user could
// rename or delete this user's runs: one owned by another user (root
// aside), or one others may write to without the sticky bit (as /tmp
// has).
func checkRunsDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("runs directory: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := int(st.Uid); uid != os.Getuid() && uid != 0 {
		return fmt.Errorf("the runs directory %s belongs to user %d, who could rename or delete your runs; use a directory of your own (--runs-dir or $MAPLE_RUNS_DIR)", dir, uid)
	}
	if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0 {
		return fmt.Errorf("the runs directory %s is writable by other users (mode %v), who could rename or delete your runs; chmod go-w %s, or use a directory of your own (--runs-dir or $MAPLE_RUNS_DIR)", dir, fi.Mode().Perm(), dir)
	}
	return nil
}
