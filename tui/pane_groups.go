package tui

import (
	"fmt"
	"math"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/core"
)

// groupsPane shows the weights per group, the latest iteration's
// figures, the top-weighted samples and the events.
type groupsPane struct {
	rec *runRecord
	scroller
	w, h int
}

func newGroupsPane(rec *runRecord) *groupsPane { return &groupsPane{rec: rec} }

func (p *groupsPane) SetSize(w, h int, _ bool) { p.w, p.h = w, h }

func (p *groupsPane) Update(msg tea.Msg) tea.Cmd { p.scroller.update(msg); return nil }

func (p *groupsPane) View() string { return p.scroller.view(p.content(p.w), p.w, p.h) }

// figuresGlossary says what the groups pane's search figures are.
const figuresGlossary = "keep: the share of training samples in the keep mask; " +
	"K_t: how many samples the mask keeps at this iteration (the --keep0 fraction of them at first, annealed to the --keep fraction); " +
	"temp: the temperature, the factor on the keep mask's logits, rising from 1 to about 33 so that the mask sharpens; " +
	"|dR/dw|, |dR/ds|: norms of the outer risk's gradient in the sample weights w and in the keep probabilities s, " +
	"before clipping (s moves only when --keep is below 1)."

// content is the pane's text at width w, before scrolling: the weight
// histogram per group, the figures, timing and norms.
func (p *groupsPane) content(w int) string {
	s := p.rec.last()
	if s == nil {
		return styles.Dim.Render("no iteration yet")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "u = w·m per group (0 to %.3g); %% of the total u\n", s.HistEdges[len(s.HistEdges)-1])
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
		fmt.Fprintln(&b, "\ntop-weighted samples (id label group u s)")
		if wc, ok := snapWConst(s); ok {
			b.WriteString(styles.Dim.Render(strings.TrimSuffix(fill(strings.Fields(frozenNote(wc)), w, " "), "\n")) + "\n")
		} else {
			b.WriteString(styles.Dim.Render(" ties in u by keep probability s") + "\n")
		}
		for _, ts := range s.Top {
			fmt.Fprintf(&b, " %8d  y=%d  %-9s %-5.3g %.2g\n", ts.ID, ts.Label, groupName(s, ts.Group), ts.Weight, ts.Keep)
		}
	}
	if events := p.rec.events; len(events) > 0 {
		fmt.Fprintln(&b, "\nevents")
		evs := append([]core.Event(nil), events...)
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
