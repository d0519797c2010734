package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/sweeps"
)

// RmOptions are the settings of `maple rm` and `maple archive`.
type RmOptions struct {
	F       *Factory
	Names   []string // run ids (names, prefixes, latest) or sweep names
	Yes     bool     // no question asked
	Archive bool     // move aside instead of deleting (maple archive)
	Restore bool     // maple archive --restore: move archived runs back
}

// NewCmdRm builds `maple rm`; runF replaces the run function in tests.
func NewCmdRm(f *Factory, runF func(*RmOptions) error) *cobra.Command {
	o := &RmOptions{F: f}
	c := &cobra.Command{
		Use:   "rm ID|SWEEP...",
		Short: "Delete runs, or every run of a sweep (asks first on a terminal; a running run is refused)",
		Long: `Delete runs, or every run of a sweep with its record and cell claims.

On a terminal maple rm lists what it will delete and asks; elsewhere it
needs --yes. A run that a process holds (running, or open in a
dashboard) is refused, and then nothing is deleted. Deleting a run that
is a cell of a sweep says so: maple table --sweep then loses its row.
maple archive moves runs aside instead, restorably.`,
		Example: `  maple rm 20261124-101500-01
  maple rm my-sweep --yes`,
		Args: needNames("a run id or a sweep name", "see maple ls"),
		RunE: rmRunE(o, runF),
	}
	c.Flags().BoolVarP(&o.Yes, "yes", "y", false, "delete without asking")
	return c
}

// NewCmdArchive builds `maple archive`; runF replaces the run function
// in tests.
func NewCmdArchive(f *Factory, runF func(*RmOptions) error) *cobra.Command {
	o := &RmOptions{F: f, Archive: true}
	c := &cobra.Command{
		Use:   "archive ID|SWEEP...",
		Short: "Move runs, or every run of a sweep, into the runs directory's archive (listed by maple ls --archived; --restore brings them back)",
		Long: `Move runs, or every run of a sweep with its record, into the archive
(RUNS/.archive): out of maple ls, the browser and maple table, kept on
disk, listed by maple ls --archived, and moved back by maple archive
--restore ID|SWEEP. On a terminal it lists what it will move and asks.
A run that a process holds is refused, and then nothing is moved.`,
		Example: `  maple archive old-sweep
  maple ls --archived
  maple archive --restore old-sweep`,
		Args: needNames("a run id or a sweep name", "see maple ls, and maple ls --archived for --restore"),
		RunE: rmRunE(o, runF),
	}
	c.Flags().BoolVarP(&o.Yes, "yes", "y", false, "move without asking")
	c.Flags().BoolVar(&o.Restore, "restore", false, "move archived runs (or an archived sweep's runs) back")
	return c
}

// rmRunE is the run function of maple rm and maple archive.
func rmRunE(o *RmOptions, runF func(*RmOptions) error) func(*cobra.Command, []string) error {
	return func(_ *cobra.Command, args []string) error {
		o.Names = args
		if runF != nil {
			return runF(o)
		}
		return rmRun(o)
	}
}

// target is one run that rm or archive acts on.
type target struct {
	dir   string
	cfg   *runs.Config // nil when run.json cannot be read
	sweep string       // the sweep named on the command line that brought it ("" for a run named directly)
}

// resolveTargets turns names into runs of base: a run's id, name or
// prefix, else a sweep's name (all its runs); named lists the sweeps
// named.
func resolveTargets(base runs.Store, names []string) ([]target, []string, error) {
	var out []target
	var named []string
	seen := map[string]bool{}
	add := func(t target) {
		if !seen[t.dir] {
			seen[t.dir] = true
			out = append(out, t)
		}
	}
	for _, name := range names {
		dir, ferr := base.Find(name)
		if ferr == nil {
			cfg, _ := runs.ReadConfig(dir)
			add(target{dir: dir, cfg: cfg})
			continue
		}
		infos, err := base.List()
		if err != nil {
			return nil, nil, err
		}
		n := 0
		for _, in := range infos {
			dir := base.RunDir(in.ID)
			cfg, err := runs.ReadConfig(dir)
			switch {
			case err == nil && cfg.Sweep == name:
				add(target{dir: dir, cfg: cfg, sweep: name})
				n++
			case err != nil && damagedNames(dir, name):
				// A damaged cell of the sweep goes with it (it was left
				// behind, a run of no sweep).
				add(target{dir: dir, sweep: name})
				n++
			}
		}
		rerr := errors.New("no record")
		if rec, err := base.SweepFile(name, ".json"); err == nil {
			_, rerr = os.Stat(rec)
		}
		if n == 0 && rerr != nil {
			if strings.Contains(ferr.Error(), "ambiguous") || strings.Contains(ferr.Error(), "are named") {
				return nil, nil, usageError{ferr} // a prefix of several runs: say which
			}
			return nil, nil, usageError{fmt.Errorf("no run or sweep named %q in %s (see maple ls)", name, base.Dir())}
		}
		if !slices.Contains(named, name) { // a sweep named twice is taken once
			named = append(named, name)
		}
	}
	return out, named, nil
}

