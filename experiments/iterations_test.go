package experiments

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The run directories of testdata/iterations: a search on data with
// label x attribute groups, one whose second metrics line is damaged,
// and one whose groups are environments (no attribute to disagree with
// the label).
const (
	fixtureRuns  = "testdata/iterations"
	groupedRun   = "20260101-000000-01"
	damagedRun   = "20260101-000000-02"
	ungroupedRun = "20260101-000000-03"
)

func fixtureRow(id string, selected int, seed uint64) Run {
	return Run{Experiment: "e", Sweep: "s", RunID: id, ConfigHash: "h" + id[len(id)-1:], Dataset: "cmnist", Model: "mlp:8", SearchModel: "mlp:8",
		Method: "maple/irmv1", Objective: "irmv1", Settings: "keep 0.3; keep0 0.3", Seed: seed, SelectedIterate: selected}
}

const iterationsCSVHeader = "experiment,sweep,run_id,config_hash,dataset,train_size,model,method,settings,seed,iter,outer_risk,search_val_worst,keep_pct,conflict_weight_pct,selected,keep_grad_norm,keep_high_pct\n"

// TestIterations checks iterations.csv's rows against the metrics.jsonl
// fixtures: one row per record, the shares in %, the selected iterate
// flagged as runs.csv selects it, the keep scores' gradient norm and
// the share of keep probabilities in the histogram's top bin (empty
// without a histogram or with an empty one), a damaged line skipped and said, and
// no row for a baseline or a run without records.
func TestIterations(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rows  []Run
		want  string // the CSV's rows after the header
		warns []string
	}{
		{
			name: "a search on grouped data, iterate 2 selected",
			rows: []Run{fixtureRow(groupedRun, 2, 1)},
			want: `e,s,20260101-000000-01,h1,cmnist,0,mlp:8,maple/irmv1,keep 0.3; keep0 0.3,1,1,0.5,25.0000,30.0000,20.0000,no,1.23,30.0000
e,s,20260101-000000-01,h1,cmnist,0,mlp:8,maple/irmv1,keep 0.3; keep0 0.3,1,2,0.125,62.5000,15.0000,50.0000,yes,0.00019,10.0000
e,s,20260101-000000-01,h1,cmnist,0,mlp:8,maple/irmv1,keep 0.3; keep0 0.3,1,3,0.000123457,50.0000,30.0000,40.0000,no,0,
`,
		},
		{
			name: "no iterate selected: the last",
			rows: []Run{fixtureRow(groupedRun, 0, 1)},
			want: `e,s,20260101-000000-01,h1,cmnist,0,mlp:8,maple/irmv1,keep 0.3; keep0 0.3,1,1,0.5,25.0000,30.0000,20.0000,no,1.23,30.0000
e,s,20260101-000000-01,h1,cmnist,0,mlp:8,maple/irmv1,keep 0.3; keep0 0.3,1,2,0.125,62.5000,15.0000,50.0000,no,0.00019,10.0000
e,s,20260101-000000-01,h1,cmnist,0,mlp:8,maple/irmv1,keep 0.3; keep0 0.3,1,3,0.000123457,50.0000,30.0000,40.0000,yes,0,
`,
		},
		{
			name: "a damaged line is skipped and said",
			rows: []Run{fixtureRow(damagedRun, 3, 2)},
			want: `e,s,20260101-000000-02,h2,cmnist,0,mlp:8,maple/irmv1,keep 0.3; keep0 0.3,2,1,0.5,25.0000,100.0000,20.0000,no,0,
e,s,20260101-000000-02,h2,cmnist,0,mlp:8,maple/irmv1,keep 0.3; keep0 0.3,2,3,0.25,75.0000,100.0000,50.0000,yes,0,
`,
			warns: []string{"run 20260101-000000-02: ", "metrics.jsonl: line 2 damaged and skipped; its other iterations are used"},
		},
		{
			name: "groups without an attribute: no share",
			rows: []Run{fixtureRow(ungroupedRun, 1, 1)},
			want: `e,s,20260101-000000-03,h3,cmnist,0,mlp:8,maple/irmv1,keep 0.3; keep0 0.3,1,1,1,50.0000,100.0000,,yes,0,
e,s,20260101-000000-03,h3,cmnist,0,mlp:8,maple/irmv1,keep 0.3; keep0 0.3,1,2,0.75,40.0000,100.0000,,no,0,
`,
		},
		{
			name: "a baseline has none",
			rows: []Run{{Experiment: "e", Sweep: "s", RunID: groupedRun, ConfigHash: "b", Dataset: "cmnist", Method: "erm", Seed: 1}},
		},
		{
			name:  "a run without records is left out, and said",
			rows:  []Run{fixtureRow("20260101-000000-09", 1, 1), fixtureRow(groupedRun, 2, 1)},
			want:  "e,s,20260101-000000-01,h1,cmnist,0,mlp:8,maple/irmv1,keep 0.3; keep0 0.3,1,1,0.5,25.0000,30.0000,20.0000,no,1.23,30.0000\ne,s,20260101-000000-01,h1,cmnist,0,mlp:8,maple/irmv1,keep 0.3; keep0 0.3,1,2,0.125,62.5000,15.0000,50.0000,yes,0.00019,10.0000\ne,s,20260101-000000-01,h1,cmnist,0,mlp:8,maple/irmv1,keep 0.3; keep0 0.3,1,3,0.000123457,50.0000,30.0000,40.0000,no,0,\n",
			warns: []string{"run 20260101-000000-09: its iterations are left out: no records in "},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var warned []string
			its := Iterations(fixtureRuns, tc.rows, func(s string) { warned = append(warned, s) })
			var b strings.Builder
			if err := writeIterationsCSV(&b, its); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimPrefix(b.String(), iterationsCSVHeader); got != tc.want {
				t.Errorf("rows:\n%s\nwant:\n%s", got, tc.want)
			}
			if len(tc.warns) == 0 && len(warned) > 0 {
				t.Errorf("warned %q, want nothing", warned)
			}
			if len(tc.warns) > 0 && (len(warned) != 1 || !containsAll(warned[0], tc.warns)) {
				t.Errorf("warned %q, want one warning with %q", warned, tc.warns)
			}
		})
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// TestIterationsFile writes iterations.csv where some search has a share
// on the conflicting groups, and otherwise no file, removing an earlier
// one with its figure.
func TestIterationsFile(t *testing.T) {
	dir := t.TempDir()
	its := Iterations(fixtureRuns, []Run{fixtureRow(groupedRun, 2, 1), fixtureRow(ungroupedRun, 1, 1)}, nil)
	if err := WriteIterations(dir, its); err != nil {
		t.Fatal(err)
	}
	tab, err := ReadCSV(filepath.Join(dir, IterationsFile))
	if err != nil || len(tab.Rows) != 5 || strings.Join(tab.Header, ",")+"\n" != iterationsCSVHeader {
		t.Fatalf("iterations.csv: %v, %d rows, want 5 with the schema's header", err, len(tab.Rows))
	}
	if err := WriteIterationFigure(dir, tab); err != nil {
		t.Fatal(err)
	}
	// Without a grouped search: no file, and the old one is gone.
	if err := WriteIterations(dir, Iterations(fixtureRuns, []Run{fixtureRow(ungroupedRun, 1, 1)}, nil)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{IterationsFile, IterationsFigure + ".png", IterationsFigure + ".svg"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want it removed", name, err)
		}
	}
}

