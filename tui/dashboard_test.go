package tui

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

// updating reports the -update flag (defined by the golden package that
// teatest uses): rewrite the golden files.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// script is a fake search: deterministic snapshots of a 4-group problem.
func script(n, total int) []*core.Snapshot {
	var out []*core.Snapshot
	for i := 1; i <= n; i++ {
		t := float64(i) / float64(total)
		minor := 0.08 + 0.17*t
		s := &core.Snapshot{Iter: i, Total: total, OuterRisk: 0.01 * math.Exp(-3*t), InnerLoss: 0.5 - 0.1*t,
			ValAcc: 0.6 + 0.2*t, ValWorst: 0.4 + 0.3*t, TestAcc: 0.5 + 0.2*t, TestWorst: 0.3 + 0.35*t,
			GroupNames: []string{"y=0,a=0", "y=0,a=1", "y=1,a=0", "y=1,a=1"},
			GroupFrac:  []float64{0.5 - minor, minor, minor, 0.5 - minor},
			HistEdges:  make([]float64, 21), KeepFrac: 1, KeepSize: 9000, Temp: 1 / (0.97*(1-t) + 0.03),
			HyperNorm: 1e-5 * (1 - t), Seconds: core.Timing{Inner: 0.2, OuterGrad: 0.01, Hyper: 0.02},
			LR: core.LearningRates{Weight: 0.25, Keep: 0.05, Inner: 0.1}, Status: core.StatusRunning, Elapsed: 0.25 * float64(i),
			ValGroups: []float64{0.8 + 0.05*t, 0.4 + 0.3*t, 0.45 + 0.3*t, 0.85}, Selected: i}
		for k := 0; k < 3; k++ {
			s.Top = append(s.Top, core.TopSample{Index: 100 * k, ID: int64(7000 + k), Label: int32(k % 2), Group: int32(k % 4), Weight: 3 - 0.5*float64(k)})
		}
		for b := range s.HistEdges {
			s.HistEdges[b] = 3 * float64(b) / 20
		}
		for g := 0; g < 4; g++ {
			h := make([]int, 20)
			for b := range h {
				h[b] = int(1000 * math.Exp(-math.Pow(float64(b)-float64(4+3*g)*t-5, 2)/8))
			}
			s.Hist = append(s.Hist, h)
		}
		out = append(out, s)
	}
	return out
}

func testConfig() runs.Config {
	set := core.DefaultSettings()
	set.Model, set.OuterIters = "linear", 40
	set.WeightLR, set.KeepLR, set.InnerLR = 0.25, 0.05, 0.1 // the rates script's search runs with
	ev := train.DefaultEval()
	ev.Model = "linear"
	return runs.Config{ID: "20261122-000000-01", Dataset: loaders.DefaultSpec("synthetic"), Method: "maple", Settings: set, Eval: ev, CheckpointEvery: 5}
}

// fakeCtl records commands and answers like the engine, with events.
type fakeCtl struct {
	mu   sync.Mutex
	cmds []string
	send func(tea.Msg)
	iter int
	// slow delays the answer to one kind of command, as a socket to a
	// busy search would.
	slow map[core.EventKind]time.Duration
}

func (f *fakeCtl) do(kind core.EventKind, lr *core.LearningRates) {
	time.Sleep(f.slow[kind])
	f.mu.Lock()
	f.cmds = append(f.cmds, string(kind))
	send := f.send
	f.mu.Unlock()
	if send != nil {
		send(EventMsg{Event: core.Event{Kind: kind, Iter: f.iter, LR: lr}})
	}
}

// async wraps a program's Send: commands arrive from inside Update, so
// the answers must not block it; one goroutine delivers them in order.
func async(send func(tea.Msg)) func(tea.Msg) {
	q := make(chan tea.Msg, 64)
	go func() {
		for m := range q {
			send(m)
		}
	}()
	return func(m tea.Msg) { q <- m }
}

func (f *fakeCtl) Pause() error       { f.do(core.EventPause, nil); return nil }
func (f *fakeCtl) Resume() error      { f.do(core.EventResume, nil); return nil }
func (f *fakeCtl) Checkpoint() error  { f.do(core.EventCheckpoint, nil); return nil }
func (f *fakeCtl) Exported(int) error { f.do(core.EventExport, nil); return nil }
func (f *fakeCtl) Stop() error {
	f.do(core.EventStop, nil)
	if f.send != nil {
		f.send(EndMsg{Status: core.StatusStopped})
	}
	return nil
}
func (f *fakeCtl) SetLR(l core.LearningRates) error {
	if err := l.Check(); err != nil {
		return err
	}
	f.do(core.EventSetLR, &l)
	return nil
}
func (f *fakeCtl) list() string { f.mu.Lock(); defer f.mu.Unlock(); return strings.Join(f.cmds, ",") }

