package tui

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/charmbracelet/colorprofile"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
)

// Typed messages from the search to the dashboard.
type (
	// SnapshotMsg carries one outer iteration.
	SnapshotMsg struct{ Snap *core.Snapshot }
	// EventMsg carries one event (pause, set_lr, error, ...).
	EventMsg struct{ Event core.Event }
	// HistoryMsg replaces everything known so far (attach, replay).
	HistoryMsg struct {
		Config *runs.Config
		Snaps  []*core.Snapshot
		Events []core.Event
	}
	// exportedMsg reports an export done from the dashboard.
	exportedMsg struct {
		iter int
		err  error
	}
	// ctlMsg reports a command the dashboard sent to the search.
	ctlMsg struct {
		kind core.EventKind
		err  error
	}
	// EndMsg says the search has ended with Status (Err nil), failed
	// (Err), or that the connection to it closed (Status unknown).
	EndMsg struct {
		Status core.Status
		Result *runs.Outcome // the final result, when there is one
		Err    error
	}
)

// Minimum terminal size; below it the dashboard shows a notice.
const minWidth, minHeight = 40, 12

// Dashboard is the live view of one search.
type Dashboard struct {
	cfg      runs.Config
	ctl      session.Control // nil: view only
	dir      string          // the run directory, for e (export); "" disables it
	detached bool            // leaving does not stop the search (attach)
	snaps    []*core.Snapshot
	events   []core.Event
	status   core.Status // StatusUnknown until the first news
	stopping bool        // a stop was asked and has not taken effect
	errText  string
	note     string // the last message to the user
	ended    bool
	result   *runs.Outcome
	// monochrome: the terminal shows no colour (NO_COLOR, a dumb
	// terminal), so chart lines that only colour tells apart get a panel
	// each.
	monochrome bool

	keys    dashboardKeys
	confirm confirmKeys
	help    help.Model
	// panes are the body's panes, side by side on a wide terminal, the
	// focused one alone on a narrow one; focus cycles through them.
	panes []pane
	rates ratesForm // the learning-rate form (l), shown while editing

	width, height int
	focus         int // the focused pane: an index into panes
	scroll        int
	showHelp      bool
	confirmQuit   bool
	editing       bool
	// cursor is the iteration the charts read out (0: none); zoom shows
	// only the last zoomN iterations.
	cursor int
	zoom   bool
	now    func() time.Time
	// keysFrom drops keys typed before it: type-ahead meant for the runs
	// browser must not steer a search it attached to.
	keysFrom time.Time
	// Commands to the search go one at a time, in the order they were
	// asked: each runs as a tea.Cmd on its own goroutine, so two in
	// flight at once could reach the search swapped (a resume before the
	// learning-rate change typed ahead of it). queued[0] is running; the
	// rest wait until its ctlMsg comes back.
	queued []tea.Cmd
	// asked is the last pause or resume sent that the search has not yet
	// confirmed with its event ("" when none): space toggles what the
	// user asked for, so a second press before the first takes effect
	// (it waits for the current iteration) undoes it instead of asking
	// twice.
	asked core.EventKind
}

// SetDir names the run directory, which enables e (export).
func (d *Dashboard) SetDir(dir string) { d.dir = dir }

// NewDashboard returns the dashboard of the run cfg steered through ctl
// (nil for a read-only view). detached says the search lives in another
// process, so that leaving never stops it.
func NewDashboard(cfg runs.Config, ctl session.Control, detached bool) *Dashboard {
	return &Dashboard{cfg: cfg, ctl: ctl, detached: detached, width: 80, height: 24, now: time.Now,
		keys: newDashboardKeys(), confirm: newConfirmKeys(), help: newHelp(),
		panes: []pane{chartsPane{}, groupsPane{}}, rates: newRatesForm()}
}

// Init implements tea.Model.
func (d *Dashboard) Init() tea.Cmd { return nil }

func (d *Dashboard) lr() core.LearningRates {
	if n := len(d.snaps); n > 0 {
		lr := d.snaps[n-1].LR
		for _, e := range d.events {
			if e.Kind == core.EventSetLR && e.Iter >= d.snaps[n-1].Iter && e.LR != nil {
				lr = *e.LR
			}
		}
		return lr
	}
	lr := d.cfg.Settings.Rates()
	for _, e := range d.events {
		if e.Kind == core.EventSetLR && e.LR != nil {
			lr = *e.LR
		}
	}
	return lr
}

