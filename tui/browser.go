package tui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/table"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

// Action is what the browser asks its caller to do when it closes.
type Action struct {
	Kind string   // "attach", "resume", "new", or "" to leave
	ID   string   // the run for attach and resume
	Args []string // the maple command line for new
}

// reloadMsg asks for a fresh listing; listMsg carries one.
type (
	reloadMsg struct{}
	listMsg   struct {
		list []runs.Info
		err  error
	}
)

// browserCols are the columns of maple ls: best validation worst-group
// accuracy over the search, test worst-group and average accuracy at the
// validation-selected checkpoint.
var browserCols = []string{"ID", "DATASET", "METHOD", "STATUS", "ITER", "VAL WG", "TEST WG", "TEST"}

// Browser is the runs browser: a sortable, filterable table of the runs
// in a directory, live-updating, with a replay of each run, comparison of
// two, and actions (attach, resume, new run) handed back to the caller.
type Browser struct {
	dir      string
	list     []runs.Info
	view     []runs.Info
	tbl      table.Model
	filter   textinput.Model
	editing  bool
	sortCol  int
	desc     bool
	selected map[string]bool
	mode     string // list, run, compare, new, help
	replay   *Dashboard
	detail   string
	form     []textinput.Model
	formKeys []string
	field    int
	action   Action
	note     string
	width    int
	height   int
	load     func(dir string) ([]runs.Info, error)
}

// NewBrowser returns the browser of the runs in dir.
func NewBrowser(dir string) *Browser {
	f := textinput.New()
	f.Prompt = "/"
	b := &Browser{dir: dir, selected: map[string]bool{}, mode: "list", width: 80, height: 24, filter: f, load: runs.List}
	cols := make([]table.Column, len(browserCols))
	for i, c := range browserCols {
		cols[i] = table.Column{Title: c, Width: len(c)}
	}
	b.tbl = table.New(table.WithColumns(cols), table.WithFocused(true), table.WithHeight(10))
	st := table.DefaultStyles()
	st.Selected = st.Selected.Foreground(lipgloss.Color("0")).Background(lipgloss.Color("12"))
	b.tbl.SetStyles(st)
	b.reload()
	return b
}

func (b *Browser) reload() {
	l, err := b.load(b.dir)
	if err != nil {
		b.note = err.Error()
	}
	b.list = l
	b.refresh()
}

// Init starts the periodic refresh.
func (b *Browser) Init() tea.Cmd { return tick() }

func tick() tea.Cmd {
	return tea.Tick(2*time.Second, func(time.Time) tea.Msg { return reloadMsg{} })
}

func (b *Browser) row(in runs.Info) table.Row {
	it := "-"
	if in.Total > 0 {
		it = fmt.Sprintf("%d/%d", in.Iter, in.Total)
	}
	id := in.ID
	if b.selected[in.ID] {
		id = "*" + id
	}
	st := in.Status
	if in.Problem != "" {
		st += "!"
	}
	return table.Row{id, in.Dataset, in.Method, st, it, pctText(in.BestVal), pctText(in.TestWorst), pctText(in.TestAcc)}
}

