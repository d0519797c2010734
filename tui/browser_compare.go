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

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
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
}

// readComparison reads runs ids of runsDir for their comparison.
func readComparison(runsDir string, ids []string) *comparison {
	n := len(ids)
	c := &comparison{ids: ids, names: slices.Clone(ids), series: make([][]*core.Snapshot, n), events: make([][]core.Event, n),
		results: make([]string, n), curves: make([][]train.CheckPoint, n), flat: make([]map[string]string, n)}
	hashes := map[string]bool{}
	for i, id := range ids {
		dir := runs.Dir(runsDir, id)
		c.series[i], _ = runs.ReadMetrics(dir)
		c.events[i], _ = runs.ReadEvents(dir)
		c.flat[i] = map[string]string{}
		if cfg, err := runs.ReadConfig(dir); err == nil {
			if cfg.Name != "" {
				c.names[i] = cfg.Name
			}
			c.searches = c.searches || cfg.Method == core.MethodMaple
			for k, v := range runs.Flags(*cfg) {
				if cfg.Method != core.MethodMaple && searchFlags[k] {
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
// deviation; without colour each line drawn with characters of its
// own), or, for baselines, their training curves; their results and the
// settings that differ. It is laid out at its size when drawn, and
// scrolls.
type compareView struct {
	c      *comparison
	charts chartView
	scroll int
	w, h   int
}

func newCompareView(c *comparison, mono bool) *compareView {
	v := &compareView{c: c, charts: newChartView(), w: 80, h: 24}
	v.charts.chars = mono
	v.setCharts()
	return v
}

// setCharts gives the chart component the runs' search curves, on the
// points 1 to the longest run's count (a shorter run has no value past
// its end), with the iterations where any run's rates changed.
func (v *compareView) setCharts() {
	c := v.c
	longest := 0
	for _, s := range c.series {
		longest = max(longest, len(s))
	}
	xs := make([]int, longest)
	for i := range xs {
		xs[i] = i + 1
	}
	pad := func(d []float64) []float64 {
		out := make([]float64, longest)
		for i := range out {
			out[i] = math.NaN()
			if i < len(d) {
				out[i] = d[i]
			}
		}
		return out
	}
	var marks []int
	for i, s := range c.series {
		changed := make([]bool, len(s))
		iters := make([]int, len(s))
		for j := range s {
			iters[j] = j + 1
			changed[j] = j > 0 && s[j].LR != s[j-1].LR
		}
		var set []int
		for _, e := range c.events[i] {
			if e.Kind == core.EventSetLR {
				// The event's iteration, as a point of this run's series.
				if k := slices.IndexFunc(s, func(x *core.Snapshot) bool { return x.Iter == e.Iter }); k >= 0 {
					set = append(set, k+1)
				}
			}
		}
		marks = append(marks, rateMarks(iters, changed, set)...)
	}
	slices.Sort(marks)
	marks = slices.Compact(marks)
	var plots []chartPlot
	for _, f := range []struct {
		title string
		f     func(*core.Snapshot) float64
		risk  bool
	}{{"val worst-group accuracy", func(s *core.Snapshot) float64 { return s.ValWorst }, false}, {"outer risk", func(s *core.Snapshot) float64 { return s.OuterRisk }, true}} {
		var raw, times [][]float64
		p := chartPlot{title: f.title, risk: f.risk}
		for i := range c.ids {
			if len(c.series[i]) > 0 {
				d := column(c.series[i], f.f)
				ts := column(c.series[i], func(s *core.Snapshot) float64 { return s.Elapsed })
				raw, times = append(raw, d), append(times, ts)
				p.lines = append(p.lines, chartLine{name: c.names[i], values: pad(d), times: pad(ts)})
			}
		}
		if c.seeds && len(raw) > 1 {
			mean, lo, hi := band(raw)
			ts, _, _ := band(times) // the band at the runs' mean time
			ts = pad(ts)
			p.lines = append(p.lines, chartLine{"mean", pad(mean), ts}, chartLine{"mean-sd", pad(lo), ts}, chartLine{"mean+sd", pad(hi), ts})
			p.title += fmt.Sprintf(" (%d seeds of one configuration: mean ± sample sd)", len(raw))
		}
		plots = append(plots, p)
	}
	v.charts.setData(xs, nil, plots, marks)
}

// SetSize gives the view the screen's size, less the footer.
func (v *compareView) SetSize(w, h int) { v.w, v.h = w, h }

// Update takes the chart component's messages and scrolling.
func (v *compareView) Update(msg tea.Msg) tea.Cmd {
	switch m := msg.(type) {
	case scrollMsg:
		v.scroll = max(0, v.scroll+int(m))
	case cursorMsg, zoomMsg, panMsg, logMsg, smoothMsg, wallMsg:
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
	wrap := func(s string) string {
		lines := strings.Split(lipgloss.NewStyle().Width(w-4).Render(s), "\n")
		for i := 1; i < len(lines); i++ {
			lines[i] = "    " + lines[i]
		}
		return strings.Join(lines, "\n")
	}
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
	below := strings.Join(text, "\n")
	var charts []string
	if !slices.ContainsFunc(c.series, func(s []*core.Snapshot) bool { return len(s) > 0 }) {
		// No search among them (baselines): their training curves instead
		// of the search's charts, which would wait for an iteration.
		charts = []string{trainingChart(c.names, c.curves, c.seeds, v.charts.chars, w, max(8, v.h-lipgloss.Height(below)))}
	} else {
		top := 0 // the status and cursor lines
		if head := v.charts.head(w); len(head) > 0 {
			top = lipgloss.Height(strings.Join(head, "\n"))
		}
		charts = v.charts.render(w, max(8, (v.h-top-lipgloss.Height(below))/2))
	}
	return strings.Join(append(charts, below), "\n")
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
	for _, st := range runs.SettingsTable {
		if st.Group == runs.GroupSearch {
			m[st.Flag] = true
		}
	}
	return m
}()

// trainingChart draws the runs' validation worst-group accuracy at each
// validation check of their training (a baseline's, a search's final
// weighted ERM) against the step, on the union of their checks' steps (a
// run between two of its checks holds the earlier's value, and has no
// point before its first or after its last); for the seeds of one
// configuration also their mean and band.
func trainingChart(ids []string, curves [][]train.CheckPoint, seeds, mono bool, w, h int) string {
	title := "val worst-group accuracy over the training (validation checks)"
	steps, values := onSteps(curves)
	var data [][]float64
	var names []string
	for i, v := range values {
		if v != nil {
			data, names = append(data, v), append(names, ids[i])
		}
	}
	if len(data) == 0 || len(steps) < 2 {
		return title + "\n" + styles.Dim.Render("no training curve yet: none of these runs has finished")
	}
	if seeds && len(data) > 1 {
		mean, lo, hi := band(data)
		data, names = append(data, mean, lo, hi), append(names, "mean", "mean-sd", "mean+sd")
		title += fmt.Sprintf(" (%d seeds of one configuration: mean ± sample sd)", len(data)-3)
	}
	last := len(steps) - 1
	step := func(v float64) string { return strconv.Itoa(steps[min(last, max(0, int(math.Round(v))))]) }
	return plotLines(title, names, data, w, h, 0, float64(last), wholeTicks(last), step, "training step →", monoChars(mono, len(data))...)
}

// onSteps puts curves on the union of their checks' steps: each curve's
// validation worst-group accuracy at every step of it, its earlier
// check's value between two of its checks, NaN (no point) before its
// first check and after its last; nil for a curve without checks.
func onSteps(curves [][]train.CheckPoint) (steps []int, values [][]float64) {
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
			v[k] = c[j].ValWorst
			if st < c[0].Step || st > c[len(c)-1].Step {
				v[k] = math.NaN()
			}
		}
		values[i] = v
	}
	return steps, values
}

// band returns, per index over the shortest series, the mean of the
// series and the mean minus and plus their sample standard deviation.
func band(data [][]float64) (mean, lo, hi []float64) {
	m := len(data[0])
	for _, d := range data {
		m = min(m, len(d))
	}
	for t := 0; t < m; t++ {
		var s, ss float64
		for _, d := range data {
			s += d[t]
		}
		mu := s / float64(len(data))
		for _, d := range data {
			ss += (d[t] - mu) * (d[t] - mu)
		}
		sd := math.Sqrt(ss / float64(len(data)-1))
		mean, lo, hi = append(mean, mu), append(lo, mu-sd), append(hi, mu+sd)
	}
	return mean, lo, hi
}