// Update implements tea.Model.
func (d *Dashboard) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch m := msg.(type) {
	case tea.WindowSizeMsg:
		d.width, d.height = m.Width, m.Height
	case tea.ColorProfileMsg:
		d.monochrome = m.Profile <= colorprofile.Ascii
	case SnapshotMsg:
		d.snaps = append(d.snaps, m.Snap)
		if d.status != core.StatusPaused && !d.stopping {
			d.status = m.Snap.Status
			if m.Snap.Status == core.StatusDone && !d.ended && !d.detached {
				d.status = core.StatusEvaluating
				d.note = "search done; training the evaluation model on the learned weights"
			}
		}
		if d.note != "" && strings.HasPrefix(d.note, "checkpoint written") {
			d.note = "" // stale once the search has moved on
		}
	case HistoryMsg:
		if m.Config != nil {
			d.cfg = *m.Config
		}
		d.snaps, d.events = m.Snaps, nil
		for _, e := range m.Events {
			d.event(e)
		}
		if n := len(d.snaps); n > 0 && d.status == core.StatusUnknown {
			d.status = d.snaps[n-1].Status
		}
	case EventMsg:
		d.event(m.Event)
	case exportedMsg:
		if m.err != nil {
			d.note = "export failed: " + m.err.Error()
			return d, nil
		}
		d.note = fmt.Sprintf("exported u.npy (train with it), weights.npy, keep_prob.npy, mask.npy, ids.npy, weights.csv, export.json of the checkpoint at iteration %d into %s", m.iter, d.dir)
		if d.ctl != nil && !d.ended {
			iter := m.iter
			return d, d.send(core.EventExport, func() error { return d.ctl.Exported(iter) }) // recorded as an event
		}
	case ctlMsg:
		if m.err != nil {
			d.note = fmt.Sprintf("%s not taken: %v", m.kind, m.err)
			if m.kind == d.asked {
				d.asked = ""
			}
		}
		return d, d.next()
	case EndMsg:
		d.ended, d.stopping = true, false
		if m.Status != core.StatusUnknown {
			d.status = m.Status
		}
		d.result = m.Result
		d.note = "the search has ended; q leaves"
		if m.Status == core.StatusUnknown && d.detached {
			d.status = core.StatusUnknown
			d.note = "the connection to the search closed (maple ls shows how it ended); q leaves"
		}
		if m.Result != nil && m.Result.Status == core.StatusDone && m.Result.Result != nil {
			r := m.Result.Result
			d.note = fmt.Sprintf("result (selected on validation, step %d): test acc %.4f · test worst-group %.4f · q leaves", r.SelectedStep, r.TestAcc, r.TestWorst)
		}
		if m.Err != nil {
			d.status, d.errText = core.StatusFailed, m.Err.Error()
		}
		if d.confirmQuit {
			return d, tea.Quit
		}
	case tea.KeyPressMsg:
		return d.key(m)
	}
	return d, nil
}

func (d *Dashboard) event(e core.Event) {
	d.events = append(d.events, e)
	switch e.Kind {
	case core.EventPause:
		d.status = core.StatusPaused
		if d.asked == core.EventPause {
			d.asked = ""
		}
		if strings.HasPrefix(d.note, "pause asked") {
			d.note = ""
		}
	case core.EventResume:
		// Also what a resumed run records first: a stop before it is over.
		d.status, d.stopping = core.StatusRunning, false
		d.errText = ""
		if d.asked == core.EventResume {
			d.asked = ""
		}
		if strings.HasPrefix(d.note, "resume asked") || strings.HasPrefix(d.note, "pause asked") {
			d.note = ""
		}
	case core.EventStop:
		d.stopping = true
	case core.EventEvaluate:
		d.status = core.StatusEvaluating
	case core.EventError:
		d.errText = e.Error
		if strings.Contains(e.Error, "the search is paused") {
			d.status = core.StatusPaused
		}
	case core.EventWarning:
		d.note = "warning: " + e.Error
	case core.EventSetLR:
		d.note = fmt.Sprintf("learning rates set before iteration %d", e.Iter+1)
	case core.EventCheckpoint:
		d.note = fmt.Sprintf("checkpoint written at iteration %d", e.Iter)
	}
}

