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
	b.WriteString("\n## Reruns of one configuration\n\n")
	b.WriteString("One binary on one machine repeats a run to the digit.\n")
	b.WriteString("Another machine's CPU, or a build with uncommitted changes, may round differently.\n")
	if len(rr) == 0 {
		b.WriteString("The committed runs hold no two runs of one configuration and seed made with the same backend and threads.\n")
		b.WriteString("Each such cell has one run, whose row every sweep of the cell shares.\n")
		b.WriteString("[Machine spread](#machine-spread) gives how far another machine's arithmetic moves them.\n")
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

// SpreadPair is a run made in an experiment's env (other kernels, as
// another machine computes) beside the run of its configuration and seed
// made without one, by the same build and thread count.
type SpreadPair struct {
	Method, Seed        string
	Here, Other         map[string]string // the run without an env, and the one in it
	DiffAcc, DiffWorst  float64           // Other's test accuracy and worst group less Here's, in points
	Experiment, EnvText string            // the experiment with the env, and its env
}

// Spread pairs every clean row of the experiments that give an env with
// the earliest clean row of its configuration, seed and thread count
// among the experiments that give none and share its build, ordered by
// experiment, method and seed.
func Spread(all []Results) []SpreadPair {
	type key struct{ hash, seed, threads, build string }
	plain := map[key]map[string]string{}
	for _, r := range all {
		if r.Runs == nil || len(r.File.Env) > 0 {
			continue
		}
		for _, x := range r.Runs.Rows {
			if dirtyCommit(x["commit"]) || x["config_hash"] == "" {
				continue
			}
			k := key{x["config_hash"], x["seed"], x["threads"], r.File.Build}
			if y, ok := plain[k]; !ok || x["run_id"] < y["run_id"] {
				plain[k] = x
			}
		}
	}
	var out []SpreadPair
	for _, r := range all {
		if r.Runs == nil || len(r.File.Env) == 0 {
			continue
		}
		for _, x := range r.Runs.Rows {
			y, ok := plain[key{x["config_hash"], x["seed"], x["threads"], r.File.Build}]
			if !ok || dirtyCommit(x["commit"]) {
				continue
			}
			p := SpreadPair{Method: x["method"], Seed: x["seed"], Here: y, Other: x, Experiment: r.File.Name, EnvText: r.File.EnvText()}
			var errs [4]error
			var v [4]float64
			for i, f := range []string{y["test_acc"], x["test_acc"], y["test_worst"], x["test_worst"]} {
				v[i], errs[i] = strconv.ParseFloat(f, 64)
			}
			if firstErr(errs[:]...) != nil {
				continue
			}
			p.DiffAcc, p.DiffWorst = v[1]-v[0], v[3]-v[2]
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b SpreadPair) int {
		return cmpJoin(strings.Compare(a.Experiment, b.Experiment), strings.Compare(a.Method, b.Method), strings.Compare(a.Seed, b.Seed))
	})
	return out
}

// spreadSection writes how far the runs made in another machine's
// arithmetic moved from this machine's: each pair, and the largest and
// typical difference.
func spreadSection(b *strings.Builder, all []Results) {
	pp := Spread(all)
	if len(pp) == 0 {
		return
	}
	var largest, sumSq float64
	same := 0
	for _, p := range pp {
		largest = max(largest, math.Abs(p.DiffAcc))
		sumSq += p.DiffAcc * p.DiffAcc
		if p.DiffAcc == 0 && p.DiffWorst == 0 {
			same++
		}
	}
	b.WriteString("\n## Machine spread\n\n")
	b.WriteString("These pairs measure how far a figure moves on a machine whose kernels round differently.\n")
	b.WriteString("Each pair is one configuration and seed, made by one build and thread count.\n")
	b.WriteString("One run used this machine's kernels; the other ran in its experiment's env, which caps them.\n")
	fmt.Fprintf(b, "Of %d pairs, %d agree to the digit.\n", len(pp), same)
	fmt.Fprintf(b, "Test accuracy moves by up to %.2f points, %.2f in root mean square.\n\n", largest, math.Sqrt(sumSq/float64(len(pp))))
	b.WriteString("| method | seed | test acc | in the env | difference | test worst-group | in the env | difference | env (experiment) |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range pp {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %+.2f | %s | %s | %+.2f | %s (%s) |\n", p.Method, p.Seed, p.Here["test_acc"], p.Other["test_acc"], p.DiffAcc,
			p.Here["test_worst"], p.Other["test_worst"], p.DiffWorst, p.EnvText, p.Experiment)
	}
}
