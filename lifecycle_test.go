package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	mcmd "github.com/maple-ood/maple/cmd"
	"github.com/maple-ood/maple/core"
	mruns "github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
)

// lifeArgs is a small search whose iterations last a fraction of a
// second (about 4 s in all with the pure-Go binary, so that signals sent
// 0.3-4 s after the start meet a live search), checkpointed every 3
// iterations.
var lifeArgs = []string{"run", "--outer-iters", "30", "--inner-steps", "200", "--eval-steps", "60", "--checkpoint-every", "3"}

// finish resumes the only run in runsDir until it is done and returns its
// weights.npy.
func finish(t *testing.T, bin, runsDir string) []byte {
	t.Helper()
	ents := runDirs(t, runsDir)
	if len(ents) != 1 {
		t.Fatalf("%d runs in %s", len(ents), runsDir)
	}
	dir := filepath.Join(runsDir, ents[0].Name())
	for range 3 {
		if mruns.Stat(dir).Status == core.StatusDone {
			break
		}
		if out, err := exec.Command(bin, "resume", ents[0].Name(), "--runs-dir", runsDir, "--headless").CombinedOutput(); err != nil {
			t.Fatalf("resume: %v\n%s", err, out)
		}
	}
	if st := mruns.Stat(dir).Status; st != core.StatusDone {
		t.Fatalf("run is %s after resuming", st)
	}
	w, err := os.ReadFile(filepath.Join(dir, mruns.WeightsNPY))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestLifecycle sends SIGTERM, SIGINT or SIGHUP at 20 random moments
// within the reference run's duration to the real binary, with the
// dashboard (under tmux) and headless: every
// process exits (none hangs; how long exits take is logged) and releases
// its run, and every run resumes to weights byte-identical to an
// uninterrupted run's.
func TestLifecycle(t *testing.T) {
	bin := buildMaple(t)
	tm := newTmux(t)
	ref := t.TempDir()
	start := time.Now()
	if out, err := exec.Command(bin, append(lifeArgs, "--headless", "--runs-dir", ref)...).CombinedOutput(); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	// The signals fall within the reference run's own duration, so that
	// most meet a live search on a fast machine as on a slow one (fixed
	// moments of 0.3-4 s missed most runs on a fast idle machine).
	span := time.Since(start)
	want := finish(t, bin, ref)
	rng := rand.New(rand.NewPCG(11, 0))
	signals := []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}
	type trial struct {
		i       int
		sig     syscall.Signal
		after   time.Duration
		tmux    bool
		runsDir string
	}
	var trials []trial
	for i := range 20 {
		trials = append(trials, trial{i: i, sig: signals[rng.IntN(3)], after: time.Duration((0.1 + 0.8*rng.Float64()) * float64(span)),
			tmux: i%2 == 0, runsDir: t.TempDir()})
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	interrupted := map[bool]int{} // by dashboard: trials whose signal stopped a live run
	var exits []time.Duration     // from each signal to its process's exit
	sem := make(chan struct{}, 2)
	for _, tr := range trials {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			name := fmt.Sprintf("trial %d (%v after %v, dashboard %v)", tr.i, tr.sig, tr.after, tr.tmux)
			args := append(append([]string{}, lifeArgs...), "--runs-dir", tr.runsDir)
			var pid int
			var cmd *exec.Cmd
			if tr.tmux {
				pid = tm.start(t, fmt.Sprintf("t%d", tr.i), bin+" "+strings.Join(args, " "))
			} else {
				cmd = exec.Command(bin, append(args, "--headless")...)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				if err := cmd.Start(); err != nil {
					t.Error(err)
					return
				}
				pid = cmd.Process.Pid
				go cmd.Wait()
			}
			time.Sleep(tr.after) // the signal's random moment, what the test is about: not a wait for a state
			syscall.Kill(pid, tr.sig)
			// A state, not a time: the process gone. The limit tells a
			// hang from a loaded machine (a second process busy on both
			// cores stretched an exit past 2 s); how long exits take is
			// logged, and a speed, not a pass.
			took, ok := waitGone(pid, exitHang)
			mu.Lock()
			exits = append(exits, took)
			mu.Unlock()
			if !ok {
				t.Errorf("%s: still running %v after the signal: hung", name, took)
				syscall.Kill(pid, syscall.SIGKILL)
				return
			}
			ents := runDirs(t, tr.runsDir)
			if len(ents) == 0 {
				return // stopped before its run existed: nothing to resume
			}
			rd := filepath.Join(tr.runsDir, ents[0].Name())
			if mruns.Held(rd) {
				t.Errorf("%s: the run's lock is still held", name)
			}
			if st := mruns.Stat(rd).Status; st != core.StatusDone {
				if st != core.StatusInterrupted {
					t.Errorf("%s: status %s after the signal, want interrupted", name, st)
				}
				mu.Lock()
				interrupted[tr.tmux]++
				mu.Unlock()
			}
			if got := finish(t, bin, tr.runsDir); !bytes.Equal(got, want) {
				t.Errorf("%s: resumed weights differ from the uninterrupted run's", name)
			}
		}()
	}
	wg.Wait()
	// The test means something only if most signals met a live search.
	if interrupted[true] < 5 || interrupted[false] < 5 {
		t.Errorf("signals interrupted %d dashboard and %d headless runs of 10 each; want most", interrupted[true], interrupted[false])
	}
	t.Logf("signals interrupted %d dashboard and %d headless runs of 10 each (signals within the reference run's %v)", interrupted[true], interrupted[false], span.Round(time.Millisecond))
	slices.Sort(exits)
	if len(exits) > 0 {
		load, _ := os.ReadFile("/proc/loadavg")
		t.Logf("exits after the signal: median %v, slowest %v (load average %s)", exits[len(exits)/2].Round(time.Millisecond), exits[len(exits)-1].Round(time.Millisecond), strings.Fields(string(load) + " ?")[0])
	}
}