func keyMsg(s string) tea.KeyPressMsg {
	switch s {
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "ctrl+u":
		return tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

func feed(d *Dashboard, snaps []*core.Snapshot) {
	for _, s := range snaps {
		d.Update(SnapshotMsg{Snap: s})
	}
}

// press sends keys and runs the commands they return (the commands to
// the search), feeding their messages back, as the program would.
func press(d *Dashboard, keys ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		_, cmd = d.Update(keyMsg(k))
		run(d, cmd)
	}
	return cmd
}

// run executes cmd and delivers its message when it is an answer of the
// search (commands that wait, such as a cursor blink, are left).
func run(d *Dashboard, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	got := make(chan tea.Msg, 1)
	go func() { got <- cmd() }()
	select {
	case m := <-got:
		if m, ok := m.(ctlMsg); ok {
			d.Update(m)
		}
	case <-time.After(time.Second): // a cursor blink waits ~0.5 s; commands to the search return at once
	}
}

func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

func TestKeys(t *testing.T) {
	cases := []struct {
		name     string
		detached bool
		keys     []string
		wantCmds string
		check    func(t *testing.T, d *Dashboard, last tea.Cmd)
	}{
		{"space pauses", false, []string{"space"}, "pause", func(t *testing.T, d *Dashboard, _ tea.Cmd) {
			if d.status != core.StatusPaused {
				t.Errorf("status %s", d.status)
			}
		}},
		{"space twice resumes", false, []string{"space", "space"}, "pause,resume", nil},
		{"s checkpoints", false, []string{"s"}, "checkpoint", func(t *testing.T, d *Dashboard, _ tea.Cmd) {
			if !strings.Contains(d.note, "checkpoint") {
				t.Errorf("note %q", d.note)
			}
		}},
		{"l then enter keeps the rates", false, []string{"l", "enter"}, "set_lr", nil},
		{"l edits a rate", false, []string{"l", "ctrl+u", "0", ".", "5", "enter"}, "set_lr", func(t *testing.T, d *Dashboard, _ tea.Cmd) {
			if lr := d.lr(); lr.Weight != 0.5 || lr.Keep != 0.05 {
				t.Errorf("rates %+v", lr)
			}
		}},
		{"a bad rate is refused", false, []string{"l", "ctrl+u", "x", "enter"}, "", func(t *testing.T, d *Dashboard, _ tea.Cmd) {
			if !d.editing || !strings.Contains(d.note, "not a number") {
				t.Errorf("editing %v note %q", d.editing, d.note)
			}
		}},
		{"a zero rate is refused", false, []string{"l", "tab", "ctrl+u", "0", "enter"}, "", func(t *testing.T, d *Dashboard, _ tea.Cmd) {
			if !strings.Contains(d.note, "--keep-lr 0") {
				t.Errorf("note %q", d.note)
			}
		}},
		{"esc cancels the form", false, []string{"l", "ctrl+u", "9", "esc"}, "", func(t *testing.T, d *Dashboard, _ tea.Cmd) {
			if d.editing || d.lr().Weight != 0.25 {
				t.Errorf("editing %v rates %+v", d.editing, d.lr())
			}
		}},
		{"q asks before stopping", false, []string{"q"}, "", func(t *testing.T, d *Dashboard, last tea.Cmd) {
			if !d.confirmQuit || isQuit(last) {
				t.Error("q left without asking")
			}
		}},
		{"q then n stays", false, []string{"q", "n"}, "", func(t *testing.T, d *Dashboard, last tea.Cmd) {
			if d.confirmQuit || isQuit(last) {
				t.Error("n did not cancel")
			}
		}},
		{"q then y stops", false, []string{"q", "y"}, "stop", nil},
		{"esc leaves an attached view", true, []string{"esc"}, "", func(t *testing.T, d *Dashboard, last tea.Cmd) {
			if !isQuit(last) {
				t.Error("esc did not leave")
			}
		}},
		{"esc asks before stopping a local search, as q does", false, []string{"esc"}, "", func(t *testing.T, d *Dashboard, last tea.Cmd) {
			if isQuit(last) || !d.confirmQuit {
				t.Errorf("esc on a local search: quit %v, asked %v; want it to ask, as q does (back to the browser after y)", isQuit(last), d.confirmQuit)
			}
		}},
		{"q leaves an attached view at once", true, []string{"q"}, "", func(t *testing.T, d *Dashboard, last tea.Cmd) {
			if !isQuit(last) {
				t.Error("q did not quit")
			}
		}},
		{"? shows help, a key closes it", false, []string{"?"}, "", func(t *testing.T, d *Dashboard, _ tea.Cmd) {
			if !d.showHelp || !strings.Contains(d.Render(), "this help") {
				t.Error("no help")
			}
			press(d, "x")
			if d.showHelp {
				t.Error("help stayed open")
			}
		}},
		{"tab moves focus", false, []string{"tab"}, "", func(t *testing.T, d *Dashboard, _ tea.Cmd) {
			if d.focus != 1 {
				t.Errorf("focus %d", d.focus)
			}
		}},
		{"arrows scroll", false, []string{"tab", "down", "down", "k"}, "", func(t *testing.T, d *Dashboard, _ tea.Cmd) {
			if sc := d.panes[d.focus].(*groupsPane).scroll; sc != 1 {
				t.Errorf("scroll %d", sc)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctl := &fakeCtl{}
			ctl.iter = 10
			d := NewDashboard(testConfig(), ctl, c.detached)
			ctl.send = func(m tea.Msg) { d.Update(m) }
			feed(d, script(10, 40))
			last := press(d, c.keys...)
			if got := ctl.list(); got != c.wantCmds {
				t.Errorf("commands %q, want %q", got, c.wantCmds)
			}
			if c.check != nil {
				c.check(t, d, last)
			}
		})
	}
}

func TestQuitWhileEvaluating(t *testing.T) {
	ctl := &fakeCtl{}
	d := NewDashboard(testConfig(), ctl, false)
	done := script(40, 40)
	done[39].Status = core.StatusDone
	feed(d, done)
	if d.status != core.StatusEvaluating {
		t.Fatalf("status %s after the last iteration", d.status)
	}
	if cmd := press(d, "q", "y"); isQuit(cmd) || ctl.list() != "" || !strings.Contains(d.note, "evaluation finishes") {
		t.Errorf("q y while evaluating: commands %q note %q", ctl.list(), d.note)
	}
	if _, cmd := d.Update(EndMsg{Status: core.StatusDone}); !isQuit(cmd) {
		t.Error("the end did not quit after q y")
	}
}

func TestEventsAndErrors(t *testing.T) {
	d := NewDashboard(testConfig(), &fakeCtl{}, false)
	feed(d, script(3, 40))
	d.Update(EventMsg{Event: core.Event{Kind: core.EventError, Iter: 3, Error: "inner loss is NaN; the search is paused: fix the cause"}})
	if d.status != core.StatusPaused || !strings.Contains(d.Render(), "inner loss is NaN") {
		t.Error("error not shown")
	}
	d.Update(EndMsg{Status: core.StatusDone})
	if d.status != core.StatusDone || !isQuit(press(d, "q")) {
		t.Error("q after the end must leave")
	}
}

// golden compares the plain rendering (a fixed, colourless profile) with
// testdata/name.golden.
func golden(t *testing.T, name, got string) {
	t.Helper()
	got = ansi.Strip(got) + "\n"
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test ./tui -update rewrites it):\n%s", name, got)
	}
}

