package tui

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/guptarohit/asciigraph"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
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
	// EndMsg says the search has ended (Err nil) or failed, or that the
	// connection to it closed.
	EndMsg struct {
		Status string
		Err    error
	}
)

// Dashboard is the live view of one search.
type Dashboard struct {
	cfg      runs.Config
	ctl      runs.Control // nil: view only
	dir      string       // the run directory, for e (export); "" disables it
	detached bool         // leaving does not stop the search (attach)
	snaps    []*core.Snapshot
	events   []core.Event
	status   string
	errText  string
	note     string // the last message to the user
	ended    bool

	width, height int
	focus         int // 0 charts, 1 groups
	scroll        int
	help          bool
	confirmQuit   bool
	editing       bool
	inputs        [3]textinput.Model
	field         int
	now           func() time.Time
}

// SetDir names the run directory, which enables e (export).
func (d *Dashboard) SetDir(dir string) { d.dir = dir }

// NewDashboard returns the dashboard of the run cfg steered through ctl
// (nil for a read-only view). detached says the search lives in another
// process, so that leaving never stops it.
func NewDashboard(cfg runs.Config, ctl runs.Control, detached bool) *Dashboard {
	d := &Dashboard{cfg: cfg, ctl: ctl, detached: detached, status: "starting", width: 80, height: 24, now: time.Now}
	for i, label := range []string{"weight lr ", "keep lr   ", "inner lr  "} {
		ti := textinput.New()
		ti.Prompt = label
		ti.CharLimit = 24
		ti.SetWidth(14)
		d.inputs[i] = ti
	}
	return d
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
	s := d.cfg.Settings
	lr := core.LearningRates{Weight: s.WeightLR, Keep: s.KeepLR, Inner: s.InnerLR}
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
	case SnapshotMsg:
		d.snaps = append(d.snaps, m.Snap)
		if d.status != "paused" && d.status != "stopping" {
			d.status = string(m.Snap.Status)
			if m.Snap.Status == core.StatusDone && !d.ended && !d.detached {
				d.status = "evaluating"
				d.note = "search done; training the evaluation model on the learned weights"
			}
		}
	case HistoryMsg:
		if m.Config != nil {
			d.cfg = *m.Config
		}
		d.snaps, d.events = m.Snaps, nil
		for _, e := range m.Events {
			d.event(e)
		}
		if n := len(d.snaps); n > 0 && d.status == "starting" {
			d.status = string(d.snaps[n-1].Status)
		}
	case EventMsg:
		d.event(m.Event)
	case exportedMsg:
		if m.err != nil {
			d.note = "export failed: " + m.err.Error()
		} else {
			d.note = fmt.Sprintf("exported weights.npy, keep_prob.npy and weights.csv of the checkpoint at iteration %d into %s", m.iter, d.dir)
		}
	case EndMsg:
		d.ended = true
		if m.Status != "" {
			d.status = m.Status
		}
		d.note = "the search has ended; q leaves"
		if m.Err != nil {
			d.status, d.errText = "failed", m.Err.Error()
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
		d.status = "paused"
	case core.EventResume:
		d.status = "running"
		d.errText = ""
	case core.EventStop:
		d.status = "stopping"
	case core.EventError:
		d.status, d.errText = "paused", e.Error
	case core.EventSetLR:
		d.note = fmt.Sprintf("learning rates set before iteration %d", e.Iter+1)
	case core.EventCheckpoint:
		d.note = fmt.Sprintf("checkpoint written at iteration %d", e.Iter)
	}
}

