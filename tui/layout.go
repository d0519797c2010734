package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/maple-ood/maple/core"
)

// screen is a full-window view of s.
func screen(s string) tea.View {
	v := tea.NewView(s)
	v.AltScreen = true
	return v
}

// fit cuts s to at most h lines of at most w cells.
func fit(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "")
	}
	return strings.Join(lines, "\n")
}

// recentPace is the seconds per outer iteration over the last few
// iterations (elapsed excludes pauses and continues across resumes).
func recentPace(snaps []*core.Snapshot) (float64, bool) {
	n := len(snaps)
	switch {
	case n == 0:
		return 0, false
	case n == 1:
		if snaps[0].Iter == 0 {
			return 0, false
		}
		return snaps[0].Elapsed / float64(snaps[0].Iter), true
	}
	from := max(0, n-6)
	a, b := snaps[from], snaps[n-1]
	if b.Iter == a.Iter {
		return 0, false
	}
	return (b.Elapsed - a.Elapsed) / float64(b.Iter-a.Iter), true
}

// perGroup returns one series per group of a per-group figure (0 where a
// snapshot lacks it).
func perGroup(snaps []*core.Snapshot, groups int, f func(*core.Snapshot) []float64) [][]float64 {
	var out [][]float64
	for g := range groups {
		out = append(out, column(snaps, func(x *core.Snapshot) float64 {
			if v := f(x); g < len(v) {
				return v[g]
			}
			return 0
		}))
	}
	return out
}

func column(snaps []*core.Snapshot, f func(*core.Snapshot) float64) []float64 {
	out := make([]float64, len(snaps))
	for i, s := range snaps {
		out[i] = f(s)
	}
	return out
}

func scrollLines(s string, h, from int) string {
	lines := strings.Split(s, "\n")
	from = min(from, max(0, len(lines)-h))
	end := min(len(lines), from+h)
	return strings.Join(lines[from:end], "\n")
}

// statusText renders a status in its style ("starting" before any news).
func statusText(s core.Status, stopping bool) string {
	switch {
	case stopping:
		return styles.Stopping.Render("stopping")
	case s == core.StatusUnknown:
		return styles.Status[s].Render("starting")
	}
	return styles.Status[s].Render(s.String())
}

// tooSmall is the view of a terminal below the minimum size: a notice,
// and, when the person is asked whether to leave, the short question
// first (it stays visible at any size).
func tooSmall(w, h int, question string, asking bool) string {
	msg := fmt.Sprintf("terminal too small (need %d x %d, have %d x %d)", minWidth, minHeight, w, h)
	if asking {
		msg = question + "\n" + msg
	}
	return lipgloss.NewStyle().Width(max(1, w)).Render(msg)
}

// fill lays items out on lines of at most w cells, separated by single
// spaces, each line starting with indent; an item wider than a line gets
// a line of its own.
func fill(items []string, w int, indent string) string {
	var b strings.Builder
	line := indent
	for _, it := range items {
		if line != indent && lipgloss.Width(line)+1+lipgloss.Width(it) > w {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += it
	}
	b.WriteString(line + "\n")
	return b.String()
}
