package sweeps

import (
	"strconv"
	"strings"
	"testing"

	"github.com/maple-ood/maple/runs"
)

// TestSearchDraws: a trial's draws repeat with the seed, differ between
// trials and seeds, stay inside their distributions, and leave out the
// flags given on the command line.
func TestSearchDraws(t *testing.T) {
	s := Search{Trials: 3, Seed: 7}
	a, err := s.Draw("irmv1", 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Draw("irmv1", 2, nil)
	c, _ := s.Draw("irmv1", 3, nil)
	d, _ := Search{Seed: 8}.Draw("irmv1", 2, nil)
	if a["penalty"] == "" || a["eval-lr"] == "" || a["penalty-anneal"] == "" {
		t.Fatalf("irmv1's draw %v lacks its penalty, anneal or the shared learning rate", a)
	}
	if a["penalty"] != b["penalty"] || a["penalty"] == c["penalty"] || a["penalty"] == d["penalty"] {
		t.Fatalf("draws: trial 2 %v, again %v, trial 3 %v, seed 8 %v", a, b, c, d)
	}
	fixed, _ := s.Draw("irmv1", 2, map[string]bool{"eval-lr": true})
	if _, ok := fixed["eval-lr"]; ok || fixed["penalty"] != a["penalty"] {
		t.Fatalf("with --eval-lr given: %v (the other draws must not move)", fixed)
	}
	for trial := 1; trial <= 300; trial++ {
		m, _ := s.Draw("maple:rex", trial, nil)
		for flag, lim := range map[string][2]float64{"weight-lr": {0.03, 1}, "keep-lr": {0.01, 3}, "inner-lr": {0.02, 0.3}} {
			x, err := strconv.ParseFloat(m[flag], 64)
			if err != nil || x < lim[0]*(1-1e-3) || x > lim[1]*(1+1e-3) {
				t.Fatalf("trial %d: %s %q outside [%g, %g]", trial, flag, m[flag], lim[0], lim[1])
			}
		}
		j, _ := s.Draw("jtt", trial, nil)
		if n, err := strconv.Atoi(j["jtt-steps"]); err != nil || n < 20 || n > 300 {
			t.Fatalf("jtt-steps %q: want a whole number in [20, 300]", j["jtt-steps"])
		}
	}
}

// TestSearchCells: a random search makes trials x seeds cells per
// method, the trial in the label, the drawn values in the config (and so
// in the hash), a seed's cells of one trial sharing its draw.
func TestSearchCells(t *testing.T) {
	g, err := ParseGrid("synthetic", "erm,maple:rex", "1,2", "", "")
	if err != nil {
		t.Fatal(err)
	}
	g.Search = Search{Trials: 3, Seed: 1}
	cells, err := g.Cells(runs.DefaultConfig("synthetic"), map[string]bool{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2*3*2 {
		t.Fatalf("%d cells, want 12", len(cells))
	}
	hashes := map[string]bool{}
	lr := map[int]map[float64]bool{}
	for _, c := range cells {
		hashes[c.Config.Hash(false)] = true
		tr := Trial(c.Label)
		if tr < 1 || tr > 3 || !strings.Contains(LabelText(c.Label), " trial ") {
			t.Fatalf("label %q: want a trial 1-3", c.Label)
		}
		if c.Config.Method == "erm" {
			if lr[tr] == nil {
				lr[tr] = map[float64]bool{}
			}
			lr[tr][c.Config.Eval.LR] = true
		}
	}
	if len(hashes) != 12 {
		t.Fatalf("%d distinct hashes, want 12", len(hashes))
	}
	for tr, v := range lr {
		if len(v) != 1 {
			t.Fatalf("trial %d: its seeds drew different learning rates %v", tr, v)
		}
	}
	if len(lr) != 3 {
		t.Fatalf("erm trials %v", lr)
	}
}
