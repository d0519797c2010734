package tui

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
)

// recordingPane is a pane that keeps the messages it is sent.
type recordingPane struct{ got []tea.Msg }

func (p *recordingPane) Update(msg tea.Msg) tea.Cmd { p.got = append(p.got, msg); return nil }
func (p *recordingPane) SetSize(int, int, bool)     {}
func (p *recordingPane) View() string               { return "" }

// TestPanesAlike: the dashboard names no pane. What the samples pane
// needs (the run directory, the training split, new exports, the end,
// its group key) reaches every pane, so that any pane can take it.
func TestPanesAlike(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(d *Dashboard)
		want string // the message every pane gets, printed with %T
	}{
		{"the run directory", func(d *Dashboard) { d.SetDir(t.TempDir()) }, "tui.runDirMsg"},
		{"the training split", func(d *Dashboard) { d.SetTrain(&dataset.Dataset{}) }, "tui.trainMsg"},
		{"an export", func(d *Dashboard) { d.Update(exportedMsg{iter: 3, which: "iterate 3"}) }, "tui.exportedMsg"},
		{"the end", func(d *Dashboard) { d.Update(EndMsg{Status: core.StatusDone}) }, "tui.EndMsg"},
		{"a pane's own key", func(d *Dashboard) { press(d, "g") }, "tea.KeyPressMsg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDashboard(testConfig(), nil, true)
			panes := []*recordingPane{{}, {}, {}}
			d.panes = []pane{panes[0], panes[1], panes[2]}
			tc.do(d)
			for i, p := range panes {
				found := false
				for _, m := range p.got {
					found = found || fmt.Sprintf("%T", m) == tc.want
				}
				if !found {
					t.Errorf("pane %d (focused: %v) got %d messages, no %s", i, i == d.focus, len(p.got), tc.want)
				}
			}
		})
	}
}
