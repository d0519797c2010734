package tui

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/export"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/runs"
)

// samplesPane shows the samples behind the weights: the most up-weighted
// training samples and the most dropped (the lowest keep probabilities),
// drawn as pictures for an image dataset and as their values for rows of
// features, each with its label, group and weight; g filters by group.
//
// The lists are the latest iteration's (core.Snapshot's Top and Dropped)
// while the search runs; once it has ended, the exported weights of its
// selected iterate (u.npy, weights.npy, keep_prob.npy in the run
// directory) rank every training sample, within the group chosen. The
// samples themselves come from the training split: the one the search
// runs on in the process that runs it (SetTrain), else loaded from the
// dataset spec in run.json, when the pane is first shown.
type samplesPane struct {
	rec *runRecord
	dir string // the run directory, for the exports ("" : none)
	scroller
	train   *dataset.Dataset
	rowOf   map[int64]int // a sample id's row in train
	loading bool
	loadErr string
	final   *finalWeights // the exported weights (nil: none read)
	group   int           // the group shown; -1 every group
	keys    samplesKeys
	mono    bool
	w, h    int
}

// samplesKeys are the samples pane's own keys.
type samplesKeys struct{ Group key.Binding }

// finalWeights are a run's exported weights, one per training row.
type finalWeights struct {
	u, w, s   []float32
	iteration int
	which     string
}

// samplesMsg carries the training split and exported weights read for
// the samples pane.
type samplesMsg struct {
	dir   string
	train *dataset.Dataset
	final *finalWeights
	err   error
}

// showN is how many samples each list shows.
const showN = 5

func newSamplesPane(rec *runRecord, keys samplesKeys) *samplesPane {
	return &samplesPane{rec: rec, group: -1, keys: keys}
}

// setTrain gives the pane the training split the search runs on.
func (p *samplesPane) setTrain(train *dataset.Dataset) {
	p.train, p.rowOf = train, nil
	if train != nil {
		p.rowOf = make(map[int64]int, train.N)
		for i, id := range train.ID {
			p.rowOf[id] = i
		}
	}
}

func (p *samplesPane) SetSize(w, h int, _ bool) { p.w, p.h = w, h }

func (p *samplesPane) Update(msg tea.Msg) tea.Cmd {
	switch m := msg.(type) {
	case tea.ColorProfileMsg:
		p.mono = m.Profile <= colorprofile.Ascii
	case focusMsg:
		return p.load()
	case runDirMsg:
		p.dir = string(m)
	case trainMsg:
		p.setTrain(m.train)
	case exportedMsg, EndMsg: // new exports: e's, or the search's at its end
		if p.train != nil && p.dir != "" {
			return p.readExports()
		}
	case samplesMsg:
		if m.dir != p.dir {
			return nil
		}
		p.loading = false
		if m.err != nil {
			p.loadErr = m.err.Error()
		}
		if m.train != nil {
			p.setTrain(m.train)
		}
		if m.final != nil {
			p.final = m.final
		}
	case tea.KeyPressMsg:
		if key.Matches(m, p.keys.Group) {
			n := len(p.groupNames())
			p.group++
			if p.group >= n {
				p.group = -1
			}
			p.scroll = 0
		}
	default:
		p.scroller.update(msg)
	}
	return nil
}

// load reads the training split (unless the pane has it) and the
// exported weights, once, in a tea.Cmd.
func (p *samplesPane) load() tea.Cmd {
	if p.loading || p.loadErr != "" || p.train != nil && (p.final != nil || p.dir == "") {
		return nil
	}
	p.loading = true
	cfg, dir, train := p.rec.cfg, p.dir, p.train
	return func() tea.Msg {
		m := samplesMsg{dir: dir, train: train}
		if train == nil {
			sp, err := cfg.Dataset.Load(cfg.Settings.Seed, nil)
			if err != nil {
				return samplesMsg{dir: dir, err: fmt.Errorf("the training samples could not be loaded: %w", err)}
			}
			m.train = sp.Train
		}
		m.final = readFinal(dir, m.train.N)
		return m
	}
}

// readExports reads the exported weights again (after e).
func (p *samplesPane) readExports() tea.Cmd {
	dir, n := p.dir, p.train.N
	return func() tea.Msg { return samplesMsg{dir: dir, final: readFinal(dir, n)} }
}

// readFinal reads the exported weights in dir for n training samples;
// nil when there are none (or they are not of n samples).
func readFinal(dir string, n int) *finalWeights {
	if dir == "" {
		return nil
	}
	ex, err := export.ReadExport(dir)
	if err != nil || ex.N != n {
		return nil
	}
	f := &finalWeights{iteration: ex.Iteration, which: ex.Which}
	for _, x := range []struct {
		name string
		to   *[]float32
	}{{export.UNPY, &f.u}, {runs.WeightsNPY, &f.w}, {runs.KeepNPY, &f.s}} {
		_, v, err := loaders.ReadNPYFile(filepath.Join(dir, x.name))
		if err != nil || len(v) != n {
			return nil
		}
		*x.to = v
	}
	return f
}