// TestIterationFigure draws the figure of two configurations, one over
// two seeds: the same bytes every time, a PNG and an SVG that name the
// configurations as the results page does.
func TestIterationFigure(t *testing.T) {
	rows := []Run{fixtureRow(groupedRun, 2, 1), fixtureRow(damagedRun, 3, 1), fixtureRow(damagedRun, 1, 2)}
	rows[1].Settings, rows[2].Settings, rows[2].ConfigHash = "", "", rows[1].ConfigHash
	var b strings.Builder
	if err := writeIterationsCSV(&b, Iterations(fixtureRuns, rows, nil)); err != nil {
		t.Fatal(err)
	}
	tab, err := ParseCSV(b.String())
	if err != nil {
		t.Fatal(err)
	}
	png, svg, err := IterationFigure(tab)
	if err != nil {
		t.Fatal(err)
	}
	png2, svg2, _ := IterationFigure(tab)
	if !bytes.Equal(png, png2) || !bytes.Equal(svg, svg2) {
		t.Error("two drawings of the same rows differ")
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Error("no PNG")
	}
	for _, want := range []string{"keep 0.3; keep0 0.3  (n = 1)", "defaults  (n = 2)", "outer iteration"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("the SVG does not say %q", want)
		}
	}
	if _, _, err := IterationFigure(&Table{Header: iterationsHeader}); err == nil {
		t.Error("a figure of no rows: no error")
	}
}

