package tui

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
	"github.com/maple-ood/maple/tui/chart"
	"github.com/maple-ood/maple/tui/wrap"
)

// The comparison of runs: their curves overlaid, their results and the
// settings that differ.

// openCompare reads the selected runs for their comparison, in a tea.Cmd.
func (b *Browser) openCompare() tea.Cmd {
	var ids []string
	for id := range b.runList.selected {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	if len(ids) < 2 {
		b.note = fmt.Sprintf("select two or more runs with space to compare (%d selected)", len(ids))
		return nil
	}
	dir := b.runList.dir
	return func() tea.Msg { return comparedMsg{readComparison(dir, ids)} }
}

// comparison is what a comparison of runs shows, read from their
// directories.
type comparison struct {
	ids, names []string // names: each run's --name, else its id
	series     [][]*core.Snapshot
	events     [][]core.Event
	results    []string
	curves     [][]train.CheckPoint // each run's validation checks of its final training
	flat       []map[string]string  // each run's flags
	// baselines: some runs are baselines (whose search settings are left
	// out), searches: some are searches; seeds: the runs are the seeds of
	// one configuration.
	baselines, searches, seeds bool
	// groups, in a comparison of groups (the browser's grouped list), are
	// the groups compared, each a band over its runs; by names the
	// settings they were grouped by.
	groups []compareGroup
	by     []string
}

// compareGroup is one group of runs in a comparison of groups.
type compareGroup struct {
	name    string // the grouping settings' values
	members []int  // its runs: indices into the comparison's ids
	result  string // its figures over its runs, and what it pools over
}

// groupSel is a group chosen for a comparison: its name, its runs and
// the line of its figures.
type groupSel struct {
	name, result string
	ids          []string
}

// readGroupComparison reads the runs of groups, grouped by the settings
// by, for their comparison.
func readGroupComparison(runsDir string, by []string, groups []groupSel) *comparison {
	var ids []string
	for _, g := range groups {
		ids = append(ids, g.ids...)
	}
	c := readComparison(runsDir, ids)
	c.by, c.seeds = by, false
	at := 0
	for _, g := range groups {
		cg := compareGroup{name: g.name, result: g.result}
		for range g.ids {
			cg.members = append(cg.members, at)
			at++
		}
		c.groups = append(c.groups, cg)
	}
	return c
}

// readComparison reads runs ids of runsDir for their comparison.
func readComparison(runsDir string, ids []string) *comparison {
	n := len(ids)
	c := &comparison{ids: ids, names: slices.Clone(ids), series: make([][]*core.Snapshot, n), events: make([][]core.Event, n),
		results: make([]string, n), curves: make([][]train.CheckPoint, n), flat: make([]map[string]string, n)}
	hashes := map[string]bool{}
	for i, id := range ids {
		dir := runs.Open(runsDir).RunDir(id)
		c.series[i], _ = runs.ReadMetrics(dir)
		c.events[i], _ = runs.ReadEvents(dir)
		c.flat[i] = map[string]string{}
		if cfg, err := runs.ReadConfig(dir); err == nil {
			if cfg.Name != "" {
				c.names[i] = cfg.Name
			}
			c.searches = c.searches || cfg.Searches()
			for k, v := range config.Flags(*cfg) {
				if !cfg.Searches() && searchFlags[k] {
					c.baselines = true
					continue // a baseline runs no search
				}
				c.flat[i]["--"+k] = v
			}
			c.flat[i]["--seed"] = strconv.FormatUint(cfg.Settings.Seed, 10)
			hashes[cfg.Hash(true)] = true
		}
		if sum, _ := runs.ReadSummary(dir); sum != nil && sum.Result != nil {
			r := sum.Result
			c.curves[i] = r.Curve
			c.results[i] = fmt.Sprintf("test acc %.4f · test worst-group %.4f · val worst-group %.4f (selected on validation, step %d)", r.TestAcc, r.TestWorst, r.ValWorst, r.SelectedStep)
		} else if sum != nil {
			c.results[i] = "no result: " + sum.Status.String()
		} else {
			c.results[i] = "no result yet"
		}
	}
	c.seeds = len(hashes) == 1 && n > 1
	return c
}

// compareView is the comparison of runs, a component: their search's
// curves overlaid in the chart component (for the seeds of one
// configuration, also their mean and a band of one sample standard
// deviation; in a comparison of groups, one line per group, its runs'
// mean, in a band of their sd or their least and greatest value; without
// colour each line drawn with characters of its own), or, for
// baselines, their training curves in the same component; their results
// and the settings that differ. It is laid out at its size when drawn,
// and scrolls.
type compareView struct {
	c      *comparison
	charts chart.Model
	band   chart.Band // what the bands span (the sample sd by default)
	metric int        // the figure charted first: an index into searchMetrics, or trainingMetrics for baselines
	scroll int
	w, h   int
}

// bandMsg switches a comparison's bands between the sample sd and the
// least and greatest value.
type bandMsg struct{}

func newCompareView(c *comparison, mono bool) *compareView {
	v := &compareView{c: c, charts: chart.New(), w: 80, h: 24}
	v.charts.Chars = mono
	v.setCharts()
	return v
}

// setCharts gives the chart component the runs' search curves, on the
// points 1 to the longest run's count (a shorter run has no value past
// its end), with the iterations where any run's rates changed; without
// a search among them, their trainings' validation checks, on the union
// of the checks' steps.
func (v *compareView) setCharts() {
	c := v.c
	if !slices.ContainsFunc(c.series, func(s []*core.Snapshot) bool { return len(s) > 0 }) {
		v.setTrainingCharts()
		return
	}
	longest := 0
	for _, s := range c.series {
		longest = max(longest, len(s))
	}
	xs := make([]int, longest)
	for i := range xs {
		xs[i] = i + 1
	}
	var marks []int
	for i, s := range c.series {
		// Each mark as a point of this run's series (the x axis counts
		// points: runs are compared iteration by iteration).
		for _, it := range chart.RateMarks(s, c.events[i]) {
			if k := slices.IndexFunc(s, func(x *core.Snapshot) bool { return x.Iter == it }); k >= 0 {
				marks = append(marks, k+1)
			}
		}
	}
	slices.Sort(marks)
	marks = slices.Compact(marks)
	var plots []chart.Plot
	metrics := searchMetrics(c.groupNames())
	v.metric = (v.metric%len(metrics) + len(metrics)) % len(metrics)
	shown := []searchMetric{metrics[v.metric]}
	if risk := metrics[4]; shown[0].name != risk.name { // the outer risk below any other
		shown = append(shown, risk)
	}
	for k, f := range shown {
		values, times := make([][]float64, len(c.ids)), make([][]float64, len(c.ids))
		for i, s := range c.series {
			if len(s) > 0 {
				values[i] = pad(column(s, f.f), longest)
				times[i] = pad(column(s, func(s *core.Snapshot) float64 { return s.Elapsed }), longest)
			}
		}
		lines, note := v.lines(values, times)
		title := f.name + note
		if k == 0 {
			title += metricOf(v.metric, len(metrics))
		}
		plots = append(plots, chart.Plot{Title: title, Lines: lines, Risk: f.risk})
	}
	v.charts.Unit = ""
	v.charts.SetData(xs, nil, plots, marks)
}

// setTrainingCharts gives the chart component the runs' validation
// worst-group accuracy at each validation check of their training (a
// baseline's, a search's final weighted ERM), on the union of their
// checks' steps (onSteps).
func (v *compareView) setTrainingCharts() {
	n := len(trainingMetrics)
	v.metric = (v.metric%n + n) % n
	m := trainingMetrics[v.metric]
	steps, values := onSteps(v.c.curves, m.f)
	lines, note := v.lines(values, make([][]float64, len(values)))
	v.charts.Unit = "training step"
	v.charts.SetData(steps, nil, []chart.Plot{{Title: m.name + " over the training (validation checks)" + note + metricOf(v.metric, n), Lines: lines}}, nil)
}

// metricOf says which of n metrics the chart shows and how to choose
// another.
func metricOf(i, n int) string { return fmt.Sprintf(" [%d/%d]", i+1, n) }

// lines are a chart's lines of one figure, values[i] (nil: none) and
// times[i] run i's: a line per run, and for the seeds of one
// configuration also their mean in a band; in a comparison of groups a
// line per group, its runs' mean, in its band. note is what the title
// says of the bands.
func (v *compareView) lines(values, times [][]float64) (lines []chart.Line, note string) {
	c := v.c
	if len(c.groups) > 0 {
		for _, g := range c.groups {
			var vs, ts [][]float64
			for _, m := range g.members {
				if values[m] != nil {
					vs, ts = append(vs, values[m]), append(ts, times[m])
				}
			}
			if len(vs) == 0 {
				continue
			}
			mean, lo, hi := chart.Spread(vs, v.band)
			l := chart.Line{Name: fmt.Sprintf("%s (%d)", g.name, len(vs)), Values: mean, Lo: lo, Hi: hi}
			if ts[0] != nil {
				l.Times, _, _ = chart.Spread(ts, chart.BandSD) // the band at its runs' mean time
			}
			lines = append(lines, l)
		}
		return lines, "" // the text below says what the lines and bands are
	}
	var vs, ts [][]float64
	for i, d := range values {
		if d != nil {
			lines = append(lines, chart.Line{Name: c.names[i], Values: d, Times: times[i]})
			vs, ts = append(vs, d), append(ts, times[i])
		}
	}
	if c.seeds && len(vs) > 1 {
		mean, lo, hi := chart.Spread(vs, v.band)
		l := chart.Line{Name: "mean", Values: mean, Lo: lo, Hi: hi}
		if ts[0] != nil {
			l.Times, _, _ = chart.Spread(ts, chart.BandSD)
		}
		lines = append(lines, l)
		seeds := map[string]bool{}
		for i, d := range values {
			if d != nil {
				seeds[c.flat[i]["--seed"]] = true
			}
		}
		switch { // a seed can repeat: another build's run, or a rerun
		case len(seeds) == len(vs):
			note = fmt.Sprintf(" (%d seeds of one configuration: mean %s)", len(vs), v.band)
		case len(seeds) == 1:
			for sd := range seeds {
				note = fmt.Sprintf(" (%d runs of one configuration, all of seed %s: mean %s)", len(vs), sd, v.band)
			}
		default:
			note = fmt.Sprintf(" (%d runs of one configuration, %d distinct seeds: mean %s)", len(vs), len(seeds), v.band)
		}
	}
	return lines, note
}

// pad returns d as n points, NaN past its end.
func pad(d []float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.NaN()
		if i < len(d) {
			out[i] = d[i]
		}
	}
	return out
}

