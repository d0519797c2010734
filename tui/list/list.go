// Package list is a list component: a table of rows (bubbles' table)
// with a filter typed after "/", a sort column and its direction, and a
// selection its owner keeps. The owner fills the table: the list says
// when its filter or sort changed (so that the rows are made again) and
// when the row under the cursor is to be selected. The runs browser's
// list is one.
package list

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/table"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/maple-ood/maple/tui/styles"
)

// KeyMap are a list's keys; the table's own (the cursor's movement) are
// Model.Table.KeyMap.
type KeyMap struct {
	Filter, Sort, SortBack, Reverse, Select key.Binding
}

// DefaultKeyMap returns a list's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Filter:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Sort:     key.NewBinding(key.WithKeys("s", ">"), key.WithHelp("s/>", "sort by next column")),
		SortBack: key.NewBinding(key.WithKeys("<"), key.WithHelp("<", "sort by previous column")),
		Reverse:  key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "reverse the sort")),
		Select:   key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "select")),
	}
}

// ShortHelp lists the list's keys.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Select, k.Filter, k.Sort, k.SortBack, k.Reverse}
}

// FullHelp lists the same keys.
func (k KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// Action is what a message did to the list.
type Action int

const (
	// None: nothing the owner acts on (the cursor may have moved).
	None Action = iota
	// Changed: the filter or the sort changed; the owner makes the rows
	// again (Query, SortCol, Desc).
	Changed
	// Select: the owner selects or unselects the row under the cursor.
	Select
)

// Model is a list.
type Model struct {
	Table table.Model
	// SortCol is the column sorted on, one of Cols; Desc reverses it.
	SortCol, Cols int
	Desc          bool
	KeyMap        KeyMap
	Styles        styles.Styles
	filter        textinput.Model
	editing       bool // the filter is being typed
}

// New returns a list of cols columns, focused, sorted on the first.
func New(cols int, keys KeyMap, st styles.Styles) Model {
	f := textinput.New()
	f.Prompt = "/"
	m := Model{Cols: cols, KeyMap: keys, Styles: st, filter: f}
	m.Table = table.New(table.WithFocused(true), table.WithHeight(10))
	ts := table.DefaultStyles()
	ts.Selected = st.Selected
	m.Table.SetStyles(ts)
	return m
}

// Query is the filter, trimmed and in lower case ("": none).
func (m *Model) Query() string { return strings.ToLower(strings.TrimSpace(m.filter.Value())) }

// Filter is the filter as typed.
func (m *Model) Filter() string { return m.filter.Value() }

// SetFilter sets the filter.
func (m *Model) SetFilter(q string) { m.filter.SetValue(q) }

// Editing says the filter is being typed (every key goes to it).
func (m *Model) Editing() bool { return m.editing }

// FilterView is the filter's line while it is typed or set, else "".
func (m *Model) FilterView() string {
	if m.editing || m.filter.Value() != "" {
		return m.filter.View()
	}
	return ""
}

// SetRows puts cols and rows into the table (SetTable).
func (m *Model) SetRows(cols []table.Column, rows []table.Row) { SetTable(&m.Table, cols, rows) }

// SetTable refills t with cols and rows, keeping its cursor (clamped to
// the new rows) on the screen. Rows with as many columns as before
// replace the old in place, so that the rows scrolled into view stay
// (emptying the table first reset its scroll to the top and left a
// cursor further down off the screen); where the rows changed anyway,
// a move by nothing scrolls the cursor's row back into view.
func SetTable(t *table.Model, cols []table.Column, rows []table.Row) {
	cur := t.Cursor()
	if len(cols) != len(t.Columns()) { // the old rows have another column count
		t.SetRows(nil)
		t.SetColumns(cols)
	}
	t.SetRows(rows)
	t.SetColumns(cols)
	t.SetCursor(min(max(cur, 0), max(0, len(rows)-1)))
	t.MoveDown(0)
}

// Update takes the colour profile (without colour the cursor row is in
// reverse video) and keys: while the filter is typed, enter confirms it
// and esc clears it; else esc clears a confirmed filter, the list's keys
// filter, sort and select, and the table's move the cursor.
func (m *Model) Update(msg tea.Msg) (Action, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.ColorProfileMsg:
		st := table.DefaultStyles()
		st.Selected = m.Styles.Selected
		if msg.Profile <= colorprofile.Ascii {
			st.Selected = m.Styles.SelectedMono
		}
		m.Table.SetStyles(st)
	case tea.KeyPressMsg:
		if m.editing {
			return m.filterKey(msg)
		}
		return m.key(msg)
	}
	return None, nil
}

func (m *Model) key(k tea.KeyPressMsg) (Action, tea.Cmd) {
	switch {
	case k.String() == "esc" && m.filter.Value() != "": // a confirmed filter
		m.filter.SetValue("")
		return Changed, nil
	case key.Matches(k, m.KeyMap.Filter):
		m.editing = true
		return None, m.filter.Focus()
	case key.Matches(k, m.KeyMap.Sort):
		m.SortCol = (m.SortCol + 1) % m.Cols
		return Changed, nil
	case key.Matches(k, m.KeyMap.SortBack):
		m.SortCol = (m.SortCol + m.Cols - 1) % m.Cols
		return Changed, nil
	case key.Matches(k, m.KeyMap.Reverse):
		m.Desc = !m.Desc
		return Changed, nil
	case key.Matches(k, m.KeyMap.Select):
		return Select, nil
	}
	var cmd tea.Cmd
	m.Table, cmd = m.Table.Update(k)
	return None, cmd
}

// filterKey edits the filter: enter confirms it, esc clears it.
func (m *Model) filterKey(k tea.KeyPressMsg) (Action, tea.Cmd) {
	switch k.String() {
	case "enter", "esc":
		m.editing = false
		m.filter.Blur()
		if k.String() == "esc" {
			m.filter.SetValue("")
		}
		return Changed, nil
	}
	var cmd tea.Cmd
	m.filter, cmd = m.filter.Update(k)
	return Changed, cmd
}
