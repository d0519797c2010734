package experiments

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/maple-ood/maple/models"
)

// Choice is a choice among an experiment's sweeps made on validation,
// one seed at a time ([[choice]] in the experiment file): for each
// method, dataset, training size, model and seed, of the runs the sweeps
// made (every one a candidate: a random search's trials too), the one
// with the highest validation worst-group accuracy (the criterion every
// figure is selected by; runs.csv's figure, to 4 decimals of a percent),
// ties going to the sweep listed first (list a run's own training first
// to break ties as train.ChooseWeightedERM does). Sweeps that differ in one choice (the final training's recipe)
// make it a hyperparameter chosen per run on validation: what a run that
// trained every candidate and kept the best on validation would report.
type Choice struct {
	Name   string   `toml:"name"`   // the choice's name in the tables
	About  string   `toml:"about"`  // what is chosen, for the results page (Markdown)
	Sweeps []string `toml:"sweeps"` // the candidates: two or more of the file's sweeps
}

// Chosen is one configuration's outcome of a choice: per seed the run
// validation ranks first among the choice's sweeps.
type Chosen struct {
	Dataset, TrainSize, Model, Method string
	// Runs are the chosen runs' rows of runs.csv, in seed order.
	Runs []map[string]string
	// Incomplete are the seeds some candidate sweep has no run of: no
	// choice is made for them.
	Incomplete []string
}

// Choose makes the choice over an experiment's runs, for each
// configuration every one of its sweeps has run.
func (c Choice) Choose(runs *Table) []Chosen {
	if runs == nil {
		return nil
	}
	type key struct{ dataset, size, model, method string }
	var order []key
	cands := map[key]map[string][]map[string]string{} // per seed, the candidate runs
	for _, r := range runs.Rows {
		if !slices.Contains(c.Sweeps, r["sweep"]) {
			continue
		}
		k := key{r["dataset"], r["train_size"], r["model"], r["method"]}
		if cands[k] == nil {
			cands[k] = map[string][]map[string]string{}
			order = append(order, k)
		}
		cands[k][r["seed"]] = append(cands[k][r["seed"]], r)
	}
	rank := func(r map[string]string) int { return slices.Index(c.Sweeps, r["sweep"]) }
	val := func(r map[string]string) float64 {
		v, err := strconv.ParseFloat(r["val_worst"], 64)
		if err != nil {
			return math.Inf(-1)
		}
		return v
	}
	var out []Chosen
	for _, k := range order {
		if !c.everySweep(cands[k]) {
			continue // not a choice: some sweep never ran the configuration
		}
		ch := Chosen{Dataset: k.dataset, TrainSize: k.size, Model: k.model, Method: k.method}
		seeds := make([]string, 0, len(cands[k]))
		for s := range cands[k] {
			seeds = append(seeds, s)
		}
		slices.SortFunc(seeds, func(a, b string) int {
			x, _ := strconv.ParseUint(a, 10, 64)
			y, _ := strconv.ParseUint(b, 10, 64)
			return cmp.Compare(x, y)
		})
		for _, s := range seeds {
			rs := slices.Clone(cands[k][s])
			if slices.ContainsFunc(c.Sweeps, func(sw string) bool { return !hasSweep(rs, sw) }) {
				ch.Incomplete = append(ch.Incomplete, s)
				continue
			}
			slices.SortStableFunc(rs, func(a, b map[string]string) int {
				if d := cmp.Compare(val(b), val(a)); d != 0 {
					return d
				}
				return cmp.Compare(rank(a), rank(b))
			})
			ch.Runs = append(ch.Runs, rs[0])
		}
		out = append(out, ch)
	}
	return out
}

// everySweep tells whether each of the choice's sweeps has a run among
// the candidates of some seed.
func (c Choice) everySweep(bySeed map[string][]map[string]string) bool {
	for _, sw := range c.Sweeps {
		found := false
		for _, rs := range bySeed {
			found = found || hasSweep(rs, sw)
		}
		if !found {
			return false
		}
	}
	return true
}

// hasSweep tells whether one of rs is a run of sweep sw.
func hasSweep(rs []map[string]string, sw string) bool {
	return slices.ContainsFunc(rs, func(r map[string]string) bool { return r["sweep"] == sw })
}

// column returns the chosen runs' figures in column col.
func (ch Chosen) column(col string) []float64 { return column(ch.Runs, col) }

// column returns the figures of rows in column col (those that parse).
func column(rows []map[string]string, col string) []float64 {
	var v []float64
	for _, r := range rows {
		if x, err := strconv.ParseFloat(r[col], 64); err == nil {
			v = append(v, x)
		}
	}
	return v
}

