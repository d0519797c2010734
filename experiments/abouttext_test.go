package experiments

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
)

// experimentNotResults are the phrases of the experiment files' texts
// whose numbers are no result, and why.
var experimentNotResults = []phrase{
	{`\d+%\s+subset`, "the search's keep fraction, a setting"},
	{`keep (?:scores learnt at )?rate 1\.5`, "the keep rate, a setting"},
	{`lr [\d.]+,?\s+momentum\s+0\.9`, "a training recipe, a setting"},
	{`w\.p\. 0\.9 and 0\.8`, "the IRM paper's construction"},
	{`test environment at 0\.1`, "the IRM paper's construction"},
	{`\d+% label noise`, "the IRM paper's construction"},
	{`caps both at 75`, "the label noise's ceiling, arithmetic"},
	{`w\.p\. 0\.1`, "the IRM paper's construction"},
	{`SGD at lr 0\.1`, "the shared evaluation's learning rate, a setting"},
	{`30 outer\s+x\s+100 inner`, "the search's length, a setting"},
	{`\| (?:exactly 0 for|nonzero for) \d+%`, "the mask's derivative at 1: TestAblationMaskTable computes it"},
	{`\| 0\.\d\d \|`, "the mask's derivative at 0: TestAblationMaskTable computes it"},
	{`take 1\.33 GB as float32`, "162,770 x 2,048 float32 values, arithmetic"},
	{`within 3 hours`, "the experiment's time budget, set before any run"},
	{`on 2 cores`, "the machine's cores"},
}

// experimentTexts are an experiment file's texts that reach the results
// page, by where they are in the file.
func experimentTexts(f *File) map[string]string {
	texts := map[string]string{"about": f.About}
	for i, c := range f.Choices {
		texts[fmt.Sprintf("choice %d's about", i+1)] = c.About
	}
	for i, a := range f.Anchors {
		texts[fmt.Sprintf("anchor %d's why", i+1)] = a.Why
	}
	return texts
}

// TestExperimentTextsReferenced holds the experiment files' texts that
// docs/RESULTS.md prints (an experiment's about, its choices' and its
// anchors' why) to the hand-written pages' rule: a figure in a results
// context carries a reference to what it quotes, recomputed here. An
// anchor's figure measured here (its source a committed file) carries a
// check that recomputes it; a published one names its paper.
func TestExperimentTextsReferenced(t *testing.T) {
	files, err := List(filepath.Join("..", Dir))
	if err != nil {
		t.Fatal(err)
	}
	q := newQuoted(t, experimentNotResults)
	checked := 0
	for _, f := range files {
		for where, text := range experimentTexts(f) {
			probs, n := q.CheckQuoted(text)
			checked += n
			for _, p := range probs {
				t.Errorf("%s.toml, %s: %s", f.Name, where, p)
			}
		}
		for i, a := range f.Anchors {
			committed := strings.Contains(a.Source, "results/")
			switch {
			case a.Check == "" && committed:
				t.Errorf("%s.toml, anchor %d (%s): its source is a committed file, but no check recomputes %q from it", f.Name, i+1, a.Label, a.Figure)
			case a.Check != "" && !committed:
				t.Errorf("%s.toml, anchor %d (%s): a check, but the source names no committed file", f.Name, i+1, a.Label)
			case a.Check != "":
				probs, n := q.CheckQuoted(a.Figure + "<!--= " + a.Check + " -->")
				for _, p := range probs {
					t.Errorf("%s.toml, anchor %d (%s): %s", f.Name, i+1, a.Label, p.Msg)
				}
				if n != len(strings.Split(a.Check, ";")) {
					t.Errorf("%s.toml, anchor %d (%s): %d of the figure's values checked", f.Name, i+1, a.Label, n)
				}
				checked += n
			}
		}
	}
	if checked < 4 {
		t.Errorf("only %d figures of the experiment files checked", checked)
	}
	// A changed figure fails.
	for _, c := range []struct{ name, text string }{
		{"celeba-sim's minutes", "adds up to 108<!--= sum(csv:results/celeba-sim/runs.csv[].minutes) -->"},
		{"the authors' code's best test step", "74.8 / 74.5<!--= pct(max(archive:sidebyside-irmv1[source=code,seed=1,iter=1-12].ref_test)); pct(max(archive:sidebyside-irmv1[source=code,seed=2,iter=1-12].ref_test)) -->"},
		{"the code's recipe in maple", "71.2 ± 0.9<!--= archive:reference-honest/* -->"},
		{"a figure without a reference", "the runs took 109 minutes"},
		{"cmnist-small's minutes", "adds up to 4.48<!--= sum(csv:results/cmnist-small/runs.csv[].minutes) -->"},
		{"CPU-seconds without a reference", "the three runs take about 80 CPU-seconds"},
	} {
		if probs, _ := q.CheckQuoted(c.text); len(probs) == 0 {
			t.Errorf("%s: %q passes", c.name, c.text)
		}
	}
}

// TestAblationMaskTable recomputes the table of the mask's derivatives
// the ablation's about text prints (docs/experiments/ablation.toml): at
// the second iteration's temperature, the share of a million evenly
// spread draws whose derivative at a keep probability of 1 is exactly 0,
// and the derivative at 0 over the clamp's, for each epsilon.
func TestAblationMaskTable(t *testing.T) {
	f, err := Load(filepath.Join("..", Dir, "ablation.toml"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| (1e-\d+)[^|]*\| (exactly 0 for all but a few in 100000|exactly 0 for (\d+)%|nonzero for (\d+)%) \| (0\.\d\d) \|$`)
	rows := row.FindAllStringSubmatch(f.About, -1)
	if len(rows) != 3 {
		t.Fatalf("%d rows of the mask's table in ablation.toml's about, want 3", len(rows))
	}
	tau := core.Temperature(1, 30)
	for _, r := range rows {
		eps, err := strconv.ParseFloat(r[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		const n = 1000000
		zero := 0
		for i := range n {
			q := (float64(i) + 0.5) / n
			if _, d := core.MaskEps(1, 0, math.Log(q/(1-q)), tau, eps); d == 0 {
				zero++
			}
		}
		switch {
		case r[3] != "":
			if got := fmt.Sprintf("%.0f", 100*float64(zero)/n); got != r[3] {
				t.Errorf("epsilon %s: exactly 0 for %s%% of the draws, the table says %s%%", r[1], got, r[3])
			}
		case r[4] != "":
			if got := fmt.Sprintf("%.0f", 100*float64(n-zero)/n); got != r[4] {
				t.Errorf("epsilon %s: nonzero for %s%% of the draws, the table says %s%%", r[1], got, r[4])
			}
		default: // all but a few in 100000
			if few := float64(n-zero) / (n / 100000); few == 0 || few >= 10 {
				t.Errorf("epsilon %s: nonzero for %.1f in 100000 draws, the table says a few", r[1], few)
			}
		}
		_, clamp := core.Mask(0, 0, 2, tau)
		_, d := core.MaskEps(0, 0, 2, tau, eps)
		if got := fmt.Sprintf("%.2f", d/clamp); got != r[5] {
			t.Errorf("epsilon %s: the derivative at 0 is %s times the clamp's, the table says %s", r[1], got, r[5])
		}
	}
}