// send runs a command to the search as a tea.Cmd: a socket client may
// take a moment, and the screen never waits for it. Commands run one
// after another in the order sent: the next starts when the previous
// one's ctlMsg arrives.
func (d *Dashboard) send(kind core.EventKind, f func() error) tea.Cmd {
	d.queued = append(d.queued, func() tea.Msg { return ctlMsg{kind: kind, err: f()} })
	if len(d.queued) > 1 {
		return nil // starts when the ones before it have answered
	}
	return d.queued[0]
}

// next drops the command that has answered and starts the oldest waiting
// one, if any.
func (d *Dashboard) next() tea.Cmd {
	if len(d.queued) > 0 {
		d.queued = d.queued[1:]
	}
	if len(d.queued) == 0 {
		return nil
	}
	return d.queued[0]
}

func (d *Dashboard) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if d.now().Before(d.keysFrom) && k.String() != "ctrl+c" {
		return d, nil
	}
	if d.editing {
		return d.editKey(k)
	}
	if d.confirmQuit {
		return d.answer(k)
	}
	if d.showHelp {
		d.showHelp = false
		return d, nil
	}
	switch {
	case key.Matches(k, d.keys.Leave) && d.detached:
		return d, tea.Quit
	case key.Matches(k, d.keys.Quit), key.Matches(k, d.keys.Leave): // esc leaves as q does (back to the browser)
		if d.detached || d.ended || d.ctl == nil {
			return d, tea.Quit
		}
		d.confirmQuit = true
		d.note = "leaving stops the search (it stays resumable). Stop it and leave? y/n"
		if d.status == core.StatusEvaluating {
			d.note = "the evaluation of the learned weights is running. Leave when it ends? y/n"
		}
	case key.Matches(k, d.keys.Help):
		d.showHelp = true
	case key.Matches(k, d.keys.Stop):
		if d.ctl == nil || d.ended {
			d.note = "the search is not running"
			return d, nil
		}
		d.confirmQuit = true // y stops it and leaves once it has ended
		d.note = "stop the search (checkpointed at its last completed iteration, resumable with maple resume)? y/n"
	case key.Matches(k, d.keys.Pause):
		return d, d.togglePause()
	case key.Matches(k, d.keys.Export):
		if d.dir == "" {
			d.note = "no run directory to export into"
			return d, nil
		}
		d.note = "exporting the weights of the latest checkpoint..."
		dir := d.dir
		return d, func() tea.Msg { it, err := runs.ExportLatest(dir); return exportedMsg{it, err} }
	case key.Matches(k, d.keys.Checkpoint):
		if d.ctl != nil && !d.ended {
			d.note = "checkpoint asked"
			return d, d.send(core.EventCheckpoint, d.ctl.Checkpoint)
		}
	case key.Matches(k, d.keys.Rates):
		if d.ctl == nil || d.ended {
			d.note = "the search is not running"
			return d, nil
		}
		d.editing = true
		return d, d.rates.open(d.lr())
	case key.Matches(k, d.keys.Pane):
		d.focus = (d.focus + 1) % len(d.panes)
		d.scroll = 0
	case key.Matches(k, d.keys.Back):
		d.moveCursor(-1)
	case key.Matches(k, d.keys.Forward):
		d.moveCursor(1)
	case key.Matches(k, d.keys.Zoom):
		d.zoom = !d.zoom
	case key.Matches(k, d.keys.Up):
		d.scroll = max(0, d.scroll-1)
	case key.Matches(k, d.keys.Down):
		d.scroll++
	case key.Matches(k, d.keys.PageUp):
		d.scroll = max(0, d.scroll-10)
	case key.Matches(k, d.keys.PageDown):
		d.scroll += 10
	}
	return d, nil
}

// togglePause asks for a pause, or a resume when one was asked or the
// search is paused (space toggles what the person asked for).
func (d *Dashboard) togglePause() tea.Cmd {
	switch {
	case d.ctl == nil || d.ended:
		d.note = "the search is not running"
		return nil
	case d.asked == core.EventPause || d.asked == "" && d.status == core.StatusPaused:
		d.note = "resume asked"
		d.asked = core.EventResume
		return d.send(core.EventResume, d.ctl.Resume)
	}
	d.note = "pause asked: it takes effect after the current iteration"
	d.asked = core.EventPause
	return d.send(core.EventPause, d.ctl.Pause)
}

