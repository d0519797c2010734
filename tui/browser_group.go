package tui

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/table"
	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
)

// The runs browser grouped by settings: the list's rows become groups of
// the listed runs (report.Pool, maple table --group-by's grouping), each
// with its count and the mean ± sd of the listed figures; the settings
// are chosen in a picker (g), and c compares the selected groups, one
// band per group.

// Messages of the grouping.
type (
	// configsMsg carries the settings of runs read for the grouping, by
	// run id, and the runs whose reading was tried.
	configsMsg struct {
		configs map[string]*runs.Config
		tried   []string
	}
)

// listGroup is one row of the grouped list: the grouping settings'
// values and the listed runs that take them.
type listGroup struct {
	name  string // the values, joined
	runs  []runs.Info
	group report.Group // its figures: best val worst-group, test worst-group, test acc
}

// groupFigures are the listed figures a group's row pools, in
// report.Member's order (the list's SEARCH VAL WG, TEST WG and TEST).
func groupFigures(in runs.Info) []float64 {
	f := func(v float64) float64 {
		if v < 0 {
			return math.NaN()
		}
		return v
	}
	return []float64{f(in.BestVal), f(in.TestWorst), f(in.TestAcc)}
}

// readConfigs reads the settings of the runs ids of dir, in a tea.Cmd;
// a run whose run.json cannot be read is left out (it is not grouped)
// and read again at the next reload (a run being created).
func readConfigs(dir string, ids []string) tea.Cmd {
	if len(ids) == 0 {
		return nil
	}
	return func() tea.Msg {
		out := map[string]*runs.Config{}
		for _, id := range ids {
			if cfg, err := runs.ReadConfig(runs.Open(dir).RunDir(id)); err == nil {
				out[id] = cfg
			}
		}
		return configsMsg{out, ids}
	}
}

// missingConfigs reads the settings of the listed runs not read yet.
func (b *runList) missingConfigs() tea.Cmd {
	var ids []string
	for _, in := range b.list {
		if _, ok := b.configs[in.ID]; !ok && !b.asked[in.ID] {
			ids = append(ids, in.ID)
			b.asked[in.ID] = true
		}
	}
	return readConfigs(b.dir, ids)
}

// grouped tells whether the list shows groups.
func (b *runList) grouped() bool { return len(b.groupBy) > 0 }

// regroup pools the runs shown by the grouping settings and fills the
// table with a row per group; the columns that do not fit the width are
// left out from the right.
func (b *runList) regroup() {
	var members []report.Member
	var infos []runs.Info
	for _, in := range b.view {
		if cfg := b.configs[in.ID]; cfg != nil {
			members = append(members, report.Member{Config: cfg, Figures: groupFigures(in)})
			infos = append(infos, in)
		}
	}
	b.groups = b.groups[:0]
	if pooled, err := report.Pool(b.groupBy, members); err == nil {
		for _, g := range pooled {
			for i, v := range g.Values {
				if v == "" { // a baseline's search setting
					g.Values[i] = "-"
				}
			}
			lg := listGroup{name: strings.Join(g.Values, " / "), group: g}
			for _, m := range g.Members {
				lg.runs = append(lg.runs, infos[m])
			}
			b.groups = append(b.groups, lg)
		}
	}
	head := []string{}
	for _, k := range b.groupBy {
		head = append(head, strings.ToUpper(k))
	}
	head = append(head, groupCols...)
	b.orderGroups()
	if c := b.groupSort; c >= 0 && c < len(head) {
		head[c] += map[bool]string{false: " ▲", true: " ▼"}[b.groupDesc]
	}
	rows := make([]table.Row, len(b.groups))
	for i, g := range b.groups {
		name := g.group.Values[0]
		if b.groupSel[g.name] {
			name = "*" + name
		}
		r := append(table.Row{name}, g.group.Values[1:]...)
		r = append(r, fmt.Sprint(len(g.runs)), statusCounts(g.runs))
		for j := range g.group.Figures {
			r = append(r, pmPct(g.group.Figures[j], g.group.Counts[j]))
		}
		rows[i] = append(r, pooledOver(g.group.Varies))
	}
	cols := make([]table.Column, 0, len(head))
	used := 0
	for j, h := range head {
		w := len([]rune(h))
		for _, r := range rows {
			w = max(w, len([]rune(r[j])))
		}
		if j > len(b.groupBy) && used+w+2 > b.width { // the key columns and N always
			break
		}
		used += w + 2
		cols = append(cols, table.Column{Title: h, Width: w})
	}
	for i := range rows {
		rows[i] = rows[i][:len(cols)]
	}
	b.SetRows(cols, rows)
}

// groupCols are the grouped list's columns after the settings'.
var groupCols = []string{"N", "STATUS", "SEARCH VAL WG", "TEST WG", "TEST", "POOLED OVER"}

// sortGroups takes the sort keys in the grouped list: s and > sort by
// the next column (after the last, by the settings' values again), <
// by the previous, S reverses.
func (b *runList) sortGroups(k tea.KeyPressMsg) {
	n := len(b.groupBy) + len(groupCols)
	switch {
	case key.Matches(k, b.keys.Reverse):
		b.groupDesc = !b.groupDesc
	case key.Matches(k, b.keys.SortBack):
		b.groupSort = (b.groupSort+n+1)%(n+1) - 1 // -1 .. n-1, backwards
	default:
		b.groupSort = (b.groupSort+2)%(n+1) - 1
	}
	b.refresh()
}

