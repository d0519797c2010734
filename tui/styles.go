package tui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/guptarohit/asciigraph"

	"github.com/maple-ood/maple/core"
)

// Styles is every style the dashboard and the browser draw with, in one
// place (soft-serve's pkg/ui/styles pattern). Colours are ANSI 16-colour
// indexes, so they hold on 16-colour terminals and vanish with NO_COLOR.
type Styles struct {
	Title, Dim, Warn lipgloss.Style
	Pane, Focus      lipgloss.Style // a pane, and the focused one
	Selected         lipgloss.Style // the browser's cursor row
	SelectedMono     lipgloss.Style // the same without colour: reverse video
	Status           map[core.Status]lipgloss.Style
	Stopping         lipgloss.Style
	// Series colours cycle over chart lines; Markers tell the lines apart
	// without colour.
	Series      []lipgloss.Style
	SeriesANSI  []asciigraph.AnsiColor
	Help        help.Styles
	HelpDivider string
}

// DefaultStyles returns maple's styles.
func DefaultStyles() Styles {
	c := func(n string) lipgloss.Style { return lipgloss.NewStyle().Foreground(lipgloss.Color(n)) }
	bold := func(n string) lipgloss.Style { return c(n).Bold(true) }
	pane := lipgloss.NewStyle().Border(lipgloss.NormalBorder()).BorderForeground(lipgloss.Color("8"))
	s := Styles{
		Title: bold("12"), Dim: c("8"), Warn: bold("9"),
		Pane: pane, Focus: pane.BorderForeground(lipgloss.Color("12")),
		Selected:     lipgloss.NewStyle().Foreground(lipgloss.Color("0")).Background(lipgloss.Color("12")),
		SelectedMono: lipgloss.NewStyle().Reverse(true),
		Status: map[core.Status]lipgloss.Style{
			core.StatusUnknown: bold("8"), core.StatusRunning: bold("10"), core.StatusPaused: bold("11"),
			core.StatusEvaluating: bold("12"), core.StatusDone: bold("12"), core.StatusStopped: bold("11"),
			core.StatusFailed: bold("9"), core.StatusInterrupted: bold("11"),
		},
		Stopping:   bold("11"),
		SeriesANSI: []asciigraph.AnsiColor{asciigraph.Blue, asciigraph.Red, asciigraph.Green, asciigraph.Yellow, asciigraph.Magenta, asciigraph.Cyan},
	}
	for _, n := range []string{"12", "9", "10", "11", "13", "14"} {
		s.Series = append(s.Series, c(n))
	}
	s.Help = help.Styles{
		ShortKey: c("7"), ShortDesc: c("8"), ShortSeparator: c("8"), Ellipsis: c("8"),
		FullKey: c("7"), FullDesc: c("8"), FullSeparator: c("8"),
	}
	return s
}

// styles is the set in use.
var styles = DefaultStyles()

// shortHelp is h.ShortHelpView that never runs past h's width and ends
// with " …" whenever it leaves keys out: bubbles' view adds the item that
// overflows when its ellipsis does not fit, and the screen's cut then
// leaves a bare separator.
func shortHelp(h help.Model, bindings []key.Binding) string {
	out := h.ShortHelpView(bindings)
	w := h.Width()
	if w <= 0 || lipgloss.Width(out) <= w {
		return out
	}
	var on []key.Binding
	for _, b := range bindings {
		if b.Enabled() {
			on = append(on, b)
		}
	}
	tail := " " + h.Styles.Ellipsis.Render(h.Ellipsis)
	h.SetWidth(0)
	for n := len(on) - 1; n > 0; n-- {
		if s := h.ShortHelpView(on[:n]) + tail; lipgloss.Width(s) <= w {
			return s
		}
	}
	return ansi.Truncate(out, w, "…")
}

// newHelp returns a help view in maple's styles.
func newHelp() help.Model {
	h := help.New()
	h.Styles = styles.Help
	h.ShortSeparator = " · "
	return h
}