// exitHang is how long after a signal a process that has not exited
// counts as hung: far beyond the exits the test logs, so that a loaded
// machine's slow ones do not fail it.
const exitHang = 30 * time.Second

// TestStoppedBeforeFirstCheckpoint: a run killed with SIGKILL, or
// stopped by two SIGINTs 5 ms apart, after its first metrics record but
// before its first checkpoint resumes from its beginning to weights
// byte-identical to an uninterrupted run's (it could not be resumed at
// all before).
func TestStoppedBeforeFirstCheckpoint(t *testing.T) {
	bin := buildMaple(t)
	args := append(append([]string{}, lifeArgs...), "--checkpoint-every", "1000", "--headless")
	ref := t.TempDir()
	if out, err := exec.Command(bin, append(args, "--runs-dir", ref)...).CombinedOutput(); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	want := finish(t, bin, ref)
	for _, how := range []string{"SIGKILL", "two SIGINTs 5 ms apart"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(bin, append(args, "--runs-dir", dir)...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			// Wait for the first metrics record.
			if !waitUntil(60*time.Second, func() bool {
				ents, _ := os.ReadDir(dir)
				var b []byte
				for _, e := range ents {
					if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
						b, _ = os.ReadFile(filepath.Join(dir, e.Name(), mruns.MetricsFile))
					}
				}
				return len(b) > 0
			}) {
				cmd.Process.Kill()
				t.Fatalf("no metrics record after 60 s:\n%s", out.String())
			}
			if how == "SIGKILL" {
				cmd.Process.Kill()
			} else {
				cmd.Process.Signal(syscall.SIGINT)
				time.Sleep(5 * time.Millisecond) // the second signal's moment, what the case is about
				cmd.Process.Signal(syscall.SIGINT)
			}
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				t.Fatal("the process did not end")
			}
			ents := runDirs(t, dir)
			if len(ents) != 1 {
				t.Fatalf("%d runs", len(ents))
			}
			rd := filepath.Join(dir, ents[0].Name())
			_, ckErr := os.Stat(filepath.Join(rd, mruns.CheckpointFile))
			if how == "SIGKILL" && ckErr == nil {
				t.Fatal("a checkpoint exists: the kill came too late to test anything")
			}
			if got := finish(t, bin, dir); !bytes.Equal(got, want) {
				t.Errorf("resumed weights differ from the uninterrupted run's")
			}
		})
	}
}