// orderGroups sorts the groups by the sort column: a setting's values
// or the statuses and what they pool over as text, n and the figures as
// numbers (the mean; a group without the figure last).
func (b *runList) orderGroups() {
	col, keys := b.groupSort, len(b.groupBy)
	if col < 0 {
		return // Pool's order: by the settings' values
	}
	num := func(g listGroup) (float64, bool) {
		switch f := col - keys; {
		case f == 0:
			return float64(len(g.runs)), true
		case f >= 2 && f <= 4:
			if g.group.Counts[f-2] == 0 {
				return math.Inf(-1), true
			}
			return g.group.Figures[f-2].Mean, true
		}
		return 0, false
	}
	text := func(g listGroup) string {
		switch f := col - keys; {
		case f < 0:
			return g.group.Values[col]
		case f == 1:
			return statusCounts(g.runs)
		}
		return pooledOver(g.group.Varies)
	}
	slices.SortStableFunc(b.groups, func(x, y listGroup) int {
		var c int
		if a, ok := num(x); ok {
			z, _ := num(y)
			c = cmp.Compare(a, z)
		} else {
			c = strings.Compare(text(x), text(y))
		}
		if b.groupDesc {
			return -c
		}
		return c
	})
}

// currentGroup is the group under the cursor.
func (b *runList) currentGroup() (listGroup, bool) {
	c := b.Table.Cursor()
	if !b.grouped() || c < 0 || c >= len(b.groups) {
		return listGroup{}, false
	}
	return b.groups[c], true
}

// selectedGroups are the selected groups still listed, in the list's
// order.
func (b *runList) selectedGroups() []listGroup {
	var out []listGroup
	for _, g := range b.groups {
		if b.groupSel[g.name] {
			out = append(out, g)
		}
	}
	return out
}

// statusCounts says how many of runs are in each status ("2 done, 1
// running").
func statusCounts(rs []runs.Info) string {
	n := map[core.Status]int{}
	for _, in := range rs {
		n[in.Status]++
	}
	var parts []string
	for _, st := range slices.Sorted(maps.Keys(n)) {
		parts = append(parts, fmt.Sprintf("%d %s", n[st], st))
	}
	return strings.Join(parts, ", ")
}

// pmPct formats a pooled fraction as a percentage, mean ± sample sd
// ("-" when no run has the figure).
func pmPct(m report.MeanSD, count int) string {
	switch {
	case count == 0:
		return "-"
	case m.Single:
		return fmt.Sprintf("%.1f%%", 100*m.Mean)
	}
	return fmt.Sprintf("%.1f ± %.1f%%", 100*m.Mean, 100*m.SD)
}

// pooledOver names what a group pools over ("-": nothing).
func pooledOver(varies []string) string {
	if len(varies) == 0 {
		return "-"
	}
	return strings.Join(varies, ", ")
}

// groupResult is a group's line in a comparison: its runs, figures and
// what it pools over.
func groupResult(g listGroup) string {
	f := g.group.Figures
	c := g.group.Counts
	return fmt.Sprintf("%d runs (%s) · val worst-group (best of the search) %s · test worst-group %s · test acc %s · pooled over %s",
		len(g.runs), statusCounts(g.runs), pmPct(f[0], c[0]), pmPct(f[1], c[1]), pmPct(f[2], c[2]), pooledOver(g.group.Varies))
}

// listedConfigs are the settings read of the runs shown.
func (b *Browser) listedConfigs() []*runs.Config {
	var out []*runs.Config
	for _, in := range b.runList.view {
		if cfg := b.runList.configs[in.ID]; cfg != nil {
			out = append(out, cfg)
		}
	}
	return out
}

// openGroup opens the group under the cursor: the comparison of its
// runs, or the page of its one run.
func (b *Browser) openGroup() tea.Cmd {
	g, ok := b.runList.currentGroup()
	switch {
	case !ok:
		return nil
	case len(g.runs) == 1:
		return b.openRun(g.runs[0], false)
	}
	ids := make([]string, len(g.runs))
	for i, in := range g.runs {
		ids[i] = in.ID
	}
	slices.Sort(ids)
	dir := b.runList.dir
	return func() tea.Msg { return comparedMsg{readComparison(dir, ids)} }
}

// openGroupCompare reads the runs of the selected groups (else of the
// group under the cursor) for their comparison, in a tea.Cmd: a band per
// group.
func (b *Browser) openGroupCompare() tea.Cmd {
	l := b.runList
	sel := l.selectedGroups()
	if len(sel) == 0 {
		if g, ok := l.currentGroup(); ok {
			sel = []listGroup{g}
		}
	}
	if len(sel) == 0 {
		b.note = "select groups with space to compare them"
		return nil
	}
	var gs []groupSel
	for _, g := range sel {
		ids := make([]string, len(g.runs))
		for i, in := range g.runs {
			ids[i] = in.ID
		}
		slices.Sort(ids)
		gs = append(gs, groupSel{name: g.name, result: groupResult(g), ids: ids})
	}
	dir, by := l.dir, slices.Clone(l.groupBy)
	return func() tea.Msg { return comparedMsg{readGroupComparison(dir, by, gs)} }
}
