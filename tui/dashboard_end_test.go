package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/maple-ood/maple/core"
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
