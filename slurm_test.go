package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// slurmConf is the single-node configuration of ../shared/slurm/README.md.
const slurmConf = `ClusterName=ci
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
StateSaveLocation=DIR/state
SlurmdSpoolDir=DIR/spool
SlurmctldPidFile=DIR/slurmctld.pid
SlurmdPidFile=DIR/slurmd.pid
SlurmctldLogFile=DIR/log/slurmctld.log
SlurmdLogFile=DIR/log/slurmd.log
NodeName=localhost CPUs=2 RealMemory=2000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
`

// startSlurm starts munged (unless it runs), slurmctld and slurmd on a
// configuration of its own, and stops what it started when the test
// ends. It skips the test where Slurm is not installed or this is not
// root.
func startSlurm(t *testing.T) []string {
	t.Helper()
	for _, b := range []string{"slurmctld", "slurmd", "sbatch", "scontrol", "munged"} {
		if _, err := exec.LookPath(b); err != nil {
			if _, err := os.Stat("/usr/sbin/" + b); err != nil {
				t.Skipf("Slurm is not installed (no %s): .ci/run installs slurm-wlm and munge", b)
			}
		}
	}
	if os.Getuid() != 0 {
		t.Skip("the Slurm test starts its own daemons, which needs root")
	}
	dir, err := os.MkdirTemp("", "maple-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"state", "spool", "log"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	conf := filepath.Join(dir, "slurm.conf")
	os.WriteFile(conf, []byte(strings.ReplaceAll(slurmConf, "DIR", dir)), 0o644)
	env := append(os.Environ(), "SLURM_CONF="+conf)
	sh := func(name string, args ...string) error {
		c := exec.Command(name, args...)
		c.Env = env
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("%s %v: %v\n%s", name, args, err, out)
		}
		return nil
	}
	if _, err := os.Stat("/run/munge/munge.socket.2"); err != nil {
		os.MkdirAll("/run/munge", 0o755)
		exec.Command("chown", "munge:munge", "/run/munge").Run()
		if err := sh("runuser", "-u", "munge", "--", "/usr/sbin/munged"); err != nil {
			t.Skipf("cannot start munged: %v", err)
		}
		t.Cleanup(func() {
			if b, err := os.ReadFile("/run/munge/munged.pid"); err == nil {
				exec.Command("kill", strings.TrimSpace(string(b))).Run()
			}
		})
	}
	if err := sh("/usr/sbin/slurmctld", "-f", conf); err != nil {
		t.Fatal(err)
	}
	if err := sh("/usr/sbin/slurmd", "-f", conf, "-N", "localhost"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, p := range []string{"slurmd.pid", "slurmctld.pid"} {
			if b, err := os.ReadFile(filepath.Join(dir, p)); err == nil {
				exec.Command("kill", strings.TrimSpace(string(b))).Run()
			}
		}
		time.Sleep(500 * time.Millisecond)
		os.RemoveAll(dir)
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c := exec.Command("sinfo", "-h", "-o", "%T")
		c.Env = env
		out, _ := c.CombinedOutput()
		if strings.Contains(string(out), "idle") {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "log", "slurmctld.log"))
			t.Fatalf("the Slurm node did not come up: %s\n%s", out, log)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return env
}

type cellState struct {
	Label string `json:"label"`
	Hash  string `json:"hash"`
	RunID string `json:"run_id"`
	State string `json:"state"`
	Info  *struct {
		Iter int `json:"iter"`
	} `json:"info"`
}

