package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/setting"
	"github.com/maple-ood/maple/train"
)

// Config is run.json (config.Config), kept here under its old name for
// the store's callers.
type Config = config.Config

// Build is the matrix backend a process computes with (config.Build).
type Build = config.Build

// CurrentBuild is this process's matrix backend.
func CurrentBuild() *Build { return config.CurrentBuild() }

// DefaultConfig returns the config of `maple run --dataset name` with
// every other flag at its default (config.DefaultConfig).
func DefaultConfig(name string) Config { return config.DefaultConfig(name) }

// BuildChange says how this process's backend differs from the one run
// cfg started on, "" when it does not (or the run recorded none: maple
// before it recorded them).
func BuildChange(cfg Config) string {
	now := CurrentBuild()
	if cfg.Build == nil || *cfg.Build == *now {
		return ""
	}
	return fmt.Sprintf("run %s started on %s and continues on %s: %s (a run is repeatable bit for bit on one backend and thread count; OPENBLAS_NUM_THREADS and GOMAXPROCS set the threads)", cfg.ID, cfg.Build, now, buildChangeMark)
}

// buildChangeMark is the part of BuildChange's warning IsBuildChange
// finds in a run's events.
const buildChangeMark = "its results may differ in their last digits from a run on one backend"

// IsBuildChange tells whether a warning is BuildChange's: the run went on
// with another backend or thread count than it started with.
func IsBuildChange(warning string) bool { return strings.Contains(warning, buildChangeMark) }

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
func Create(runsDir string, cfg Config) (*Run, error) {
	if err := os.MkdirAll(runsDir, DirPerm); err != nil {
		return nil, fmt.Errorf("cannot create the runs directory: %w", err)
	}
	if err := checkRunsDir(runsDir); err != nil {
		return nil, err
	}
	if cfg.Started.IsZero() {
		cfg.Started = time.Now()
	}
	cfg.Build = CurrentBuild() // a new run starts on this process's backend, whatever a copied config says
	tmp, err := os.MkdirTemp(runsDir, ".new-")
	if err != nil {
		return nil, fmt.Errorf("cannot create a run in %s: %w", runsDir, err)
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
		dir := Dir(runsDir, id)
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
		syncDir(runsDir)
		r.Dir, r.Config = dir, cfg
		return r, nil
	}
	r.Close()
	os.RemoveAll(tmp)
	return nil, fmt.Errorf("no free run id for %s in %s", stamp, runsDir)
}

// Open takes the lock of an existing run, reads its config and removes
// the temporary files a killed writer left behind.
func Open(runsDir, id string) (*Run, error) {
	dir := Dir(runsDir, id)
	if _, err := os.Stat(filepath.Join(dir, ConfigFile)); err != nil || id == "" || strings.HasPrefix(id, ".") {
		if _, derr := os.Stat(dir); derr == nil && id != "" {
			return nil, fmt.Errorf("run %s has no readable run.json (%v): it cannot be resumed, but its other files are untouched", id, err)
		}
		return nil, fmt.Errorf("no run %q in %s (see maple ls)", id, runsDir)
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
		sect, t = "settings", reflect.TypeFor[core.Settings]()
	case sect == "EvalSettings":
		sect, t = "eval", reflect.TypeFor[train.EvalSettings]()
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

func WriteJSONAtomic(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%w", err)
	}
	return writeFileAtomic(path, append(b, '\n'))
}

// ProgressPrefix begins the line a training (a baseline's, a search's
// final evaluation) writes into log.txt every tenth of its steps.
const ProgressPrefix = "training step "

// LastProgress returns the last progress line (ProgressPrefix) in the
// log of the run in dir, "" when it has none (yet) or no log.
func LastProgress(dir string) string {
	f, err := os.Open(filepath.Join(dir, LogFile))
	if err != nil {
		return ""
	}
	defer f.Close()
	const tail = 64 << 10 // the lines since the last progress line are few
	if st, err := f.Stat(); err == nil && st.Size() > tail {
		f.Seek(st.Size()-tail, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(string(b), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], ProgressPrefix) {
			return lines[i]
		}
	}
	return ""
}

// TrainStep is where a training stands, read from a progress line: its
// step of its steps, and for the stages some baselines train before the
// one they select on validation (mrm, jtt), the stage and the stages.
type TrainStep struct {
	Step   int `json:"step"`
	Steps  int `json:"steps"`
	Stage  int `json:"stage,omitempty"`  // 0 in the validated training
	Stages int `json:"stages,omitempty"` // 0 in the validated training
	// Check: the line is a validation check's, with its validation and
	// test worst-group accuracy.
	Check     bool    `json:"-"`
	ValWorst  float64 `json:"-"`
	TestWorst float64 `json:"-"`
}

// ParseProgress reads a progress line ("training step 200/501: val ..."
// or "training step 200/501, stage 1 of 3 (...)").
func ParseProgress(line string) (TrainStep, bool) {
	var st TrainStep
	rest, ok := strings.CutPrefix(line, ProgressPrefix)
	if !ok {
		return st, false
	}
	if n, _ := fmt.Sscanf(rest, "%d/%d", &st.Step, &st.Steps); n != 2 {
		return st, false
	}
	if _, after, ok := strings.Cut(rest, ", stage "); ok {
		if n, _ := fmt.Sscanf(after, "%d of %d", &st.Stage, &st.Stages); n != 2 {
			st.Stage, st.Stages = 0, 0
		}
	}
	if _, after, ok := strings.Cut(rest, ": val worst-group "); ok {
		n, _ := fmt.Sscanf(after, "%g  (test worst-group %g)", &st.ValWorst, &st.TestWorst)
		st.Check = n == 2
	}
	return st, true
}

// ReadProgress returns the progress lines of the run in dir's log.txt,
// read (ParseProgress), of its latest training: a baseline that runs
// again from the start after a stop begins a new one (its step goes
// back). Nil without a log.
func ReadProgress(dir string) []TrainStep {
	b, err := os.ReadFile(filepath.Join(dir, LogFile))
	if err != nil {
		return nil
	}
	var out []TrainStep
	for _, line := range strings.Split(string(b), "\n") {
		st, ok := ParseProgress(line)
		if !ok {
			continue
		}
		if n := len(out); n > 0 && (st.order() < out[n-1].order() || st.order() == out[n-1].order() && st.Step < out[n-1].Step) {
			out = out[:0] // started again
		}
		out = append(out, st)
	}
	return out
}

// order is the stage's place in its training: the earlier stages by
// number, the validated training after them.
func (st TrainStep) order() int {
	if st.Stages > 0 {
		return st.Stage
	}
	return math.MaxInt
}

// String is the step as the listings print it: "step 200/501", or
// "stage 1/3, 200/501" in a stage before the validated training.
func (st TrainStep) String() string {
	if st.Stages > 0 {
		return fmt.Sprintf("stage %d/%d, %d/%d", st.Stage, st.Stages, st.Step, st.Steps)
	}
	return fmt.Sprintf("step %d/%d", st.Step, st.Steps)
}

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