// moveCursor moves the charts' cursor by step iterations, starting at
// the latest, within the recorded ones.
func (d *Dashboard) moveCursor(step int) {
	n := len(d.snaps)
	if n == 0 {
		return
	}
	if d.cursor == 0 {
		d.cursor = d.snaps[n-1].Iter
	}
	d.cursor = min(max(d.cursor+step, d.snaps[0].Iter), d.snaps[n-1].Iter)
}

// answer takes the key that answers "stop it (and leave)? y/n".
func (d *Dashboard) answer(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if !key.Matches(k, d.confirm.Yes) {
		d.confirmQuit = false
		d.note = ""
		return d, nil
	}
	if d.ctl == nil || d.ended {
		return d, tea.Quit
	}
	if d.status == core.StatusEvaluating {
		d.note = "the search is done; leaving as soon as the evaluation finishes"
		return d, nil // EndMsg quits
	}
	d.stopping = true
	d.note = "stopping: the run is checkpointed at its last completed iteration and can be resumed"
	return d, d.send(core.EventStop, d.ctl.Stop) // EndMsg quits
}

func (d *Dashboard) editKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	lr, done, note, cmd := d.rates.update(k)
	if note != "" {
		d.note = note
	}
	if !done {
		return d, cmd
	}
	d.editing = false
	if lr == nil {
		return d, nil
	}
	return d, d.send(core.EventSetLR, func() error { return d.ctl.SetLR(*lr) })
}

// View implements tea.Model.
func (d *Dashboard) View() tea.View { return screen(d.Render()) }

// Render draws the dashboard at its current size.
func (d *Dashboard) Render() string {
	if d.width < minWidth || d.height < minHeight {
		question := "Stop it and leave? y/n"
		if d.status == core.StatusEvaluating {
			question = "Leave when the evaluation ends? y/n"
		}
		return tooSmall(d.width, d.height, question, d.confirmQuit)
	}
	w, h := d.width, d.height
	header := d.header(w)
	footer := d.footer(w)
	bodyH := h - lipgloss.Height(header) - lipgloss.Height(footer)
	var body string
	switch {
	case d.showHelp:
		body = d.helpView(w, bodyH)
	case d.editing:
		body = d.rates.view(w, bodyH)
	default:
		body = d.body(w, bodyH)
	}
	return fit(lipgloss.JoinVertical(lipgloss.Left, header, body, footer), w, h)
}

func (d *Dashboard) last() *core.Snapshot {
	if len(d.snaps) == 0 {
		return nil
	}
	return d.snaps[len(d.snaps)-1]
}

func fmtDur(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}

func (d *Dashboard) header(w int) string {
	c := d.cfg
	method := c.Method
	if method == "maple" {
		method += "/" + c.Settings.Objective
	}
	st := statusText(d.status, d.stopping)
	title := styles.Title.Render("maple")
	line1 := wrapItems([]string{title + " " + c.ID, c.Dataset.Name, method, "model " + c.Settings.Model, st}, w)
	if strings.Contains(line1, "\n") { // narrow: the status first, the rest on as many lines as it needs
		line1 = wrapItems([]string{title + " " + st, c.ID, c.Dataset.Name, method, "model " + c.Settings.Model}, w)
	}
	total := c.Settings.OuterIters
	iter, elapsed, eta := 0, 0.0, "?"
	if s := d.last(); s != nil {
		iter, total, elapsed = s.Iter, s.Total, s.Elapsed
		if per, ok := recentPace(d.snaps); ok {
			eta = fmtDur(per * float64(s.Total-s.Iter))
		}
	}
	barW := max(10, w-48)
	frac := 0.0
	if total > 0 {
		frac = float64(iter) / float64(total)
	}
	filled := int(math.Round(frac * float64(barW)))
	bar := strings.Repeat("█", filled) + styles.Dim.Render(strings.Repeat("░", barW-filled))
	line2 := fmt.Sprintf("iter %d/%d %s %3.0f%%  elapsed %s  eta %s", iter, total, bar, 100*frac, fmtDur(elapsed), eta)
	lr := d.lr()
	items3 := []string{fmt.Sprintf("lr: weight %g  keep %g  inner %g", lr.Weight, lr.Keep, lr.Inner)}
	if s := d.last(); s != nil && s.Selected > 0 && s.Selected <= len(d.snaps) {
		items3 = append(items3, fmt.Sprintf("selected iterate %d (val worst-group %.4f)", s.Selected, d.snaps[s.Selected-1].ValWorst))
	}
	lines := []string{line1, line2, wrapItems(items3, w)}
	if d.errText != "" {
		// Wrapped, not cut: the error says what to do at its end.
		lines = append(lines, styles.Warn.Width(w).Render("error: "+d.errText))
	}
	return strings.Join(lines, "\n")
}