func rmRun(o *RmOptions) error {
	f := o.F
	base := f.Store()
	verb, done := "delete", "deleted"
	switch {
	case o.Restore && !o.Archive:
		return usageError{errors.New("--restore goes with maple archive")}
	case o.Restore:
		base, verb, done = runs.Open(f.Store().ArchiveDir()), "restore", "restored" // the archive is a store of its own
	case o.Archive:
		verb, done = "archive", "archived"
	}
	if err := blankName(map[bool]string{true: "archive", false: "rm"}[o.Archive], o.Names); err != nil {
		return err
	}
	resolve := func() ([]target, []string, error) {
		targets, named, err := resolveTargets(base, o.Names)
		if err != nil && o.Restore {
			return nil, nil, usageError{fmt.Errorf("%w (maple ls --archived lists the archive)", errors.Unwrap(err))}
		}
		return targets, named, err
	}
	targets, named, err := resolve()
	if err != nil {
		return err
	}
	// A sweep is taken whole: its own lock, which every process of it
	// holds between cells too, is taken exclusively for the whole
	// operation, and its runs are listed again under the lock (a cell
	// may have started since).
	if len(named) > 0 {
		for _, s := range named {
			lock, err := sweeps.Exclusive(f.RunsDir, s)
			if err != nil {
				return fmt.Errorf("%w; nothing was %s", err, done)
			}
			if o.Archive {
				defer lock.Release()
			} else {
				defer lock.Remove() // a deleted sweep's lock goes with it
			}
		}
		if targets, named, err = resolve(); err != nil {
			return err
		}
	}
	// What a sweep's table loses: a cell deleted or archived alone.
	var notes []string
	for _, t := range targets {
		if t.cfg != nil && t.cfg.Sweep != "" && t.sweep == "" && !slices.Contains(named, t.cfg.Sweep) && !o.Restore {
			notes = append(notes, fmt.Sprintf("run %s is cell %s of sweep %s: maple table --sweep %s loses it (a rerun of the sweep runs it again)",
				filepath.Base(t.dir), t.cfg.Cell, t.cfg.Sweep, t.cfg.Sweep))
		}
	}
	// Nor when a sweep has Slurm tasks queued or running: they would run
	// its cells again.
	if !o.Restore {
		for _, s := range named {
			jobs, err := sweeps.QueuedJobs(f.RunsDir, s)
			if err != nil {
				jobsFile, _ := f.Store().SweepFile(s, ".jobs")
				return fmt.Errorf("sweep %s was submitted to Slurm, and whether tasks of it are still queued cannot be told (%v): when the cluster answers, try again; if it has forgotten the jobs, delete %s; nothing was %s", s, err, jobsFile, done)
			}
			if len(jobs) > 0 {
				return fmt.Errorf("sweep %s has Slurm tasks queued or running (job %s), which would run its cells again: cancel them first (scancel %s); nothing was %s",
					s, strings.Join(jobs, ", "), strings.Join(jobs, " "), done)
			}
		}
	}
	// Nothing is touched when any run is held, or is a cell of a sweep
	// that is running: check them all first.
	for _, t := range targets {
		if t.cfg != nil && t.cfg.Sweep != "" && !slices.Contains(named, t.cfg.Sweep) && sweeps.Running(f.RunsDir, t.cfg.Sweep) {
			return fmt.Errorf("run %s is cell %s of sweep %s, which is running: stop the sweep first (maple stop %s); nothing was %s",
				filepath.Base(t.dir), t.cfg.Cell, t.cfg.Sweep, t.cfg.Sweep, done)
		}
		if runs.Held(t.dir) {
			return fmt.Errorf("run %s is held by a running process (a search, a sweep or a dashboard): stop it first (maple stop %s); nothing was %s",
				filepath.Base(t.dir), filepath.Base(t.dir), done)
		}
	}
	fmt.Fprintf(f.Err, "%d run(s) to %s", len(targets), verb)
	if len(named) > 0 {
		fmt.Fprintf(f.Err, " and the record of sweep(s) %s", strings.Join(named, ", "))
	}
	fmt.Fprintln(f.Err, ":")
	for _, t := range targets {
		what := "(run.json unreadable)"
		if t.cfg != nil {
			what = t.cfg.Dataset.Name + " " + t.cfg.MethodName()
			if t.cfg.Name != "" {
				what += " " + t.cfg.Name
			}
		}
		fmt.Fprintf(f.Err, "  %s  %s\n", filepath.Base(t.dir), what)
	}
	for _, n := range notes {
		fmt.Fprintln(f.Err, "note:", n)
	}
	reversible := o.Archive // archive and restore can be undone
	switch {
	case o.Yes:
	case f.Terminal():
		fmt.Fprintf(f.Err, "%s them? [y/N] ", verb)
		line, _ := bufio.NewReader(f.In).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintf(f.Err, "nothing %s\n", done)
			return nil
		}
	case !reversible || len(notes) > 0:
		return usageError{fmt.Errorf("maple %s would %s %d run(s) and there is no terminal to ask on: give --yes", map[bool]string{true: "archive", false: "rm"}[o.Archive], verb, len(targets))}
	}
	// The journal says what is under way, so that a kill part way is
	// reported by the next command with the one that finishes it.
	ids := make([]string, len(targets))
	for i, t := range targets {
		ids[i] = filepath.Base(t.dir)
	}
	op, err := f.Store().StartOp(opVerb(o), ids, named)
	if err != nil {
		return fmt.Errorf("%w; nothing was %s", err, done)
	}
	defer op.Done() // an error part way is said now, not by the next command
	for _, t := range targets {
		switch {
		case o.Restore:
			err = f.Store().Restore(filepath.Base(t.dir))
		case o.Archive:
			err = f.Store().Archive(filepath.Base(t.dir))
		default:
			err = runs.Remove(t.dir)
		}
		if err != nil {
			return fmt.Errorf("run %s: %w (the runs listed before it were %s)", filepath.Base(t.dir), err, done)
		}
	}
	for _, s := range named {
		if err := moveSweepRecord(f.Store(), s, o); err != nil {
			return err
		}
	}
	op.Done()
	checkOps(f, false) // an earlier operation cut short that this one finished is forgotten
	fmt.Fprintf(f.Out, "%s %d run(s)\n", done, len(targets))
	// A run whose run.json cannot be read may have been a cell of a
	// sweep taken: say so, rather than leave it unsaid.
	if len(named) > 0 {
		infos, _ := base.List()
		for _, in := range infos {
			dir := base.RunDir(in.ID)
			if _, err := runs.ReadConfig(dir); err != nil && !slices.ContainsFunc(targets, func(t target) bool { return t.dir == dir }) && !namesOther(dir, named) {
				fmt.Fprintf(f.Err, "note: run %s's run.json cannot be read, so whether it was a cell of sweep %s cannot be told: see maple show %s, and %s it with %s\n",
					in.ID, strings.Join(named, ", "), in.ID, verb, opCommand(f.RunsDir, opVerb(o), []string{in.ID}))
			}
		}
	}
	return nil
}

