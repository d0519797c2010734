package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/sweeps"
	"github.com/maple-ood/maple/train"
	"github.com/maple-ood/maple/tui/chart"
)

// cellMsg carries the curves of a sweep's cell, read from its run.
type cellMsg struct {
	id     string
	snaps  []*core.Snapshot   // a search's records
	events []core.Event       // its events (the rate changes)
	curve  []train.CheckPoint // a baseline's validation checks (a search's: nil)
	search bool               // the run is a search
}

// readCell reads the curves of the run id in runsDir, in a tea.Cmd: a
// search's records, or a baseline's validation checks (its summary's
// once it has ended, else those its log shows so far).
func readCell(runsDir, id string, search bool) tea.Cmd {
	return func() tea.Msg {
		dir := runs.Open(runsDir).RunDir(id)
		m := cellMsg{id: id, search: search}
		if search {
			m.snaps, _ = runs.ReadMetrics(dir)
			m.events, _ = runs.ReadEvents(dir)
			return m
		}
		if sum, _ := runs.ReadSummary(dir); sum != nil && sum.Result != nil {
			m.curve = sum.Result.Curve
		} else {
			m.curve = readBaseline(dir).curve
		}
		return m
	}
}

// cellChart is the sweep view's chart of the cell under the table's
// cursor, a component over the chart component: a search's validation
// and TEST worst-group accuracy and its outer risk against the outer
// iteration (rate changes marked), a baseline's validation checks
// against the training step. Its cursor and zoom start afresh for each
// cell; the log scale, smoothing and wall time stay.
type cellChart struct {
	charts chart.Model
	id     string // the run shown ("": none)
	label  string // its cell's label
	loaded bool   // its curves have been read
	state  string // its cell's state when they were asked for
	w, h   int
}

func newCellChart() *cellChart { return &cellChart{charts: chart.New()} }

// SetSize gives the chart its share of the view.
func (c *cellChart) SetSize(w, h int) { c.w, c.h = w, h }

// want returns the read of the cell's curves when it is not the one
// shown (or again, to follow a running cell, or once more when its
// state changes), in a tea.Cmd; nil for a cell without a run. Another cell starts with a fresh cursor and zoom
// at once, so that a key typed before its curves come applies to them.
func (c *cellChart) want(runsDir string, cell sweeps.CellState, again bool) tea.Cmd {
	c.label = cell.Label
	if cell.State != c.state { // a cell that has just ended: its last points
		again = true
	}
	c.state = cell.State
	if cell.RunID != c.id {
		keep := c.charts
		c.charts = chart.New()
		c.charts.KeepView(&keep)
		c.id, c.loaded = cell.RunID, false
	} else if !again {
		return nil
	}
	if cell.RunID == "" {
		return nil
	}
	return readCell(runsDir, cell.RunID, cell.Info == nil || cell.Info.Total > 0)
}

// Update takes the cell's curves (those of a cell left since are
// dropped) and the chart component's messages.
func (c *cellChart) Update(msg tea.Msg) tea.Cmd {
	switch m := msg.(type) {
	case cellMsg:
		if m.id == c.id {
			c.set(m)
			c.loaded = true
		}
	case chart.CursorMsg, chart.ZoomMsg, chart.PanMsg, chart.LogMsg, chart.SmoothMsg, chart.WallMsg:
		return c.charts.Update(m)
	}
	return nil
}

// set gives the chart component the cell's curves.
func (c *cellChart) set(m cellMsg) {
	if !m.search {
		steps := make([]int, len(m.curve))
		val, test := make([]float64, len(m.curve)), make([]float64, len(m.curve))
		for i, p := range m.curve {
			steps[i], val[i], test[i] = p.Step, p.ValWorst, p.TestWorst
		}
		c.charts.Unit = "training step"
		c.charts.SetData(steps, nil, []chart.Plot{{Title: "worst-group accuracy at the validation checks",
			Lines: []chart.Line{{Name: "validation", Values: val}, {Name: "TEST", Values: test}}}}, nil)
		return
	}
	s := m.snaps
	xs := make([]int, len(s))
	for i, x := range s {
		xs[i] = x.Iter
	}
	plots := []chart.Plot{
		{Title: "worst-group accuracy", Lines: []chart.Line{
			{Name: "val", Values: column(s, func(x *core.Snapshot) float64 { return x.ValWorst })},
			{Name: "TEST", Values: column(s, func(x *core.Snapshot) float64 { return x.TestWorst })},
		}},
		{Title: "outer risk", Lines: []chart.Line{{Name: "R", Values: column(s, func(x *core.Snapshot) float64 { return x.OuterRisk })}}, Risk: true},
	}
	c.charts.Unit = ""
	c.charts.SetData(xs, column(s, func(x *core.Snapshot) float64 { return x.Elapsed }), plots, chart.RateMarks(s, m.events))
}

// View draws the cell's charts in the chart's share of the view: both
// charts where each gets 10 lines, else the accuracy alone.
func (c *cellChart) View() string {
	title := styles.Title.Render("cell") + " " + c.label
	if c.id == "" {
		return title + "\n" + styles.Dim.Render("no run yet: its curves show once it starts")
	}
	title += " (" + c.id + ")"
	if !c.loaded {
		return title + "\n" + styles.Dim.Render("reading its curves...")
	}
	h := c.h - 1
	if head := c.charts.Head(c.w); len(head) > 0 {
		h -= lipgloss.Height(strings.Join(head, "\n"))
	}
	ch := c.charts
	per := h / max(1, len(ch.Plots()))
	if per < 10 && len(ch.Plots()) > 1 {
		ch.TrimPlots(1)
		per = h
	}
	return title + "\n" + strings.Join(ch.Render(c.w, max(6, per)), "\n")
}
