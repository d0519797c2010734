package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/maple-ood/maple/core"
)

// chartsPane shows the search's curves: outer risk, accuracy, group
// weight fractions, validation accuracy per group, and the keep fraction
// when the search is sparse; a cursor reads out one iteration and z
// shows the latest zoomN iterations only.
type chartsPane struct {
	rec *runRecord
	scroller
	// cursor is the iteration the charts read out (0: none); zoom shows
	// only the last zoomN iterations.
	cursor int
	zoom   bool
	// mono: the terminal shows no colour (NO_COLOR, a dumb terminal), so
	// chart lines that only colour tells apart get a panel each.
	mono  bool
	w, h  int
	alone bool
}

// zoomN is how many of the latest iterations z shows.
const zoomN = 50

func newChartsPane(rec *runRecord) *chartsPane { return &chartsPane{rec: rec} }

func (p *chartsPane) SetSize(w, h int, alone bool) { p.w, p.h, p.alone = w, h, alone }

func (p *chartsPane) Update(msg tea.Msg) tea.Cmd {
	switch m := msg.(type) {
	case tea.ColorProfileMsg:
		p.mono = m.Profile <= colorprofile.Ascii
	case cursorMsg:
		p.moveCursor(int(m))
	case zoomMsg:
		p.zoom = !p.zoom
	default:
		p.scroller.update(msg)
	}
	return nil
}

// moveCursor moves the cursor by step iterations, starting at the
// latest, within the recorded ones.
func (p *chartsPane) moveCursor(step int) {
	snaps := p.rec.snaps
	n := len(snaps)
	if n == 0 {
		return
	}
	if p.cursor == 0 {
		p.cursor = snaps[n-1].Iter
	}
	p.cursor = min(max(p.cursor+step, snaps[0].Iter), snaps[n-1].Iter)
}

func (p *chartsPane) View() string {
	w := p.w
	chartH := max(4, p.h/3)
	if p.alone {
		chartH = max(4, p.h/2)
	}
	s := p.rec.snaps
	if p.zoom && len(s) > zoomN {
		s = s[len(s)-zoomN:]
	}
	first := 1
	if len(s) > 0 {
		first = s[0].Iter
	}
	var charts []string
	if r := p.readout(); r != "" {
		charts = append(charts, lipgloss.NewStyle().Width(w).Render(r))
	}
	charts = append(charts, chart(first, "outer risk", []string{"R"}, [][]float64{column(s, func(x *core.Snapshot) float64 { return x.OuterRisk })}, w, chartH))
	charts = append(charts, p.chart(first, "accuracy", []string{"val worst-group", "val average", "TEST worst-group", "TEST average"}, [][]float64{
		column(s, func(x *core.Snapshot) float64 { return x.ValWorst }),
		column(s, func(x *core.Snapshot) float64 { return x.ValAcc }),
		column(s, func(x *core.Snapshot) float64 { return x.TestWorst }),
		column(s, func(x *core.Snapshot) float64 { return x.TestAcc }),
	}, w, chartH))
	var names []string
	if last := p.rec.last(); last != nil {
		names = last.GroupNames
	}
	charts = append(charts, p.chart(first, "group weight fractions", names, perGroup(s, len(names), func(x *core.Snapshot) []float64 { return x.GroupFrac }), w, chartH))
	charts = append(charts, p.chart(first, "validation accuracy per group (inner model)", names, perGroup(s, len(names), func(x *core.Snapshot) []float64 { return x.ValGroups }), w, chartH))
	if set := p.rec.cfg.Settings; set.Keep < 1 || set.Keep0 < 1 {
		charts = append(charts, chart(first, "keep fraction", []string{"kept"}, [][]float64{column(s, func(x *core.Snapshot) float64 { return x.KeepFrac })}, w, chartH))
	}
	return p.scroller.view(strings.Join(charts, "\n"), w, p.h)
}

// readout is every series' value at the cursor's iteration ("" without a
// cursor), the charts' numbers for one iteration.
func (p *chartsPane) readout() string {
	if p.cursor == 0 {
		return ""
	}
	for _, s := range p.rec.snaps {
		if s.Iter != p.cursor {
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

// chart plots several series in one chart, or, on a terminal without
// colour, each series in a panel of its own (the lines could not be told
// apart).
func (p *chartsPane) chart(first int, title string, names []string, series [][]float64, w, h int) string {
	if !p.mono || len(series) < 2 {
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
