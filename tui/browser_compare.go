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
	dir, width, height, mono := b.runList.dir, b.width, b.height, b.mono
	return func() tea.Msg { return comparedMsg{compare(dir, ids, width, height, mono)} }
}

// compare renders the comparison of runs: their curves overlaid (for the
// seeds of one configuration, also their mean and a band of one sample
// standard deviation; without colour, mono, each line drawn with
// characters of its own), their results and the settings that differ.
func compare(runsDir string, ids []string, width, height int, mono bool) string {
	n := len(ids)
	series := make([][]*core.Snapshot, n)
	flat := make([]map[string]string, n)
	results := make([]string, n)
	baselines, searches := false, false     // some runs are baselines (whose search settings are left out), some searches
	curves := make([][]train.CheckPoint, n) // each run's validation checks of its final training
	hashes := map[string]bool{}
	for i, id := range ids {
		dir := runs.Dir(runsDir, id)
		series[i], _ = runs.ReadMetrics(dir)
		flat[i] = map[string]string{}
		if cfg, err := runs.ReadConfig(dir); err == nil {
			searches = searches || cfg.Method == core.MethodMaple
			for k, v := range runs.Flags(*cfg) {
				if cfg.Method != core.MethodMaple && searchFlags[k] {
					baselines = true
					continue // a baseline runs no search
				}
				flat[i]["--"+k] = v
			}
			flat[i]["--seed"] = strconv.FormatUint(cfg.Settings.Seed, 10)
			hashes[cfg.Hash(true)] = true
		}
		if sum, _ := runs.ReadSummary(dir); sum != nil && sum.Result != nil {
			r := sum.Result
			curves[i] = r.Curve
			results[i] = fmt.Sprintf("test acc %.4f · test worst-group %.4f · val worst-group %.4f (selected on validation, step %d)", r.TestAcc, r.TestWorst, r.ValWorst, r.SelectedStep)
		} else if sum != nil {
			results[i] = "no result: " + sum.Status.String()
		} else {
			results[i] = "no result yet"
		}
	}
	seeds := len(hashes) == 1 && n > 1 // the seeds of one configuration
	w := max(40, width)
	h := max(6, (height-8)/3)
	var parts []string
	drawn := false
	if !slices.ContainsFunc(series, func(s []*core.Snapshot) bool { return len(s) > 0 }) {
		// No search among them (baselines): their training curves instead
		// of the search's charts, which would wait for an iteration.
		parts, drawn = append(parts, trainingChart(ids, curves, seeds, mono, w, 2*h)), true
	}
	for _, c := range []struct {
		title string
		f     func(*core.Snapshot) float64
	}{{"val worst-group accuracy", func(s *core.Snapshot) float64 { return s.ValWorst }}, {"outer risk", func(s *core.Snapshot) float64 { return s.OuterRisk }}} {
		if drawn {
			break // the training curves are drawn
		}
		var data [][]float64
		var names []string
		for i := range ids {
			if len(series[i]) > 0 {
				data = append(data, column(series[i], c.f))
				names = append(names, ids[i])
			}
		}
		title := c.title
		if seeds && len(data) > 1 {
			mean, lo, hi := band(data)
			data, names = append(data, mean, lo, hi), append(names, "mean", "mean-sd", "mean+sd")
			title += fmt.Sprintf(" (%d seeds of one configuration: mean ± sample sd)", len(data)-3)
		}
		parts = append(parts, chart(1, title, names, data, w, h, monoChars(mono, len(data))...))
	}
	parts = append(parts, "results")
	for i, id := range ids {
		parts = append(parts, "  "+id+": "+results[i])
	}
	keys := map[string]bool{}
	for _, f := range flat {
		for k := range f {
			keys[k] = true
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	diff := []string{"settings that differ (" + strings.Join(ids, " → ") + ")"}
	for _, k := range sorted {
		vals := make([]string, n)
		same, all := true, true
		for i := range flat {
			vals[i] = flat[i][k]
			same = same && vals[i] == vals[0]
			_, ok := flat[i][k]
			all = all && ok
		}
		if !same && all {
			diff = append(diff, fmt.Sprintf("  %-28s %s", k, strings.Join(vals, " → ")))
		}
	}
	if len(diff) == 1 {
		diff = append(diff, "  none")
	}
	if baselines && searches {
		diff = append(diff, styles.Dim.Render("  (the search's settings are left out: a baseline runs no search)"))
	}
	parts = append(parts, strings.Join(diff, "\n"))
	return strings.Join(parts, "\n")
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
