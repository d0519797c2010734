package tui

import (
	"context"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/table"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/guptarohit/asciigraph"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
	"github.com/maple-ood/maple/train"
)

// ActionKind names what the browser asks its caller to do.
type ActionKind int

// The browser's actions.
const (
	ActionNone   ActionKind = iota // leave
	ActionAttach                   // attach to the running search ID
	ActionResume                   // resume the run ID
	ActionNew                      // start a new run with Config
	ActionSweep                    // show the live view of the sweep ID
)

// Action is what the browser asks its caller to do when it closes.
type Action struct {
	Kind   ActionKind
	ID     string       // the run for attach and resume; the sweep for ActionSweep
	Config *runs.Config // the new run's full config (ActionNew)
}

// browserMode is what the browser shows.
type browserMode int

const (
	modeList browserMode = iota
	modeRun
	modeCompare
	modeNew
	modeHelp
)

// Messages of the browser's disk reads, each done in a tea.Cmd.
type (
	reloadMsg struct{}
	listMsg   struct {
		list []runs.Info
		err  error
	}
	// openedMsg carries a run read for its replay (or a baseline's text).
	openedMsg struct {
		replay *Dashboard
		detail string
		err    error
		id     string // the run
		live   bool   // it was running when read
		again  bool   // a reread of the page on the screen (Browser.following)
	}
	// comparedMsg carries the comparison of two runs.
	comparedMsg struct{ detail string }
	// formMsg carries the config that prefills the new-run form.
	formMsg struct {
		cfg runs.Config
		err error
	}
)

// browserCols are the columns of maple ls: best validation worst-group
// accuracy over the search, test worst-group and average accuracy at the
// validation-selected checkpoint, and the sweep a run is a cell of.
var browserCols = []string{"ID", "DATASET", "METHOD", "STATUS", "ITER", "VAL WG", "TEST WG", "TEST", "SWEEP", "STARTED", "TIME", "NAME", "TAGS"}

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
	mode     browserMode
	replay   *Dashboard
	detail   string
	// following is the running baseline whose page is on the screen: it
	// is read again at every reload, until the run ends ("": none).
	following string
	mono      bool // the terminal shows no colour: compared lines get characters of their own
	form      []textinput.Model
	formCfg   runs.Config // the config the form edits
	field     int
	keys      browserKeys
	fkeys     formKeys
	help      help.Model
	action    Action
	note      string
	width     int
	height    int
	load      func(dir string) ([]runs.Info, error)
	stopAsk   string // the run whose stop awaits y
}

// stoppedMsg reports a stop asked from the browser.
type stoppedMsg struct {
	id   string
	info runs.Info
	err  error
}

// NewBrowser returns the browser of the runs in dir.
func NewBrowser(dir string) *Browser {
	f := textinput.New()
	f.Prompt = "/"
	b := &Browser{dir: dir, selected: map[string]bool{}, width: 80, height: 24, filter: f, load: runs.List,
		keys: newBrowserKeys(), fkeys: newFormKeys("start"), help: newHelp()}
	cols := make([]table.Column, len(browserCols))
	for i, c := range browserCols {
		cols[i] = table.Column{Title: c, Width: len(c)}
	}
	b.tbl = table.New(table.WithColumns(cols), table.WithFocused(true), table.WithHeight(10))
	st := table.DefaultStyles()
	st.Selected = styles.Selected
	b.tbl.SetStyles(st)
	return b
}

// loadCmd reads the listing.
func (b *Browser) loadCmd() tea.Cmd {
	load, dir := b.load, b.dir
	return func() tea.Msg { l, err := load(dir); return listMsg{l, err} }
}

// Init reads the listing and starts the periodic refresh.
func (b *Browser) Init() tea.Cmd { return tea.Batch(b.loadCmd(), tick()) }

func tick() tea.Cmd {
	return tea.Tick(2*time.Second, func(time.Time) tea.Msg { return reloadMsg{} })
}

