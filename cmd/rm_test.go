package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maple-ood/maple/runs"
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
	os.MkdirAll(runs.SweepsDir(dir), 0o700)
	os.WriteFile(filepath.Join(runs.SweepsDir(dir), "sw.json"), []byte(`{"name":"sw"}`), 0o600)
	// A Slurm submission's files, and another sweep's task output.
	slurmFiles := []string{"sw.sbatch", "sw.stop", "sw-25_0.out", "sw-25_1.out"}
	for _, n := range append(slurmFiles, "sw-x-25_0.out") {
		os.WriteFile(filepath.Join(runs.SweepsDir(dir), n), nil, 0o600)
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
		r, err := runs.Open(dir, "20260101-000000-03")
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
	os.MkdirAll(runs.SweepsDir(dir), 0o700)
	os.WriteFile(filepath.Join(runs.SweepsDir(dir), "sl.json"), []byte(`{"name":"sl"}`), 0o600)
	os.WriteFile(filepath.Join(runs.SweepsDir(dir), "sl.jobs"), []byte("25\n"), 0o600)
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
		if _, err := os.Stat(filepath.Join(runs.SweepsDir(dir), n)); err == nil {
			t.Errorf("%s left", n)
		}
	}
}
