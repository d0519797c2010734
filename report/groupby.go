package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/runs"
)

// GroupRow is one group of `maple table --group-by`: the finished runs
// whose grouping settings take these values, pooled whatever their other
// settings, with what differs inside the group named.
type GroupRow struct {
	Values                       []string `json:"values"` // one per grouping setting, in order
	N                            int      `json:"n"`      // runs in the group
	TestAcc, TestWorst, ValWorst MeanSD
	// Varies names the settings (and seeds) that differ among the
	// group's runs: what the mean pools over.
	Varies []string `json:"varies"`
	// Datasets are the datasets of the group's runs, sorted: more than
	// one mixes figures of different scales into one mean.
	Datasets []string `json:"datasets"`
}

// groupKeys are what --group-by takes beside the settings' flags.
var groupKeys = []string{"method", "dataset", "seed", "sweep", "model", "eval-model", "train-size"}

// runKeys returns a run's values of every key --group-by takes: its
// result settings by flag, and the keys of groupKeys. A baseline has no
// value of the search's settings (it runs no search): grouped by one, it
// falls in the group whose value is empty, and it never makes a group
// pool over them.
func runKeys(cfg *runs.Config) map[string]string {
	m := config.Flags(*cfg)
	if !cfg.Searches() {
		for _, st := range config.Table {
			if st.Group == config.GroupSearch {
				delete(m, st.Flag)
			}
		}
	}
	m["method"], m["dataset"], m["seed"], m["sweep"] = cfg.MethodName(), cfg.Dataset.Name, fmt.Sprint(cfg.Settings.Seed), cfg.Sweep
	m["model"], m["eval-model"], m["train-size"] = cfg.Settings.Model, cfg.Eval.Model, fmt.Sprint(cfg.Dataset.TrainSize)
	if !cfg.Searches() {
		m["model"] = cfg.Eval.Model
	}
	return m
}

// GroupKeys lists what --group-by accepts.
func GroupKeys() []string {
	keys := slices.Clone(groupKeys)
	for _, s := range config.Table {
		if s.Result && !slices.Contains(keys, s.Flag) {
			keys = append(keys, s.Flag)
		}
	}
	sort.Strings(keys)
	return keys
}

// CheckGroupKeys refuses grouping keys that --group-by does not take,
// and an empty list.
func CheckGroupKeys(keys []string) error {
	known := GroupKeys()
	for _, k := range keys {
		if !slices.Contains(known, k) {
			return fmt.Errorf("--group-by %s: not a setting; want one or more of %s", k, strings.Join(known, ", "))
		}
	}
	if len(keys) == 0 {
		return fmt.Errorf("--group-by: name at least one setting")
	}
	return nil
}

// Member is a run to pool: its settings and its figures (NaN where it
// has none yet).
type Member struct {
	Config  *runs.Config
	Figures []float64
}

// Group is one group of Pool: the values of the grouping settings, its
// members (indices into Pool's list), each figure's mean ± sample sd
// over the members that have it (Counts: how many do), and the settings
// (and seeds) that differ among its members: what the mean pools over.
type Group struct {
	Values  []string
	Members []int
	Figures []MeanSD
	Counts  []int
	Varies  []string
}

// KeyValues returns a run's values of the grouping keys, in order.
func KeyValues(cfg *runs.Config, keys []string) []string {
	m := runKeys(cfg)
	vals := make([]string, len(keys))
	for i, k := range keys {
		vals[i] = m[k]
	}
	return vals
}