// TestNotATerminal: standard input from /dev/null (cron, systemd, CI,
// Slurm) is not a terminal: run and ls work without the dashboard.
func TestNotATerminal(t *testing.T) {
	bin := buildMaple(t)
	dir := t.TempDir()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	cmd := exec.Command(bin, append(lifeArgs, "--runs-dir", dir)...)
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, &stderr // </dev/null >/dev/null
	if err := cmd.Run(); err != nil {
		t.Fatalf("run </dev/null >/dev/null: %v\n%s", err, stderr.String())
	}
	out, err := exec.Command(bin, "ls", "--runs-dir", dir).Output()
	if err != nil || !strings.Contains(string(out), "done") {
		t.Errorf("ls: %v\n%s", err, out)
	}
}

// TestUnwatchedNaN: a NaN in a headless run ends it as failed with the
// command to continue; resume with a lower rate finishes it. A sweep cell
// that fails likewise does not hold up the sweep.
func TestUnwatchedNaN(t *testing.T) {
	bin := buildMaple(t)
	dir := t.TempDir()
	// At the largest rate, weight decay 10 multiplies the parameters by
	// -99 a step: they overflow to NaN; at 0.1 it is a stable decay.
	out, err := exec.Command(bin, "run", "--inner-lr", "10", "--weight-decay", "10", "--outer-iters", "4", "--inner-steps", "20", "--eval-steps", "30", "--runs-dir", dir).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != mcmd.ExitFailed || !strings.Contains(string(out), "--inner-lr 1 ") {
		t.Fatalf("NaN run: %v\n%s", err, out)
	}
	id := runDirs(t, dir)[0].Name()
	if st := mruns.Stat(filepath.Join(dir, id)).Status; st != core.StatusFailed {
		t.Errorf("status %s, want failed", st)
	}
	if out, err := exec.Command(bin, "resume", id, "--inner-lr", "0.1", "--runs-dir", dir).CombinedOutput(); err != nil {
		t.Fatalf("resume with a lower rate: %v\n%s", err, out)
	}
	if st := mruns.Stat(filepath.Join(dir, id)).Status; st != core.StatusDone {
		t.Errorf("status %s after the resume, want done", st)
	}

	sweepDir := t.TempDir()
	sw := exec.Command(bin, "sweep", "--name", "nan", "--methods", "erm,maple:rex", "--seeds", "1", "--inner-lr", "10", "--weight-decay", "10",
		"--outer-iters", "4", "--inner-steps", "20", "--eval-steps", "30", "--runs-dir", sweepDir)
	done := make(chan []byte, 1)
	go func() { b, _ := sw.CombinedOutput(); done <- b }()
	select {
	case b := <-done:
		if sw.ProcessState.ExitCode() != mcmd.ExitFailed || !strings.Contains(string(b), "failed") || !strings.Contains(string(b), "erm") {
			t.Errorf("sweep with a NaN cell: exit %d\n%s", sw.ProcessState.ExitCode(), b)
		}
	case <-time.After(60 * time.Second):
		sw.Process.Kill()
		t.Fatal("the sweep hangs on a NaN cell")
	}
}

