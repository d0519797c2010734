package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/tui/chart"
)

// chartsPane shows the search's curves: outer risk, accuracy, group
// weight fractions, validation accuracy per group, and the keep fraction
// when the search is sparse, in one chart component (its cursor, zoom,
// log scale, smoothing and rate-change marks).
type chartsPane struct {
	rec *runRecord
	scroller
	charts chart.Model
	w, h   int
	alone  bool
}

func newChartsPane(rec *runRecord) *chartsPane { return &chartsPane{rec: rec, charts: chart.New()} }

func (p *chartsPane) SetSize(w, h int, alone bool) { p.w, p.h, p.alone = w, h, alone }

func (p *chartsPane) Update(msg tea.Msg) tea.Cmd {
	switch m := msg.(type) {
	case tea.ColorProfileMsg:
		// Without colour, chart lines that only colour tells apart get a
		// panel each.
		p.charts.Panels = m.Profile <= colorprofile.Ascii
	case chart.CursorMsg, chart.ZoomMsg, chart.PanMsg, chart.LogMsg, chart.SmoothMsg, chart.WallMsg:
		p.sync()
		return p.charts.Update(m)
	default:
		p.scroller.update(msg)
	}
	return nil
}

// sync gives the chart component the record's iterations.
func (p *chartsPane) sync() {
	s := p.rec.snaps
	xs := make([]int, len(s))
	for i, x := range s {
		xs[i] = x.Iter
	}
	var names []string
	if last := p.rec.last(); last != nil {
		names = last.GroupNames
	}
	line := func(name string, f func(*core.Snapshot) float64) chart.Line {
		return chart.Line{Name: name, Values: column(s, f)}
	}
	groups := func(f func(*core.Snapshot) []float64) []chart.Line {
		var out []chart.Line
		for g, v := range perGroup(s, len(names), f) {
			out = append(out, chart.Line{Name: names[g], Values: v})
		}
		return out
	}
	plots := []chart.Plot{
		{Title: "outer risk", Lines: []chart.Line{line("R", func(x *core.Snapshot) float64 { return x.OuterRisk })}, Risk: true},
		{Title: "accuracy", Lines: []chart.Line{
			line("val worst-group", func(x *core.Snapshot) float64 { return x.ValWorst }),
			line("val average", func(x *core.Snapshot) float64 { return x.ValAcc }),
			line("TEST worst-group", func(x *core.Snapshot) float64 { return x.TestWorst }),
			line("TEST average", func(x *core.Snapshot) float64 { return x.TestAcc }),
		}},
		{Title: "group weight fractions", Lines: groups(func(x *core.Snapshot) []float64 { return x.GroupFrac })},
		{Title: "validation accuracy per group (inner model)", Lines: groups(func(x *core.Snapshot) []float64 { return x.ValGroups })},
	}
	if set := p.rec.cfg.Settings; set.Keep < 1 || set.Keep0 < 1 {
		plots = append(plots, chart.Plot{Title: "keep fraction", Lines: []chart.Line{line("kept", func(x *core.Snapshot) float64 { return x.KeepFrac })}})
	}
	p.charts.SetData(xs, column(s, func(x *core.Snapshot) float64 { return x.Elapsed }), plots, chart.RateMarks(s, p.rec.events))
}

func (p *chartsPane) View() string { return p.scroller.view(p.content(), p.w, p.h) }

// content is the pane's lines before they are cut to its size: every
// line of it fits its width.
func (p *chartsPane) content() string {
	p.sync()
	chartH := max(4, p.h/3)
	if p.alone {
		chartH = max(4, p.h/2)
	}
	return strings.Join(p.charts.Render(p.w, chartH), "\n")
}