func (b *Browser) row(in runs.Info) table.Row {
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
func (b *Browser) refresh() {
	q := strings.ToLower(strings.TrimSpace(b.filter.Value()))
	b.view = b.view[:0]
	for _, in := range b.list {
		r := strings.ToLower(strings.Join(append(b.row(in), in.Model), " ")) // the model filters too
		if q == "" || strings.Contains(r, q) {
			b.view = append(b.view, in)
		}
	}
	key := func(in runs.Info) string { return b.row(in)[b.sortCol] }
	// num is the value of the columns that sort as numbers.
	num := func(in runs.Info) (float64, bool) {
		switch b.sortCol {
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
		if b.desc {
			return !less
		}
		return less
	})
	// Narrower terminals drop the start, time and tags columns, then the
	// sweep column, then the best-validation column (the sort still uses
	// them).
	show := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	switch {
	case b.width < 150 && b.width >= 110:
		show = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 11} // the name stays; start and time go
	case b.width < 90:
		show = []int{0, 1, 2, 3, 4, 6, 7} // keep the dataset; the best val worst-group goes
	case b.width < 110:
		show = show[:8]
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
	setTable(&b.tbl, cols, rows)
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
	case stoppedMsg:
		b.note = fmt.Sprintf("%s %s at iteration %d; r resumes it", m.id, m.info.Status, m.info.Iter)
		if m.info.Total == 0 { // a baseline: no iterations, no checkpoint
			b.note = fmt.Sprintf("%s %s before it finished; a baseline keeps no checkpoint: r trains it again from the start", m.id, m.info.Status)
		}
		if m.err != nil {
			b.note = "stop " + m.id + ": " + m.err.Error()
		}
		return b, b.loadCmd()
	case tea.ColorProfileMsg:
		// Without colour the cursor row's colours are dropped: reverse
		// video shows it instead (NO_COLOR, a dumb terminal).
		st := table.DefaultStyles()
		st.Selected = styles.Selected
		if m.Profile <= colorprofile.Ascii {
			st.Selected = styles.SelectedMono
		}
		b.mono = m.Profile <= colorprofile.Ascii
		b.tbl.SetStyles(st)
	case tea.WindowSizeMsg:
		b.width, b.height = m.Width, m.Height
		b.tbl.SetWidth(m.Width)
		b.tbl.SetHeight(max(3, m.Height-6))
		b.refresh()
		if b.replay != nil {
			b.replay.Update(tea.WindowSizeMsg{Width: m.Width, Height: m.Height - 1})
		}
	case reloadMsg:
		return b, tea.Batch(b.loadCmd(), tick())
	case listMsg:
		if m.err != nil {
			b.note = m.err.Error()
		} else {
			b.list = m.list
			b.refresh()
			if i := slices.IndexFunc(b.list, func(in runs.Info) bool { return in.ID == b.following }); i >= 0 && b.mode == modeCompare {
				return b, b.openRun(b.list[i], true)
			}
		}
	case openedMsg:
		if m.again && (b.mode != modeCompare || b.following != m.id) {
			return b, nil // the page was left before the reread came
		}
		b.following = ""
		switch {
		case m.err != nil:
			b.note = m.err.Error()
		case m.replay != nil:
			b.replay, b.mode = m.replay, modeRun
		default:
			b.detail, b.mode, b.replay = m.detail, modeCompare, nil
			if m.live {
				b.following = m.id
			}
		}
	case exportedMsg: // e in a replay
		if b.replay != nil {
			b.replay.Update(m)
		}
	case comparedMsg:
		b.detail, b.mode, b.replay, b.following = m.detail, modeCompare, nil, ""
	case formMsg:
		if m.err != nil {
			b.note = m.err.Error()
			return b, nil
		}
		return b, b.openForm(m.cfg)
	case tea.KeyPressMsg:
		return b.key(m)
	}
	return b, nil
}

func (b *Browser) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if k.String() == "ctrl+c" { // leaves from every page, as from the list
		return b, tea.Quit
	}
	switch b.mode {
	case modeHelp:
		b.mode = modeList
		return b, nil
	case modeRun, modeCompare:
		if key.Matches(k, b.keys.Back) {
			b.mode, b.replay, b.following = modeList, nil, ""
		} else if b.replay != nil {
			// The replay's own commands (e's export) run; its keys that
			// leave (q, esc, ctrl+c) are the browser's, handled above.
			_, cmd := b.replay.Update(k)
			return b, cmd
		}
		return b, nil
	case modeNew:
		return b.formKey(k)
	}
	switch {
	case b.editing:
		return b.filterKey(k)
	case b.stopAsk != "":
		return b.stopAnswer(k)
	}
	return b.listKey(k)
}