func (d *Dashboard) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	s := k.String()
	if d.editing {
		return d.editKey(k)
	}
	if d.confirmQuit {
		switch s {
		case "y", "Y":
			if d.ctl != nil && !d.ended {
				if d.status == "evaluating" {
					d.note = "the search is done; leaving as soon as the evaluation finishes"
					return d, nil // EndMsg quits
				}
				d.ctl.Stop()
				d.status = "stopping"
				d.note = "stopping after this iteration; the run is checkpointed and can be resumed"
				return d, nil // EndMsg quits
			}
			return d, tea.Quit
		default:
			d.confirmQuit = false
			d.note = ""
		}
		return d, nil
	}
	if d.help {
		d.help = false
		return d, nil
	}
	switch s {
	case "q", "ctrl+c":
		if d.detached || d.ended || d.ctl == nil {
			return d, tea.Quit
		}
		d.confirmQuit = true
		d.note = "leaving stops the search (it stays resumable). Stop it and leave? y/n"
		if d.status == "evaluating" {
			d.note = "the evaluation of the learned weights is running. Leave when it ends? y/n"
		}
	case "?":
		d.help = true
	case "space":
		switch {
		case d.ctl == nil || d.ended:
			d.note = "the search is not running"
		case d.status == "paused":
			d.ctl.Resume()
			d.note = "resume asked"
		default:
			d.ctl.Pause()
			d.note = "pause asked: it takes effect after the current iteration"
		}
	case "e":
		if d.dir == "" {
			d.note = "no run directory to export into"
			return d, nil
		}
		d.note = "exporting the weights of the latest checkpoint..."
		dir := d.dir
		return d, func() tea.Msg { it, err := runs.ExportLatest(dir); return exportedMsg{it, err} }
	case "s":
		if d.ctl != nil && !d.ended {
			d.ctl.Checkpoint()
			d.note = "checkpoint asked"
		}
	case "l":
		if d.ctl == nil || d.ended {
			d.note = "the search is not running"
			return d, nil
		}
		lr := d.lr()
		for i, v := range []float64{lr.Weight, lr.Keep, lr.Inner} {
			d.inputs[i].SetValue(strconv.FormatFloat(v, 'g', -1, 64))
		}
		d.editing, d.field = true, 0
		return d, d.focusField()
	case "tab":
		d.focus = (d.focus + 1) % 2
		d.scroll = 0
	case "up", "k":
		d.scroll = max(0, d.scroll-1)
	case "down", "j":
		d.scroll++
	case "pgup":
		d.scroll = max(0, d.scroll-10)
	case "pgdown":
		d.scroll += 10
	}
	return d, nil
}

func (d *Dashboard) focusField() tea.Cmd {
	for i := range d.inputs {
		d.inputs[i].Blur()
	}
	return d.inputs[d.field].Focus()
}

func (d *Dashboard) editKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch k.String() {
	case "esc":
		d.editing, d.note = false, "learning rates unchanged"
		return d, nil
	case "tab", "down":
		d.field = (d.field + 1) % 3
		return d, d.focusField()
	case "shift+tab", "up":
		d.field = (d.field + 2) % 3
		return d, d.focusField()
	case "enter":
		var v [3]float64
		for i := range d.inputs {
			x, err := strconv.ParseFloat(strings.TrimSpace(d.inputs[i].Value()), 64)
			if err != nil {
				d.note = fmt.Sprintf("%q is not a number; nothing changed", d.inputs[i].Value())
				d.field = i
				return d, d.focusField()
			}
			v[i] = x
		}
		lr := core.LearningRates{Weight: v[0], Keep: v[1], Inner: v[2]}
		if err := d.ctl.SetLR(lr); err != nil {
			d.note = strings.TrimPrefix(err.Error(), "core: ") + "; nothing changed"
			return d, nil
		}
		d.editing = false
		d.note = "new learning rates apply at the next outer iteration (after a checkpoint)"
		return d, nil
	}
	var cmd tea.Cmd
	d.inputs[d.field], cmd = d.inputs[d.field].Update(k)
	return d, cmd
}

// Styles.
var (
	titleStyle = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("12"))
	dimStyle   = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
	warnStyle  = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("9"))
	paneStyle  = lipgloss.NewStyle().Border(lipgloss.NormalBorder()).BorderForeground(lipgloss.Color("8"))
	focusStyle = paneStyle.BorderForeground(lipgloss.Color("12"))
	statusCol  = map[string]string{"evaluating": "12", "running": "10", "paused": "11", "stopping": "11", "done": "12", "failed": "9", "stopped": "11"}
)

// seriesColors cycle over chart lines; the legend names them.
var seriesColors = []asciigraph.AnsiColor{asciigraph.Blue, asciigraph.Red, asciigraph.Green, asciigraph.Yellow, asciigraph.Magenta, asciigraph.Cyan}
var seriesLip = []string{"12", "9", "10", "11", "13", "14"}

// View implements tea.Model.
func (d *Dashboard) View() tea.View { return screen(d.Render()) }

// screen is a full-window view of s.
func screen(s string) tea.View {
	v := tea.NewView(s)
	v.AltScreen = true
	return v
}

// fit cuts s to at most h lines of at most w cells.
func fit(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "")
	}
	return strings.Join(lines, "\n")
}