// TestInterruptWithinIteration: SIGINT in the middle of a long outer
// iteration stops the process within 2 s with exit code 130, and the run
// stays resumable.
func TestInterruptWithinIteration(t *testing.T) {
	bin := buildMaple(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "run", "--outer-iters", "3", "--inner-steps", "1000000", "--headless", "--runs-dir", dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Its socket listens just before the engine runs its first iteration.
	waitGlob(t, filepath.Join(dir, "*", mruns.SocketFile), 60*time.Second, cmd)
	cmd.Process.Signal(syscall.SIGINT)
	t0 := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		t.Fatal("SIGINT did not interrupt the iteration")
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("exit took %v", d)
	}
	if code := cmd.ProcessState.ExitCode(); code != session.ExitInterrupted {
		t.Errorf("exit code %d, want 130\n%s", code, out.String())
	}
	id := runDirs(t, dir)[0].Name()
	if st := mruns.Stat(filepath.Join(dir, id)); st.Status != core.StatusInterrupted || !strings.Contains(out.String(), "maple resume "+id) {
		t.Errorf("status %s; output:\n%s", st.Status, out.String())
	}
	// Its weights are not final: export refuses them unless asked for.
	if b, err := exec.Command(bin, "export", id, "--runs-dir", dir).CombinedOutput(); err == nil || !strings.Contains(string(b), "--checkpoint") {
		t.Errorf("export of an interrupted run: %v\n%s", err, b)
	}
	if b, err := exec.Command(bin, "export", id, "--checkpoint", "--runs-dir", dir).CombinedOutput(); err != nil {
		t.Errorf("export --checkpoint: %v\n%s", err, b)
	} else if e, _ := os.ReadFile(filepath.Join(dir, id, "export.json")); !strings.Contains(string(e), "the run is interrupted") {
		t.Errorf("export.json does not say the run is interrupted:\n%s", e)
	}
}

