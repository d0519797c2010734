package report

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// scalingDir holds BenchmarkOuterScaling's output as run (one file per
// machine condition: idle.txt, loaded.txt) and what this file makes of
// it: scaling.csv and the log-log figure scaling.png.
const scalingDir = "../docs/results/scaling"

// scalingRow is one embeddings cell of BenchmarkOuterScaling.
type scalingRow struct {
	cond, head              string
	n, d                    int
	iterS, per1k, rss, data float64
}

// readScaling parses the embeddings cells (n=N/d=D/head=H) of benchmark
// output files.
func readScaling(t *testing.T) []scalingRow {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(scalingDir, "*.txt"))
	if len(files) == 0 {
		t.Fatalf("no benchmark output in %s", scalingDir)
	}
	var rows []scalingRow
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cond := strings.TrimSuffix(filepath.Base(f), ".txt")
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 4 || !strings.HasPrefix(fields[0], "BenchmarkOuterScaling/n=") || !strings.Contains(fields[0], "/d=") {
				continue
			}
			r := scalingRow{cond: cond}
			name := strings.TrimPrefix(fields[0], "BenchmarkOuterScaling/")
			name = name[:strings.LastIndex(name, "-")] // the GOMAXPROCS suffix
			if _, err := fmt.Sscanf(strings.ReplaceAll(name, "/", " "), "n=%d d=%d head=%s", &r.n, &r.d, &r.head); err != nil {
				t.Fatalf("%s: %q: %v", f, fields[0], err)
			}
			for i := 2; i+1 < len(fields); i += 2 {
				v, err := strconv.ParseFloat(fields[i], 64)
				if err != nil {
					continue
				}
				switch fields[i+1] {
				case "outer-iter-s":
					r.iterS = v
				case "per-1k-samples-s":
					r.per1k = v
				case "peak-rss-MiB":
					r.rss = v
				case "data-MiB":
					r.data = v
				}
			}
			rows = append(rows, r)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.cond != b.cond {
			return a.cond < b.cond
		}
		if a.head != b.head {
			return a.head < b.head
		}
		if a.d != b.d {
			return a.d < b.d
		}
		return a.n < b.n
	})
	return rows
}

func scalingCSV(rows []scalingRow) []byte {
	var b bytes.Buffer
	b.WriteString("condition,head,d,n,outer_iter_s,per_1k_samples_s,peak_rss_mib,data_mib,peak_rss_over_data\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%s,%s,%d,%d,%.4g,%.4g,%.0f,%.0f,%.3f\n", r.cond, r.head, r.d, r.n, r.iterS, r.per1k, r.rss, r.data, r.rss/r.data)
	}
	return b.Bytes()
}

// TestScalingResults checks that docs/results/scaling/scaling.csv is
// what the committed benchmark output gives; with -update it rewrites it
// and draws scaling.png: seconds per outer iteration per 1000 samples
// against n, log-log, a line per head, dimension and condition.
func TestScalingResults(t *testing.T) {
	rows := readScaling(t)
	csv := scalingCSV(rows)
	path := filepath.Join(scalingDir, "scaling.csv")
	page, err := os.ReadFile(performancePage)
	if err != nil {
		t.Fatal(err)
	}
	spliced, err := spliceScaling(string(page), scalingTable(rows))
	if err != nil {
		t.Fatal(err)
	}
	if !*update {
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, csv) {
			t.Fatalf("%s is not what the benchmark output gives; rewrite it with go test ./report -run TestScalingResults -update", path)
		}
		if spliced != string(page) {
			t.Fatalf("%s: the scaling tables are not what %s gives; rewrite them with go test ./report -run TestScalingResults -update", performancePage, path)
		}
		return
	}
	if err := os.WriteFile(path, csv, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(performancePage, []byte(spliced), 0o644); err != nil {
		t.Fatal(err)
	}
	p := plot.New()
	p.Title.Text = "MAPLE outer iteration, cost per sample"
	p.X.Label.Text = "training samples n"
	p.Y.Label.Text = "seconds per outer iteration per 1000 samples"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{}, plot.LogTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	lines := map[string]plotter.XYs{}
	var keys []string
	for _, r := range rows {
		k := fmt.Sprintf("%s, d=%d (%s)", r.head, r.d, r.cond)
		if _, ok := lines[k]; !ok {
			keys = append(keys, k)
		}
		lines[k] = append(lines[k], plotter.XY{X: float64(r.n), Y: r.per1k})
	}
	for i, k := range keys {
		l, s, err := plotter.NewLinePoints(lines[k])
		if err != nil {
			t.Fatal(err)
		}
		l.Color, s.Color = palette[i%len(palette)], palette[i%len(palette)]
		p.Add(l, s)
		p.Legend.Add(k, l, s)
	}
	if err := p.Save(7*vg.Inch, 5*vg.Inch, filepath.Join(scalingDir, "scaling.png")); err != nil {
		t.Fatal(err)
	}
}