func TestGoldenViews(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {160, 48}} {
		for _, view := range []string{"charts", "groups", "form", "help", "empty"} {
			t.Run(fmt.Sprintf("%s-%dx%d", view, sz[0], sz[1]), func(t *testing.T) {
				d := NewDashboard(testConfig(), &fakeCtl{}, false)
				d.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
				if view != "empty" {
					feed(d, script(25, 40))
				}
				switch view {
				case "groups":
					press(d, "tab")
				case "form":
					press(d, "l")
				case "help":
					press(d, "?")
				}
				out := d.Render()
				if n := strings.Count(out, "\n") + 1; n > sz[1] {
					t.Errorf("%d lines for a %d-line terminal", n, sz[1])
				}
				lines := strings.Split(out, "\n")
				for i, l := range lines {
					if w := ansi.StringWidth(l); w > sz[0] {
						t.Errorf("line %d is %d wide", i, w)
					}
				}
				// The footer is always on screen: no pane pushes it off.
				if last := ansi.Strip(lines[len(lines)-1]); !strings.Contains(last, "quit") && !strings.Contains(last, "cancel") && !strings.Contains(last, "close") {
					t.Errorf("the last line is not the footer: %q", last)
				}
				golden(t, fmt.Sprintf("%s-%dx%d", view, sz[0], sz[1]), out)
			})
		}
	}
}

