package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
	"github.com/maple-ood/maple/tui/chart"
	"github.com/maple-ood/maple/tui/picker"
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
	Config *runs.Config // the new run's full config (ActionNew), unresolved
	// Set holds the flags the new run keeps as Config has them
	// (ActionNew; config.ResolveSet): the selected run's pinned settings
	// and the form's fields the person changed. The others are derived.
	Set map[string]bool
}

// browserMode is what the browser shows.
type browserMode int

const (
	modeList browserMode = iota
	modeRun
	modeCompare
	modeNew
	modeHelp
	modeGroup // the group-by picker
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
	// comparedMsg carries the comparison of two or more runs.
	comparedMsg struct{ c *comparison }
	// formMsg carries the config that prefills the new-run form.
	formMsg struct {
		cfg runs.Config
		err error
	}
)

// Browser is the runs browser: a sortable, filterable list of the runs
// in a directory, live-updating, with a replay of each run, comparison of
// two or more, a new-run form, and actions (attach, resume, new run,
// sweep view) handed back to the caller. It is a page over components
// (soft-serve's pkg/ui/pages): the list, the form, the replay (a
// read-only Dashboard) and a text page (a comparison, a baseline's page).
type Browser struct {
	runList *runList
	form    *runForm
	picker  *picker.Model // the group-by picker (modeGroup)
	replay  *Dashboard
	page    textPage
	compare *compareView // the comparison on the screen (modeCompare), nil on a text page
	mode    browserMode
	back    browserMode // the page the help page returns to
	mono    bool        // the terminal shows no colour: compared lines get characters of their own
	keys    browserKeys
	cmpKeys compareKeys
	help    help.Model
	action  Action
	note    string
	width   int
	height  int
	load    func(dir string) ([]runs.Info, error)
	stopAsk string // the run whose stop awaits y
	// removeAsk is the archive or delete that awaits y (nil: none).
	removeAsk *removal
}

// textPage is a page of text: a comparison, or a baseline run's page.
type textPage struct {
	detail string
	// following is the running baseline whose page is on the screen: it
	// is read again at every reload, until the run ends ("": none).
	following string
}

// stoppedMsg reports a stop asked from the browser.
type stoppedMsg struct {
	id   string
	info runs.Info
	err  error
}

// NewBrowser returns the browser of the runs in dir.
func NewBrowser(dir string) *Browser {
	keys := newBrowserKeys()
	return &Browser{runList: newRunList(dir, keys), form: newRunForm(), width: 80, height: 24, load: func(dir string) ([]runs.Info, error) { return runs.Open(dir).List() },
		keys: keys, cmpKeys: newCompareKeys(), help: newHelp()}
}

// loadCmd reads the listing.
func (b *Browser) loadCmd() tea.Cmd {
	load, dir := b.load, b.runList.dir
	return func() tea.Msg { l, err := load(dir); return listMsg{l, err} }
}

// Init reads the listing and starts the periodic refresh.
func (b *Browser) Init() tea.Cmd { return tea.Batch(b.loadCmd(), tick()) }

