package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"gonum.org/v1/plot"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

func TestMeanSD(t *testing.T) {
	s := meanSD([]float64{70, 74, 78})
	if s.Mean != 74 || math.Abs(s.SD-4) > 1e-12 { // sample sd: sqrt((16+0+16)/2) = 4
		t.Errorf("%+v", s)
	}
	one := meanSD([]float64{50})
	if one.Mean != 50 || !one.Single {
		t.Errorf("one seed: %+v", one)
	}
	var b strings.Builder
	WriteTable(&b, []Row{{Dataset: "d", Model: "linear", Method: "m", N: 3, TestAcc: MeanSD{Mean: 74, SD: 4}}}, "markdown")
	if !strings.Contains(b.String(), "| d | all | linear | m | 3 | 74.0 ± 4.0 |") {
		t.Errorf("markdown:\n%s", b.String())
	}
	// One seed has no standard deviation: no "± 0.0", an empty CSV cell,
	// a JSON null, and the JSON reads back.
	single := []Row{{Dataset: "d", Model: "linear", Method: "m", N: 1, TestAcc: one, TestWorst: one, ValWorst: one}}
	b.Reset()
	WriteTable(&b, single, "markdown")
	if !strings.Contains(b.String(), "| 1 | 50.0 | 50.0 | 50.0 |") || strings.Contains(b.String(), "± 0.0") {
		t.Errorf("markdown, one seed:\n%s", b.String())
	}
	b.Reset()
	WriteTable(&b, single, "csv")
	if !strings.Contains(b.String(), ",1,50.0000,,50.0000,,50.0000,,") {
		t.Errorf("csv, one seed:\n%s", b.String())
	}
	js, err := json.Marshal(one)
	if err != nil || string(js) != `{"mean":50,"sd":null}` {
		t.Errorf("json, one seed: %s %v", js, err)
	}
	var back MeanSD
	if err := json.Unmarshal(js, &back); err != nil || back != one {
		t.Errorf("json round trip: %+v %v", back, err)
	}
	if err := WriteTable(&b, nil, "xls"); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestPlot(t *testing.T) {
	r, err := runs.Open(t.TempDir()).Create(runs.Config{Method: "maple"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := Plot(r.Dir, t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "nothing to plot yet") {
		t.Errorf("plot of an empty run: %v", err)
	}
	var lines []string
	for i := 1; i <= 5; i++ {
		s := core.Snapshot{Iter: i, Total: 5, OuterRisk: 1 / float64(i), ValWorst: 0.5, TestWorst: 0.4,
			GroupNames: []string{"a", "b"}, GroupFrac: []float64{0.6, 0.4}, Hist: [][]int{{3, 1}, {0, 2}}, HistEdges: []float64{0, 1, 2}}
		b, _ := json.Marshal(s)
		lines = append(lines, string(b))
	}
	os.WriteFile(r.Path(runs.MetricsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	out := t.TempDir()
	files, err := Plot(r.Dir, out, nil)
	if err != nil || len(files) != 8 {
		t.Fatalf("%v %v", files, err)
	}
	// With --eval-each-iter the evaluation model's curves come as a fifth
	// figure, the reference protocol's oracle line among them.
	lines = lines[:0]
	for i := 1; i <= 4; i++ {
		s := core.Snapshot{Iter: i, Total: 4, OuterRisk: 1, GroupNames: []string{"a"}, GroupFrac: []float64{1}, Hist: [][]int{{1}}, HistEdges: []float64{0, 1},
			IterEval: &core.IterEval{ValWorst: 0.1 * float64(i), TestAcc: 0.2, Reference: &train.ReferenceFigure{TestAcc: 0.3}}}
		b, _ := json.Marshal(s)
		lines = append(lines, string(b))
	}
	os.WriteFile(r.Path(runs.MetricsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	evalOut := t.TempDir()
	if files, err := Plot(r.Dir, evalOut, nil); err != nil || len(files) != 10 {
		t.Fatalf("with per-iterate evaluation: %v %v", files, err)
	}
	if b, err := os.ReadFile(filepath.Join(evalOut, "evaluation.svg")); err != nil || !bytes.Contains(b, []byte("oracle")) {
		t.Errorf("evaluation figure: %v, names the oracle line: %v", err, bytes.Contains(b, []byte("oracle")))
	}
	if ss := evalCurves([]*core.Snapshot{{Iter: 1}}); ss != nil {
		t.Errorf("curves without per-iterate evaluation: %v", ss)
	}
	ss := evalCurves([]*core.Snapshot{{Iter: 2, IterEval: &core.IterEval{ValWorst: 0.4, TestAcc: 0.6}}})
	if len(ss) != 2 || ss[0].xy[0] != (plotter.XY{X: 2, Y: 0.4}) || ss[1].xy[0].Y != 0.6 {
		t.Errorf("curves %+v", ss)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || len(b) < 500 {
			t.Errorf("%s: %d bytes %v", f, len(b), err)
		}
		if strings.HasSuffix(f, ".png") && !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s is not a PNG", f)
		}
		if strings.HasSuffix(f, ".svg") && !bytes.Contains(b, []byte("<svg")) {
			t.Errorf("%s is not an SVG", f)
		}
	}
}

// TestPlotTraining: a baseline's figure is its training's validation
// checks with the selected step marked; a search's final weighted ERM
// comes as a figure beside the search's.
func TestPlotTraining(t *testing.T) {
	var curve []train.CheckPoint
	for step := 10; step <= 100; step += 10 {
		curve = append(curve, train.CheckPoint{Step: step, ValAcc: 0.6, ValWorst: 0.5 - math.Abs(float64(step-40))/200, TestAcc: 0.55, TestWorst: 0.3})
	}
	res := &train.Result{SelectedStep: 40, Curve: curve}
	base, err := runs.Open(t.TempDir()).Create(runs.Config{Method: "lff"})
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	if err := base.WriteSummary(&runs.Summary{Done: true, Status: core.StatusDone, Result: res}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	files, err := Plot(base.Dir, out, nil)
	if err != nil || len(files) != 2 {
		t.Fatalf("baseline: %v %v", files, err)
	}
	svg, _ := os.ReadFile(filepath.Join(out, "training.svg"))
	for _, want := range []string{"training, ", "lff on", "training step", "selected step 40 (validation)", "test worst-group (not used for selection)", ">100<"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("training.svg does not show %q", want)
		}
	}
	search, err := runs.Open(t.TempDir()).Create(runs.Config{Method: "maple"})
	if err != nil {
		t.Fatal(err)
	}
	defer search.Close()
	s := core.Snapshot{Iter: 1, Total: 1, GroupNames: []string{"a"}, GroupFrac: []float64{1}, Hist: [][]int{{1}}, HistEdges: []float64{0, 1}}
	b, _ := json.Marshal(s)
	os.WriteFile(search.Path(runs.MetricsFile), append(b, '\n'), 0o644)
	if err := search.WriteSummary(&runs.Summary{Done: true, Status: core.StatusDone, Result: res}); err != nil {
		t.Fatal(err)
	}
	out = t.TempDir()
	if files, err := Plot(search.Dir, out, nil); err != nil || len(files) != 10 {
		t.Fatalf("search: %v %v", files, err)
	}
	if svg, _ := os.ReadFile(filepath.Join(out, "training.svg")); !bytes.Contains(svg, []byte("final weighted ERM, ")) {
		t.Error("a search's training figure is not titled as its final weighted ERM")
	}
}

func TestPlotSweep(t *testing.T) {
	dir := t.TempDir()
	for i, m := range []string{"mlp:8,8", "mlp:16", "linear"} {
		cfg := runs.Config{Method: "erm", Sweep: "w", Dataset: loaders.DefaultSpec("synthetic")}
		cfg.Eval.Model = m
		r, err := runs.Open(dir).Create(cfg)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(runs.Summary{Done: true, Status: core.StatusDone, Result: &train.Result{TestAcc: 0.5 + 0.1*float64(i)}})
		os.WriteFile(r.Path(runs.SummaryFile), b, 0o644)
		r.Close()
	}
	if w := models.Width("mlp:8,8"); w != 8 {
		t.Errorf("models.Width %d", w)
	}
	// A second sweep with erm at one width only.
	cfg := runs.Config{Method: "erm", Sweep: "one", Dataset: loaders.DefaultSpec("synthetic")}
	cfg.Eval.Model, cfg.Settings.Seed = "mlp:8,8", 2
	r, err := runs.Open(dir).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(runs.Summary{Done: true, Status: core.StatusDone, Result: &train.Result{TestAcc: 0.9}})
	os.WriteFile(r.Path(runs.SummaryFile), b, 0o644)
	r.Close()
	for _, tc := range []struct {
		name  string
		names []string
		want  string // the figures, by file name
	}{
		{"widths (a searched setting)", []string{"w"}, "methods.png methods.svg width.png width.svg searched.png searched.svg"},
		{"one width: no width figure", []string{"one"}, "methods.png methods.svg"},
		{"a grid over two sweeps", []string{"w", "one"}, "methods.png methods.svg width.png width.svg searched.png searched.svg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, err := PlotSweep(dir, t.TempDir(), tc.names...)
			var got []string
			for _, f := range files {
				if st, err := os.Stat(f); err != nil || st.Size() == 0 {
					t.Errorf("%s: %v", f, err)
				}
				got = append(got, filepath.Base(f))
			}
			if err != nil || strings.Join(got, " ") != tc.want {
				t.Errorf("files %v, %v; want %s", got, err, tc.want)
			}
		})
	}
	if _, err := PlotSweep(dir, t.TempDir(), "nope"); err == nil {
		t.Error("a sweep without runs plotted")
	}
}

func TestTableKeepsVariantsApart(t *testing.T) {
	dir := t.TempDir()
	cells := []struct {
		method, search, eval string
		keep                 float64
		acc                  float64
	}{
		{"maple", "mlp:8", "mlp:8", 0.3, 0.60}, // the default keep fraction
		{"maple", "mlp:8", "mlp:8", 0.3, 0.70}, // pools with the first: mean 65
		{"maple", "mlp:4", "mlp:8", 0.3, 0.50}, // transfer
		{"maple", "mlp:8", "mlp:8", 1, 0.40},
		{"erm", "mlp:4", "mlp:8", 0.3, 0.20}, // a baseline's search model is irrelevant
	}
	for i, c := range cells {
		cfg := runs.Config{Method: c.method, Sweep: "v", Dataset: loaders.DefaultSpec("synthetic"), Settings: core.DefaultSettings()}
		cfg.Settings.Model, cfg.Settings.Keep, cfg.Settings.Seed = c.search, c.keep, uint64(i+1)
		cfg.Settings.Objective = "rex"
		cfg.Eval.Model = c.eval
		r, err := runs.Open(dir).Create(cfg)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(runs.Summary{Done: true, Status: core.StatusDone, Result: &train.Result{TestAcc: c.acc}})
		os.WriteFile(r.Path(runs.SummaryFile), b, 0o644)
		r.Close()
	}
	rows, err := Table(dir, "v")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, r := range rows {
		got[r.Method] = r.TestAcc.Mean
	}
	want := map[string]float64{"maple/rex": 65, "maple/rex search mlp:4": 50, "maple/rex keep 1": 40, "erm": 20}
	if len(got) != len(want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	for m, v := range want {
		if math.Abs(got[m]-v) > 1e-9 {
			t.Errorf("%s: %v, want %v (rows %v)", m, got[m], v, got)
		}
	}
}

// TestTableNeverPoolsUnlikeRuns: searches of 100, 60 and 20 outer
// iterations are three rows named by the setting that differs, and a
// repeat of a seed is not counted as another seed.
func TestTableNeverPoolsUnlikeRuns(t *testing.T) {
	dir := t.TempDir()
	for i, c := range []struct {
		iters int
		seed  uint64
		acc   float64
	}{{100, 1, 0.70}, {60, 1, 0.60}, {20, 1, 0.50}, {20, 2, 0.40}, {20, 2, 0.40}, {100, 1, 0.70}} {
		cfg := runs.DefaultConfig("synthetic")
		cfg.Settings.OuterIters, cfg.Settings.Seed, cfg.Eval.Seed = c.iters, c.seed, c.seed
		cfg.Started = time.Date(2026, 11, 22, 8, 0, i, 0, time.UTC)
		r, err := runs.Open(dir).Create(cfg)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(runs.Summary{Done: true, Status: core.StatusDone, Result: &train.Result{TestAcc: c.acc}})
		os.WriteFile(r.Path(runs.SummaryFile), b, 0o600)
		r.Close()
	}
	rows, err := Table(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rows {
		got[r.Method] = fmt.Sprintf("n=%d mean=%.1f", r.N, r.TestAcc.Mean)
	}
	want := map[string]string{
		"maple/irmv1 [outer-iters 100]": "n=1 mean=70.0",
		"maple/irmv1 [outer-iters 60]":  "n=1 mean=60.0",
		"maple/irmv1 [outer-iters 20]":  "n=2 mean=45.0",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows %v\nwant %v", got, want)
	}
	var b strings.Builder
	WriteTable(&b, rows, "csv")
	if !strings.Contains(b.String(), ",training-domain validation,,\n") {
		t.Errorf("csv does not name the selection rule:\n%s", b.String())
	}
}

func TestRunsPerRow(t *testing.T) {
	dir := t.TempDir()
	kept := 0.375
	for i, seed := range []uint64{1, 2} {
		res := &train.Result{TestAcc: 0.5 + 0.1*float64(i)}
		if i == 1 {
			res.KeptWeights = &kept
		}
		b, _ := json.Marshal(runs.Summary{Done: true, Status: core.StatusDone, Result: res})
		finishedRun(t, dir, seed, i, b)
	}
	rows, err := Runs(dir, "s")
	if err != nil || len(rows) != 2 || rows[0].Seed != 1 || rows[1].TestAcc != 60 || rows[0].ConfigHash != rows[1].ConfigHash {
		t.Fatalf("%+v %v", rows, err)
	}
	var b strings.Builder
	WriteRunsCSV(&b, rows)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if !strings.HasPrefix(lines[0], "run_id,config_hash,") || !strings.HasSuffix(lines[0], ",kept_weight_pct") || len(lines) != 3 ||
		!strings.HasSuffix(lines[1], "validation,") || !strings.HasSuffix(lines[2], "validation,37.5000") {
		t.Errorf("csv:\n%s", b.String())
	}
}

// TestTableKeptColumn: a weight-masking method's kept weights are
// averaged over its seeds and shown in a column of their own, which a
// table without such a method does not have.
func TestTableKeptColumn(t *testing.T) {
	for _, tc := range []struct {
		name string
		kept []float64 // per seed; nil: not a masking method
		want string    // in the text table; "" for no column
		csv  string    // the csv row's end
	}{
		{name: "masking method", kept: []float64{0.30, 0.40}, want: "35.0 ± 7.1%", csv: ",training-domain validation,35.0000,7.0711"},
		{name: "no masks", csv: ",training-domain validation,,"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, seed := range []uint64{1, 2} {
				res := &train.Result{TestAcc: 0.5}
				if tc.kept != nil {
					res.KeptWeights = &tc.kept[i]
				}
				b, _ := json.Marshal(runs.Summary{Done: true, Status: core.StatusDone, Result: res})
				finishedRun(t, dir, seed, i, b)
			}
			rows, err := Table(dir, "s")
			if err != nil || len(rows) != 1 {
				t.Fatalf("%+v %v", rows, err)
			}
			for _, format := range []string{"text", "markdown"} {
				var b strings.Builder
				if err := WriteTable(&b, rows, format); err != nil {
					t.Fatal(err)
				}
				has := strings.Contains(b.String(), "kept weights")
				if has != (tc.want != "") || !strings.Contains(b.String(), tc.want) {
					t.Errorf("%s table, want kept column %q:\n%s", format, tc.want, b.String())
				}
			}
			var b strings.Builder
			WriteTable(&b, rows, "csv")
			lines := strings.Split(strings.TrimSpace(b.String()), "\n")
			if !strings.HasSuffix(lines[0], ",kept_weight_pct_mean,kept_weight_pct_sd") || !strings.HasSuffix(lines[1], tc.csv) {
				t.Errorf("csv, want a row ending %q:\n%s", tc.csv, b.String())
			}
		})
	}
}

// finishedRun creates a synthetic run of sweep "s" with the given seed,
// started i seconds after a fixed time, whose summary.json is summary;
// it returns the run's id.
func finishedRun(t *testing.T, dir string, seed uint64, i int, summary []byte) string {
	t.Helper()
	return finishedRunIn(t, dir, "s", seed, i, summary)
}

// finishedRunIn is finishedRun in the named sweep.
func finishedRunIn(t *testing.T, dir, sweep string, seed uint64, i int, summary []byte) string {
	t.Helper()
	cfg := runs.DefaultConfig("synthetic")
	cfg.Settings.Seed, cfg.Sweep = seed, sweep
	cfg.Started = time.Date(2026, 11, 22, 8, 0, i, 0, time.UTC)
	r, err := runs.Open(dir).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := os.WriteFile(r.Path(runs.SummaryFile), summary, 0o600); err != nil {
		t.Fatal(err)
	}
	return r.Config.ID
}

// A run whose summary.json is damaged is left out of the table with a
// word naming the file, never silently.
func TestTableNamesWhatItLeavesOut(t *testing.T) {
	dir := t.TempDir()
	var ids []string
	for i, seed := range []uint64{1, 2} {
		b, _ := json.Marshal(runs.Summary{Done: true, Status: core.StatusDone, Result: &train.Result{TestAcc: 0.5}})
		if i == 1 {
			b = b[:len(b)/2]
		}
		ids = append(ids, finishedRun(t, dir, seed, i, b))
	}
	rows, err := Table(dir, "s")
	if err != nil || len(rows) != 1 || rows[0].N != 1 {
		t.Fatalf("table: %+v %v", rows, err)
	}
	left := LeftOut(dir, "s")
	if len(left) != 1 || !strings.Contains(left[0], ids[1]) || !strings.Contains(left[0], runs.SummaryFile) || !strings.Contains(left[0], "damaged") {
		t.Errorf("left out: %q", left)
	}
	if other := LeftOut(dir, "other"); len(other) != 0 {
		t.Errorf("another sweep's runs named: %q", other)
	}
}

// maple eval results are rows of their own, named as such.
func TestTableHasEvals(t *testing.T) {
	dir := t.TempDir()
	cfg := runs.DefaultConfig("synthetic")
	r, err := runs.Open(dir).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(runs.Summary{Done: true, Status: core.StatusDone, Result: &train.Result{TestAcc: 0.6}})
	os.WriteFile(r.Path(runs.SummaryFile), b, 0o600)
	r.Close()
	if _, err := runs.WriteEval(r.Dir, "mlp:8", &train.Result{Model: "mlp:8", TestAcc: 0.7}); err != nil {
		t.Fatal(err)
	}
	rows, err := Table(dir, "")
	if err != nil || len(rows) != 2 {
		t.Fatalf("%+v %v", rows, err)
	}
	got := map[string]float64{}
	for _, row := range rows {
		got[row.Method+" "+row.Model] = row.TestAcc.Mean
	}
	if got["maple/irmv1 linear"] != 60 || got["maple/irmv1 search linear (maple eval) mlp:8"] != 70 {
		t.Errorf("rows %v", got)
	}
}

// maple ls lists a run's maple eval results under it, and names a damaged
// one as the run's problem.
func TestListHasEvals(t *testing.T) {
	dir := t.TempDir()
	r, err := runs.Open(dir).Create(runs.DefaultConfig("synthetic"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(runs.Summary{Done: true, Status: core.StatusDone, Result: &train.Result{TestAcc: 0.6, TestWorst: 0.5}})
	os.WriteFile(r.Path(runs.SummaryFile), b, 0o600)
	r.Close()
	if _, err := runs.WriteEval(r.Dir, "mlp:8", &train.Result{Model: "mlp:8", TestAcc: 0.7, TestWorst: 0.65}); err != nil {
		t.Fatal(err)
	}
	in := runs.Stat(r.Dir)
	if len(in.Evals) != 1 || in.Evals[0] != (runs.EvalInfo{Model: "mlp:8", TestWorst: 0.65, TestAcc: 0.7}) || in.Problem != "" {
		t.Fatalf("info %+v", in)
	}
	var out strings.Builder
	next := in // a run listed after it
	next.ID, next.Evals = "20261128-010957-01", nil
	if err := WriteList(&out, []runs.Info{in, next}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[2], "└ eval mlp:8") || !strings.Contains(lines[2], "65.0%") || !strings.Contains(lines[2], "70.0%") {
		t.Errorf("list:\n%s", out.String())
	}
	// The rows after an eval row stay aligned: every column starts where
	// the header's does (they were cut off from STARTED on).
	for _, col := range []string{"STARTED", "TIME", "NAME", "TAGS"} {
		at := strings.Index(lines[0], col)
		for _, l := range []string{lines[1], lines[3]} {
			if r := []rune(l); at > len(r) || at > 0 && r[at-1] != ' ' || at < len(r) && r[at] == ' ' {
				t.Errorf("column %s (at %d) not aligned in %q:\n%s", col, at, l, out.String())
			}
		}
	}
	os.WriteFile(filepath.Join(r.Dir, "eval-cnn.json"), []byte("{"), 0o600)
	if in := runs.Stat(r.Dir); len(in.Evals) != 1 || !strings.Contains(in.Problem, "eval-cnn.json: damaged") {
		t.Errorf("damaged eval file: %+v", in)
	}
}

// TestPlotFigures: the histogram shows the weights u.npy holds (the
// validation-selected iterate's) and says so; counts and iterations are
// labelled as whole numbers, iterations up to the last; PNGs are 1200 x
// 800 pixels (issue 25, defect 7).
func TestPlotFigures(t *testing.T) {
	r, err := runs.Open(t.TempDir()).Create(runs.Config{Method: "maple"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	writeSnapshots(t, r.Path(runs.MetricsFile), func(i int) core.Snapshot {
		return core.Snapshot{OuterRisk: 1 / float64(i), TestWorst: 0.4, Selected: 4, Hist: [][]int{{750 + i, 1}, {0, 2}}}
	})
	out := t.TempDir()
	if _, err := Plot(r.Dir, out, nil); err != nil {
		t.Fatal(err)
	}
	svg, _ := os.ReadFile(filepath.Join(out, "histogram.svg"))
	if !bytes.Contains(svg, []byte("validation-selected iterate 4 of 40 (what u.npy holds)")) {
		t.Errorf("the histogram's title does not name the selected iterate")
	}
	if bytes.Contains(svg, []byte(".00<")) {
		t.Error("histogram counts labelled with decimals")
	}
	acc, _ := os.ReadFile(filepath.Join(out, "accuracy.svg"))
	for _, tick := range []string{">10<", ">20<", ">40<"} {
		if !bytes.Contains(acc, []byte(tick)) {
			t.Errorf("accuracy.svg has no x tick %s", tick)
		}
	}
	f, err := os.Open(filepath.Join(out, "accuracy.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width != 1200 || cfg.Height != 800 {
		t.Errorf("accuracy.png: %dx%d %v, want 1200x800", cfg.Width, cfg.Height, err)
	}
	for _, tc := range []struct {
		min, max float64
		want     string
	}{{1, 40, "5 10 15 20 25 30 35 40"}, {1, 5, "1 2 3 4 5"}, {0, 750, "0 100 200 300 400 500 600 700"}, {1, 12, "2 4 6 8 10 12"}} {
		var got []string
		for _, tk := range (wholeTicks{}).Ticks(tc.min, tc.max) {
			got = append(got, tk.Label)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("ticks of [%g, %g]: %v, want %s", tc.min, tc.max, got, tc.want)
		}
	}
}

// TestShowStopped: maple show of a stopped run says where it stopped and
// how to go on (issue 25, defect 8: it printed "summary: stopped ").
func TestShowStopped(t *testing.T) {
	r, err := runs.Open(t.TempDir()).Create(runs.Config{Method: "maple"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, _ := json.Marshal(runs.Summary{Status: core.StatusStopped, Iter: 7})
	os.WriteFile(r.Path(runs.SummaryFile), b, 0o600)
	var out strings.Builder
	WriteShow(&out, r.Dir)
	if !strings.Contains(out.String(), "summary: stopped at iteration 7; no result yet (continue it with maple resume "+r.Config.ID+")") {
		t.Errorf("show:\n%s", out.String())
	}
}

// TestTableOverSweeps: one table of several sweeps pools the runs of one
// configuration over them (a grid split over sweeps, seed 1 in one and
// seeds 2-3 in another), leaves out the sweeps not named, and names a
// sweep that does not exist.
func TestTableOverSweeps(t *testing.T) {
	dir := t.TempDir()
	for i, c := range []struct {
		sweep string
		seed  uint64
		acc   float64
	}{{"a", 1, 0.5}, {"b", 2, 0.6}, {"b", 3, 0.7}, {"c", 4, 0.1}} {
		b, _ := json.Marshal(runs.Summary{Done: true, Status: core.StatusDone, Result: &train.Result{TestAcc: c.acc}})
		finishedRunIn(t, dir, c.sweep, c.seed, i, b)
	}
	for _, tc := range []struct {
		name  string
		names []string
		n     int
		mean  float64
	}{
		{"one sweep", []string{"b"}, 2, 65},
		{"two sweeps", []string{"a", "b"}, 3, 60},
		{"every run", nil, 4, 47.5},
		{"an empty name is none", []string{""}, 4, 47.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := Table(dir, tc.names...)
			if err != nil || len(rows) != 1 || rows[0].N != tc.n || math.Abs(rows[0].TestAcc.Mean-tc.mean) > 1e-9 {
				t.Fatalf("Table(%q): %+v %v; want n %d, mean %g", tc.names, rows, err, tc.n, tc.mean)
			}
			per, err := Runs(dir, tc.names...)
			if err != nil || len(per) != tc.n {
				t.Errorf("Runs(%q): %d rows, %v; want %d", tc.names, len(per), err, tc.n)
			}
		})
	}
	if _, err := Table(dir, "a", "nosuch"); err == nil || !strings.Contains(err.Error(), `no sweep "nosuch"`) {
		t.Errorf("a missing sweep among others: %v", err)
	}
}

// TestShowBaselineNotDone: maple show of a baseline that has not finished
// says how far its training is while it runs (its last progress line),
// and, stopped or failed, that resume trains it again from the start;
// it printed "stopped at iteration 0; no result yet" (a baseline counts
// no iterations and keeps no checkpoint), and nothing while it ran.
func TestShowBaselineNotDone(t *testing.T) {
	dir := t.TempDir()
	cfg := runs.DefaultConfig("synthetic")
	cfg.Method = "lff"
	r, err := runs.Open(dir).Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	logs := "start\ntraining step 50/500: val worst-group 0.2000  (test worst-group 0.1000)\ntraining step 100/500: val worst-group 0.3000  (test worst-group 0.2000)\n"
	os.WriteFile(r.Path(runs.LogFile), []byte(logs), 0o600)
	show := func() string {
		var out strings.Builder
		WriteShow(&out, r.Dir)
		return out.String()
	}
	if got := show(); !strings.Contains(got, "progress: training step 100/500: val worst-group 0.3000") {
		t.Errorf("running baseline:\n%s", got)
	}
	for _, tc := range []struct {
		sum  runs.Summary
		want string
	}{
		{runs.Summary{Status: core.StatusStopped}, "stopped before it finished; a baseline keeps no checkpoint: maple resume " + r.Config.ID},
		{runs.Summary{Status: core.StatusFailed, Error: "disk full"}, "failed: disk full"},
	} {
		b, _ := json.Marshal(tc.sum)
		os.WriteFile(r.Path(runs.SummaryFile), b, 0o600)
		if got := show(); !strings.Contains(got, tc.want) || strings.Contains(got, "iteration 0") {
			t.Errorf("%s baseline: want %q, no iteration:\n%s", tc.sum.Status, tc.want, got)
		}
	}
}

// TestAccuracyAxisUpTo1: an accuracy figure's axis runs past 1 to leave
// room for its legend, but is labelled no higher than 1 (its ticks read
// 1.1 and 1.25).
func TestAccuracyAxisUpTo1(t *testing.T) {
	xy := plotter.XYs{{X: 1, Y: 0.3}, {X: 2, Y: 0.95}, {X: 3, Y: 0.99}}
	p, err := linePlot("t", "step", "accuracy", []series{{name: "val", xy: xy}})
	if err != nil {
		t.Fatal(err)
	}
	p.Y.Max += 0.35 * (p.Y.Max - p.Y.Min)
	if p.Y.Max <= 1 {
		t.Fatalf("the axis ends at %v: the test needs one past 1", p.Y.Max)
	}
	var labels []string
	for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
		if tk.Value > 1 {
			t.Errorf("a tick at %v (%q)", tk.Value, tk.Label)
		}
	}
	if len(labels) < 2 {
		t.Errorf("labels %v: too few", labels)
	}
}

// TestRiskLogScale: an outer risk spanning more than two orders of
// magnitude (one spike of 131 among values near 1e-3) is drawn on a log
// scale, where a linear axis flattened the rest of the curve; one with a
// value of 0, or within a factor of 100, stays linear.
func TestRiskLogScale(t *testing.T) {
	for _, tc := range []struct {
		name string
		ys   []float64
		log  bool
	}{
		{"a spike", []float64{0.002, 131, 0.001, 0.0012}, true},
		{"a zero", []float64{0.002, 131, 0, 0.0012}, false},
		{"a narrow span", []float64{0.02, 0.5, 0.01}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var xy plotter.XYs
			for i, y := range tc.ys {
				xy = append(xy, plotter.XY{X: float64(i + 1), Y: y})
			}
			p, err := linePlot("r", "outer iteration", "R", []series{{name: "outer risk", xy: xy}})
			if err != nil {
				t.Fatal(err)
			}
			logScale(p.Plot, xy)
			_, isLog := p.Y.Scale.(plot.LogScale)
			if isLog != tc.log {
				t.Errorf("log scale %v, want %v", isLog, tc.log)
			}
			if isLog && (p.Y.Min > 0.001 || p.Y.Max < 131) {
				t.Errorf("axis %v to %v does not hold the values", p.Y.Min, p.Y.Max)
			}
		})
	}
}

// TestDifferencesNameTheData: two configurations that differ only in
// their data's digest (a file rewritten between runs, or runs recorded
// before digests) are told apart in the table's labels, which were the
// same.
func TestDifferencesNameTheData(t *testing.T) {
	a, b, c := runs.DefaultConfig("features"), runs.DefaultConfig("features"), runs.DefaultConfig("features")
	a.Dataset.Digest = "0123456789abcdef"
	b.Dataset.Digest = "fedcba9876543210"
	got := differences([]*runs.Config{&a, &b, &c})
	want := []string{"data digest 01234567", "data digest fedcba98", "data digest none"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("labels %q, want %q", got, want)
	}
	if same := differences([]*runs.Config{&a, &a}); same[0] != "" {
		t.Errorf("one configuration twice: %q", same)
	}
}

// TestTableSaysWhoseValWorst: the table's val worst-group is the final
// model's, and its caption says so, apart from the search's best (the
// browser's SEARCH VAL WG); the CSV's columns keep their names.
func TestTableSaysWhoseValWorst(t *testing.T) {
	rows := []Row{{Dataset: "d", Model: "linear", Method: "m", N: 1, TestAcc: MeanSD{Mean: 70, Single: true}, TestWorst: MeanSD{Mean: 60, Single: true}, ValWorst: MeanSD{Mean: 68.8, Single: true}}}
	for _, format := range []string{"text", "markdown"} {
		var b strings.Builder
		if err := WriteTable(&b, rows, format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "val worst-group") || !strings.Contains(b.String(), "val worst-group is the final model's at that checkpoint, not the search's best (SEARCH VAL WG in the browser)") {
			t.Errorf("%s: the caption does not say whose val worst-group it is:\n%s", format, b.String())
		}
	}
	var b strings.Builder
	WriteTable(&b, rows, "csv")
	if !strings.HasPrefix(b.String(), "dataset,train_size,model,method,n,test_acc_mean,test_acc_sd,test_worst_mean,test_worst_sd,val_worst_mean,val_worst_sd,") {
		t.Errorf("csv header changed:\n%s", b.String())
	}
}

// TestFigureLegendOutside: fractions.png's legend lies outside the data
// area (it covered the curves at the top right), and nothing touches the
// image's edges (the title did). Read from the PNG: the data area is
// bounded by the axis lines, the longest near-black runs; the legend's
// and the labels' text is near-black, the curves and the grid are not.
func TestFigureLegendOutside(t *testing.T) {
	r, err := runs.Open(t.TempDir()).Create(runs.Config{Method: "maple"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var lines []string
	for i := 1; i <= 60; i++ {
		// The first group's share runs along the top of the axis, where
		// the legend sat.
		f := 0.55 + 0.05*math.Sin(float64(i)/4)
		s := core.Snapshot{Iter: i, Total: 60, OuterRisk: 1, Selected: 40, GroupNames: []string{"y=0,a=0", "y=0,a=1", "y=1,a=0", "y=1,a=1"},
			GroupFrac: []float64{f, 0.2, 0.15, 0.65 - f}, Hist: [][]int{{1}, {1}, {1}, {1}}, HistEdges: []float64{0, 1}}
		b, _ := json.Marshal(s)
		lines = append(lines, string(b))
	}
	os.WriteFile(r.Path(runs.MetricsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	out := t.TempDir()
	if _, err := Plot(r.Dir, out, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fractions", "accuracy", "risk"} {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(filepath.Join(out, name+".png"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			img, err := png.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			b := img.Bounds()
			ink := func(x, y int) bool { // near-black grey: text
				r, g, bl, _ := img.At(x, y).RGBA()
				return max(r, g, bl)>>8 < 70 && (max(r, g, bl)-min(r, g, bl))>>8 < 20
			}
			blank := func(x, y int) bool {
				r, g, bl, _ := img.At(x, y).RGBA()
				return min(r, g, bl)>>8 > 245
			}
			// A margin on every side: nothing drawn within 6 pixels of an edge.
			const m = 6
		edges:
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					if (x < m || y < m || x >= b.Max.X-m || y >= b.Max.Y-m) && !blank(x, y) {
						t.Errorf("pixel (%d, %d) of %dx%d is drawn: the figure touches its edge", x, y, b.Dx(), b.Dy())
						break edges
					}
				}
			}
			// The axes: the longest unbroken dark lines, across and down
			// (the grid is lighter, the selected iterate's line dotted).
			dark := func(x, y int) bool {
				r, g, bl, _ := img.At(x, y).RGBA()
				return max(r, g, bl)>>8 < 160 && (max(r, g, bl)-min(r, g, bl))>>8 < 20
			}
			axisX, axisY, top, right, best := 0, 0, 0, 0, 0
			for x := b.Min.X; x < b.Max.X; x++ {
				for y, run := b.Min.Y, 0; y < b.Max.Y; y++ {
					if run = map[bool]int{true: run + 1}[dark(x, y)]; run > best {
						axisX, top, best = x, y-run+1, run
					}
				}
			}
			best = 0
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x, run := b.Min.X, 0; x < b.Max.X; x++ {
					if run = map[bool]int{true: run + 1}[dark(x, y)]; run > best {
						axisY, right, best = y, x, run
					}
				}
			}
			if right-axisX < b.Dx()/3 || axisY-top < b.Dy()/3 {
				t.Fatalf("axes not found: x from %d to %d, y from %d to %d", axisX, right, top, axisY)
			}
			inside := 0
			for y := top + 3; y < axisY-3; y++ {
				for x := axisX + 3; x < right-3; x++ {
					if ink(x, y) {
						inside++
					}
				}
			}
			if inside > 0 {
				t.Errorf("%d near-black pixels (legend text) inside the data area (%d..%d, %d..%d)", inside, axisX, right, top, axisY)
			}
		})
	}
}

// TestPlotNamesSelectionRule: a search with --select-iterate final
// trains on its last iterate, and its figures say so instead of naming
// it validation-selected.
func TestPlotNamesSelectionRule(t *testing.T) {
	for _, tc := range []struct {
		name, rule string
		sel        int
		mark, hist string
	}{
		{"validation", "val", 4, "selected iterate 4 (validation)", "validation-selected iterate 4 of 40"},
		{"final", "final", 40, "selected iterate 40 (final)", "final iterate 40 of 40"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := runs.Config{Method: "maple"}
			cfg.Settings.SelectIterate = tc.rule
			r, err := runs.Open(t.TempDir()).Create(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			writeSnapshots(t, r.Path(runs.MetricsFile), func(int) core.Snapshot {
				return core.Snapshot{OuterRisk: 1, Selected: tc.sel, Hist: [][]int{{7, 1}, {0, 2}}}
			})
			out := t.TempDir()
			if _, err := Plot(r.Dir, out, nil); err != nil {
				t.Fatal(err)
			}
			for file, want := range map[string]string{"fractions.svg": tc.mark, "accuracy.svg": tc.mark, "histogram.svg": tc.hist} {
				svg, _ := os.ReadFile(filepath.Join(out, file))
				if !bytes.Contains(svg, []byte(want)) {
					t.Errorf("%s does not say %q", file, want)
				}
			}
		})
	}
}

// writeSnapshots writes 40 outer iterations' records to path: each
// snapshot as at(i) gives it, with its iteration, the total, a
// validation worst-group of 0.5 and two groups (0.6 and 0.4 of the
// weight, a histogram of three edges) filled in.
func writeSnapshots(t *testing.T, path string, at func(i int) core.Snapshot) {
	t.Helper()
	var lines []string
	for i := 1; i <= 40; i++ {
		s := at(i)
		s.Iter, s.Total, s.ValWorst = i, 40, 0.5
		s.GroupNames, s.GroupFrac, s.HistEdges = []string{"a", "b"}, []float64{0.6, 0.4}, []float64{0, 1, 2}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