// filterKey edits the filter: enter confirms it, esc clears it.
func (b *Browser) filterKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch k.String() {
	case "enter", "esc":
		b.editing = false
		b.filter.Blur()
		if k.String() == "esc" {
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

// stopAnswer takes the answer to "stop run id?": y stops it through its
// socket, in a tea.Cmd; any other key leaves it running.
func (b *Browser) stopAnswer(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	id := b.stopAsk
	b.stopAsk = ""
	if k.String() != "y" {
		b.note = "not stopped"
		return b, nil
	}
	b.note = "stopping " + id + "..."
	dir := runs.Dir(b.dir, id)
	return b, func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		in, err := session.StopRun(ctx, dir)
		return stoppedMsg{id: id, info: in, err: err}
	}
}

// listKey handles a key in the list of runs.
func (b *Browser) listKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	in, ok := b.current()
	switch {
	case k.String() == "esc" && b.filter.Value() != "": // a confirmed filter
		b.filter.SetValue("")
		b.refresh()
	case key.Matches(k, b.keys.Quit):
		return b, tea.Quit
	case key.Matches(k, b.keys.Help):
		b.mode = modeHelp
	case key.Matches(k, b.keys.Filter):
		b.editing = true
		return b, b.filter.Focus()
	case key.Matches(k, b.keys.Sort):
		b.sortCol = (b.sortCol + 1) % len(browserCols)
		b.refresh()
	case key.Matches(k, b.keys.SortBack):
		b.sortCol = (b.sortCol + len(browserCols) - 1) % len(browserCols)
		b.refresh()
	case key.Matches(k, b.keys.Reverse):
		b.desc = !b.desc
		b.refresh()
	case key.Matches(k, b.keys.Select):
		if ok {
			b.selected[in.ID] = !b.selected[in.ID]
			if !b.selected[in.ID] {
				delete(b.selected, in.ID)
			}
			b.refresh()
		}
	case key.Matches(k, b.keys.Open):
		if ok {
			return b, b.openRun(in, false)
		}
	case key.Matches(k, b.keys.Compare):
		return b, b.openCompare()
	case key.Matches(k, b.keys.Attach):
		if ok && in.Status.Live() {
			b.action = Action{Kind: ActionAttach, ID: in.ID}
			return b, tea.Quit
		}
		b.note = "a attaches to a running search; this one is " + in.Status.String()
	case key.Matches(k, b.keys.Resume):
		if ok && in.Status.Resumable() {
			b.action = Action{Kind: ActionResume, ID: in.ID}
			return b, tea.Quit
		}
		b.note = "r resumes an interrupted, stopped or failed run; this one is " + in.Status.String()
	case key.Matches(k, b.keys.Sweep):
		if !ok || in.Sweep == "" {
			b.note = "w opens the live view of the selected run's sweep; this run is not a sweep's"
			return b, nil
		}
		b.action = Action{Kind: ActionSweep, ID: in.Sweep}
		return b, tea.Quit
	case key.Matches(k, b.keys.Stop):
		if !ok || !in.Status.Live() {
			b.note = "x stops a running run; this one is " + in.Status.String()
			return b, nil
		}
		b.stopAsk = in.ID
		b.note = "stop " + in.ID + " (checkpointed, resumable with r)? y/n"
		if in.Total == 0 {
			b.note = "stop " + in.ID + " (a baseline keeps no checkpoint: r trains it again from the start)? y/n"
		}
	case key.Matches(k, b.keys.New):
		if !ok {
			return b, b.openForm(runs.Config{})
		}
		dir := runs.Dir(b.dir, in.ID)
		return b, func() tea.Msg {
			cfg, err := runs.ReadConfig(dir)
			if err != nil {
				return formMsg{err: err}
			}
			return formMsg{cfg: *cfg}
		}
	default:
		var cmd tea.Cmd
		b.tbl, cmd = b.tbl.Update(k)
		return b, cmd
	}
	return b, nil
}

// openRun reads a run for its replay, in a tea.Cmd; again marks the
// reread of a running baseline's page.
func (b *Browser) openRun(in runs.Info, again bool) tea.Cmd {
	dir := runs.Dir(b.dir, in.ID)
	w, h := b.width, b.height
	return func() tea.Msg {
		d, detail, err := replay(dir, in.Status, w, h-1)
		return openedMsg{replay: d, detail: detail, err: err, id: in.ID, live: in.Status.Live(), again: again}
	}
}

