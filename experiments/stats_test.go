package experiments

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		name           string
		v              []float64
		mean, sd       float64
		lo, hi         float64
		noSpreadExpect bool
	}{
		// t(0.975, 3) = 3.182446305; half width 3.182446305 * 1.2909944487 / 2 = 2.0542603.
		{name: "four values", v: []float64{1, 2, 3, 4}, mean: 2.5, sd: 1.2909944487, lo: 0.4457397, hi: 4.5542603},
		{name: "one value", v: []float64{70.2}, mean: 70.2, noSpreadExpect: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Describe(tc.v)
			if s.N != len(tc.v) || math.Abs(s.Mean-tc.mean) > 1e-9 {
				t.Fatalf("n %d mean %v, want %d and %v", s.N, s.Mean, len(tc.v), tc.mean)
			}
			if tc.noSpreadExpect {
				if !math.IsNaN(s.SD) || !math.IsNaN(s.Lo) || !math.IsNaN(s.Hi) {
					t.Fatalf("one value: sd %v interval [%v, %v], want NaN (no spread)", s.SD, s.Lo, s.Hi)
				}
				return
			}
			if math.Abs(s.SD-tc.sd) > 1e-9 || math.Abs(s.Lo-tc.lo) > 1e-6 || math.Abs(s.Hi-tc.hi) > 1e-6 {
				t.Fatalf("sd %v interval [%v, %v], want %v [%v, %v]", s.SD, s.Lo, s.Hi, tc.sd, tc.lo, tc.hi)
			}
		})
	}
}

// TestWelch checks Welch's test on the example of its Wikipedia article,
// whose t, degrees of freedom and p (0.021) were also computed here by
// integrating Student's density numerically (t -2.4554, df 24.99, p
// 0.021378).
func TestWelch(t *testing.T) {
	a := []float64{27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4}
	b := []float64{27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4}
	diff, tv, df, p, ok := Welch(a, b)
	if !ok {
		t.Fatal("Welch: not ok on two samples of 15")
	}
	if math.Abs(tv+2.455356) > 1e-5 || math.Abs(df-24.988529) > 1e-5 || math.Abs(p-0.021378) > 1e-5 || math.Abs(diff+2.1666667) > 1e-6 {
		t.Fatalf("diff %v t %v df %v p %v, want -2.1667 -2.4554 24.9885 0.021378", diff, tv, df, p)
	}
	if _, _, _, _, ok := Welch([]float64{1}, b); ok {
		t.Error("Welch with one value on a side: ok, want not ok (no variance)")
	}
	if _, _, _, _, ok := Welch([]float64{1, 1}, []float64{2, 2}); ok {
		t.Error("Welch without spread on either side: ok, want not ok")
	}
}

