package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
	"github.com/maple-ood/maple/tui/chart"
	"github.com/maple-ood/maple/tui/picker"
)

// groupedRuns makes five finished searches to group: maple/rex with
// seeds 1, 2 and 3 and maple/irmv1 with seeds 1 and 2, each seed's
// curves and results a little apart, rex's above irmv1's.
func groupedRuns(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	start := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		objective string
		seed      uint64
	}{{"rex", 1}, {"rex", 2}, {"rex", 3}, {"irmv1", 1}, {"irmv1", 2}} {
		cfg := testConfig()
		cfg.Settings.Objective, cfg.Settings.Seed, cfg.Eval.Seed, cfg.Started = c.objective, c.seed, c.seed, start
		r, err := runs.Open(dir).Create(cfg)
		if err != nil {
			t.Fatal(err)
		}
		up := map[string]float64{"rex": 0.08, "irmv1": 0}[c.objective] + 0.02*float64(c.seed)
		var lines []string
		for _, s := range script(40, 40) {
			s.ValWorst += up
			s.OuterRisk *= 1 + float64(c.seed)/4
			b, _ := json.Marshal(s)
			lines = append(lines, string(b))
		}
		os.WriteFile(r.Path(runs.MetricsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
		sum, _ := json.Marshal(runs.Summary{Done: true, Status: core.StatusDone, Result: &train.Result{Method: "maple", Selection: "validation",
			TestAcc: 0.7 + up, TestWorst: 0.6 + up, ValWorst: 0.65 + up, GroupNames: []string{"a", "b"}, PerGroupTest: []float64{0.7, 0.6}}})
		os.WriteFile(r.Path(runs.SummaryFile), sum, 0o644)
		r.Close()
	}
	return dir
}

// groupBy opens the picker of b, checks the settings named (moving to
// each) and groups by them, delivering the disk reads as the program
// would.
func groupBy(t *testing.T, b *Browser, keys ...string) {
	t.Helper()
	deliver := func(cmd tea.Cmd) {
		for cmd != nil {
			msg := cmd()
			if batch, ok := msg.(tea.BatchMsg); ok {
				for _, c := range batch {
					if c != nil {
						b.Update(c())
					}
				}
				return
			}
			_, cmd = b.Update(msg)
		}
	}
	_, cmd := b.Update(keyMsg("g"))
	deliver(cmd)
	if b.mode != modeGroup {
		t.Fatalf("g did not open the picker: mode %v", b.mode)
	}
	for _, k := range keys {
		i := -1
		for j, it := range b.picker.Items {
			if it.Name == k {
				i = j
			}
		}
		if i < 0 {
			t.Fatalf("the picker lacks %q", k)
		}
		b.picker.Cursor = i
		b.Update(keyMsg("space"))
	}
	_, cmd = b.Update(keyMsg("enter"))
	deliver(cmd)
}

// TestBrowserGroupBy: g groups the listed runs by the settings checked
// in the picker (those that differ among them first), a row per group
// with its count, statuses, mean ± sd of the listed figures and what it
// pools over; nothing checked lists the runs again.
func TestBrowserGroupBy(t *testing.T) {
	dir := groupedRuns(t)
	for _, c := range []struct {
		name   string
		keys   []string
		groups int
		want   []string // on the screen
	}{
		{"one setting", []string{"objective"}, 2, []string{"grouped by objective: 2 groups", "OBJECTIVE", "irmv1", "rex", "POOLED OVER",
			"3 done", "2 done", "seed"}},
		{"two settings", []string{"objective", "seed"}, 5, []string{"grouped by objective, seed: 5 groups", "SEED"}},
		{"a setting all share", []string{"model"}, 1, []string{"grouped by model: 1 groups", "linear", "5 done", "objective, seed"}},
		{"nothing", nil, 0, []string{"(5 shown of 5, 0 selected)", "maple/rex"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newBrowser(dir, 160, 30)
			groupBy(t, b, c.keys...)
			out := ansi.Strip(b.Render())
			if b.mode != modeList || len(b.runList.groups) != c.groups {
				t.Fatalf("mode %v, %d groups, want %d:\n%s", b.mode, len(b.runList.groups), c.groups, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in\n%s", w, out)
				}
			}
		})
	}
	t.Run("figures", func(t *testing.T) {
		b := newBrowser(dir, 160, 30)
		groupBy(t, b, "objective")
		// rex: test acc 0.7 + 0.08 + 0.02 seed: 80, 82, 84: 82.0 ± 2.0.
		g := b.runList.groups[1]
		if g.name != "rex" || len(g.runs) != 3 || pmPct(g.group.Figures[2], g.group.Counts[2]) != "82.0 ± 2.0%" {
			t.Errorf("rex's group: %s, %d runs, test acc %s", g.name, len(g.runs), pmPct(g.group.Figures[2], g.group.Counts[2]))
		}
	})
	t.Run("the picker lists what differs first", func(t *testing.T) {
		b := newBrowser(dir, 80, 24)
		bpress(b, keyMsg("g"))
		b.Update(readConfigs(dir, idsOf(b.runList.list))())
		if k := pickerNames(b.picker); strings.Join(k[:3], " ") != "method objective seed" {
			t.Errorf("the picker's first settings: %v", k[:3])
		}
		out := ansi.Strip(b.Render())
		if !strings.Contains(out, "2 values among the listed runs") || !strings.Contains(out, "the same for every listed run") {
			t.Errorf("picker:\n%s", out)
		}
		bpress(b, keyMsg("esc"))
		if b.mode != modeList || b.runList.grouped() {
			t.Errorf("esc: mode %v, grouped by %v", b.mode, b.runList.groupBy)
		}
	})
	t.Run("a run's keys say what to do", func(t *testing.T) {
		b := newBrowser(dir, 120, 30)
		groupBy(t, b, "objective")
		bpress(b, keyMsg("r"))
		if b.Chosen().Kind != ActionNone || !strings.Contains(b.note, "each row is a group") {
			t.Errorf("r on a group: %+v, note %q", b.Chosen(), b.note)
		}
	})
	t.Run("sort", func(t *testing.T) {
		b := newBrowser(dir, 160, 30)
		groupBy(t, b, "objective")
		for range 6 { // OBJECTIVE, N, STATUS, VAL WG, TEST WG, TEST
			bpress(b, keyMsg("s"))
		}
		if out := ansi.Strip(b.Render()); !strings.Contains(out, "TEST ▲") || b.runList.groups[0].name != "irmv1" {
			t.Errorf("sorted by TEST: first %s\n%s", b.runList.groups[0].name, out)
		}
		bpress(b, keyMsg("S"))
		if out := ansi.Strip(b.Render()); !strings.Contains(out, "TEST ▼") || b.runList.groups[0].name != "rex" {
			t.Errorf("sorted by TEST, reversed: first %s\n%s", b.runList.groups[0].name, out)
		}
		bpress(b, keyMsg("<"))
		if out := ansi.Strip(b.Render()); !strings.Contains(out, "TEST WG ▼") {
			t.Errorf("< did not sort by the column before:\n%s", out)
		}
	})
	t.Run("the filter applies before the grouping", func(t *testing.T) {
		b := newBrowser(dir, 120, 30)
		groupBy(t, b, "objective")
		for _, k := range []string{"/", "r", "e", "x", "enter"} {
			bpress(b, keyMsg(k))
		}
		if len(b.runList.groups) != 1 || b.runList.groups[0].name != "rex" {
			t.Errorf("filtered groups: %+v", b.runList.groups)
		}
	})
}

func idsOf(list []runs.Info) []string {
	var out []string
	for _, in := range list {
		out = append(out, in.ID)
	}
	return out
}

// compareGroups is a browser of groupedRuns at w x h grouped by
// objective, comparing both groups; mono: on a terminal without colour.
func compareGroups(t *testing.T, w, h int, mono bool) *Browser {
	t.Helper()
	b := newBrowser(groupedRuns(t), w, h)
	if mono {
		b.Update(tea.ColorProfileMsg{Profile: colorprofile.Ascii})
	}
	groupBy(t, b, "objective")
	bpress(b, keyMsg("space"))
	bpress(b, keyMsg("down"))
	bpress(b, keyMsg("space"))
	bpress(b, keyMsg("c"))
	if b.mode != modeCompare || b.compare == nil {
		t.Fatalf("no comparison of the groups: mode %v, note %q", b.mode, b.note)
	}
	return b
}

// TestCompareGroups: c on selected groups draws one line per group (its
// runs' mean) in a band, reads the band out at the cursor, switches it
// to min–max with b, and lists each group's figures and runs; enter on a
// group compares its runs.
func TestCompareGroups(t *testing.T) {
	b := compareGroups(t, 120, 40, false)
	flat := func(s string) string { return strings.Join(strings.Fields(ansi.Strip(s)), " ") } // wrapped lines joined
	out := flat(b.Render())
	for _, w := range []string{"groups by objective: each line the mean of a group's runs (their number in brackets), in a band of their mean ± sample sd", "━ irmv1 (2)", "━ rex (3)", "groups by objective",
		"rex: 3 runs (3 done)", "pooled over seed", "·"} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in\n%s", w, out)
		}
	}
	bpress(b, keyMsg("left"))
	// At iteration 39 (0.4 + 0.3*39/40 = 0.6925, + 0.02 a seed): rex
	// (+0.08) 0.7925, 0.8125, 0.8325: mean 0.8125, sd 0.02; irmv1 0.7125,
	// 0.7325: mean 0.7225, sd 0.0141.
	if out := flat(b.Render()); !strings.Contains(out, "rex (3) 0.8125 [0.7925–0.8325]") || !strings.Contains(out, "irmv1 (2) 0.7225 [0.7084–0.7366]") {
		t.Errorf("no read-out of the band:\n%s", out)
	}
	bpress(b, keyMsg("b"))
	if out := flat(b.Render()); !strings.Contains(out, "in a band of their least and greatest value") || !strings.Contains(out, "irmv1 (2) 0.7225 [0.7125–0.7325]") {
		t.Errorf("b did not switch to min–max:\n%s", out)
	}
	bpress(b, keyMsg("esc"))
	bpress(b, keyMsg("enter")) // the group under the cursor: rex's runs
	if out := ansi.Strip(b.Render()); b.mode != modeCompare || !strings.Contains(out, "settings that differ") || !strings.Contains(out, "--seed") {
		t.Errorf("enter on a group (mode %v):\n%s", b.mode, out)
	}
}

