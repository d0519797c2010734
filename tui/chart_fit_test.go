package tui

import (
	"fmt"
	"math"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestChartsFitPane: every line of the charts pane fits the pane's
// width at every terminal size, whatever the y labels: a risk over
// several orders of magnitude on a log scale ("1.23e-09"), and tiny
// negative values on a linear one ("-1.2345e-6"), with the cursor,
// smoothing, zoom and wall time. Wide labels made the plot wider than
// the pane, which cut its latest points off.
func TestChartsFitPane(t *testing.T) {
	risks := map[string]func(i int) float64{
		// 1e-1 down to 1e-9, with spikes.
		"orders of magnitude": func(i int) float64 { return math.Pow(10, -1-8*float64(i)/60) * (1 + 0.9*float64(i%7)/7) },
		// -1.2345e-6, give or take 2e-10.
		"tiny and negative":  func(i int) float64 { return -1.2345e-6 + 2e-10*math.Sin(float64(i)/5) },
		"large and negative": func(i int) float64 { return -123456.7 * (1 + 0.5*math.Sin(float64(i)/3)) },
	}
	modes := []struct {
		name string
		keys []string
	}{
		{"linear", nil},
		{"log", []string{"y"}},
		{"log, cursor, smoothed", []string{"y", "left", "left", "m"}},
		{"log, zoomed, wall time", []string{"y", "left", "z", "t"}},
		{"everything", []string{"y", "left", "z", "m", "t"}},
	}
	for name, risk := range risks {
		for _, mode := range modes {
			for _, sz := range [][2]int{{60, 20}, {80, 24}, {120, 40}, {200, 60}} {
				t.Run(fmt.Sprintf("%s/%s/%dx%d", name, mode.name, sz[0], sz[1]), func(t *testing.T) {
					d := NewDashboard(testConfig(), &fakeCtl{}, false)
					d.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
					snaps := script(60, 60)
					for i, s := range snaps {
						s.OuterRisk = risk(i)
					}
					feed(d, snaps)
					press(d, mode.keys...)
					d.Render() // lays the panes out
					p := d.panes[0].(*chartsPane)
					for _, l := range strings.Split(p.content(), "\n") {
						if ansi.StringWidth(l) > p.w {
							t.Errorf("a line of %d cells in a pane of %d:\n%s", ansi.StringWidth(l), p.w, ansi.Strip(p.content()))
							break
						}
					}
				})
			}
		}
	}
}
