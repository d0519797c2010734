package experiments

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// evidenceRow is a summary row of the fixtures below: cmnist at every
// size, one model, a method in a sweep.
func evidenceRow(sweep, method, hash, supervision, val string) map[string]string {
	return map[string]string{"sweep": sweep, "method": method, "config_hash": hash, "dataset": "cmnist", "train_size": "0", "model": "mlp:64,64", "settings": "",
		"supervision": supervision, "group_labels_training": "no", "n": "3", "test_acc_mean": "70", "test_acc_sd": "1", "val_worst_mean": val, "selection": "val worst-group accuracy"}
}

// evidenceRuns is runs.csv's rows: each configuration's test accuracies
// at seeds 1, 2, ..., made by commit.
func evidenceRuns(commit map[string]string, accs map[string][]float64) *Table {
	t := &Table{}
	for hash, as := range accs {
		for i, a := range as {
			t.Rows = append(t.Rows, map[string]string{"config_hash": hash, "seed": fmt.Sprint(i + 1), "test_acc": fmt.Sprint(a), "commit": commit[hash]})
		}
	}
	return t
}

// TestTableHolm: every comparison of a column that makes several tests
// prints its raw p and, beside it, its p adjusted by Holm's method over
// that column; the sentence below the table calls a difference
// significant only where the adjusted p is below 0.05, not where the raw
// one is (row "near" here: raw p below 0.05, adjusted above).
func TestTableHolm(t *testing.T) {
	accs := map[string][]float64{"ref": {70, 71, 72}, "far": {50, 50.5, 51}, "near": {67.5, 68.5, 69.3}, "level": {69, 71, 72}}
	rows := []map[string]string{evidenceRow("a-ref", "maple/irmv1", "ref", "environments", "70"), evidenceRow("a-far", "maple/irmv1", "far", "environments", "50"),
		evidenceRow("a-near", "maple/irmv1", "near", "environments", "68"), evidenceRow("a-level", "maple/irmv1", "level", "environments", "70")}
	r := Results{File: &File{Name: "e", Title: "E", Reference: "a-ref", Sweeps: []Sweep{{Name: "a-ref"}, {Name: "a-far"}, {Name: "a-near"}, {Name: "a-level"}}},
		Summary: &Table{Rows: rows}, Runs: evidenceRuns(nil, accs)}
	var p []float64
	for _, h := range []string{"far", "near", "level"} {
		_, _, _, pv, ok := Welch(accs[h], accs["ref"])
		if !ok {
			t.Fatalf("fixture: no test for %s", h)
		}
		p = append(p, pv)
	}
	holm := Holm(p)
	if p[1] >= 0.05 || holm[1] < 0.05 || holm[0] >= 0.05 {
		t.Fatalf("fixture: raw p %v, Holm %v: want near significant raw and not after Holm, far after both", p, holm)
	}
	var b strings.Builder
	section(&b, t.TempDir(), r)
	page := b.String()
	for i, h := range []string{"far", "near", "level"} {
		want := fmt.Sprintf("p = %.2g (Holm p = %.2g)", p[i], holm[i])
		if !strings.Contains(page, want) {
			t.Errorf("row %s: no %q in the table:\n%s", h, want, page)
		}
	}
	want := "3 tests, significant after Holm's correction only maple/irmv1 (a-far) -20.5."
	if !strings.Contains(page, want) {
		t.Errorf("the sentence below the table: want %q in\n%s", want, page)
	}
	// One test in a column: nothing to adjust.
	one := Results{File: r.File, Summary: &Table{Rows: rows[:2]}, Runs: r.Runs}
	b.Reset()
	section(&b, t.TempDir(), one)
	if strings.Contains(b.String(), "Holm") {
		t.Errorf("a column of one test shows a Holm p:\n%s", b.String())
	}
}