// TestCheckIterations compares iterations.csv with runs.csv: a faithful
// pair passes, and each kind of disagreement is named.
func TestCheckIterations(t *testing.T) {
	run := Run{Experiment: "e", Sweep: "s", RunID: groupedRun, ConfigHash: "h1", Dataset: "cmnist", Method: "maple/irmv1", Objective: "irmv1", Seed: 1, SelectedIterate: 2}
	its := Iterations(fixtureRuns, []Run{run}, nil)
	run.ConflictWeight, run.KeepPct = selectedShares(filepath.Join(fixtureRuns, groupedRun), 2)
	erm := Run{Experiment: "e", Sweep: "s", RunID: "20260101-000000-05", ConfigHash: "b", Dataset: "cmnist", Method: "erm", Seed: 1}
	table := func(write func(*strings.Builder) error) *Table {
		var b strings.Builder
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		tab, err := ParseCSV(b.String())
		if err != nil {
			t.Fatal(err)
		}
		return tab
	}
	for _, tc := range []struct {
		name   string
		change func(runs []Run, its []Iteration) ([]Run, []Iteration)
		want   string // a part of the one difference; "" for none
	}{
		{"as written", func(r []Run, i []Iteration) ([]Run, []Iteration) { return r, i }, ""},
		{"another iterate selected", func(r []Run, i []Iteration) ([]Run, []Iteration) {
			r[0].SelectedIterate = 3
			return r, i
		}, "iteration 2 selected, runs.csv says 3"},
		{"another share", func(r []Run, i []Iteration) ([]Run, []Iteration) {
			i[1].KeepPct = 99
			return r, i
		}, `keep_pct "99.0000" at the selected iterate, runs.csv says "15.0000"`},
		{"a search without rows", func(r []Run, i []Iteration) ([]Run, []Iteration) { return r, nil }, "0 rows selected, want 1"},
		{"rows of a run runs.csv lacks", func(r []Run, i []Iteration) ([]Run, []Iteration) { return r[1:], i }, "has iterations but is no search of runs.csv"},
		{"another seed", func(r []Run, i []Iteration) ([]Run, []Iteration) {
			i[0].Seed = 7
			return r, i
		}, "sweep, configuration or seed is not runs.csv's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, i := tc.change([]Run{run, erm}, append([]Iteration(nil), its...))
			got := checkIterations(table(func(b *strings.Builder) error { return writeIterationsCSV(b, i) }), table(func(b *strings.Builder) error { return WriteRuns(b, r) }))
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("differences %q, want none", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Errorf("differences %q, want one with %q", got, tc.want)
			}
		})
	}
}

// TestIterTicks labels whole numbers at 1, 2 or 5 times a power of ten,
// at most 9 labels, with unlabelled ticks between on short axes.
func TestIterTicks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lo, hi  float64
		labels  string
		between int // unlabelled ticks
	}{
		{"30 iterations", 1, 30, "5 10 15 20 25 30", 24},
		{"a percentage", 0, 100, "0 20 40 60 80 100", 0},
		{"an accuracy to 80", 0, 80, "0 10 20 30 40 50 60 70 80", 0},
		{"300 iterations", 1, 300, "50 100 150 200 250 300", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var labels []string
			between := 0
			for _, tk := range (iterTicks{}).Ticks(tc.lo, tc.hi) {
				if tk.Label == "" {
					between++
					continue
				}
				labels = append(labels, tk.Label)
			}
			if strings.Join(labels, " ") != tc.labels || between != tc.between {
				t.Errorf("labels %q and %d between, want %q and %d", labels, between, tc.labels, tc.between)
			}
		})
	}
}

// TestIterationsOf reads iterations.csv's rows back as written, and rows
// committed before the keep columns were recorded (no such columns) with
// those left unset rather than zero.
func TestIterationsOf(t *testing.T) {
	its := Iterations(fixtureRuns, []Run{fixtureRow(groupedRun, 2, 1)}, nil)
	var b strings.Builder
	if err := writeIterationsCSV(&b, its); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, csv  string
		grad, high []string // per row: the value, or "" for unset
	}{
		{"as written", b.String(), []string{"1.23", "0.00019", "0"}, []string{"30", "10", ""}},
		{"committed before the keep columns", strings.Join(func() []string {
			var lines []string
			for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
				f := strings.Split(l, ",")
				lines = append(lines, strings.Join(f[:len(f)-2], ","))
			}
			return lines
		}(), "\n") + "\n", []string{"", "", ""}, []string{"", "", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), IterationsFile)
			if err := os.WriteFile(path, []byte(tc.csv), 0o644); err != nil {
				t.Fatal(err)
			}
			tab, err := ReadCSV(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := IterationsOf(tab)
			if err != nil || len(got) != 3 {
				t.Fatalf("IterationsOf: %d rows, %v; want 3", len(got), err)
			}
			text := func(p *float64) string {
				if p == nil {
					return ""
				}
				return strconv.FormatFloat(*p, 'g', -1, 64)
			}
			for i, it := range got {
				if text(it.KeepGrad) != tc.grad[i] || text(it.KeepHigh) != tc.high[i] {
					t.Errorf("row %d: keep_grad_norm %q, keep_high_pct %q; want %q, %q", i+1, text(it.KeepGrad), text(it.KeepHigh), tc.grad[i], tc.high[i])
				}
				if it.ConflictWeight == nil || it.Iter != i+1 {
					t.Errorf("row %d: iteration %d, share %v: the other columns are lost", i+1, it.Iter, it.ConflictWeight)
				}
			}
		})
	}
}
