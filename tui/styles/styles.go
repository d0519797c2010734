// Package styles holds every style maple's terminal views draw with, in
// one place (soft-serve's pkg/ui/styles): the dashboard, the browser and
// the components (tui/chart, tui/form, tui/list, tui/picker) take theirs
// from one Styles.
package styles

import (
	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
	"github.com/guptarohit/asciigraph"

	"github.com/maple-ood/maple/core"
)

// Styles is every style the dashboard, the browser and the components
// draw with. Colours are ANSI 16-colour indexes, so they hold on
// 16-colour terminals and vanish with NO_COLOR.
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
