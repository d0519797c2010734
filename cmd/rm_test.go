package cmd

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/sweeps"
)

// fakeRun writes a run directory with a run.json of sweep (and cell).
func fakeRun(t *testing.T, dir, id, sweep string) {
	t.Helper()
	cfg := runs.DefaultConfig("synthetic")
	cfg.ID, cfg.Sweep = id, sweep
	if sweep != "" {
		cfg.Cell = "synthetic|0|linear|erm|1"
	}
	if err := os.MkdirAll(filepath.Join(dir, id), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := runs.WriteJSONAtomic(filepath.Join(dir, id, runs.ConfigFile), cfg); err != nil {
		t.Fatal(err)
	}
}

func TestRmAndArchive(t *testing.T) {
	dir := t.TempDir()
	fakeRun(t, dir, "20260101-000000-01", "")
	fakeRun(t, dir, "20260101-000000-02", "sw")
	fakeRun(t, dir, "20260101-000000-03", "sw")
	os.MkdirAll(runs.Open(dir).SweepsDir(), 0o700)
	os.WriteFile(filepath.Join(runs.Open(dir).SweepsDir(), "sw.json"), []byte(`{"name":"sw"}`), 0o600)
	// A Slurm submission's files, and another sweep's task output.
	slurmFiles := []string{"sw.sbatch", "sw.stop", "sw-25_0.out", "sw-25_1.out"}
	for _, n := range append(slurmFiles, "sw-x-25_0.out") {
		os.WriteFile(filepath.Join(runs.Open(dir).SweepsDir(), n), nil, 0o600)
	}
	os.MkdirAll(filepath.Join(dir, ".claims"), 0o700)
	for _, c := range []string{"sw-0123456789abcdef.lock", "sw-x-0123456789abcdef.lock"} {
		os.WriteFile(filepath.Join(dir, ".claims", c), nil, 0o600)
	}
	newF := func(terminal bool, in string) (*Factory, *bytes.Buffer, *bytes.Buffer) {
		out, errb := new(bytes.Buffer), new(bytes.Buffer)
		return &Factory{In: strings.NewReader(in), Out: out, Err: errb, RunsDir: dir, Terminal: func() bool { return terminal }}, out, errb
	}
	exists := func(p ...string) bool {
		_, err := os.Stat(filepath.Join(append([]string{dir}, p...)...))
		return err == nil
	}

	t.Run("a name that climbs out of the runs directory deletes nothing there", func(t *testing.T) {
		// maple rm ../../victim --yes deleted victim.json two levels up.
		victim := filepath.Join(filepath.Dir(dir), "victim.json")
		os.WriteFile(victim, []byte(`{"hello":1}`), 0o600)
		for _, verb := range []bool{false, true} { // rm, archive
			f, _, _ := newF(false, "")
			// .sweeps/../../victim.json is the runs directory's parent's.
			err := rmRun(&RmOptions{F: f, Names: []string{"../../victim"}, Yes: true, Archive: verb})
			if ExitCode(f, err) != ExitUsage {
				t.Errorf("archive %v: error %v, want a usage error", verb, err)
			}
			if _, err := os.Stat(victim); err != nil {
				t.Fatalf("archive %v: %s is gone", verb, victim)
			}
		}
	})
	t.Run("rm without a terminal needs --yes", func(t *testing.T) {
		f, _, _ := newF(false, "")
		err := rmRun(&RmOptions{F: f, Names: []string{"20260101-000000-01"}})
		if err == nil || !strings.Contains(err.Error(), "give --yes") || ExitCode(f, err) != ExitUsage {
			t.Fatalf("error %v, want a usage error asking for --yes", err)
		}
		if !exists("20260101-000000-01") {
			t.Fatal("the run was deleted without --yes")
		}
	})
	t.Run("no on a terminal deletes nothing", func(t *testing.T) {
		f, _, errb := newF(true, "n\n")
		if err := rmRun(&RmOptions{F: f, Names: []string{"20260101-000000-01"}}); err != nil {
			t.Fatal(err)
		}
		if !exists("20260101-000000-01") || !strings.Contains(errb.String(), "nothing deleted") {
			t.Fatalf("answered n: run exists %v; said %q", exists("20260101-000000-01"), errb.String())
		}
	})
	t.Run("a sweep's cell alone says what its table loses", func(t *testing.T) {
		f, _, errb := newF(true, "n\n")
		if err := rmRun(&RmOptions{F: f, Names: []string{"20260101-000000-02"}}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(errb.String(), "is cell synthetic|0|linear|erm|1 of sweep sw: maple table --sweep sw loses it") {
			t.Fatalf("no note of the sweep's table: %q", errb.String())
		}
	})
	t.Run("a held run is refused and nothing is deleted", func(t *testing.T) {
		r, err := runs.Open(dir).Open("20260101-000000-03")
		if err != nil {
			t.Fatal(err)
		}
		f, _, _ := newF(false, "")
		err = rmRun(&RmOptions{F: f, Names: []string{"sw"}, Yes: true})
		r.Close()
		if err == nil || !strings.Contains(err.Error(), "held by a running process") {
			t.Fatalf("error %v, want a refusal naming the held run", err)
		}
		if !exists("20260101-000000-02") || !exists("20260101-000000-03") {
			t.Fatal("a run of the sweep was deleted although another was held")
		}
	})
	t.Run("archive and restore a sweep", func(t *testing.T) {
		f, _, _ := newF(false, "")
		if err := rmRun(&RmOptions{F: f, Names: []string{"sw"}, Archive: true}); err != nil {
			t.Fatal(err)
		}
		if exists("20260101-000000-02") || !exists(".archive", "20260101-000000-03") || !exists(".archive", ".sweeps", "sw.json") || exists(".sweeps", "sw.json") {
			t.Fatal("archive: the sweep's runs and record were not moved into .archive")
		}
		for _, n := range slurmFiles { // they stayed behind
			if exists(".sweeps", n) || !exists(".archive", ".sweeps", n) {
				t.Errorf("archive: %s not moved into .archive", n)
			}
		}
		f, out, _ := newF(false, "")
		if err := lsRun(t.Context(), f, &LsOptions{F: f, Sort: "started", Archived: true}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "20260101-000000-02") || strings.Contains(out.String(), "20260101-000000-01") {
			t.Fatalf("ls --archived: %q, want the archived runs only", out.String())
		}
		f, _, _ = newF(false, "")
		if err := rmRun(&RmOptions{F: f, Names: []string{"sw"}, Archive: true, Restore: true}); err != nil {
			t.Fatal(err)
		}
		if !exists("20260101-000000-02") || !exists(".sweeps", "sw.json") || exists(".archive", "20260101-000000-02") {
			t.Fatal("restore: the runs and record are not back")
		}
		for _, n := range slurmFiles {
			if !exists(".sweeps", n) {
				t.Errorf("restore: %s not back", n)
			}
		}
	})
	t.Run("rm a sweep: its runs, record and claims, not another sweep's claims", func(t *testing.T) {
		f, out, _ := newF(false, "")
		if err := rmRun(&RmOptions{F: f, Names: []string{"sw"}, Yes: true}); err != nil {
			t.Fatal(err)
		}
		if exists("20260101-000000-02") || exists("20260101-000000-03") || exists(".sweeps", "sw.json") || exists(".claims", "sw-0123456789abcdef.lock") {
			t.Fatal("the sweep's runs, record or claim survived")
		}
		if !exists(".claims", "sw-x-0123456789abcdef.lock") || !exists("20260101-000000-01") {
			t.Fatal("another sweep's claim, or a run of no sweep, was deleted")
		}
		for _, n := range slurmFiles { // they stayed behind
			if exists(".sweeps", n) {
				t.Errorf("rm: %s left", n)
			}
		}
		if !exists(".sweeps", "sw-x-25_0.out") {
			t.Error("rm: another sweep's task output was deleted")
		}
		if !strings.Contains(out.String(), "deleted 2 run(s)") {
			t.Fatalf("said %q", out.String())
		}
	})
	t.Run("unknown name", func(t *testing.T) {
		f, _, _ := newF(false, "")
		err := rmRun(&RmOptions{F: f, Names: []string{"nosuch"}, Yes: true})
		if err == nil || ExitCode(f, err) != ExitUsage || !strings.Contains(err.Error(), `no run or sweep named "nosuch"`) {
			t.Fatalf("error %v, want a usage error naming it", err)
		}
	})
}

// TestRmRefusesQueuedSlurmSweep: a sweep whose Slurm array still has
// tasks queued or running is not deleted or archived (a queued task ran
// its cells again after rm, and wrote its record back); once squeue no
// longer lists the job, it is.
func TestRmRefusesQueuedSlurmSweep(t *testing.T) {
	dir := t.TempDir()
	fakeRun(t, dir, "20260101-000000-02", "sl")
	os.MkdirAll(runs.Open(dir).SweepsDir(), 0o700)
	os.WriteFile(filepath.Join(runs.Open(dir).SweepsDir(), "sl.json"), []byte(`{"name":"sl"}`), 0o600)
	os.WriteFile(filepath.Join(runs.Open(dir).SweepsDir(), "sl.jobs"), []byte("25\n"), 0o600)
	bin := t.TempDir()
	queued := filepath.Join(bin, "queued")
	// A squeue that lists job 25 while the file queued exists.
	os.WriteFile(filepath.Join(bin, "squeue"), []byte("#!/bin/sh\n[ -e "+queued+" ] && echo 25\nexit 0\n"), 0o755)
	os.WriteFile(queued, nil, 0o600)
	t.Setenv("PATH", bin+":/bin:/usr/bin")
	for _, archive := range []bool{false, true} {
		f := &Factory{In: strings.NewReader(""), Out: new(bytes.Buffer), Err: new(bytes.Buffer), RunsDir: dir, Terminal: func() bool { return false }}
		err := rmRun(&RmOptions{F: f, Names: []string{"sl"}, Yes: true, Archive: archive})
		if err == nil || !strings.Contains(err.Error(), "scancel 25") {
			t.Errorf("archive %v: %v, want a refusal naming scancel 25", archive, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "20260101-000000-02")); err != nil {
			t.Fatalf("archive %v: the run went", archive)
		}
	}
	os.Remove(queued) // the array has ended
	f := &Factory{In: strings.NewReader(""), Out: new(bytes.Buffer), Err: new(bytes.Buffer), RunsDir: dir, Terminal: func() bool { return false }}
	if err := rmRun(&RmOptions{F: f, Names: []string{"sl"}, Yes: true}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"sl.json", "sl.jobs"} {
		if _, err := os.Stat(filepath.Join(runs.Open(dir).SweepsDir(), n)); err == nil {
			t.Errorf("%s left", n)
		}
	}
}

// runRoot runs maple args on runs directory dir and returns its exit
// code, stdout and stderr.
func runRoot(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	f := &Factory{In: strings.NewReader(""), Out: &out, Err: &errb, RunsDir: dir, Terminal: func() bool { return false }}
	root := NewCmdRoot(f)
	root.SetArgs(append(args, "--runs-dir", dir))
	code := ExitCode(f, root.Execute())
	return code, out.String(), errb.String()
}

// TestRmBlankName: an empty or blank name is a usage error that touches
// nothing (maple rm "" --yes deleted every run of no sweep, and archive
// "" and archive --restore "" moved them).
func TestRmBlankName(t *testing.T) {
	dir := t.TempDir()
	fakeRun(t, dir, "20260101-000000-01", "")
	fakeRun(t, dir, "20260101-000000-02", "")
	os.MkdirAll(runs.Open(dir).ArchiveDir(), 0o700)
	fakeRun(t, runs.Open(dir).ArchiveDir(), "20260101-000000-03", "")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"rm of an empty name", []string{"rm", "", "--yes"}, "is empty"},
		{"rm of a blank name", []string{"rm", "  ", "--yes"}, "is empty"},
		{"rm of a run and an empty name", []string{"rm", "20260101-000000-01", "", "--yes"}, "name 2 of 2 is empty"},
		{"archive of an empty name", []string{"archive", "", "--yes"}, "is empty"},
		{"restore of an empty name", []string{"archive", "--restore", "", "--yes"}, "is empty"},
		{"rm of nothing", []string{"rm"}, "maple rm needs a run id or a sweep name"},
		{"archive of nothing", []string{"archive"}, "maple archive needs a run id or a sweep name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runRoot(t, dir, tc.args...)
			if code != ExitUsage || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errs, ExitUsage, tc.want)
			}
			for _, p := range []string{filepath.Join(dir, "20260101-000000-01"), filepath.Join(dir, "20260101-000000-02"), filepath.Join(runs.Open(dir).ArchiveDir(), "20260101-000000-03")} {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s was touched: %v", p, err)
				}
			}
		})
	}
	// rmRun itself, as another caller would reach it.
	f := &Factory{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard, RunsDir: dir, Terminal: func() bool { return false }}
	if err := rmRun(&RmOptions{F: f, Names: []string{""}, Yes: true}); ExitCode(f, err) != ExitUsage {
		t.Errorf("rmRun of an empty name: %v, want a usage error", err)
	}
}