// Render draws the dashboard at its current size.
func (d *Dashboard) Render() string {
	w, h := max(d.width, 40), max(d.height, 12)
	header := d.header(w)
	footer := d.footer(w)
	bodyH := h - lipgloss.Height(header) - lipgloss.Height(footer)
	var body string
	switch {
	case d.help:
		body = d.helpView(w, bodyH)
	case d.editing:
		body = d.form(w, bodyH)
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
	st := lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color(statusCol[d.status])).Render(d.status)
	line1 := fmt.Sprintf("%s %s  %s  %s  model %s  %s", titleStyle.Render("maple"), c.ID, c.Dataset.Name, method, c.Settings.Model, st)
	total := c.Settings.OuterIters
	iter, elapsed, eta := 0, 0.0, "?"
	if s := d.last(); s != nil {
		iter, total, elapsed = s.Iter, s.Total, s.Elapsed
		if s.Iter > 0 {
			eta = fmtDur(s.Elapsed / float64(s.Iter) * float64(s.Total-s.Iter))
		}
	}
	barW := max(10, w-48)
	frac := 0.0
	if total > 0 {
		frac = float64(iter) / float64(total)
	}
	filled := int(math.Round(frac * float64(barW)))
	bar := strings.Repeat("█", filled) + dimStyle.Render(strings.Repeat("░", barW-filled))
	line2 := fmt.Sprintf("iter %d/%d %s %3.0f%%  elapsed %s  eta %s", iter, total, bar, 100*frac, fmtDur(elapsed), eta)
	lr := d.lr()
	line3 := fmt.Sprintf("lr: weight %g  keep %g  inner %g", lr.Weight, lr.Keep, lr.Inner)
	if d.errText != "" {
		line3 += "  " + warnStyle.Render("error: "+d.errText)
	}
	return strings.Join([]string{line1, line2, line3}, "\n")
}

func (d *Dashboard) footer(w int) string {
	keys := "space pause/resume · l learning rates · s checkpoint · e export · tab pane · ↑/↓ scroll · ? help · q quit"
	if w < len([]rune(keys)) {
		keys = "space pause · l rates · s ckpt · e export · tab/↑↓ panes · ? help · q quit"
	}
	if d.editing {
		keys = "tab/↑/↓ field · enter apply · esc cancel"
	}
	out := dimStyle.Render(keys)
	if d.note != "" {
		out = d.note + "\n" + out
	}
	return out
}

// chart plots series (each a line) with a legend.
func chart(title string, names []string, series [][]float64, w, h int) string {
	if len(series) == 0 || len(series[0]) == 0 {
		return title + "\n" + dimStyle.Render("waiting for the first iteration")
	}
	var legend []string
	for i, n := range names {
		legend = append(legend, lipgloss.NewStyle().Foreground(lipgloss.Color(seriesLip[i%len(seriesLip)])).Render("━ "+n))
	}
	plotH := max(2, h-2)
	plotW := max(8, w-12)
	data := make([][]float64, len(series))
	for i, s := range series {
		data[i] = s
		if len(s) == 1 {
			data[i] = []float64{s[0], s[0]}
		}
	}
	g := asciigraph.PlotMany(data, asciigraph.Height(plotH), asciigraph.Width(plotW), asciigraph.Precision(3),
		asciigraph.SeriesColors(seriesColors[:len(series)]...))
	return title + "  " + strings.Join(legend, " ") + "\n" + g
}

func column(snaps []*core.Snapshot, f func(*core.Snapshot) float64) []float64 {
	out := make([]float64, len(snaps))
	for i, s := range snaps {
		out[i] = f(s)
	}
	return out
}

