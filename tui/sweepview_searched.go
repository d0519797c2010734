package tui

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/sweeps"
)

// The sweep view's searched settings: a scatter per setting that varies
// across the sweep's finished runs (report.SearchedOf), each run a point
// at its value and its final model's validation worst-group accuracy,
// the figure maple table selects on, the table's pick drawn ◆. Small
// multiples rather than parallel coordinates: each panel reads alone, as
// a plot of one setting, and a rate drawn log-uniformly gets a log axis
// of its own. Tab shows it in place of the cell's curves.

// searchedMsg carries a sweep's searched settings, read from its runs.
type searchedMsg struct {
	s   report.Searched
	err error
}

// searchedView is the component: the settings read, the number of
// finished cells when they were asked for (read again when it grows).
type searchedView struct {
	s      report.Searched
	err    error
	loaded bool
	asked  int // finished cells when last read (-1: never)
	w, h   int
}

func newSearchedView() *searchedView { return &searchedView{asked: -1} }

// want reads the sweep's searched settings when more cells have finished
// than at the last read, in a tea.Cmd (nil: no read needed).
func (s *searchedView) want(runsDir, name string, cells []sweeps.CellState) tea.Cmd {
	done := 0
	for _, c := range cells {
		if c.State == "done" {
			done++
		}
	}
	if done == s.asked {
		return nil
	}
	s.asked = done
	return func() tea.Msg {
		r, err := report.SweepSearched(runsDir, name)
		return searchedMsg{r, err}
	}
}

// Update takes a read.
func (s *searchedView) Update(m searchedMsg) {
	s.s, s.err, s.loaded = m.s, m.err, true
}

// SetSize gives the component its share of the view.
func (s *searchedView) SetSize(w, h int) { s.w, s.h = w, h }

// minPanelW and minPanelH are the least a setting's scatter is drawn in,
// maxPanelH the most lines it takes (a tall screen's rest stays blank).
const minPanelW, minPanelH, maxPanelH = 28, 7, 20

// View draws a title line, then the panels side by side as the width
// allows (rows of them as the height allows; those left out named), and
// the table's pick.
func (s *searchedView) View() string {
	title := styles.Title.Render("searched settings") + " vs val worst-group (%)"
	if s.w >= 80 {
		title += ": each finished run's final model, as maple table selects"
	}
	switch {
	case !s.loaded:
		return title + "\n" + styles.Dim.Render("reading the finished runs...")
	case s.err != nil:
		return title + "\n" + styles.Warn.Render(s.err.Error())
	case len(s.s.Runs) == 0:
		return title + "\n" + styles.Dim.Render("no cell has finished yet: each finished run becomes a point")
	case len(s.s.Params) == 0:
		return title + "\n" + styles.Dim.Render(fmt.Sprintf("no setting varies across the %d finished runs (seeds, datasets and methods are not searched settings)", len(s.s.Runs)))
	}
	lines := []string{title}
	pick := s.pick()
	body := s.h - 1
	if pick != "" {
		body--
	}
	n := len(s.s.Params)
	cols := max(1, min(n, s.w/minPanelW))
	rows := (n + cols - 1) / cols
	fits := max(1, body/minPanelH)
	more := ""
	if rows > fits {
		rows = fits
		shown := rows * cols
		more = styles.Dim.Render(fmt.Sprintf("%d more settings (%s): a larger window shows them", n-shown, flagList(s.s.Params[shown:])))
		body--
	}
	lo, hi := yRange(s.s.Runs)
	ph := max(minPanelH, min(maxPanelH, body/rows))
	for r := range rows {
		var panels []string
		for c := range cols {
			k := r*cols + c
			if k >= n {
				break
			}
			pw := s.w / cols
			panels = append(panels, padBlock(scatterPanel(s.s.Params[k], pw-1, ph, lo, hi), pw))
		}
		lines = append(lines, joinBlocks(panels))
	}
	if more != "" {
		lines = append(lines, more)
	}
	if pick != "" {
		lines = append(lines, pick)
	}
	return strings.Join(lines, "\n")
}

// flagList names settings as flags.
func flagList(ps []report.Param) string {
	var out []string
	for _, p := range ps {
		out = append(out, "--"+p.Flag)
	}
	return strings.Join(out, ", ")
}

