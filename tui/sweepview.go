package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/table"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/maple-ood/maple/sweeps"
	"github.com/maple-ood/maple/tui/chart"
	"github.com/maple-ood/maple/tui/list"
)

// SweepView is the live view of a sweep: each cell's state (done,
// running with its iteration, waiting, failed, stopped), the counts and
// an estimate of the time left, refreshed every two seconds from the
// runs directory, and under the table the curves of the cell under its
// cursor in the chart component (its keys: cursor, zoom, pan, log
// scale, smoothing, wall time), or with tab the searched settings
// against validation (searchedView); enter on a running cell opens its
// dashboard.
type SweepView struct {
	dir, name string
	cells     []sweeps.CellState
	err       error
	tbl       table.Model
	chart     *cellChart // the curves of the cell under the cursor
	searched  *searchedView
	settings  bool // the searched settings are shown in place of the cell's curves
	keys      sweepKeys
	help      help.Model
	width     int
	height    int
	note      string
	attach    string          // the run to attach to when the view closes
	done      <-chan struct{} // closes when the sweep this process runs ends (nil: none)
	confirm   bool            // q asked whether to stop the sweep this process runs
	stopped   bool            // y answered: stop it
	common    string          // the label parts every cell shares, * where they differ, when the CELL column shows only the rest ("": full labels)
	halted    bool            // the sweep was stopped (maple stop) at some time
}

type sweepKeys struct {
	Open, Quit, Pane key.Binding
	chart.KeyMap          // the cell's charts'
	settings         bool // the searched settings are shown: no chart keys
}

func (k sweepKeys) ShortHelp() []key.Binding {
	if k.settings {
		return []key.Binding{k.Quit, k.Open, k.Pane}
	}
	return []key.Binding{k.Quit, k.Open, k.Pane, k.Back, k.Zoom, k.PanBack, k.Log, k.Smooth, k.Wall}
}
func (k sweepKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Quit, k.Open, k.Pane}, k.KeyMap.Help()}
}

type sweepMsg struct {
	cells  []sweeps.CellState
	err    error
	halted bool // the sweep was stopped (maple stop)
}

type sweepTick struct{}

type sweepDone struct{}

// NewSweepView returns the view of sweep name in the runs dir dir. done,
// when not nil, closes when the sweep this process runs has ended: the
// view then closes too, and q asks before stopping it.
func NewSweepView(dir, name string, done <-chan struct{}) *SweepView {
	v := &SweepView{dir: dir, name: name, done: done, width: 80, height: 24, help: newHelp(), chart: newCellChart(), searched: newSearchedView(),
		keys: sweepKeys{
			Open:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open a running cell")),
			Quit:   key.NewBinding(key.WithKeys("q", "esc", "ctrl+c"), key.WithHelp("q", "quit")),
			Pane:   key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "settings vs val")),
			KeyMap: chart.DefaultKeyMap(),
		}}
	v.tbl = table.New(table.WithFocused(true), table.WithHeight(10))
	st := table.DefaultStyles()
	st.Selected = styles.Selected
	v.tbl.SetStyles(st)
	return v
}

func (v *SweepView) load() tea.Cmd {
	dir, name := v.dir, v.name
	return func() tea.Msg {
		c, err := sweeps.SweepStatus(dir, name)
		return sweepMsg{cells: c, err: err, halted: sweeps.StopAsked(dir, name, time.Time{})}
	}
}

// Init implements tea.Model.
func (v *SweepView) Init() tea.Cmd {
	cmds := []tea.Cmd{v.load(), tea.Tick(2*time.Second, func(time.Time) tea.Msg { return sweepTick{} })}
	if v.done != nil {
		done := v.done
		cmds = append(cmds, func() tea.Msg { <-done; return sweepDone{} })
	}
	return tea.Batch(cmds...)
}

