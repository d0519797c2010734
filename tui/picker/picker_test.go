package picker

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/maple-ood/maple/tui/styles"
)

func press(m *Model, keys ...string) tea.Msg {
	var last tea.Msg
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "space":
			msg = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		default:
			msg = tea.KeyPressMsg{Code: rune(k[0]), Text: k}
		}
		if cmd := m.Update(msg); cmd != nil {
			last = cmd()
		}
	}
	return last
}

// TestPicker: space checks in order, u unchecks all, enter answers with
// the checked names in that order, esc cancels; the view marks each
// checked item with its place.
func TestPicker(t *testing.T) {
	items := []Item{{Name: "a", Note: "2 values"}, {Name: "b", Note: "same", Dim: true}, {Name: "c"}}
	for _, tc := range []struct {
		name string
		keys []string
		want DoneMsg
		view []string
	}{
		{"check two, in order", []string{"down", "down", "space", "k", "k", "space", "enter"}, DoneMsg{Checked: []string{"c", "a"}}, []string{"[2] a", "[ ] b", "[1] c"}},
		{"check and uncheck", []string{"space", "space", "enter"}, DoneMsg{}, []string{"[ ] a"}},
		{"uncheck all", []string{"space", "down", "space", "u", "enter"}, DoneMsg{}, []string{"[ ] a", "[ ] b"}},
		{"cancel", []string{"space", "esc"}, DoneMsg{Cancelled: true}, []string{"[1] a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(items, nil, DefaultKeyMap("group"), styles.DefaultStyles())
			m.SetSize(40, 10)
			got, _ := press(m, tc.keys...).(DoneMsg)
			if got.Cancelled != tc.want.Cancelled || !slices.Equal(got.Checked, tc.want.Checked) {
				t.Errorf("answer %+v, want %+v", got, tc.want)
			}
			view := ansi.Strip(m.View())
			for _, w := range tc.view {
				if !strings.Contains(view, w) {
					t.Errorf("no %q in\n%s", w, view)
				}
			}
		})
	}
}
