package experiments

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// headlineCheck is the committed printout of `maple reproduce cmnist
// --check --sweeps cm-maple`, one seed at a time: the headline's maple
// rows rerun on a later build and compared with runs.csv.
const headlineCheck = "results/cmnist/check-cm-maple.txt"

// TestHeadlineCheckPrintout reads the headline's check printout: for
// every seed of sweep cm-maple in runs.csv it holds the check's
// "every figure as committed" line, no difference, and each rerun's
// figures as runs.csv holds them (to the printout's decimals). A seed
// missing, a difference, or a figure edited fails.
func TestHeadlineCheckPrintout(t *testing.T) {
	docs := filepath.Join("..", "docs")
	b, err := os.ReadFile(filepath.Join(docs, headlineCheck))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := ReadCSV(filepath.Join(ResultsDir(docs, "cmnist"), RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	if probs := checkHeadlinePrintout(string(b), committed); len(probs) > 0 {
		t.Errorf("%s:\n%s", headlineCheck, strings.Join(probs, "\n"))
	}
	for _, c := range []struct{ name, from, to string }{
		{"a figure changed", "test acc 70.0%", "test acc 70.1%"},
		{"a difference", "every figure as committed", "1 differences from"},
	} {
		if !strings.Contains(string(b), c.from) {
			t.Fatalf("%s: no %q in the printout", c.name, c.from)
		}
		if len(checkHeadlinePrintout(strings.Replace(string(b), c.from, c.to, 1), committed)) == 0 {
			t.Errorf("%s: the printout passes", c.name)
		}
	}
}

var (
	checkSeed = regexp.MustCompile(`(?m)^== cmnist: sweep cm-maple, seed (\d+)$`)
	checkDone = regexp.MustCompile(`(?m)^cmnist n=all mlp:390,390 maple:(\w+) seed (\d+) done: test acc ([\d.]+)%, test worst-group ([\d.]+)% \(selected on validation\)$`)
	checkOK   = regexp.MustCompile(`(?m)^cmnist: 2 runs, every figure as committed in docs/results/cmnist/runs\.csv$`)
)

// checkHeadlinePrintout returns what in a check printout disagrees with
// the committed runs.
func checkHeadlinePrintout(text string, committed *Table) []string {
	var probs []string
	want := map[string]map[string]string{} // by "method seed"
	seeds := map[string]bool{}
	for _, r := range committed.Rows {
		if r["sweep"] == "cm-maple" {
			want[r["method"]+" "+r["seed"]] = r
			seeds[r["seed"]] = true
		}
	}
	parts := checkSeed.FindAllStringSubmatchIndex(text, -1)
	checked := map[string]bool{}
	for i, p := range parts {
		seed := text[p[2]:p[3]]
		end := len(text)
		if i+1 < len(parts) {
			end = parts[i+1][0]
		}
		part := text[p[1]:end]
		if !checkOK.MatchString(part) {
			probs = append(probs, fmt.Sprintf("seed %s: no line saying every figure is as committed", seed))
		}
		done := checkDone.FindAllStringSubmatch(part, -1)
		if len(done) != 2 {
			probs = append(probs, fmt.Sprintf("seed %s: %d finished runs, want 2", seed, len(done)))
		}
		for _, d := range done {
			r, ok := want["maple/"+d[1]+" "+d[2]]
			if !ok || d[2] != seed {
				probs = append(probs, fmt.Sprintf("seed %s: maple/%s seed %s has no committed row", seed, d[1], d[2]))
				continue
			}
			for _, f := range []struct{ col, got string }{{"test_acc", d[3]}, {"test_worst", d[4]}} {
				v, err := strconv.ParseFloat(r[f.col], 64)
				if err != nil || fmt.Sprintf("%.1f", v) != f.got {
					probs = append(probs, fmt.Sprintf("seed %s: maple/%s %s %s%%, runs.csv %s", seed, d[1], f.col, f.got, r[f.col]))
				}
			}
		}
		checked[seed] = true
	}
	for s := range seeds {
		if !checked[s] {
			probs = append(probs, fmt.Sprintf("seed %s of cm-maple not checked", s))
		}
	}
	return probs
}
