package experiments

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestMerge: a cell finished in the runs directory replaces its
// committed row; a committed cell not run here keeps its row and its
// iterations; a row of a cell the file no longer gives is left out.
func TestMerge(t *testing.T) {
	exp := &File{Name: "e", Sweeps: []Sweep{{Name: "a", Args: []string{"--methods", "erm,maple:rex"}}}}
	row := func(id, method, hash string, seed uint64) Run {
		r := Run{Experiment: "e", Sweep: "a", RunID: id, ConfigHash: hash, Method: method, Seed: seed}
		if method == "maple/rex" {
			r.Objective = "rex"
		}
		return r
	}
	it := func(id string, iter int) Iteration { return Iteration{Sweep: "a", RunID: id, Iter: iter} }
	cells := map[string]bool{CellKey("a", "h-erm", 1): true, CellKey("a", "h-erm", 2): true, CellKey("a", "h-rex", 1): true}
	committed := &Committed{
		Rows:       []Run{row("c1", "erm", "h-erm", 1), row("c2", "erm", "h-erm", 2), row("c3", "maple/rex", "h-rex", 1), row("old", "erm", "h-stale", 1)},
		Iterations: []Iteration{it("c3", 1), it("c3", 2), it("old", 1)},
	}
	for _, tc := range []struct {
		name            string
		fresh           []Run
		freshIts        []Iteration
		wantIDs         []string
		wantIts         []string
		wantKept, stale int
	}{
		{name: "nothing run here", wantIDs: []string{"c1", "c2", "c3"}, wantIts: []string{"c3", "c3"}, wantKept: 3, stale: 1},
		{name: "a fresh run replaces its committed row", fresh: []Run{row("n2", "erm", "h-erm", 2)},
			wantIDs: []string{"c1", "n2", "c3"}, wantIts: []string{"c3", "c3"}, wantKept: 2, stale: 1},
		{name: "a fresh search replaces its iterations too", fresh: []Run{row("n3", "maple/rex", "h-rex", 1)}, freshIts: []Iteration{it("n3", 1)},
			wantIDs: []string{"c1", "c2", "n3"}, wantIts: []string{"n3"}, wantKept: 2, stale: 1},
		{name: "a fresh run of another configuration is left out", fresh: []Run{row("n9", "erm", "h-other", 1)},
			wantIDs: []string{"c1", "c2", "c3"}, wantIts: []string{"c3", "c3"}, wantKept: 3, stale: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, its, st := committed.Merge(exp, cells, tc.fresh, tc.freshIts)
			kept, stale := st.Kept, st.Stale
			var ids, itIDs []string
			for _, r := range rows {
				ids = append(ids, r.RunID)
			}
			for _, it := range its {
				itIDs = append(itIDs, it.RunID)
			}
			if !slices.Equal(ids, tc.wantIDs) || !slices.Equal(itIDs, tc.wantIts) || kept != tc.wantKept || stale != tc.stale {
				t.Errorf("rows %v, iterations %v, kept %d, stale %d; want %v, %v, %d, %d", ids, itIDs, kept, stale, tc.wantIDs, tc.wantIts, tc.wantKept, tc.stale)
			}
		})
	}
}

