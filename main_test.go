package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	mcmd "github.com/maple-ood/maple/cmd"
	"github.com/maple-ood/maple/core"
	mruns "github.com/maple-ood/maple/runs"
)

// buildTags are this test binary's backend build tags (see tags_*_test.go).
var buildTags []string

// buildMaple builds the real binary for end-to-end tests, pure Go: their
// workloads are sized so that signals and key presses land mid-search at
// the pure-Go speed (TestBackendEndToEnd runs the tagged backends). The
// same pure-Go binary whatever this test binary's tags, so a test that
// runs it is skipped in the tagged passes: the pure-Go pass runs it.
func buildMaple(t *testing.T) string {
	t.Helper()
	if len(buildTags) > 0 {
		t.Skipf("runs the pure-Go binary, the same in every pass: run in the pure-Go pass, not again with -tags %s", strings.Join(buildTags, ","))
	}
	return buildWith(t, "")
}

// buildBackend builds the binary with this test binary's build tags.
func buildBackend(t *testing.T) string {
	t.Helper()
	return buildWith(t, strings.Join(buildTags, ","))
}

func buildWith(t *testing.T, tags string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	if b := os.Getenv("MAPLE_TEST_BIN"); b != "" {
		return b // a given binary (to show that a test fails on an older one)
	}
	bin := filepath.Join(t.TempDir(), "maple")
	if out, err := exec.Command("go", "build", "-tags", tags, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// TestBackendEndToEnd builds the binary with this test's backend tags
// (none, openblas, openblas+onednn: one CI pass each) and checks that
// `maple version` names the backend, a search runs to the end on it, and
// --precision bf16 runs where the build offers it and is refused, naming
// the flag and creating nothing, where it does not.
func TestBackendEndToEnd(t *testing.T) {
	bin := buildBackend(t)
	ver := run(t, bin, "version")
	want := map[string]string{"openblas": "OpenBLAS", "onednn": "oneDNN"}
	for _, tag := range buildTags {
		if !strings.Contains(ver, want[tag]) {
			t.Errorf("built with -tags %v, but version says:\n%s", buildTags, ver)
		}
	}
	runsDir := t.TempDir()
	args := []string{"run", "--dataset", "synthetic", "--method", "maple", "--model", "mlp:16", "--outer-iters", "3",
		"--inner-steps", "10", "--eval-steps", "20", "--headless", "--runs-dir", runsDir}
	out := run(t, bin, args...)
	if !strings.Contains(out, "test acc") {
		t.Errorf("the search printed no result:\n%s", out)
	}
	cmd := exec.Command(bin, append(args, "--precision", "bf16")...)
	bf, err := cmd.CombinedOutput()
	if strings.Contains(ver, "--precision bf16: available") {
		if err != nil || !strings.Contains(string(bf), "test acc") {
			t.Errorf("bf16 search: %v\n%s", err, bf)
		}
		if n := len(runDirs(t, runsDir)); n != 2 {
			t.Errorf("%d runs after an f32 and a bf16 search, want 2", n)
		}
		return
	}
	if err == nil || !strings.Contains(string(bf), "--precision bf16") {
		t.Errorf("bf16 without support: %v\n%s", err, bf)
	}
	if n := len(runDirs(t, runsDir)); n != 1 {
		t.Errorf("a refused bf16 run left %d runs, want the 1 from before", n)
	}
}

// TestOpenMPSleeps checks, in the onednn build, that libgomp itself (its
// OMP_DISPLAY_ENV report, printed when it loads) runs with a spin count of
// 0 when the environment does not name a wait policy (maple re-executes
// itself with OMP_WAIT_POLICY=PASSIVE), and keeps spinning when the user
// asks for ACTIVE. The last report is the process that ran the command.
func TestOpenMPSleeps(t *testing.T) {
	if !slices.Contains(buildTags, "onednn") {
		t.Skip("only the onednn build loads OpenMP")
	}
	bin := buildBackend(t)
	var base []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OMP_") && !strings.HasPrefix(kv, "GOMP_") {
			base = append(base, kv)
		}
	}
	spin := regexp.MustCompile(`GOMP_SPINCOUNT = '(\d+)'`)
	for _, tc := range []struct {
		name, policy string
		sleeps       bool
	}{
		{"unset: maple's default", "", true},
		{"the user's ACTIVE is kept", "ACTIVE", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, "version")
			cmd.Env = append(slices.Clone(base), "OMP_DISPLAY_ENV=VERBOSE")
			if tc.policy != "" {
				cmd.Env = append(cmd.Env, "OMP_WAIT_POLICY="+tc.policy)
			}
			out, err := cmd.CombinedOutput()
			m := spin.FindAllStringSubmatch(string(out), -1)
			if err != nil || len(m) == 0 {
				t.Fatalf("maple version: %v, no GOMP_SPINCOUNT in:\n%s", err, out)
			}
			if last := m[len(m)-1][1]; (last == "0") != tc.sleeps {
				t.Errorf("GOMP_SPINCOUNT %s with OMP_WAIT_POLICY %q; want sleeping threads (0): %v\n%s", last, tc.policy, tc.sleeps, out)
			}
		})
	}
}