// TestRmRefusesRunningSweep: a sweep holds its own lock between cells as
// well as in them, and maple rm, archive and archive --restore refuse it,
// and any of its cells, while it does; nothing is touched (maple rm of a
// sweep between two cells deleted its runs and record as it went on).
func TestRmRefusesRunningSweep(t *testing.T) {
	dir := t.TempDir()
	fakeRun(t, dir, "20260101-000000-01", "sw")
	fakeRun(t, dir, "20260101-000000-02", "sw")
	os.MkdirAll(runs.Open(dir).SweepsDir(), 0o700)
	os.WriteFile(filepath.Join(runs.Open(dir).SweepsDir(), "sw.json"), []byte(`{"name":"sw"}`), 0o600)
	os.MkdirAll(runs.Open(dir).ArchiveDir(), 0o700)
	fakeRun(t, runs.Open(dir).ArchiveDir(), "20260101-000000-03", "sw")
	hold, err := sweeps.Hold(dir, "sw") // a sweep process between cells
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"rm of the sweep", []string{"rm", "sw", "--yes"}},
		{"archive of the sweep", []string{"archive", "sw", "--yes"}},
		{"restore of the sweep", []string{"archive", "--restore", "sw", "--yes"}},
		{"rm of a cell", []string{"rm", "20260101-000000-01", "--yes"}},
		{"archive of a cell", []string{"archive", "20260101-000000-02", "--yes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runRoot(t, dir, tc.args...)
			if code != ExitFailed || !strings.Contains(errs, "running") || !strings.Contains(errs, "maple stop sw") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d saying the sweep is running", code, out, errs, ExitFailed)
			}
			for _, p := range []string{filepath.Join(dir, "20260101-000000-01"), filepath.Join(dir, "20260101-000000-02"),
				filepath.Join(runs.Open(dir).SweepsDir(), "sw.json"), filepath.Join(runs.Open(dir).ArchiveDir(), "20260101-000000-03")} {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s was touched: %v", p, err)
				}
			}
		})
	}
	// A second process of the sweep shares the lock; rm under way keeps
	// the sweep from starting.
	second, err := sweeps.Hold(dir, "sw")
	if err != nil {
		t.Fatalf("a second process of the sweep: %v", err)
	}
	second.Release()
	hold.Release()
	ex, err := sweeps.Exclusive(dir, "sw")
	if err != nil {
		t.Fatalf("no process holds the sweep: %v", err)
	}
	if _, err := sweeps.Hold(dir, "sw"); !errors.Is(err, sweeps.ErrSweepBusy) {
		t.Errorf("a sweep started during its rm: %v, want ErrSweepBusy", err)
	}
	ex.Release()
	if code, out, errs := runRoot(t, dir, "rm", "sw", "--yes"); code != 0 || !strings.Contains(out, "deleted 2 run(s)") {
		t.Fatalf("rm of the ended sweep: exit %d, %q %q", code, out, errs)
	}
}

