package experiments

import (
	"math"
	"strings"
	"testing"
)

// TestReruns: runs of one configuration and seed with the same backend
// and threads pair up (a row lent to a second experiment counts once);
// another seed, backend or thread count does not; the section counts
// the pairs that agree and lists those that differ, with the largest
// difference.
func TestReruns(t *testing.T) {
	run := func(id, hash, seed, backend, threads, acc, commit string) map[string]string {
		return map[string]string{"run_id": id, "config_hash": hash, "seed": seed, "backend": backend, "threads": threads,
			"test_acc": acc, "commit": commit, "method": "maple/rex", "sweep": "s-" + id}
	}
	a := Results{File: &File{Name: "a"}, Runs: &Table{Rows: []map[string]string{
		run("r1", "h", "1", "ob", "2", "70.0400", "aaaaaaaaaa"),
		run("r2", "h", "2", "ob", "2", "69.9300", "bbbbbbbbbb-dirty"),
		run("r3", "h", "3", "ob", "2", "71.0000", "cccccccccc"),
	}}}
	b := Results{File: &File{Name: "b"}, Runs: &Table{Rows: []map[string]string{
		run("r1", "h", "1", "ob", "2", "70.0400", "aaaaaaaaaa"), // lent: the same run
		run("r4", "h", "1", "ob", "2", "70.0400", "dddddddddd"), // agrees
		run("r5", "h", "2", "ob", "2", "69.4100", "eeeeeeeeee"), // differs by -0.52
		run("r6", "h", "3", "go", "2", "60.0000", "ffffffffff"), // another backend
		run("r7", "h", "3", "ob", "1", "60.0000", "ffffffffff"), // other threads
	}}}
	rr := Reruns([]Results{a, b})
	if len(rr) != 2 {
		t.Fatalf("%d pairs, want 2: %+v", len(rr), rr)
	}
	if rr[0].Seed != "1" || rr[0].Diff != 0 || rr[1].Seed != "2" || rr[1].A["run_id"] != "r2" || rr[1].B["run_id"] != "r5" {
		t.Errorf("pairs %+v", rr)
	}
	if d := rr[1].Diff; d > -0.5199 || d < -0.5201 {
		t.Errorf("difference %g, want -0.52", d)
	}
	var s strings.Builder
	rerunsSection(&s, []Results{a, b})
	for _, want := range []string{"hold 2 pairs", "1 agree", "1 differ, by up to 0.52 points",
		"| maple/rex | h | 2 | s-r2 r2, bbbbbbb-dirty | 69.9300 | s-r5 r5, eeeeeee | 69.4100 | -0.52 |"} {
		if !strings.Contains(s.String(), want) {
			t.Errorf("section lacks %q:\n%s", want, s.String())
		}
	}
	// Without a pair the section stays, saying so (pages link to it).
	s.Reset()
	rerunsSection(&s, nil)
	if got := s.String(); !strings.Contains(got, "## Reruns of one configuration") || !strings.Contains(got, "no two runs of one configuration") {
		t.Errorf("section without pairs:\n%s", got)
	}
}

// TestSpread: a clean row of an experiment with an env pairs with the
// earliest clean row of its configuration, seed and threads made by the
// same build without one; a dirty row, another build's or another
// thread count's does not pair; the section gives each pair, the count
// that agree and the largest and root-mean-square differences.
func TestSpread(t *testing.T) {
	run := func(id, seed, threads, acc, worst, commit string) map[string]string {
		return map[string]string{"run_id": id, "config_hash": "h", "seed": seed, "threads": threads,
			"test_acc": acc, "test_worst": worst, "commit": commit, "method": "maple/irmv1"}
	}
	plain := Results{File: &File{Name: "cmnist", Build: "openblas,onednn"}, Runs: &Table{Rows: []map[string]string{
		run("p2", "1", "2", "70.5000", "69.0000", "aaaaaaa"), // a later rerun: the earliest row stands
		run("p1", "1", "2", "70.0000", "68.0000", "aaaaaaa"),
		run("p3", "2", "2", "71.0000", "70.0000", "bbbbbbb-dirty"), // dirty: pairs with nothing
		run("p4", "3", "1", "69.0000", "68.0000", "ccccccc"),       // other threads
	}}}
	other := Results{File: &File{Name: "go", Build: ""}, Runs: &Table{Rows: []map[string]string{
		run("g1", "3", "2", "10.0000", "10.0000", "ddddddd"), // another build
	}}}
	env := Results{File: &File{Name: "spread", Build: "openblas,onednn", Env: map[string]string{"B": "2", "A": "1"}}, Runs: &Table{Rows: []map[string]string{
		run("e1", "1", "2", "69.2500", "68.5000", "eeeeeee"),
		run("e2", "2", "2", "71.0000", "70.0000", "eeeeeee"),
		run("e3", "3", "2", "69.0000", "68.0000", "eeeeeee"),
		run("e4", "1", "2", "70.0000", "68.0000", "fffffff-dirty"),
	}}}
	pp := Spread([]Results{plain, other, env})
	if len(pp) != 1 {
		t.Fatalf("%d pairs, want 1: %+v", len(pp), pp)
	}
	p := pp[0]
	if p.Here["run_id"] != "p1" || p.Other["run_id"] != "e1" || math.Abs(p.DiffAcc+0.75) > 1e-9 || math.Abs(p.DiffWorst-0.5) > 1e-9 || p.EnvText != "A=1 B=2" {
		t.Errorf("pair %+v", p)
	}
	var s strings.Builder
	spreadSection(&s, []Results{plain, other, env})
	for _, want := range []string{"Of 1 pairs, 0 agree", "up to 0.75 points, 0.75 in root mean square",
		"| maple/irmv1 | 1 | 70.0000 | 69.2500 | -0.75 | 68.0000 | 68.5000 | +0.50 | A=1 B=2 (spread) |"} {
		if !strings.Contains(s.String(), want) {
			t.Errorf("section lacks %q:\n%s", want, s.String())
		}
	}
}
