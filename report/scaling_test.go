package report

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
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
	if !*update {
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, csv) {
			t.Fatalf("%s is not what the benchmark output gives; rewrite it with go test ./report -run TestScalingResults -update", path)
		}
		return
	}
	if err := os.WriteFile(path, csv, 0o644); err != nil {
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
