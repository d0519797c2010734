// Package form is a form component: text inputs, one per field, one of
// them focused. Tab and shift+tab (or the arrows) move between fields;
// enter applies and esc cancels, which the form's owner acts on. The
// dashboard's learning-rate form and the browser's new-run form are
// forms.
package form

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// KeyMap are a form's keys.
type KeyMap struct {
	Next, Prev, Apply, Cancel key.Binding
}

// DefaultKeyMap returns a form's keys; apply names what enter does.
func DefaultKeyMap(apply string) KeyMap {
	return KeyMap{
		Next:   key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab/↓", "next field")),
		Prev:   key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab/↑", "previous field")),
		Apply:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", apply)),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// ShortHelp puts enter and esc first: a narrow footer keeps them.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Apply, k.Cancel, k.Next, k.Prev} }

// FullHelp lists the same keys.
func (k KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// Action is what a key did to the form.
type Action int

const (
	// Moved: the focus moved to another field (or the key did nothing).
	Moved Action = iota
	// Edited: the key went to the focused field.
	Edited
	// Apply: enter; the owner checks the fields and closes the form.
	Apply
	// Cancel: esc; the owner closes the form.
	Cancel
)

// Model is a form.
type Model struct {
	Inputs []textinput.Model
	Field  int // the focused field
	KeyMap KeyMap
}

// New returns a form of one text input per prompt, none focused.
func New(keys KeyMap, prompts ...string) Model {
	m := Model{KeyMap: keys, Inputs: make([]textinput.Model, len(prompts))}
	for i, p := range prompts {
		ti := textinput.New()
		ti.Prompt = p
		m.Inputs[i] = ti
	}
	return m
}

// Focus focuses field i.
func (m *Model) Focus(i int) tea.Cmd {
	for j := range m.Inputs {
		m.Inputs[j].Blur()
	}
	m.Field = i
	return m.Inputs[i].Focus()
}

// Value is field i's text.
func (m *Model) Value(i int) string { return m.Inputs[i].Value() }

// SetValue sets field i's text.
func (m *Model) SetValue(i int, v string) { m.Inputs[i].SetValue(v) }

// SetWidth sets every field's width.
func (m *Model) SetWidth(w int) {
	for i := range m.Inputs {
		m.Inputs[i].SetWidth(w)
	}
}

// Update takes a key: the form's own move the focus or answer Apply or
// Cancel; any other goes to the focused field (Edited).
func (m *Model) Update(k tea.KeyPressMsg) (Action, tea.Cmd) {
	n := len(m.Inputs)
	switch {
	case n == 0:
		return Moved, nil
	case key.Matches(k, m.KeyMap.Cancel):
		return Cancel, nil
	case key.Matches(k, m.KeyMap.Next):
		return Moved, m.Focus((m.Field + 1) % n)
	case key.Matches(k, m.KeyMap.Prev):
		return Moved, m.Focus((m.Field + n - 1) % n)
	case key.Matches(k, m.KeyMap.Apply):
		return Apply, nil
	}
	var cmd tea.Cmd
	m.Inputs[m.Field], cmd = m.Inputs[m.Field].Update(k)
	return Edited, cmd
}

// View is field i's line.
func (m *Model) View(i int) string { return m.Inputs[i].View() }
