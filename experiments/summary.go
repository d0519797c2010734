package experiments

import (
	"encoding/csv"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Summary is one row of summary.csv: the runs of one configuration (one
// config hash) over their seeds.
type Summary struct {
	Experiment string
	// Sweeps are the sweeps the configuration's runs came from, in the
	// order each first appears (one, unless two sweeps ran the same
	// configuration).
	Sweeps                              []string
	Dataset                             string
	TrainSize                           int
	Model, SearchModel                  string
	Method, Objective, Settings         string
	Supervision, Selection              string
	GroupsInTraining, GroupsInSelection bool
	ConfigHash                          string
	Seeds                               []uint64
	TestAcc, TestWorst, ValWorst        Stat
	Kept                                Stat // n = 0 for methods that mask no weights
	Conflict, KeepPct                   Stat // a search's shares at its selected iterate (n = 0 for baselines)
	Minutes                             float64
}

var summaryHeader = []string{"experiment", "sweep", "dataset", "train_size", "model", "search_model", "method", "objective", "settings",
	"supervision", "selection", "group_labels_training", "group_labels_selection", "n", "seeds",
	"test_acc_mean", "test_acc_sd", "test_acc_ci95_lo", "test_acc_ci95_hi",
	"test_worst_mean", "test_worst_sd", "test_worst_ci95_lo", "test_worst_ci95_hi",
	"val_worst_mean", "val_worst_sd", "kept_weight_pct_mean", "kept_weight_pct_sd", "conflict_weight_pct_mean", "keep_pct_mean", "minutes_mean", "config_hash"}

// Summarise pools rows by config hash, in the order each configuration
// first appears; a seed repeated within a configuration counts once.
func Summarise(rows []Run) []Summary {
	var out []Summary
	index := map[string]int{}
	vals := map[string]*[6][]float64{}
	seen := map[string]map[uint64]bool{}
	for _, r := range rows {
		i, ok := index[r.ConfigHash]
		if !ok {
			i = len(out)
			index[r.ConfigHash] = i
			out = append(out, Summary{Experiment: r.Experiment, Dataset: r.Dataset, TrainSize: r.TrainSize, Model: r.Model, SearchModel: r.SearchModel,
				Method: r.Method, Objective: r.Objective, Settings: r.Settings, Supervision: r.Supervision, Selection: r.Selection,
				GroupsInTraining: r.GroupsInTraining, GroupsInSelection: r.GroupsInSelection, ConfigHash: r.ConfigHash})
			vals[r.ConfigHash] = &[6][]float64{}
			seen[r.ConfigHash] = map[uint64]bool{}
		}
		s := &out[i]
		if !slices.Contains(s.Sweeps, r.Sweep) {
			s.Sweeps = append(s.Sweeps, r.Sweep)
		}
		if seen[r.ConfigHash][r.Seed] {
			continue
		}
		seen[r.ConfigHash][r.Seed] = true
		v := vals[r.ConfigHash]
		s.Seeds = append(s.Seeds, r.Seed)
		v[0], v[1], v[2] = append(v[0], r.TestAcc), append(v[1], r.TestWorst), append(v[2], r.ValWorst)
		for j, p := range []*float64{r.KeptWeights, r.ConflictWeight, r.KeepPct} {
			if p != nil {
				v[3+j] = append(v[3+j], *p)
			}
		}
		s.Minutes += r.Minutes
	}
	for i := range out {
		s := &out[i]
		v := vals[s.ConfigHash]
		s.TestAcc, s.TestWorst, s.ValWorst, s.Kept = Describe(v[0]), Describe(v[1]), Describe(v[2]), Describe(v[3])
		s.Conflict, s.KeepPct = Describe(v[4]), Describe(v[5])
		s.Minutes /= float64(len(s.Seeds))
	}
	return out
}

// num formats a figure with 4 decimals, "" for NaN (no spread, no
// interval).
func num(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'f', 4, 64)
}

// WriteSummary writes rows as summary.csv.
func WriteSummary(w io.Writer, rows []Summary) error {
	cw := csv.NewWriter(w)
	cw.Write(summaryHeader)
	for _, s := range rows {
		var seeds []string
		for _, x := range s.Seeds {
			seeds = append(seeds, strconv.FormatUint(x, 10))
		}
		keptMean, keptSD, conflict, keep := "", "", "", ""
		if s.Kept.N > 0 {
			keptMean, keptSD = num(s.Kept.Mean), num(s.Kept.SD)
		}
		if s.Conflict.N > 0 {
			conflict = num(s.Conflict.Mean)
		}
		if s.KeepPct.N > 0 {
			keep = num(s.KeepPct.Mean)
		}
		cw.Write([]string{s.Experiment, strings.Join(s.Sweeps, " "), s.Dataset, strconv.Itoa(s.TrainSize), s.Model, s.SearchModel, s.Method, s.Objective, s.Settings,
			s.Supervision, s.Selection, yesNo(s.GroupsInTraining), yesNo(s.GroupsInSelection), strconv.Itoa(s.TestAcc.N), strings.Join(seeds, " "),
			num(s.TestAcc.Mean), num(s.TestAcc.SD), num(s.TestAcc.Lo), num(s.TestAcc.Hi),
			num(s.TestWorst.Mean), num(s.TestWorst.SD), num(s.TestWorst.Lo), num(s.TestWorst.Hi),
			num(s.ValWorst.Mean), num(s.ValWorst.SD), keptMean, keptSD, conflict, keep, strconv.FormatFloat(s.Minutes, 'f', 2, 64), s.ConfigHash})
	}
	cw.Flush()
	return cw.Error()
}
