package sweeps

import (
	"context"
	"errors"
	"fmt"
	"github.com/maple-ood/maple/runs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/maple-ood/maple/core"
)

// SweepRecord is <runs-dir>/.sweeps/<name>.json: the cells a sweep has
// been asked for, by config hash, so that its status can be told without
// its command line.
type SweepRecord struct {
	Name  string       `json:"name"`
	Cells []CellRecord `json:"cells"`
	// Format is the record's format (SweepFormat, written by Record; 0
	// when absent, the oldest).
	Format int `json:"format,omitempty"`
}

// CellRecord is one recorded cell.
type CellRecord struct {
	Hash   string      `json:"hash"`
	Label  string      `json:"label"`
	Config runs.Config `json:"config"`
}

// Record adds the sweep's cells to its record: a rerun of other seeds,
// datasets or methods adds its cells beside the known ones; a cell whose
// label is recorded with another configuration (a changed flag, or a
// default changed between builds) replaces it, so that the sweep's table
// does not report the old configuration as missing.
func (s *Sweep) Record() error {
	if err := os.MkdirAll(s.store().SweepsDir(), runs.DirPerm); err != nil {
		return err
	}
	rec, err := ReadSweep(s.Dir, s.Name)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if rec == nil {
		rec = &SweepRecord{Name: s.Name}
	}
	// This grid's cells by label: a recorded cell of the same label with
	// another configuration (a changed flag, or a default changed between
	// builds) is superseded, every such entry of it, and the grid's cell
	// takes the first one's place; its old run stays in the runs dir.
	grid := map[string]CellRecord{}
	for _, c := range s.Cells {
		grid[c.Label] = CellRecord{Hash: c.Config.Hash(false), Label: c.Label, Config: c.Config}
	}
	var cells []CellRecord
	placed := map[string]bool{} // hashes in cells
	for _, c := range rec.Cells {
		if g, ok := grid[c.Label]; ok {
			c = g
		}
		if !placed[c.Hash] {
			placed[c.Hash] = true
			cells = append(cells, c)
		}
	}
	for _, c := range s.Cells {
		if g := grid[c.Label]; !placed[g.Hash] {
			placed[g.Hash] = true
			cells = append(cells, g)
		}
	}
	rec.Cells, rec.Format = cells, SweepFormat
	for i := range rec.Cells {
		rec.Cells[i].Config.Format = runs.ConfigFormat
	}
	path, err := s.store().SweepFile(s.Name, ".json")
	if err != nil {
		return err
	}
	return runs.WriteJSONAtomic(path, rec)
}

