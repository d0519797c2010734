package tui

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/export"
	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
	"github.com/maple-ood/maple/tui/chart"
)

// Typed messages from the search to the dashboard.
type (
	// SnapshotMsg carries one outer iteration.
	SnapshotMsg struct{ Snap *core.Snapshot }
	// EventMsg carries one event (pause, set_lr, error, ...).
	EventMsg struct{ Event core.Event }
	// EvalProgressMsg is the final training's progress after the search:
	// a check of the training (Stage "") or a step of a training before it
	// (Stage its name: the shared evaluation's candidate).
	EvalProgressMsg struct {
		Step, Steps int
		Stage       string
		ValWorst    float64 // at a check; -1 for a stage's step
	}
	// HistoryMsg replaces everything known so far (attach, replay).
	HistoryMsg struct {
		Config *runs.Config
		Snaps  []*core.Snapshot
		Events []core.Event
	}
	// exportedMsg reports an export done from the dashboard.
	exportedMsg struct {
		iter  int    // the checkpoint's iteration
		which string // what was exported, in words (export.Export.Which)
		err   error
	}
	// ctlMsg reports a command the dashboard sent to the search.
	ctlMsg struct {
		kind core.EventKind
		err  error
	}
	// EndMsg says the search has ended with Status (Err nil), failed
	// (Err), or that the connection to it closed (Status unknown).
	EndMsg struct {
		Status  core.Status
		Result  *report.Outcome // the final result, when there is one
		Summary *runs.Summary   // the run's summary, when there is one
		Err     error
	}
)

// Minimum terminal size; below it the dashboard shows a notice.
const minWidth, minHeight = 40, 12

// Dashboard is the live view of one search: a header, its panes (each a
// component with its own state), the learning-rate form and a footer.
// The dashboard owns the run's record and the search's state; the panes
// read the record.
type Dashboard struct {
	*runRecord
	ctl      session.Control // nil: view only
	dir      string          // the run directory, for e (export); "" disables it
	detached bool            // leaving does not stop the search (attach)
	status   core.Status     // StatusUnknown until the first news
	stopping bool            // a stop was asked and has not taken effect
	errText  string
	note     string // the last message to the user
	result   *report.Outcome

	keys     dashboardKeys
	confirm  confirmKeys
	help     help.Model
	page     viewport.Model // the help page (?), scrolled by pageKeys
	pageKeys pageKeys
	// panes are the body's panes: on a wide terminal the first beside
	// the focused one of the others (or the first of them), on a narrow
	// one the focused pane alone; focus cycles through them.
	panes []pane
	rates ratesForm // the learning-rate form (l), shown while editing
	cmds  commandQueue

	width, height int
	focus         int // the focused pane: an index into panes
	side          int // the pane beside the first on a wide terminal
	showHelp      bool
	confirmQuit   bool
	// progress is the final training's progress after the search, shown
	// where no note is (a question, an export's files) until the run ends.
	progress string
	editing  bool
	filling  bool      // a read of metrics.jsonl for iterations the feed passed over is under way
	filled   time.Time // when the last such read came back
	now      func() time.Time
	// keysFrom drops keys typed before it: type-ahead meant for the runs
	// browser must not steer a search it attached to.
	keysFrom time.Time
}

// SetDir names the run directory, which enables e (export); the panes
// are told it (the samples pane reads the exported weights there).
func (d *Dashboard) SetDir(dir string) {
	d.dir = dir
	d.broadcast(runDirMsg(dir))
}

// SetTrain gives the panes the training split the search runs on, so
// that the samples pane need not load it.
func (d *Dashboard) SetTrain(train *dataset.Dataset) { d.broadcast(trainMsg{train}) }

// NewDashboard returns the dashboard of the run cfg steered through ctl
// (nil for a read-only view). detached says the search lives in another
// process, so that leaving never stops it.
func NewDashboard(cfg runs.Config, ctl session.Control, detached bool) *Dashboard {
	rec := &runRecord{cfg: cfg}
	keys := newDashboardKeys()
	return &Dashboard{runRecord: rec, ctl: ctl, detached: detached, width: 80, height: 24, now: time.Now,
		keys: keys, confirm: newConfirmKeys(), help: newHelp(), page: viewport.New(), pageKeys: newPageKeys(),
		panes: []pane{newChartsPane(rec), newGroupsPane(rec), newSamplesPane(rec, samplesKeys{Group: keys.Group})}, side: 1, rates: newRatesForm()}
}

// text is the progress as the dashboard's note says it.
func (m EvalProgressMsg) text() string {
	if m.Stage != "" {
		return fmt.Sprintf("search done; training %s: step %d/%d", m.Stage, m.Step, m.Steps)
	}
	return fmt.Sprintf("search done; training the evaluation model: step %d/%d, val worst-group %.4f", m.Step, m.Steps, m.ValWorst)
}