// gname is group g's name.
func (p *samplesPane) gname(g int32) string {
	if names := p.groupNames(); g >= 0 && int(g) < len(names) {
		return names[g]
	}
	return fmt.Sprint(g)
}

func (p *samplesPane) groupNames() []string {
	if s := p.rec.last(); s != nil && len(s.GroupNames) > 0 {
		return s.GroupNames
	}
	if p.train != nil {
		return p.train.GroupNames
	}
	return nil
}

// entry is one sample shown.
type entry struct {
	row          int // in the training split; -1 unknown
	id           int64
	label, group int32
	u, w, s      float64 // s or w NaN: unknown
}

// lists returns the up-weighted and dropped samples to show, of the
// group chosen, and where they come from.
func (p *samplesPane) lists() (up, dropped []entry, from string) {
	inGroup := func(g int32) bool { return p.group < 0 || int(g) == p.group }
	if f := p.final; f != nil && p.train != nil && (p.rec.ended || len(p.rec.snaps) == 0) {
		var rows []int
		for i := range p.train.N {
			if inGroup(p.train.Group[i]) {
				rows = append(rows, i)
			}
		}
		e := func(i int) entry {
			return entry{row: i, id: p.train.ID[i], label: p.train.Y[i], group: p.train.Group[i], u: float64(f.u[i]), w: float64(f.w[i]), s: float64(f.s[i])}
		}
		// Ties in u (every kept sample's u is 1 when w is frozen) by the
		// keep probability s, the higher first.
		slices.SortStableFunc(rows, func(i, j int) int { return cmp.Or(cmp.Compare(f.u[j], f.u[i]), cmp.Compare(f.s[j], f.s[i])) })
		for _, i := range rows[:min(showN, len(rows))] {
			up = append(up, e(i))
		}
		var ties []string // more samples tie at the top of a list than it shows: say how many
		if n := tied(rows, func(i, j int) bool { return f.u[i] == f.u[j] && f.s[i] == f.s[j] }); n > showN {
			ties = append(ties, fmt.Sprintf("%d samples tie at the largest u %.3g and keep probability %.2g (the up-weighted listed by id)", n, f.u[rows[0]], f.s[rows[0]]))
		}
		slices.SortStableFunc(rows, func(i, j int) int { return cmp.Or(cmp.Compare(f.s[i], f.s[j]), cmp.Compare(f.w[i], f.w[j])) })
		for _, i := range rows[:min(showN, len(rows))] {
			dropped = append(dropped, e(i))
		}
		from = fmt.Sprintf("ranked over the %d training samples by the exported weights (%s, iteration %d)", len(rows), f.which, f.iteration)
		if w, ok := constant(f.w); ok {
			from = frozenNote(w) + "; " + from
		}
		if n := tied(rows, func(i, j int) bool { return f.s[i] == f.s[j] && f.w[i] == f.w[j] }); n > showN {
			ties = append(ties, fmt.Sprintf("%d tie at the lowest keep probability %.2g (the dropped listed by id)", n, f.s[rows[0]]))
		}
		for _, t := range ties {
			from += "; " + t
		}
		return up, dropped, from
	}
	s := p.rec.last()
	if s == nil {
		return nil, nil, ""
	}
	conv := func(ts []core.TopSample) []entry {
		var out []entry
		for _, t := range ts {
			if !inGroup(t.Group) {
				continue
			}
			e := entry{row: -1, id: t.ID, label: t.Label, group: t.Group, u: t.Weight, w: math.NaN(), s: math.NaN()}
			if len(s.Dropped) > 0 { // a run that records keep probabilities
				e.w, e.s = t.W, t.Keep
			}
			if r, ok := p.rowOf[t.ID]; ok && p.train.Y[r] == t.Label && p.train.Group[r] == t.Group {
				e.row = r // the same sample: a split loaded differently draws none
			}
			out = append(out, e)
		}
		return out
	}
	from = fmt.Sprintf("iteration %d: the %d most up-weighted and %d least kept of all training samples", s.Iter, len(s.Top), len(s.Dropped))
	if w, ok := snapWConst(s); ok {
		from = frozenNote(w) + "; " + from
	}
	return conv(s.Top), conv(s.Dropped), from
}

// tied counts the rows that tie with the first (rows sorted).
func tied(rows []int, same func(i, j int) bool) int {
	n := 0
	for _, i := range rows {
		if len(rows) > 0 && same(i, rows[0]) {
			n++
		}
	}
	return n
}

// frozenNote says how the lists rank when every sample weight w is the
// same (frozen at its initial 1, --weight-lr 0): u is then the keep
// mask, and the keep probability s orders the samples it keeps.
func frozenNote(w float64) string {
	return fmt.Sprintf("w frozen at %.3g: u is the keep mask; ranked by keep probability", w)
}

// constant returns the value every element of v has, if they all have one.
func constant(v []float32) (float64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	for _, x := range v {
		if x != v[0] {
			return 0, false
		}
	}
	return float64(v[0]), true
}