// SetSize gives the view the screen's size, less the footer.
func (v *compareView) SetSize(w, h int) { v.w, v.h = w, h }

// Update takes the chart component's messages and scrolling.
func (v *compareView) Update(msg tea.Msg) tea.Cmd {
	switch m := msg.(type) {
	case scrollMsg:
		v.scroll = max(0, v.scroll+int(m))
	case bandMsg:
		v.band = (v.band + 1) % 2
		v.setCharts()
	case metricMsg:
		v.metric += int(m)
		v.setCharts()
	case chart.CursorMsg, chart.ZoomMsg, chart.PanMsg, chart.LogMsg, chart.SmoothMsg, chart.WallMsg:
		return v.charts.Update(m)
	}
	return nil
}

// View is the comparison from its scroll position, h lines of w cells.
func (v *compareView) View() string {
	lines := strings.Split(v.content(), "\n")
	v.scroll = min(v.scroll, max(0, len(lines)-v.h))
	return fit(scrollLines(strings.Join(lines, "\n"), v.h, v.scroll), v.w, v.h)
}

// content is the whole comparison laid out at the view's width: the
// charts share the height the text below them leaves (each at least 8
// lines; the rest scrolls).
func (v *compareView) content() string {
	c := v.c
	w := max(40, v.w)
	// wrap wraps a line at the width, its further lines indented.
	wrap := func(s string) string { return wrapSpaces(s, w-4, "    ") }
	var text []string
	if len(c.groups) > 0 {
		text = v.groupText(wrap)
	} else {
		text = v.runText(wrap)
	}
	below := strings.Join(text, "\n")
	top := 0 // the status and cursor lines
	if head := v.charts.Head(w); len(head) > 0 {
		top = lipgloss.Height(strings.Join(head, "\n"))
	}
	per := (v.h - top - lipgloss.Height(below)) / max(1, len(v.charts.Plots()))
	least := 8 // lines a chart has at least; the text below scrolls
	if len(c.groups) > 0 {
		least = 11 // a band needs rows to be seen
	}
	charts := v.charts.Render(w, max(least, per))
	return strings.Join(append(charts, below), "\n")
}