// pick is the line naming the table's pick: its runs' validation figure
// and its value of each searched setting ("" without one).
func (s *searchedView) pick() string {
	var ids []string
	var vals []float64
	for _, r := range s.s.Runs {
		if r.Best {
			ids, vals = append(ids, r.ID), append(vals, r.Val)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	var set []string
	for _, p := range s.s.Params {
		for _, pt := range p.Points {
			if pt.Best {
				set = append(set, "--"+p.Flag+" "+pt.Value)
				break
			}
		}
	}
	mean := 0.0
	for _, v := range vals {
		mean += v
	}
	mean /= float64(len(vals))
	runs := ids[0]
	if len(ids) > 1 {
		runs = fmt.Sprintf("%d runs", len(ids))
	}
	line := fmt.Sprintf("the table's pick: %s, val worst-group %.1f%% (%s)", strings.Join(set, " "), 100*mean, runs)
	if len([]rune(line))+2 > s.w {
		line = fmt.Sprintf("pick: %s, val %.1f%%", strings.Join(set, " "), 100*mean)
	}
	return styles.Warn.Render("◆") + " " + line
}

// yRange is the validation figures' range, padded, in [0, 1]: every
// panel shares it.
func yRange(rs []report.SearchedRun) (lo, hi float64) {
	lo, hi = 1, 0
	for _, r := range rs {
		lo, hi = min(lo, r.Val), max(hi, r.Val)
	}
	pad := max(0.01, (hi-lo)*0.05)
	return max(0, lo-pad), min(1, hi+pad)
}

// scatterPanel draws one setting's scatter in w x h cells: its flag (and
// axis), the plot with the y axis's percentages on the left, the x
// axis's ticks below. A point is •, two or more in one cell their count,
// the table's pick ◆ (over any other point in its cell).
func scatterPanel(p report.Param, w, h int, lo, hi float64) string {
	head := "--" + p.Flag
	if p.Log {
		head += " (log scale)"
	}
	const yw = 6 // "100.0 " and the axis
	cols := max(4, w-yw-1)
	rows := max(2, h-3)
	// The x axis: where a value falls, 0 to cols-1.
	x0, x1 := math.Inf(1), math.Inf(-1)
	for _, pt := range p.Points {
		x0, x1 = min(x0, pt.X), max(x1, pt.X)
	}
	tr := func(x float64) float64 { return x }
	if p.Log {
		tr = math.Log10
	}
	if p.Categories != nil {
		x0, x1 = -0.5, float64(len(p.Categories))-0.5
	}
	t0, t1 := tr(x0), tr(x1)
	margin := 1 // a column each side, so that no point sits on the axis
	col := func(x float64) int {
		if t1 == t0 {
			return cols / 2
		}
		return margin + int(math.Round((tr(x)-t0)/(t1-t0)*float64(cols-1-2*margin)))
	}
	row := func(v float64) int {
		if hi == lo {
			return rows / 2
		}
		return int(math.Round((hi - v) / (hi - lo) * float64(rows-1)))
	}
	type cell struct {
		n    int
		best bool
	}
	grid := make([][]cell, rows)
	for i := range grid {
		grid[i] = make([]cell, cols)
	}
	for _, pt := range p.Points {
		r, c := min(rows-1, max(0, row(pt.Val))), min(cols-1, max(0, col(pt.X)))
		grid[r][c].n++
		grid[r][c].best = grid[r][c].best || pt.Best
	}
	lines := []string{head}
	for r := range rows {
		label := strings.Repeat(" ", yw-1)
		if r == 0 || r == rows-1 || r == rows/2 && rows >= 5 {
			label = fmt.Sprintf("%*.1f", yw-1, 100*(hi-(hi-lo)*float64(r)/float64(rows-1)))
		}
		var b strings.Builder
		b.WriteString(label + "┤")
		for _, g := range grid[r] {
			switch {
			case g.best:
				b.WriteString(styles.Warn.Render("◆"))
			case g.n == 1:
				b.WriteString(styles.Series[0].Render("•"))
			case g.n > 9:
				b.WriteString(styles.Series[0].Render("+"))
			case g.n > 1:
				b.WriteString(styles.Series[0].Render(strconv.Itoa(g.n)))
			default:
				b.WriteByte(' ')
			}
		}
		lines = append(lines, b.String())
	}
	// The ticks: each distinct value (each category), those whose labels
	// would run into the one before left out.
	type tick struct {
		c     int
		label string
	}
	var ticks []tick
	if p.Categories != nil {
		for i, c := range p.Categories {
			ticks = append(ticks, tick{col(float64(i)), c})
		}
	} else {
		var xs []float64
		for _, pt := range p.Points {
			xs = append(xs, pt.X)
		}
		slices.Sort(xs)
		for _, x := range slices.Compact(xs) {
			ticks = append(ticks, tick{col(x), strconv.FormatFloat(x, 'g', 3, 64)})
		}
	}
	axis := []rune(strings.Repeat(" ", yw-1) + "└" + strings.Repeat("─", cols))
	labels := []rune(strings.Repeat(" ", yw+cols+8))
	end := -1
	for _, t := range ticks {
		at := max(yw, yw+t.c-len([]rune(t.label))/2)
		if at <= end || at+len([]rune(t.label)) > len(labels) {
			continue
		}
		axis[yw+t.c] = '┬'
		copy(labels[at:], []rune(t.label))
		end = at + len([]rune(t.label))
	}
	lines = append(lines, string(axis), strings.TrimRight(string(labels), " "))
	return strings.Join(lines, "\n")
}

// padBlock pads every line of a block to w cells.
func padBlock(s string, w int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = fit(l, w, 1)
		if d := w - lipgloss.Width(lines[i]); d > 0 {
			lines[i] += strings.Repeat(" ", d)
		}
	}
	return strings.Join(lines, "\n")
}

// joinBlocks sets blocks side by side, line by line.
func joinBlocks(blocks []string) string {
	if len(blocks) == 1 {
		return blocks[0]
	}
	split := make([][]string, len(blocks))
	n := 0
	for i, b := range blocks {
		split[i] = strings.Split(b, "\n")
		n = max(n, len(split[i]))
	}
	out := make([]string, n)
	for i := range out {
		for j, b := range split {
			line := ""
			if i < len(b) {
				line = b[i]
			} else if len(b) > 0 {
				line = strings.Repeat(" ", lipgloss.Width(b[0]))
			}
			if j == len(split)-1 {
				line = strings.TrimRight(line, " ")
			}
			out[i] += line
		}
	}
	return strings.Join(out, "\n")
}