func pctText(v float64) string {
	if v < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

// refresh applies the filter and the sort and refills the table.
func (b *Browser) refresh() {
	q := strings.ToLower(strings.TrimSpace(b.filter.Value()))
	b.view = b.view[:0]
	for _, in := range b.list {
		r := strings.ToLower(strings.Join(b.row(in), " "))
		if q == "" || strings.Contains(r, q) {
			b.view = append(b.view, in)
		}
	}
	key := func(in runs.Info) string { return b.row(in)[b.sortCol] }
	num := func(in runs.Info) float64 {
		switch b.sortCol {
		case 4:
			return float64(in.Iter)
		case 5:
			return in.BestVal
		case 6:
			return in.TestWorst
		case 7:
			return in.TestAcc
		}
		return 0
	}
	sort.SliceStable(b.view, func(i, j int) bool {
		var less bool
		if b.sortCol >= 4 {
			less = num(b.view[i]) < num(b.view[j])
		} else {
			less = key(b.view[i]) < key(b.view[j])
		}
		if b.desc {
			return !less
		}
		return less
	})
	// Narrow terminals drop the dataset column (the filter still sees it).
	show := []int{0, 1, 2, 3, 4, 5, 6, 7}
	if b.width < 90 {
		show = []int{0, 2, 3, 4, 5, 6, 7}
	}
	rows := make([]table.Row, len(b.view))
	widths := make([]int, len(show))
	for i, in := range b.view {
		full := b.row(in)
		for j, c := range show {
			rows[i] = append(rows[i], full[c])
			widths[j] = max(widths[j], len(full[c]))
		}
	}
	cols := make([]table.Column, len(show))
	for j, i := range show {
		c := browserCols[i]
		if i == b.sortCol {
			c += map[bool]string{false: " ▲", true: " ▼"}[b.desc]
		}
		cols[j] = table.Column{Title: c, Width: max(widths[j], len([]rune(c)))}
	}
	cur := b.tbl.Cursor()
	b.tbl.SetColumns(cols)
	b.tbl.SetRows(rows)
	b.tbl.SetCursor(min(max(cur, 0), max(0, len(rows)-1)))
}

func (b *Browser) current() (runs.Info, bool) {
	c := b.tbl.Cursor()
	if c < 0 || c >= len(b.view) {
		return runs.Info{}, false
	}
	return b.view[c], true
}

// Update implements tea.Model.
func (b *Browser) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch m := msg.(type) {
	case tea.WindowSizeMsg:
		b.width, b.height = m.Width, m.Height
		b.tbl.SetWidth(m.Width)
		b.tbl.SetHeight(max(3, m.Height-6))
		b.refresh()
		if b.replay != nil {
			b.replay.Update(tea.WindowSizeMsg{Width: m.Width, Height: m.Height - 1})
		}
	case reloadMsg:
		return b, tea.Batch(func() tea.Msg { l, err := b.load(b.dir); return listMsg{l, err} }, tick())
	case listMsg:
		if m.err == nil {
			b.list = m.list
			b.refresh()
		}
	case tea.KeyPressMsg:
		return b.key(m)
	}
	return b, nil
}

func (b *Browser) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	s := k.String()
	switch b.mode {
	case "help":
		b.mode = "list"
		return b, nil
	case "run", "compare":
		switch s {
		case "esc", "backspace", "q", "left":
			b.mode, b.replay = "list", nil
		default:
			if b.replay != nil {
				b.replay.Update(k)
			}
		}
		return b, nil
	case "new":
		return b.formKey(k)
	}
	if b.editing {
		switch s {
		case "enter", "esc":
			b.editing = false
			b.filter.Blur()
			if s == "esc" {
				b.filter.SetValue("")
			}
			b.refresh()
			return b, nil
		}
		var cmd tea.Cmd
		b.filter, cmd = b.filter.Update(k)
		b.refresh()
		return b, cmd
	}
	in, ok := b.current()
	switch s {
	case "q", "ctrl+c":
		return b, tea.Quit
	case "?":
		b.mode = "help"
	case "/":
		b.editing = true
		return b, b.filter.Focus()
	case "s", ">":
		b.sortCol = (b.sortCol + 1) % len(browserCols)
		b.refresh()
	case "<":
		b.sortCol = (b.sortCol + len(browserCols) - 1) % len(browserCols)
		b.refresh()
	case "S":
		b.desc = !b.desc
		b.refresh()
	case "space":
		if ok {
			b.selected[in.ID] = !b.selected[in.ID]
			if !b.selected[in.ID] {
				delete(b.selected, in.ID)
			}
			b.refresh()
		}
	case "enter":
		if ok {
			b.openRun(in)
		}
	case "c":
		b.openCompare()
	case "a":
		if ok && (in.Status == "running" || in.Status == "paused") {
			b.action = Action{Kind: "attach", ID: in.ID}
			return b, tea.Quit
		}
		b.note = "a attaches to a running search; this one is " + in.Status
	case "r":
		if ok && (in.Status == "interrupted" || in.Status == "stopped") {
			b.action = Action{Kind: "resume", ID: in.ID}
			return b, tea.Quit
		}
		b.note = "r resumes an interrupted or stopped run; this one is " + in.Status
	case "n":
		return b, b.openForm(in, ok)
	default:
		var cmd tea.Cmd
		b.tbl, cmd = b.tbl.Update(k)
		return b, cmd
	}
	return b, nil
}