// replay reads a run for a read-only view: a dashboard of its recorded
// search, or a baseline's text.
func replay(dir string, st core.Status, w, h int) (*Dashboard, string, error) {
	cfg, err := runs.ReadConfig(dir)
	if err != nil {
		return nil, "", err
	}
	sum, _ := runs.ReadSummary(dir)
	if cfg.Method != "maple" {
		pending := "no result yet" // what a baseline without a result is doing, or how to go on
		if sum != nil && sum.Result == nil {
			pending = runs.Continue(filepath.Dir(dir), sum, *cfg)
		} else if p := runs.LastProgress(dir); sum == nil && p != "" {
			pending = "no result yet; " + p
		}
		return nil, baselineText(cfg, sum, pending, w, h), nil
	}
	snaps, _ := runs.ReadMetrics(dir)
	events, _ := runs.ReadEvents(dir)
	d := NewDashboard(*cfg, nil, true)
	d.SetDir(dir)
	d.Update(tea.WindowSizeMsg{Width: w, Height: h})
	d.Update(HistoryMsg{Snaps: snaps, Events: events})
	d.status = st
	d.ended = !st.Live()
	if sum != nil && sum.Result != nil {
		r := sum.Result
		d.note = fmt.Sprintf("result (selected on validation, step %d): val worst-group %.4f · test acc %.4f · test worst-group %.4f", r.SelectedStep, r.ValWorst, r.TestAcc, r.TestWorst)
	}
	return d, "", nil
}

// baselineText describes a baseline run, which has no search to replay:
// its settings, its result and, where the screen (w x h) has room, the
// curve of its training's validation checks; without a result, pending
// says why.
func baselineText(cfg *runs.Config, sum *runs.Summary, pending string, w, h int) string {
	var sb strings.Builder
	e := cfg.Eval
	fmt.Fprintf(&sb, "%s %s: baseline %s on %s, seed %d\n", styles.Title.Render("run"), cfg.ID, cfg.Method, cfg.Dataset.Name, cfg.Settings.Seed)
	opt := fmt.Sprintf("SGD steps (lr %g, momentum %g)", e.LR, e.Momentum)
	if e.Optimizer == "adam" {
		opt = fmt.Sprintf("Adam steps (lr %g)", e.LR)
	}
	fmt.Fprintf(&sb, "model %s, %d %s, validation check every %d\n", e.Model, e.Steps, opt, e.EvalEvery)
	if e.Recipe != "" {
		fmt.Fprintf(&sb, "recipe: %s\n", e.Recipe)
	}
	sb.WriteString("\n")
	if sum == nil || sum.Result == nil {
		sb.WriteString(pending + "\n")
		return ansi.Wrap(sb.String(), max(w, 20), "")
	}
	r := sum.Result
	report.WriteResult(&sb, r)
	// Wrapped, not cut at the screen's edge: a cut "step 250" read as 25.
	text := ansi.Wrap(sb.String(), max(w, 20), "")
	room := h - strings.Count(text, "\n") - 2
	if hint := ansi.Wrap(fmt.Sprintf("(the training curve needs a taller screen, or: maple export %s --format training-csv)", cfg.ID), max(w, 20), ""); len(r.Curve) >= 2 && room < 8 && strings.Count(hint, "\n") < room {
		text += styles.Dim.Render(hint) + "\n"
	}
	if len(r.Curve) >= 2 && room >= 8 {
		text += "\n" + curveChart(fmt.Sprintf("worst-group accuracy, selected at step %d", r.SelectedStep), r.Curve, w, min(room, 16))
	}
	return text
}

// curveChart draws a training's validation checks (at least two): the
// validation and test worst-group accuracy against the step.
func curveChart(title string, curve []train.CheckPoint, w, h int) string {
	val, test := make([]float64, len(curve)), make([]float64, len(curve))
	for i, c := range curve {
		val[i], test[i] = c.ValWorst, c.TestWorst
	}
	// The x axis is the checks', ticks on whole checks labelled with
	// their steps (the last check may follow the one before it closer).
	n := len(curve) - 1
	step := func(v float64) string { return strconv.Itoa(curve[min(n, max(0, int(math.Round(v))))].Step) }
	// The test line is dotted, as in maple plot's figure, so that the
	// two stay apart without colour (NO_COLOR).
	return plotLines(title, []string{"validation (selection)", "test (not used)"}, [][]float64{val, test}, w, h,
		0, float64(n), wholeTicks(n), step, "training step →", asciigraph.DefaultCharSet, asciigraph.CreateCharSet("·"))
}