// TestDirtyRowsMarked: a row resting on a run made by a binary built
// from a checkout with uncommitted changes (a commit ending -dirty) is
// marked, in the table and in the headline, and so is a comparison with
// such a row; a note below says what the mark means. Rows of clean
// commits carry no mark.
func TestDirtyRowsMarked(t *testing.T) {
	rows := []map[string]string{evidenceRow("s", "maple/rex", "m", "environments", "70"), evidenceRow("s", "rex", "x", "environments", "66"), evidenceRow("s", "jtt", "j", "none", "69")}
	accs := map[string][]float64{"m": {70, 71, 72}, "x": {68, 69, 70}, "j": {70, 71, 71.5}}
	for _, c := range []struct {
		name   string
		commit map[string]string
		marked []string // the table's rows that begin with the mark
		cells  int      // marked cells in maple's row, its method's included (no baseline is chosen alike, and no oracle: two cells compare)
	}{
		{name: "clean", commit: map[string]string{"m": "abc1234", "x": "abc1234", "j": "abc1234"}},
		{name: "maple's runs dirty", commit: map[string]string{"m": "abc1234-dirty", "x": "abc1234", "j": "abc1234"}, marked: []string{"maple/rex"}, cells: 3},
		{name: "a comparator's runs dirty", commit: map[string]string{"m": "abc1234", "x": "abc1234-dirty", "j": "abc1234"}, marked: []string{"rex"}, cells: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Results{File: &File{Name: "e", Title: "E", Headline: []string{"maple/rex"}, Sweeps: []Sweep{{Name: "s"}}}, Summary: &Table{Rows: rows}, Runs: evidenceRuns(c.commit, accs)}
			var b strings.Builder
			section(&b, t.TempDir(), r)
			page := b.String()
			for _, m := range []string{"maple/rex", "rex", "jtt"} {
				if got, want := strings.Contains(page, "| "+m+" "+dirtyMark+" |"), slices.Contains(c.marked, m); got != want {
					t.Errorf("row %s marked %v, want %v:\n%s", m, got, want, page)
				}
			}
			var maple string
			for _, l := range strings.Split(page, "\n") {
				if strings.HasPrefix(l, "| maple/rex") {
					maple = l
				}
			}
			if got := strings.Count(maple, dirtyMark); got != c.cells {
				t.Errorf("maple's row has %d marks, want %d: %s", got, c.cells, maple)
			}
			if got := strings.Contains(page, dirtyNote); got != (c.cells > 0) {
				t.Errorf("note below the table: %v, want %v", got, c.cells > 0)
			}
			head := Headline([]Results{r})
			if got := strings.Contains(head, dirtyNote); got != (c.cells > 0) {
				t.Errorf("note below the headline: %v, want %v:\n%s", got, c.cells > 0, head)
			}
		})
	}
}

// TestVersusReads: a maple row is also compared with the method that
// reads what it reads (maple/rex's environments: IRMv1 or REx) that
// validation ranks first, at any training; a method reading other labels
// (JTT, group DRO) or of another size is no comparator.
func TestVersusReads(t *testing.T) {
	rows := []map[string]string{evidenceRow("s", "maple/rex", "m", "environments", "70"), evidenceRow("s", "irmv1", "i", "environments", "55"),
		evidenceRow("s", "rex", "x", "environments", "66"), evidenceRow("s", "jtt", "j", "none", "69"), evidenceRow("s", "groupdro", "g", "groups", "71")}
	other := evidenceRow("s", "rex", "x2", "environments", "90")
	other["train_size"] = "10000"
	rows = append(rows, other)
	runs := evidenceRuns(nil, map[string][]float64{"m": {70, 71, 72}, "i": {60, 66, 68}, "x": {68, 69, 70}, "j": {70, 71, 71.5}, "g": {70, 70, 71}, "x2": {80, 81, 82}})
	r := Results{File: &File{}, Summary: &Table{Rows: rows}, Runs: runs}
	want := "rex (own recipe): " + welchText([]float64{70, 71, 72}, []float64{68, 69, 70})
	if got := versusReads(rows[0], rows, r).String(); got != want {
		t.Errorf("versusReads: %q, want %q", got, want)
	}
	if got := versusReads(rows[2], rows, r).String(); got != "" {
		t.Errorf("versusReads of a baseline's row: %q, want empty", got)
	}
}