func (b *Browser) openRun(in runs.Info) {
	dir := b.dir + "/" + in.ID
	cfg, err := runs.ReadConfig(dir)
	if err != nil {
		b.note = err.Error()
		return
	}
	sum, _ := runs.ReadSummary(dir)
	if cfg.Method != "maple" {
		b.detail, b.mode, b.replay = baselineText(cfg, sum), "compare", nil
		return
	}
	snaps, _ := runs.ReadMetrics(dir)
	events, _ := runs.ReadEvents(dir)
	d := NewDashboard(*cfg, nil, true)
	d.SetDir(dir)
	d.Update(tea.WindowSizeMsg{Width: b.width, Height: b.height - 1})
	d.Update(HistoryMsg{Snaps: snaps, Events: events})
	d.status = in.Status
	d.ended = in.Status != "running" && in.Status != "paused"
	if sum != nil && sum.Result != nil {
		r := sum.Result
		d.note = fmt.Sprintf("result (selected on validation, step %d): val wg %.4f · test acc %.4f · test wg %.4f", r.SelectedStep, r.ValWorst, r.TestAcc, r.TestWorst)
	}
	b.replay, b.mode = d, "run"
}

// baselineText describes a baseline run, which has no search to replay.
func baselineText(cfg *runs.Config, sum *runs.Summary) string {
	var sb strings.Builder
	e := cfg.Eval
	fmt.Fprintf(&sb, "%s %s: baseline %s on %s, seed %d\n", titleStyle.Render("run"), cfg.ID, cfg.Method, cfg.Dataset.Name, cfg.Settings.Seed)
	fmt.Fprintf(&sb, "model %s, %d SGD steps (lr %g, momentum %g), validation check every %d\n\n", e.Model, e.Steps, e.LR, e.Momentum, e.EvalEvery)
	if sum == nil || sum.Result == nil {
		sb.WriteString("no result yet\n")
		return sb.String()
	}
	sum.Result.Report(&sb)
	return sb.String()
}

// flatten turns a config into sorted key=value lines.
func flatten(prefix string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(prefix+k+".", e, out)
		}
	default:
		b, _ := json.Marshal(x)
		out[strings.TrimSuffix(prefix, ".")] = string(b)
	}
}