func tick() tea.Cmd {
	return tea.Tick(2*time.Second, func(time.Time) tea.Msg { return reloadMsg{} })
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
		b.mono = m.Profile <= colorprofile.Ascii
		return b, b.runList.Update(m)
	case tea.WindowSizeMsg:
		b.width, b.height = m.Width, m.Height
		b.runList.SetSize(m.Width, m.Height)
		b.form.SetSize(m.Width, m.Height)
		if b.compare != nil {
			b.compare.SetSize(m.Width, m.Height-1) // the footer's line
		}
		if b.replay != nil {
			b.replay.Update(tea.WindowSizeMsg{Width: m.Width, Height: m.Height - 1})
		}
	case reloadMsg:
		return b, tea.Batch(b.loadCmd(), tick())
	case listMsg:
		if m.err != nil {
			b.note = m.err.Error()
			return b, nil
		}
		cmd := b.runList.Update(m)
		if i := slices.IndexFunc(m.list, func(in runs.Info) bool { return in.ID == b.page.following }); i >= 0 && b.mode == modeCompare {
			return b, tea.Batch(cmd, b.openRun(m.list[i], true))
		}
		return b, cmd
	case openedMsg:
		if m.again && (b.mode != modeCompare || b.page.following != m.id) {
			return b, nil // the page was left before the reread came
		}
		b.page.following, b.compare = "", nil
		switch {
		case m.err != nil:
			b.note = m.err.Error()
		case m.replay != nil:
			b.replay, b.mode = m.replay, modeRun
			if b.mono { // the replay's charts as the terminal shows them
				b.replay.Update(tea.ColorProfileMsg{Profile: colorprofile.Ascii})
			}
		default:
			b.page, b.mode, b.replay = textPage{detail: m.detail}, modeCompare, nil
			if m.live {
				b.page.following = m.id
			}
		}
	case exportedMsg, samplesMsg: // e in a replay; the samples a replay read
		if b.replay != nil {
			_, cmd := b.replay.Update(m)
			return b, cmd
		}
	case removedMsg:
		return b, b.removed(m)
	case configsMsg:
		cmd := b.runList.Update(m)
		if b.mode == modeGroup { // the picker's counts with the settings read
			cur := b.picker.Cursor
			b.picker = newGroupPicker(b.picker.Checked, b.listedConfigs())
			b.picker.Cursor = cur
		}
		return b, cmd
	case picker.DoneMsg: // the group-by picker's answer
		b.mode = modeList
		if m.Cancelled {
			return b, nil
		}
		l := b.runList
		l.groupBy, l.groupSel = m.Checked, map[string]bool{}
		l.Table.SetCursor(0)
		l.refresh()
		return b, l.missingConfigs()
	case comparedMsg:
		b.page, b.mode, b.replay = textPage{}, modeCompare, nil
		b.compare = newCompareView(m.c, b.mono)
		b.compare.SetSize(b.width, b.height-1)
	case formMsg:
		if m.err != nil {
			b.note = m.err.Error()
			return b, nil
		}
		b.mode, b.note = modeNew, ""
		return b, b.form.open(m.cfg)
	case formDoneMsg:
		if m.cfg == nil {
			b.mode, b.note = modeList, ""
			return b, nil
		}
		b.action = Action{Kind: ActionNew, Config: m.cfg, Set: m.set}
		return b, tea.Quit
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
		b.mode, b.back = b.back, modeList
		return b, nil
	case modeRun, modeCompare:
		if b.compare != nil && key.Matches(k, b.keys.Help) { // the help page, then the comparison again
			b.mode, b.back = modeHelp, modeCompare
			return b, nil
		}
		if key.Matches(k, b.keys.Back) {
			b.mode, b.replay, b.page, b.compare = modeList, nil, textPage{}, nil
		} else if b.compare != nil {
			return b, b.compareKey(k)
		} else if b.replay != nil {
			// The replay's own commands (e's export) run; its keys that
			// leave (q, esc, ctrl+c) are the browser's, handled above.
			_, cmd := b.replay.Update(k)
			return b, cmd
		}
		return b, nil
	case modeNew:
		return b, b.form.Update(k)
	case modeGroup:
		return b, b.picker.Update(k)
	}
	switch {
	case b.runList.Editing():
		return b, b.runList.Update(k)
	case b.stopAsk != "":
		return b.stopAnswer(k)
	case b.removeAsk != nil:
		return b.removeAnswer(k)
	}
	return b.listKey(k)
}

// compareKey handles a key in a comparison: the chart component's keys
// and scrolling.
func (b *Browser) compareKey(k tea.KeyPressMsg) tea.Cmd {
	if msg := chart.KeyMsg(b.cmpKeys.KeyMap, k); msg != nil {
		return b.compare.Update(msg)
	}
	ck, page := b.cmpKeys, max(1, b.height-2)
	for _, c := range []struct {
		k   key.Binding
		msg tea.Msg
	}{{ck.Metric, metricMsg(1)}, {ck.MetricBack, metricMsg(-1)}, {ck.Band, bandMsg{}}, {ck.Up, scrollMsg(-1)}, {ck.Down, scrollMsg(1)}, {ck.PageUp, scrollMsg(-page)}, {ck.PageDown, scrollMsg(page)}} {
		if key.Matches(k, c.k) {
			return b.compare.Update(c.msg)
		}
	}
	return nil
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
	dir := runs.Open(b.runList.dir).RunDir(id)
	return b, func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		in, err := session.StopRun(ctx, dir)
		return stoppedMsg{id: id, info: in, err: err}
	}
}