// TestCutShortRemoval: what a maple rm or archive killed part way left
// is finished or reported by the next command that opens the runs
// directory, with the command that finishes it (a kill -9 during rm left
// RUNS/.removing-ID, hidden, for good).
func TestCutShortRemoval(t *testing.T) {
	dir := t.TempDir()
	// rm of a run, killed between its rename and the end of its deletion.
	gone := filepath.Join(dir, ".removing-20260101-000000-09")
	os.MkdirAll(filepath.Join(gone, "big"), 0o700)
	os.WriteFile(filepath.Join(gone, "big", "checkpoint.bin"), make([]byte, 1<<20), 0o600)
	code, _, errs := runRoot(t, dir, "ls")
	if code != 0 || !strings.Contains(errs, "finished deleting run 20260101-000000-09") {
		t.Errorf("ls after a cut rm: exit %d, stderr %q; want a note that the deletion was finished", code, errs)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", gone, err)
	}

	// archive of a sweep, killed after one of its two runs: its journal
	// is there, held by no process.
	fakeRun(t, dir, "20260101-000000-02", "sw")
	os.MkdirAll(runs.Open(dir).SweepsDir(), 0o700)
	os.WriteFile(filepath.Join(runs.Open(dir).SweepsDir(), "sw.json"), []byte(`{"name":"sw"}`), 0o600)
	os.MkdirAll(runs.Open(dir).ArchiveDir(), 0o700)
	fakeRun(t, runs.Open(dir).ArchiveDir(), "20260101-000000-01", "sw")
	op, err := runs.Open(dir).StartOp("archive", []string{"20260101-000000-01", "20260101-000000-02"}, []string{"sw"})
	if err != nil {
		t.Fatal(err)
	}
	// While the archive is under way nothing is said.
	if _, _, errs := runRoot(t, dir, "ls"); strings.Contains(errs, "cut short") {
		t.Errorf("an archive under way was reported as cut short: %q", errs)
	}
	op.Abandon() // the process killed
	want := "finish it with maple archive sw 20260101-000000-02 --yes --runs-dir " + dir
	if _, _, errs := runRoot(t, dir, "ls"); !strings.Contains(errs, "maple archive of sw 20260101-000000-02 was cut short") || !strings.Contains(errs, want) {
		t.Errorf("ls after a cut archive: stderr %q, want it to say %q", errs, want)
	}
	if code, out, errs := runRoot(t, dir, "archive", "sw", "20260101-000000-02", "--yes"); code != 0 || !strings.Contains(out, "archived 1 run(s)") {
		t.Fatalf("the finishing archive: exit %d, %q %q", code, out, errs)
	}
	if _, _, errs := runRoot(t, dir, "ls"); strings.Contains(errs, "cut short") {
		t.Errorf("the archive was finished, and ls still says: %q", errs)
	}
	if ops := runs.Open(dir).UnfinishedOps(); len(ops) != 0 {
		t.Errorf("%d journals left", len(ops))
	}

	// An rm killed after its last run: nothing is left to do, and the
	// journal goes unsaid.
	op, err = runs.Open(dir).StartOp("rm", []string{"20260101-000000-77"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	op.Abandon() // the process killed
	if _, _, errs := runRoot(t, dir, "ls"); strings.Contains(errs, "cut short") {
		t.Errorf("an rm with nothing left was reported: %q", errs)
	}
	if ops := runs.Open(dir).UnfinishedOps(); len(ops) != 0 {
		t.Errorf("%d journals left", len(ops))
	}

	// maple rm latest, cut short: the advice names the run it was
	// deleting, never "latest", which now names another run.
	fakeRun(t, dir, "20260101-000000-05", "")
	fakeRun(t, dir, "20260101-000000-06", "")
	op, err = runs.Open(dir).StartOp("rm", []string{"20260101-000000-06"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	op.Abandon()
	if _, _, errs := runRoot(t, dir, "ls"); !strings.Contains(errs, "finish it with maple rm 20260101-000000-06 --yes") || strings.Contains(errs, "latest") {
		t.Errorf("ls after a cut rm latest: %q, want the run's id", errs)
	}
}

// TestRmSweepNamedTwice: a sweep named twice is taken once (its second
// lock made it look running).
func TestRmSweepNamedTwice(t *testing.T) {
	dir := t.TempDir()
	fakeRun(t, dir, "20260101-000000-01", "sw")
	if code, out, errs := runRoot(t, dir, "rm", "sw", "sw", "--yes"); code != 0 || !strings.Contains(out, "deleted 1 run(s)") {
		t.Errorf("exit %d, %q %q", code, out, errs)
	}
}

// TestRmSweepTakesDamagedCell: a cell whose run.json is damaged goes
// with its sweep when the file still names the sweep, and is named in a
// note when it does not (rm of a sweep left a damaged cell behind,
// unsaid, as a run of no sweep).
func TestRmSweepTakesDamagedCell(t *testing.T) {
	dir := t.TempDir()
	fakeRun(t, dir, "20260101-000000-01", "sw")
	fakeRun(t, dir, "20260101-000000-02", "sw")
	fakeRun(t, dir, "20260101-000000-03", "")
	// -02's run.json cut short after its sweep; -04's unreadable.
	p := filepath.Join(dir, "20260101-000000-02", runs.ConfigFile)
	b, _ := os.ReadFile(p)
	i := bytes.Index(b, []byte(`"sweep"`))
	if i < 0 {
		t.Fatalf("no sweep field in %s", b)
	}
	os.WriteFile(p, b[:i+20], 0o600)
	os.MkdirAll(filepath.Join(dir, "20260101-000000-04"), 0o700)
	os.WriteFile(filepath.Join(dir, "20260101-000000-04", runs.ConfigFile), []byte("\x00\x00garbage"), 0o600)
	code, out, errs := runRoot(t, dir, "rm", "sw", "--yes")
	if code != 0 || !strings.Contains(out, "deleted 2 run(s)") {
		t.Fatalf("exit %d, %q %q; want 2 runs deleted", code, out, errs)
	}
	for id, want := range map[string]bool{"20260101-000000-01": false, "20260101-000000-02": false, "20260101-000000-03": true, "20260101-000000-04": true} {
		if _, err := os.Stat(filepath.Join(dir, id)); (err == nil) != want {
			t.Errorf("run %s there: %v, want %v", id, err == nil, want)
		}
	}
	if !strings.Contains(errs, "run 20260101-000000-04's run.json cannot be read") || !strings.Contains(errs, "maple rm 20260101-000000-04 --yes") {
		t.Errorf("stderr %q: want a note on the unreadable run and the command that deletes it", errs)
	}
}

// TestDataWarns: maple data says the load's warnings, as maple run does
// (features of 1e7 described without a word, then a run diverged).
func TestDataWarns(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "big.csv")
	os.WriteFile(csv, []byte("label,split,f1\n0,train,1\n1,train,1e7\n0,val,2\n1,val,3\n0,test,1\n1,test,2\n"), 0o600)
	code, _, errs := runRoot(t, dir, "data", "features", "--csv", csv)
	if code != 0 || !strings.Contains(errs, `warning: `+csv+`: column "f1" ranges over [1, 1e+07]`) {
		t.Errorf("exit %d, stderr %q; want the warning", code, errs)
	}
}

// TestRmAmbiguousPrefix: a prefix of several runs is said to be one,
// naming them (rm and archive said there was no such run or sweep).
func TestRmAmbiguousPrefix(t *testing.T) {
	dir := t.TempDir()
	fakeRun(t, dir, "20260101-000000-01", "")
	fakeRun(t, dir, "20260101-000000-02", "")
	for _, verb := range []string{"rm", "archive"} {
		code, _, errs := runRoot(t, dir, verb, "2026", "--yes")
		if code != ExitUsage || !strings.Contains(errs, `run id "2026" is ambiguous`) {
			t.Errorf("%s 2026: exit %d, %q", verb, code, errs)
		}
	}
}