func (b *Browser) openCompare() {
	var ids []string
	for id := range b.selected {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	if len(ids) != 2 {
		b.note = fmt.Sprintf("select exactly two runs with space to compare (%d selected)", len(ids))
		return
	}
	var series [2][]*core.Snapshot
	var flat [2]map[string]string
	for i, id := range ids {
		dir := b.dir + "/" + id
		series[i], _ = runs.ReadMetrics(dir)
		flat[i] = map[string]string{}
		if cfg, err := runs.ReadConfig(dir); err == nil {
			cfg.ID, cfg.Started, cfg.Args = "", time.Time{}, nil
			raw, _ := json.Marshal(cfg)
			var m map[string]any
			json.Unmarshal(raw, &m)
			flatten("", m, flat[i])
		}
	}
	w := max(40, b.width)
	h := max(6, (b.height-8)/3)
	col := func(s []*core.Snapshot, f func(*core.Snapshot) float64) []float64 { return column(s, f) }
	var parts []string
	for _, c := range []struct {
		title string
		f     func(*core.Snapshot) float64
	}{{"val worst-group accuracy", func(s *core.Snapshot) float64 { return s.ValWorst }}, {"outer risk", func(s *core.Snapshot) float64 { return s.OuterRisk }}} {
		var data [][]float64
		var names []string
		for i := range ids {
			if len(series[i]) > 0 {
				data = append(data, col(series[i], c.f))
				names = append(names, ids[i])
			}
		}
		parts = append(parts, chart(c.title, names, data, w, h))
	}
	var keys []string
	for k := range flat[0] {
		keys = append(keys, k)
	}
	for k := range flat[1] {
		if _, ok := flat[0][k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	diff := []string{"config differences (" + ids[0] + " → " + ids[1] + ")"}
	for _, k := range keys {
		if flat[0][k] != flat[1][k] {
			diff = append(diff, fmt.Sprintf("  %-28s %s → %s", k, flat[0][k], flat[1][k]))
		}
	}
	if len(diff) == 1 {
		diff = append(diff, "  none")
	}
	parts = append(parts, strings.Join(diff, "\n"))
	b.detail, b.mode, b.replay = strings.Join(parts, "\n"), "compare", nil
}

// The new-run form fields, prefilled from the selected run.
var formFields = []string{"dataset", "method", "objective", "model", "seed", "outer-iters", "inner-steps", "keep"}

func (b *Browser) openForm(in runs.Info, ok bool) tea.Cmd {
	vals := map[string]string{"dataset": "synthetic", "method": "maple", "objective": "irmv1", "model": "", "seed": "1", "outer-iters": "100", "inner-steps": "100", "keep": "1"}
	if ok {
		if cfg, err := runs.ReadConfig(b.dir + "/" + in.ID); err == nil {
			s := cfg.Settings
			vals = map[string]string{"dataset": cfg.Dataset.Name, "method": cfg.Method, "objective": s.Objective, "model": s.Model,
				"seed": strconv.FormatUint(s.Seed, 10), "outer-iters": strconv.Itoa(s.OuterIters), "inner-steps": strconv.Itoa(s.InnerSteps),
				"keep": strconv.FormatFloat(s.Keep, 'g', -1, 64)}
		}
	}
	b.form = make([]textinput.Model, len(formFields))
	for i, f := range formFields {
		ti := textinput.New()
		ti.Prompt = fmt.Sprintf("%-12s ", f)
		ti.SetValue(vals[f])
		ti.SetWidth(30)
		b.form[i] = ti
	}
	b.formKeys, b.field, b.mode = formFields, 0, "new"
	return b.form[0].Focus()
}

func (b *Browser) formKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch k.String() {
	case "esc":
		b.mode = "list"
		return b, nil
	case "tab", "down":
		b.form[b.field].Blur()
		b.field = (b.field + 1) % len(b.form)
		return b, b.form[b.field].Focus()
	case "shift+tab", "up":
		b.form[b.field].Blur()
		b.field = (b.field + len(b.form) - 1) % len(b.form)
		return b, b.form[b.field].Focus()
	case "enter":
		args := []string{"run"}
		for i, f := range b.formKeys {
			if v := strings.TrimSpace(b.form[i].Value()); v != "" {
				args = append(args, "--"+f, v)
			}
		}
		b.action = Action{Kind: "new", Args: args}
		return b, tea.Quit
	}
	var cmd tea.Cmd
	b.form[b.field], cmd = b.form[b.field].Update(k)
	return b, cmd
}

// Chosen returns the action the browser closed with.
func (b *Browser) Chosen() Action { return b.action }

// View implements tea.Model.
func (b *Browser) View() tea.View { return screen(b.Render()) }

// Render draws the browser at its current size.
func (b *Browser) Render() string {
	w, h := max(b.width, 40), max(b.height, 10)
	var out string
	switch b.mode {
	case "run":
		out = b.replay.Render() + "\n" + dimStyle.Render("esc back to the list")
	case "compare":
		out = b.detail + "\n" + dimStyle.Render("esc back to the list")
	case "help":
		rows := [][2]string{{"↑ ↓ PgUp PgDn", "move"}, {"enter", "open the run: its charts replayed, events, summary"}, {"space", "select a run (for compare)"},
			{"c", "compare the two selected runs: curves overlaid, config differences"}, {"a", "attach to a running search"}, {"r", "resume an interrupted or stopped run"},
			{"n", "new run from a form prefilled with the selected run's config"}, {"/", "filter by text (enter keeps it, esc clears it)"},
			{"s < >", "sort by the next / previous column; S reverses"}, {"q", "leave"}}
		var sb strings.Builder
		sb.WriteString(titleStyle.Render("runs browser keys") + "\n\n")
		for _, r := range rows {
			fmt.Fprintf(&sb, "  %-14s %s\n", r[0], r[1])
		}
		out = sb.String()
	case "new":
		var sb strings.Builder
		sb.WriteString(titleStyle.Render("new run") + "  (prefilled from the selected run; empty fields take the defaults)\n\n")
		for i := range b.form {
			sb.WriteString(b.form[i].View() + "\n")
		}
		sb.WriteString("\n" + dimStyle.Render("tab/↑/↓ field · enter start · esc cancel"))
		out = sb.String()
	default:
		head := fmt.Sprintf("%s runs in %s  (%d shown of %d, %d selected)", titleStyle.Render("maple"), b.dir, len(b.view), len(b.list), len(b.selected))
		if b.editing || b.filter.Value() != "" {
			head += "  " + b.filter.View()
		}
		body := b.tbl.View()
		if len(b.list) == 0 {
			body = "no runs yet: press n for a new run, or run maple run --dataset synthetic"
		}
		foot := dimStyle.Render("enter open · space select · c compare · a attach · r resume · n new · / filter · s sort · ? help · q quit")
		if b.note != "" {
			foot = b.note + "\n" + foot
		}
		out = head + "\n" + body + "\n" + foot
	}
	return fit(out, w, h)
}