// TestSlurmSweep submits a small grid as a Slurm job array on a real
// single-node Slurm, requeues the whole array while a search runs (its
// task checkpoints on SIGTERM and the requeued task resumes the same
// run), and compares the table and the weights with a local sweep's.
func TestSlurmSweep(t *testing.T) {
	bin := buildMaple(t)
	env := startSlurm(t)
	slurmDir := t.TempDir()
	grid := []string{"sweep", "--name", "sl", "--methods", "erm,maple:rex", "--seeds", "1,2", "--outer-iters", "20",
		"--inner-steps", "300", "--eval-steps", "60", "--checkpoint-every", "2"}
	cmd := exec.Command(bin, append(grid, "--slurm", "--runs-dir", slurmDir)...)
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	job := strings.TrimSpace(string(out))
	// The job is recorded beside the sweep, which rm asks squeue about.
	if b, err := os.ReadFile(filepath.Join(slurmDir, ".sweeps", "sl.jobs")); err != nil || strings.TrimSpace(string(b)) != job {
		t.Errorf("sl.jobs holds %q (%v), want the job %s", b, err, job)
	}
	rm := exec.Command(bin, "rm", "sl", "--yes", "--runs-dir", slurmDir)
	rm.Env = env
	if b, err := rm.CombinedOutput(); err == nil || !strings.Contains(string(b), "scancel "+job) {
		t.Errorf("rm of the queued sweep: %v\n%s", err, b)
	}
	status := func() []cellState {
		c := exec.Command(bin, "sweep", "--name", "sl", "--status", "--json", "--runs-dir", slurmDir)
		b, err := c.Output()
		if err != nil {
			t.Fatalf("status: %v", err)
		}
		var cells []cellState
		json.Unmarshal(b, &cells)
		return cells
	}
	// Requeue the array while a search is in the middle of its run.
	deadline := time.Now().Add(3 * time.Minute)
	requeued := false
	for !requeued {
		for _, c := range status() {
			if c.State == "running" && strings.Contains(c.Label, "maple") && c.Info != nil && c.Info.Iter >= 4 {
				// The running tasks of the array (pending ones cannot be
				// requeued).
				sq := exec.Command("squeue", "-h", "-j", job, "-t", "R", "-o", "%i")
				sq.Env = env
				ids, _ := sq.Output()
				for _, id := range strings.Fields(string(ids)) {
					rq := exec.Command("scontrol", "requeue", id)
					rq.Env = env
					if b, err := rq.CombinedOutput(); err != nil {
						t.Fatalf("scontrol requeue %s: %v\n%s", id, err, b)
					}
				}
				requeued = true
				t.Logf("requeued tasks %s of job %s while %s ran at iteration %d", strings.Fields(string(ids)), job, c.Label, c.Info.Iter)
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no search reached iteration 4: %+v", status())
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The requeued tasks finish every cell (Slurm restarts them after its
	// requeue delay, about two minutes here).
	deadline = time.Now().Add(8 * time.Minute)
	for {
		cells := status()
		done := 0
		for _, c := range cells {
			if c.State == "done" {
				done++
			}
		}
		if done == 4 && len(cells) == 4 {
			break
		}
		if time.Now().After(deadline) {
			logs, _ := filepath.Glob(filepath.Join(slurmDir, ".sweeps", "*.out"))
			var b strings.Builder
			for _, l := range logs {
				c, _ := os.ReadFile(l)
				fmt.Fprintf(&b, "== %s\n%s\n", l, c)
			}
			t.Fatalf("cells not done: %+v\n%s", cells, b.String())
		}
		time.Sleep(time.Second)
	}
	events := ""
	for _, c := range status() {
		b, _ := os.ReadFile(filepath.Join(slurmDir, c.RunID, "events.jsonl"))
		events += string(b)
	}
	if !strings.Contains(events, `"kind":"resume"`) {
		t.Error("no cell was resumed after the requeue")
	}
	localDir := t.TempDir()
	if b, err := exec.Command(bin, append(grid, "--runs-dir", localDir)...).CombinedOutput(); err != nil {
		t.Fatalf("local sweep: %v\n%s", err, b)
	}
	table := func(dir string) string {
		b, err := exec.Command(bin, "table", "--sweep", "sl", "--format", "csv", "--runs-dir", dir).Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if a, b := table(slurmDir), table(localDir); a != b || strings.Count(a, "\n") != 3 {
		t.Errorf("Slurm table differs from the local one:\n%s\nlocal:\n%s", a, b)
	}
	// Cell by cell, the weights are the same bytes.
	local := map[string]string{}
	for _, c := range func() []cellState {
		b, _ := exec.Command(bin, "sweep", "--name", "sl", "--status", "--json", "--runs-dir", localDir).Output()
		var cells []cellState
		json.Unmarshal(b, &cells)
		return cells
	}() {
		local[c.Hash] = c.RunID
	}
	for _, c := range status() {
		if !strings.Contains(c.Label, "maple") {
			continue
		}
		a, _ := os.ReadFile(filepath.Join(slurmDir, c.RunID, "u.npy"))
		b, _ := os.ReadFile(filepath.Join(localDir, local[c.Hash], "u.npy"))
		if len(a) == 0 || string(a) != string(b) {
			t.Errorf("%s: u.npy differs between Slurm and local", c.Label)
		}
	}
}