// Pool groups members by the values of keys (checked by CheckGroupKeys),
// sorted by those values: maple table --group-by's rows and the runs
// browser's grouped list.
func Pool(keys []string, members []Member) ([]Group, error) {
	if err := CheckGroupKeys(keys); err != nil {
		return nil, err
	}
	type acc struct {
		g    Group
		figs [][]float64
		seen []map[string]string
	}
	groups := map[string]*acc{}
	var order []*acc
	for i, mb := range members {
		m := runKeys(mb.Config)
		vals := make([]string, len(keys))
		for j, k := range keys {
			vals[j] = m[k]
		}
		id := strings.Join(vals, "\x00")
		a := groups[id]
		if a == nil {
			a = &acc{g: Group{Values: vals}, figs: make([][]float64, len(mb.Figures))}
			groups[id] = a
			order = append(order, a)
		}
		a.g.Members = append(a.g.Members, i)
		for j, f := range mb.Figures {
			if j < len(a.figs) && !math.IsNaN(f) {
				a.figs[j] = append(a.figs[j], f)
			}
		}
		a.seen = append(a.seen, m)
	}
	out := make([]Group, 0, len(order))
	for _, a := range order {
		varies := map[string]bool{}
		for _, m := range a.seen[1:] {
			for k, v := range m {
				if v != a.seen[0][k] && !slices.Contains(keys, k) {
					varies[k] = true
				}
			}
		}
		g := a.g
		g.Varies = slices.Sorted(maps.Keys(varies))
		for _, f := range a.figs {
			g.Counts = append(g.Counts, len(f))
			var ms MeanSD
			if len(f) > 0 {
				ms = meanSD(f)
			}
			g.Figures = append(g.Figures, ms)
		}
		out = append(out, g)
	}
	sort.SliceStable(out, func(i, j int) bool { return slices.Compare(out[i].Values, out[j].Values) < 0 })
	return out, nil
}

// GroupBy pools the finished runs of the named sweeps (every finished
// run when none is named) by the values of keys (settings by flag, or
// method, dataset, seed, sweep, model), sorted by those values.
func GroupBy(runsDir string, keys []string, names ...string) ([]GroupRow, error) {
	if err := CheckGroupKeys(keys); err != nil {
		return nil, err
	}
	rows, err := Runs(runsDir, names...)
	if err != nil {
		return nil, err
	}
	var members []Member
	for _, r := range rows {
		cfg, err := runs.ReadConfig(runs.Open(runsDir).RunDir(r.RunID))
		if err != nil {
			continue
		}
		members = append(members, Member{Config: cfg, Figures: []float64{r.TestAcc, r.TestWorst, r.ValWorst}})
	}
	groups, err := Pool(keys, members)
	if err != nil {
		return nil, err
	}
	out := make([]GroupRow, len(groups))
	for i, g := range groups {
		out[i] = GroupRow{Values: g.Values, N: len(g.Members), TestAcc: g.Figures[0], TestWorst: g.Figures[1], ValWorst: g.Figures[2], Varies: g.Varies}
		for _, m := range g.Members {
			if ds := members[m].Config.Dataset.Name; !slices.Contains(out[i].Datasets, ds) {
				out[i].Datasets = append(out[i].Datasets, ds)
			}
		}
		slices.Sort(out[i].Datasets)
	}
	return out, nil
}

// WriteGroups writes grouped rows as text, markdown or csv.
func WriteGroups(w io.Writer, keys []string, rows []GroupRow, format string) error {
	head := append(slices.Clone(keys), "n", "test acc", "test worst-group", "val worst-group", "pooled over")
	cells := func(r GroupRow) []string {
		varies := strings.Join(r.Varies, ", ")
		if varies == "" {
			varies = "-"
		}
		return append(slices.Clone(r.Values), fmt.Sprint(r.N), pm(r.TestAcc), pm(r.TestWorst), pm(r.ValWorst), varies)
	}
	const caption = "Grouped: each row pools the finished runs whose grouping settings take its values, whatever their other settings (named under \"pooled over\"); " +
		"figures at the checkpoint selected on validation, mean ± sample sd (n-1) over the group's runs."
	var text [][]string
	for _, r := range rows {
		text = append(text, cells(r))
	}
	if ok, err := writeText(w, format, head, text, caption); ok {
		return err
	}
	switch format {
	case "csv":
		cw := csv.NewWriter(w)
		h := append(slices.Clone(keys), "n", "test_acc_mean", "test_acc_sd", "test_worst_mean", "test_worst_sd", "val_worst_mean", "val_worst_sd", "pooled_over")
		cw.Write(h)
		f := func(m MeanSD) (string, string) {
			if m.Single {
				return fmt.Sprintf("%.4f", m.Mean), ""
			}
			return fmt.Sprintf("%.4f", m.Mean), fmt.Sprintf("%.4f", m.SD)
		}
		for _, r := range rows {
			a, b := f(r.TestAcc)
			c, d := f(r.TestWorst)
			e, g := f(r.ValWorst)
			cw.Write(append(slices.Clone(r.Values), fmt.Sprint(r.N), a, b, c, d, e, g, strings.Join(r.Varies, ";")))
		}
		cw.Flush()
		return cw.Error()
	}
	return fmt.Errorf("table format %q: want text, markdown or csv", format)
}