// TestVersusChoosesOnValidation: a maple row is compared with the method
// without group labels that validation ranks first (its mean validation
// worst-group accuracy), not the one with the best test accuracy: on
// ColoredMNIST a model that inverts colour scores high test accuracy
// with a worst group near 0 (LfF's first seed: 89.0 and 0.4); and only
// with a row whose final model trains by the same recipe (JTT with the
// reference preset's evaluation ranked first on validation, n = 1, and
// the column read "jtt: n too small" for maple on the shared one); a
// maple row at its defaults chooses between the MAPLE code's training
// and the shared one on validation: its comparators are the baselines
// chosen the same way (TestVersusChosenAlike), none here.
func TestVersusChoosesOnValidation(t *testing.T) {
	row := func(method, settings, hash, training, acc, val string) map[string]string {
		return map[string]string{"method": method, "settings": settings, "config_hash": hash, "group_labels_training": training, "dataset": "cmnist", "train_size": "0",
			"model": "mlp:390,390", "test_acc_mean": acc, "val_worst_mean": val}
	}
	const preset = "eval-every 1; eval-lr 1; eval-min-step 1; eval-steps 200; eval-weight-decay 0"
	const shared = "eval-every 10; eval-lr 0.1; eval-min-step 0; eval-steps 500; eval-weight-decay 0.001"
	rows := []map[string]string{
		row("maple/rex", shared, "m", "no", "69.3", "68.3"),
		row("lff", "", "l", "no", "89.0", "0.05"),
		row("rex", "", "r", "no", "70.0", "66.8"),
		row("jtt", "", "j", "no", "70.0", "68.8"),
		row("oracle", "", "o", "yes", "71.1", "72.4"),
		row("erm", preset, "ep", "no", "25.6", "69.5"),
		row("maple/irmv1", "recipe maple-reference", "mp", "no", "70.2", "70.4"),
		row("maple/rex", "", "md", "no", "69.9", "69.0"),
		row("maple/rex", "eval-also-shared false", "mc", "no", "69.9", "69.0"),
	}
	runs := &Table{}
	for _, h := range []string{"m", "l", "r", "j", "o", "ep", "mp", "md", "mc"} {
		for s, acc := range []string{"69", "70", "71"} {
			runs.Rows = append(runs.Rows, map[string]string{"config_hash": h, "seed": fmt.Sprint(s + 1), "test_acc": acc})
		}
	}
	for _, c := range []struct {
		name string
		row  map[string]string
		want string
	}{
		{"shared evaluation", rows[0], "jtt:"},
		{"the reference preset's evaluation", rows[6], "erm:"},
		{"maple's default evaluation, with no baseline chosen the same way", rows[7], "no baseline chosen the same way"},
		{"the MAPLE code's alone", rows[8], "erm:"},
	} {
		if got := versus(c.row, rows, Results{File: &File{}, Runs: runs}, true); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %s compared as %q, want with %s (the best validation worst-group without group labels, trained alike)", c.name, c.row["method"], got, c.want)
		}
	}
	// Of every training: the best validation worst-group without group
	// labels whatever its recipe (ERM at the preset's, 69.5; not LfF).
	if got := versus(rows[0], rows, Results{File: &File{}, Runs: runs}, false); !strings.HasPrefix(got, "erm (MAPLE code's):") {
		t.Errorf("any training: maple/rex compared as %q, want with erm (the best validation worst-group without group labels)", got)
	}
}

