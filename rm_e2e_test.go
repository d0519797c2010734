package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRmRunningSweepLoop: maple rm of a running sweep, tried 100 times
// while it goes from cell to cell, is refused every time and deletes
// nothing (one try in twelve was accepted between two cells: the sweep's
// runs and record went while it went on, and it reused a deleted run's
// id).
func TestRmRunningSweepLoop(t *testing.T) {
	bin := buildMaple(t)
	dir := t.TempDir()
	var seeds []string
	for i := 1; i <= 400; i++ {
		seeds = append(seeds, strconv.Itoa(i))
	}
	var log bytes.Buffer
	sweep := exec.Command(bin, "sweep", "--name", "live", "--datasets", "synthetic", "--methods", "erm", "--seeds", strings.Join(seeds, ","),
		"--model", "mlp:16", "--eval-steps", "40", "--runs-dir", dir)
	sweep.Stdout, sweep.Stderr = &log, &log
	if err := sweep.Start(); err != nil {
		t.Fatal(err)
	}
	defer sweep.Process.Kill()
	waitGlob(t, filepath.Join(dir, "*", "run.json"), 60*time.Second, sweep)
	accepted := 0
	for try := range 100 {
		out, err := exec.Command(bin, "rm", "live", "--yes", "--runs-dir", dir).CombinedOutput()
		var ee *exec.ExitError
		switch {
		case err == nil:
			accepted++
			t.Errorf("try %d accepted:\n%s", try, out)
		case !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "running"):
			t.Errorf("try %d: %v, want exit 1 saying the sweep runs\n%s", try, err, out)
		}
		if !alive(sweep.Process.Pid) {
			t.Fatalf("the sweep ended after %d tries; it should outlast 100\n%s", try+1, log.String())
		}
	}
	sweep.Process.Signal(syscall.SIGTERM)
	sweep.Wait()
	started := strings.Count(log.String(), " started (")
	if n := len(runDirs(t, dir)); accepted > 0 || n != started {
		t.Errorf("%d of 100 tries accepted; %d runs for %d cells started\n%s", accepted, n, started, log.String())
	}
	// Once the sweep has ended, rm takes it.
	if out, err := exec.Command(bin, "rm", "live", "--yes", "--runs-dir", dir).CombinedOutput(); err != nil {
		t.Errorf("rm of the ended sweep: %v\n%s", err, out)
	}
}

// TestKilledRmFinished: a maple rm killed (-9) while it deletes a large
// run leaves RUNS/.removing-ID, which the next command finishes deleting
// and says so (three kills left 2.4 GB hidden for good).
func TestKilledRmFinished(t *testing.T) {
	bin := buildMaple(t)
	dir := t.TempDir()
	const id = "20260101-000000-01"
	run := filepath.Join(dir, id)
	if err := os.MkdirAll(filepath.Join(run, "many"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(run, "run.json"), []byte(`{"id":"`+id+`","dataset":{"name":"synthetic"},"method":"erm"}`), 0o600)
	for i := range 40000 { // enough files that their deletion takes a while
		if err := os.WriteFile(filepath.Join(run, "many", strconv.Itoa(i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rm := exec.Command(bin, "rm", id, "--yes", "--runs-dir", dir)
	if err := rm.Start(); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(dir, ".removing-"+id)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if _, err := os.Stat(gone); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	rm.Process.Kill()
	rm.Wait()
	if _, err := os.Stat(gone); err != nil {
		t.Skipf("the kill did not land during the deletion (%v): nothing to finish", err)
	}
	out, err := exec.Command(bin, "ls", "--runs-dir", dir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "finished deleting run "+id) {
		t.Errorf("ls after the kill: %v\n%s", err, out)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("%s is still there after the next command: %v", gone, err)
	}
}

// TestSignalWhileReading: maple data and maple run end within 2 s of
// SIGTERM or SIGINT while they read a file that does not end (a FIFO
// whose writer stalls; maple data read a wide CSV on and ignored
// SIGTERM), and maple run creates nothing.
func TestSignalWhileReading(t *testing.T) {
	bin := buildMaple(t)
	for _, tc := range []struct {
		name string
		args []string
		sig  syscall.Signal
	}{
		{"data, SIGTERM", []string{"data", "features"}, syscall.SIGTERM},
		{"data, SIGINT", []string{"data", "features"}, syscall.SIGINT},
		{"run, SIGTERM", []string{"run", "--dataset", "features"}, syscall.SIGTERM},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "stalled.csv")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no FIFO here: %v", err)
			}
			runsDir := filepath.Join(dir, "runs")
			cmd := exec.Command(bin, append(tc.args, "--csv", fifo, "--runs-dir", runsDir)...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until maple opens it
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			w.WriteString("label,split,f0\n0,train,1\n") // and then nothing more
			time.Sleep(500 * time.Millisecond)
			cmd.Process.Signal(tc.sig)
			if el, ok := waitGone(cmd.Process.Pid, 2*time.Second); !ok {
				t.Fatalf("still running %v after %v\n%s", el, tc.sig, out.String())
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Errorf("exit %v, want 130\n%s", err, out.String())
			}
			if ents, _ := os.ReadDir(runsDir); len(ents) > 0 {
				t.Errorf("the runs directory holds %d entries", len(ents))
			}
		})
	}
}
