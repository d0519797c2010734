// Package wrap breaks text into lines of the terminal views: at spaces,
// never inside a word such as a run id.
package wrap

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Spaces wraps s at spaces into lines of at most w cells, the lines
// after the first starting with indent: a run id (20261128-010216-01)
// is never split at its hyphens, as a word wrap that breaks there would.
// A word wider than a line is cut. s is plain text (style it after).
func Spaces(s string, w int, indent string) string {
	if strings.Contains(s, "\n") { // each line wrapped on its own
		parts := strings.Split(s, "\n")
		for i, p := range parts {
			parts[i] = Spaces(p, w, indent)
		}
		return strings.Join(parts, "\n")
	}
	lead := s[:len(s)-len(strings.TrimLeft(s, " "))]
	var lines []string
	line := lead
	for _, word := range strings.Fields(s) {
		switch {
		case strings.TrimSpace(line) == "":
			line += word
		case lipgloss.Width(line)+1+lipgloss.Width(word) > w:
			lines = append(lines, line)
			line = indent + word
		default:
			line += " " + word
		}
	}
	lines = append(lines, line)
	for i, l := range lines {
		if lipgloss.Width(l) > w {
			lines[i] = ansi.Hardwrap(l, w, true)
		}
	}
	return strings.Join(lines, "\n")
}
