package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/maple-ood/maple/core"
)

// chartsPane shows the search's curves: outer risk, accuracy, group
// weight fractions, validation accuracy per group, and the keep fraction
// when the search is sparse, in one chart component (its cursor, zoom,
// log scale, smoothing and rate-change marks).
type chartsPane struct {
	rec *runRecord
	scroller
	charts chartView
	w, h   int
	alone  bool
}

func newChartsPane(rec *runRecord) *chartsPane { return &chartsPane{rec: rec, charts: newChartView()} }

func (p *chartsPane) SetSize(w, h int, alone bool) { p.w, p.h, p.alone = w, h, alone }

func (p *chartsPane) Update(msg tea.Msg) tea.Cmd {
	switch m := msg.(type) {
	case tea.ColorProfileMsg:
		// Without colour, chart lines that only colour tells apart get a
		// panel each.
		p.charts.panels = m.Profile <= colorprofile.Ascii
	case cursorMsg, zoomMsg, panMsg, logMsg, smoothMsg, wallMsg:
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
	line := func(name string, f func(*core.Snapshot) float64) chartLine {
		return chartLine{name: name, values: column(s, f)}
	}
	groups := func(f func(*core.Snapshot) []float64) []chartLine {
		var out []chartLine
		for g, v := range perGroup(s, len(names), f) {
			out = append(out, chartLine{name: names[g], values: v})
		}
		return out
	}
	plots := []chartPlot{
		{title: "outer risk", lines: []chartLine{line("R", func(x *core.Snapshot) float64 { return x.OuterRisk })}, risk: true},
		{title: "accuracy", lines: []chartLine{
			line("val worst-group", func(x *core.Snapshot) float64 { return x.ValWorst }),
			line("val average", func(x *core.Snapshot) float64 { return x.ValAcc }),
			line("TEST worst-group", func(x *core.Snapshot) float64 { return x.TestWorst }),
			line("TEST average", func(x *core.Snapshot) float64 { return x.TestAcc }),
		}},
		{title: "group weight fractions", lines: groups(func(x *core.Snapshot) []float64 { return x.GroupFrac })},
		{title: "validation accuracy per group (inner model)", lines: groups(func(x *core.Snapshot) []float64 { return x.ValGroups })},
	}
	if set := p.rec.cfg.Settings; set.Keep < 1 || set.Keep0 < 1 {
		plots = append(plots, chartPlot{title: "keep fraction", lines: []chartLine{line("kept", func(x *core.Snapshot) float64 { return x.KeepFrac })}})
	}
	p.charts.setData(xs, column(s, func(x *core.Snapshot) float64 { return x.Elapsed }), plots, rateMarks(s, p.rec.events))
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
	return strings.Join(p.charts.render(p.w, chartH), "\n")
}
