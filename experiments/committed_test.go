package experiments

import (
	"slices"
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
			rows, its, kept, stale := committed.Merge(exp, cells, tc.fresh, tc.freshIts)
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