// TestMergeBorrows: a cell with neither a fresh run nor a committed row
// of its own takes a lender's row of its configuration hash and seed (an
// experiment made with the same build and threads, or another sweep of
// its own), renamed to the experiment and the cell's sweep, with its run
// id, commit and iterations; its own committed row, or a fresh run, comes
// first; a lender of another seed or configuration lends nothing; two
// sweeps of one configuration each take the row, each with its
// iterations once.
func TestMergeBorrows(t *testing.T) {
	exp := &File{Name: "width", Sweeps: []Sweep{{Name: "w", Args: []string{"--methods", "erm,maple:rex"}}, {Name: "w2", Args: []string{"--methods", "maple:rex"}}}}
	lender := func(id, hash string, seed uint64) Run {
		return Run{Experiment: "cmnist", Sweep: "cm", RunID: id, Commit: "abc", ConfigHash: hash, Method: "maple/rex", Objective: "rex", Seed: seed, TestAcc: 69}
	}
	c := &Committed{
		Rows: []Run{{Experiment: "width", Sweep: "w", RunID: "own", ConfigHash: "h-erm", Method: "erm", Seed: 1}},
		Lenders: []Run{lender("L1", "h-rex", 1), lender("L2", "h-rex", 2), lender("L9", "h-other", 1),
			{Experiment: "cmnist", Sweep: "cm", RunID: "Lerm", ConfigHash: "h-erm", Method: "erm", Seed: 1}},
		LenderIterations: []Iteration{{Experiment: "cmnist", Sweep: "cm", RunID: "L1", Iter: 1}, {Experiment: "cmnist", Sweep: "cm", RunID: "L1", Iter: 2},
			{Experiment: "other", Sweep: "x", RunID: "L1", Iter: 7}},
	}
	cells := map[string]bool{CellKey("w", "h-erm", 1): true, CellKey("w", "h-rex", 1): true, CellKey("w", "h-rex", 3): true, CellKey("w2", "h-rex", 1): true}
	rows, its, st := c.Merge(exp, cells, nil, nil)
	var got []string
	for _, r := range rows {
		got = append(got, r.Experiment+"/"+r.Sweep+"/"+r.RunID+"/"+r.Commit)
	}
	want := []string{"width/w/own/", "width/w/L1/abc", "width/w2/L1/abc"}
	if !slices.Equal(got, want) || st.Kept != 1 || st.Borrowed != 2 || st.Stale != 0 {
		t.Errorf("rows %v, %+v; want %v, kept 1, borrowed 2 (seed 3 has no lender; erm seed 1 its own row)", got, st, want)
	}
	var itGot []string
	for _, it := range its {
		itGot = append(itGot, it.Experiment+"/"+it.Sweep+"/"+it.RunID+"/"+strconv.Itoa(it.Iter))
	}
	itWant := []string{"width/w/L1/1", "width/w/L1/2", "width/w2/L1/1", "width/w2/L1/2"}
	if !slices.Equal(itGot, itWant) {
		t.Errorf("iterations %v, want %v (the lender's, renamed, once per borrowing cell; not another experiment's run of the same id)", itGot, itWant)
	}
	if !c.Lends("h-rex", 2) || c.Lends("h-rex", 3) {
		t.Error("Lends: want true for a lender's configuration and seed, false for a seed no lender ran")
	}
	fresh := []Run{{Experiment: "width", Sweep: "w", RunID: "new", ConfigHash: "h-rex", Method: "maple/rex", Objective: "rex", Seed: 1}}
	rows, _, st = c.Merge(exp, cells, fresh, nil)
	got = got[:0]
	for _, r := range rows {
		got = append(got, r.Sweep+"/"+r.RunID)
	}
	if want := []string{"w/own", "w/new", "w2/L1"}; !slices.Equal(got, want) || st.Borrowed != 1 {
		t.Errorf("with a fresh run: rows %v, %+v; want %v, borrowed 1", got, st, want)
	}
}

