package experiments

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SpeedDir, below docs, holds the benchmark runs docs/PERFORMANCE.md's Speed
// table quotes: each run's output as the benchmark printed it, after
// header lines ("# date", "# machine", "# commit", "# go", "# build",
// "# command", "# load before", "# load after") that say where and how
// it ran. speed.csv is what they give, row by row, and the table is
// speed.csv's.
const (
	SpeedDir  = "results/speed"
	SpeedFile = "speed.csv"
)

// Speed table markers delimit the generated Speed table of docs/PERFORMANCE.md.
const (
	SpeedStart = "<!-- speed:start (generated from docs/results/speed by go test ./experiments -run TestSpeedUpToDate -update; do not edit) -->"
	SpeedEnd   = "<!-- speed:end -->"
)

// benchRun is one committed benchmark output: its header and its
// benchmarks' figures, by benchmark name (without the -N suffix) and
// unit.
type benchRun struct {
	file   string
	header map[string]string
	bench  map[string]map[string]float64
	time   map[string]float64 // /usr/bin/time's "TIME s KB" line, by unit
}

func readBenchRun(path string) (*benchRun, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &benchRun{file: filepath.Base(path), header: map[string]string{}, bench: map[string]map[string]float64{}, time: map[string]float64{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if h, ok := strings.CutPrefix(l, "# "); ok {
			for _, k := range []string{"load before", "load after", "date", "machine", "commit", "go", "build", "threads", "command"} {
				if v, ok := strings.CutPrefix(h, k+" "); ok {
					r.header[k] = v
					break
				}
			}
			continue
		}
		fs := strings.Fields(l)
		if len(fs) >= 5 && fs[0] == "TIME" {
			for i := 1; i+1 < len(fs); i += 2 {
				if v, err := strconv.ParseFloat(fs[i], 64); err == nil {
					r.time[fs[i+1]] = v
				}
			}
			continue
		}
		if len(fs) < 4 || !strings.HasPrefix(fs[0], "Benchmark") {
			continue
		}
		name := fs[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		m := map[string]float64{}
		for i := 2; i+1 < len(fs); i += 2 {
			if v, err := strconv.ParseFloat(fs[i], 64); err == nil {
				m[fs[i+1]] = v
			}
		}
		r.bench[name] = m
	}
	for _, k := range []string{"date", "machine", "commit", "build", "threads", "command"} {
		if r.header[k] == "" {
			return nil, fmt.Errorf("%s: no %q header line", path, "# "+k)
		}
	}
	return r, sc.Err()
}

// figure is a benchmark's figure: the run's, by benchmark and unit.
func (r *benchRun) figure(bench, unit string) (float64, error) {
	v, ok := r.bench[bench][unit]
	if !ok {
		return 0, fmt.Errorf("%s: no %s of %s", r.file, unit, bench)
	}
	return v, nil
}

// SpeedRow is a row of speed.csv: a figure of the Speed table, its
// target, and the run it comes from.
type SpeedRow struct {
	Figure, Value, Target, Met string
	// Machine is the CPU and its cores, Load the load average (1, 5 and
	// 15 minutes) before and after the run, Build the build tags,
	// Threads the products' thread count.
	Machine, Load, Build, Threads, Date, Commit, Go, Command string
	Source                                                   string // the raw output's file under SpeedDir
}

var speedHeader = []string{"figure", "value", "target", "met", "machine", "load", "build", "threads", "date", "commit", "go", "command", "source"}

func (s SpeedRow) cells() []string {
	return []string{s.Figure, s.Value, s.Target, s.Met, s.Machine, s.Load, s.Build, s.Threads, s.Date, s.Commit, s.Go, s.Command, s.Source}
}

// speedFigures are the Speed table's rows: each computed from one or
// two committed runs.
var speedFigures = []struct {
	figure, target string
	files          []string
	value          func(rs []*benchRun) (vals []float64, text string, err error)
	atMost         bool // the target is an upper bound
}{
	{"f32 inner step / its own SGEMM call (paired, median over steps), ColoredMNIST size", "0.95", []string{"outer-iteration.txt"},
		func(rs []*benchRun) ([]float64, string, error) {
			v, err := rs[0].figure("BenchmarkOuterIteration/f32", "inner-step/sgemm-paired")
			return []float64{v}, fmt.Sprintf("%.2f", v), err
		}, false},
	{"share of an outer iteration outside the products", "0.05", []string{"outer-iteration.txt"},
		func(rs []*benchRun) ([]float64, string, error) {
			v, err := rs[0].figure("BenchmarkOuterIteration/f32", "non-product-share")
			return []float64{v}, fmt.Sprintf("%.1f%%", 100*v), err
		}, true},
	{"g:mlp (gorgonia) / nets, time per backprop and JVP call (paired, median over rounds)", "1.5", []string{"step-paired.txt"},
		func(rs []*benchRun) ([]float64, string, error) {
			b, err1 := rs[0].figure("BenchmarkStepPaired/backprop", "gorgonia/nets-paired")
			j, err2 := rs[0].figure("BenchmarkStepPaired/jvp", "gorgonia/nets-paired")
			return []float64{b, j}, fmt.Sprintf("%.2f, %.2f", b, j), firstErr(err1, err2)
		}, true},
	{"g:mlp / nets, bytes allocated per backprop and JVP call", "2", []string{"step-bytes.txt"},
		func(rs []*benchRun) ([]float64, string, error) {
			var out []float64
			for _, pass := range []string{"backprop", "jvp"} {
				g, err1 := rs[0].figure("BenchmarkStep/"+pass+"/gorgonia", "B/op")
				n, err2 := rs[0].figure("BenchmarkStep/"+pass+"/nets", "B/op")
				if err := firstErr(err1, err2); err != nil {
					return nil, "", err
				}
				out = append(out, g/n)
			}
			return out, fmt.Sprintf("%.0f, %.0f", out[0], out[1]), nil
		}, true},
	{"g:mlp / mlp, ColoredMNIST search (3 outer iterations), time and peak memory", "1.5", []string{"search-mlp.txt", "search-gmlp.txt"},
		func(rs []*benchRun) ([]float64, string, error) {
			var out []float64
			for _, unit := range []string{"s", "KB"} {
				a, b := rs[0].time[unit], rs[1].time[unit]
				if a == 0 || b == 0 {
					return nil, "", fmt.Errorf("%s or %s: no TIME line with %s", rs[0].file, rs[1].file, unit)
				}
				out = append(out, b/a)
			}
			return out, fmt.Sprintf("%.2f, %.2f", out[0], out[1]), nil
		}, true},
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// SpeedRows computes speed.csv's rows from the committed runs under dir
// (docs/results/speed).
func SpeedRows(dir string) ([]SpeedRow, error) {
	runs := map[string]*benchRun{}
	var out []SpeedRow
	for _, f := range speedFigures {
		var rs []*benchRun
		for _, file := range f.files {
			r, ok := runs[file]
			if !ok {
				var err error
				if r, err = readBenchRun(filepath.Join(dir, file)); err != nil {
					return nil, err
				}
				runs[file] = r
			}
			rs = append(rs, r)
		}
		vals, text, err := f.value(rs)
		if err != nil {
			return nil, err
		}
		target, _ := strconv.ParseFloat(f.target, 64)
		met := "met"
		for _, v := range vals {
			if (f.atMost && v > target) || (!f.atMost && v < target) {
				met = "missed"
			}
		}
		row := SpeedRow{Figure: f.figure, Value: text, Target: f.target, Met: met, Source: strings.Join(f.files, " ")}
		var load, cmds []string
		for _, r := range rs {
			load = append(load, r.header["load before"]+" before, "+r.header["load after"]+" after")
			cmds = append(cmds, r.header["command"])
		}
		h := rs[0].header
		row.Machine, row.Build, row.Threads, row.Date, row.Commit, row.Go = h["machine"], h["build"], h["threads"], h["date"], h["commit"], h["go"]
		row.Load, row.Command = strings.Join(load, "; "), strings.Join(cmds, "; ")
		out = append(out, row)
	}
	return out, nil
}

// WriteSpeed writes speed.csv.
func WriteSpeed(w io.Writer, rows []SpeedRow) error { return writeCSV(w, speedHeader, rows) }

// SpeedTable is docs/PERFORMANCE.md's Speed table of speed.csv's rows.
func SpeedTable(t *Table) string {
	var b strings.Builder
	b.WriteString("| figure | value | target | run (machine; threads; load average before and after; date) | command |\n|---|---|---|---|---|\n")
	for _, r := range t.Rows {
		bound := ">= "
		if r["figure"] != speedFigures[0].figure {
			bound = "<= "
		}
		target := r["target"]
		if strings.HasPrefix(r["figure"], "share ") {
			f, _ := strconv.ParseFloat(target, 64)
			target = strconv.FormatFloat(100*f, 'f', -1, 64) + "%"
		}
		threads, _, _ := strings.Cut(r["threads"], " ")
		fmt.Fprintf(&b, "| %s | %s | %s%s: %s | %s; %s threads; %s; %s | `%s` (`-tags %s`) |\n", r["figure"], r["value"], bound, target, r["met"],
			r["machine"], threads, r["load"], r["date"][:10], strings.ReplaceAll(r["command"], "; ", "`, then `"), r["build"])
	}
	return b.String()
}

// SpliceSpeed returns docs/PERFORMANCE.md's text with the Speed table between its
// markers replaced.
func SpliceSpeed(text, table string) (string, error) {
	i, j := strings.Index(text, SpeedStart), strings.Index(text, SpeedEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("no Speed table markers (%s ... %s)", SpeedStart, SpeedEnd)
	}
	return text[:i+len(SpeedStart)] + "\n" + table + text[j:], nil
}
