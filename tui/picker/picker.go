// Package picker is a checklist component: a list of items, each with a
// note, of which the person checks some in order. Space checks or
// unchecks the item under the cursor, u unchecks all, enter answers with
// the checked items (a DoneMsg), esc with a cancel. The runs browser's
// group-by picker is one.
package picker

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/tui/styles"
)

// KeyMap are a picker's keys.
type KeyMap struct{ Up, Down, Toggle, Clear, Apply, Cancel key.Binding }

// DefaultKeyMap returns a picker's keys; apply names what enter does.
func DefaultKeyMap(apply string) KeyMap {
	return KeyMap{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "move")),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "down")),
		Toggle: key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "check")),
		Clear:  key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "uncheck all")),
		Apply:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", apply)),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// ShortHelp is the picker's footer.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Apply, k.Toggle, k.Up, k.Clear, k.Cancel}
}

// FullHelp lists the same keys.
func (k KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// Item is one line of the list: a name and a note after it, dimmed
// where Dim says so.
type Item struct {
	Name, Note string
	Dim        bool
}

// DoneMsg is the picker's answer: the checked names, in the order
// checked, or Cancelled.
type DoneMsg struct {
	Checked   []string
	Cancelled bool
}

// Model is the picker.
type Model struct {
	Items   []Item
	Checked []string // the checked names, in the order checked
	Cursor  int
	// Head returns the lines above the list, given the checked names.
	Head func(checked []string) []string
	// NameWidth is the column the names are padded to.
	NameWidth int
	KeyMap    KeyMap
	Styles    styles.Styles
	w, h      int
}

// New returns a picker of items with checked checked.
func New(items []Item, checked []string, keys KeyMap, st styles.Styles) *Model {
	return &Model{Items: items, Checked: slices.Clone(checked), KeyMap: keys, Styles: st}
}

// SetSize gives the picker its width and height.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// Update takes the picker's keys; enter and esc answer with a DoneMsg.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || len(m.Items) == 0 {
		return nil
	}
	switch {
	case key.Matches(k, m.KeyMap.Up):
		m.Cursor = max(0, m.Cursor-1)
	case key.Matches(k, m.KeyMap.Down):
		m.Cursor = min(len(m.Items)-1, m.Cursor+1)
	case key.Matches(k, m.KeyMap.Toggle):
		name := m.Items[m.Cursor].Name
		if i := slices.Index(m.Checked, name); i >= 0 {
			m.Checked = slices.Delete(m.Checked, i, i+1)
		} else {
			m.Checked = append(m.Checked, name)
		}
	case key.Matches(k, m.KeyMap.Clear):
		m.Checked = nil
	case key.Matches(k, m.KeyMap.Apply):
		checked := m.Checked
		return func() tea.Msg { return DoneMsg{Checked: checked} }
	case key.Matches(k, m.KeyMap.Cancel):
		return func() tea.Msg { return DoneMsg{Cancelled: true} }
	}
	return nil
}

// View draws the head and the items around the cursor, checked ones
// marked with their place in the order.
func (m *Model) View() string {
	var head []string
	if m.Head != nil {
		head = m.Head(m.Checked)
	}
	rows := max(1, m.h-len(head))
	from := min(max(0, m.Cursor-rows/2), max(0, len(m.Items)-rows))
	out := head
	for i := from; i < min(len(m.Items), from+rows); i++ {
		it := m.Items[i]
		mark := "[ ]"
		if j := slices.Index(m.Checked, it.Name); j >= 0 {
			mark = fmt.Sprintf("[%d]", j+1)
		}
		note := it.Note
		if it.Dim {
			note = m.Styles.Dim.Render(note)
		}
		line := fmt.Sprintf("%s %-*s %s", mark, m.NameWidth, it.Name, note)
		if i == m.Cursor {
			line = m.Styles.SelectedMono.Render(line)
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