// sweepMean returns the mean of runs.csv's column col (the
// experiment's metric) over sweep's runs of the configuration at the
// seeds the choice was made for.
func (ch Chosen) sweepMean(runs *Table, sweep, col string) (float64, bool) {
	var v []float64
	for _, c := range ch.Runs {
		for _, r := range runs.Rows {
			if r["sweep"] == sweep && r["seed"] == c["seed"] && r["dataset"] == ch.Dataset && r["train_size"] == ch.TrainSize &&
				r["model"] == ch.Model && r["method"] == ch.Method {
				if x, err := strconv.ParseFloat(r[col], 64); err == nil {
					v = append(v, x)
				}
				break
			}
		}
	}
	if len(v) != len(ch.Runs) || len(v) == 0 {
		return 0, false
	}
	s := Describe(v)
	return s.Mean, true
}

// choiceSection writes an experiment's choices as tables below its own:
// the interval and each sweep's own mean are of the experiment's metric.
func choiceSection(b *strings.Builder, r Results) {
	m := r.compared()
	for _, c := range r.File.Choices {
		fmt.Fprintf(b, "\n**%s** keeps, per seed, the run validation ranks first among sweeps %s.", c.Name, strings.Join(c.Sweeps, ", "))
		if about := strings.TrimSpace(c.About); about != "" {
			b.WriteString(" " + about)
		}
		b.WriteString("\n\n")
		chosen := c.Choose(r.Runs)
		if len(chosen) == 0 {
			b.WriteString("No configuration has committed runs of every one of these sweeps yet.\n")
			continue
		}
		models := false // a model column where the configurations differ in it (a width study)
		for _, ch := range chosen {
			models = models || ch.Model != chosen[0].Model
		}
		head := []string{"dataset", "method", "chosen, per seed", "n", "test acc", "test worst-group", "val worst-group"}
		at := slices.Index(head, m.Head) + 1 // the interval follows its figure
		head = slices.Insert(head, at, "95% interval")
		if models {
			head = slices.Insert(head, 1, "model")
			slices.SortStableFunc(chosen, func(a, b Chosen) int {
				return cmp.Or(cmp.Compare(a.Dataset, b.Dataset), cmp.Compare(sizeOrder(a.TrainSize), sizeOrder(b.TrainSize)), compareModels(a.Model, b.Model))
			})
		}
		for _, sw := range c.Sweeps {
			head = append(head, sweepText(sw)+" alone ("+m.Head+", same seeds)")
		}
		fmt.Fprintf(b, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
		for _, ch := range chosen {
			data := ch.Dataset
			if s := size(ch.TrainSize); s != "all" {
				data += " n=" + s
			}
			var picks []string
			for _, run := range ch.Runs {
				picks = append(picks, fmt.Sprintf("seed %s: %s", run["seed"], sweepText(run["sweep"])))
			}
			if len(ch.Incomplete) > 0 {
				if len(ch.Incomplete) == 1 {
					picks = append(picks, fmt.Sprintf("seed %s: not every sweep has run it", ch.Incomplete[0]))
				} else {
					picks = append(picks, fmt.Sprintf("seeds %s: not every sweep has run them", strings.Join(ch.Incomplete, ", ")))
				}
			}
			acc, worst, vw := Describe(ch.column("test_acc")), Describe(ch.column("test_worst")), Describe(ch.column("val_worst"))
			cells := []string{data, ch.Method, strings.Join(picks, "; "), strconv.Itoa(acc.N), stat1(acc), stat1(worst), stat1(vw)}
			ci := Describe(ch.column(m.Column))
			cells = slices.Insert(cells, at, interval(num(ci.Lo), num(ci.Hi)))
			if models {
				cells = slices.Insert(cells, 1, ch.Model)
			}
			for _, sw := range c.Sweeps {
				if mean, ok := ch.sweepMean(r.Runs, sw, m.Column); ok {
					cells = append(cells, fmt.Sprintf("%.1f", mean))
				} else {
					cells = append(cells, "-")
				}
			}
			fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
		}
	}
}

// stat1 prints a Stat as mean ± sd with one decimal ("-" for none).
func stat1(s Stat) string {
	if s.N == 0 {
		return "-"
	}
	return pm(num(s.Mean), num(s.SD))
}

// sizeOrder orders training sizes by number, every image ("0" or "")
// last.
func sizeOrder(v string) uint64 {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n == 0 {
		return math.MaxUint64
	}
	return n
}

// compareModels orders model specs of one shape by their first layer's
// width as a number (mlp:64,64 before mlp:128,128), shapes by name.
func compareModels(a, b string) int {
	return cmp.Or(cmp.Compare(modelShape(a), modelShape(b)), cmp.Compare(models.Width(a), models.Width(b)), cmp.Compare(a, b))
}
