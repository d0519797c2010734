package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/maple-ood/maple/core"
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
}

// groupKeys are what --group-by takes beside the settings' flags.
var groupKeys = []string{"method", "dataset", "seed", "sweep", "model", "eval-model", "train-size"}

// runKeys returns a run's values of every key --group-by takes: its
// result settings by flag, and the keys of groupKeys.
func runKeys(cfg *runs.Config) map[string]string {
	m := runs.Flags(*cfg)
	m["method"], m["dataset"], m["seed"], m["sweep"] = cfg.MethodName(), cfg.Dataset.Name, fmt.Sprint(cfg.Settings.Seed), cfg.Sweep
	m["model"], m["eval-model"], m["train-size"] = cfg.Settings.Model, cfg.Eval.Model, fmt.Sprint(cfg.Dataset.TrainSize)
	if cfg.Method != core.MethodMaple {
		m["model"] = cfg.Eval.Model
	}
	return m
}

// GroupKeys lists what --group-by accepts.
func GroupKeys() []string {
	keys := slices.Clone(groupKeys)
	for _, s := range runs.SettingsTable {
		if s.Result && !slices.Contains(keys, s.Flag) {
			keys = append(keys, s.Flag)
		}
	}
	sort.Strings(keys)
	return keys
}

// GroupBy pools the finished runs of the named sweeps (every finished
// run when none is named) by the values of keys (settings by flag, or
// method, dataset, seed, sweep, model), sorted by those values.
func GroupBy(runsDir string, keys []string, names ...string) ([]GroupRow, error) {
	known := GroupKeys()
	for _, k := range keys {
		if !slices.Contains(known, k) {
			return nil, fmt.Errorf("--group-by %s: not a setting; want one or more of %s", k, strings.Join(known, ", "))
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("--group-by: name at least one setting")
	}
	rows, err := Runs(runsDir, names...)
	if err != nil {
		return nil, err
	}
	type acc struct {
		vals             []string
		test, worst, val []float64
		seen             []map[string]string
	}
	groups := map[string]*acc{}
	for _, r := range rows {
		cfg, err := runs.ReadConfig(runs.Dir(runsDir, r.RunID))
		if err != nil {
			continue
		}
		m := runKeys(cfg)
		var vals []string
		for _, k := range keys {
			vals = append(vals, m[k])
		}
		id := strings.Join(vals, "\x00")
		a := groups[id]
		if a == nil {
			a = &acc{vals: vals}
			groups[id] = a
		}
		a.test, a.worst, a.val = append(a.test, r.TestAcc), append(a.worst, r.TestWorst), append(a.val, r.ValWorst)
		a.seen = append(a.seen, m)
	}
	var out []GroupRow
	for _, a := range groups {
		varies := map[string]bool{}
		for _, m := range a.seen[1:] {
			for k, v := range m {
				if v != a.seen[0][k] && !slices.Contains(keys, k) {
					varies[k] = true
				}
			}
		}
		out = append(out, GroupRow{Values: a.vals, N: len(a.test), TestAcc: meanSD(a.test), TestWorst: meanSD(a.worst), ValWorst: meanSD(a.val),
			Varies: slices.Sorted(maps.Keys(varies))})
	}
	sort.Slice(out, func(i, j int) bool { return slices.Compare(out[i].Values, out[j].Values) < 0 })
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
