package tui

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

// TestEndedHeaderHasNoETA: a search that has ended (stopped from
// another shell or by x, interrupted, failed, done) has no time left:
// its header shows no eta, and its status says how it ended. After
// maple stop the header still read "eta 5m58s".
func TestEndedHeaderHasNoETA(t *testing.T) {
	for _, tc := range []struct {
		name   string
		end    EndMsg
		status string
	}{
		{"stopped", EndMsg{Status: core.StatusStopped}, "stopped"},
		{"interrupted", EndMsg{Status: core.StatusInterrupted}, "interrupted"},
		{"failed", EndMsg{Status: core.StatusFailed, Err: errors.New("the disk is full")}, "failed"},
		{"done", EndMsg{Status: core.StatusDone}, "done"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDashboard(testConfig(), &fakeCtl{}, false)
			d.SetDir("/data/runs/20261122-000000-01")
			feed(d, script(12, 40))
			if h := ansi.Strip(d.header(120)); !strings.Contains(h, "eta ") {
				t.Fatalf("a running search's header has no eta:\n%s", h)
			}
			d.Update(tc.end)
			for _, w := range []int{60, 120, 200} {
				h := ansi.Strip(d.header(w))
				if strings.Contains(h, "eta") {
					t.Errorf("width %d: the header of the %s search shows an eta:\n%s", w, tc.name, h)
				}
				if first, _, _ := strings.Cut(h, "\n"); !strings.Contains(first, tc.status) {
					t.Errorf("width %d: the header does not say %s:\n%s", w, tc.status, h)
				}
			}
		})
	}
	// Its replay too: a stopped run read back from its records.
	d := NewDashboard(testConfig(), nil, true)
	d.Update(HistoryMsg{Snaps: script(12, 40)})
	d.status, d.ended = core.StatusStopped, true
	if h := ansi.Strip(d.header(120)); strings.Contains(h, "eta") {
		t.Errorf("a replayed stopped search shows an eta:\n%s", h)
	}
}

// TestFailedEndSaysNextStep: a failed search says how to go on, in the
// words maple run prints (runs.Store.Continue): fix the cause and resume, or,
// after a non-finite value, resume with lower rates; in the dashboard
// that runs it and in an attached one, and the whole command shows on
// an 80-column screen. It said only "the search has ended".
func TestFailedEndSaysNextStep(t *testing.T) {
	const cmd = "maple resume 20261122-000000-01 --runs-dir /data/runs"
	for _, tc := range []struct {
		name     string
		detached bool
		end      EndMsg
		want     []string
	}{
		{"disk full, local", false,
			EndMsg{Status: core.StatusFailed, Err: errors.New("cannot write weights.csv: the disk is full; free some space and try again"),
				Summary: &runs.Summary{Status: core.StatusFailed, Iter: 12, Total: 40, Error: "cannot write weights.csv: the disk is full; free some space and try again"}},
			[]string{"failed at iteration 12", "fix the cause, then continue with: " + cmd, "q leaves"}},
		{"disk full, local, no summary", false,
			EndMsg{Status: core.StatusFailed, Err: errors.New("cannot write summary.json: the disk is full")},
			[]string{"failed at iteration 12", "fix the cause, then continue with: " + cmd}},
		{"non-finite, attached", true,
			EndMsg{Status: core.StatusFailed, Summary: &runs.Summary{Status: core.StatusFailed, Iter: 12, Total: 40,
				Error: "inner loss is NaN: non-finite value; lower the inner learning rate", Rates: core.LearningRates{Weight: 0.25, Keep: 0.05, Inner: 0.1}}},
			[]string{"failed at iteration 12", "continue with lower rates, e.g.: " + cmd + " --inner-lr 0.01 --weight-lr 0.25 --keep-lr 0.05"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDashboard(testConfig(), &fakeCtl{}, tc.detached)
			d.SetDir("/data/runs/20261122-000000-01")
			feed(d, script(12, 40))
			d.Update(tc.end)
			for _, w := range tc.want {
				if !strings.Contains(d.note, w) {
					t.Errorf("note %q lacks %q", d.note, w)
				}
			}
			if strings.Contains(d.note, "has ended") {
				t.Errorf("note %q does not say how to go on", d.note)
			}
			if d.errText == "" {
				t.Errorf("no error line: the header does not say why it failed")
			}
			d.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
			if screen := strings.Join(strings.Fields(ansi.Strip(d.Render())), " "); !strings.Contains(screen, tc.want[1]) {
				t.Errorf("the next step is cut on the screen:\n%s", ansi.Strip(d.Render()))
			}
		})
	}
}

// TestFailedRunReadBack: an attached view learns a failed end from the
// run's summary, and a failed run's replay in the browser, with the
// same next step.
func TestFailedRunReadBack(t *testing.T) {
	dir := t.TempDir()
	r, err := runs.Open(dir).Create(runs.DefaultConfig("synthetic"))
	if err != nil {
		t.Fatal(err)
	}
	sum := &runs.Summary{Status: core.StatusFailed, Iter: 7, Total: 30, Error: "cannot write weights.csv: the disk is full"}
	if err := r.WriteSummary(sum); err != nil {
		t.Fatal(err)
	}
	r.Close()
	want := "fix the cause, then continue with: maple resume " + r.Config.ID + " --runs-dir " + dir
	end := endOf(r.Dir, core.StatusFailed)
	if end.Summary == nil || end.Summary.Error != sum.Error {
		t.Fatalf("the end of an attached view has no summary: %+v", end)
	}
	d := NewDashboard(r.Config, &fakeCtl{}, true)
	d.SetDir(r.Dir)
	d.Update(end)
	if !strings.Contains(d.note, want) || !strings.Contains(d.errText, "the disk is full") {
		t.Errorf("attached: note %q, error %q", d.note, d.errText)
	}
	d, _, err = replay(r.Dir, core.StatusFailed, 120, 40)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.note, want) {
		t.Errorf("replay: note %q lacks %q", d.note, want)
	}
}