// ReadSweep reads the record of sweep name.
func ReadSweep(runsDir, name string) (*SweepRecord, error) {
	path, err := runs.Open(runsDir).SweepFile(name, ".json")
	if err != nil {
		return nil, fmt.Errorf("%w (%w)", err, os.ErrNotExist) // no such sweep
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := decodeSweep(path, b)
	var newer *runs.NewerFormatError
	if errors.As(err, &newer) {
		return nil, err
	}
	if err != nil {
		return nil, &DamagedSweepError{Name: name, Path: path, Err: err}
	}
	return r, nil
}

// DamagedSweepError is a sweep record that cannot be read. Its message
// names the file and how to go on: the record is rebuilt by rerunning
// the sweep's command, which finds its runs again by their settings.
type DamagedSweepError struct {
	Name, Path string
	Err        error
}

func (e *DamagedSweepError) Error() string {
	return fmt.Sprintf("%s, the record of sweep %s, is damaged (%v); move it aside (mv %s %s.damaged) and rerun the sweep's command: it records its cells again, and its finished runs are kept, not run again",
		e.Path, e.Name, e.Err, e.Path, e.Path)
}

func (e *DamagedSweepError) Unwrap() error { return e.Err }

// NoSweepError says there is no sweep of that name in the runs
// directory (no record).
type NoSweepError struct{ Name, Dir string }

func (e *NoSweepError) Error() string {
	return fmt.Sprintf("no sweep %q in %s (see maple ls)", e.Name, e.Dir)
}

// CellState is one cell of `maple sweep --status`.
type CellState struct {
	Label  string      `json:"label"`
	Hash   string      `json:"hash"`
	RunID  string      `json:"run_id,omitempty"`
	State  string      `json:"state"` // done, running, waiting, failed, stopped, interrupted
	Info   *runs.Info  `json:"info,omitempty"`
	Status core.Status `json:"-"`
}

// SweepStatus tells each recorded cell of sweep name: done, running (its
// run is held by a process), waiting (no run yet), or the status of its
// unfinished run (failed, stopped, interrupted).
func SweepStatus(runsDir, name string) ([]CellState, error) {
	rec, err := ReadSweep(runsDir, name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &NoSweepError{Name: name, Dir: runsDir}
		}
		return nil, err
	}
	var out []CellState
	for _, c := range rec.Cells {
		cs := CellState{Label: c.Label, Hash: c.Hash, State: "waiting"}
		if id, err := FindCell(runsDir, name, c.Hash); err == nil && id != "" {
			in := runs.Stat(runs.Open(runsDir).RunDir(id))
			cs.RunID, cs.Info, cs.Status = id, &in, in.Status
			cs.State = in.Status.String()
			if in.Status.Live() {
				cs.State = "running"
			}
		}
		out = append(out, cs)
	}
	return out, nil
}

// Missing says, for a table of sweep name, which of its recorded cells
// have no result in it and why (running, not started, stopped, failed),
// one line per cell; cells is how many the sweep has. A sweep without a
// record has no lines; a damaged record is err.
func Missing(runsDir, name string) (lines []string, cells int, err error) {
	states, err := SweepStatus(runsDir, name)
	var none *NoSweepError
	if errors.As(err, &none) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	for _, c := range states {
		var why string
		switch {
		case c.State == "done":
			continue
		case c.State == "waiting":
			why = "not started (rerun the sweep to run it)"
		case c.State == "running":
			why = fmt.Sprintf("running (run %s, in this or another process); maple table --sweep %s once it ends", c.RunID, name)
		case c.Status == core.StatusFailed:
			why = fmt.Sprintf("failed (run %s; see maple show %s)", c.RunID, c.RunID)
		case c.Info != nil && slices.Contains(c.Info.Tags, EarlyStoppedTag):
			why = fmt.Sprintf("early-stopped by successive halving at iteration %d (run %s; maple resume %s continues it)", c.Info.Iter, c.RunID, c.RunID)
		case c.Info != nil && c.Info.Status == core.StatusUnknown:
			why = fmt.Sprintf("its %s is damaged (run %s; maple show %s says how to write it again)", runs.SummaryFile, c.RunID, c.RunID)
		case c.Info != nil && c.Info.Total > 0:
			why = fmt.Sprintf("%s at iteration %d (run %s); rerun the sweep to resume it", c.State, c.Info.Iter, c.RunID)
		default:
			why = fmt.Sprintf("%s (run %s); rerun the sweep to train it again", c.State, c.RunID)
		}
		lines = append(lines, LabelText(c.Label)+": "+why)
	}
	return lines, len(states), nil
}

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || r == ',' || r == '=' || r == '+' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// SlurmScript is the batch script of a sweep as one Slurm job array of
// tasks tasks: each task runs the sweep command (args, without the
// submission flags), which claims cells until none is left; on SIGTERM
// (preemption, scontrol requeue) the task checkpoints its cell and the
// requeued task resumes it. extra are more #SBATCH options.
func SlurmScript(name, runsDir, exe string, args []string, tasks int, extra []string) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	fmt.Fprintf(&b, "#SBATCH --job-name=maple-%s\n", name)
	fmt.Fprintf(&b, "#SBATCH --array=0-%d\n", tasks-1)
	b.WriteString("#SBATCH --requeue\n")
	b.WriteString("#SBATCH --open-mode=append\n") // a requeued task's output follows its first attempt's
	b.WriteString("#SBATCH --ntasks=1\n")
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(runs.Open(runsDir).SweepsDir(), name+"-%A_%a.out"))
	for _, e := range extra {
		if e = strings.TrimSpace(e); e != "" {
			fmt.Fprintf(&b, "#SBATCH %s\n", strings.TrimPrefix(e, "#SBATCH "))
		}
	}
	q := []string{ShellQuote(exe)}
	for _, a := range args {
		q = append(q, ShellQuote(a))
	}
	fmt.Fprintf(&b, "exec %s\n", strings.Join(q, " "))
	return b.String()
}

