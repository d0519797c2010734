package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

// fakeRuns makes three run directories: a finished maple/rex search, an
// erm baseline and an interrupted maple/irmv1 search.
func fakeRuns(t *testing.T) string {
	dir := t.TempDir()
	start := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	mk := func(method, objective string, iters int, done bool) {
		cfg := testConfig()
		cfg.Method, cfg.Settings.Objective, cfg.Started = method, objective, start
		r, err := runs.Create(dir, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var lines []string
		for _, s := range script(iters, 40) {
			s.ValWorst += map[string]float64{"rex": 0.05, "irmv1": 0}[objective]
			b, _ := json.Marshal(s)
			lines = append(lines, string(b))
		}
		if len(lines) > 0 {
			os.WriteFile(r.Path(runs.MetricsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
		}
		if done {
			sum := runs.Summary{Done: true, Status: "done", Result: &core.Result{Method: method, Selection: "validation", TestAcc: 0.7, TestWorst: 0.65,
				GroupNames: []string{"a", "b"}, PerGroupTest: []float64{0.7, 0.65}}}
			b, _ := json.Marshal(sum)
			os.WriteFile(r.Path(runs.SummaryFile), b, 0o644)
		}
	}
	mk("maple", "rex", 40, true)
	mk("erm", "irmv1", 0, true)
	mk("maple", "irmv1", 12, false)
	return dir
}

func TestBrowserKeys(t *testing.T) {
	dir := fakeRuns(t)
	newB := func() *Browser {
		b := NewBrowser(dir)
		b.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
		return b
	}
	t.Run("lists every run", func(t *testing.T) {
		b := newB()
		out := b.Render()
		for _, want := range []string{"maple/rex", "erm", "maple/irmv1", "interrupted", "12/40", "65.0%"} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %q in\n%s", want, out)
			}
		}
	})
	t.Run("filter", func(t *testing.T) {
		b := newB()
		for _, k := range []string{"/", "i", "r", "m", "enter"} {
			b.Update(key(k))
		}
		if len(b.view) != 1 || b.view[0].Method != "maple/irmv1" {
			t.Errorf("filtered to %v", b.view)
		}
		b.Update(key("/"))
		b.Update(key("esc"))
		if len(b.view) != 3 {
			t.Errorf("esc kept the filter: %d rows", len(b.view))
		}
	})
	t.Run("sort", func(t *testing.T) {
		b := newB()
		for range 5 {
			b.Update(key("s")) // to BEST VAL WG
		}
		b.Update(key("S"))
		if b.sortCol != 5 || !b.desc || b.view[0].Method != "maple/rex" {
			t.Errorf("sort column %d desc %v first %s", b.sortCol, b.desc, b.view[0].Method)
		}
	})
	t.Run("enter replays a search", func(t *testing.T) {
		b := newB()
		b.Update(key("enter"))
		if b.mode != "run" || b.replay == nil || len(b.replay.snaps) != 40 || !strings.Contains(b.Render(), "iter 40/40") {
			t.Fatalf("mode %s", b.mode)
		}
		b.Update(key("esc"))
		if b.mode != "list" {
			t.Error("esc did not go back")
		}
	})
	t.Run("enter shows a baseline's result", func(t *testing.T) {
		b := newB()
		b.Update(key("down"))
		b.Update(key("enter"))
		if !strings.Contains(b.Render(), "baseline erm") || !strings.Contains(b.Render(), "oracle selection") {
			t.Errorf("baseline view:\n%s", b.Render())
		}
	})
	t.Run("compare needs two", func(t *testing.T) {
		b := newB()
		b.Update(key("c"))
		if b.mode != "list" || !strings.Contains(b.note, "select exactly two") {
			t.Errorf("note %q", b.note)
		}
		b.Update(key("space"))
		b.Update(key("down"))
		b.Update(key("down"))
		b.Update(key("space"))
		b.Update(key("c"))
		out := b.Render()
		if b.mode != "compare" || !strings.Contains(out, "settings.Objective") || !strings.Contains(out, `"rex" → "irmv1"`) {
			t.Errorf("compare:\n%s", out)
		}
	})
	t.Run("actions", func(t *testing.T) {
		b := newB()
		b.Update(key("a"))
		if b.Chosen().Kind != "" || !strings.Contains(b.note, "running search") {
			t.Error("attach offered on a finished run")
		}
		b.Update(key("down"))
		b.Update(key("down"))
		_, cmd := b.Update(key("r"))
		if a := b.Chosen(); a.Kind != "resume" || !isQuit(cmd) {
			t.Errorf("resume: %+v", a)
		}
		b = newB()
		b.Update(key("n"))
		for range 4 {
			b.Update(key("tab")) // to seed
		}
		b.Update(key("ctrl+u"))
		b.Update(key("7"))
		_, cmd = b.Update(key("enter"))
		a := b.Chosen()
		if a.Kind != "new" || !isQuit(cmd) || !strings.Contains(strings.Join(a.Args, " "), "--objective rex --model linear --seed 7") {
			t.Errorf("new: %+v", a)
		}
	})
}

func TestBrowserGolden(t *testing.T) {
	dir := fakeRuns(t)
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		b := NewBrowser(dir)
		b.dir = "runs" // stable across machines
		b.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		golden(t, fmt.Sprintf("browser-%dx%d", sz[0], sz[1]), b.Render())
		b.dir = dir
		b.Update(key("enter"))
		golden(t, fmt.Sprintf("browser-run-%dx%d", sz[0], sz[1]), b.Render())
	}
}

func TestExportKey(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig()
	cfg.Settings.OuterIters, cfg.Settings.InnerSteps, cfg.CheckpointEvery = 3, 5, 1
	cfg.Eval = core.DefaultEval()
	cfg.Eval.Model, cfg.Eval.Steps = "linear", 5
	r, err := runs.Create(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runs.Execute(context.Background(), r, runs.Options{}); err != nil {
		t.Fatal(err)
	}
	r.Close()
	for _, f := range []string{runs.WeightsNPY, runs.WeightsCSV} {
		os.Remove(r.Path(f))
	}
	d := NewDashboard(cfg, nil, true)
	d.SetDir(r.Dir)
	cmd := press(d, "e")
	if cmd == nil {
		t.Fatal("e gave no command")
	}
	d.Update(cmd())
	if !strings.Contains(d.note, "at iteration 3") {
		t.Errorf("note %q", d.note)
	}
	for _, f := range []string{runs.WeightsNPY, runs.WeightsCSV} {
		if _, err := os.Stat(r.Path(f)); err != nil {
			t.Errorf("%s not exported", f)
		}
	}
}
