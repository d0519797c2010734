package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
)

// The runs browser's group-by picker (g): the settings the listed runs
// are grouped by.

// usualGroupKeys are the settings runs are most often grouped by,
// listed first in the picker when they differ.
var usualGroupKeys = []string{"dataset", "method", "model", "objective", "seed", "sweep"}

// groupPicker chooses the settings the list is grouped by, a component:
// every setting maple table --group-by takes, those whose values differ
// among the listed runs first (with how many values they take); space
// checks one (in order: the first checked groups first), enter groups
// by the checked ones (none: a row per run), esc leaves it as it was.
type groupPicker struct {
	keys     []string       // the settings, in the order shown
	distinct map[string]int // how many values each takes among the listed runs
	checked  []string
	cursor   int
	w, h     int
	keymap   pickerKeys
}

func newGroupPicker(current []string, listed []*runs.Config) *groupPicker {
	p := &groupPicker{checked: slices.Clone(current), distinct: map[string]int{}, keymap: newPickerKeys()}
	all := report.GroupKeys()
	for _, k := range all {
		seen := map[string]bool{}
		for _, cfg := range listed {
			if v := report.KeyValues(cfg, []string{k})[0]; v != "" { // "": a baseline's search setting
				seen[v] = true
			}
		}
		p.distinct[k] = len(seen)
	}
	// Those that differ first (the usual ones, then the rest), then
	// those every listed run shares, each alphabetically.
	rank := func(k string) int {
		switch {
		case p.distinct[k] > 1 && slices.Contains(usualGroupKeys, k):
			return 0
		case p.distinct[k] > 1:
			return 1
		}
		return 2
	}
	p.keys = slices.Clone(all)
	slices.SortStableFunc(p.keys, func(a, b string) int { return rank(a) - rank(b) })
	return p
}

// SetSize gives the picker the screen's size, less the footer.
func (p *groupPicker) SetSize(w, h int) { p.w, p.h = w, h }

// Update takes the picker's keys; enter and esc answer with a
// groupByMsg.
func (p *groupPicker) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, p.keymap.Up):
		p.cursor = max(0, p.cursor-1)
	case key.Matches(k, p.keymap.Down):
		p.cursor = min(len(p.keys)-1, p.cursor+1)
	case key.Matches(k, p.keymap.Toggle):
		name := p.keys[p.cursor]
		if i := slices.Index(p.checked, name); i >= 0 {
			p.checked = slices.Delete(p.checked, i, i+1)
		} else {
			p.checked = append(p.checked, name)
		}
	case key.Matches(k, p.keymap.Clear):
		p.checked = nil
	case key.Matches(k, p.keymap.Apply):
		keys := p.checked
		return func() tea.Msg { return groupByMsg{keys: keys} }
	case key.Matches(k, p.keymap.Cancel):
		return func() tea.Msg { return groupByMsg{cancelled: true} }
	}
	return nil
}

// View lists the settings around the cursor, checked ones marked with
// their place in the grouping.
func (p *groupPicker) View() string {
	head := []string{styles.Title.Render("group the listed runs by") + "  (as maple table --group-by)"}
	if len(p.checked) > 0 {
		head = append(head, "grouping by: "+strings.Join(p.checked, ", "))
	} else {
		head = append(head, "grouping by: nothing (a row per run)")
	}
	rows := max(1, p.h-len(head))
	from := min(max(0, p.cursor-rows/2), max(0, len(p.keys)-rows))
	out := head
	for i := from; i < min(len(p.keys), from+rows); i++ {
		k := p.keys[i]
		mark := "[ ]"
		if j := slices.Index(p.checked, k); j >= 0 {
			mark = fmt.Sprintf("[%d]", j+1)
		}
		note := styles.Dim.Render("the same for every listed run")
		if n := p.distinct[k]; n > 1 {
			note = fmt.Sprintf("%d values among the listed runs", n)
		}
		line := fmt.Sprintf("%s %-18s %s", mark, k, note)
		if i == p.cursor {
			line = styles.SelectedMono.Render(line)
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// pickerKeys are the group-by picker's keys.
type pickerKeys struct{ Up, Down, Toggle, Clear, Apply, Cancel key.Binding }

func newPickerKeys() pickerKeys {
	return pickerKeys{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "move")),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "down")),
		Toggle: key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "check")),
		Clear:  key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "uncheck all")),
		Apply:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "group")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// ShortHelp is the picker's footer.
func (k pickerKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Apply, k.Toggle, k.Up, k.Clear, k.Cancel}
}

// FullHelp lists the same keys.
func (k pickerKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }
