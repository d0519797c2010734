package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/export"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// TestMain removes the binary maple built (and its directory) when the
// tests end.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// maple builds the real binary once per test run.
func maple(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "maple-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "maple")
		out, err := exec.Command("go", "build", "-o", binPath, "..").CombinedOutput()
		if err != nil {
			buildErr = err
			t.Log(string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// searchArgs is a small, fast search of the synthetic dataset.
var searchArgs = []string{"run", "--dataset", "synthetic", "--objective", "rex", "--outer-iters", "12", "--inner-steps", "30",
	"--keep", "0.6", "--keep0", "0.9", "--eval-steps", "20", "--checkpoint-every", "3", "--headless"}

func runMaple(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(maple(t), args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func onlyRun(t *testing.T, runsDir string) string {
	t.Helper()
	ents, _ := os.ReadDir(runsDir)
	if len(ents) != 1 {
		t.Fatalf("%d runs in %s", len(ents), runsDir)
	}
	return ents[0].Name()
}

// TestKillAndResume kills the real binary with SIGKILL at several points,
// resumes, and compares weights.npy with an uninterrupted run's.
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	ref := t.TempDir()
	if out, err := runMaple(t, nil, append(searchArgs, "--runs-dir", ref)...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want, err := os.ReadFile(filepath.Join(ref, onlyRun(t, ref), runs.WeightsNPY))
	if err != nil {
		t.Fatal(err)
	}
	refMetrics, _ := runs.ReadMetrics(filepath.Join(ref, onlyRun(t, ref)))
	for _, crash := range []string{"metrics:4", "checkpoint:6", "metrics:9", "checkpoint:12"} {
		t.Run(crash, func(t *testing.T) {
			dir := t.TempDir()
			out, err := runMaple(t, []string{"MAPLE_CRASH=" + crash}, append(searchArgs, "--runs-dir", dir)...)
			if err == nil {
				t.Fatalf("the run was not killed:\n%s", out)
			}
			id := onlyRun(t, dir)
			if in := runs.Stat(filepath.Join(dir, id)); in.Status != core.StatusInterrupted {
				t.Errorf("status after kill: %s", in.Status)
			}
			if out, err := runMaple(t, nil, "resume", id, "--runs-dir", dir); err != nil {
				t.Fatalf("resume: %v\n%s", err, out)
			}
			got, err := os.ReadFile(filepath.Join(dir, id, runs.WeightsNPY))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Error("weights.npy differs from the uninterrupted run's")
			}
			snaps, err := runs.ReadMetrics(filepath.Join(dir, id))
			if err != nil || len(snaps) != 12 {
				t.Fatalf("metrics: %d records, %v", len(snaps), err)
			}
			for i, s := range snaps {
				if s.Iter != i+1 || s.OuterRisk != refMetrics[i].OuterRisk {
					t.Errorf("metrics record %d: iteration %d, risk %g (uninterrupted %g)", i, s.Iter, s.OuterRisk, refMetrics[i].OuterRisk)
				}
			}
		})
	}
}

func TestDamagedFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	if out, err := runMaple(t, []string{"MAPLE_CRASH=metrics:8"}, append(searchArgs, "--runs-dir", dir)...); err == nil {
		t.Fatalf("not killed:\n%s", out)
	}
	id := onlyRun(t, dir)
	rd := filepath.Join(dir, id)
	// Damage the newest checkpoint and the last metrics line.
	ck, _ := os.ReadFile(filepath.Join(rd, runs.CheckpointFile))
	os.WriteFile(filepath.Join(rd, runs.CheckpointFile), ck[:len(ck)/2], 0o644)
	f, _ := os.OpenFile(filepath.Join(rd, runs.MetricsFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"iter": 9, "outer_ri`)
	f.Close()
	if in := runs.Stat(rd); in.Status != core.StatusInterrupted || in.Problem == "" || in.Iter != 8 {
		t.Errorf("ls of a damaged run: %+v", in)
	}
	out, err := runMaple(t, nil, "resume", id, "--runs-dir", dir)
	if err != nil || !strings.Contains(out, "checksum mismatch") || !strings.Contains(out, "previous checkpoint") || !strings.Contains(out, "iteration 3") {
		t.Fatalf("resume with a damaged checkpoint: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(rd, runs.SummaryFile)); err != nil {
		t.Error("the resumed run did not finish")
	}
	// A damaged run.json: still listed, resume says what is wrong.
	os.WriteFile(filepath.Join(rd, runs.ConfigFile), []byte("{not json"), 0o644)
	list, err := runs.Open(dir).List()
	if err != nil || len(list) != 1 || list[0].Problem == "" {
		t.Errorf("ls with a damaged run.json: %+v %v", list, err)
	}
	out, err = runMaple(t, nil, "resume", id, "--runs-dir", dir)
	if err == nil || !strings.Contains(out, "run.json is not valid JSON") {
		t.Errorf("resume with a damaged run.json: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(rd, runs.CheckpointFile)); err != nil {
		t.Error("a file was deleted")
	}
}

func TestUnwritableAndFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	ro := filepath.Join(t.TempDir(), "ro")
	os.WriteFile(ro, nil, 0o644) // a file where the runs dir should be
	out, err := runMaple(t, nil, append(searchArgs, "--runs-dir", filepath.Join(ro, "runs"))...)
	// Refused before anything is created, naming the flag (exit 2).
	if err == nil || !strings.Contains(out, "--runs-dir "+filepath.Join(ro, "runs")+": it or a directory above it is a file") {
		t.Errorf("unwritable runs dir: %v\n%s", err, out)
	}
}

type fakeCtl struct {
	mu   sync.Mutex
	cmds []string
	lr   core.LearningRates // the last rates set
}

func (f *fakeCtl) add(s string)       { f.mu.Lock(); f.cmds = append(f.cmds, s); f.mu.Unlock() }
func (f *fakeCtl) Pause() error       { f.add("pause"); return nil }
func (f *fakeCtl) Resume() error      { f.add("resume"); return nil }
func (f *fakeCtl) Checkpoint() error  { f.add("checkpoint"); return nil }
func (f *fakeCtl) Stop() error        { f.add("stop"); return nil }
func (f *fakeCtl) Exported(int) error { f.add("exported"); return nil }
func (f *fakeCtl) SetLR(l core.LearningRates) error {
	if err := l.Check(); err != nil {
		return err
	}
	f.add("set_lr")
	f.mu.Lock()
	f.lr = l
	f.mu.Unlock()
	return nil
}

func TestSocket(t *testing.T) {
	dir := t.TempDir()
	r, err := runs.Open(dir).Create(runs.Config{Method: "maple"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hub, ctl := NewHub(), &fakeCtl{}
	hub.Snapshot(&core.Snapshot{Iter: 1, Total: 5})
	srv, err := Serve(r, hub, ctl)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	fi, _ := os.Stat(r.Path(runs.SocketFile))
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want 0600", fi.Mode().Perm())
	}
	// Garbage and a client that vanishes mid-stream do not hurt.
	raw, err := net.Dial("unix", r.Path(runs.SocketFile))
	if err != nil {
		t.Fatal(err)
	}
	raw.Write([]byte("this is not json\n{\"cmd\":\"dance\"}\n"))
	sc := bufio.NewScanner(raw)
	sc.Buffer(nil, 1<<20)
	var kinds []string
	for len(kinds) < 3 && sc.Scan() {
		var m Msg
		json.Unmarshal(sc.Bytes(), &m)
		kinds = append(kinds, string(m.Kind)+":"+m.Error)
	}
	if len(kinds) != 3 || !strings.HasPrefix(kinds[0], "hello") || !strings.Contains(kinds[1], "not a command") || !strings.Contains(kinds[2], "unknown command") {
		t.Errorf("replies %v", kinds)
	}
	// set_lr naming one rate keeps the others in force (the newest
	// snapshot's).
	hub.Snapshot(&core.Snapshot{Iter: 2, Total: 5, LR: core.LearningRates{Weight: 0.25, Keep: 0.05, Inner: 0.1}})
	raw.Write([]byte(`{"cmd":"set_lr","lr":{"inner":0.05}}` + "\n" + `{"cmd":"set_lr","lr":{}}` + "\n"))
	for len(kinds) < 5 && sc.Scan() {
		var m Msg
		json.Unmarshal(sc.Bytes(), &m)
		if m.Kind == MsgError {
			kinds = append(kinds, string(m.Kind)+":"+m.Error)
		}
		if len(kinds) == 4 {
			break
		}
	}
	if len(kinds) != 4 || !strings.Contains(kinds[3], "naming one or more") {
		t.Errorf("set_lr without rates: %v", kinds)
	}
	ctl.mu.Lock()
	if want := (core.LearningRates{Weight: 0.25, Keep: 0.05, Inner: 0.05}); ctl.lr != want || len(ctl.cmds) != 1 {
		t.Errorf("set_lr of the inner rate alone set %+v (%v), want %+v", ctl.lr, ctl.cmds, want)
	}
	ctl.cmds = nil
	ctl.mu.Unlock()
	raw.Close()

	cl, err := Attach(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	hello := <-cl.Msgs
	if hello.Kind != "hello" || len(hello.History) != 2 || hello.Config.ID != r.Config.ID {
		t.Fatalf("hello %+v", hello)
	}
	cl.Pause()
	if err := cl.SetLR(core.LearningRates{Weight: 1, Keep: 0, Inner: 1}); err == nil {
		t.Error("client accepted a zero learning rate")
	}
	cl.SetLR(core.LearningRates{Weight: 0.1, Keep: 0.1, Inner: 0.1})
	cl.Resume()
	hub.Snapshot(&core.Snapshot{Iter: 3, Total: 5})
	if m := <-cl.Msgs; m.Kind != "snapshot" || m.Snapshot.Iter != 3 {
		t.Errorf("stream: %+v", m)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		ctl.mu.Lock()
		n := len(ctl.cmds)
		ctl.mu.Unlock()
		if n == 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if strings.Join(ctl.cmds, ",") != "pause,set_lr,resume" {
		t.Errorf("commands %v", ctl.cmds)
	}
	cl.Close()

	// Another user is refused by the server...
	srv.Close()
	srv, err = serve(r, hub, ctl, os.Getuid()+1)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c2, err := Attach(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := <-c2.Msgs; !ok || m.Kind != MsgError || !strings.Contains(m.Error, "refused") {
		t.Errorf("foreign user: %+v", m)
	}
	if _, ok := <-c2.Msgs; ok {
		t.Error("connection stayed open")
	}
	// ...and a socket open to others is refused by the client.
	os.Chmod(r.Path(runs.SocketFile), 0o666)
	if _, err := Attach(r.Dir); err == nil || !strings.Contains(err.Error(), "0600") {
		t.Errorf("world-writable socket: %v", err)
	}
}

func TestHubNeverBlocks(t *testing.T) {
	h := NewHub()
	sub, _, _ := h.Subscribe()
	for i := 1; i <= 1000; i++ {
		h.Snapshot(&core.Snapshot{Iter: i})
		h.Event(core.Event{Iter: i})
	}
	if s := <-sub.Snap; s.Iter != 1000 {
		t.Errorf("pending snapshot %d, want the newest", s.Iter)
	}
	if len(h.History()) != 1000 {
		t.Error("history dropped a record")
	}
}

// TestCommandsAfterTheEnd: a client that sends 100 pauses after the
// search ended (the reproduction: during the final evaluation) gets an
// error for each, at once, and the server never blocks.
func TestCommandsAfterTheEnd(t *testing.T) {
	r, err := runs.Open(t.TempDir()).Create(runs.Config{Method: "maple"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sp, _ := loaders.Synthetic(loaders.DefaultSynthetic())
	set := core.DefaultSettings()
	set.Model, set.OuterIters, set.InnerSteps = "linear", 2, 3
	eng, err := core.New(sp, set)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := eng.Run(context.Background(), runs.Tee()); st != core.StatusDone || err != nil {
		t.Fatalf("%v %v", st, err)
	}
	srv, err := Serve(r, NewHub(), eng)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cl, err := Attach(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	<-cl.Msgs // hello
	for range 100 {
		if err := cl.Pause(); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.After(10 * time.Second)
	for n := 0; n < 100; {
		select {
		case m := <-cl.Msgs:
			if m.Kind != MsgError || !strings.Contains(m.Error, "has ended") {
				t.Fatalf("answer %+v", m)
			}
			n++
		case <-deadline:
			t.Fatalf("%d of 100 commands answered", n)
		}
	}
}

// TestResumeKeepsGoodRecords: killed after iteration 8 (checkpoint at 6)
// with line 4 of metrics.jsonl damaged by hand, resume keeps records 1-3
// and 5-6, sets the damaged line and records 7-8 aside (reported), and
// finishes with every other record; a damaged events line hides nothing.
func TestResumeKeepsGoodRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	if out, err := runMaple(t, []string{"MAPLE_CRASH=metrics:8"}, append(searchArgs, "--runs-dir", dir)...); err == nil {
		t.Fatalf("not killed:\n%s", out)
	}
	id := onlyRun(t, dir)
	rd := filepath.Join(dir, id)
	b, _ := os.ReadFile(filepath.Join(rd, runs.MetricsFile))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	lines[3] = "garbage"
	os.WriteFile(filepath.Join(rd, runs.MetricsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	ev, _ := os.ReadFile(filepath.Join(rd, runs.EventsFile))
	os.WriteFile(filepath.Join(rd, runs.EventsFile), append([]byte("not json\n"), ev...), 0o600)
	if in := runs.Stat(rd); !strings.Contains(in.Problem, "line 4 damaged") {
		t.Errorf("ls does not flag the damaged line: %+v", in)
	}
	out, err := runMaple(t, nil, "resume", id, "--runs-dir", dir)
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	if !strings.Contains(out, "line 4 damaged; moved to") || !strings.Contains(out, "records of iteration 7, 8 come after the checkpoint at 6") {
		t.Errorf("resume did not report what it set aside:\n%s", out)
	}
	snaps, err := runs.ReadMetrics(rd)
	var iters []int
	for _, s := range snaps {
		iters = append(iters, s.Iter)
	}
	if err != nil || fmt.Sprint(iters) != "[1 2 3 5 6 7 8 9 10 11 12]" {
		t.Errorf("metrics after resume: %v %v", iters, err)
	}
	// Elapsed time continues across the resume.
	for i := 1; i < len(snaps); i++ {
		if snaps[i].Elapsed < snaps[i-1].Elapsed {
			t.Errorf("elapsed %g at iteration %d after %g at %d", snaps[i].Elapsed, snaps[i].Iter, snaps[i-1].Elapsed, snaps[i-1].Iter)
		}
	}
	aside, _ := os.ReadFile(filepath.Join(rd, runs.DroppedMetrics))
	if n := strings.Count(string(aside), "\n"); n != 3 || !strings.HasPrefix(string(aside), "garbage\n") {
		t.Errorf("%s holds %d lines:\n%s", runs.DroppedMetrics, n, aside)
	}
	events, err := runs.ReadEvents(rd)
	if err == nil || len(events) == 0 || events[len(events)-1].Kind != core.EventEvaluate {
		t.Errorf("events after a damaged first line: %v, %v", events, err)
	}
	// The dashboard and attached clients hear of it too: a warning event
	// naming the file and line.
	warned := false
	for _, e := range events {
		warned = warned || (e.Kind == core.EventWarning && strings.Contains(e.Error, runs.MetricsFile+": line 4 damaged"))
	}
	if !warned {
		t.Errorf("no warning event for the damaged line: %+v", events)
	}
	// The new process's resume is marked a restart (an unpausing is not):
	// a search's minutes count the iterations before it.
	restarted := false
	for _, e := range events {
		restarted = restarted || (e.Kind == core.EventResume && e.Restart && e.Iter == 6)
	}
	if !restarted {
		t.Errorf("no resume event marked a restart at iteration 6: %+v", events)
	}
	if in := runs.Stat(rd); in.Status != core.StatusDone || !strings.Contains(in.Problem, "set aside") {
		t.Errorf("ls after resume: %+v", in)
	}
}

// TestRestartWithoutCheckpoint: a run with records but no checkpoint
// (killed before its first) starts again from the beginning, its records
// set aside with a word.
func TestRestartWithoutCheckpoint(t *testing.T) {
	dir := t.TempDir()
	r, err := runs.Open(dir).Create(runs.Config{Method: "maple", Settings: core.DefaultSettings()})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(r.Path(runs.MetricsFile), []byte(`{"iter":1}`+"\n"), 0o600)
	r.Close()
	r2, err := runs.Open(dir).Open(r.Config.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	r2.Config.Dataset = loaders.DefaultSpec("synthetic")
	r2.Config.Settings.Model = "linear"
	r2.Config.Eval = train.DefaultEval()
	r2.Config.Settings.OuterIters, r2.Config.Settings.InnerSteps, r2.Config.Eval.Steps = 3, 5, 20
	var log strings.Builder
	sum, err := Execute(context.Background(), r2, nil, Options{Log: &log})
	if err != nil || sum.Status != core.StatusDone {
		t.Fatalf("records without a checkpoint: %v %+v\n%s", err, sum, log.String())
	}
	if !strings.Contains(log.String(), "no checkpoint yet: it starts again from iteration 1") || !strings.Contains(log.String(), "moved to") {
		t.Errorf("the restart was not reported:\n%s", log.String())
	}
	if b, _ := os.ReadFile(r2.Path(runs.DroppedMetrics)); string(b) != `{"iter":1}`+"\n" {
		t.Errorf("the old record was not set aside: %q", b)
	}
	if snaps, _ := runs.ReadMetrics(r2.Dir); len(snaps) != 3 {
		t.Errorf("%d records after the restart, want 3", len(snaps))
	}
}

// TestPrivateSocketDir: a long runs path puts the socket in a per-user
// 0700 directory; a directory planted there by someone else (open to
// others, or a symlink) is left alone and the socket goes to a fresh
// private directory instead, removed with it: nobody can block a run.
func TestPrivateSocketDir(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 120))
	r, err := runs.Open(long).Create(runs.Config{Method: "maple"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	srv, err := Serve(r, NewHub(), &fakeCtl{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := os.ReadFile(r.Path(runs.SocketFile))
	if dir := filepath.Dir(string(p)); dir != filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), "maple") {
		t.Errorf("socket at %s", p)
	}
	cl, err := Attach(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	cl.Close()
	srv.Close()
	planted := filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), "maple")
	elsewhere := t.TempDir()
	for name, plant := range map[string]func(){
		"open to others": func() { os.Chmod(planted, 0o777) },
		"a symlink":      func() { os.RemoveAll(planted); os.Symlink(elsewhere, planted) },
	} {
		t.Run(name, func(t *testing.T) {
			plant()
			srv, err := Serve(r, NewHub(), &fakeCtl{})
			if err != nil {
				t.Fatalf("a planted socket directory blocked the run: %v", err)
			}
			p, _ := os.ReadFile(r.Path(runs.SocketFile))
			dir := filepath.Dir(string(p))
			fi, err := os.Lstat(dir)
			if dir == planted || err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
				t.Errorf("socket in %s (%v, %v)", dir, fi.Mode(), err)
			}
			cl, err := Attach(r.Dir)
			if err != nil {
				t.Fatal(err)
			}
			cl.Close()
			srv.Close()
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the fresh socket directory %s was left behind", dir)
			}
			if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
				t.Errorf("a socket was put through the symlink")
			}
		})
	}
}

// TestPrecisionKeepsOldHashes checks that --precision f32 (the flag's
// default) resolves to the empty setting, so that runs and sweep cells
// made before the flag existed keep their hashes (a rerun of an old sweep
// skips its finished cells), and that bf16 changes the hash.
func TestPrecisionKeepsOldHashes(t *testing.T) {
	old := runs.DefaultConfig("synthetic")
	oldRes, err := config.Resolve(old, map[string]bool{}, "")
	if err != nil {
		t.Fatal(err)
	}
	flag := old
	flag.Settings.Precision = "f32"
	res, err := config.Resolve(flag, map[string]bool{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Settings.Precision != "" || res.Hash(false) != oldRes.Hash(false) {
		t.Errorf("--precision f32: precision %q, hash %s, want \"\" and %s", res.Settings.Precision, res.Hash(false), oldRes.Hash(false))
	}
	bf := oldRes
	bf.Settings.Precision = "bf16"
	if bf.Hash(false) == oldRes.Hash(false) {
		t.Error("bf16 has the hash of f32")
	}
	if got := config.Flags(oldRes)["precision"]; got != "f32" {
		t.Errorf("flags name the default precision %q, want f32", got)
	}
}

// TestStopWhileLoading: a signal while a dataset is read and built stops
// the command at once (was: after the load, up to 2 s on a busy machine).
func TestStopWhileLoading(t *testing.T) {
	data := os.Getenv("MAPLE_DATA_DIR")
	if data == "" {
		data = filepath.Join("..", "..", "shared", "data")
	}
	if _, err := os.Stat(filepath.Join(data, "mnist")); err != nil {
		t.Skipf("no MNIST under %s (set MAPLE_DATA_DIR)", data)
	}
	cfg := runs.DefaultConfig("cmnist")
	cfg.Dataset.DataDir, cfg.Dataset.Offline = data, true
	t0 := time.Now()
	if _, err := config.Prepare(cfg, nil); err != nil {
		t.Fatal(err)
	}
	full := time.Since(t0)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(full/10, cancel)
	t0 = time.Now()
	_, err := config.PrepareContext(ctx, cfg, nil)
	took := time.Since(t0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want the context's", err)
	}
	if took > full/10+full/4 {
		t.Errorf("returned %v after the start (the cancel came at %v, a whole load takes %v)", took, full/10, full)
	}
}

// TestLfFWeightsExported: an lff run ends with its per-sample weights
// written as a search's (u.npy, weights.csv, export.json), and maple
// export copies them; a baseline without weights is refused.
func TestLfFWeightsExported(t *testing.T) {
	dir := t.TempDir()
	for _, m := range []string{"lff", "erm"} {
		cfg := runs.DefaultConfig("synthetic")
		cfg.Method = m
		cfg.Eval = baselines.Recipe(m, cfg.Eval, nil)
		cfg.Eval.Model, cfg.Eval.Steps = "linear", 30
		r, err := runs.Open(dir).Create(cfg)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := Execute(context.Background(), r, nil, Options{})
		r.Close()
		if err != nil || sum.Status != core.StatusDone {
			t.Fatalf("%s: %v %v", m, sum, err)
		}
		out := t.TempDir()
		files, err := export.To(r.Dir, out, "npy", false, export.Overrides{}, nil)
		if m == "erm" {
			if err == nil || !strings.Contains(err.Error(), "no per-sample weights") {
				t.Errorf("erm export: %v, want a refusal", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		_, u, err := loaders.ReadNPYFile(filepath.Join(out, export.UNPY))
		if err != nil {
			t.Fatalf("%v (files %v)", err, files)
		}
		man, err := export.ReadExport(out)
		if err != nil || man.N != len(u) || !strings.Contains(man.Which, "lff") {
			t.Fatalf("export.json %+v, %v", man, err)
		}
		var lo, hi float32 = 1, 0
		for _, v := range u {
			lo, hi = min(lo, v), max(hi, v)
		}
		if !(lo >= 0 && hi <= 1 && hi > lo) {
			t.Errorf("LfF weights span [%g, %g], want distinct values in [0, 1]", lo, hi)
		}
		if _, err := os.Stat(filepath.Join(r.Dir, runs.WeightsCSV)); err != nil {
			t.Errorf("the run directory has no %s: %v", runs.WeightsCSV, err)
		}
	}
}

// TestStopBaseline: a baseline listens on its socket, so that maple stop
// (and a sweep's stop) can end it: it ends stopped, with a summary that
// says so, and answers what it cannot do (pause) with an error.
func TestStopBaseline(t *testing.T) {
	cfg := runs.DefaultConfig("synthetic")
	cfg.Method, cfg.Eval.Steps = "erm", 1_000_000 // far longer than the test
	r, err := runs.Open(t.TempDir()).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sp, _ := loaders.Synthetic(loaders.DefaultSynthetic())
	type out struct {
		sum *runs.Summary
		err error
	}
	done := make(chan out, 1)
	go func() {
		sum, err := Execute(context.Background(), r, sp, Options{Socket: true})
		done <- out{sum, err}
	}()
	var cl *Client
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if cl, err = Attach(r.Dir); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the baseline's socket never listened: %v", err)
		}
	}
	<-cl.Msgs // hello
	if err := cl.Pause(); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-cl.Msgs:
		if m.Kind != MsgError || !strings.Contains(m.Error, "can only stop") {
			t.Errorf("pause of a baseline: %+v", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer to pause")
	}
	cl.Close()
	stopper, err := Attach(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer stopper.Close()
	if err := stopper.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case o := <-done:
		if o.err != nil || o.sum.Status != core.StatusStopped {
			t.Fatalf("Execute: %+v %v, want stopped", o.sum, o.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the baseline did not stop")
	}
	if sum, err := runs.ReadSummary(r.Dir); err != nil || sum == nil || sum.Status != core.StatusStopped || sum.Done {
		t.Errorf("summary.json: %+v %v, want stopped", sum, err)
	}
}