// pauseSetResume runs the dashboard under a real bubbletea program
// steered through ctl, feeds it five iterations and types: space, a
// weight learning rate of lr through the form, space.
func pauseSetResume(t *testing.T, ctl *fakeCtl, lr string) *teatest.TestModel {
	t.Helper()
	tm := teatest.NewTestModel(t, NewDashboard(testConfig(), ctl, false), teatest.WithInitialTermSize(120, 40))
	ctl.mu.Lock()
	ctl.send = async(tm.Send)
	ctl.mu.Unlock()
	for _, s := range script(5, 40) {
		tm.Send(SnapshotMsg{Snap: s})
	}
	tm.Send(keyMsg("space"))
	tm.Send(keyMsg("l"))
	tm.Send(keyMsg("ctrl+u"))
	tm.Type(lr)
	tm.Send(keyMsg("enter"))
	tm.Send(keyMsg("space"))
	return tm
}

// TestEndToEnd drives the real bubbletea program: a scripted search,
// pause, a learning-rate change, resume, quit; the events must match.
func TestEndToEnd(t *testing.T) {
	ctl := &fakeCtl{iter: 5}
	// Messages reach the model in order, so the keys can follow at once.
	tm := pauseSetResume(t, ctl, "0.125")
	tm.Send(keyMsg("q"))
	tm.Send(keyMsg("y"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	if got := ctl.list(); got != "pause,set_lr,resume,stop" {
		t.Errorf("events %q", got)
	}
	fd := tm.FinalModel(t).(*Dashboard)
	if fd.status != core.StatusStopped || len(fd.snaps) != 5 {
		t.Errorf("final status %s with %d iterations", fd.status, len(fd.snaps))
	}
	if lr := fd.lr(); lr.Weight != 0.125 {
		t.Errorf("final weight lr %g", lr.Weight)
	}
}

// TestCommandsInOrder: commands reach the search in the order typed even
// when one is slow to answer, and a second space before the pause takes
// effect asks for a resume, not a second pause. Before the queue, the
// learning-rate change and the resume overtook the slow pause.
func TestCommandsInOrder(t *testing.T) {
	ctl := &fakeCtl{iter: 5, slow: map[core.EventKind]time.Duration{core.EventPause: 300 * time.Millisecond}}
	tm := pauseSetResume(t, ctl, "0.25")
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(ctl.list(), ",") < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	tm.Send(keyMsg("q"))
	tm.Send(keyMsg("y"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	if got := ctl.list(); got != "pause,set_lr,resume,stop" {
		t.Errorf("the search got %q, want pause,set_lr,resume,stop", got)
	}
	if fd := tm.FinalModel(t).(*Dashboard); fd.lr().Weight != 0.25 {
		t.Errorf("final weight lr %g", fd.lr().Weight)
	}
}

func TestRecentPace(t *testing.T) {
	snap := func(it int, el float64) *core.Snapshot { return &core.Snapshot{Iter: it, Elapsed: el} }
	cases := []struct {
		name  string
		snaps []*core.Snapshot
		want  float64
		ok    bool
	}{
		{"none", nil, 0, false},
		{"one", []*core.Snapshot{snap(4, 8)}, 2, true},
		// Slow early iterations do not weigh on the estimate: the last
		// six records span five iterations of 1 s.
		{"recent", []*core.Snapshot{snap(1, 10), snap(2, 20), snap(3, 21), snap(4, 22), snap(5, 23), snap(6, 24), snap(7, 25)}, 1, true},
		// After a resume the records continue from the last elapsed.
		{"resumed", []*core.Snapshot{snap(18, 9), snap(19, 9.5), snap(20, 10)}, 0.5, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := recentPace(c.snaps)
			if ok != c.ok || math.Abs(got-c.want) > 1e-12 {
				t.Errorf("recentPace = %g, %v; want %g, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

// Without colour each line of a multi-line chart gets its own panel.
func TestMonochromeCharts(t *testing.T) {
	d := NewDashboard(testConfig(), &fakeCtl{}, false)
	d.Update(tea.WindowSizeMsg{Width: 120, Height: 1000})
	feed(d, script(10, 40))
	d.Update(tea.ColorProfileMsg{Profile: colorprofile.Ascii})
	out := d.Render()
	for _, want := range []string{"accuracy: val worst-group", "accuracy: TEST average", "group weight fractions: y=0,a=1", "group weight fractions: y=1,a=1"} {
		if !strings.Contains(out, want) {
			t.Errorf("monochrome view lacks the panel %q", want)
		}
	}
}

// Keys typed before an attached view is ready (type-ahead meant for the
// browser) do not steer the search.
func TestTypeAheadDropped(t *testing.T) {
	ctl := &fakeCtl{}
	d := NewDashboard(testConfig(), ctl, true)
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	d.now = func() time.Time { return now }
	d.keysFrom = now.Add(time.Second)
	press(d, "s", "space")
	if ctl.list() != "" {
		t.Errorf("type-ahead reached the search: %s", ctl.list())
	}
	now = now.Add(2 * time.Second)
	press(d, "s")
	if ctl.list() != "checkpoint" {
		t.Errorf("a key after the guard: %q", ctl.list())
	}
}

// A successful export from the dashboard of a live search is recorded.
func TestExportRecorded(t *testing.T) {
	ctl := &fakeCtl{}
	d := NewDashboard(testConfig(), ctl, false)
	_, cmd := d.Update(exportedMsg{iter: 4, which: "the validation-selected iterate 2 of 4"})
	run(d, cmd)
	if ctl.list() != "export" || !strings.Contains(d.note, "u.npy") {
		t.Errorf("commands %q, note %q", ctl.list(), d.note)
	}
}

// An attached dashboard learns how the search ended when its connection
// closes (was: "running" for ever): the run's status on disk once no
// process holds it, else "unknown" with a word.
func TestAttachedEnd(t *testing.T) {
	dir := t.TempDir()
	r, err := runs.Open(dir).Create(runs.DefaultConfig("synthetic"))
	if err != nil {
		t.Fatal(err)
	}
	if st := endedAs(r.Dir, 100*time.Millisecond); st != core.StatusUnknown {
		t.Errorf("a run still held: %s, want unknown", st)
	}
	os.WriteFile(r.Path(runs.SummaryFile), []byte(`{"status":"stopped","iter":3,"total":40}`), 0o600)
	r.Close()
	if st := endedAs(r.Dir, time.Second); st != core.StatusStopped {
		t.Errorf("a stopped run: %s", st)
	}
	d := NewDashboard(testConfig(), &fakeCtl{}, true)
	feed(d, script(3, 40))
	d.Update(EndMsg{Status: core.StatusStopped})
	if d.status != core.StatusStopped {
		t.Errorf("status %s after the end, want stopped", d.status)
	}
	d = NewDashboard(testConfig(), &fakeCtl{}, true)
	feed(d, script(3, 40))
	d.Update(EndMsg{})
	if d.status == core.StatusRunning || !strings.Contains(d.note, "connection to the search closed") {
		t.Errorf("after the connection closed: status %s, note %q", d.status, d.note)
	}
}

// A warning event (a resume set a damaged record aside) shows in the
// dashboard's note, where the person is looking.
func TestWarningShown(t *testing.T) {
	d := NewDashboard(testConfig(), &fakeCtl{}, false)
	feed(d, script(3, 40))
	d.Update(EventMsg{Event: core.Event{Kind: core.EventWarning, Iter: 3, Error: "metrics.jsonl: line 4 damaged; moved to metrics.dropped.jsonl"}})
	if !strings.Contains(d.note, "warning: metrics.jsonl: line 4 damaged") {
		t.Errorf("note %q", d.note)
	}
}

// TestResumedAfterStop: a run stopped and resumed carries its stop event
// in its history, followed by the resume; the header must say running,
// not "stopping" for ever (issue 25, defect 2), in the process that runs
// it and in an attached one.
func TestResumedAfterStop(t *testing.T) {
	for _, detached := range []bool{false, true} {
		d := NewDashboard(testConfig(), &fakeCtl{}, detached)
		snaps := script(6, 40)
		d.Update(HistoryMsg{Snaps: snaps[:4], Events: []core.Event{{Kind: core.EventStop, Iter: 4}, {Kind: core.EventResume, Iter: 4}}})
		for _, s := range snaps[4:] {
			d.Update(SnapshotMsg{Snap: s})
		}
		if d.stopping || strings.Contains(ansi.Strip(d.Render()), "stopping") {
			t.Errorf("detached %v: the header says stopping after the resume:\n%s", detached, ansi.Strip(d.header(120)))
		}
		if d.status != core.StatusRunning {
			t.Errorf("detached %v: status %s", detached, d.status)
		}
	}
}

// TestStopKey: x asks before stopping the search, also from an attached
// view, and y sends the stop; any other key keeps it running; a finished
// view offers no x (issue 25, build item 3).
func TestStopKey(t *testing.T) {
	for _, detached := range []bool{false, true} {
		ctl := &fakeCtl{}
		d := NewDashboard(testConfig(), ctl, detached)
		feed(d, script(3, 40))
		press(d, "x")
		if !d.confirmQuit || !strings.Contains(d.note, "stop the search") {
			t.Fatalf("detached %v: x did not ask: %q", detached, d.note)
		}
		press(d, "n")
		press(d, "x", "y")
		ctl.mu.Lock()
		cmds := strings.Join(ctl.cmds, ",")
		ctl.mu.Unlock()
		if cmds != "stop" {
			t.Errorf("detached %v: commands %q, want one stop", detached, cmds)
		}
	}
	d := NewDashboard(testConfig(), &fakeCtl{}, true)
	d.Update(EndMsg{Status: core.StatusStopped})
	if strings.Contains(ansi.Strip(d.footer(200)), "x stop") {
		t.Error("a finished view offers x stop")
	}
}

// TestChartCursorAndZoom: ← puts a cursor on the latest iteration and
// moves it back, reading out every series' value there; z zooms in about
// the cursor, numbering the iterations as they are, and Z zooms out.
func TestChartCursorAndZoom(t *testing.T) {
	d := NewDashboard(testConfig(), &fakeCtl{}, false)
	d.Update(tea.WindowSizeMsg{Width: 120, Height: 60})
	feed(d, script(80, 80))
	press(d, "left", "left")
	cv := &d.panes[0].(*chartsPane).charts
	if c, _ := cv.CursorX(); c != 78 {
		t.Fatalf("cursor at %d, want 78", c)
	}
	r := ansi.Strip(d.Render())
	for _, want := range []string{"cursor iteration 78 (values in the legends)", fmt.Sprintf("outer risk  ━ R %.4g ", d.snaps[77].OuterRisk)} {
		if !strings.Contains(r, want) {
			t.Errorf("no readout %q in:\n%s", want, r)
		}
	}
	press(d, "z")
	r = ansi.Strip(d.Render())
	if !strings.Contains(r, "zoom: iterations 41–80 of 1–80") || !strings.Contains(r, " 41 ") || !strings.Contains(r, " 80 ") {
		t.Errorf("zoomed charts do not number iterations 41 to 80:\n%s", r)
	}
	press(d, "Z")
	if r = ansi.Strip(d.Render()); strings.Contains(r, "zoom:") {
		t.Errorf("Z did not zoom out to every iteration:\n%s", r)
	}
}

// TestEvaluationProgress: after the search the dashboard says how far the
// final training has come, the shared evaluation's candidate first, then
// the training it selects on, beneath a question or another note; once
// the run ended it says no more.
func TestEvaluationProgress(t *testing.T) {
	d := NewDashboard(testConfig(), &fakeCtl{}, false)
	d.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	done := script(40, 40)
	done[39].Status = core.StatusDone
	feed(d, done)
	for _, tc := range []struct {
		msg  EvalProgressMsg
		want string
	}{
		{EvalProgressMsg{Step: 250, Steps: 500, Stage: "the shared evaluation's candidate", ValWorst: -1}, "training the shared evaluation's candidate: step 250/500"},
		{EvalProgressMsg{Step: 120, Steps: 200, ValWorst: 0.7123}, "training the evaluation model: step 120/200, val worst-group 0.7123"},
	} {
		d.Update(tc.msg)
		if !strings.Contains(d.View().Content, tc.want) {
			t.Errorf("after %+v the screen lacks %q:\n%s", tc.msg, tc.want, d.View().Content)
		}
	}
	// A question stays until answered: the progress goes on beneath it.
	press(d, "q")
	d.Update(EvalProgressMsg{Step: 121, Steps: 200, ValWorst: 0.7124})
	if v := d.View().Content; !strings.Contains(v, "Leave when it ends? y/n") || strings.Contains(v, "step 121/200") {
		t.Errorf("the quit question was replaced by the progress:\n%s", v)
	}
	press(d, "n")
	if v := d.View().Content; !strings.Contains(v, "step 121/200") {
		t.Errorf("after n the progress is not shown again:\n%s", v)
	}
	d.Update(EndMsg{Status: core.StatusDone})
	d.Update(EvalProgressMsg{Step: 200, Steps: 200, ValWorst: 0.7})
	if strings.Contains(d.View().Content, "step 200/200") {
		t.Error("progress shown after the run ended")
	}
}

// TestHeaderNamesPrecision: a search whose inner products run in bf16
// says so beside its model in the header, at every width; an f32 one
// (the default, recorded as "" or "f32") names no precision.
func TestHeaderNamesPrecision(t *testing.T) {
	for _, tc := range []struct {
		name, precision string
		want            bool
	}{
		{"default", "", false},
		{"f32", "f32", false},
		{"bf16", "bf16", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Settings.Precision = tc.precision
			d := NewDashboard(cfg, &fakeCtl{}, false)
			for _, w := range []int{60, 120, 200} {
				h := ansi.Strip(d.header(w))
				if got := strings.Contains(h, "bf16"); got != tc.want {
					t.Errorf("width %d: header names bf16 %v, want %v:\n%s", w, got, tc.want, h)
				}
				if strings.Contains(h, "f32") {
					t.Errorf("width %d: header names f32:\n%s", w, h)
				}
			}
		})
	}
}

// TestFeedGapsFilled: the live feed keeps only the latest iteration, so
// a dashboard that falls behind (maple attach at 200x60 on a fast
// search) sees iterations 1, 2, then 9; it reads the ones passed over
// from the run's metrics.jsonl, and its charts have a point per
// iteration (their x axis read 1 17 33 49 70 95 while the search was at
// 100).
func TestFeedGapsFilled(t *testing.T) {
	dir := t.TempDir()
	snaps := script(12, 12)
	var lines []string
	for _, s := range snaps[:10] {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(filepath.Join(dir, runs.MetricsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := NewDashboard(testConfig(), &fakeCtl{}, true)
	d.SetDir(dir)
	d.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	feed(d, snaps[:2])
	_, cmd := d.Update(SnapshotMsg{Snap: snaps[8]})
	if cmd == nil {
		t.Fatal("a gap from iteration 2 to 9 read nothing")
	}
	_, again := d.Update(SnapshotMsg{Snap: snaps[11]}) // a second gap while the read is under way
	if again != nil {
		t.Error("a second read was started while one is under way")
	}
	d.Update(cmd())
	var iters []int
	for _, s := range d.snaps {
		iters = append(iters, s.Iter)
	}
	// The file has 1 to 10: 11 is not written yet, and its gap stays
	// until the next read.
	if fmt.Sprint(iters) != "[1 2 3 4 5 6 7 8 9 10 12]" {
		t.Errorf("iterations %v, want 1 to 10, then 12", iters)
	}
	_, cmd = d.Update(SnapshotMsg{Snap: script(14, 12)[13]})
	if cmd == nil {
		t.Fatal("a later gap read nothing")
	}
}

// TestFillGaps: iterations taken from the record go between the first
// and the last the feed brought, never before, after, or twice.
func TestFillGaps(t *testing.T) {
	at := func(iters ...int) []*core.Snapshot {
		var out []*core.Snapshot
		for _, i := range iters {
			out = append(out, &core.Snapshot{Iter: i})
		}
		return out
	}
	for _, tc := range []struct {
		name           string
		have, recorded []*core.Snapshot
		want           string
	}{
		{"a gap", at(1, 2, 6), at(1, 2, 3, 4, 5, 6, 7), "[1 2 3 4 5 6]"},
		{"two gaps", at(3, 5, 9), at(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), "[3 4 5 6 7 8 9]"},
		{"the record behind", at(1, 2, 8), at(1, 2, 3, 4), "[1 2 3 4 8]"},
		{"no gap", at(1, 2, 3), at(1, 2, 3), "[1 2 3]"},
		{"one iteration", at(5), at(1, 2, 3, 4, 5), "[5]"},
		{"an empty record", at(1, 4), nil, "[1 4]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			for _, s := range fillGaps(tc.have, tc.recorded) {
				got = append(got, s.Iter)
			}
			if fmt.Sprint(got) != tc.want {
				t.Errorf("got %v, want %s", got, tc.want)
			}
		})
	}
}

// TestAttachedEndShowsResult: an attached view of a search that
// finishes shows its result once the socket closes (it said only "the
// search has ended"; the figures were in a replay only).
func TestAttachedEndShowsResult(t *testing.T) {
	r, err := runs.Open(t.TempDir()).Create(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res := &train.Result{TestAcc: 0.7123, TestWorst: 0.6987, SelectedStep: 42}
	if err := r.WriteSummary(&runs.Summary{Done: true, Status: core.StatusDone, Iter: 30, Total: 30, Result: res}); err != nil {
		t.Fatal(err)
	}
	d := NewDashboard(testConfig(), &fakeCtl{}, true)
	d.SetDir(r.Dir)
	d.Update(endOf(r.Dir, core.StatusDone))
	if !strings.Contains(d.note, "test acc 0.7123 · test worst-group 0.6987") || !strings.Contains(d.note, "step 42") {
		t.Errorf("note %q, want the result", d.note)
	}
	if m := endOf(r.Dir, core.StatusStopped); m.Result != nil {
		t.Errorf("a stopped run's end carries a result: %+v", m.Result)
	}
}

// TestRatesFormFooterNarrow: at 60 columns the learning-rate form's
// footer still shows how to apply and cancel (it showed the two field
// keys and was cut before them).
func TestRatesFormFooterNarrow(t *testing.T) {
	d := NewDashboard(testConfig(), &fakeCtl{}, false)
	d.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	feed(d, script(3, 10))
	press(d, "l")
	out := ansi.Strip(d.Render())
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if foot := lines[len(lines)-1]; !strings.Contains(foot, "enter") || !strings.Contains(foot, "esc cancel") {
		t.Errorf("footer %q lacks enter and esc:\n%s", foot, out)
	}
}

// TestFillKeepsCursor: the iterations read back into a gap come before
// the cursor's point, and the cursor stays on its iteration (it moved
// from iteration 9 to 3).
func TestFillKeepsCursor(t *testing.T) {
	dir := t.TempDir()
	snaps := script(12, 12)
	var lines []string
	for _, s := range snaps {
		b, _ := json.Marshal(s)
		lines = append(lines, string(b))
	}
	os.WriteFile(filepath.Join(dir, runs.MetricsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	d := NewDashboard(testConfig(), &fakeCtl{}, true)
	d.SetDir(dir)
	d.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	feed(d, snaps[:2])
	_, fill := d.Update(SnapshotMsg{Snap: snaps[8]})
	d.Update(SnapshotMsg{Snap: snaps[9]})
	press(d, "left") // the cursor on iteration 9
	if out := ansi.Strip(d.Render()); !strings.Contains(out, "cursor iteration 9") {
		t.Fatalf("no cursor on iteration 9:\n%s", out)
	}
	d.Update(fill())
	d.Update(SnapshotMsg{Snap: snaps[10]})
	if out := ansi.Strip(d.Render()); !strings.Contains(out, "cursor iteration 9") {
		t.Errorf("the cursor left iteration 9 when 3 to 8 came:\n%s", out)
	}
}

// TestFillAtMostOnceASecond: a view that keeps falling behind reads
// metrics.jsonl at most once a second: the first read at once, the next
// a second after the previous one came back.
func TestFillAtMostOnceASecond(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := t0
	d := NewDashboard(testConfig(), &fakeCtl{}, true)
	d.now = func() time.Time { return now }
	if w := d.fillWait(); w > 0 {
		t.Errorf("the first read waits %v", w)
	}
	d.Update(recordedMsg{})
	now = t0.Add(100 * time.Millisecond)
	if w := d.fillWait(); w != 900*time.Millisecond {
		t.Errorf("a read 0.1 s after the last waits %v, want 0.9 s", w)
	}
	now = t0.Add(2 * time.Second)
	if w := d.fillWait(); w > 0 {
		t.Errorf("a read 2 s after the last waits %v", w)
	}
}

// TestEndNoteSaysStopped: a search stopped from elsewhere (maple stop in
// another shell) or interrupted says so, with the command that resumes
// it, in the dashboard that runs it and in an attached one; it said only
// "the search has ended".
func TestEndNoteSaysStopped(t *testing.T) {
	for _, tc := range []struct {
		name     string
		detached bool
		status   core.Status
		want     []string
	}{
		{"stopped, local", false, core.StatusStopped, []string{"stopped at iteration 3", "maple resume 20261122-000000-01 --runs-dir /data/runs", "q leaves"}},
		{"stopped, attached", true, core.StatusStopped, []string{"stopped at iteration 3", "maple resume 20261122-000000-01 --runs-dir /data/runs"}},
		{"interrupted, attached", true, core.StatusInterrupted, []string{"interrupted at iteration 3", "maple resume 20261122-000000-01 --runs-dir /data/runs"}},
		{"done without a result", false, core.StatusDone, []string{"the search has ended; q leaves"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDashboard(testConfig(), &fakeCtl{}, tc.detached)
			d.SetDir("/data/runs/20261122-000000-01")
			feed(d, script(3, 40))
			d.Update(EndMsg{Status: tc.status})
			for _, w := range tc.want {
				if !strings.Contains(d.note, w) {
					t.Errorf("note %q lacks %q", d.note, w)
				}
			}
			if tc.status != core.StatusDone && strings.Contains(d.note, "has ended") {
				t.Errorf("note %q does not say how it ended", d.note)
			}
			// The whole command shows on an 80-column screen.
			d.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
			if screen := strings.Join(strings.Fields(ansi.Strip(d.Render())), " "); len(tc.want) > 1 && !strings.Contains(screen, tc.want[1]) {
				t.Errorf("the command is cut on the screen:\n%s", ansi.Strip(d.Render()))
			}
		})
	}
}
