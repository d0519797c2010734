package experiments

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestChoose: per configuration and seed, the run with the highest
// validation worst-group accuracy among the choice's sweeps; a tie goes
// to the sweep listed first; a seed some sweep lacks is not chosen;
// methods, datasets and other sweeps are kept apart, and a
// configuration not every sweep has run is no choice.
func TestChoose(t *testing.T) {
	runs, err := ParseCSV(`sweep,dataset,train_size,model,method,seed,val_worst,test_acc,test_worst
a,cm,0,mlp,maple/rex,1,70,71,60
b,cm,0,mlp,maple/rex,1,72,65,61
a,cm,0,mlp,maple/rex,2,69,70,62
b,cm,0,mlp,maple/rex,2,69,75,63
a,cm,0,mlp,maple/rex,3,80,70,64
c,cm,0,mlp,maple/rex,3,99,99,99
a,cm,0,mlp,maple/irmv1,1,60,50,40
b,cm,0,mlp,maple/irmv1,1,59,90,41
a,cm,0,mlp,erm,1,10,10,10
c,cm,0,mlp,erm,1,90,90,90
`)
	if err != nil {
		t.Fatal(err)
	}
	got := Choice{Name: "x", Sweeps: []string{"a", "b"}}.Choose(runs)
	if len(got) != 2 {
		t.Fatalf("%d configurations, want 2: %+v", len(got), got)
	}
	for _, tc := range []struct {
		name       string
		ch         Chosen
		method     string
		picks      string // sweep:test_acc per chosen seed
		incomplete string
	}{
		{"higher validation wins, a tie goes to the first sweep, a seed one sweep lacks is left out", got[0], "maple/rex", "b:65 a:70", "3"},
		{"chosen on validation, not on test", got[1], "maple/irmv1", "a:50", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var picks []string
			for _, r := range tc.ch.Runs {
				picks = append(picks, r["sweep"]+":"+r["test_acc"])
			}
			if tc.ch.Method != tc.method || strings.Join(picks, " ") != tc.picks || strings.Join(tc.ch.Incomplete, ",") != tc.incomplete {
				t.Fatalf("%s: picks %v, incomplete %v; want %s, %s", tc.ch.Method, picks, tc.ch.Incomplete, tc.picks, tc.incomplete)
			}
		})
	}
	if m, ok := got[0].sweepMean(runs, "a", "test_acc"); !ok || m != 70.5 {
		t.Fatalf("sweep a alone over the chosen seeds: %v %v, want 70.5", m, ok)
	}
}

// TestDefaultIsChoice: a maple search's default final training (the
// MAPLE code's and the shared one, validation choosing) gives, seed for
// seed, the row the experiment's [[choice]] picks from the sweeps that
// trained the same searches' weights by one of the two alone: the runs'
// choice and the table's are one computation, read from the committed
// CSVs.
func TestDefaultIsChoice(t *testing.T) {
	all, err := ReadAll(filepath.Join("..", "docs"))
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, tc := range []struct{ exp, sweep, choice string }{
		{"cmnist", "cm-maple", "cm-maple-chosen"},
		{"fashion", "fashion-maple", "fashion-maple-chosen"},
	} {
		i := slices.IndexFunc(all, func(r Results) bool { return r.File.Name == tc.exp })
		if i < 0 {
			t.Fatalf("no experiment %s", tc.exp)
		}
		r := all[i]
		j := slices.IndexFunc(r.File.Choices, func(c Choice) bool { return c.Name == tc.choice })
		if j < 0 {
			t.Fatalf("experiment %s has no choice %s", tc.exp, tc.choice)
		}
		for _, ch := range r.File.Choices[j].Choose(r.Runs) {
			for _, picked := range ch.Runs {
				k := slices.IndexFunc(r.Runs.Rows, func(x map[string]string) bool {
					return x["sweep"] == tc.sweep && x["dataset"] == ch.Dataset && x["train_size"] == ch.TrainSize && x["model"] == ch.Model &&
						x["method"] == ch.Method && x["seed"] == picked["seed"]
				})
				if k < 0 {
					continue // the default's run of this seed is not committed yet
				}
				def := r.Runs.Rows[k]
				compared++
				for _, col := range []string{"selected_iterate", "selected_step", "test_acc", "test_worst", "val_worst"} {
					if def[col] != picked[col] {
						t.Errorf("%s %s seed %s: %s %s in %s, %s in the choice's pick (%s)", tc.exp, ch.Method, picked["seed"], col, def[col], tc.sweep, picked[col], picked["sweep"])
					}
				}
			}
		}
	}
	if compared == 0 {
		t.Skip("no default run and choice of the same seed are committed yet")
	}
	t.Logf("%d runs compared", compared)
}

// TestChoiceTableModels: a choice whose configurations differ in their
// model (a width study) names each row's model, rows in order of
// training size (every image last) and width;
// one whose configurations share a model has no model column.
func TestChoiceTableModels(t *testing.T) {
	runs, err := ParseCSV(`sweep,dataset,train_size,model,method,seed,val_worst,test_acc,test_worst
a,cm,0,mlp:390,oracle,1,70,71,60
b,cm,0,mlp:390,oracle,1,72,65,61
a,cm,0,mlp:64,oracle,1,70,60,50
b,cm,0,mlp:64,oracle,1,69,75,63
a,cm,10000,mlp:64,oracle,1,70,60,50
b,cm,10000,mlp:64,oracle,1,69,75,63
a,cm,5000,mlp:64,oracle,1,70,60,50
b,cm,5000,mlp:64,oracle,1,69,75,63
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		runs  *Table
		lines []string // the table's header and rows, each a prefix of its line
	}{
		{"two widths, three sizes", runs, []string{"| dataset | model | method |", "| cm n=5000 | mlp:64 | oracle | seed 1: a |", "| cm n=10000 | mlp:64 | oracle | seed 1: a |",
			"| cm | mlp:64 | oracle | seed 1: a |", "| cm | mlp:390 | oracle | seed 1: b |"}},
		{"one width", &Table{Rows: runs.Rows[:2]}, []string{"| dataset | method |", "| cm | oracle | seed 1: b |"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			choiceSection(&b, Results{File: &File{Choices: []Choice{{Name: "c", Sweeps: []string{"a", "b"}}}}, Runs: tc.runs})
			var table []string
			for _, l := range strings.Split(b.String(), "\n") {
				if strings.HasPrefix(l, "| ") {
					table = append(table, l)
				}
			}
			if len(table) != len(tc.lines) {
				t.Fatalf("%d table lines, want %d:\n%s", len(table), len(tc.lines), b.String())
			}
			for i, want := range tc.lines {
				if !strings.HasPrefix(table[i], want) {
					t.Errorf("line %d: %q, want it to start %q", i, table[i], want)
				}
			}
		})
	}
}