// SubmitSlurm writes the script of a sweep beside its record and submits
// it with sbatch; it returns the job id.
func SubmitSlurm(runsDir, name, script string) (string, string, error) {
	if err := os.MkdirAll(runs.Open(runsDir).SweepsDir(), runs.DirPerm); err != nil {
		return "", "", err
	}
	path, err := runs.Open(runsDir).SweepFile(name, ".sbatch")
	if err != nil {
		return "", "", err
	}
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		return "", "", err
	}
	sbatch, err := exec.LookPath("sbatch")
	if err != nil {
		return "", path, fmt.Errorf("--slurm needs sbatch on the PATH (Slurm's client); the script is in %s", path)
	}
	out, err := exec.Command(sbatch, "--parsable", path).CombinedOutput()
	if err != nil {
		return "", path, fmt.Errorf("sbatch %s: %v: %s", path, err, strings.TrimSpace(string(out)))
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	// The job ids a sweep was submitted as, for QueuedJobs.
	if jobs, err := runs.Open(runsDir).SweepFile(name, ".jobs"); err == nil {
		if f, err := os.OpenFile(jobs, os.O_APPEND|os.O_CREATE|os.O_WRONLY, runs.FilePerm); err == nil {
			fmt.Fprintln(f, id)
			f.Close()
		}
	}
	return id, path, nil
}

// QueuedJobs returns the Slurm jobs sweep name was submitted as that
// still have tasks queued or running, as squeue lists them: such tasks
// run the sweep's cells again when they start. None when the sweep was
// never submitted or squeue is not on the PATH (nothing to ask).
func QueuedJobs(runsDir, name string) ([]string, error) {
	path, err := runs.Open(runsDir).SweepFile(name, ".jobs")
	if err != nil {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil
	}
	ids := strings.Fields(string(b))
	squeue, err := exec.LookPath("squeue")
	if len(ids) == 0 || err != nil {
		return nil, nil
	}
	var live []string
	for _, id := range ids {
		if slices.Contains(live, id) {
			continue
		}
		// One at a time: squeue refuses a list holding a job it has
		// forgotten (an error of its own, not one of asking). Jobs it
		// still lists as ended (for MinJobAge) are left out by state.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := exec.CommandContext(ctx, squeue, "-h", "-o", "%A", "-j", id,
			"-t", "PENDING,RUNNING,COMPLETING,CONFIGURING,SUSPENDED,REQUEUED,REQUEUE_HOLD,RESIZING,SIGNALING,STAGE_OUT,STOPPED").Output()
		timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
		cancel()
		switch {
		case timedOut:
			return live, fmt.Errorf("squeue did not answer within 20 s about job %s", id)
		case err == nil && slices.Contains(strings.Fields(string(out)), id):
			live = append(live, id)
		}
	}
	return live, nil
}

// SubmissionArgs returns a sweep command line without the flags that
// submit or print it (they take no value or one, as listed).
func SubmissionArgs(args []string, drop map[string]bool) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "--") {
			if takesValue, ok := drop[name]; ok {
				if takesValue && !hasValue {
					i++
				}
				continue
			}
		}
		out = append(out, a)
	}
	return out
}
