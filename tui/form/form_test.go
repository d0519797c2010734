package form

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

func keyOf(k string) tea.KeyPressMsg {
	switch k {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	}
	return tea.KeyPressMsg{Code: rune(k[0]), Text: k}
}

// TestForm: tab and shift+tab move the focus round the fields, a typed
// key edits the focused field, enter and esc answer Apply and Cancel.
func TestForm(t *testing.T) {
	for _, tc := range []struct {
		name   string
		keys   []string
		act    Action
		field  int
		values [3]string
	}{
		{"typing edits the first field", []string{"7"}, Edited, 0, [3]string{"a7", "b", "c"}},
		{"tab then typing edits the second", []string{"tab", "7"}, Edited, 1, [3]string{"a", "b7", "c"}},
		{"shift+tab wraps to the last", []string{"shift+tab"}, Moved, 2, [3]string{"a", "b", "c"}},
		{"up wraps to the last", []string{"up"}, Moved, 2, [3]string{"a", "b", "c"}},
		{"tab wraps round", []string{"tab", "tab", "tab"}, Moved, 0, [3]string{"a", "b", "c"}},
		{"enter applies", []string{"tab", "enter"}, Apply, 1, [3]string{"a", "b", "c"}},
		{"esc cancels", []string{"esc"}, Cancel, 0, [3]string{"a", "b", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(DefaultKeyMap("apply"), "x ", "y ", "z ")
			for i, v := range []string{"a", "b", "c"} {
				m.SetValue(i, v)
			}
			m.Focus(0)
			var act Action
			for _, k := range tc.keys {
				act, _ = m.Update(keyOf(k))
			}
			if act != tc.act || m.Field != tc.field {
				t.Errorf("action %d on field %d, want %d on %d", act, m.Field, tc.act, tc.field)
			}
			for i, want := range tc.values {
				if m.Value(i) != want {
					t.Errorf("field %d holds %q, want %q", i, m.Value(i), want)
				}
				if m.Inputs[i].Focused() != (i == tc.field) {
					t.Errorf("field %d focused: %v", i, m.Inputs[i].Focused())
				}
			}
		})
	}
}
