package list

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/tui/styles"
)

func keyOf(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	return tea.KeyPressMsg{Code: rune(k[0]), Text: k}
}

// TestList: / types a filter that enter confirms and esc clears; s, <
// and S move and reverse the sort (round the columns); space asks the
// owner to select; each change of the filter or sort says Changed.
func TestList(t *testing.T) {
	for _, tc := range []struct {
		name    string
		keys    []string
		last    Action
		query   string
		editing bool
		col     int
		desc    bool
	}{
		{"typing a filter", []string{"/", "R", "e"}, Changed, "re", true, 0, false},
		{"enter confirms it", []string{"/", "r", "enter"}, Changed, "r", false, 0, false},
		{"esc while typing clears it", []string{"/", "r", "esc"}, Changed, "", false, 0, false},
		{"esc clears a confirmed filter", []string{"/", "r", "enter", "esc"}, Changed, "", false, 0, false},
		{"s sorts by the next column", []string{"s", "s"}, Changed, "", false, 2, false},
		{"s goes round", []string{"s", "s", "s"}, Changed, "", false, 0, false},
		{"< sorts by the previous column", []string{"<"}, Changed, "", false, 2, false},
		{"S reverses", []string{"S"}, Changed, "", false, 0, true},
		{"keys typed into the filter do not sort", []string{"/", "s", "S"}, Changed, "ss", true, 0, false},
		{"space selects", []string{"space"}, Select, "", false, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(3, DefaultKeyMap(), styles.DefaultStyles())
			var act Action
			for _, k := range tc.keys {
				act, _ = m.Update(keyOf(k))
			}
			if act != tc.last || m.Query() != tc.query || m.Editing() != tc.editing || m.SortCol != tc.col || m.Desc != tc.desc {
				t.Errorf("action %d, query %q, editing %v, column %d, desc %v; want %d %q %v %d %v",
					act, m.Query(), m.Editing(), m.SortCol, m.Desc, tc.last, tc.query, tc.editing, tc.col, tc.desc)
			}
		})
	}
}