// TestBadInputCreatesNothing: every refused setting names its flag, exits
// with the usage code 2, and leaves no run behind, with --detach too.
func TestBadInputCreatesNothing(t *testing.T) {
	bin := buildMaple(t)
	dir := filepath.Join(t.TempDir(), "runs")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--dataset", "nosuch"}, `--dataset "nosuch"`},
		{[]string{"--dataset", "nosuch", "--detach"}, `--dataset "nosuch"`},
		{[]string{"--keep", "NaN"}, "--keep NaN"},
		{[]string{"--beta", "NaN"}, "--beta NaN"},
		{[]string{"--eval-lr", "Inf"}, "--eval-lr +Inf"},
		{[]string{"--corr", "NaN,0.5,0.5"}, "--corr"},
		{[]string{"--train-size", "-5"}, "--train-size -5"},
		{[]string{"--eval-min-step", "-3"}, "--eval-min-step -3"},
		{[]string{"--train-size", "1000000000"}, "GiB"},
		{[]string{"--model", "mlp:65536,65536"}, "GiB"},
		{[]string{"--model", "cnn"}, "--model: model cnn:16,32 needs image inputs"},
		{[]string{"--eval-model", "cnn"}, "--eval-model: model cnn:16,32 needs image inputs"},
		{[]string{"--dataset", "cmnist", "--data-dir", t.TempDir(), "--offline"}, "is missing"},
		// A method's own settings: out of range, or given to a method that
		// does not read them.
		{[]string{"--method", "sparseirm", "--mask-keep", "1.5"}, "--mask-keep 1.5: want"},
		{[]string{"--method", "bayesirm", "--mask-lr", "-1"}, "--mask-lr -1: want"},
		{[]string{"--method", "lff", "--lff-q", "1.5"}, "--lff-q 1.5: want"},
		{[]string{"--method", "lff", "--mask-keep", "0.5"}, "--mask-keep: only sparseirm, sparseirm-rex, mrm read it, not lff"},
		{[]string{"--method", "maple", "--penalty", "5"}, "--penalty: only"},
		{[]string{"--method", "mrm", "--penalty-anneal", "5"}, "--penalty-anneal: only"},
	} {
		cmd := exec.Command(bin, append(append([]string{"run"}, c.args...), "--runs-dir", dir)...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != mcmd.ExitUsage || !strings.Contains(string(out), c.want) || strings.Contains(string(out), "runs:") {
			t.Errorf("maple run %v: %v\n%s\nwant exit 2 and %q", c.args, err, out, c.want)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a refused run left %s behind", dir)
	}
}

// TestDetachThenAttach: attach right after --detach returns finds the
// search (the parent waits until its socket listens).
func TestDetachThenAttach(t *testing.T) {
	bin := buildMaple(t)
	dir := t.TempDir()
	// A large synthetic set takes the child a moment to build before its
	// socket listens.
	out, err := exec.Command(bin, "run", "--train-size", "400000", "--outer-iters", "200", "--inner-steps", "20", "--detach", "--runs-dir", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(string(out))
	att := exec.Command(bin, "attach", id, "--lines", "--runs-dir", dir)
	stdout, _ := att.StdoutPipe()
	if err := att.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, _ := stdout.Read(buf)
	att.Process.Kill()
	att.Wait()
	if !strings.Contains(string(buf[:n]), "attached to "+id) {
		t.Errorf("attach right after detach: %q", buf[:n])
	}
	// Stop it: SIGTERM to the detached process, found by its lock.
	pid, _ := os.ReadFile(filepath.Join(dir, id, mruns.LockFile))
	p, _ := strconv.Atoi(string(pid))
	syscall.Kill(p, syscall.SIGTERM)
	if _, ok := waitGone(p, 5*time.Second); !ok {
		t.Error("the detached search did not stop on SIGTERM")
	}
}

// TestBaselineOnTerminal: a baseline on a terminal runs without the
// dashboard and ends with its result and exit code 0.
func TestBaselineOnTerminal(t *testing.T) {
	bin := buildMaple(t)
	tm := newTmux(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "exit")
	tm.open("b", bin+" run --method erm --eval-steps 50 --runs-dir "+filepath.Join(dir, "runs")+"; echo $? > "+marker+"; sleep 30")
	var b []byte
	if !waitUntil(60*time.Second, func() bool { var err error; b, err = os.ReadFile(marker); return err == nil }) {
		t.Fatalf("baseline did not end; screen:\n%s", tm.screen("b"))
	}
	if strings.TrimSpace(string(b)) != "0" {
		t.Errorf("exit %s; screen:\n%s", b, tm.screen("b"))
	}
	if s := tm.screen("b"); !strings.Contains(s, "selected on validation") {
		t.Errorf("no result on the screen:\n%s", s)
	}
}

// TestPortableRun: a run started with relative data paths records them
// absolute, so resume and export work from any directory.
func TestPortableRun(t *testing.T) {
	bin := buildMaple(t)
	work, runsDir := t.TempDir(), t.TempDir()
	var b strings.Builder
	b.WriteString("id,f1,f2,label,env,group,split\n")
	rng := rand.New(rand.NewPCG(3, 0))
	for i := range 300 {
		y := rng.IntN(2)
		split := []string{"train", "train", "train", "val", "test"}[i%5]
		fmt.Fprintf(&b, "%d,%g,%g,%d,%s,%d,%s\n", i, float64(y)+rng.NormFloat64(), rng.NormFloat64(), y, []string{"a", "b"}[i%2], y, split)
	}
	os.WriteFile(filepath.Join(work, "feat.csv"), []byte(b.String()), 0o600)
	cmd := exec.Command(bin, "run", "--dataset", "features", "--csv", "feat.csv", "--model", "linear", "--outer-iters", "3",
		"--inner-steps", "10", "--eval-steps", "20", "--headless", "--runs-dir", runsDir)
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	id := runDirs(t, runsDir)[0].Name()
	cfg, _ := os.ReadFile(filepath.Join(runsDir, id, "run.json"))
	if !strings.Contains(string(cfg), `"csv": "`+filepath.Join(work, "feat.csv")+`"`) {
		t.Errorf("run.json does not hold the absolute path:\n%s", cfg)
	}
	elsewhere := exec.Command(bin, "export", id, "--format", "npy", "--out", t.TempDir(), "--runs-dir", runsDir)
	elsewhere.Dir = os.TempDir()
	if out, err := elsewhere.CombinedOutput(); err != nil {
		t.Errorf("export from another directory: %v\n%s", err, out)
	}
}

// TestConcurrentSweeps: two identical sweeps started together, and a
// rerun while they run, leave exactly one run per cell, and the table
// counts n = the number of seeds.
func TestConcurrentSweeps(t *testing.T) {
	bin := buildMaple(t)
	dir := t.TempDir()
	args := []string{"sweep", "--name", "c", "--methods", "erm,maple:rex", "--seeds", "1,2", "--outer-iters", "6",
		"--inner-steps", "100", "--eval-steps", "30", "--runs-dir", dir}
	var wg sync.WaitGroup
	outs := make([]string, 3)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 2 {
				// The rerun, once the others have claimed a cell.
				if !waitUntil(60*time.Second, func() bool { m, _ := filepath.Glob(filepath.Join(dir, ".claims", "*")); return len(m) > 0 }) {
					t.Error("no sweep claimed a cell")
				}
			}
			b, _ := exec.Command(bin, args...).CombinedOutput()
			outs[i] = string(b)
		}()
	}
	wg.Wait()
	if n := len(runDirs(t, dir)); n != 4 {
		t.Errorf("%d runs for 4 cells\n%s", n, strings.Join(outs, "\n----\n"))
	}
	out, err := exec.Command(bin, "table", "--sweep", "c", "--format", "csv", "--runs-dir", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n")[1:] {
		if f := strings.Split(l, ","); len(f) < 5 || f[4] != "2" {
			t.Errorf("row %q: want n = 2 seeds", l)
		}
	}
	// A changed search setting makes new cells of the searches only (a
	// baseline runs no search); nothing is "done already" that is not.
	args[8] = "4" // --outer-iters
	b, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if n := len(runDirs(t, dir)); n != 6 || strings.Count(string(b), "done already") != 2 {
		t.Errorf("after changing --outer-iters: %d runs, want 6\n%s", n, b)
	}
	// A flag a sweep cannot honour is refused.
	if b, err := exec.Command(bin, "sweep", "--name", "c", "--seed", "5", "--runs-dir", dir).CombinedOutput(); err == nil || !strings.Contains(string(b), "--seeds") {
		t.Errorf("--seed on a sweep: %v\n%s", err, b)
	}
}

