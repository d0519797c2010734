package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/maple-ood/maple/core"
)

// screenLines returns a rendering's lines without styling or the panes'
// borders, each trimmed.
func screenLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(ansi.Strip(out), "\n") {
		lines = append(lines, strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "│┌┐└┘─")))
	}
	return lines
}

// TestTextNotCut: at the common sizes, with and without colour, every
// piece of text the dashboard shows is whole on some line: the header's
// selected iterate, the model name, the error line, every legend entry
// (they were cut at the screen's edge: "selected iterate (val
// worst-group 0.74", "(change t", "TEST av", "- y=1"; at 60 columns the
// model name).
func TestTextNotCut(t *testing.T) {
	errText := "inner loss is NaN at iteration 25: non-finite value; the search is paused: fix the cause (change the rates, free space) and resume"
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {120, 40}} {
		for _, mono := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dx%d mono %v", sz[0], sz[1], mono), func(t *testing.T) {
				cfg := testConfig()
				cfg.Settings.Model = "mlp:390,390"
				d := NewDashboard(cfg, &fakeCtl{}, false)
				d.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
				if mono {
					d.Update(tea.ColorProfileMsg{Profile: colorprofile.Ascii})
				}
				feed(d, script(25, 40))
				d.Update(EventMsg{Event: core.Event{Kind: core.EventError, Iter: 25, Error: errText}})
				out := d.Render()
				lines := screenLines(out)
				joined := strings.Join(lines, " ")
				for _, want := range []string{"model mlp:390,390", "selected iterate 25 (val worst-group 0.5875)", "paused"} {
					if !strings.Contains(joined, want) {
						t.Errorf("%q is cut or missing:\n%s", want, ansi.Strip(out))
					}
				}
				// The error is wrapped, never cut: its words in order.
				if !strings.Contains(strings.Join(strings.Fields(joined), " "), errText) {
					t.Errorf("the error line is cut:\n%s", ansi.Strip(out))
				}
				for i, l := range strings.Split(out, "\n") {
					if w := ansi.StringWidth(l); w > sz[0] {
						t.Errorf("line %d is %d wide", i, w)
					}
				}
				if n := strings.Count(out, "\n") + 1; n > sz[1] {
					t.Errorf("%d lines for a %d-line terminal", n, sz[1])
				}
			})
		}
	}
}

// TestBrowserTooSmall: below the dashboard's minimum size the runs
// browser's list and comparison say so, as the dashboard does, instead of
// showing a cropped corner.
func TestBrowserTooSmall(t *testing.T) {
	b := newBrowser(fakeRuns(t), 36, 10)
	if out := ansi.Strip(b.Render()); !strings.Contains(out, "terminal too small") {
		t.Errorf("the list at 36x10:\n%s", out)
	}
	b.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	bpress(b, keyMsg("space"))
	bpress(b, keyMsg("down"))
	bpress(b, keyMsg("space"))
	bpress(b, keyMsg("c"))
	b.Update(tea.WindowSizeMsg{Width: 30, Height: 8})
	if out := ansi.Strip(b.Render()); b.mode != modeCompare || !strings.Contains(out, "terminal too small") {
		t.Errorf("the comparison (mode %d) at 30x8:\n%s", b.mode, out)
	}
}

// TestHelpKeepsFooter: at 60 x 20 the help page is cut inside its box,
// not below it: the box's border and the footer stay on the screen.
func TestHelpKeepsFooter(t *testing.T) {
	d := NewDashboard(testConfig(), &fakeCtl{}, false)
	d.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	feed(d, script(25, 40))
	press(d, "?")
	lines := strings.Split(ansi.Strip(d.Render()), "\n")
	if n := len(lines); n > 20 || !strings.Contains(lines[n-1], "close") || !strings.HasPrefix(lines[n-2], "└") {
		t.Errorf("the help page at 60x20 pushed off its border or the footer:\n%s", strings.Join(lines, "\n"))
	}
}

// TestShortHelpFits: a footer never runs past its width, and says with
// "…" that keys were left out (bubbles' view adds the item that
// overflows when its ellipsis does not fit, and the screen's cut then
// leaves a bare separator).
func TestShortHelpFits(t *testing.T) {
	keys := newBrowserKeys().ShortHelp()
	full := ansi.Strip(newHelp().ShortHelpView(keys))
	for w := 20; w <= len([]rune(full))+2; w++ {
		h := newHelp()
		h.SetWidth(w)
		got := ansi.Strip(shortHelp(h, keys))
		if n := ansi.StringWidth(got); n > w {
			t.Fatalf("width %d: the footer takes %d cells: %q", w, n, got)
		}
		if got != full && !strings.HasSuffix(got, " …") {
			t.Fatalf("width %d: keys left out without an ellipsis: %q", w, got)
		}
	}
}