// TestGroupGolden: the grouped list, the picker and a grouped
// comparison (each group's line with characters of its own, its band
// in ':'), without colour, at 80x24 and 120x40.
func TestGroupGolden(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		dir := groupedRuns(t)
		b := newBrowser(dir, sz[0], sz[1])
		b.Update(tea.ColorProfileMsg{Profile: colorprofile.Ascii}) // NO_COLOR
		groupBy(t, b, "objective")
		b.runList.dir = "runs" // stable across machines
		golden(t, fmt.Sprintf("browser-grouped-%dx%d", sz[0], sz[1]), b.Render())
		b.runList.dir = dir
		bpress(b, keyMsg("g"))
		golden(t, fmt.Sprintf("group-picker-%dx%d", sz[0], sz[1]), b.Render())
		b = compareGroups(t, sz[0], sz[1], true)
		bpress(b, keyMsg("left"))
		golden(t, fmt.Sprintf("compare-groups-%dx%d", sz[0], sz[1]), b.Render())
	}
}

// TestCompareGroupsOfBaselines: groups of baselines (no search) are
// drawn as their trainings' validation checks against the step, a band
// per group, in the chart component (its cursor reads the band out).
func TestCompareGroupsOfBaselines(t *testing.T) {
	dir := fakeRuns(t)
	list, err := runs.Open(dir).List()
	if err != nil {
		t.Fatal(err)
	}
	var erm string
	for _, in := range list {
		if in.Method == "erm" {
			erm = in.ID
		}
	}
	other := "20261122-090000-01"
	if err := os.CopyFS(runs.Open(dir).RunDir(other), os.DirFS(runs.Open(dir).RunDir(erm))); err != nil {
		t.Fatal(err)
	}
	v := newCompareView(readGroupComparison(dir, []string{"method"}, []groupSel{{name: "erm", result: "2 runs", ids: []string{erm, other}}}), false)
	v.SetSize(120, 40)
	v.Update(chart.CursorMsg(-1))
	out := ansi.Strip(v.View())
	for _, w := range []string{"over the training", "training step →", "cursor training step 500", "━ erm (2) 0.5", "groups by method"} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in\n%s", w, out)
		}
	}
}

