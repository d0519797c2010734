package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// helpPages opens the dashboard's help at w x h and scrolls it down to
// its end, one line at a time, checking each screen's size; it returns
// every line the help box showed, in order, without repeats, and the
// last screen.
func helpPages(t *testing.T, d *Dashboard, w, h int) (seen []string, last string) {
	t.Helper()
	d.Update(tea.WindowSizeMsg{Width: w, Height: h})
	press(d, "?")
	had := map[string]bool{}
	prev := ""
	for range 400 {
		screen := ansi.Strip(d.Render())
		lines := strings.Split(screen, "\n")
		if len(lines) > h {
			t.Fatalf("%dx%d: %d lines:\n%s", w, h, len(lines), screen)
		}
		for i, l := range lines {
			if lw := ansi.StringWidth(l); lw > w {
				t.Errorf("%dx%d: line %d is %d wide: %q", w, h, i, lw, l)
			}
		}
		for _, l := range lines {
			if strings.HasPrefix(l, "│") && !had[l] {
				had[l] = true
				seen = append(seen, strings.Trim(l, "│ "))
			}
		}
		if screen == prev || !d.showHelp {
			return seen, screen
		}
		prev = screen
		press(d, "down")
	}
	t.Fatalf("%dx%d: the help never reached its end", w, h)
	return nil, ""
}

// TestHelpPageScrolls: the dashboard's ? page scrolls (↓, pgdn, end),
// also with a notice showing, to its last sentence, at 60x20, 80x24 and
// 200x60; its footer names the scroll keys; another key closes it. It
// was cut mid-sentence under a notice and could not be scrolled.
func TestHelpPageScrolls(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {200, 60}, {40, 12}} {
		for _, notice := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dx%d/notice %v", sz[0], sz[1], notice), func(t *testing.T) {
				d := NewDashboard(testConfig(), &fakeCtl{}, false)
				feed(d, script(25, 40))
				if notice {
					d.note = "result (selected on validation, step 35): test acc 0.7346 · test worst-group 0.7135 · q leaves"
				}
				seen, last := helpPages(t, d, sz[0], sz[1])
				if !d.showHelp {
					t.Fatalf("↓ closed the help:\n%s", last)
				}
				text := strings.Join(strings.Fields(strings.Join(seen, " ")), " ")
				if !strings.HasSuffix(text, helpLastWords) {
					t.Errorf("the help's end never showed; it read:\n%s\n\nlast screen:\n%s", text, last)
				}
				if notice && !strings.Contains(last, "q leaves") {
					t.Errorf("the notice is gone:\n%s", last)
				}
				foot := strings.Join(strings.Fields(last[strings.LastIndex(last, "┘")+len("┘"):]), " ")
				if !strings.Contains(foot, "↑/↓ scroll") {
					t.Errorf("the footer does not name the scroll keys: %q", foot)
				}
				press(d, "home")
				top := ansi.Strip(d.Render())
				if !strings.HasPrefix(boxText(top), "help") {
					t.Errorf("home did not go back to the top:\n%s", top)
				}
				press(d, "end")
				if end := boxText(ansi.Strip(d.Render())); !strings.HasSuffix(end, "split.") {
					t.Errorf("end did not show the last line:\n%s", ansi.Strip(d.Render()))
				}
				press(d, "x")
				if d.showHelp || d.confirmQuit {
					t.Errorf("x: help %v, asked to stop %v; want the help closed, nothing else", d.showHelp, d.confirmQuit)
				}
			})
		}
	}
}

// TestHelpExplainsScreen: the help page explains every figure the
// dashboard shows: each chart of the charts pane (read from the pane,
// so that a new chart without its explanation fails), the groups pane's
// figures and the header's.
func TestHelpExplainsScreen(t *testing.T) {
	cfg := testConfig()
	cfg.Settings.Keep, cfg.Settings.Keep0 = 0.3, 0.3 // a sparse search: the keep-fraction chart
	d := NewDashboard(cfg, &fakeCtl{}, false)
	feed(d, script(25, 40))
	charts := d.panes[0].(*chartsPane)
	charts.sync()
	var want []string
	for _, p := range charts.charts.Plots() {
		want = append(want, p.Title+":")
	}
	if len(want) < 5 {
		t.Fatalf("charts %v: the test wants the keep fraction among them", want)
	}
	want = append(want, "u = w·m per group", "inner loss", "K_t", "temp", "|dR/dw|", "seconds", "top-weighted samples", "events",
		"most up-weighted", "most dropped", "iter", "elapsed", "eta", "lr:", "selected iterate", "▲", "◆", "TEST")
	seen, _ := helpPages(t, d, 80, 24)
	text := strings.Join(strings.Fields(strings.Join(seen, " ")), " ")
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the help does not explain %q:\n%s", w, text)
		}
	}
}

// helpLastWords end the help page.
const helpLastWords = "every choice uses the validation split, never the test split."

// boxText is the text inside a screen's box, its lines joined.
func boxText(screen string) string {
	var in []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "│") {
			in = append(in, strings.Trim(l, "│ "))
		}
	}
	return strings.Join(strings.Fields(strings.Join(in, " ")), " ")
}
