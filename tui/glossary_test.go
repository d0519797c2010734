package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestFiguresExplained: the groups pane says what K_t, temp, |dR/dw| and
// |dR/ds| are, beside them, at the pane widths of 60, 80 and 120 columns
// (they were shown unexplained).
func TestFiguresExplained(t *testing.T) {
	for _, w := range []int{56, 76, 46} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			d := NewDashboard(testConfig(), &fakeCtl{}, false)
			feed(d, script(25, 40))
			pane := ansi.Strip(d.panes[1].(*groupsPane).content(w))
			text := strings.Join(strings.Fields(pane), " ")
			for _, want := range []string{"K_t: how many samples the mask keeps", "temp: the temperature", "|dR/dw|, |dR/ds|: norms of the outer risk's gradient"} {
				if !strings.Contains(text, want) {
					t.Errorf("%q missing from the groups pane:\n%s", want, pane)
				}
			}
			for i, l := range strings.Split(pane, "\n") {
				if lw := ansi.StringWidth(l); lw > w {
					t.Errorf("line %d is %d wide: %q", i, lw, l)
				}
			}
		})
	}
}