// performancePage holds the scaling tables, between scalingStart and
// scalingEnd, written from scaling.csv by TestScalingResults -update.
const (
	performancePage = "../docs/PERFORMANCE.md"
	scalingStart    = "<!-- scaling:start (go test ./report -run TestScalingResults -update) -->"
	scalingEnd      = "<!-- scaling:end -->"
)

// scalingTable renders the cells, idle beside loaded, and the ratio of
// the per-sample cost at the largest n to that at the smallest, per
// head, dimension and condition.
func scalingTable(rows []scalingRow) string {
	type key struct {
		head string
		d, n int
	}
	by := map[key]map[string]scalingRow{}
	var keys []key
	var conds []string
	for _, r := range rows {
		k := key{r.head, r.d, r.n}
		if by[k] == nil {
			by[k] = map[string]scalingRow{}
			keys = append(keys, k)
		}
		by[k][r.cond] = r
		if !slices.Contains(conds, r.cond) {
			conds = append(conds, r.cond)
		}
	}
	sort.Strings(conds)
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.head != b.head {
			return a.head < b.head
		}
		if a.d != b.d {
			return a.d < b.d
		}
		return a.n < b.n
	})
	cell := func(r scalingRow, ok bool, f string, v func(scalingRow) float64) string {
		if !ok {
			return "-"
		}
		return fmt.Sprintf(f, v(r))
	}
	var b strings.Builder
	b.WriteString("| head | d | n |")
	for _, c := range conds {
		fmt.Fprintf(&b, " s per iteration, %s | per 1000 samples, %s |", c, c)
	}
	b.WriteString(" peak RSS MiB | data MiB | RSS / data |\n|---|---|---|")
	b.WriteString(strings.Repeat("---|---|", len(conds)))
	b.WriteString("---|---|---|\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "| %s | %d | %s |", k.head, k.d, thousands(k.n))
		var mem scalingRow
		for _, c := range conds {
			r, ok := by[k][c]
			if ok && (mem.rss == 0 || r.rss > mem.rss) {
				mem = r
			}
			fmt.Fprintf(&b, " %s | %s |", cell(r, ok, "%.3g", func(r scalingRow) float64 { return r.iterS }), cell(r, ok, "%.3g", func(r scalingRow) float64 { return r.per1k }))
		}
		fmt.Fprintf(&b, " %.0f | %.0f | %.2f |\n", mem.rss, mem.data, mem.rss/mem.data)
	}
	b.WriteString("\nThe per-sample cost at the largest n measured, over that at 20,000 (the target is at most 1.3):\n\n| head | d |")
	for _, c := range conds {
		fmt.Fprintf(&b, " %s |", c)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(conds)) + "\n")
	type hd struct {
		head string
		d    int
	}
	var seen []hd
	for _, k := range keys {
		h := hd{k.head, k.d}
		if slices.Contains(seen, h) {
			continue
		}
		seen = append(seen, h)
		fmt.Fprintf(&b, "| %s | %d |", h.head, h.d)
		for _, c := range conds {
			var lo, hi scalingRow
			for _, r := range rows {
				if r.cond != c || r.head != h.head || r.d != h.d {
					continue
				}
				if lo.n == 0 || r.n < lo.n {
					lo = r
				}
				if r.n > hi.n {
					hi = r
				}
			}
			if lo.n == 0 || hi.n == lo.n {
				b.WriteString(" - |")
				continue
			}
			fmt.Fprintf(&b, " %.2f (%s over %s) |", hi.per1k/lo.per1k, thousands(hi.n), thousands(lo.n))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// thousands writes n with commas: 1,000,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// spliceScaling puts table between the scaling markers of text.
func spliceScaling(text, table string) (string, error) {
	i, j := strings.Index(text, scalingStart), strings.Index(text, scalingEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("%s: want the markers %q and %q around the scaling tables", performancePage, scalingStart, scalingEnd)
	}
	return text[:i+len(scalingStart)] + "\n" + table + text[j:], nil
}
