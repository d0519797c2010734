package tui

import (
	"io"
	"regexp"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// TestColourProfiles renders the dashboard through the real program under
// 256-colour, 16-colour and no-colour (NO_COLOR) profiles and checks the
// escape sequences each may use.
func TestColourProfiles(t *testing.T) {
	c256 := regexp.MustCompile(`\x1b\[[0-9;]*[34]8;5;`)
	c24 := regexp.MustCompile(`\x1b\[[0-9;]*[34]8;2;`)
	anyColour := regexp.MustCompile(`\x1b\[[0-9;]*(3[0-7]|9[0-7]|4[0-7]|10[0-7]|[34]8;)[0-9;]*m`)
	for _, c := range []struct {
		name    string
		profile colorprofile.Profile
		check   func(out string) string
	}{
		{"256", colorprofile.ANSI256, func(out string) string {
			if c24.MatchString(out) {
				return "true-colour sequence in a 256-colour terminal"
			}
			return ""
		}},
		{"16", colorprofile.ANSI, func(out string) string {
			if c256.MatchString(out) || c24.MatchString(out) {
				return "256- or true-colour sequence in a 16-colour terminal"
			}
			return ""
		}},
		{"no-colour", colorprofile.Ascii, func(out string) string {
			if anyColour.MatchString(out) {
				return "colour sequence with NO_COLOR"
			}
			return ""
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &drawnModel{Dashboard: NewDashboard(testConfig(), &fakeCtl{}, false), want: 20, drawn: make(chan struct{})}
			tm := teatest.NewTestModel(t, d, teatest.WithInitialTermSize(120, 40),
				teatest.WithProgramOptions(tea.WithColorProfile(c.profile)))
			for _, s := range script(20, 40) {
				tm.Send(SnapshotMsg{Snap: s})
			}
			select {
			case <-d.drawn:
			case <-time.After(30 * time.Second):
				t.Fatal("the dashboard did not draw the 20 snapshots within 30 s")
			}
			tm.Send(tea.QuitMsg{})
			tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
			b, _ := io.ReadAll(tm.FinalOutput(t))
			out := string(b)
			if len(out) < 1000 {
				t.Fatalf("rendered only %d bytes", len(out))
			}
			if msg := c.check(out); msg != "" {
				t.Error(msg)
			}
			if c.name == "256" && !c256.MatchString(out) && !anyColour.MatchString(out) {
				t.Error("no colour at all in a 256-colour terminal")
			}
		})
	}
}

// drawnModel is a dashboard that closes drawn once it has drawn a view
// holding want snapshots.
type drawnModel struct {
	*Dashboard
	want  int
	drawn chan struct{}
	once  sync.Once
}

func (m *drawnModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.Dashboard.Update(msg)
	return m, cmd
}

func (m *drawnModel) View() tea.View {
	v := m.Dashboard.View()
	if len(m.Dashboard.snaps) >= m.want {
		m.once.Do(func() { close(m.drawn) })
	}
	return v
}
