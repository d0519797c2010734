package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat"

	"github.com/maple-ood/maple/runs"
)

// Row is one line of a results table: a dataset and method over seeds.
type Row struct {
	Dataset   string
	Method    string // method, or maple/objective
	Model     string // the evaluation model (the search model of maple runs may differ)
	TrainSize int    // --train-size of the dataset (0 = all)
	N         int    // finished seeds
	Seeds     []uint64
	TestAcc   MeanSD
	TestWorst MeanSD
	ValWorst  MeanSD
}

// MeanSD is a mean and the sample standard deviation (n-1; 0 for n = 1).
type MeanSD struct{ Mean, SD float64 }

func meanSD(v []float64) MeanSD {
	if len(v) == 1 {
		return MeanSD{Mean: v[0]}
	}
	m, sd := stat.MeanStdDev(v, nil) // sample sd, n-1
	return MeanSD{Mean: m, SD: sd}
}

// Caption states how the table's figures were obtained.
const Caption = "Test accuracy and test worst-group accuracy (%) at the checkpoint selected by validation worst-group accuracy " +
	"(validation accuracy where a dataset has no groups); mean ± sample standard deviation (n-1) over seeds; n = finished seeds."

// Table aggregates the finished runs of a sweep (every finished run when
// sweep is "") in runsDir, rows sorted by dataset then method.
func Table(runsDir, sweep string) ([]Row, error) {
	infos, err := runs.List(runsDir)
	if err != nil {
		return nil, err
	}
	type acc struct {
		seeds            []uint64
		test, worst, val []float64
	}
	type key struct {
		dataset, method, model string
		trainSize              int
	}
	groups := map[key]*acc{}
	for _, in := range infos {
		dir := filepath.Join(runsDir, in.ID)
		cfg, err := runs.ReadConfig(dir)
		if err != nil || (sweep != "" && cfg.Sweep != sweep) {
			continue
		}
		sum, err := runs.ReadSummary(dir)
		if err != nil || sum == nil || !sum.Done || sum.Result == nil {
			continue
		}
		k := key{in.Dataset, methodLabel(in.Method, cfg), cfg.Eval.Model, cfg.Dataset.TrainSize}
		a := groups[k]
		if a == nil {
			a = &acc{}
			groups[k] = a
		}
		a.seeds = append(a.seeds, cfg.Settings.Seed)
		a.test = append(a.test, 100*sum.Result.TestAcc)
		a.worst = append(a.worst, 100*sum.Result.TestWorst)
		a.val = append(a.val, 100*sum.Result.ValWorst)
	}
	var rows []Row
	for k, a := range groups {
		rows = append(rows, Row{Dataset: k.dataset, Method: k.method, Model: k.model, TrainSize: k.trainSize, N: len(a.test), Seeds: a.seeds,
			TestAcc: meanSD(a.test), TestWorst: meanSD(a.worst), ValWorst: meanSD(a.val)})
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		switch {
		case a.Dataset != b.Dataset:
			return a.Dataset < b.Dataset
		case a.TrainSize != b.TrainSize:
			return a.TrainSize < b.TrainSize
		case a.Model != b.Model:
			return a.Model < b.Model
		}
		return a.Method < b.Method
	})
	return rows, nil
}

// WriteTable writes rows as text, markdown or csv.
func WriteTable(w io.Writer, rows []Row, format string) error {
	pm := func(s MeanSD) string { return fmt.Sprintf("%.1f ± %.1f", s.Mean, s.SD) }
	head := []string{"dataset", "train size", "model", "method", "n", "test acc", "test worst-group", "val worst-group"}
	size := func(r Row) string {
		if r.TrainSize == 0 {
			return "all"
		}
		return fmt.Sprint(r.TrainSize)
	}
	switch format {
	case "text":
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(head, "\t"))
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", r.Dataset, size(r), r.Model, r.Method, r.N, pm(r.TestAcc), pm(r.TestWorst), pm(r.ValWorst))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		_, err := fmt.Fprintln(w, Caption)
		return err
	case "markdown":
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
		for _, r := range rows {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %d | %s | %s | %s |\n", r.Dataset, size(r), r.Model, r.Method, r.N, pm(r.TestAcc), pm(r.TestWorst), pm(r.ValWorst))
		}
		_, err := fmt.Fprintf(w, "\n%s\n", Caption)
		return err
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write([]string{"dataset", "train_size", "model", "method", "n", "test_acc_mean", "test_acc_sd", "test_worst_mean", "test_worst_sd", "val_worst_mean", "val_worst_sd"})
		for _, r := range rows {
			f := func(x float64) string { return fmt.Sprintf("%.4f", x) }
			cw.Write([]string{r.Dataset, fmt.Sprint(r.TrainSize), r.Model, r.Method, fmt.Sprint(r.N), f(r.TestAcc.Mean), f(r.TestAcc.SD), f(r.TestWorst.Mean), f(r.TestWorst.SD), f(r.ValWorst.Mean), f(r.ValWorst.SD)})
		}
		cw.Flush()
		return cw.Error()
	}
	return fmt.Errorf("table format %q: want text, markdown or csv", format)
}

// methodLabel names a table row's method: a maple search whose model
// differs from the evaluation model (the transfer experiment) or that
// anneals to a keep fraction below 1 (the sparsity experiment) says so, so
// that such cells never pool with the plain ones.
func methodLabel(method string, cfg *runs.Config) string {
	if cfg.Method != "maple" {
		return method
	}
	if cfg.Settings.Model != cfg.Eval.Model {
		method += " search " + cfg.Settings.Model
	}
	if cfg.Settings.Keep < 1 {
		method += fmt.Sprintf(" keep %g", cfg.Settings.Keep)
	}
	return method
}