// listKey handles a key in the list of runs: the keys that act on the
// run under the cursor or leave are the browser's, the rest the list's.
func (b *Browser) listKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	in, ok := b.runList.current()
	switch {
	case key.Matches(k, b.keys.Quit):
		return b, tea.Quit
	case key.Matches(k, b.keys.Help):
		b.mode = modeHelp
	case key.Matches(k, b.keys.Group):
		b.picker = newGroupPicker(b.runList.groupBy, b.listedConfigs())
		b.picker.SetSize(b.width, b.height-1)
		b.mode, b.note = modeGroup, ""
		return b, b.runList.missingConfigs()
	case b.runList.grouped() && key.Matches(k, b.keys.Open):
		return b, b.openGroup()
	case b.runList.grouped() && key.Matches(k, b.keys.Compare):
		return b, b.openGroupCompare()
	case b.runList.grouped() && (key.Matches(k, b.keys.Attach) || key.Matches(k, b.keys.Resume) || key.Matches(k, b.keys.Stop) ||
		key.Matches(k, b.keys.Sweep) || key.Matches(k, b.keys.New) || key.Matches(k, b.keys.Archive) || key.Matches(k, b.keys.Delete)):
		b.note = k.String() + " acts on a run, and each row is a group: g, then enter with nothing checked, lists the runs again"
	case key.Matches(k, b.keys.Archive):
		b.askRemove(true)
	case key.Matches(k, b.keys.Delete):
		b.askRemove(false)
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
			return b, func() tea.Msg { return formMsg{} }
		}
		dir := runs.Open(b.runList.dir).RunDir(in.ID)
		return b, func() tea.Msg {
			cfg, err := runs.ReadConfig(dir)
			if err != nil {
				return formMsg{err: err}
			}
			return formMsg{cfg: *cfg}
		}
	default:
		return b, b.runList.Update(k) // the filter, the sort, the selection, moves
	}
	return b, nil
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
	back := shortHelp(b.help, backKeys{b.keys.Back}.ShortHelp())
	switch b.mode {
	case modeRun:
		out = b.replay.Render() + "\n" + back
	case modeCompare:
		if b.compare != nil {
			b.compare.SetSize(w, h-1)
			out = b.compare.View() + "\n" + shortHelp(b.help, b.cmpKeys.ShortHelp())
		} else {
			out = b.page.detail + "\n" + back
		}
	case modeHelp:
		var sb strings.Builder
		sb.WriteString(styles.Title.Render("runs browser keys") + "  (any key closes this help)\n\n")
		sb.WriteString(b.help.FullHelpView(b.keys.FullHelp()))
		if b.back == modeCompare { // opened from a comparison: its keys too
			sb.WriteString("\n\n" + styles.Title.Render("comparison keys") + "\n" + b.help.FullHelpView(b.cmpKeys.FullHelp()))
		}
		sb.WriteString("\n\n" + lipgloss.NewStyle().Width(w).Render(
			"SEARCH VAL WG is the search's best validation worst-group accuracy over its outer iterations (its inner model's, which selects the iterate; none for a baseline), not maple table's val worst-group, which is the final model's. TEST WG and TEST are the final model's, at its validation-selected checkpoint. A STATUS ending in ! (done!) has a damaged file, which the run's page and maple show ID name. "+
				"enter replays a run's charts, events and result; space selects runs for c (compare two or more). "+
				"a attaches to a live search, r resumes an interrupted, stopped or failed run, A archives and D deletes the selected runs (else the one under the cursor) after y, n starts a new "+
				"run from a form holding the selected run's whole config. / filters; s < > S sort. "+
				"g groups the listed runs by settings (as maple table --group-by): a row per group with its runs' mean ± sd; space selects groups, c compares them (a band per group), enter compares a group's runs. "+
				"In a comparison v and V choose the metric charted above the outer risk, among those the runs record (val and test worst-group accuracy, val and test accuracy, outer risk, inner loss, kept fraction, hypergradient norm, each group's weight fraction and val accuracy; a baseline's: its validation checks' accuracies); the chart's title names it. "+
				"←/→ move a cursor (every run's value in the legends), z/Z zoom, [ ] pan, "+
				"y puts the outer risk (and a loss or norm chosen with v) on a log scale, m smooths (EMA), t puts wall time on x, b switches bands between ± sd and min–max, PgDn/PgUp scroll; esc goes back."))
		out = sb.String()
	case modeNew:
		out = b.form.View()
	case modeGroup:
		b.picker.SetSize(w, h-1)
		out = b.picker.View() + "\n" + shortHelp(b.help, b.picker.KeyMap.ShortHelp())
	default:
		out = b.runList.View()
		foot := shortHelp(b.help, b.keys.ShortHelp())
		if b.note != "" { // wrapped: a question's y/n stays on the screen
			foot = lipgloss.NewStyle().Width(w).Render(b.note) + "\n" + foot
		}
		out += "\n" + foot
	}
	return fit(out, w, h)
}