// TestReadLenders: the lenders are the committed rows of the experiments
// made with the same build and thread count, the experiment's own
// included; another build's rows lend nothing, and an experiment with an
// env neither lends nor borrows.
func TestReadLenders(t *testing.T) {
	docs := t.TempDir()
	files := map[string]string{
		"a": "title = \"A\"\nbuild = \"openblas\"\nthreads = 2\n[[sweep]]\nname = \"s\"\nargs = []\n",
		"b": "title = \"B\"\nbuild = \"openblas\"\nthreads = 2\n[[sweep]]\nname = \"t\"\nargs = []\n",
		"c": "title = \"C\"\nbuild = \"\"\nthreads = 2\n[[sweep]]\nname = \"u\"\nargs = []\n",
		"d": "title = \"D\"\nbuild = \"openblas\"\nthreads = 2\n[env]\nOPENBLAS_CORETYPE = \"SandyBridge\"\n[[sweep]]\nname = \"v\"\nargs = []\n",
	}
	if err := os.MkdirAll(filepath.Join(docs, "experiments"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(docs, "experiments", name+".toml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		r := Run{Experiment: name, Sweep: "s", RunID: "id-" + name, ConfigHash: "h", Dataset: "cmnist", Method: "erm", Seed: 1}
		if err := WriteFiles(ResultsDir(docs, name), []Run{r}); err != nil {
			t.Fatal(err)
		}
	}
	exp, err := Load(filepath.Join(docs, "experiments", "a.toml"))
	if err != nil {
		t.Fatal(err)
	}
	c := &Committed{}
	if err := c.ReadLenders(docs, exp); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range c.Lenders {
		ids = append(ids, r.RunID)
	}
	if want := []string{"id-a", "id-b"}; !slices.Equal(ids, want) {
		t.Errorf("lenders %v, want %v (c is the pure-Go build's, d's rows are made in an environment of their own)", ids, want)
	}
	// An experiment with an env borrows nothing, not even its own build's.
	exp, err = Load(filepath.Join(docs, "experiments", "d.toml"))
	if err != nil {
		t.Fatal(err)
	}
	c = &Committed{}
	if err := c.ReadLenders(docs, exp); err != nil {
		t.Fatal(err)
	}
	if len(c.Lenders) != 0 {
		t.Errorf("d (with an env) borrowed %d rows, want none", len(c.Lenders))
	}
}

// TestDescribeCells: a committed row's settings are rewritten to what the
// current build names its cell's configuration (a default changed since
// the row was written: its text left out the evaluation it then had by
// default); a row of no described cell keeps its text.
func TestDescribeCells(t *testing.T) {
	rows := []Run{
		{Sweep: "a", ConfigHash: "h1", Seed: 1, Settings: "keep-lr 0.05"},
		{Sweep: "a", ConfigHash: "h2", Seed: 1, Settings: "keep-lr 1.5"},
	}
	DescribeCells(rows, map[string]string{CellKey("a", "h1", 1): "eval-lr 0.1; keep-lr 0.05", CellKey("a", "h2", 2): "other seed"})
	if rows[0].Settings != "eval-lr 0.1; keep-lr 0.05" {
		t.Errorf("described row: settings %q, want the cell's %q", rows[0].Settings, "eval-lr 0.1; keep-lr 0.05")
	}
	if rows[1].Settings != "keep-lr 1.5" {
		t.Errorf("row of no described cell: settings %q, want its own %q", rows[1].Settings, "keep-lr 1.5")
	}
}

// TestDirtyRowsDoNotStand: a committed row made by a binary built from a
// checkout with uncommitted changes (a commit ending -dirty) does not
// stand for its cell, its own or lent: maple reproduce trains the cell
// again, as it does a missing one. Until a fresh run replaces it, Merge
// keeps its own row (maple reproduce --no-run, or an interrupted rerun,
// loses no figure; the pages mark it), but no cell borrows such a row.
func TestDirtyRowsDoNotStand(t *testing.T) {
	exp := &File{Name: "e", Sweeps: []Sweep{{Name: "a", Args: []string{"--methods", "erm"}}, {Name: "b", Args: []string{"--methods", "erm"}}}}
	row := func(sweep, id, commit string, seed uint64) Run {
		return Run{Experiment: "e", Sweep: sweep, RunID: id, Commit: commit, ConfigHash: "h", Method: "erm", Seed: seed}
	}
	c := &Committed{
		Rows:    []Run{row("a", "clean", "abc1234", 1), row("a", "dirty", "abc1234-dirty", 2)},
		Lenders: []Run{row("a", "clean", "abc1234", 1), row("a", "dirty", "abc1234-dirty", 2)},
	}
	for _, tc := range []struct {
		name  string
		sweep string
		seed  uint64
		want  bool
	}{
		{"a clean row of its own", "a", 1, true},
		{"a dirty row of its own", "a", 2, false},
		{"a clean row lent to another sweep", "b", 1, true},
		{"a dirty row lent to another sweep", "b", 2, false},
		{"no row", "a", 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.Stands(tc.sweep, "h", tc.seed); got != tc.want {
				t.Errorf("Stands(%s, h, %d) = %v, want %v", tc.sweep, tc.seed, got, tc.want)
			}
		})
	}
	if got := c.Dirty(); got != 1 {
		t.Errorf("Dirty() = %d, want 1", got)
	}
	cells := map[string]bool{CellKey("a", "h", 1): true, CellKey("a", "h", 2): true, CellKey("b", "h", 1): true, CellKey("b", "h", 2): true}
	rows, _, st := c.Merge(exp, cells, nil, nil)
	var got []string
	for _, r := range rows {
		got = append(got, r.Sweep+"/"+r.RunID)
	}
	if want := []string{"a/clean", "a/dirty", "b/clean"}; !slices.Equal(got, want) || st.Kept != 2 || st.Borrowed != 1 {
		t.Errorf("Merge without fresh runs: %v, %+v; want %v, kept 2, borrowed 1 (the dirty row kept as its own cell's, lent to none)", got, st, want)
	}
	fresh := []Run{row("a", "rerun", "def5678", 2)}
	rows, _, _ = c.Merge(exp, cells, fresh, nil)
	got = got[:0]
	for _, r := range rows {
		got = append(got, r.Sweep+"/"+r.RunID)
	}
	if want := []string{"a/clean", "a/rerun", "b/clean"}; !slices.Equal(got, want) {
		t.Errorf("Merge with the cell rerun: %v, want %v (sweep b's seed 2 runs its own cell)", got, want)
	}
}

// TestMergeLenderReplacesDirtyRow: a committed row of a -dirty build
// stands for no cell, so a clean lender of its configuration and seed
// takes its place, as reproduce says ("their cells are trained again",
// then "not rerun": the lender stands for them). Before, the dirty row
// was kept beside the clean lender and the page kept its †. Without a
// lender the dirty row stays (marked) until its cell is trained again.
func TestMergeLenderReplacesDirtyRow(t *testing.T) {
	exp := &File{Name: "precision", Sweeps: []Sweep{{Name: "f32", Args: []string{"--methods", "maple:rex"}}}}
	c := &Committed{
		Rows: []Run{
			{Experiment: "precision", Sweep: "f32", RunID: "d1", Commit: "abc-dirty", ConfigHash: "h", Seed: 1},
			{Experiment: "precision", Sweep: "f32", RunID: "d2", Commit: "abc-dirty", ConfigHash: "h", Seed: 2},
		},
		Iterations: []Iteration{{Experiment: "precision", Sweep: "f32", RunID: "d1", Iter: 1}},
		Lenders:    []Run{{Experiment: "cmnist", Sweep: "cm", RunID: "L1", Commit: "def", ConfigHash: "h", Seed: 1}},
		LenderIterations: []Iteration{{Experiment: "cmnist", Sweep: "cm", RunID: "L1", Iter: 1},
			{Experiment: "cmnist", Sweep: "cm", RunID: "L1", Iter: 2}},
	}
	cells := map[string]bool{CellKey("f32", "h", 1): true, CellKey("f32", "h", 2): true}
	rows, its, st := c.Merge(exp, cells, nil, nil)
	var got []string
	for _, r := range rows {
		got = append(got, r.RunID+"/"+r.Commit)
	}
	if want := []string{"L1/def", "d2/abc-dirty"}; !slices.Equal(got, want) || st.Borrowed != 1 || st.Kept != 1 {
		t.Errorf("rows %v, %+v; want %v: the clean lender for seed 1, the dirty row kept for seed 2 (no lender)", got, st, want)
	}
	if len(its) != 2 || its[0].RunID != "L1" {
		t.Errorf("iterations %+v, want the lender's two (the dirty row's left with it)", its)
	}
}
