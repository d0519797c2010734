package tui

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/table"
	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/tui/list"
)

// browserCols are the columns of maple ls: best validation worst-group
// accuracy over the search (its inner model's, named SEARCH VAL WG apart
// from maple table's "val worst-group", the final model's), test
// worst-group and average accuracy at the validation-selected
// checkpoint, and the sweep a run is a cell of.
var browserCols = []string{"ID", "DATASET", "METHOD", "STATUS", "ITER", "SEARCH VAL WG", "TEST WG", "TEST", "SWEEP", "STARTED", "TIME", "NAME", "TAGS"}

// runList is the browser's list of runs, a component: the listing, its
// filter, sort and selection, in a table whose columns follow the width.
type runList struct {
	list.Model // the table, its filter and sort (tui/list)
	dir        string
	list       []runs.Info // every run, as last read
	view       []runs.Info // the runs shown: filtered and sorted
	selected   map[string]bool
	keys       browserKeys
	width      int
	// groupBy are the settings the listed runs are grouped by, a row per
	// group (nil, the default: a row per run); groups are the rows,
	// groupSel the selected groups by name. configs holds each run's
	// settings as read for the grouping (asked: read or being read).
	groupBy  []string
	groups   []listGroup
	groupSel map[string]bool
	configs  map[string]*runs.Config
	asked    map[string]bool
	// groupSort is the grouped list's sort column (-1, the default: by
	// the settings' values, as maple table --group-by); groupDesc
	// reverses it.
	groupSort int
	groupDesc bool
}

func newRunList(dir string, keys browserKeys) *runList {
	lk := list.KeyMap{Filter: keys.Filter, Sort: keys.Sort, SortBack: keys.SortBack, Reverse: keys.Reverse, Select: keys.Select}
	l := &runList{Model: list.New(len(browserCols), lk, styles), dir: dir, selected: map[string]bool{}, keys: keys, width: 80,
		groupSel: map[string]bool{}, configs: map[string]*runs.Config{}, asked: map[string]bool{}, groupSort: -1}
	cols := make([]table.Column, len(browserCols))
	for i, c := range browserCols {
		cols[i] = table.Column{Title: c, Width: len(c)}
	}
	l.Table.SetColumns(cols)
	l.Table.KeyMap.GotoTop = key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "go to start")) // g groups
	return l
}

// SetSize lays the table out for a terminal of w x h.
func (b *runList) SetSize(w, h int) {
	b.width = w
	b.Table.SetWidth(w)
	b.Table.SetHeight(max(3, h-6))
	b.refresh()
}

// Update takes the listing, the colour profile and the list's own keys:
// the filter, the sort, the selection and the table's movement.
func (b *runList) Update(msg tea.Msg) tea.Cmd {
	switch m := msg.(type) {
	case tea.ColorProfileMsg:
		// Without colour the cursor row's colours are dropped: reverse
		// video shows it instead (NO_COLOR, a dumb terminal).
		b.Model.Update(m)
	case listMsg:
		if m.err == nil {
			b.list = m.list
			b.refresh()
			if b.grouped() {
				return b.missingConfigs()
			}
		}
	case configsMsg:
		maps.Copy(b.configs, m.configs)
		for _, id := range m.tried {
			if b.configs[id] == nil {
				delete(b.asked, id) // tried again at the next reload
			}
		}
		b.refresh()
	case tea.KeyPressMsg:
		return b.key(m)
	}
	return nil
}

// key takes a key: the grouped list's sort keys sort its groups;
// the list's (tui/list) filter, sort and select; space selects the run
// or the group under the cursor.
func (b *runList) key(k tea.KeyPressMsg) tea.Cmd {
	if !b.Editing() && b.grouped() && (key.Matches(k, b.keys.Sort) || key.Matches(k, b.keys.SortBack) || key.Matches(k, b.keys.Reverse)) {
		b.sortGroups(k)
		return nil
	}
	in, ok := b.current()
	act, cmd := b.Model.Update(k)
	switch {
	case act == list.Changed:
		b.refresh()
	case act == list.Select && b.grouped():
		if g, ok := b.currentGroup(); ok {
			b.groupSel[g.name] = !b.groupSel[g.name]
			if !b.groupSel[g.name] {
				delete(b.groupSel, g.name)
			}
			b.refresh()
		}
	case act == list.Select && ok:
		b.selected[in.ID] = !b.selected[in.ID]
		if !b.selected[in.ID] {
			delete(b.selected, in.ID)
		}
		b.refresh()
	}
	return cmd
}

func (b *runList) row(in runs.Info) table.Row {
	it := in.IterText()
	id := in.ID
	if b.selected[in.ID] {
		id = "*" + id
	}
	st := in.Status.String()
	if in.Problem != "" {
		st += "!"
	}
	method := in.Method
	if len(in.Evals) > 0 { // maple eval results: maple show ID lists them
		method += fmt.Sprintf(" +%d eval", len(in.Evals))
	}
	return table.Row{id, in.Dataset, method, st, it, pctText(in.BestVal), pctText(in.TestWorst), pctText(in.TestAcc), in.SweepLabel(),
		in.StartedText(), in.DurationText(), in.NameText(), in.TagsText()}
}