// TestSearchFigureNamed: the browser's best validation worst-group of
// the search (its inner model's) is named apart from maple table's "val
// worst-group", the final model's at its selected checkpoint: the two
// read 68.8 and 71.5 on the same runs under one name. The list, the
// grouped list and the help say "SEARCH VAL WG".
func TestSearchFigureNamed(t *testing.T) {
	dir := groupedRuns(t)
	for _, tc := range []struct {
		name string
		w    int
		keys []string // grouped by
	}{
		{"list", 160, nil},
		{"list at 100 columns", 100, nil},
		{"grouped", 160, []string{"objective"}},
		{"grouped at 80 columns", 80, []string{"objective"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBrowser(dir, tc.w, 30)
			if tc.keys != nil {
				groupBy(t, b, tc.keys...)
			}
			out := ansi.Strip(b.Render())
			if !strings.Contains(out, "SEARCH VAL WG") {
				t.Errorf("no SEARCH VAL WG header:\n%s", out)
			}
			if strings.Contains(strings.ReplaceAll(out, "SEARCH VAL WG", ""), "VAL WG") {
				t.Errorf("a bare VAL WG header:\n%s", out)
			}
		})
	}
	b := newBrowser(dir, 120, 40)
	bpress(b, keyMsg("?"))
	if help := strings.Join(strings.Fields(ansi.Strip(b.Render())), " "); !strings.Contains(help, "SEARCH VAL WG is the search's best validation worst-group accuracy") {
		t.Errorf("the help does not say what SEARCH VAL WG is:\n%s", help)
	}
}

// pickerNames are the names a picker lists, in order.
func pickerNames(p *picker.Model) []string {
	var out []string
	for _, it := range p.Items {
		out = append(out, it.Name)
	}
	return out
}