// TestReferenceRecipe: --recipe maple-reference freezes w (keep scores
// only), keeps 30% of the samples, evaluates every iterate, and reports
// the reference protocol's test-selected figure labelled as an oracle,
// beside the validation-selected result.
func TestReferenceRecipe(t *testing.T) {
	bin := buildMaple(t)
	dir := t.TempDir()
	if _, err := exec.Command(bin, "run", "--recipe", "maple-reference", "--objective", "rex", "--outer-iters", "4",
		"--inner-steps", "20", "--eval-steps", "20", "--headless", "--json", "--runs-dir", dir).Output(); err != nil {
		t.Fatal(err)
	}
	id := runDirs(t, dir)[0].Name()
	rd := filepath.Join(dir, id)
	cfg, _ := os.ReadFile(filepath.Join(rd, "run.json"))
	for _, want := range []string{`"weight_lr": 0`, `"keep": 0.3`, `"keep_lr": 1.5`, `"outer_on": "train"`, `"recipe": "maple-reference"`, `"eval_each_iter": true`} {
		if !strings.Contains(string(cfg), want) {
			t.Errorf("run.json lacks %s", want)
		}
	}
	sum, _ := os.ReadFile(filepath.Join(rd, "summary.json"))
	if !strings.Contains(string(sum), `"reference_protocol"`) {
		t.Errorf("summary.json has no reference protocol figure:\n%s", sum)
	}
	show := run(t, bin, "show", id, "--runs-dir", dir)
	if !strings.Contains(show, "oracle selection (reference protocol") {
		t.Errorf("show:\n%s", show)
	}
	w, _ := os.ReadFile(filepath.Join(rd, "weights.npy"))
	if n := bytes.Count(w[128:], []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}); n != (len(w)-128)/8 {
		t.Errorf("w is not frozen at 1: %d of %d ones", n, (len(w)-128)/8)
	}
	// Frozen weights with every sample kept learn nothing: refused,
	// naming the flags, before a run directory is made.
	before, _ := os.ReadDir(dir)
	if b, err := exec.Command(bin, "run", "--weight-lr", "0", "--keep", "1", "--keep0", "1", "--runs-dir", dir).CombinedOutput(); err == nil || !strings.Contains(string(b), "--weight-lr 0") || !strings.Contains(string(b), "--keep 1") {
		t.Errorf("--weight-lr 0 with --keep 1: %v %s", err, b)
	}
	if after, _ := os.ReadDir(dir); len(after) != len(before) {
		t.Errorf("a refused run made files: %d entries, then %d", len(before), len(after))
	}
}