func pctText(v float64) string {
	if v < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

// refresh applies the filter and the sort and refills the table.
func (b *runList) refresh() {
	q := b.Query()
	b.view = b.view[:0]
	for _, in := range b.list {
		r := strings.ToLower(strings.Join(append(b.row(in), in.Model), " ")) // the model filters too
		if q == "" || strings.Contains(r, q) {
			b.view = append(b.view, in)
		}
	}
	key := func(in runs.Info) string { return b.row(in)[b.SortCol] }
	// num is the value of the columns that sort as numbers.
	num := func(in runs.Info) (float64, bool) {
		switch b.SortCol {
		case 4:
			return float64(in.Iter), true
		case 5:
			return in.BestVal, true
		case 6:
			return in.TestWorst, true
		case 7:
			return in.TestAcc, true
		case 10:
			return in.Elapsed, true
		}
		return 0, false
	}
	sort.SliceStable(b.view, func(i, j int) bool {
		var less bool
		if x, numeric := num(b.view[i]); numeric {
			y, _ := num(b.view[j])
			less = x < y
		} else {
			less = key(b.view[i]) < key(b.view[j])
		}
		if b.Desc {
			return !less
		}
		return less
	})
	if b.grouped() {
		b.regroup()
		return
	}
	// Narrower terminals drop the start, time and tags columns, then the
	// sweep column, then the best-validation column, then the dataset and
	// the iteration, so that the test figures stay (the sort still uses
	// them all).
	full := make([]table.Row, len(b.view))
	for i, in := range b.view {
		full[i] = b.row(in)
	}
	show := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	switch {
	case b.width < 75:
		show = b.fitting([]int{0, 2, 3, 6, 7, 4, 1}, full)
	case b.width < 150 && b.width >= 110:
		show = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 11} // the name stays; start and time go
	case b.width < 90:
		show = []int{0, 1, 2, 3, 4, 6, 7} // keep the dataset; the best val worst-group goes
	case b.width < 110:
		show = show[:8]
	}
	rows := make([]table.Row, len(b.view))
	widths := make([]int, len(show))
	for i := range b.view {
		for j, c := range show {
			rows[i] = append(rows[i], full[i][c])
			widths[j] = max(widths[j], len(full[i][c]))
		}
	}
	cols := make([]table.Column, len(show))
	for j, i := range show {
		c := browserCols[i]
		if i == b.SortCol {
			c += map[bool]string{false: " ▲", true: " ▼"}[b.Desc]
		}
		cols[j] = table.Column{Title: c, Width: max(widths[j], len([]rune(c)))}
	}
	b.SetRows(cols, rows)
}

// fitting is the columns of order (most wanted first) that fit the
// width together, each as wide as its widest cell of the rows full, in
// the table's order: a narrow terminal shows whole columns, never a
// header cut short ("TEST" for TEST WG).
func (b *runList) fitting(order []int, full []table.Row) []int {
	used := 0
	var show []int
	for _, c := range order {
		w := len([]rune(browserCols[c]))
		if c == b.SortCol {
			w += 2 // " ▲"
		}
		for _, r := range full {
			w = max(w, len([]rune(r[c])))
		}
		if used+w+2 > b.width && len(show) > 0 {
			break
		}
		used += w + 2 // the cell's padding, a space either side
		show = append(show, c)
	}
	slices.Sort(show)
	return show
}

func (b *runList) current() (runs.Info, bool) {
	c := b.Table.Cursor()
	if b.grouped() { // a row is a group
		return runs.Info{}, false
	}
	if c < 0 || c >= len(b.view) {
		return runs.Info{}, false
	}
	return b.view[c], true
}

// View is the list's head (the directory, the counts, the filter) and
// its table.
func (b *runList) View() string {
	head := fmt.Sprintf("%s runs in %s  (%d shown of %d, %d selected)", styles.Title.Render("maple"), b.dir, len(b.view), len(b.list), len(b.selected))
	if b.grouped() {
		head = fmt.Sprintf("%s runs in %s  (%d shown of %d)\ngrouped by %s: %d groups, %d selected", styles.Title.Render("maple"), b.dir, len(b.view), len(b.list),
			strings.Join(b.groupBy, ", "), len(b.groups), len(b.selectedGroups()))
	}
	if fv := b.FilterView(); fv != "" {
		head += "  " + fv
	}
	body := b.Table.View()
	if b.grouped() && len(b.groups) == 0 && len(b.view) > 0 {
		body = "reading the listed runs' settings..."
	}
	if len(b.list) == 0 {
		body = "no runs yet: press n for a new run, or run maple run --dataset synthetic"
	}
	return head + "\n" + body
}