// runText is the text under a comparison of runs' charts: each run's
// result and the settings that differ; wrap wraps a line at the width.
func (v *compareView) runText(wrap func(string) string) []string {
	c := v.c
	text := []string{"results"}
	for i, id := range c.ids {
		name := id
		if c.names[i] != id {
			name = c.names[i] + " (" + id + ")"
		}
		text = append(text, wrap("  "+name+": "+c.results[i]))
	}
	keys := map[string]bool{}
	for _, f := range c.flat {
		for k := range f {
			keys[k] = true
		}
	}
	text = append(text, wrap("settings that differ ("+strings.Join(c.names, " → ")+")"))
	differ := false
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		vals := make([]string, len(c.flat))
		same, all := true, true
		for i := range c.flat {
			vals[i] = c.flat[i][k]
			same = same && vals[i] == vals[0]
			_, ok := c.flat[i][k]
			all = all && ok
		}
		if !same && all {
			text, differ = append(text, fmt.Sprintf("  %-28s %s", k, strings.Join(vals, " → "))), true
		}
	}
	if !differ {
		text = append(text, "  none")
	}
	if c.baselines && c.searches {
		text = append(text, styles.Dim.Render("  (the search's settings are left out: a baseline runs no search)"))
	}
	return text
}

// groupText is the text under a comparison of groups' charts: each
// group's figures, what it pools over and its runs.
func (v *compareView) groupText(wrap func(string) string) []string {
	c := v.c
	text := []string{wrap(fmt.Sprintf("groups by %s: each line the mean of a group's runs (their number in brackets), in a band of their %s", strings.Join(c.by, ", "), v.band.Describe()))}
	for _, g := range c.groups {
		names := make([]string, len(g.members))
		for i, m := range g.members {
			names[i] = c.names[m]
		}
		text = append(text, wrap("  "+g.name+": "+g.result), styles.Dim.Render(wrap("    runs: "+strings.Join(names, ", "))))
	}
	return text
}