// wrapItems joins items with two spaces on lines of at most w cells,
// going on to a new line between items rather than cutting one (an item
// wider than w gets a line of its own, cut by fit).
func wrapItems(items []string, w int) string {
	var lines []string
	line := ""
	for _, it := range items {
		switch {
		case line == "":
			line = it
		case lipgloss.Width(line)+2+lipgloss.Width(it) > w:
			lines = append(lines, line)
			line = it
		default:
			line += "  " + it
		}
	}
	return strings.Join(append(lines, line), "\n")
}

func (d *Dashboard) footer(w int) string {
	d.help.SetWidth(w)
	var keys string
	if d.editing {
		keys = d.help.ShortHelpView(d.rates.keys.ShortHelp())
	} else {
		keys = d.help.ShortHelpView(d.offered().ShortHelp())
	}
	if d.note != "" {
		// Wrapped, not cut: an export's file list or a result is long.
		return lipgloss.NewStyle().Width(w).Render(d.note) + "\n" + keys
	}
	return keys
}

// offered is the key map as the footer and the help page offer it: what
// a finished or read-only view cannot do left out, and space named for
// what it does now.
func (d *Dashboard) offered() dashboardKeys {
	k := d.keys
	if d.ctl == nil || d.ended {
		k.Pause.SetEnabled(false)
		k.Rates.SetEnabled(false)
		k.Checkpoint.SetEnabled(false)
		k.Stop.SetEnabled(false)
	}
	if d.dir == "" {
		k.Export.SetEnabled(false)
	}
	if d.asked == core.EventPause || d.asked == "" && d.status == core.StatusPaused {
		k.Pause.SetHelp("space", "resume")
	}
	return k
}

// body draws the panes: on a wide terminal side by side, the first on
// three fifths of the width and the others sharing the rest; on a narrow
// one the focused pane alone.
func (d *Dashboard) body(w, h int) string {
	box := func(i, w int) string {
		st := styles.Pane
		if d.focus == i {
			st = styles.Focus
		}
		// Each pane's lines are cut to its width, never wrapped: a wrapped
		// line would push the pane past the screen and hide the footer.
		return st.Width(w).Height(h).Render(fit(scrollLines(d.panes[i].render(d, w-2, h), h-2, d.focusScroll(i)), w-2, h-2))
	}
	if w < 110 || len(d.panes) == 1 {
		return box(d.focus, w)
	}
	first := w * 3 / 5
	out := []string{box(0, first)}
	rest, n := w-first, len(d.panes)-1
	for i := 1; i <= n; i++ {
		pw := rest / n
		if i == n {
			pw = rest - (n-1)*(rest/n)
		}
		out = append(out, box(i, pw))
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, out...)
}

// pane is one of the dashboard's panes: it draws its content (before
// scrolling) at a width, for a pane of a height.
type pane interface {
	render(d *Dashboard, w, h int) string
}

// chartsPane shows the search's curves: outer risk, accuracy, group
// weight fractions, validation accuracy per group, and the keep fraction
// when the search is sparse.
type chartsPane struct{}