// TestTmuxResumeSmallAndForm: resume on a terminal opens the dashboard
// (elapsed time continuing); a terminal below the minimum size says so and
// still shows the quit question; the browser's new-run form keeps every
// setting of the selected run (training size, data dir).
func TestTmuxResumeSmallAndForm(t *testing.T) {
	bin := buildMaple(t)
	dir := t.TempDir() // before the tmux server: cleanups run last-first, so tmux goes before dir
	tm := newTmux(t)
	// A run interrupted after a few iterations, with far more to go (a
	// fast build would otherwise finish it before the dashboard is quit).
	c := exec.Command(bin, "run", "--train-size", "600", "--outer-iters", "100000", "--inner-steps", "100", "--headless", "--runs-dir", dir)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitGlob(t, filepath.Join(dir, "*", mruns.CheckpointFile), 60*time.Second, c) // a few iterations done
	c.Process.Signal(syscall.SIGINT)
	c.Wait()
	id := runDirs(t, dir)[0].Name()

	t.Run("resume opens the dashboard", func(t *testing.T) {
		tm.open("res", bin+" resume "+id+" --runs-dir "+dir+"; sleep 30")
		s := tm.waitScreen(t, "res", "maple "+id)
		if !strings.Contains(s, "lr: weight") {
			t.Errorf("no dashboard:\n%s", s)
		}
		tm.keys("res", "q")
		tm.waitScreen(t, "res", "Stop it and leave?")
		tm.keys("res", "y")
		waitUntil(20*time.Second, func() bool { return !mruns.Held(filepath.Join(dir, id)) })
		if st := mruns.Stat(filepath.Join(dir, id)).Status; st != core.StatusStopped {
			t.Errorf("status %s after q y", st)
		}
	})

	t.Run("a small terminal says so and keeps the quit question", func(t *testing.T) {
		small := t.TempDir()
		tm.openSized("small", 30, 8, bin+" run --outer-iters 100000 --runs-dir "+small+"; sleep 30")
		tm.waitScreen(t, "small", "terminal too small")
		tm.keys("small", "q")
		tm.waitScreen(t, "small", "Stop it and leave?")
		tm.keys("small", "y")
		if !waitUntil(20*time.Second, func() bool {
			ents := runDirs(t, small)
			return len(ents) == 1 && !mruns.Held(filepath.Join(small, ents[0].Name()))
		}) {
			t.Fatal("the search did not stop after y")
		}
	})

	t.Run("the new-run form keeps the selected run's settings", func(t *testing.T) {
		tm.open("br", bin+" --runs-dir "+dir+"; sleep 30")
		tm.waitScreen(t, "br", id)
		tm.keys("br", "n")
		s := tm.waitScreen(t, "br", "new run")
		if !strings.Contains(s, "train-size   600") {
			t.Errorf("the form lost --train-size:\n%s", s)
		}
		tm.keys("br", "Enter")
		tm.waitScreen(t, "br", "lr: weight") // the new run's dashboard
		tm.keys("br", "q")
		tm.waitScreen(t, "br", "Stop it and leave?")
		tm.keys("br", "y")
		waitUntil(20*time.Second, func() bool { return len(runDirs(t, dir)) >= 2 })
		ents := runDirs(t, dir)
		if len(ents) != 2 {
			t.Fatalf("%d runs", len(ents))
		}
		// The stopped search writes its last records before it lets go of
		// its run directory; wait for that, or the test's cleanup races it.
		waitUntil(20*time.Second, func() bool { return !mruns.Held(filepath.Join(dir, ents[1].Name())) })
		if mruns.Held(filepath.Join(dir, ents[1].Name())) {
			t.Fatal("the new run's search did not stop after y")
		}
		cfg, _ := os.ReadFile(filepath.Join(dir, ents[1].Name(), "run.json"))
		if !strings.Contains(string(cfg), `"train_size": 600`) {
			t.Errorf("the new run lost --train-size:\n%s", cfg)
		}
	})
}