// Update implements tea.Model.
func (v *SweepView) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch m := msg.(type) {
	case tea.WindowSizeMsg:
		v.width, v.height = m.Width, m.Height
		v.tbl.SetWidth(m.Width)
		v.layout()
	case tea.ColorProfileMsg:
		if m.Profile <= colorprofile.Ascii { // reverse video, as the browser
			st := table.DefaultStyles()
			st.Selected = styles.SelectedMono
			v.tbl.SetStyles(st)
			v.chart.charts.Chars = true // lines told apart by their characters
		}
	case sweepMsg:
		v.cells, v.err, v.halted = m.cells, m.err, m.halted
		v.layout()
		if v.settings { // read again when more cells have finished
			return v, v.searched.want(v.dir, v.name, v.cells)
		}
		// The cell under the cursor, read again while it runs.
		if c, ok := v.current(); ok {
			return v, v.chart.want(v.dir, c, c.State == "running")
		}
	case cellMsg:
		return v, v.chart.Update(m)
	case searchedMsg:
		v.searched.Update(m)
	case sweepTick:
		return v, tea.Batch(v.load(), tea.Tick(2*time.Second, func(time.Time) tea.Msg { return sweepTick{} }))
	case sweepDone:
		return v, tea.Quit
	case tea.KeyPressMsg:
		if v.confirm {
			v.confirm = false
			if m.String() == "y" {
				v.stopped = true
				v.note = "stopping the sweep: " + sweeps.StopKeeps(v.kinds())
				return v, tea.Quit
			}
			v.note = ""
			return v, nil
		}
		switch {
		case key.Matches(m, v.keys.Quit):
			if v.done != nil && m.String() == "ctrl+c" { // as a signal would: stop at once
				v.stopped = true
				return v, tea.Quit
			}
			if v.done != nil {
				v.confirm = true
				v.note = "leaving stops the sweep (" + sweeps.StopKeeps(v.kinds()) + "; rerun it to go on). Stop it? y/n"
				return v, nil
			}
			return v, tea.Quit
		case key.Matches(m, v.keys.Pane):
			v.settings = !v.settings
			v.keys.settings = v.settings
			v.keys.Pane.SetHelp("tab", map[bool]string{false: "settings vs val", true: "cell curves"}[v.settings])
			if v.settings {
				return v, v.searched.want(v.dir, v.name, v.cells)
			}
			if c, ok := v.current(); ok {
				return v, v.chart.want(v.dir, c, true)
			}
			return v, nil
		case key.Matches(m, v.keys.Open):
			c := v.tbl.Cursor()
			if c >= 0 && c < len(v.cells) && v.cells[c].State == "running" && v.cells[c].RunID != "" {
				// A search's dashboard, a baseline's live view (read from its log).
				v.attach = v.cells[c].RunID
				return v, tea.Quit
			}
			v.note = "enter opens a running cell's dashboard"
			return v, nil
		}
		if msg := chart.KeyMsg(v.keys.KeyMap, m); msg != nil && !v.settings {
			return v, v.chart.Update(msg)
		}
		var cmd tea.Cmd
		v.tbl, cmd = v.tbl.Update(m)
		if c, ok := v.current(); ok { // the cursor's cell's curves
			return v, tea.Batch(cmd, v.chart.want(v.dir, c, false))
		}
		return v, cmd
	}
	return v, nil
}

// kinds tells whether the running cells include searches and whether
// they include baselines (a cell whose run lists no iterations).
func (v *SweepView) kinds() (searches, baselines bool) {
	for _, c := range v.cells {
		if c.State != "running" || c.Info == nil {
			continue
		}
		if c.Info.Total > 0 {
			searches = true
		} else {
			baselines = true
		}
	}
	return searches, baselines
}

// counts tells how many cells are in each state.
func (v *SweepView) counts() map[string]int {
	n := map[string]int{}
	for _, c := range v.cells {
		n[c.State]++
	}
	return n
}

