package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// metricDocs writes a docs directory with one experiment, wb, whose
// file has the line metric (none when ""), and its runs: jtt ranks
// below maple/irmv1 on test accuracy and above it on test worst-group
// accuracy; maple/cvar has one run, at seed 1.
func metricDocs(t *testing.T, metric string) string {
	t.Helper()
	docs := t.TempDir()
	text := "title = \"WB\"\nheadline = [\"maple/irmv1\", \"maple/cvar\"]\n" + metric + "\n[[sweep]]\nname = \"wb\"\nargs = [\"--datasets\", \"waterbirds-sim\"]\n"
	if err := os.MkdirAll(filepath.Join(docs, "experiments"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(docs, "experiments", "wb.toml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(method, hash, objective, supervision string, seed uint64, acc, worst, val float64) Run {
		r := Run{Experiment: "wb", Sweep: "wb", RunID: hash + string(rune('0'+seed)), Commit: "abc", ConfigHash: hash, Dataset: "waterbirds-sim", Model: "linear",
			Method: method, Objective: objective, Seed: seed, Supervision: supervision, Selection: "val worst-group accuracy", GroupsInSelection: true,
			TestAcc: acc, TestWorst: worst, ValWorst: val, Minutes: 0.1, Precision: "f32", Backend: "gonum", Threads: 2}
		if strings.HasPrefix(method, "maple") {
			r.SearchModel = "linear"
		}
		return r
	}
	var rows []Run
	for i, seed := range []uint64{1, 2, 3} {
		d := float64(i)
		rows = append(rows,
			run("erm", "e", "", "none", seed, 64+d, 18+d, 20),
			run("jtt", "j", "", "none", seed, 60+d, 58+2*d, 40),
			run("maple/irmv1", "m", "irmv1", "environments", seed, 75+d, 50+d, 60))
	}
	rows = append(rows, run("maple/cvar", "c", "cvar", "none", 1, 80, 40, 66))
	if err := WriteFiles(ResultsDir(docs, "wb"), rows); err != nil {
		t.Fatal(err)
	}
	return docs
}

// TestMetricCompared: an experiment file's metric is what every
// comparison of its table and of its headline rows is made on, what
// the headline's interval is of, and what the headers and the
// significance lines name; the comparator is still the one validation
// ranks first (jtt). On test accuracy maple/irmv1 is ahead of jtt, on
// test worst-group behind it.
func TestMetricCompared(t *testing.T) {
	for _, tc := range []struct {
		name, metric string
		// Of the page's table: the header of the column "any training", the
		// cells of maple/irmv1 (a test) and maple/cvar (one run: at seed 1).
		head, irmv1, cvar string
		// Of the headline: the interval of maple/irmv1, maple/cvar's column
		// "vs best reading what it reads", and the note that names a metric
		// not the default ("" for none).
		interval, reads, note string
	}{
		{name: "default: test accuracy", metric: "",
			head: "vs best without group labels, any training (on validation)", irmv1: "| jtt (other): +15.0, p = ", cvar: "| jtt (other): +20.0 at seed 1 (n too small for a test) |",
			interval: "| [73.5, 78.5] |", reads: "| jtt (other): +20.0 at seed 1 (n too small for a test) |"},
		{name: "test_acc named", metric: `metric = "test_acc"`,
			head: "vs best without group labels, any training (on validation)", irmv1: "| jtt (other): +15.0, p = ", cvar: "| jtt (other): +20.0 at seed 1 (n too small for a test) |",
			interval: "| [73.5, 78.5] |", reads: "| jtt (other): +20.0 at seed 1 (n too small for a test) |"},
		{name: "test worst-group", metric: `metric = "test_worst"`,
			head: "vs best without group labels, any training (on validation; test worst-group, Welch)", irmv1: "| jtt (other): -9.0, p = ", cvar: "| jtt (other): -18.0 at seed 1 (n too small for a test) |",
			interval: "| worst-group [48.5, 53.5] |", reads: "| jtt (other): -18.0 at seed 1 (n too small for a test) |",
			note: "In the rows of wb, the interval and the comparisons are of test worst-group accuracy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs := metricDocs(t, tc.metric)
			all, err := ReadAll(docs)
			if err != nil {
				t.Fatal(err)
			}
			page := Page(docs, all)
			line := func(text, prefix string) string {
				for _, l := range strings.Split(text, "\n") {
					if strings.HasPrefix(l, prefix) {
						return l
					}
				}
				t.Fatalf("no line starting %q in:\n%s", prefix, text)
				return ""
			}
			if h := line(page, "| method |"); !strings.Contains(h, "| "+tc.head+" |") {
				t.Errorf("header %q, want a column %q", h, tc.head)
			}
			if l := line(page, "| maple/irmv1 |"); !strings.Contains(l, tc.irmv1) {
				t.Errorf("maple/irmv1's row %q, want %q", l, tc.irmv1)
			}
			if l := line(page, "| maple/cvar |"); !strings.Contains(l, tc.cvar) {
				t.Errorf("maple/cvar's row %q, want %q", l, tc.cvar)
			}
			head := Headline(all)
			if l := line(head, "| [wb](docs/experiments/wb.toml) | waterbirds-sim | maple/irmv1 |"); !strings.Contains(l, tc.interval) {
				t.Errorf("headline row %q, want the interval %q", l, tc.interval)
			}
			if l := line(head, "| [wb](docs/experiments/wb.toml) | waterbirds-sim | maple/cvar |"); !strings.Contains(l, tc.reads) {
				t.Errorf("headline row %q, want %q", l, tc.reads)
			}
			if got := strings.Contains(head, "In the rows of"); got != (tc.note != "") || !strings.Contains(head, tc.note) {
				t.Errorf("headline:\n%s\nwant the note %q", head, tc.note)
			}
		})
	}
}

func TestMetricRefused(t *testing.T) {
	_, err := Load(write(t, "title = \"T\"\nmetric = \"test_worst_group\"\n[[sweep]]\nname = \"a\"\n"))
	if err == nil {
		t.Fatal("metric \"test_worst_group\" loaded, want an error")
	}
	for _, want := range []string{"exp.toml", "metric", `"test_worst_group"`, "test_acc", "test_worst"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
