package experiments

import (
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
}
