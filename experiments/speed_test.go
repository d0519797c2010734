package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpeedUpToDate recomputes speed.csv from the committed benchmark
// runs under docs/results/speed and docs/PERFORMANCE.md's Speed table from
// speed.csv, and fails when either committed one differs: a speed
// figure there is a committed run's. -update rewrites both.
func TestSpeedUpToDate(t *testing.T) {
	dir := filepath.Join("..", "docs", SpeedDir)
	rows, err := SpeedRows(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteSpeed(&b, rows); err != nil {
		t.Fatal(err)
	}
	csvPath := filepath.Join(dir, SpeedFile)
	if *update {
		if err := os.WriteFile(csvPath, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(have) != b.String() {
		t.Errorf("docs/%s/%s differs from what the committed runs beside it give: run go test ./experiments -run TestSpeedUpToDate -update", SpeedDir, SpeedFile)
	}
	tab, err := ParseCSV(string(have))
	if err != nil {
		t.Fatal(err)
	}
	readme := filepath.Join("..", "docs", "PERFORMANCE.md")
	text, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	spliced, err := SpliceSpeed(string(text), SpeedTable(tab))
	if err != nil {
		t.Fatal(err)
	}
	if *update && spliced != string(text) {
		if err := os.WriteFile(readme, []byte(spliced), 0o644); err != nil {
			t.Fatal(err)
		}
		text = []byte(spliced)
	}
	if spliced != string(text) {
		t.Error("docs/PERFORMANCE.md's Speed table differs from what docs/results/speed/speed.csv gives: run go test ./experiments -run TestSpeedUpToDate -update")
	}
}

// TestSpeedRows reads a benchmark run as the committed files hold it.
func TestSpeedRows(t *testing.T) {
	dir := t.TempDir()
	head := "# date 2026-11-28T09:00:00Z\n# machine AMD EPYC, 2 cores\n# commit abc\n# go go1.26\n# threads 2\n# build openblas,onednn\n# load before 9.5 8.6 6.6\n"
	files := map[string]string{
		"outer-iteration.txt": head + "# command core.test -test.bench OuterIteration/f32\nBenchmarkOuterIteration/f32-2 \t 1\t 47000000000 ns/op\t 0.8700 inner-step/sgemm-paired\t 0.04500 non-product-share\n# load after 9.0 8.8 7.0\n",
		"step-paired.txt":     head + "# command gmodel.test -test.bench StepPaired\nBenchmarkStepPaired/backprop-2 6 1 ns/op 1.100 gorgonia/nets-paired\nBenchmarkStepPaired/jvp-2 6 1 ns/op 1.600 gorgonia/nets-paired\n# load after 9 9 9\n",
		"step-bytes.txt":      head + "# command gmodel.test -test.bench Step$\nBenchmarkStep/backprop/nets-2 4 1 ns/op 2000 B/op 10 allocs/op\nBenchmarkStep/jvp/nets-2 4 1 ns/op 1000 B/op 10 allocs/op\nBenchmarkStep/backprop/gorgonia-2 4 1 ns/op 42000 B/op 10 allocs/op\nBenchmarkStep/jvp/gorgonia-2 4 1 ns/op 49000 B/op 10 allocs/op\n# load after 9 9 9\n",
		"search-mlp.txt":      head + "# command maple run --model mlp\nTIME 100.0 s 600000 KB\n# load after 9 9 9\n",
		"search-gmlp.txt":     head + "# command maple run --model g:mlp\nTIME 120.0 s 540000 KB\n# load after 9 9 9\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := SpeedRows(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ value, met string }{{"0.87", "missed"}, {"4.5%", "met"}, {"1.10, 1.60", "missed"}, {"21, 49", "missed"}, {"1.20, 0.90", "met"}}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, w := range want {
		if rows[i].Value != w.value || rows[i].Met != w.met || rows[i].Load != "9.5 8.6 6.6 before, 9.0 8.8 7.0 after" && i == 0 {
			t.Errorf("row %d (%s): %q %s, load %q; want %q %s", i, rows[i].Figure, rows[i].Value, rows[i].Met, rows[i].Load, w.value, w.met)
		}
	}
	os.WriteFile(filepath.Join(dir, "step-bytes.txt"), []byte(strings.Replace(files["step-bytes.txt"], "# commit abc\n", "", 1)), 0o644)
	if _, err := SpeedRows(dir); err == nil || !strings.Contains(err.Error(), "commit") {
		t.Errorf("a run without its commit: %v", err)
	}
}