// eta estimates the time left: each running search's remaining
// iterations at its own pace, each running baseline (which counts no
// iterations) at the mean time of the cells less its time so far, and
// the waiting cells at that mean (of the finished cells and the running
// searches), shared over the cells running at once.
func (v *SweepView) eta() (time.Duration, bool) {
	var total, known float64
	var left float64
	running := 0
	var since []float64 // the running baselines' seconds so far
	for _, c := range v.cells {
		if in := c.Info; in != nil && in.Total == 0 {
			switch {
			case c.State == "done" && in.Elapsed > 0:
				total += in.Elapsed
				known++
			case c.State == "running" && !in.Started.IsZero():
				since = append(since, time.Since(in.Started).Seconds())
			}
			continue
		}
		if c.Info == nil || c.Info.Iter == 0 || c.Info.Elapsed <= 0 {
			continue
		}
		in := c.Info
		full := in.Elapsed
		if in.Total > in.Iter {
			full = in.Elapsed * float64(in.Total) / float64(in.Iter)
		}
		total += full
		known++
		if c.State == "running" {
			running++
			left += full - in.Elapsed
		}
	}
	if known == 0 {
		return 0, false
	}
	for _, s := range since {
		running++
		left += max(0, total/known-s)
	}
	left += float64(v.counts()["waiting"]) * total / known
	return time.Duration(left / float64(max(running, 1)) * float64(time.Second)).Round(time.Second), true
}

// current is the cell under the table's cursor.
func (v *SweepView) current() (sweeps.CellState, bool) {
	c := v.tbl.Cursor()
	if c < 0 || c >= len(v.cells) {
		return sweeps.CellState{}, false
	}
	return v.cells[c], true
}

// tableHeight is the table's share of the view's height: its rows, up
// to two fifths of the screen (at least 3); below 16 lines, where the
// cell's chart is left out, all of it. The chart has the rest.
func (v *SweepView) tableHeight() int {
	body := max(3, v.height-4)
	if v.height < 16 {
		return body
	}
	return min(len(v.cells)+1, max(3, body*2/5))
}

func (v *SweepView) layout() {
	v.tbl.SetHeight(v.tableHeight())
	cols := []table.Column{{Title: "CELL", Width: 4}, {Title: "STATE", Width: 5}, {Title: "RUN", Width: 3}, {Title: "ITER", Width: 4}, {Title: "TEST ACC", Width: 8}}
	rows := make([]table.Row, len(v.cells))
	for i, c := range v.cells {
		it, acc := "-", "-"
		if c.Info != nil {
			it = c.Info.IterText()
			acc = pctText(c.Info.TestAcc)
		}
		rows[i] = table.Row{c.Label, c.State, c.RunID, it, acc}
	}
	v.common = ""
	if tableWidth(cols, rows) > v.width { // the labels' shared parts go to the header
		labels := make([]string, len(rows))
		for i, r := range rows {
			labels[i] = r[0]
		}
		var short []string
		if short, v.common = shortLabels(labels); v.common != "" {
			for i := range rows {
				rows[i][0] = short[i]
			}
		}
	}
	for _, r := range rows {
		for j, s := range r {
			cols[j].Width = max(cols[j].Width, len(s))
		}
	}
	list.SetTable(&v.tbl, cols, rows)
}

// View implements tea.Model.
func (v *SweepView) View() tea.View { return screen(v.Render()) }