func run(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("maple %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestCommandLine runs a small search and uses every runs command on it.
func TestCommandLine(t *testing.T) {
	bin := buildMaple(t)
	dir := t.TempDir()
	rd := []string{"--runs-dir", dir}
	cmd := exec.Command(bin, append([]string{"run", "--objective", "rex", "--outer-iters", "5", "--inner-steps", "20", "--eval-steps", "30", "--headless", "--json"}, rd...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var sum map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatalf("last stdout line is not JSON: %v", err)
	}
	for _, k := range []string{"method", "dataset", "seed", "test_acc", "test_worst_group_acc", "val_acc", "val_worst_group_acc", "per_group_test_acc", "selection", "done", "run_id", "spurious_share"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("summary lacks %q", k)
		}
	}
	if sum["selection"] != "validation" || sum["done"] != true {
		t.Errorf("summary %v", sum)
	}
	id := sum["run_id"].(string)

	var list []map[string]any
	json.Unmarshal([]byte(run(t, bin, append([]string{"ls", "--json"}, rd...)...)), &list)
	if len(list) != 1 || list[0]["status"] != "done" || list[0]["iter"] != 5.0 {
		t.Errorf("ls: %v", list)
	}
	if s := run(t, bin, append([]string{"show", id}, rd...)...); !strings.Contains(s, "objective rex") || !strings.Contains(s, "search time over") || !strings.Contains(s, "oracle selection (test-selected") || !strings.Contains(s, "weights: the validation-selected iterate") {
		t.Errorf("show:\n%s", s)
	}
	exp := t.TempDir()
	run(t, bin, append([]string{"export", id, "--format", "npy", "--out", exp}, rd...)...)
	for _, name := range []string{"u.npy", "weights.npy", "keep_prob.npy", "mask.npy", "ids.npy"} {
		a, _ := os.ReadFile(filepath.Join(exp, name))
		b, _ := os.ReadFile(filepath.Join(dir, id, name))
		if len(a) == 0 || string(a) != string(b) {
			t.Errorf("exported %s differs from the run's", name)
		}
	}
	run(t, bin, append([]string{"export", id, "--format", "csv", "--out", exp}, rd...)...)
	if c, _ := os.ReadFile(filepath.Join(exp, "weights.csv")); !strings.HasPrefix(string(c), "index,sample_id,u,weight,keep_prob,kept,label,env,group,env_name,group_name\n") {
		t.Errorf("weights.csv starts %q", c[:min(60, len(c))])
	}
	ev := run(t, bin, append([]string{"eval", id, "--model", "mlp:8", "--eval-steps", "20"}, rd...)...)
	if _, err := os.Stat(filepath.Join(dir, id, "eval-mlp_8.json")); err != nil {
		t.Errorf("eval result not stored beside the run:\n%s", ev)
	}
	// Bad input: clear errors, nothing lost.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"show", "nope"}, `no run "nope"`},
		{[]string{"resume", id}, "is done"},
		{[]string{"export", id, "--format", "xls"}, `--format "xls"`},
		{[]string{"run", "--model", "resnet"}, "unknown kind"},
		{[]string{"run", "--method", "magic"}, `--method "magic"`},
		{[]string{"run", "--keep", "2"}, "--keep 2: want a finite number in (0, 1]"},
		{[]string{"run", "--method", "irmv1", "--penalty-anneal", "-1"}, "--penalty-anneal -1: want at least 0"},
		{[]string{"data", "cmnist", "--data-dir", t.TempDir(), "--offline"}, "is missing; put the published file there or leave out --offline to download it (docs/DATASETS.md"},
	} {
		out, err := exec.Command(bin, append(c.args, rd...)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) || strings.Contains(string(out), "panic") {
			t.Errorf("maple %v: %v, output %q, want an error with %q", c.args, err, out, c.want)
		}
	}
	if l, _ := os.ReadDir(dir); len(l) != 1 {
		t.Errorf("a refused command left %d runs", len(l))
	}
}

// TestDetachAndAttach starts a detached search, attaches, pauses and
// changes a learning rate through the socket, and lets it finish.
func TestDetachAndAttach(t *testing.T) {
	bin := buildMaple(t)
	dir := t.TempDir()
	rd := []string{"--runs-dir", dir}
	// Long enough never to finish before the stop below: 400 iterations
	// took 12 s, and on a loaded machine (a paper-scale search on both
	// cores) the steps before the stop took longer and found it done.
	o, err := exec.Command(bin, append([]string{"run", "--outer-iters", "1000000", "--inner-steps", "50", "--eval-steps", "10", "--detach"}, rd...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(string(o))
	t.Cleanup(func() {
		// A run the test failed to stop stops here, not after the test.
		if mruns.Held(filepath.Join(dir, id)) {
			exec.Command(bin, append([]string{"stop", id}, rd...)...).Run()
			waitUntil(20*time.Second, func() bool { return !mruns.Held(filepath.Join(dir, id)) })
		}
	})
	var list []map[string]any
	if !waitUntil(20*time.Second, func() bool {
		list = nil
		json.Unmarshal([]byte(run(t, bin, append([]string{"ls", "--json"}, rd...)...)), &list)
		return len(list) == 1 && list[0]["status"] == "running" && list[0]["iter"].(float64) > 0
	}) {
		t.Fatalf("detached run not running: %v", list)
	}
	att := exec.Command(bin, append([]string{"attach", id}, rd...)...)
	stdout, _ := att.StdoutPipe()
	if err := att.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, _ := stdout.Read(buf)
	if !strings.Contains(string(buf[:n]), "attached to "+id) {
		t.Errorf("attach printed %q", buf[:n])
	}
	att.Process.Kill()
	att.Wait()
	// Steer it through the socket as a client would.
	// A long run directory path holds the socket's real path instead.
	ctl := exec.Command("python3", "-c", `import socket,sys,json,os
p=sys.argv[1]
if not os.path.stat.S_ISSOCK(os.stat(p).st_mode): p=open(p).read().strip()
s=socket.socket(socket.AF_UNIX); s.connect(p)
for c in [{"cmd":"set_lr","lr":{"weight":0.1,"keep":0.05,"inner":0.1}},{"cmd":"stop"}]:
    s.sendall((json.dumps(c)+"\n").encode())
s.recv(100)`, filepath.Join(dir, id, "sock"))
	if out, err := ctl.CombinedOutput(); err != nil {
		t.Fatalf("socket client: %v %s", err, out)
	}
	if !waitUntil(20*time.Second, func() bool {
		list = nil
		json.Unmarshal([]byte(run(t, bin, append([]string{"ls", "--json"}, rd...)...)), &list)
		return list[0]["status"] == "stopped" && !mruns.Held(filepath.Join(dir, id))
	}) {
		t.Fatalf("not stopped: %v", list)
	}
	ev, _ := os.ReadFile(filepath.Join(dir, id, "events.jsonl"))
	if !strings.Contains(string(ev), `"kind":"set_lr"`) || !strings.Contains(string(ev), `"weight":0.1`) || !strings.Contains(string(ev), `"kind":"stop"`) {
		t.Errorf("events:\n%s", ev)
	}
}

// TestTmuxDashboard runs the real binary under tmux at 120x40: wait for a
// chart, pause, set a learning rate, and find it in the header and in
// events.jsonl.
func TestTmuxDashboard(t *testing.T) {
	bin := buildMaple(t)
	dir := t.TempDir() // before the tmux server: cleanups run last-first, so tmux goes before dir
	tm := newTmux(t)
	tm.open("d", bin+" run --outer-iters 100000 --inner-steps 100 --runs-dir "+filepath.Join(dir, "runs")+"; echo exit=$?; sleep 60")
	tm.waitScreen(t, "d", "group weight fractions")
	tm.waitScreen(t, "d", "┤")
	tm.keys("d", "space")
	tm.waitScreen(t, "d", "paused")
	tm.keys("d", "l")
	tm.waitScreen(t, "d", "learning rates  (applied")
	tm.keys("d", "C-u", "0.0625", "Enter")
	s := tm.waitScreen(t, "d", "weight 0.0625")
	if !strings.Contains(strings.SplitN(s, "\n", 4)[2], "lr: weight 0.0625") {
		t.Errorf("rate not in the header:\n%s", s)
	}
	tm.keys("d", "q")
	tm.waitScreen(t, "d", "Stop it and leave?")
	tm.keys("d", "y")
	// Stopped, not finished: `maple run ... && next` must not go on.
	tm.waitScreen(t, "d", "exit=130")
	runs, _ := os.ReadDir(filepath.Join(dir, "runs"))
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	rd := filepath.Join(dir, "runs", runs[0].Name())
	var b []byte
	// Done when the run is stopped and its process let go of it (so that
	// the temporary directory can be removed).
	if !waitUntil(30*time.Second, func() bool {
		b, _ = os.ReadFile(filepath.Join(rd, "events.jsonl"))
		return strings.Contains(string(b), `"kind":"stop"`) && mruns.Stat(rd).Status == core.StatusStopped && !mruns.Held(rd)
	}) {
		t.Fatalf("no stop event; events.jsonl:\n%s\nscreen:\n%s", b, tm.screen("d"))
	}
	if !strings.Contains(string(b), `"kind":"pause"`) || !strings.Contains(string(b), `"weight":0.0625`) {
		t.Errorf("events.jsonl:\n%s", b)
	}
}

// TestSweep runs a small grid, reruns it (nothing new), resumes a cell
// whose summary was lost, and prints the table in every format.
func TestSweep(t *testing.T) {
	bin := buildMaple(t)
	dir := t.TempDir()
	args := []string{"sweep", "--name", "s", "--methods", "erm,maple:rex", "--seeds", "1,2", "--jobs", "2",
		"--outer-iters", "6", "--inner-steps", "20", "--eval-steps", "30", "--runs-dir", dir}
	out := run(t, bin, args...)
	if !strings.Contains(out, "maple/rex  2 ") || !strings.Contains(out, "sample standard deviation") {
		t.Fatalf("table:\n%s", out)
	}
	ents := runDirs(t, dir)
	if len(ents) != 4 {
		t.Fatalf("%d runs, want 4", len(ents))
	}
	if out := run(t, bin, args...); strings.Count(out, "done already") != 4 {
		t.Errorf("rerun did not skip the finished cells:\n%s", out)
	}
	os.Remove(filepath.Join(dir, ents[0].Name(), "summary.json"))
	out = run(t, bin, args...)
	if strings.Count(out, "done already") != 3 || !strings.Contains(out, "resumed ("+ents[0].Name()+")") { // said "started" before issue 25
		t.Errorf("rerun did not resume the interrupted cell:\n%s", out)
	}
	if l := runDirs(t, dir); len(l) != 4 {
		t.Errorf("%d runs after the reruns", len(l))
	}
	csvOut, err := exec.Command(bin, "table", "--sweep", "s", "--format", "csv", "--runs-dir", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csvOut)), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "dataset,train_size,model,method,n,test_acc_mean") || !strings.HasPrefix(lines[1], "synthetic,0,linear,erm,2,") {
		t.Errorf("csv:\n%s", csvOut)
	}
}

// TestHelpAndCompletion: every subcommand's help has examples, run's
// flags are grouped without sentinel defaults, and completion offers
// datasets and run ids.
func TestHelpAndCompletion(t *testing.T) {
	bin := buildMaple(t)
	dir := t.TempDir()
	run(t, bin, "run", "--outer-iters", "1", "--inner-steps", "2", "--eval-steps", "2", "--headless", "--runs-dir", dir)
	for _, c := range []string{"run", "resume", "ls", "show", "export", "eval", "attach", "data", "sweep", "table", "plot", "stop", "logs", "tag"} {
		if h := run(t, bin, c, "--help"); !strings.Contains(h, "Examples:") {
			t.Errorf("maple %s --help has no examples", c)
		}
	}
	h := run(t, bin, "run", "--help")
	for _, want := range []string{"Search flags:", "Evaluation and baselines flags:", "Data flags:", "Run flags:"} {
		if !strings.Contains(h, want) {
			t.Errorf("run --help lacks %q", want)
		}
	}
	if strings.Contains(h, "(default -1)") {
		t.Error("run --help shows a sentinel default")
	}
	if c := run(t, bin, "__complete", "run", "--dataset", ""); !strings.Contains(c, "cmnist") {
		t.Errorf("dataset completion:\n%s", c)
	}
	id := runDirs(t, dir)[0].Name()
	if c := run(t, bin, "__complete", "show", "--runs-dir", dir, ""); !strings.Contains(c, id) {
		t.Errorf("run id completion:\n%s", c)
	}
	if out, err := exec.Command(bin, "table", "--sweep", "nosuch", "--runs-dir", dir).CombinedOutput(); err == nil || !strings.Contains(string(out), `no sweep "nosuch"`) {
		t.Errorf("table of a missing sweep: %v %s", err, out)
	}
	if out, err := exec.Command(bin, "plot", "typo", "--runs-dir", dir).CombinedOutput(); err == nil || !strings.Contains(string(out), `no run or sweep named "typo"`) {
		t.Errorf("plot of a typo: %v %s", err, out)
	}
	if v := run(t, bin, "version"); !strings.HasPrefix(v, "maple "+mcmd.Version) {
		t.Errorf("version: %q", v)
	}
}

// TestRelativeRunsDir: a run started with a relative --runs-dir prints
// the command that continues it with the directory made absolute, and
// that command works from another directory; show finds the run there by
// "latest" and by a suffix of its id (issue 25, defect 4).
func TestRelativeRunsDir(t *testing.T) {
	bin := buildMaple(t)
	work, other := t.TempDir(), t.TempDir()
	cmd := exec.Command(bin, "run", "--dataset", "synthetic", "--objective", "rex", "--outer-iters", "150", "--headless", "--runs-dir", "rel")
	cmd.Dir = work
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitUntil(60*time.Second, func() bool {
		m, _ := filepath.Glob(filepath.Join(work, "rel", "*", "checkpoint.bin"))
		return len(m) > 0
	}) {
		cmd.Process.Kill()
		t.Fatalf("no checkpoint after 60 s:\n%s", stderr.String())
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	m := regexp.MustCompile(`maple resume (\S+) --runs-dir (\S+)`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no resume command printed:\n%s", stderr.String())
	}
	abs, _ := filepath.EvalSymlinks(filepath.Join(work, "rel"))
	if got, _ := filepath.EvalSymlinks(m[2]); !filepath.IsAbs(m[2]) || got != abs {
		t.Errorf("printed --runs-dir %q, want the absolute %s", m[2], abs)
	}
	resume := exec.Command(bin, "resume", m[1], "--runs-dir", m[2], "--headless")
	resume.Dir = other
	if out, err := resume.CombinedOutput(); err != nil {
		t.Fatalf("the printed command, from another directory: %v\n%s", err, out)
	}
	for _, id := range []string{"latest", m[1][len(m[1])-9:]} {
		show := exec.Command(bin, "show", id, "--runs-dir", m[2])
		show.Dir = other
		if out, err := show.CombinedOutput(); err != nil || !strings.Contains(string(out), m[1]) {
			t.Errorf("maple show %s: %v\n%s", id, err, out)
		}
	}
}

// TestStopAndLogs: maple logs prints and follows a detached run's
// progress, maple stop stops it (checkpointed, resumable) and the
// follower then ends; stopping a sweep stops its running cell and starts
// no new one, and the sweep exits 130 (issue 25, build item 3).
func TestStopAndLogs(t *testing.T) {
	bin := buildMaple(t)
	dir := t.TempDir()
	out := run(t, bin, "run", "--dataset", "synthetic", "--objective", "rex", "--outer-iters", "100000", "--detach", "--runs-dir", dir)
	id := strings.TrimSpace(strings.Split(out, "\n")[0])
	follow := exec.Command(bin, "logs", "latest", "-f", "--runs-dir", dir)
	var followed strings.Builder
	follow.Stdout = &followed
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitUntil(30*time.Second, func() bool { return strings.Contains(run(t, bin, "logs", id, "--runs-dir", dir), "iter ") }) {
		t.Fatal("maple logs shows no iteration after 30 s")
	}
	if s := run(t, bin, "stop", id[len(id)-5:], "--runs-dir", dir); !strings.Contains(s, "run "+id+" stopped at iteration") {
		t.Errorf("maple stop: %s", s)
	}
	done := make(chan error, 1)
	go func() { done <- follow.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(followed.String(), "maple resume "+id) {
			t.Errorf("logs -f: %v\n%s", err, followed.String())
		}
	case <-time.After(10 * time.Second):
		follow.Process.Kill()
		t.Error("logs -f did not end with the run")
	}
	if st := mruns.Stat(filepath.Join(dir, id)).Status; st != core.StatusStopped {
		t.Errorf("status %s after maple stop", st)
	}
	if out, err := exec.Command(bin, "stop", id, "--runs-dir", dir).CombinedOutput(); err == nil || !strings.Contains(string(out), "is not running") {
		t.Errorf("stop of a stopped run: %v %s", err, out)
	}

	// A baseline stops the same way; it has no search to attach to.
	out = run(t, bin, "run", "--dataset", "synthetic", "--method", "erm", "--eval-steps", "1000000", "--detach", "--runs-dir", dir)
	base := strings.TrimSpace(strings.Split(out, "\n")[0])
	if b, err := exec.Command(bin, "attach", base, "--lines", "--runs-dir", dir).CombinedOutput(); err == nil || !strings.Contains(string(b), "is a baseline (erm)") {
		t.Errorf("attach to a baseline: %v %s", err, b)
	}
	if s := run(t, bin, "stop", base, "--runs-dir", dir); !strings.Contains(s, "run "+base+" (erm) stopped before it finished; a baseline keeps no checkpoint") {
		t.Errorf("maple stop of a baseline: %s", s)
	}
	if st := mruns.Stat(filepath.Join(dir, base)).Status; st != core.StatusStopped {
		t.Errorf("baseline status %s after maple stop", st)
	}

	sweep := exec.Command(bin, "sweep", "--name", "sw", "--datasets", "synthetic", "--methods", "maple:rex", "--seeds", "1,2", "--outer-iters", "100000", "--runs-dir", dir)
	var swErr strings.Builder
	sweep.Stderr = &swErr
	if err := sweep.Start(); err != nil {
		t.Fatal(err)
	}
	status := func() string { // the sweep's record may not be written yet: no error then
		out, _ := exec.Command(bin, "sweep", "--name", "sw", "--status", "--runs-dir", dir).CombinedOutput()
		return string(out)
	}
	if !waitUntil(60*time.Second, func() bool { return strings.Contains(status(), "1 running") }) {
		sweep.Process.Kill()
		t.Fatal("the sweep's first cell never ran")
	}
	if s := run(t, bin, "stop", "sw", "--runs-dir", dir); !strings.Contains(s, "1 running cell stopped") {
		t.Errorf("maple stop sw: %s", s)
	}
	err := sweep.Wait()
	if code := sweep.ProcessState.ExitCode(); code != 130 || !strings.Contains(swErr.String(), "not started: the sweep was stopped") {
		t.Errorf("the stopped sweep: %v, exit %d\n%s", err, code, swErr.String())
	}

	// A sweep's baseline cell stops too, and is told it trains again.
	bsweep := exec.Command(bin, "sweep", "--name", "bsw", "--datasets", "synthetic", "--methods", "erm", "--seeds", "1", "--eval-steps", "1000000", "--runs-dir", dir)
	var bswErr strings.Builder
	bsweep.Stderr = &bswErr
	if err := bsweep.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitUntil(60*time.Second, func() bool {
		out, _ := exec.Command(bin, "sweep", "--name", "bsw", "--status", "--runs-dir", dir).CombinedOutput()
		return strings.Contains(string(out), "1 running")
	}) {
		bsweep.Process.Kill()
		t.Fatal("the baseline sweep's cell never ran")
	}
	if s := run(t, bin, "stop", "bsw", "--runs-dir", dir); !strings.Contains(s, "1 running cell stopped") || strings.Contains(s, "iteration") {
		t.Errorf("maple stop bsw: %s", s)
	}
	bsweep.Wait()
	if !strings.Contains(bswErr.String(), "stopped before it finished") || !strings.Contains(bswErr.String(), "rerun the sweep to train it again from the start") {
		t.Errorf("the stopped baseline cell:\n%s", bswErr.String())
	}
}

// TestNamesAndTags: --name, --tag and --note label a run; the name finds
// it and cannot be taken twice; maple tag edits the labels; ls filters by
// tag and shows name, tags, start and time; a sweep tags its cells
// (issue 25, build item 2).
func TestNamesAndTags(t *testing.T) {
	bin := buildMaple(t)
	dir := t.TempDir()
	small := []string{"--dataset", "synthetic", "--outer-iters", "2", "--inner-steps", "2", "--eval-steps", "2", "--headless", "--runs-dir", dir}
	run(t, bin, append([]string{"run", "--name", "first-rex", "--tag", "paper", "--note", "the rex one"}, small...)...)
	run(t, bin, append([]string{"run", "--tag", "scratch"}, small...)...)
	if s := run(t, bin, "show", "first-rex", "--runs-dir", dir); !strings.Contains(s, `name "first-rex", tags [paper]`) || !strings.Contains(s, "note: the rex one") {
		t.Errorf("show by name:\n%s", s)
	}
	cmd := exec.Command(bin, append([]string{"run", "--name", "first-rex"}, small...)...)
	if out, err := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "already has that name") {
		t.Errorf("a second run of the same name: %v %s", err, out)
	}
	run(t, bin, "tag", "first-rex", "--add", "table2", "--remove", "paper", "--runs-dir", dir)
	ls := run(t, bin, "ls", "--tag", "table2", "--runs-dir", dir)
	if lines := strings.Split(strings.TrimSpace(ls), "\n"); len(lines) != 2 || !strings.Contains(lines[0], "NAME") || !strings.Contains(lines[1], "first-rex") || !strings.Contains(lines[1], "table2") {
		t.Errorf("ls --tag table2:\n%s", ls)
	}
	run(t, bin, "sweep", "--name", "tagged", "--datasets", "synthetic", "--methods", "erm", "--seeds", "1", "--eval-steps", "2", "--tag", "sw", "--runs-dir", dir)
	if ls := run(t, bin, "ls", "--tag", "sw", "--runs-dir", dir); strings.Count(strings.TrimSpace(ls), "\n") != 1 || !strings.Contains(ls, "tagged") {
		t.Errorf("ls --tag sw:\n%s", ls)
	}
}

// TestTmuxSweepView runs a sweep on a terminal: its live view shows the
// cells, enter opens the running cell's dashboard, q there comes back to
// the view, and the view closes when the sweep ends, leaving its lines
// and table (issue 25, build item 4).
func TestTmuxSweepView(t *testing.T) {
	bin := buildMaple(t)
	dir := t.TempDir() // before the tmux server: cleanups run last-first, so tmux goes before dir
	tm := newTmux(t)
	tm.limit = 120 * time.Second
	tm.open("sv", bin+" sweep --name tv --datasets synthetic --methods maple:rex --seeds 1,2 --outer-iters 250 --runs-dir "+filepath.Join(dir, "runs")+"; echo exit=$?; sleep 60")
	tm.waitScreen(t, "sv", "maple sweep tv: 2 cells")
	tm.waitScreen(t, "sv", "1 running")
	// The view, like the dashboard, may take its first keys for
	// type-ahead: type enter until the cell's dashboard shows (a dropped
	// enter left the sweep to finish unwatched, and the test to time out).
	tm.keysUntil(t, "sv", "maple/rex  model linear", "Enter")
	// The dashboard drops the keys typed in its first moments (type-ahead
	// meant for the view): open its rates form until it does, close it,
	// then leave.
	tm.keysUntil(t, "sv", "learning rates  (applied", "l")
	tm.keys("sv", "Escape")
	tm.waitScreenWithout(t, "sv", "learning rates  (applied")
	tm.keys("sv", "q")
	tm.waitScreen(t, "sv", "maple sweep tv: 2 cells")
	s := tm.waitScreen(t, "sv", "exit=0")
	if !strings.Contains(s, "maple/rex  2 ") {
		t.Errorf("the sweep's table after its view closed:\n%s", s)
	}
}