// compare renders the whole comparison of runs ids at width x height
// (mono: without colour), unscrolled.
func compare(runsDir string, ids []string, width, height int, mono bool) string {
	v := newCompareView(readComparison(runsDir, ids), mono)
	v.SetSize(width, height)
	return v.content()
}

// searchFlags are the flags of the search's settings, which a baseline
// does not use.
var searchFlags = func() map[string]bool {
	m := map[string]bool{}
	for _, st := range config.Table {
		if st.Group == config.GroupSearch {
			m[st.Flag] = true
		}
	}
	return m
}()

// onSteps puts curves on the union of their checks' steps: each curve's
// figure f (validation worst-group accuracy, ...) at every step of it, its earlier
// check's value between two of its checks, NaN (no point) before its
// first check and after its last; nil for a curve without checks.
func onSteps(curves [][]train.CheckPoint, f func(train.CheckPoint) float64) (steps []int, values [][]float64) {
	at := map[int]bool{}
	for _, c := range curves {
		for _, p := range c {
			at[p.Step] = true
		}
	}
	steps = slices.Sorted(maps.Keys(at))
	values = make([][]float64, len(curves))
	for i, c := range curves {
		if len(c) == 0 {
			continue
		}
		v, j := make([]float64, len(steps)), 0
		for k, st := range steps {
			for j+1 < len(c) && c[j+1].Step <= st {
				j++
			}
			v[k] = f(c[j])
			if st < c[0].Step || st > c[len(c)-1].Step {
				v[k] = math.NaN()
			}
		}
		values[i] = v
	}
	return steps, values
}

// wrapSpaces wraps s at spaces into lines of at most w cells (wrap.Spaces).
var wrapSpaces = wrap.Spaces