// Init implements tea.Model.
func (d *Dashboard) Init() tea.Cmd { return nil }

// fillWait is how long a read of metrics.jsonl for the iterations the
// feed passed over waits: until a second after the last one came back.
func (d *Dashboard) fillWait() time.Duration { return d.filled.Add(time.Second).Sub(d.now()) }

// recordedMsg carries the run's iterations as metrics.jsonl records them.
type recordedMsg struct{ snaps []*core.Snapshot }

// fillGaps returns have with the iterations it lacks between its first
// and last taken from recorded, in order of iteration.
func fillGaps(have, recorded []*core.Snapshot) []*core.Snapshot {
	if len(have) < 2 {
		return have
	}
	out := make([]*core.Snapshot, 0, len(have))
	j := 0
	for i, s := range have {
		if i > 0 {
			for ; j < len(recorded) && recorded[j].Iter < s.Iter; j++ {
				if recorded[j].Iter > out[len(out)-1].Iter {
					out = append(out, recorded[j])
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// Update implements tea.Model.
func (d *Dashboard) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch m := msg.(type) {
	case tea.WindowSizeMsg:
		d.width, d.height = m.Width, m.Height
	case tea.ColorProfileMsg:
		return d, d.broadcast(m)
	case SnapshotMsg:
		var fill tea.Cmd
		if last := d.last(); last != nil && m.Snap.Iter > last.Iter+1 && d.dir != "" && !d.filling {
			// The live feed keeps the latest iteration only (the search
			// never waits for a screen): the ones it passed over are
			// read from the run's metrics.jsonl, so that the charts have
			// a point per iteration.
			d.filling = true
			dir := d.dir
			read := func() tea.Msg {
				snaps, _ := runs.ReadMetrics(dir) // a damaged line is left out: its iteration stays a gap
				return recordedMsg{snaps}
			}
			fill = read
			// At most a read a second: a view that keeps falling behind
			// reads the whole file each time.
			if wait := d.fillWait(); wait > 0 {
				fill = tea.Tick(wait, func(time.Time) tea.Msg { return read() })
			}
		}
		d.snaps = append(d.snaps, m.Snap)
		if d.status != core.StatusPaused && !d.stopping {
			d.status = m.Snap.Status
			if m.Snap.Status == core.StatusDone && !d.ended && !d.detached {
				d.status = core.StatusEvaluating
				d.progress = "search done; training the evaluation model on the learned weights"
			}
		}
		if d.note != "" && strings.HasPrefix(d.note, "checkpoint written") {
			d.note = "" // stale once the search has moved on
		}
		return d, fill
	case recordedMsg:
		d.filling, d.filled = false, d.now()
		d.snaps = fillGaps(d.snaps, m.snaps)
	case EvalProgressMsg:
		if d.status == core.StatusEvaluating && !d.ended {
			d.progress = m.text()
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
		d.note = fmt.Sprintf("exported %s: u.npy (train with it), weights.npy, keep_prob.npy, mask.npy, ids.npy, weights.csv, export.json into %s", m.which, d.dir)
		reread := d.broadcast(m) // the samples pane reads the new exports
		if d.ctl != nil && !d.ended {
			iter := m.iter
			return d, tea.Batch(reread, d.cmds.send(core.EventExport, func() error { return d.ctl.Exported(iter) })) // recorded as an event
		}
		return d, reread
	case ctlMsg:
		if m.err != nil {
			d.note = fmt.Sprintf("%s not taken: %v", commandName(m.kind), config.FlagError(m.err))
			if m.kind == d.cmds.asked {
				d.cmds.asked = ""
			}
		}
		return d, d.cmds.next()
	case EndMsg:
		d.ended, d.stopping = true, false
		if m.Status != core.StatusUnknown {
			d.status = m.Status
		}
		d.result = m.Result
		d.note = d.endNote(m.Status)
		if m.Status == core.StatusUnknown && d.detached {
			d.status = core.StatusUnknown
			d.note = "the connection to the search closed (maple ls shows how it ended); q leaves"
		}
		if m.Result != nil && m.Result.Status == core.StatusDone && m.Result.Result != nil {
			r := m.Result.Result
			d.note = fmt.Sprintf("result (selected on validation, step %d): test acc %.4f · test worst-group %.4f · q leaves", r.SelectedStep, r.TestAcc, r.TestWorst)
		}
		if m.Err != nil {
			d.status, d.errText = core.StatusFailed, config.FlagError(m.Err).Error()
		}
		if d.status == core.StatusFailed {
			d.note = d.failedNote(m.Summary)
		}
		if d.confirmQuit {
			return d, tea.Quit
		}
		return d, d.broadcast(m)
	case tea.KeyPressMsg:
		return d.key(m)
	default: // the panes' own messages
		return d, d.broadcast(msg)
	}
	return d, nil
}

// endNote is what the note says when the search has ended with st: a
// stopped or interrupted search (maple stop from another shell, a
// signal) says so and how to resume it, as maple run prints it.
func (d *Dashboard) endNote(st core.Status) string {
	if st != core.StatusStopped && st != core.StatusInterrupted || !d.cfg.Searches() {
		return "the search has ended; q leaves"
	}
	iter := 0
	if s := d.last(); s != nil {
		iter = s.Iter
	}
	if d.dir == "" {
		return fmt.Sprintf("the search was %s at iteration %d, checkpointed: maple resume %s continues it; q leaves", st, iter, d.cfg.ID)
	}
	return fmt.Sprintf("the search was %s at iteration %d, checkpointed: %s continues it; q leaves", st, iter, resumeCommand(d.dir, d.cfg.ID))
}

// failedNote is what the note says when the search has failed: the next
// step runs.Store.Continue writes for it (maple run prints the same), from
// the run's summary sum (nil: the dashboard's last iteration, error and
// rates); the error itself is the header's.
func (d *Dashboard) failedNote(sum *runs.Summary) string {
	if sum == nil {
		sum = &runs.Summary{Status: core.StatusFailed, Error: d.errText, Rates: d.lr()}
		if s := d.last(); s != nil {
			sum.Iter, sum.Total = s.Iter, s.Total
		}
	}
	if d.errText == "" {
		d.errText = sum.Error
	}
	if d.dir == "" {
		return "the search has ended; q leaves"
	}
	next := runs.Open(filepath.Dir(d.dir)).Continue(sum, d.cfg)
	// Its first line names the run and the error, which the header shows.
	if _, after, ok := strings.Cut(next, "\n"); ok {
		next = after
	}
	return fmt.Sprintf("the search failed at iteration %d: %s; q leaves", sum.Iter, next)
}

// resumeCommand is the command that resumes the run in dir, as
// runs.Store.Continue writes it.
func resumeCommand(dir, id string) string {
	return fmt.Sprintf("maple resume %s --runs-dir %s", id, filepath.Dir(dir))
}

func (d *Dashboard) event(e core.Event) {
	d.events = append(d.events, e)
	switch e.Kind {
	case core.EventPause:
		d.status = core.StatusPaused
		if d.cmds.asked == core.EventPause {
			d.cmds.asked = ""
		}
		if strings.HasPrefix(d.note, "pause asked") {
			d.note = ""
		}
	case core.EventResume:
		// Also what a resumed run records first: a stop before it is over.
		d.status, d.stopping = core.StatusRunning, false
		d.errText = ""
		if d.cmds.asked == core.EventResume {
			d.cmds.asked = ""
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
		return d.pageKey(k)
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
		d.page.GotoTop()
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
		d.note = "exporting the selected iterate's weights..."
		dir := d.dir
		return d, func() tea.Msg {
			man, err := export.Latest(dir)
			if err != nil {
				return exportedMsg{err: err}
			}
			return exportedMsg{man.Iteration, man.Which, nil}
		}
	case key.Matches(k, d.keys.Checkpoint):
		if d.ctl != nil && !d.ended {
			d.note = "checkpoint asked"
			return d, d.cmds.send(core.EventCheckpoint, d.ctl.Checkpoint)
		}
	case key.Matches(k, d.keys.Rates):
		if d.ctl == nil || d.ended {
			d.note = "the search is not running"
			return d, nil
		}
		d.editing = true
		return d, d.rates.open(d.lr())
	case key.Matches(k, d.keys.Pane):
		cmd := d.panes[d.focus].Update(blurMsg{})
		d.focus = (d.focus + 1) % len(d.panes)
		if d.focus > 0 {
			d.side = d.focus
		}
		return d, tea.Batch(cmd, d.panes[d.focus].Update(focusMsg{}))
	case key.Matches(k, d.keys.Back):
		return d, d.broadcast(chart.CursorMsg(-1))
	case key.Matches(k, d.keys.Forward):
		return d, d.broadcast(chart.CursorMsg(1))
	case key.Matches(k, d.keys.Zoom):
		return d, d.broadcast(chart.ZoomMsg(1))
	case key.Matches(k, d.keys.ZoomOut):
		return d, d.broadcast(chart.ZoomMsg(-1))
	case key.Matches(k, d.keys.PanBack):
		return d, d.broadcast(chart.PanMsg(-1))
	case key.Matches(k, d.keys.PanOn):
		return d, d.broadcast(chart.PanMsg(1))
	case key.Matches(k, d.keys.Log):
		return d, d.broadcast(chart.LogMsg{})
	case key.Matches(k, d.keys.Smooth):
		return d, d.broadcast(chart.SmoothMsg{})
	case key.Matches(k, d.keys.Wall):
		return d, d.broadcast(chart.WallMsg{})
	case key.Matches(k, d.keys.Up):
		return d, d.panes[d.focus].Update(scrollMsg(-1))
	case key.Matches(k, d.keys.Down):
		return d, d.panes[d.focus].Update(scrollMsg(1))
	case key.Matches(k, d.keys.PageUp):
		return d, d.panes[d.focus].Update(scrollMsg(-10))
	case key.Matches(k, d.keys.PageDown):
		return d, d.panes[d.focus].Update(scrollMsg(10))
	default:
		// A pane's own keys (the samples pane's g) go to every pane: a
		// pane shown beside the focused one takes them too.
		return d, d.broadcast(k)
	}
	return d, nil
}

// broadcast sends msg to every pane.
func (d *Dashboard) broadcast(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for _, p := range d.panes {
		cmds = append(cmds, p.Update(msg))
	}
	return tea.Batch(cmds...)
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
		footer = d.footer(w) // the page's position, now that it is laid out (the same lines)
	case d.editing:
		body = d.rates.view(w, bodyH)
	default:
		body = d.body(w, bodyH)
	}
	return fit(lipgloss.JoinVertical(lipgloss.Left, header, body, footer), w, h)
}

// over reports whether the search has ended: stopped, interrupted,
// failed or done (the final training may still run), or no longer heard
// from.
func (d *Dashboard) over() bool {
	switch d.status {
	case core.StatusDone, core.StatusStopped, core.StatusInterrupted, core.StatusFailed:
		return true
	}
	return d.ended
}

func (d *Dashboard) header(w int) string {
	c := d.cfg
	method := c.MethodName()
	st := statusText(d.status, d.stopping)
	title := styles.Title.Render("maple")
	model := "model " + c.Settings.Model
	if p := c.Settings.Precision; p != "" && p != "f32" { // the inner products' precision, where it is not the default
		model += " " + p
	}
	line1 := wrapItems([]string{title + " " + c.ID, c.Dataset.Name, method, model, st}, w)
	if strings.Contains(line1, "\n") { // narrow: the status first, the rest on as many lines as it needs
		line1 = wrapItems([]string{title + " " + st, c.ID, c.Dataset.Name, method, model}, w)
	}
	total := c.Settings.OuterIters
	// An ended search has no time left: no eta (its status, in the
	// first line, says how it ended).
	iter, elapsed, eta := 0, 0.0, "  eta ?"
	if s := d.last(); s != nil {
		iter, total, elapsed = s.Iter, s.Total, s.Elapsed
		if per, ok := recentPace(d.snaps); ok {
			eta = "  eta " + fmtDur(per*float64(s.Total-s.Iter))
		}
	}
	if d.over() {
		eta = ""
	}
	barW := max(10, w-48)
	frac := 0.0
	if total > 0 {
		frac = float64(iter) / float64(total)
	}
	filled := int(math.Round(frac * float64(barW)))
	bar := strings.Repeat("█", filled) + styles.Dim.Render(strings.Repeat("░", barW-filled))
	line2 := fmt.Sprintf("iter %d/%d %s %3.0f%%  elapsed %s%s", iter, total, bar, 100*frac, fmtDur(elapsed), eta)
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
	switch {
	case d.editing:
		keys = shortHelp(d.help, d.rates.KeyMap.ShortHelp())
	case d.showHelp:
		keys = d.pageFooter(w)
	default:
		keys = shortHelp(d.help, d.offered().ShortHelp())
	}
	note := d.note
	if note == "" && d.status == core.StatusEvaluating && !d.ended {
		note = d.progress
	}
	if note != "" {
		// Wrapped at spaces, not cut: an export's file list or a result
		// is long, and a run id or a command stays whole.
		return wrapSpaces(note, w, "") + "\n" + keys
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
	if d.cmds.asked == core.EventPause || d.cmds.asked == "" && d.status == core.StatusPaused {
		k.Pause.SetHelp("space", "resume")
	}
	return k
}

// body draws the panes: on a wide terminal the first on three fifths of
// the width and beside it the focused one of the others (the last
// focused while the first has the focus); on a narrow one the focused
// pane alone.
func (d *Dashboard) body(w, h int) string {
	box := func(i, w int, alone bool) string {
		st := styles.Pane
		if d.focus == i {
			st = styles.Focus
		}
		// Each pane's lines are cut to its width, never wrapped: a wrapped
		// line would push the pane past the screen and hide the footer.
		p := d.panes[i]
		p.SetSize(w-2, h-2, alone)
		return st.Width(w).Height(h).Render(p.View())
	}
	if w < 110 || len(d.panes) == 1 {
		return box(d.focus, w, true)
	}
	first := w * 3 / 5
	return lipgloss.JoinHorizontal(lipgloss.Top, box(0, first, false), box(d.side, w-first, false))
}