// opVerb is the journal's verb of o: rm, archive or restore.
func opVerb(o *RmOptions) string {
	switch {
	case o.Restore:
		return "restore"
	case o.Archive:
		return "archive"
	}
	return "rm"
}

// opCommand is the command that does (or finishes) op on runsDir.
func opCommand(runsDir, verb string, names []string) string {
	args := []string{"maple", verb}
	if verb == "restore" {
		args = []string{"maple", "archive", "--restore"}
	}
	for _, n := range names {
		args = append(args, sweeps.ShellQuote(n))
	}
	return strings.Join(append(args, "--yes", "--runs-dir", sweeps.ShellQuote(runsDir)), " ")
}

// recoverStore finishes or reports what a maple rm or archive cut short
// (a kill -9) left in the runs directory: a run half deleted, hidden as
// RUNS/.removing-ID, is deleted (the person asked for it, and no listing
// shows it); an operation whose journal no process holds is reported
// with the command that finishes it, or forgotten when nothing it named
// is left. It runs before every command that reads the runs directory;
// reportOps false leaves the operations unsaid (maple rm and archive,
// which may be finishing one).
func recoverStore(f *Factory, reportOps bool) {
	if _, err := os.Stat(f.RunsDir); err != nil {
		return
	}
	ids, err := f.Store().FinishRemovals()
	for _, id := range ids {
		fmt.Fprintf(f.Err, "note: finished deleting run %s, whose maple rm was cut short\n", id)
	}
	if err != nil {
		fmt.Fprintln(f.Err, "note:", err)
	}
	checkOps(f, reportOps)
}