func (d *Dashboard) body(w, h int) string {
	wide := w >= 110
	leftW := w
	if wide {
		leftW = w * 3 / 5
	}
	var charts []string
	nCharts := 3
	chartH := max(4, (h-2)/nCharts)
	if !wide {
		chartH = max(4, (h-2)/2)
	}
	s := d.snaps
	charts = append(charts, chart("outer risk", []string{"R"}, [][]float64{column(s, func(x *core.Snapshot) float64 { return x.OuterRisk })}, leftW-2, chartH))
	charts = append(charts, chart("accuracy", []string{"val wg", "val avg", "TEST wg", "TEST avg"}, [][]float64{
		column(s, func(x *core.Snapshot) float64 { return x.ValWorst }),
		column(s, func(x *core.Snapshot) float64 { return x.ValAcc }),
		column(s, func(x *core.Snapshot) float64 { return x.TestWorst }),
		column(s, func(x *core.Snapshot) float64 { return x.TestAcc }),
	}, leftW-2, chartH))
	var names []string
	var fr [][]float64
	if last := d.last(); last != nil {
		names = last.GroupNames
		for g := range names {
			fr = append(fr, column(s, func(x *core.Snapshot) float64 {
				if g < len(x.GroupFrac) {
					return x.GroupFrac[g]
				}
				return 0
			}))
		}
	}
	charts = append(charts, chart("group weight fractions", names, fr, leftW-2, chartH))
	if d.cfg.Settings.Keep < 1 || d.cfg.Settings.Keep0 < 1 {
		charts = append(charts, chart("keep fraction", []string{"kept"}, [][]float64{column(s, func(x *core.Snapshot) float64 { return x.KeepFrac })}, leftW-2, chartH))
	}
	left := scrollLines(strings.Join(charts, "\n"), h-2, d.focusScroll(0))
	lp := paneStyle
	if d.focus == 0 {
		lp = focusStyle
	}
	leftPane := lp.Width(leftW).Height(h).Render(left)
	if !wide {
		if d.focus == 1 {
			return focusStyle.Width(w).Height(h).Render(scrollLines(d.groupsView(w-2), h-2, d.scroll))
		}
		return leftPane
	}
	rp := paneStyle
	if d.focus == 1 {
		rp = focusStyle
	}
	right := rp.Width(w - leftW).Height(h).Render(scrollLines(d.groupsView(w-leftW-2), h-2, d.focusScroll(1)))
	return lipgloss.JoinHorizontal(lipgloss.Top, leftPane, right)
}

func (d *Dashboard) focusScroll(pane int) int {
	if d.focus == pane {
		return d.scroll
	}
	return 0
}

func scrollLines(s string, h, from int) string {
	lines := strings.Split(s, "\n")
	from = min(from, max(0, len(lines)-h))
	end := min(len(lines), from+h)
	return strings.Join(lines[from:end], "\n")
}

// groupsView shows the weight histogram per group, the timing and norms.
func (d *Dashboard) groupsView(w int) string {
	s := d.last()
	if s == nil {
		return dimStyle.Render("no iteration yet")
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
		fmt.Fprintf(&b, "%s %s %5.1f%%\n", lipgloss.NewStyle().Foreground(lipgloss.Color(seriesLip[g%len(seriesLip)])).Render(name), spark.String(), 100*frac)
	}
	fmt.Fprintf(&b, "\niteration %d\n", s.Iter)
	fmt.Fprintf(&b, " outer risk %.4g  inner loss %.4g\n", s.OuterRisk, s.InnerLoss)
	fmt.Fprintf(&b, " val  acc %.4f  wg %.4f\n", s.ValAcc, s.ValWorst)
	fmt.Fprintf(&b, " TEST acc %.4f  wg %.4f (display only)\n", s.TestAcc, s.TestWorst)
	fmt.Fprintf(&b, " keep %.1f%%  K_t %.0f  temp %.3g\n", 100*s.KeepFrac, s.KeepSize, s.Temp)
	fmt.Fprintf(&b, " |dR/dw| %.3g  |dR/ds| %.3g\n", s.HyperNorm, s.KeepNorm)
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

func (d *Dashboard) form(w, h int) string {
	var b strings.Builder
	b.WriteString(titleStyle.Render("learning rates") + "  (applied at the next outer iteration, after a checkpoint)\n\n")
	for i := range d.inputs {
		b.WriteString(d.inputs[i].View() + "\n")
	}
	return paneStyle.Width(w).Height(h).Render(b.String())
}

func (d *Dashboard) helpView(w, h int) string {
	rows := [][2]string{
		{"space", "pause / resume the search (between outer iterations)"},
		{"l", "edit the weight, keep-probability and inner learning rates"},
		{"s", "write a checkpoint now"},
		{"e", "export the weights of the latest checkpoint (weights.npy, keep_prob.npy, weights.csv)"},
		{"tab", "move focus between the charts and the groups pane"},
		{"↑ ↓ PgUp PgDn", "scroll the focused pane"},
		{"q", "leave (asks before stopping a search this process runs)"},
		{"?", "this help; any key closes it"},
	}
	var b strings.Builder
	b.WriteString(titleStyle.Render("keys") + "\n\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-14s %s\n", r[0], r[1])
	}
	b.WriteString("\nTest figures are shown for monitoring only; selection uses the validation split.\n")
	return paneStyle.Width(w).Height(h).Render(b.String())
}
