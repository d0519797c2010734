package tui

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	tea "charm.land/bubbletea/v2"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

// readCSV reads a committed CSV of docs/results as rows by column name.
func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = rec[i]
		}
		out = append(out, m)
	}
	return out
}

// committedRuns makes run directories of the committed synthetic
// experiment's runs of sweep "synthetic" by erm, maple/irmv1 and
// maple/rex (3 seeds each): each with its committed run id, its results
// from runs.csv and, for a search, its iterations from iterations.csv
// (outer risk and the search's validation worst-group accuracy, all the
// grouped list and a comparison of groups read).
func committedRuns(t *testing.T) string {
	t.Helper()
	results := filepath.Join("..", "docs", "results", "synthetic")
	its := map[string][]map[string]string{}
	for _, it := range readCSV(t, filepath.Join(results, "iterations.csv")) {
		its[it["run_id"]] = append(its[it["run_id"]], it)
	}
	pct := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%q is no number", s)
		}
		return v / 100
	}
	dir := t.TempDir()
	n := 0
	for _, row := range readCSV(t, filepath.Join(results, "runs.csv")) {
		method := row["method"]
		if row["sweep"] != "synthetic" || (method != "erm" && method != "maple/irmv1" && method != "maple/rex") {
			continue
		}
		n++
		cfg := testConfig()
		seed, _ := strconv.ParseUint(row["seed"], 10, 64)
		started, err := time.Parse("20060102-150405", row["run_id"][:15])
		if err != nil {
			t.Fatal(err)
		}
		cfg.Method, cfg.Settings.Seed, cfg.Eval.Seed, cfg.Started, cfg.Sweep = "maple", seed, seed, started, "synthetic"
		cfg.Settings.OuterIters = len(its[row["run_id"]])
		if obj, ok := strings.CutPrefix(method, "maple/"); ok {
			cfg.Settings.Objective = obj
		} else {
			cfg.Method = method
		}
		r, err := runs.Open(dir).Create(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if r.Config.ID != row["run_id"] {
			t.Fatalf("run %s made as %s", row["run_id"], r.Config.ID)
		}
		var lines []string
		for _, it := range its[row["run_id"]] {
			iter, _ := strconv.Atoi(it["iter"])
			risk, _ := strconv.ParseFloat(it["outer_risk"], 64)
			b, _ := json.Marshal(&core.Snapshot{Iter: iter, Total: cfg.Settings.OuterIters, OuterRisk: risk, ValWorst: pct(it["search_val_worst"]), Status: core.StatusRunning})
			lines = append(lines, string(b))
		}
		if len(lines) > 0 {
			os.WriteFile(r.Path(runs.MetricsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
		}
		sum, _ := json.Marshal(runs.Summary{Done: true, Status: core.StatusDone, Result: &train.Result{Method: cfg.Method, Selection: "validation",
			TestAcc: pct(row["test_acc"]), TestWorst: pct(row["test_worst"]), ValWorst: pct(row["val_worst"])}})
		os.WriteFile(r.Path(runs.SummaryFile), sum, 0o644)
		r.Close()
	}
	if n != 9 {
		t.Fatalf("%d committed runs of erm, maple/irmv1 and maple/rex in sweep synthetic, want 9", n)
	}
	return dir
}

// captureMark precedes a page's fenced block that a capture rewrites.
func captureMark(name string) string {
	return "<!-- capture " + name + " (generated from docs/results/synthetic by go test ./tui -run TestCaptures -update; do not edit) -->"
}

// spliceCapture returns text with the fenced block after the line mark
// holding body.
func spliceCapture(text, mark, body string) (string, error) {
	i := strings.Index(text, mark)
	if i < 0 {
		return "", fmt.Errorf("no line %q", mark)
	}
	open := strings.Index(text[i:], "```\n")
	if open < 0 {
		return "", fmt.Errorf("no fenced block after %q", mark)
	}
	start := i + open + len("```\n")
	end := strings.Index(text[start:], "```\n")
	if end < 0 {
		return "", fmt.Errorf("the fenced block after %q does not end", mark)
	}
	return text[:start] + body + text[start+end:], nil
}

// trimScreen strips a rendered screen of styles and trailing blanks.
func trimScreen(s string) []string {
	lines := strings.Split(ansi.Strip(s), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// TestCapturesOfCommittedRuns renders the runs browser's captures in
// README.md and docs/USAGE.md from the committed synthetic experiment
// (its runs grouped by method, then maple/irmv1's and maple/rex's groups
// compared with the cursor two iterations back; without colour) and
// fails when a page's capture differs: a figure on a captured screen is
// the CSVs'. -update rewrites the captures.
func TestCapturesOfCommittedRuns(t *testing.T) {
	dir := committedRuns(t)
	screens := map[string][]string{}
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		b := newBrowser(dir, sz[0], sz[1])
		b.Update(tea.ColorProfileMsg{Profile: colorprofile.Ascii}) // NO_COLOR
		groupBy(t, b, "method")
		b.runList.dir = "~/.local/share/maple/runs" // stable across machines
		screens[fmt.Sprintf("grouped-%dx%d", sz[0], sz[1])] = trimScreen(b.Render())
		b.runList.dir = dir
		bpress(b, keyMsg("down"))
		bpress(b, keyMsg("space"))
		bpress(b, keyMsg("down"))
		bpress(b, keyMsg("space"))
		bpress(b, keyMsg("c"))
		if b.mode != modeCompare {
			t.Fatalf("no comparison of maple/irmv1's and maple/rex's groups: mode %v, note %q", b.mode, b.note)
		}
		bpress(b, keyMsg("left"))
		bpress(b, keyMsg("left"))
		screens[fmt.Sprintf("compare-%dx%d", sz[0], sz[1])] = trimScreen(b.Render())
	}
	// The README's: the grouped list's rows at 80x24, then the first
	// chart of the comparison at 120x40.
	grouped := screens["grouped-80x24"]
	from, to := -1, -1
	for i, l := range grouped {
		if strings.HasPrefix(l, "grouped by method") {
			from = i
		}
		if strings.HasPrefix(l, " maple/rex") {
			to = i
		}
	}
	cmp := screens["compare-120x40"]
	chartEnd := -1
	for i, l := range cmp {
		if strings.Contains(l, "outer iteration →") {
			chartEnd = i
			break
		}
	}
	if from < 0 || to < from || chartEnd < 0 {
		t.Fatalf("the screens lack the grouped rows or the chart:\n%s\n\n%s", strings.Join(grouped, "\n"), strings.Join(cmp, "\n"))
	}
	readme := strings.Join(grouped[from:to+1], "\n") + "\n\n" + strings.Join(cmp[:chartEnd+1], "\n") + "\n"
	usageGrouped := screens["grouped-120x40"]
	for i, l := range usageGrouped {
		if strings.HasPrefix(l, " maple/rex") {
			usageGrouped = usageGrouped[:i+1]
			break
		}
	}
	checkPages(t, []pageCaptures{
		{page: "README.md", captures: map[string]string{"grouped-compare-synthetic": readme}, mark: captureMark},
		{page: "docs/USAGE.md", captures: map[string]string{
			"grouped-synthetic-120x40": strings.Join(usageGrouped, "\n") + "\n",
			"compare-synthetic-120x40": strings.Join(screens["compare-120x40"], "\n") + "\n"}, mark: captureMark},
	}, "what the committed synthetic runs give (go test ./tui -run TestCaptures -update rewrites it)")
}

// checkPages writes each page's captures in (with -update, to the page)
// and fails on a page whose captures differ from them; from says what
// they come from and how to rewrite them.
func checkPages(t *testing.T, pages []pageCaptures, from string) {
	t.Helper()
	for _, pg := range pages {
		path := filepath.Join("..", pg.page)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text, err := pg.write(string(b))
		if err != nil {
			t.Fatal(err)
		}
		if text == string(b) {
			continue
		}
		if updating() {
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s: a capture differs from %s", pg.page, from)
	}
}
