package tui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	uistyles "github.com/maple-ood/maple/tui/styles"
)

// styles is the set in use.
var styles = uistyles.DefaultStyles()

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