func (chartsPane) render(d *Dashboard, w, h int) string {
	chartH := max(4, (h-2)/3)
	if d.width < 110 {
		chartH = max(4, (h-2)/2)
	}
	s := d.snaps
	if d.zoom && len(s) > zoomN {
		s = s[len(s)-zoomN:]
	}
	first := 1
	if len(s) > 0 {
		first = s[0].Iter
	}
	var charts []string
	if r := d.readout(); r != "" {
		charts = append(charts, lipgloss.NewStyle().Width(w).Render(r))
	}
	charts = append(charts, chart(first, "outer risk", []string{"R"}, [][]float64{column(s, func(x *core.Snapshot) float64 { return x.OuterRisk })}, w, chartH))
	charts = append(charts, d.chart(first, "accuracy", []string{"val worst-group", "val average", "TEST worst-group", "TEST average"}, [][]float64{
		column(s, func(x *core.Snapshot) float64 { return x.ValWorst }),
		column(s, func(x *core.Snapshot) float64 { return x.ValAcc }),
		column(s, func(x *core.Snapshot) float64 { return x.TestWorst }),
		column(s, func(x *core.Snapshot) float64 { return x.TestAcc }),
	}, w, chartH))
	var names []string
	if last := d.last(); last != nil {
		names = last.GroupNames
	}
	charts = append(charts, d.chart(first, "group weight fractions", names, perGroup(s, len(names), func(x *core.Snapshot) []float64 { return x.GroupFrac }), w, chartH))
	charts = append(charts, d.chart(first, "validation accuracy per group (inner model)", names, perGroup(s, len(names), func(x *core.Snapshot) []float64 { return x.ValGroups }), w, chartH))
	if d.cfg.Settings.Keep < 1 || d.cfg.Settings.Keep0 < 1 {
		charts = append(charts, chart(first, "keep fraction", []string{"kept"}, [][]float64{column(s, func(x *core.Snapshot) float64 { return x.KeepFrac })}, w, chartH))
	}
	return strings.Join(charts, "\n")
}

// zoomN is how many of the latest iterations z shows.
const zoomN = 50

// readout is every series' value at the cursor's iteration ("" without a
// cursor), the charts' numbers for one iteration.
func (d *Dashboard) readout() string {
	if d.cursor == 0 {
		return ""
	}
	for _, s := range d.snaps {
		if s.Iter != d.cursor {
			continue
		}
		parts := []string{fmt.Sprintf("iteration %d", s.Iter), fmt.Sprintf("outer risk %.4g", s.OuterRisk),
			fmt.Sprintf("val worst-group %.4f avg %.4f", s.ValWorst, s.ValAcc), fmt.Sprintf("TEST worst-group %.4f avg %.4f", s.TestWorst, s.TestAcc)}
		var fr []string
		for g, f := range s.GroupFrac {
			if g < len(s.GroupNames) {
				fr = append(fr, fmt.Sprintf("%s %.3f", s.GroupNames[g], f))
			}
		}
		if len(fr) > 0 {
			parts = append(parts, "weight fractions "+strings.Join(fr, " "))
		}
		return styles.Title.Render("cursor") + " " + strings.Join(parts, " · ")
	}
	return ""
}

// groupsPane shows the weights per group, the latest iteration's figures
// and the events.
type groupsPane struct{}

func (groupsPane) render(d *Dashboard, w, _ int) string { return d.groupsView(w) }

// chart plots several series in one chart, or, on a terminal without
// colour, each series in a panel of its own (the lines could not be told
// apart).
func (d *Dashboard) chart(first int, title string, names []string, series [][]float64, w, h int) string {
	if !d.monochrome || len(series) < 2 {
		return chart(first, title, names, series, w, h)
	}
	var out []string
	for i, sr := range series {
		name := ""
		if i < len(names) {
			name = names[i]
		}
		out = append(out, chart(first, title+": "+name, nil, [][]float64{sr}, w, max(6, h/len(series)+2)))
	}
	return strings.Join(out, "\n")
}

func (d *Dashboard) focusScroll(pane int) int {
	if d.focus == pane {
		return d.scroll
	}
	return 0
}

// figuresGlossary says what the groups pane's search figures are.
const figuresGlossary = "keep: the share of training samples in the keep mask; " +
	"K_t: how many samples the mask keeps at this iteration (the --keep0 fraction of them at first, annealed to the --keep fraction); " +
	"temp: the temperature, the factor on the keep mask's logits, rising from 1 to about 33 so that the mask sharpens; " +
	"|dR/dw|, |dR/ds|: norms of the outer risk's gradient in the sample weights w and in the keep probabilities s, " +
	"before clipping (s moves only when --keep is below 1)."