// TestAnchorsColumn: an experiment's anchors (published figures, the
// authors' code) make a column beside the rows of their method and a
// list below the table with each anchor's source and why maple's rows
// differ; a file's anchor without a source is refused.
func TestAnchorsColumn(t *testing.T) {
	rows := []map[string]string{evidenceRow("s", "maple/rex", "m", "environments", "70"), evidenceRow("s", "erm", "e", "none", "4")}
	f := &File{Name: "e", Title: "E", Sweeps: []Sweep{{Name: "s"}}, Anchors: []Anchor{
		{Method: "erm", Figure: "17.1 ± 0.6", Label: "IRM paper", Source: "Arjovsky et al. 2019, Table 1", Why: "Adam's smaller steps."},
		{Method: "erm", Figure: "18.0", Label: "another", Source: "elsewhere"},
	}}
	r := Results{File: f, Summary: &Table{Rows: rows}, Runs: evidenceRuns(nil, map[string][]float64{"m": {70, 71, 72}, "e": {13, 14, 15}})}
	var b strings.Builder
	section(&b, t.TempDir(), r)
	page := b.String()
	for _, want := range []string{"| published, or the authors' code (test acc) |", "| 17.1 ± 0.6 (IRM paper); 18.0 (another) |",
		"- **erm 17.1 ± 0.6** (IRM paper). Source: Arjovsky et al. 2019, Table 1. Adam's smaller steps.\n", "- **erm 18.0** (another). Source: elsewhere.\n"} {
		if !strings.Contains(page, want) {
			t.Errorf("no %q in:\n%s", want, page)
		}
	}
	var maple string
	for _, l := range strings.Split(page, "\n") {
		if strings.HasPrefix(l, "| maple/rex") {
			maple = l
		}
	}
	if !strings.Contains(maple, "| 70.0 ± 1.0 | - |  | ") {
		t.Errorf("maple's row, without an anchor of its method: want an empty anchors cell after its interval: %s", maple)
	}
	path := filepath.Join(t.TempDir(), "a.toml")
	if err := os.WriteFile(path, []byte("title = \"A\"\n[[sweep]]\nname = \"s\"\nargs = []\n[[anchor]]\nmethod = \"erm\"\nfigure = \"17.1\"\nlabel = \"IRM paper\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "anchor 1") {
		t.Errorf("an anchor without a source: %v, want refused naming it", err)
	}
}

// dirtyCeiling is, per experiment, how many rows of its committed
// runs.csv were made by a binary built with uncommitted changes (a
// commit ending -dirty) when their reruns on clean builds began. Nobody
// can build such a binary again, so no committed row should come from
// one. Lower each figure as reruns replace the rows; at 0 everywhere the
// test below demands that no row be dirty.
var dirtyCeiling = map[string]int{"cmnist": 6, "fashion": 47, "precision": 6, "synthetic": 0, "width": 39}

// TestDirtyRowsOnlyFall fails when an experiment's committed runs.csv
// (docs/results/NAME, not the archive) holds more rows of -dirty builds
// than its ceiling: their number may only fall. It logs where it has
// fallen below the ceiling, so that the ceiling can follow.
func TestDirtyRowsOnlyFall(t *testing.T) {
	all, err := ReadAll(filepath.Join("..", "docs"))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, r := range all {
		if r.Runs == nil {
			continue
		}
		n := 0
		for _, row := range r.Runs.Rows {
			if dirtyCommit(row["commit"]) {
				n++
			}
		}
		total += n
		switch ceiling := dirtyCeiling[r.File.Name]; {
		case n > ceiling:
			t.Errorf("experiment %s: %d committed rows of -dirty builds, at most %d allowed: rerun them with maple reproduce %s on a clean build", r.File.Name, n, ceiling, r.File.Name)
		case n < ceiling:
			t.Logf("experiment %s: %d rows of -dirty builds, below its ceiling %d: lower dirtyCeiling to %d", r.File.Name, n, ceiling, n)
		}
	}
	if total > 0 {
		t.Logf("%d committed rows still come from -dirty builds", total)
	}
}