// checkOps forgets the operations cut short that have nothing left to
// do (every run and sweep record they named is gone from where they
// took it), and with report says the others, with the command that
// finishes each. It reads the journal's ids and records only, never
// every run of the directory.
func checkOps(f *Factory, report bool) {
	for _, op := range f.Store().UnfinishedOps() {
		base := f.Store()
		if op.Verb == "restore" {
			base = runs.Open(f.Store().ArchiveDir())
		}
		var left []string
		for _, s := range op.Sweeps {
			if rec, err := base.SweepFile(s, ".json"); err == nil {
				if _, err := os.Stat(rec); err == nil {
					left = append(left, s) // its record goes last: runs may be left too
				}
			}
		}
		for _, id := range op.Runs {
			if _, err := os.Stat(base.RunDir(id)); err == nil {
				left = append(left, id)
			}
		}
		switch {
		case len(left) == 0 && (len(op.Runs) > 0 || len(op.Sweeps) > 0):
			op.Drop() // cut short after its last run: nothing is left to do
		case !report:
		case len(left) == 0:
			fmt.Fprintf(f.Err, "note: a maple %s was cut short (process %d, started %s), and its journal %s cannot be read: see maple ls, then delete the journal\n",
				op.Verb, op.PID, op.Started.Local().Format(time.DateTime), op.Path())
		default:
			fmt.Fprintf(f.Err, "note: a maple %s of %s was cut short (process %d, started %s): finish it with %s\n",
				op.Verb, strings.Join(left, " "), op.PID, op.Started.Local().Format(time.DateTime), opCommand(f.RunsDir, op.Verb, left))
		}
	}
}

// damagedSweep returns the sweep that the run.json in dir, which cannot
// be read as a whole, still names: a damaged file (cut short, or with a
// field gone wrong) may still say "sweep": "NAME".
func damagedSweep(dir string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(dir, runs.ConfigFile))
	if err != nil {
		return "", false
	}
	m := sweepField.FindSubmatch(b)
	if m == nil {
		return "", false
	}
	return string(m[1]), true
}

// sweepField finds run.json's sweep field in a file that does not parse.
var sweepField = regexp.MustCompile(`"sweep"\s*:\s*"([^"\\]*)"`)

// claimOf matches what follows "NAME-" in a cell claim's file name.
var claimOf = regexp.MustCompile(`^[0-9a-f]{16}\.lock$`)

// slurmOut matches what follows "NAME-" in a Slurm task's output file
// (JOB_TASK.out, the script's --output).
var slurmOut = regexp.MustCompile(`^[0-9]+_[0-9]+\.out$`)

// moveSweepRecord deletes, archives or restores a sweep's record; a
// deleted sweep's cell claims go too.
func moveSweepRecord(store runs.Store, name string, o *RmOptions) error {
	if _, err := store.SweepFile(name, ".json"); err != nil {
		return nil // runs of a sweep so named, which has no record
	}
	live, kept := store.SweepsDir(), runs.Open(store.ArchiveDir()).SweepsDir() // the archive is a store of its own
	// files are the sweep's files in the sweeps directory dir: its record,
	// a Slurm submission's script, job ids and task outputs, and the stop
	// mark; those missing are skipped by their users.
	files := func(dir string) []string {
		var out []string
		for _, ext := range []string{".json", ".sbatch", ".stop", ".jobs"} {
			out = append(out, name+ext)
		}
		outs, _ := filepath.Glob(filepath.Join(dir, name+"-*.out"))
		for _, p := range outs {
			if slurmOut.MatchString(strings.TrimPrefix(filepath.Base(p), name+"-")) {
				out = append(out, filepath.Base(p))
			}
		}
		return out
	}
	move := func(from, to string) error {
		for _, b := range files(from) {
			src, dst := filepath.Join(from, b), filepath.Join(to, b)
			if _, err := os.Stat(src); err != nil {
				continue // a sweep without a record (its runs only), or without that file
			}
			if err := os.MkdirAll(to, runs.DirPerm); err != nil {
				return &runs.WriteError{Path: to, Err: err}
			}
			if err := os.Rename(src, dst); err != nil {
				return &runs.WriteError{Path: dst, Err: err}
			}
		}
		return nil
	}
	switch {
	case o.Restore:
		return move(kept, live)
	case o.Archive:
		return move(live, kept)
	}
	// Its cells' claims, NAME-HASH.lock (not another sweep's whose name
	// starts with NAME-): unheld once none of its runs is held.
	claims, _ := filepath.Glob(filepath.Join(store.ClaimsDir(), name+"-*.lock"))
	for _, c := range claims {
		if claimOf.MatchString(strings.TrimPrefix(filepath.Base(c), name+"-")) {
			os.Remove(c)
		}
	}
	for _, b := range files(live) {
		if err := os.Remove(filepath.Join(live, b)); err != nil && !os.IsNotExist(err) {
			return &runs.WriteError{Path: filepath.Join(live, b), Err: err}
		}
	}
	return nil
}

// damagedNames tells whether the damaged run.json in dir names sweep.
func damagedNames(dir, sweep string) bool {
	s, ok := damagedSweep(dir)
	return ok && s == sweep
}

// namesOther tells whether the damaged run.json in dir names a sweep
// other than those of sweeps.
func namesOther(dir string, sweeps []string) bool {
	s, ok := damagedSweep(dir)
	return ok && !slices.Contains(sweeps, s)
}