func (b *Browser) openCompare() tea.Cmd {
	var ids []string
	for id := range b.selected {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	if len(ids) < 2 {
		b.note = fmt.Sprintf("select two or more runs with space to compare (%d selected)", len(ids))
		return nil
	}
	dir, width, height, mono := b.dir, b.width, b.height, b.mono
	return func() tea.Msg { return comparedMsg{compare(dir, ids, width, height, mono)} }
}

// compare renders the comparison of runs: their curves overlaid (for the
// seeds of one configuration, also their mean and a band of one sample
// standard deviation; without colour, mono, each line drawn with
// characters of its own), their results and the settings that differ.
func compare(runsDir string, ids []string, width, height int, mono bool) string {
	n := len(ids)
	series := make([][]*core.Snapshot, n)
	flat := make([]map[string]string, n)
	results := make([]string, n)
	baselines, searches := false, false     // some runs are baselines (whose search settings are left out), some searches
	curves := make([][]train.CheckPoint, n) // each run's validation checks of its final training
	hashes := map[string]bool{}
	for i, id := range ids {
		dir := runs.Dir(runsDir, id)
		series[i], _ = runs.ReadMetrics(dir)
		flat[i] = map[string]string{}
		if cfg, err := runs.ReadConfig(dir); err == nil {
			searches = searches || cfg.Method == core.MethodMaple
			for k, v := range runs.Flags(*cfg) {
				if cfg.Method != core.MethodMaple && searchFlags[k] {
					baselines = true
					continue // a baseline runs no search
				}
				flat[i]["--"+k] = v
			}
			flat[i]["--seed"] = strconv.FormatUint(cfg.Settings.Seed, 10)
			hashes[cfg.Hash(true)] = true
		}
		if sum, _ := runs.ReadSummary(dir); sum != nil && sum.Result != nil {
			r := sum.Result
			curves[i] = r.Curve
			results[i] = fmt.Sprintf("test acc %.4f · test worst-group %.4f · val worst-group %.4f (selected on validation, step %d)", r.TestAcc, r.TestWorst, r.ValWorst, r.SelectedStep)
		} else if sum != nil {
			results[i] = "no result: " + sum.Status.String()
		} else {
			results[i] = "no result yet"
		}
	}
	seeds := len(hashes) == 1 && n > 1 // the seeds of one configuration
	w := max(40, width)
	h := max(6, (height-8)/3)
	var parts []string
	drawn := false
	if !slices.ContainsFunc(series, func(s []*core.Snapshot) bool { return len(s) > 0 }) {
		// No search among them (baselines): their training curves instead
		// of the search's charts, which would wait for an iteration.
		parts, drawn = append(parts, trainingChart(ids, curves, seeds, mono, w, 2*h)), true
	}
	for _, c := range []struct {
		title string
		f     func(*core.Snapshot) float64
	}{{"val worst-group accuracy", func(s *core.Snapshot) float64 { return s.ValWorst }}, {"outer risk", func(s *core.Snapshot) float64 { return s.OuterRisk }}} {
		if drawn {
			break // the training curves are drawn
		}
		var data [][]float64
		var names []string
		for i := range ids {
			if len(series[i]) > 0 {
				data = append(data, column(series[i], c.f))
				names = append(names, ids[i])
			}
		}
		title := c.title
		if seeds && len(data) > 1 {
			mean, lo, hi := band(data)
			data, names = append(data, mean, lo, hi), append(names, "mean", "mean-sd", "mean+sd")
			title += fmt.Sprintf(" (%d seeds of one configuration: mean ± sample sd)", len(data)-3)
		}
		parts = append(parts, chart(1, title, names, data, w, h, monoChars(mono, len(data))...))
	}
	parts = append(parts, "results")
	for i, id := range ids {
		parts = append(parts, "  "+id+": "+results[i])
	}
	keys := map[string]bool{}
	for _, f := range flat {
		for k := range f {
			keys[k] = true
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	diff := []string{"settings that differ (" + strings.Join(ids, " → ") + ")"}
	for _, k := range sorted {
		vals := make([]string, n)
		same, all := true, true
		for i := range flat {
			vals[i] = flat[i][k]
			same = same && vals[i] == vals[0]
			_, ok := flat[i][k]
			all = all && ok
		}
		if !same && all {
			diff = append(diff, fmt.Sprintf("  %-28s %s", k, strings.Join(vals, " → ")))
		}
	}
	if len(diff) == 1 {
		diff = append(diff, "  none")
	}
	if baselines && searches {
		diff = append(diff, styles.Dim.Render("  (the search's settings are left out: a baseline runs no search)"))
	}
	parts = append(parts, strings.Join(diff, "\n"))
	return strings.Join(parts, "\n")
}

// searchFlags are the flags of the search's settings, which a baseline
// does not use.
var searchFlags = func() map[string]bool {
	m := map[string]bool{}
	for _, st := range runs.SettingsTable {
		if st.Group == runs.GroupSearch {
			m[st.Flag] = true
		}
	}
	return m
}()

// trainingChart draws the runs' validation worst-group accuracy at each
// validation check of their training (a baseline's, a search's final
// weighted ERM) against the step, on the union of their checks' steps (a
// run between two of its checks holds the earlier's value, and has no
// point before its first or after its last); for the seeds of one
// configuration also their mean and band.
func trainingChart(ids []string, curves [][]train.CheckPoint, seeds, mono bool, w, h int) string {
	title := "val worst-group accuracy over the training (validation checks)"
	steps, values := onSteps(curves)
	var data [][]float64
	var names []string
	for i, v := range values {
		if v != nil {
			data, names = append(data, v), append(names, ids[i])
		}
	}
	if len(data) == 0 || len(steps) < 2 {
		return title + "\n" + styles.Dim.Render("no training curve yet: none of these runs has finished")
	}
	if seeds && len(data) > 1 {
		mean, lo, hi := band(data)
		data, names = append(data, mean, lo, hi), append(names, "mean", "mean-sd", "mean+sd")
		title += fmt.Sprintf(" (%d seeds of one configuration: mean ± sample sd)", len(data)-3)
	}
	last := len(steps) - 1
	step := func(v float64) string { return strconv.Itoa(steps[min(last, max(0, int(math.Round(v))))]) }
	return plotLines(title, names, data, w, h, 0, float64(last), wholeTicks(last), step, "training step →", monoChars(mono, len(data))...)
}

// onSteps puts curves on the union of their checks' steps: each curve's
// validation worst-group accuracy at every step of it, its earlier
// check's value between two of its checks, NaN (no point) before its
// first check and after its last; nil for a curve without checks.
func onSteps(curves [][]train.CheckPoint) (steps []int, values [][]float64) {
	at := map[int]bool{}
	for _, c := range curves {
		for _, p := range c {
			at[p.Step] = true
		}
	}
	steps = slices.Sorted(maps.Keys(at))
	values = make([][]float64, len(curves))
	for i, c := range curves {
		if len(c) == 0 {
			continue
		}
		v, j := make([]float64, len(steps)), 0
		for k, st := range steps {
			for j+1 < len(c) && c[j+1].Step <= st {
				j++
			}
			v[k] = c[j].ValWorst
			if st < c[0].Step || st > c[len(c)-1].Step {
				v[k] = math.NaN()
			}
		}
		values[i] = v
	}
	return steps, values
}

// band returns, per index over the shortest series, the mean of the
// series and the mean minus and plus their sample standard deviation.
func band(data [][]float64) (mean, lo, hi []float64) {
	m := len(data[0])
	for _, d := range data {
		m = min(m, len(d))
	}
	for t := 0; t < m; t++ {
		var s, ss float64
		for _, d := range data {
			s += d[t]
		}
		mu := s / float64(len(data))
		for _, d := range data {
			ss += (d[t] - mu) * (d[t] - mu)
		}
		sd := math.Sqrt(ss / float64(len(data)-1))
		mean, lo, hi = append(mean, mu), append(lo, mu-sd), append(hi, mu+sd)
	}
	return mean, lo, hi
}

// formFields are the settings the new-run form edits, named by their
// flags (the Form rows of runs.SettingsTable); every other setting is kept
// from the run the form starts from.
var formFields = func() []runs.Setting {
	var out []runs.Setting
	for _, st := range runs.SettingsTable {
		if st.Form {
			out = append(out, st)
		}
	}
	return out
}()

// openForm shows the new-run form prefilled from cfg (the defaults when
// cfg is empty).
func (b *Browser) openForm(cfg runs.Config) tea.Cmd {
	if cfg.Method == "" {
		cfg = runs.DefaultConfig("synthetic")
	}
	b.formCfg = cfg
	b.form = make([]textinput.Model, len(formFields))
	for i, f := range formFields {
		ti := textinput.New()
		ti.Prompt = fmt.Sprintf("%-12s ", f.Flag)
		ti.SetValue(f.Get(&cfg))
		ti.SetWidth(40)
		b.form[i] = ti
	}
	b.field, b.mode, b.note = 0, modeNew, ""
	return b.form[0].Focus()
}

func (b *Browser) formKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch {
	case key.Matches(k, b.fkeys.Cancel):
		b.mode, b.note = modeList, ""
		return b, nil
	case key.Matches(k, b.fkeys.Next):
		b.form[b.field].Blur()
		b.field = (b.field + 1) % len(b.form)
		return b, b.form[b.field].Focus()
	case key.Matches(k, b.fkeys.Prev):
		b.form[b.field].Blur()
		b.field = (b.field + len(b.form) - 1) % len(b.form)
		return b, b.form[b.field].Focus()
	case key.Matches(k, b.fkeys.Apply):
		cfg := b.formCfg
		cfg.ID, cfg.Started, cfg.Sweep, cfg.Cell, cfg.Args, cfg.Name = "", time.Time{}, "", "", nil, "" // a name names one run
		for i, f := range formFields {
			if err := f.Set(&cfg, strings.TrimSpace(b.form[i].Value())); err != nil {
				b.note = fmt.Sprintf("--%s: %v", f.Flag, err)
				return b, nil
			}
		}
		cfg.Eval.Seed = cfg.Settings.Seed // --seed seeds the evaluation too
		if err := cfg.Check(); err != nil {
			b.note = err.Error()
			return b, nil
		}
		b.action = Action{Kind: ActionNew, Config: &cfg}
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
	if (b.width < minWidth || b.height < minHeight) && b.mode != modeRun {
		// As the dashboard (and so the replay) says: a corner of the list
		// or of a comparison would read as the whole.
		return tooSmall(b.width, b.height, "", false)
	}
	w, h := b.width, b.height
	var out string
	b.help.SetWidth(w)
	back := b.help.ShortHelpView(backKeys{b.keys.Back}.ShortHelp())
	switch b.mode {
	case modeRun:
		out = b.replay.Render() + "\n" + back
	case modeCompare:
		out = b.detail + "\n" + back
	case modeHelp:
		var sb strings.Builder
		sb.WriteString(styles.Title.Render("runs browser keys") + "  (any key closes this help)\n\n")
		sb.WriteString(b.help.FullHelpView(b.keys.FullHelp()))
		sb.WriteString("\n\n" + lipgloss.NewStyle().Width(w).Render(
			"enter replays a run's charts, events and result; space selects runs for c (compare two or more). "+
				"a attaches to a live search, r resumes an interrupted, stopped or failed run, n starts a new "+
				"run from a form holding the selected run's whole config. / filters; s < > S sort."))
		out = sb.String()
	case modeNew:
		var sb strings.Builder
		sb.WriteString(styles.Title.Render("new run") + "  (every other setting is kept from the selected run)\n\n")
		for i := range b.form {
			sb.WriteString(b.form[i].View() + "\n")
		}
		if b.note != "" {
			sb.WriteString("\n" + styles.Warn.Render(b.note))
		}
		sb.WriteString("\n" + b.help.ShortHelpView(b.fkeys.ShortHelp()))
		out = sb.String()
	default:
		head := fmt.Sprintf("%s runs in %s  (%d shown of %d, %d selected)", styles.Title.Render("maple"), b.dir, len(b.view), len(b.list), len(b.selected))
		if b.editing || b.filter.Value() != "" {
			head += "  " + b.filter.View()
		}
		body := b.tbl.View()
		if len(b.list) == 0 {
			body = "no runs yet: press n for a new run, or run maple run --dataset synthetic"
		}
		foot := b.help.ShortHelpView(b.keys.ShortHelp())
		if b.note != "" {
			foot = b.note + "\n" + foot
		}
		out = head + "\n" + body + "\n" + foot
	}
	return fit(out, w, h)
}
