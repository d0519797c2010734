package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/maple-ood/maple/core"
)

// TestGoldenChartTools: the dashboard's charts with a rate change (a
// set_lr event before iteration 11), the cursor three iterations back,
// zoomed in, the risk on a log scale and smoothed.
func TestGoldenChartTools(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		d := NewDashboard(testConfig(), &fakeCtl{}, false)
		d.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		snaps := script(25, 40)
		for _, s := range snaps[10:] {
			s.LR.Weight = 0.5
		}
		feed(d, snaps[:10])
		d.Update(EventMsg{core.Event{Kind: core.EventSetLR, Iter: 10, LR: &snaps[10].LR}})
		feed(d, snaps[10:])
		press(d, "left", "left", "left", "z", "y", "m")
		out := d.Render()
		if n := strings.Count(out, "\n") + 1; n > sz[1] {
			t.Errorf("%d lines for a %d-line terminal", n, sz[1])
		}
		plain := ansi.Strip(out)
		for _, want := range []string{"cursor iteration 22", "zoom: iterations 14–25 of 1–25", "EMA 0.6", "outer risk (log scale)", "▲"} {
			if !strings.Contains(plain, want) {
				t.Errorf("%dx%d: no %q", sz[0], sz[1], want)
			}
		}
		golden(t, fmt.Sprintf("charts-tools-%dx%d", sz[0], sz[1]), out)
	}
}