// snapWConst returns the sample weight w every training sample has at
// snapshot s, if they all have the same (its weight histogram's min is
// its max).
func snapWConst(s *core.Snapshot) (float64, bool) {
	if s == nil || s.WeightHist == nil || s.WeightHist.Min != s.WeightHist.Max {
		return 0, false
	}
	return s.WeightHist.Min, true
}

func (p *samplesPane) View() string { return p.scroller.view(p.content(), p.w, p.h) }

// content is the pane's text before scrolling.
func (p *samplesPane) content() string {
	w := p.w
	names := p.groupNames()
	group := "all"
	if p.group >= 0 && p.group < len(names) {
		group = names[p.group]
	}
	var b strings.Builder
	b.WriteString(wrapItems([]string{styles.Title.Render("samples"), "group: " + group, styles.Dim.Render("(g: next group)")}, w) + "\n")
	up, dropped, from := p.lists()
	switch {
	case p.loading:
		b.WriteString(styles.Dim.Render("loading the training samples...") + "\n")
	case p.loadErr != "":
		b.WriteString(lipgloss.NewStyle().Width(w).Render(p.loadErr) + "\n")
	}
	if from == "" {
		b.WriteString(styles.Dim.Render("no iteration yet"))
		return b.String()
	}
	b.WriteString(styles.Dim.Render(lipgloss.NewStyle().Width(w).Render(from)) + "\n")
	label := func(e entry) string {
		if p.train != nil && int(e.label) < len(p.train.LabelNames) {
			return p.train.LabelNames[e.label]
		}
		return fmt.Sprintf("y=%d", e.label)
	}
	for _, sec := range []struct {
		title   string
		dropped bool
		list    []entry
		fig     func(entry) string
	}{
		{"most up-weighted (largest u = w·m; ties by keep probability s)", false, up, func(e entry) string {
			if math.IsNaN(e.s) {
				return fmt.Sprintf("u %.3g", e.u)
			}
			return fmt.Sprintf("u %.3g s %.2g", e.u, e.s)
		}},
		{"most dropped (lowest keep probability s; ties by w, then id)", true, dropped, func(e entry) string {
			if math.IsNaN(e.s) {
				return fmt.Sprintf("u %.3g", e.u)
			}
			return fmt.Sprintf("s %.2g w %.2g", e.s, e.w)
		}},
	} {
		b.WriteString("\n" + lipgloss.NewStyle().Width(w).Render(sec.title) + "\n") // wrapped, not cut
		if len(sec.list) == 0 {
			msg := "none"
			if p.group >= 0 {
				msg = "none in this group among the samples listed"
			}
			if sec.dropped && len(p.rec.snaps) > 0 && p.final == nil && len(p.rec.last().Dropped) == 0 {
				msg = "not recorded by this run (its snapshots list the top-weighted samples only)"
			}
			b.WriteString(styles.Dim.Render(lipgloss.NewStyle().Width(w).Render(msg)) + "\n")
			continue
		}
		if p.train != nil && isImage(p.train.Shape) {
			b.WriteString(p.cards(sec.list, label, sec.fig, w))
			continue
		}
		b.WriteString(styles.Dim.Render(fmt.Sprintf("%7s %-6s %-9s %-13s %s", "id", "label", "group", "weight", "features")) + "\n")
		for _, e := range sec.list {
			line := fmt.Sprintf("%7d %-6s %-9s %-13s", e.id, label(e), p.gname(e.group), sec.fig(e))
			if p.train != nil && e.row >= 0 {
				var vals []string
				for _, v := range p.train.Row(e.row) {
					vals = append(vals, fmt.Sprintf("%.2f", v))
				}
				line += " " + strings.Join(vals, " ")
			}
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// cards lays out pictures of the samples with their captions (id,
// label, group, figure), as many side by side as the width holds.
func (p *samplesPane) cards(list []entry, label func(entry) string, fig func(entry) string, w int) string {
	pc := pictureCols(p.train.Shape, max(4, w))
	cw := max(pc, 14)
	per := max(1, (w+1)/(cw+1))
	var out []string
	for from := 0; from < len(list); from += per {
		var cards []string
		for _, e := range list[from:min(len(list), from+per)] {
			var lines []string
			if e.row >= 0 {
				lines = picture(p.train.Row(e.row), p.train.Shape, pc, p.mono)
			} else {
				lines = []string{styles.Dim.Render("(not in the split)")}
			}
			lines = append(lines, fmt.Sprintf("#%d %s", e.id, label(e)), p.gname(e.group), fig(e))
			cards = append(cards, lipgloss.NewStyle().Width(cw).Render(strings.Join(lines, "\n")))
		}
		out = append(out, lipgloss.JoinHorizontal(lipgloss.Top, spaced(cards)...))
	}
	return strings.Join(out, "\n") + "\n"
}

// spaced puts a one-cell gap between blocks.
func spaced(blocks []string) []string {
	var out []string
	for i, b := range blocks {
		if i > 0 {
			out = append(out, " ")
		}
		out = append(out, b)
	}
	return out
}