// groupsView shows the weight histogram per group, the timing and norms.
func (d *Dashboard) groupsView(w int) string {
	s := d.last()
	if s == nil {
		return styles.Dim.Render("no iteration yet")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "u = w·m per group (0 to %.3g)\n", s.HistEdges[len(s.HistEdges)-1])
	maxC := 1
	for _, h := range s.Hist {
		for _, c := range h {
			maxC = max(maxC, c)
		}
	}
	ticks := []rune(" ▁▂▃▄▅▆▇█")
	for g, h := range s.Hist {
		var spark strings.Builder
		for _, c := range h {
			i := 0
			if c > 0 {
				i = 1 + int(math.Round(float64(c)/float64(maxC)*float64(len(ticks)-2)))
			}
			spark.WriteRune(ticks[min(i, len(ticks)-1)])
		}
		frac := 0.0
		if g < len(s.GroupFrac) {
			frac = s.GroupFrac[g]
		}
		name := fmt.Sprintf("%-9s", s.GroupNames[g])
		fmt.Fprintf(&b, "%s %s %5.1f%%\n", styles.Series[g%len(styles.Series)].Render(name), spark.String(), 100*frac)
	}
	fmt.Fprintf(&b, "\niteration %d\n", s.Iter)
	fmt.Fprintf(&b, " outer risk %.4g  inner loss %.4g\n", s.OuterRisk, s.InnerLoss)
	fmt.Fprintf(&b, " val  acc %.4f  worst-group %.4f\n", s.ValAcc, s.ValWorst)
	fmt.Fprintf(&b, " TEST acc %.4f  worst-group %.4f\n", s.TestAcc, s.TestWorst)
	fmt.Fprintln(&b, styles.Dim.Render(" (TEST: for display only)"))
	if len(s.ValGroups) > 0 {
		items := []string{"val per group:"}
		for g, a := range s.ValGroups {
			mark := ""
			if a == s.ValWorst {
				mark = "*"
			}
			if g < len(s.GroupNames) {
				items = append(items, fmt.Sprintf("%s %.3f%s", s.GroupNames[g], a, mark))
			}
		}
		b.WriteString(fill(append(items, "(* worst)"), w, " "))
	}
	fmt.Fprintf(&b, " keep %.1f%%  K_t %.0f  temp %.3g\n", 100*s.KeepFrac, s.KeepSize, s.Temp)
	fmt.Fprintf(&b, " |dR/dw| %.3g  |dR/ds| %.3g\n", s.HyperNorm, s.KeepNorm)
	b.WriteString(styles.Dim.Render(strings.TrimSuffix(fill(strings.Fields(figuresGlossary), w, " "), "\n")) + "\n")
	fmt.Fprintf(&b, " seconds: inner %.2f outer %.2f hyper %.2f\n", s.Seconds.Inner, s.Seconds.OuterGrad, s.Seconds.Hyper)
	if len(s.Top) > 0 {
		fmt.Fprintln(&b, "\ntop-weighted samples (id label group u)")
		for _, ts := range s.Top {
			g := fmt.Sprint(ts.Group)
			if int(ts.Group) < len(s.GroupNames) {
				g = s.GroupNames[ts.Group]
			}
			fmt.Fprintf(&b, " %8d  y=%d  %-9s %.3g\n", ts.ID, ts.Label, g, ts.Weight)
		}
	}
	if len(d.events) > 0 {
		fmt.Fprintln(&b, "\nevents")
		evs := append([]core.Event(nil), d.events...)
		sort.SliceStable(evs, func(i, j int) bool { return evs[i].Iter > evs[j].Iter })
		for _, e := range evs[:min(len(evs), 8)] {
			t := string(e.Kind)
			if e.LR != nil {
				t += fmt.Sprintf(" w %g k %g in %g", e.LR.Weight, e.LR.Keep, e.LR.Inner)
			}
			fmt.Fprintf(&b, "  @%d %s\n", e.Iter, t)
		}
	}
	return b.String()
}

func (d *Dashboard) helpView(w, h int) string {
	var b strings.Builder
	b.WriteString(styles.Title.Render("keys") + "  (any key closes this help)\n\n")
	d.help.SetWidth(w - 4)
	b.WriteString(d.help.FullHelpView(d.offered().FullHelp()))
	b.WriteString("\n\n" + lipgloss.NewStyle().Width(w-4).Render(
		"space pauses and resumes between outer iterations. l edits the weight, keep-probability "+
			"and inner learning rates, applied at the next iteration after a checkpoint. s writes a "+
			"checkpoint now; e exports the weights of the latest one. q asks before stopping a search "+
			"this process runs (a second Ctrl-C stops it at once). Test figures are shown for "+
			"monitoring only; every choice uses the validation split."))
	// Cut inside the box on a short terminal: the footer stays.
	return styles.Pane.Width(w).Height(h).Render(fit(b.String(), w-2, max(1, h-2)))
}
