package experiments

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Rerun is one configuration and seed that two committed runs made with
// the same build and thread count: on one machine with one binary they
// agree to the digit, so a difference is the machine's (its CPU's
// kernels round differently) or the code's (a -dirty build).
type Rerun struct {
	Hash, Seed, Method string
	A, B               map[string]string // the two runs' rows, A the earlier
	Diff               float64           // B's test accuracy less A's, in points
}

// Reruns lists, over every experiment's committed runs, the pairs of
// runs of one configuration and seed made by the same backend and
// thread count, in different runs (a row lent to another sweep is one
// run), ordered by configuration, seed and run id.
func Reruns(all []Results) []Rerun {
	type key struct{ hash, seed, backend, threads string }
	byKey := map[key][]map[string]string{}
	seen := map[string]bool{}
	for _, r := range all {
		if r.Runs == nil {
			continue
		}
		for _, x := range r.Runs.Rows {
			if seen[x["run_id"]] || x["config_hash"] == "" {
				continue
			}
			seen[x["run_id"]] = true
			k := key{x["config_hash"], x["seed"], x["backend"], x["threads"]}
			byKey[k] = append(byKey[k], x)
		}
	}
	var out []Rerun
	for _, rows := range byKey {
		slices.SortFunc(rows, func(a, b map[string]string) int { return strings.Compare(a["run_id"], b["run_id"]) })
		for i := 1; i < len(rows); i++ {
			a, errA := strconv.ParseFloat(rows[0]["test_acc"], 64)
			b, errB := strconv.ParseFloat(rows[i]["test_acc"], 64)
			if errA != nil || errB != nil {
				continue
			}
			out = append(out, Rerun{Hash: rows[0]["config_hash"], Seed: rows[0]["seed"], Method: rows[0]["method"], A: rows[0], B: rows[i], Diff: b - a})
		}
	}
	slices.SortFunc(out, func(a, b Rerun) int {
		return cmpJoin(strings.Compare(a.Hash, b.Hash), strings.Compare(a.Seed, b.Seed), strings.Compare(a.B["run_id"], b.B["run_id"]))
	})
	return out
}

func cmpJoin(cs ...int) int {
	for _, c := range cs {
		if c != 0 {
			return c
		}
	}
	return 0
}

// rerunsSection writes how far reruns of one configuration moved: how
// many pairs agree to the digit, and each pair that does not.
func rerunsSection(b *strings.Builder, all []Results) {
	rr := Reruns(all)
	if len(rr) == 0 {
		return
	}
	same, largest := 0, 0.0
	var differ []Rerun
	for _, r := range rr {
		if r.Diff == 0 {
			same++
			continue
		}
		differ = append(differ, r)
		largest = max(largest, math.Abs(r.Diff))
	}
	b.WriteString("\n## Reruns of one configuration\n\n")
	b.WriteString("One binary on one machine repeats a run to the digit.\n")
	b.WriteString("Another machine's CPU, or a build with uncommitted changes, may round differently.\n")
	fmt.Fprintf(b, "The committed runs hold %d pairs of one configuration and seed, made with the same backend and threads.\n", len(rr))
	fmt.Fprintf(b, "Of these, %d agree in test accuracy to the digit.\n", same)
	if len(differ) == 0 {
		return
	}
	fmt.Fprintf(b, "The other %d differ, by up to %.2f points:\n\n", len(differ), largest)
	b.WriteString("| method | configuration | seed | run, commit | test acc | rerun, commit | test acc | difference |\n|---|---|---|---|---|---|---|---|\n")
	short := func(c string) string {
		d := strings.HasSuffix(c, "-dirty")
		c = strings.TrimSuffix(c, "-dirty")
		if len(c) > 7 {
			c = c[:7]
		}
		if d {
			c += "-dirty"
		}
		return c
	}
	for _, r := range differ {
		fmt.Fprintf(b, "| %s | %s | %s | %s %s, %s | %s | %s %s, %s | %s | %s |\n", r.Method, r.Hash, r.Seed,
			r.A["sweep"], r.A["run_id"], short(r.A["commit"]), r.A["test_acc"], r.B["sweep"], r.B["run_id"], short(r.B["commit"]), r.B["test_acc"], fmt.Sprintf("%+.2f", r.Diff))
	}
}