// TestVersusReference: in an experiment with a reference sweep (an
// ablation's full recipe) each row is compared with the reference row of
// its method, Welch's test on the runs' test accuracies; the reference
// row says so, a row with one run gives the difference alone (from the
// reference's run at its seed where there is one), and a
// method the reference sweep did not run has nothing to compare with.
func TestVersusReference(t *testing.T) {
	rows := []map[string]string{
		{"method": "maple/irmv1", "sweep": "abl-preset", "config_hash": "p", "dataset": "cmnist", "train_size": "0", "model": "m"},
		{"method": "maple/irmv1", "sweep": "abl-preset-val", "config_hash": "v", "dataset": "cmnist", "train_size": "0", "model": "m"},
		{"method": "maple/irmv1", "sweep": "abl-one", "config_hash": "o", "dataset": "cmnist", "train_size": "0", "model": "m"},
		{"method": "maple/rex", "sweep": "abl-rex", "config_hash": "r", "dataset": "cmnist", "train_size": "0", "model": "m"},
		{"method": "maple/irmv1", "sweep": "abl-small", "config_hash": "s", "dataset": "cmnist", "train_size": "2500", "model": "m"},
		{"method": "maple/irmv1", "sweep": "abl-flat", "config_hash": "f", "dataset": "cmnist", "train_size": "0", "model": "m"},
		{"method": "maple/irmv1", "sweep": "abl-new", "config_hash": "n", "dataset": "cmnist", "train_size": "0", "model": "m"},
		{"method": "maple/irmv1", "sweep": "abl-preset-val abl-twice", "config_hash": "v", "dataset": "cmnist", "train_size": "0", "model": "m"},
		{"method": "maple/irmv1", "sweep": "abl-other", "config_hash": "d", "dataset": "synthetic", "train_size": "0", "model": "m"},
		{"method": "maple/irmv1", "sweep": "abl-seed7", "config_hash": "z", "dataset": "cmnist", "train_size": "0", "model": "m"},
	}
	runs := &Table{Rows: []map[string]string{{"config_hash": "z", "seed": "7", "test_acc": "68.5"}}}
	add := func(hash string, accs ...float64) {
		for i, a := range accs {
			runs.Rows = append(runs.Rows, map[string]string{"config_hash": hash, "seed": fmt.Sprint(i + 1), "test_acc": fmt.Sprint(a)})
		}
	}
	add("p", 70, 71, 72)
	add("v", 66, 67, 68)
	add("o", 68.5)
	add("r", 69, 70, 71)
	add("s", 60, 61, 62)
	add("f", 69, 69)
	add("d", 50, 51, 52)
	_, _, _, p, _ := Welch([]float64{66, 67, 68}, []float64{70, 71, 72})
	_, _, _, pFlat, _ := Welch([]float64{69, 69}, []float64{70, 71, 72})
	for _, c := range []struct {
		name string
		row  map[string]string
		want string
	}{
		{"the reference itself", rows[0], "reference"},
		{"three seeds each", rows[1], fmt.Sprintf("-4.0, p = %.2g", p)},
		{"one seed: against the reference's run at that seed", rows[2], "-1.5 at seed 1 (n too small for a test)"},
		{"one seed the reference did not run: against its mean, said", rows[9], "-2.5 (n too small for a test; no run at a common seed)"},
		{"a method the reference did not run", rows[3], "no reference row"},
		{"another training size", rows[4], "no reference row"},
		{"no spread on one side", rows[5], fmt.Sprintf("-2.0, p = %.2g", pFlat)},
		{"no runs", rows[6], "no runs"},
		{"a row two sweeps ran", rows[7], fmt.Sprintf("-4.0, p = %.2g", p)},
		{"another dataset", rows[8], "no reference row"},
	} {
		if got := versusReference(c.row, rows, runs, "abl-preset"); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	// A reference sweep with two configurations of the method (a random
	// search's trials): the row is compared with the one validation ranks
	// first, not the first listed.
	trials := []map[string]string{
		{"method": "maple/rex", "sweep": "rs", "config_hash": "t1", "dataset": "cmnist", "train_size": "0", "model": "m", "val_worst_mean": "50"},
		{"method": "maple/rex", "sweep": "rs", "config_hash": "t2", "dataset": "cmnist", "train_size": "0", "model": "m", "val_worst_mean": "70"},
		{"method": "maple/rex", "sweep": "other", "config_hash": "r", "dataset": "cmnist", "train_size": "0", "model": "m"},
	}
	add("t1", 50, 51, 52)
	add("t2", 70, 71, 72)
	if got, want := versusReference(trials[2], trials, runs, "rs"), "-1.0, p = "; !strings.HasPrefix(got, want) {
		t.Errorf("against a reference sweep of two trials: %q, want %q... (the validation-best trial)", got, want)
	}
	// Single runs on either side: at the common seed where there is one.
	single := []map[string]string{
		{"method": "maple/rex", "sweep": "one-ref", "config_hash": "r1", "dataset": "cmnist", "train_size": "0", "model": "m"},
		{"method": "maple/rex", "sweep": "one-same", "config_hash": "a1", "dataset": "cmnist", "train_size": "0", "model": "m"},
		{"method": "maple/rex", "sweep": "one-other", "config_hash": "b1", "dataset": "cmnist", "train_size": "0", "model": "m"},
		{"method": "maple/rex", "sweep": "three", "config_hash": "m3", "dataset": "cmnist", "train_size": "0", "model": "m"},
	}
	for _, r := range []struct {
		hash, seed string
		acc        float64
	}{{"r1", "2", 60}, {"a1", "2", 61}, {"b1", "3", 63}, {"m3", "1", 50}, {"m3", "2", 55}, {"m3", "3", 70}} {
		runs.Rows = append(runs.Rows, map[string]string{"config_hash": r.hash, "seed": r.seed, "test_acc": fmt.Sprint(r.acc)})
	}
	for _, c := range []struct {
		name string
		row  map[string]string
		want string
	}{
		{"one run each, the same seed", single[1], "+1.0 at seed 2 (n too small for a test)"},
		{"one run each, other seeds", single[2], "+3.0 (n too small for a test; no run at a common seed)"},
		{"three runs against one: at its seed", single[3], "-5.0 at seed 2 (n too small for a test)"},
	} {
		if got := versusReference(c.row, single, runs, "one-ref"); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	flat := []map[string]string{
		{"method": "maple/rex", "sweep": "flat-ref", "config_hash": "fr", "dataset": "cmnist", "train_size": "0", "model": "m"},
		{"method": "maple/rex", "sweep": "flat", "config_hash": "fl", "dataset": "cmnist", "train_size": "0", "model": "m"},
	}
	add("fr", 60, 60)
	add("fl", 61, 61)
	if got, want := versusReference(flat[1], flat, runs, "flat-ref"), "+1.0 (no spread: no test)"; got != want {
		t.Errorf("no spread on either side: %q, want %q", got, want)
	}
	if p <= 0 || p >= 0.05 {
		t.Errorf("Welch's p for a 4-point gap at sd 1, n = 3 each: %g, want in (0, 0.05)", p)
	}
}

// TestVersusAgainst: a sweep that names its own comparison (against) is
// compared with that sweep's row, named in the cell; the others, and
// the named sweep itself, with the file's reference.
func TestVersusAgainst(t *testing.T) {
	f := &File{Reference: "abl-preset", Sweeps: []Sweep{{Name: "abl-preset"}, {Name: "abl-defaults"}, {Name: "abl-defaults-train", Against: "abl-defaults"},
		{Name: "abl-preset-val"}, {Name: "abl-both", Against: "abl-defaults"}}}
	row := func(sweep, hash string) map[string]string {
		return map[string]string{"method": "maple/irmv1", "sweep": sweep, "config_hash": hash, "dataset": "cmnist", "train_size": "0", "model": "m"}
	}
	rows := []map[string]string{row("abl-preset", "p"), row("abl-defaults", "d"), row("abl-defaults-train", "t"), row("abl-preset-val", "v"), row("abl-preset-val abl-both", "b")}
	runs := &Table{}
	for hash, accs := range map[string][]float64{"p": {70, 71, 72}, "d": {60, 61, 62}, "t": {63, 64, 65}, "v": {69, 70, 71}, "b": {59}} {
		for i, a := range accs {
			runs.Rows = append(runs.Rows, map[string]string{"config_hash": hash, "seed": fmt.Sprint(i + 1), "test_acc": fmt.Sprint(a)})
		}
	}
	_, _, _, pT, _ := Welch([]float64{63, 64, 65}, []float64{60, 61, 62})
	_, _, _, pD, _ := Welch([]float64{60, 61, 62}, []float64{70, 71, 72})
	_, _, _, pV, _ := Welch([]float64{69, 70, 71}, []float64{70, 71, 72})
	for _, c := range []struct {
		name string
		row  map[string]string
		want string
	}{
		{"the file's reference", rows[0], "reference"},
		{"the named sweep: against the file's reference", rows[1], fmt.Sprintf("-10.0, p = %.2g", pD)},
		{"a sweep with against", rows[2], fmt.Sprintf("vs abl-defaults: +3.0, p = %.2g", pT)},
		{"a sweep without", rows[3], fmt.Sprintf("-1.0, p = %.2g", pV)},
		{"a row two sweeps ran, one with against", rows[4], "vs abl-defaults: -1.0 at seed 1 (n too small for a test)"},
	} {
		if got := versusAgainst(c.row, rows, runs, f); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestHeadlineInterval: the headline gives each row's 95% interval of
// its test accuracy beside the mean, from summary.csv, cut to 0-100.
func TestHeadlineInterval(t *testing.T) {
	r := Results{File: &File{Name: "e", Headline: []string{"erm", "jtt"}}, Summary: &Table{Rows: []map[string]string{
		{"method": "erm", "dataset": "cmnist", "train_size": "0", "n": "3", "test_acc_mean": "70.0167", "test_acc_sd": "0.7253", "test_acc_ci95_lo": "68.2150", "test_acc_ci95_hi": "71.8184"},
		{"method": "jtt", "dataset": "cmnist", "train_size": "0", "n": "2", "test_acc_mean": "95", "test_acc_sd": "4", "test_acc_ci95_lo": "59.06", "test_acc_ci95_hi": "130.9"},
	}}}
	got := Headline([]Results{r})
	for _, want := range []string{"| 70.0 ± 0.7 | [68.2, 71.8] |", "| 95.0 ± 4.0 | [59.1, 100.0] |", "| test acc | 95% interval |"} {
		if !strings.Contains(got, want) {
			t.Errorf("headline lacks %q:\n%s", want, got)
		}
	}
}

// TestHeadlineDefaults: a headline method with a row on its defaults
// shows that row alone, not also its rows with other settings.
func TestHeadlineDefaults(t *testing.T) {
	row := func(method, settings, acc string) map[string]string {
		return map[string]string{"method": method, "settings": settings, "dataset": "cmnist", "train_size": "0", "n": "1", "test_acc_mean": acc}
	}
	r := Results{File: &File{Name: "e", Headline: []string{"erm", "jtt"}}, Summary: &Table{Rows: []map[string]string{
		row("erm", "", "15.1"), row("erm", "eval-lr 1", "25.6"), row("jtt", "eval-lr 1", "71.7"),
	}}}
	got := Headline([]Results{r})
	if strings.Contains(got, "25.6") || !strings.Contains(got, "15.1") || !strings.Contains(got, "71.7") {
		t.Errorf("headline:\n%s", got)
	}
}

// TestVersusOracle: a maple row is compared with the oracle trained the
// same way. At maple's default (the final training chosen on validation)
// the oracle's runs are chosen per seed the same way, on validation and
// not on test, by the first [[choice]] between the MAPLE code's training
// and the shared one (a choice among other sweeps is no yardstick); a row
// trained by the MAPLE code's recipe alone is compared with the oracle
// trained by it, each seed once where two sweeps ran it (a row of one
// run with the oracle's run at its seed); the oracle of
// another size is none; rows of other methods are left blank.
func TestVersusOracle(t *testing.T) {
	const preset = "eval-every 1; eval-lr 1; eval-min-step 1; eval-steps 200; eval-weight-decay 0"
	row := func(sweep, method, settings, hash, size string) map[string]string {
		return map[string]string{"sweep": sweep, "method": method, "settings": settings, "config_hash": hash, "dataset": "cmnist", "train_size": size,
			"model": "mlp:390,390", "val_worst_mean": "70"}
	}
	rows := []map[string]string{
		row("m", "maple/rex", "", "md", "0"),
		row("mc", "maple/rex", "eval-also-shared false", "mc", "0"),
		row("alike twice", "oracle", preset, "oa", "0"),
		row("shared", "oracle", "", "os", "0"),
		row("m", "maple/rex", "", "m10k", "10000"),
		row("shared", "erm", "", "e", "0"),
		row("other", "oracle", "eval-lr 0.5", "oo", "0"),
		row("shared", "oracle", "", "os10k", "5000"),
		row("one", "maple/rex", "eval-also-shared false; keep 0.5", "m1", "0"),
	}
	runs := &Table{}
	add := func(x map[string]string, sweep string, seed int, acc, val float64) {
		runs.Rows = append(runs.Rows, map[string]string{"sweep": sweep, "config_hash": x["config_hash"], "dataset": "cmnist", "train_size": x["train_size"],
			"model": x["model"], "method": x["method"], "settings": x["settings"], "seed": fmt.Sprint(seed), "test_acc": fmt.Sprint(acc), "val_worst": fmt.Sprint(val)})
	}
	for s, acc := range []float64{70, 71, 72} {
		add(rows[0], "m", s+1, acc, 70)
		if s == 2 {
			add(rows[8], "one", s+1, acc, 70)
		}
		add(rows[1], "mc", s+1, acc, 70)
		add(rows[4], "m", s+1, acc, 70)
		add(rows[5], "shared", s+1, 20, 10)
		add(rows[6], "other", s+1, 90, 99)
		add(rows[7], "shared", s+1, 90, 99)
	}
	// Validation ranks the MAPLE code's oracle first at seed 1, the shared
	// one at seed 2, neither at seed 3 (a tie: the first sweep listed);
	// the shared one scores higher on test at every seed. Sweep "twice"
	// ran the MAPLE code's oracle again.
	for s, v := range [][4]float64{{73, 72, 80, 71}, {74, 70, 81, 72}, {75, 72, 82, 72}} {
		add(rows[2], "alike", s+1, v[0], v[1])
		add(rows[2], "twice", s+1, v[0]+5, v[1])
		add(rows[3], "shared", s+1, v[2], v[3])
	}
	choice := func(name string, sweeps ...string) Choice { return Choice{Name: name, Sweeps: sweeps} }
	for _, c := range []struct {
		name    string
		choices []Choice
		row     map[string]string
		want    string
	}{
		{"the default against the oracle chosen per seed on validation", []Choice{choice("c", "alike", "shared")}, rows[0],
			welchText([]float64{70, 71, 72}, []float64{73, 81, 75}) + " (oracle 76.3)"},
		{"the first choice between the two trainings", []Choice{choice("c", "alike", "shared"), choice("d", "shared", "alike")}, rows[0],
			welchText([]float64{70, 71, 72}, []float64{73, 81, 75}) + " (oracle 76.3)"},
		{"a choice among other trainings is no yardstick", []Choice{choice("o", "other", "shared"), choice("c", "shared", "alike")}, rows[0],
			welchText([]float64{70, 71, 72}, []float64{73, 81, 82}) + " (oracle 78.7)"},
		{"the MAPLE code's training alone against the oracle trained by it, each seed once", nil, rows[1],
			welchText([]float64{70, 71, 72}, []float64{73, 74, 75}) + " (oracle 74.0)"},
		{"one seed: against the oracle's run at that seed", nil, rows[8], "-3.0 at seed 3 (n too small for a test) (oracle 75.0 at seed 3)"},
		{"no choice", nil, rows[0], "no oracle chosen the same way"},
		{"no oracle at that size", []Choice{choice("c", "alike", "shared")}, rows[4], "no oracle at this size and model"},
		{"not a maple row", []Choice{choice("c", "alike", "shared")}, rows[5], ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := versusOracle(c.row, rows, Results{File: &File{Choices: c.choices}, Runs: runs}); got != c.want {
				t.Errorf("%q, want %q", got, c.want)
			}
		})
	}
}

// TestVersusChosenAlike: a maple row at its default (final training
// chosen per run on validation) is compared with the baselines whose
// final training is chosen per seed the same way, the one whose chosen
// runs validation ranks first: JTT here, whose choice per seed (shared,
// MAPLE code's, shared) beats ERM on validation though neither of JTT's
// trainings alone does; not IRMv1 at its own recipe (no such choice),
// nor the oracle (it reads oracle data).
func TestVersusChosenAlike(t *testing.T) {
	const preset = "eval-every 1; eval-lr 1; eval-min-step 1; eval-steps 200; eval-weight-decay 0"
	row := func(sweep, method, settings, hash, labels string) map[string]string {
		return map[string]string{"sweep": sweep, "method": method, "settings": settings, "config_hash": hash, "dataset": "cmnist", "train_size": "0",
			"model": "mlp:390,390", "group_labels_training": labels}
	}
	rows := []map[string]string{
		row("m", "maple/rex", "", "md", "no"),
		row("alike", "jtt", preset, "ja", "no"),
		row("shared", "jtt", "", "js", "no"),
		row("alike", "erm", preset, "ea", "no"),
		row("shared", "erm", "", "es", "no"),
		row("shared", "irmv1", "", "i", "no"),
		row("alike", "oracle", preset, "oa", "yes"),
		row("shared", "oracle", "", "os", "yes"),
	}
	runs := &Table{}
	add := func(x map[string]string, seed int, acc, val float64) {
		runs.Rows = append(runs.Rows, map[string]string{"sweep": x["sweep"], "config_hash": x["config_hash"], "dataset": "cmnist", "train_size": "0",
			"model": x["model"], "method": x["method"], "settings": x["settings"], "seed": fmt.Sprint(seed), "test_acc": fmt.Sprint(acc), "val_worst": fmt.Sprint(val)})
	}
	for s := range 3 {
		add(rows[0], s+1, float64(70+s), 70)
		add(rows[1], s+1, float64(1+s), []float64{60, 80, 60}[s])
		add(rows[2], s+1, float64(10*(s+1)), []float64{70, 50, 70}[s])
		add(rows[3], s+1, 40, 72)
		add(rows[4], s+1, 50, 10)
		add(rows[5], s+1, 99, 99)
		add(rows[6], s+1, 99, 99)
		add(rows[7], s+1, 99, 99)
	}
	want := "jtt (chosen on validation): " + welchText([]float64{70, 71, 72}, []float64{10, 2, 30})
	r := Results{File: &File{Choices: []Choice{{Name: "c", Sweeps: []string{"alike", "shared"}}}}, Runs: runs}
	if got := versus(rows[0], rows, r, true); got != want {
		t.Errorf("maple's default compared as %q, want %q", got, want)
	}
	// Without the choice there is nothing trained the same way.
	r.File.Choices = nil
	if got := versus(rows[0], rows, r, true); got != "no baseline chosen the same way" {
		t.Errorf("without a choice: %q", got)
	}
}

// TestSigned: a difference keeps its sign, one that rounds to zero has
// none.
func TestSigned(t *testing.T) {
	for _, c := range []struct {
		name string
		d    float64
		want string
	}{
		{"positive", 1.26, "+1.3"},
		{"negative", -0.44, "-0.4"},
		{"rounds to zero from below", -0.007, "0.0"},
		{"rounds to zero from above", 0.04, "0.0"},
		{"zero", 0, "0.0"},
	} {
		if got := signed(c.d); got != c.want {
			t.Errorf("%s: signed(%v) = %q, want %q", c.name, c.d, got, c.want)
		}
	}
}

// TestProvenance counts the runs whose commit does not identify their
// code and those that record no backend or thread count.
func TestProvenance(t *testing.T) {
	for _, c := range []struct {
		name string
		rows []map[string]string
		want []string // substrings; none for ""
	}{
		{"every run identified", []map[string]string{{"commit": "abc", "backend": "pure Go", "threads": "2"}}, nil},
		{"one dirty of two", []map[string]string{{"commit": "abc-dirty", "backend": "b", "threads": "2"}, {"commit": "abc", "backend": "b", "threads": "2"}},
			[]string{"1 of its 2 runs were made by a binary built from a checkout with uncommitted changes"}},
		{"no backend", []map[string]string{{"commit": "abc", "backend": "", "threads": ""}}, []string{"1 record no backend or thread count"}},
	} {
		got := provenance(&Table{Rows: c.rows})
		if len(c.want) == 0 && got != "" {
			t.Errorf("%s: %q, want nothing", c.name, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q, want it to say %q", c.name, got, w)
			}
		}
	}
}

// TestIntervalCut: the page's 95% interval of an accuracy stays within
// 0-100 (3 seeds of a wide spread read [-3.8, 126.2]); within the range it is
// printed as summary.csv holds it.
func TestIntervalCut(t *testing.T) {
	for _, tc := range []struct{ name, lo, hi, want string }{
		{"past both ends", "-3.8", "126.2", "[0.0, 100.0]"},
		{"past the top", "61.3", "100.04", "[61.3, 100.0]"},
		{"within", "69.51", "71.12", "[69.5, 71.1]"},
		{"none", "", "", "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := interval(tc.lo, tc.hi); got != tc.want {
				t.Errorf("interval(%s, %s) = %s, want %s", tc.lo, tc.hi, got, tc.want)
			}
		})
	}
}

// TestHolm checks Holm's step-down adjustment against values computed
// by hand (each the largest of (m-j+1) p(j) over the j smallest p up to
// its own, at most 1), as R's p.adjust(p, "holm") gives them.
func TestHolm(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		p    []float64
		want []float64
	}{
		// Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1: 0.02, 0.03,
		// 0.06, 0.04; the running largest makes the last 0.06.
		{name: "four tests", p: []float64{0.01, 0.04, 0.03, 0.005}, want: []float64{0.03, 0.06, 0.06, 0.02}},
		// 0.02 x 3 = 0.06; 0.5 x 2 = 1; 0.6 x 1 = 0.6, raised to 1.
		{name: "capped at 1", p: []float64{0.5, 0.6, 0.02}, want: []float64{1, 1, 0.06}},
		// Cells without a test are no test of the family: m = 2.
		{name: "no test in some cells", p: []float64{nan, 0.04, nan, 0.01}, want: []float64{nan, 0.04, nan, 0.02}},
		// Equal p: 0.01 x 3 = 0.03, then 0.01 x 2 = 0.02 raised to 0.03,
		// then 0.3 x 1.
		{name: "ties", p: []float64{0.01, 0.01, 0.3}, want: []float64{0.03, 0.03, 0.3}},
		{name: "one test", p: []float64{0.03}, want: []float64{0.03}},
		{name: "none", p: nil, want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Holm(tc.p)
			if len(got) != len(tc.want) {
				t.Fatalf("Holm(%v) = %v, want %v", tc.p, got, tc.want)
			}
			for i := range got {
				if math.IsNaN(tc.want[i]) != math.IsNaN(got[i]) || !math.IsNaN(got[i]) && math.Abs(got[i]-tc.want[i]) > 1e-12 {
					t.Fatalf("Holm(%v) = %v, want %v", tc.p, got, tc.want)
				}
			}
		})
	}
}
