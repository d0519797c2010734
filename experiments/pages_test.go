package experiments

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/RESULTS.md, the README's headline table and the figures from the committed CSVs")

// TestPagesUpToDate regenerates the results page, the README's headline
// table and each experiment's methods figure from the committed
// experiment files and CSVs and fails when the committed ones differ: a
// figure in the docs is the CSV's.
func TestPagesUpToDate(t *testing.T) {
	docs, readme := filepath.Join("..", "docs"), filepath.Join("..", "README.md")
	if *update {
		if err := WritePages(docs, readme); err != nil {
			t.Fatal(err)
		}
	}
	all, err := ReadAll(docs)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no experiment files under docs/experiments")
	}
	want := Page(docs, all)
	got, err := os.ReadFile(filepath.Join(docs, PagePath))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("docs/%s differs from what the committed CSVs give: run go test ./experiments -run TestPagesUpToDate -update (or maple reproduce NAME --no-run)", PagePath)
	}
	text, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	spliced, err := Splice(string(text), Headline(all))
	if err != nil {
		t.Fatal(err)
	}
	if spliced != string(text) {
		t.Error("README.md's headline table differs from what the committed CSVs give: run go test ./experiments -run TestPagesUpToDate -update")
	}
	// Every experiment with results has both CSVs in the one schema.
	for _, r := range all {
		if r.Summary == nil {
			continue
		}
		if r.Runs == nil {
			t.Errorf("experiment %s: summary.csv without runs.csv", r.File.Name)
			continue
		}
		if strings.Join(r.Runs.Header, ",") != strings.Join(runsHeader, ",") {
			t.Errorf("experiment %s: runs.csv's header is not the schema's", r.File.Name)
		}
		if strings.Join(r.Summary.Header, ",") != strings.Join(summaryHeader, ",") {
			t.Errorf("experiment %s: summary.csv's header is not the schema's", r.File.Name)
		}
		// summary.csv is runs.csv summarised: regenerate it.
		var b strings.Builder
		if err := WriteSummary(&b, Summarise(fromTable(t, r.Runs))); err != nil {
			t.Fatal(err)
		}
		have, _ := os.ReadFile(filepath.Join(ResultsDir(docs, r.File.Name), SummaryFile))
		if b.String() != string(have) {
			t.Errorf("experiment %s: summary.csv is not runs.csv's summary", r.File.Name)
		}
		// The methods figure is summary.csv's: redraw it.
		png, svg, err := MethodsFigureOf(r.Summary)
		if err != nil {
			t.Errorf("experiment %s: %v", r.File.Name, err)
			continue
		}
		base := filepath.Join(ResultsDir(docs, r.File.Name), MethodsFigure)
		for ext, want := range map[string][]byte{".png": png, ".svg": svg} {
			have, err := os.ReadFile(base + ext)
			if err != nil || !bytes.Equal(have, want) {
				t.Errorf("experiment %s: %s%s differs from what summary.csv gives (%v): run go test ./experiments -run TestPagesUpToDate -update (or maple reproduce %s --no-run)",
					r.File.Name, MethodsFigure, ext, err, r.File.Name)
			}
		}
		// So are the width figure, where a method ran at two widths, and
		// the gap figure beside it.
		png, svg, ok, err := WidthFigureOf(r.Summary)
		if err != nil {
			t.Errorf("experiment %s: %v", r.File.Name, err)
			continue
		}
		gapPNG, gapSVG, gapOK, err := GapFigureOf(r)
		if err != nil {
			t.Errorf("experiment %s: %v", r.File.Name, err)
			continue
		}
		for _, fig := range []struct {
			name, none string // none: why there is no such figure
			ok         bool
			png, svg   []byte
		}{{WidthsFigure, "no method of summary.csv ran at two widths", ok, png, svg}, {GapsFigure, "no method ran at two widths with an oracle beside it", gapOK, gapPNG, gapSVG}} {
			base = filepath.Join(ResultsDir(docs, r.File.Name), fig.name)
			for ext, want := range map[string][]byte{".png": fig.png, ".svg": fig.svg} {
				have, err := os.ReadFile(base + ext)
				switch {
				case !fig.ok && err == nil:
					t.Errorf("experiment %s: %s%s, but %s", r.File.Name, fig.name, ext, fig.none)
				case fig.ok && (err != nil || !bytes.Equal(have, want)):
					t.Errorf("experiment %s: %s%s differs from what the committed CSVs give (%v): run go test ./experiments -run TestPagesUpToDate -update (or maple reproduce %s --no-run)",
						r.File.Name, fig.name, ext, err, r.File.Name)
				}
			}
		}
	}
}

// TestIterationsUpToDate checks each experiment's iterations.csv against
// its runs.csv (every search has its rows, selected at its selected
// iterate with its shares) and regenerates the per-iteration figure from
// it, failing when the committed PNG or SVG differs; an experiment
// without iterations.csv has no such figure.
func TestIterationsUpToDate(t *testing.T) {
	docs := filepath.Join("..", "docs")
	all, err := ReadAll(docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		dir := ResultsDir(docs, r.File.Name)
		base := filepath.Join(dir, IterationsFigure)
		if r.Iterations == nil {
			for _, ext := range []string{".png", ".svg"} {
				if _, err := os.Stat(base + ext); err == nil {
					t.Errorf("experiment %s: %s%s without %s", r.File.Name, IterationsFigure, ext, IterationsFile)
				}
			}
			continue
		}
		if strings.Join(r.Iterations.Header, ",") != strings.Join(iterationsHeader, ",") {
			t.Errorf("experiment %s: iterations.csv's header is not the schema's", r.File.Name)
			continue
		}
		if r.Runs == nil {
			t.Errorf("experiment %s: iterations.csv without runs.csv", r.File.Name)
			continue
		}
		for _, d := range checkIterations(r.Iterations, r.Runs) {
			t.Errorf("experiment %s: iterations.csv against runs.csv: %s", r.File.Name, d)
		}
		png, svg, err := IterationFigure(r.Iterations)
		if err != nil {
			t.Errorf("experiment %s: %v", r.File.Name, err)
			continue
		}
		for ext, want := range map[string][]byte{".png": png, ".svg": svg} {
			have, err := os.ReadFile(base + ext)
			if err != nil || !bytes.Equal(have, want) {
				t.Errorf("experiment %s: %s%s differs from what iterations.csv gives (%v): run go test ./experiments -run TestPagesUpToDate -update (or maple reproduce %s --no-run)",
					r.File.Name, IterationsFigure, ext, err, r.File.Name)
			}
		}
	}
}

func TestSplice(t *testing.T) {
	text := "a\n" + HeadlineStart + "\nold\n" + HeadlineEnd + "\nb\n"
	got, err := Splice(text, "new\n")
	if err != nil || got != "a\n"+HeadlineStart+"\nnew\n"+HeadlineEnd+"\nb\n" {
		t.Fatalf("Splice: %q %v", got, err)
	}
	if _, err := Splice("no markers", "x"); err == nil {
		t.Fatal("Splice without markers: no error")
	}
}

func fromTable(t *testing.T, tab *Table) []Run {
	t.Helper()
	rows, err := RunsOf(tab)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