// Render draws the view at its size.
func (v *SweepView) Render() string {
	w, h := max(v.width, 40), max(v.height, 8)
	n := v.counts()
	n["stopped or interrupted"] = n["stopped"] + n["interrupted"]
	var states []string // the states some cell is in
	for _, st := range []string{"done", "running", "waiting", "failed", "stopped or interrupted"} {
		if n[st] > 0 {
			states = append(states, fmt.Sprintf("%d %s", n[st], st))
		}
	}
	head := fmt.Sprintf("%s sweep %s: %d cells: %s", styles.Title.Render("maple"), v.name, len(v.cells), strings.Join(states, ", "))
	note := v.note
	switch {
	case n["running"] == 0 && n["waiting"] > 0 && v.done == nil:
		// Nothing runs the waiting cells (this process runs no sweep): no
		// time left to give, and what to do instead.
		if note == "" && v.halted {
			note = "the sweep was stopped; rerun it to run the waiting cells"
		} else if note == "" {
			note = "no cell is running; rerun the sweep to run the waiting cells"
		}
	case n["running"]+n["waiting"] > 0:
		if eta, ok := v.eta(); ok {
			head += fmt.Sprintf(" · about %s left", eta)
		}
	}
	if v.common != "" {
		head += "\n" + styles.Dim.Render("cells "+v.common)
	}
	head = fit(head, w, 2)
	body := v.tbl.View()
	if v.err != nil {
		body = styles.Warn.Render(v.err.Error())
	}
	v.help.SetWidth(w)
	foot := shortHelp(v.help, v.keys.ShortHelp())
	if note != "" {
		foot = note + "\n" + foot
	}
	// The cell's chart has the lines the head, table and footer leave.
	if rest := h - lipgloss.Height(head) - lipgloss.Height(body) - lipgloss.Height(foot); v.err == nil && v.height >= 16 && rest >= 6 && len(v.cells) > 0 {
		if v.settings {
			v.searched.SetSize(w, rest)
			body += "\n" + fit(v.searched.View(), w, rest)
		} else {
			v.chart.SetSize(w, rest)
			body += "\n" + fit(v.chart.View(), w, rest)
		}
	}
	return fit(strings.Join([]string{head, body, foot}, "\n"), w, h)
}

// RunSweepView shows sweep name until the person leaves, picks a running
// cell (its id is returned, to attach to) or done closes. stop reports
// that the person asked to stop the sweep this process runs.
func RunSweepView(ctx context.Context, tio IO, dir, name string, done <-chan struct{}) (attach string, stop bool, err error) {
	v := NewSweepView(dir, name, done)
	_, err = tea.NewProgram(v, options(ctx, tio)...).Run()
	return v.attach, v.stopped, err
}

// tableWidth is how wide the table of cols and rows is drawn: each
// column as wide as its widest cell or title, with the cell padding.
func tableWidth(cols []table.Column, rows []table.Row) int {
	w := 0
	for j, c := range cols {
		cw := max(c.Width, len(c.Title))
		for _, r := range rows {
			cw = max(cw, len(r[j]))
		}
		w += cw + 2
	}
	return w
}

// shortLabels drops from sweep cell labels ("dataset|size|model|method|seed")
// the parts every label shares: short holds what is left of each, and
// common the label with * for the parts that differ. common is "" (and
// short nil) when nothing is shared or nothing differs.
func shortLabels(labels []string) (short []string, common string) {
	if len(labels) < 2 {
		return nil, ""
	}
	parts := make([][]string, len(labels))
	for i, l := range labels {
		parts[i] = strings.Split(l, "|")
		if len(parts[i]) != len(parts[0]) {
			return nil, ""
		}
	}
	same := make([]bool, len(parts[0]))
	pattern := make([]string, len(parts[0]))
	nsame := 0
	for j := range parts[0] {
		same[j] = true
		for _, p := range parts[1:] {
			same[j] = same[j] && p[j] == parts[0][j]
		}
		pattern[j] = "*"
		if same[j] {
			pattern[j] = parts[0][j]
			nsame++
		}
	}
	if nsame == 0 || nsame == len(same) {
		return nil, ""
	}
	short = make([]string, len(labels))
	for i, p := range parts {
		var rest []string
		for j, v := range p {
			if !same[j] {
				rest = append(rest, v)
			}
		}
		short[i] = strings.Join(rest, "|")
	}
	return short, strings.Join(pattern, "|")
}
