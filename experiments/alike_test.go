package experiments

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestChosenAlikeCases pins chosenAlike and versus at maple's default
// down per method, with decoys at another size and dataset, a
// choice of three trainings, a second qualifying choice, a method whose
// choice has no complete seed, one without validation scores and a tie.
func TestChosenAlikeCases(t *testing.T) {
	const preset = "eval-every 1; eval-lr 1; eval-min-step 1; eval-steps 200; eval-weight-decay 0"
	row := func(sweep, method, settings, hash, dataset, size string) map[string]string {
		return map[string]string{"sweep": sweep, "method": method, "settings": settings, "config_hash": hash, "dataset": dataset, "train_size": size,
			"model": "mlp:390,390", "group_labels_training": "no"}
	}
	x := row("m", "maple/rex", "", "md", "cmnist", "0")
	// Rows in the order the summary lists them, a decoy (jtt at another size) before the first
	// kept: chosenAlike lists the methods in the order of the rows keep admits.
	nan := row("alike", "upweight", preset, "na", "cmnist", "0") // no validation scores
	nanS := row("shared", "upweight", "", "ns", "cmnist", "0")
	jttA := row("alike alike2", "jtt", preset, "ja", "cmnist", "0")
	jttS := row("shared", "jtt", "", "js", "cmnist", "0")
	jttO := row("other", "jtt", "eval-lr 0.5", "jo", "cmnist", "0")
	jttO["val_worst_mean"] = "99" // summary.csv's: what the comparator of every training is ranked by
	jtt10A := row("alike", "jtt", preset, "ja10", "cmnist", "10000")
	jtt10S := row("shared", "jtt", "", "js10", "cmnist", "10000")
	jttFA := row("alike", "jtt", preset, "jfa", "mnist-fashion", "0")
	jttFS := row("shared", "jtt", "", "jfs", "mnist-fashion", "0")
	tieA := row("alike", "cvar", preset, "ta", "cmnist", "0")
	tieS := row("shared", "cvar", "", "ts", "cmnist", "0")
	upA := row("alike", "groupdro", preset, "ua", "cmnist", "0") // (its group labels aside)
	upS := row("shared", "groupdro", "", "us", "cmnist", "0")
	// erm: both sweeps trained it by the MAPLE code's recipe at this size
	// (one row), by the two candidates at another.
	gdBoth := row("alike shared", "erm", preset, "gb", "cmnist", "0")
	gd10A := row("alike", "erm", preset, "g10a", "cmnist", "10000")
	gd10S := row("shared", "erm", "", "g10s", "cmnist", "10000")
	rows := []map[string]string{x, jtt10A, nan, nanS, jttA, jttS, jttO, jtt10S, jttFA, jttFS, tieA, tieS, upA, upS, gdBoth, gd10A, gd10S}
	for _, c := range []struct {
		r    map[string]string
		want string
	}{{jttA, TrainingCode}, {jttS, TrainingShared}, {jttO, "other"}, {nan, TrainingCode}, {nanS, TrainingShared}, {tieS, TrainingShared}, {upS, TrainingShared}, {gdBoth, TrainingCode}, {gd10S, TrainingShared}} {
		if got := FinalTraining(c.r); got != c.want {
			t.Fatalf("fixture: %s %q trains by %q, want %q", c.r["method"], c.r["settings"], got, c.want)
		}
	}
	runs := &Table{}
	add := func(y map[string]string, sweep string, seed int, acc float64, val string) {
		runs.Rows = append(runs.Rows, map[string]string{"sweep": sweep, "config_hash": y["config_hash"], "dataset": y["dataset"], "train_size": y["train_size"],
			"model": y["model"], "method": y["method"], "settings": y["settings"], "seed": fmt.Sprint(seed), "test_acc": fmt.Sprint(acc), "val_worst": val})
	}
	for s := range 3 {
		seed := s + 1
		// Decoys first in runs.csv: jtt at another size and dataset.
		add(jtt10A, "alike", seed, 90, "95")
		add(jtt10S, "shared", seed, 91, "96")
		add(jttFA, "alike", seed, 92, "97")
		add(jttFS, "shared", seed, 93, "98")
		add(x, "m", seed, float64(70+s), "70")
		add(nan, "alike", seed, 5, "")
		add(nanS, "shared", seed, 6, "")
		add(jttA, "alike", seed, float64(1+s), []string{"60", "80", "60"}[s])
		add(jttA, "alike2", seed, float64(1+s), []string{"60", "80", "60"}[s])
		add(jttS, "shared", seed, float64(10*(s+1)), []string{"70", "50", "70"}[s])
		add(jttO, "other", seed, 55, "99")
		add(tieA, "alike", seed, 33, []string{"70", "80", "70"}[s]) // chosen: 70, 80, 70 as jtt's
		add(tieS, "shared", seed, 34, "0")
		add(gdBoth, "alike", seed, 77, "99")
		add(gdBoth, "shared", seed, 78, "99")
		add(gd10A, "alike", seed, 77, "99")
		add(gd10S, "shared", seed, 78, "99")
	}
	add(upA, "alike", 1, 11, "99") // no seed both sweeps ran
	add(upS, "shared", 2, 12, "99")
	choices := []Choice{
		{Name: "three", Sweeps: []string{"other", "alike", "shared"}}, // three trainings: no yardstick
		{Name: "c", Sweeps: []string{"alike", "shared"}},
		{Name: "c2", Sweeps: []string{"alike2", "shared"}}, // qualifies too, but comes second
	}
	r := Results{File: &File{Choices: choices}, Runs: runs}
	admissible := func(y map[string]string) bool {
		return !strings.HasPrefix(y["method"], "maple") && y["group_labels_training"] != "yes" &&
			y["dataset"] == x["dataset"] && y["train_size"] == x["train_size"] && y["model"] == x["model"]
	}
	var got []string
	for _, c := range chosenAlike(x, rows, r, admissible) {
		var hs []string
		for _, run := range c.runs {
			hs = append(hs, run["sweep"]+"/"+run["config_hash"])
		}
		got = append(got, c.method+": "+strings.Join(hs, " "))
	}
	want := []string{
		"upweight: alike/na alike/na alike/na",
		"jtt: shared/js alike/ja shared/js",
		"cvar: alike/ta alike/ta alike/ta",
	}
	if !slices.Equal(got, want) {
		t.Errorf("chosenAlike:\n got %q\nwant %q", got, want)
	}
	// The comparator: jtt (73.3 on validation), not upweight (no validation
	// scores: ranks last), nor cvar (a tie: the first listed wins).
	if got, want := versus(x, rows, r, true), "jtt (chosen on validation): "+welchText([]float64{70, 71, 72}, []float64{10, 2, 30}); got != want {
		t.Errorf("versus, alike: %q, want %q", got, want)
	}
	// Of every training: the best on validation whatever its recipe, at
	// this dataset, size and model (jtt by eval-lr 0.5 here, 99), not one
	// chosen per seed.
	if got := versus(x, rows, r, false); !strings.HasPrefix(got, "jtt (other): ") {
		t.Errorf("versus, any training: %q, want jtt (other)", got)
	}
	if got := versus(x, rows, Results{Runs: runs}, true); got != "no baseline chosen the same way" {
		t.Errorf("versus without the experiment's file: %q", got)
	}
}

// TestVersusSameSizeAndModel: a row at another size or model that
// validation ranks first is no comparator.
func TestVersusSameSizeAndModel(t *testing.T) {
	row := func(method, hash, size, model, val string) map[string]string {
		return map[string]string{"method": method, "config_hash": hash, "dataset": "cmnist", "train_size": size, "model": model, "group_labels_training": "no",
			"settings": "", "val_worst_mean": val}
	}
	x := row("maple/rex", "m", "0", "mlp:390,390", "70")
	x["settings"] = "eval-also-shared false"
	rows := []map[string]string{x, row("erm", "e", "0", "mlp:390,390", "50"), row("jtt", "j10", "10000", "mlp:390,390", "99"), row("lff", "l64", "0", "mlp:64,64", "99")}
	runs := &Table{}
	for _, h := range []string{"m", "e", "j10", "l64"} {
		for s := range 2 {
			runs.Rows = append(runs.Rows, map[string]string{"config_hash": h, "seed": fmt.Sprint(s + 1), "test_acc": fmt.Sprint(60 + s)})
		}
	}
	if got := versus(x, rows, Results{File: &File{}, Runs: runs}, false); !strings.HasPrefix(got, "erm ") {
		t.Errorf("any training: %q, want erm (the only row at this size and model)", got)
	}
}

// TestProvenanceEdges: no runs, and a run with a backend but no thread
// count.
func TestProvenanceEdges(t *testing.T) {
	if got := provenance(nil); got != "" {
		t.Errorf("no runs: %q", got)
	}
	got := provenance(&Table{Rows: []map[string]string{{"commit": "abc", "backend": "pure Go", "threads": ""}}})
	if !strings.Contains(got, "1 record no backend or thread count") {
		t.Errorf("no thread count: %q", got)
	}
}

// TestWidthHeadings: a width figure's rows of panels are headed by
// their sizes, ascending, where there are several, and not where there
// is one.
func TestWidthHeadings(t *testing.T) {
	row := func(method, model, size, acc string) map[string]string {
		return map[string]string{"dataset": "cmnist", "method": method, "model": model, "train_size": size, "test_acc_mean": acc, "test_acc_sd": "",
			"test_worst_mean": acc, "test_worst_sd": ""}
	}
	two := &Table{Header: summaryHeader, Rows: []map[string]string{
		row("erm", "mlp:64,64", "0", "20"), row("erm", "mlp:390,390", "0", "21"),
		row("erm", "mlp:64,64", "10000", "25"), row("erm", "mlp:390,390", "10000", "26"),
	}}
	_, svg, ok, err := WidthFigureOf(two)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	s := string(svg)
	i, j := strings.Index(s, ">10000 training images<"), strings.Index(s, ">Every training image<")
	if i < 0 || j < 0 || i > j {
		t.Errorf("two sizes: headings at %d and %d, want 10000's then every image's", i, j)
	}
	one := &Table{Header: summaryHeader, Rows: two.Rows[:2]}
	_, svg, ok, err = WidthFigureOf(one)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if strings.Contains(string(svg), "training image") {
		t.Error("one size: a heading")
	}
}

// TestHeadlineVersus: the headline's maple row at its default carries
// the like-with-like comparison, chosen per seed.
func TestHeadlineVersus(t *testing.T) {
	const preset = "eval-every 1; eval-lr 1; eval-min-step 1; eval-steps 200; eval-weight-decay 0"
	row := func(sweep, method, settings, hash, val string) map[string]string {
		return map[string]string{"sweep": sweep, "method": method, "settings": settings, "config_hash": hash, "dataset": "cmnist", "train_size": "0",
			"model": "mlp:390,390", "group_labels_training": "no", "n": "2", "test_acc_mean": "1", "val_worst_mean": val}
	}
	rows := []map[string]string{row("m", "maple/rex", "", "md", "70"), row("alike", "jtt", preset, "ja", "60"), row("shared", "jtt", "", "js", "61"), row("shared", "erm", "", "es", "90")}
	runs := &Table{}
	for _, y := range rows {
		for s := range 2 {
			runs.Rows = append(runs.Rows, map[string]string{"sweep": y["sweep"], "config_hash": y["config_hash"], "dataset": "cmnist", "train_size": "0", "model": "mlp:390,390",
				"method": y["method"], "settings": y["settings"], "seed": fmt.Sprint(s + 1), "test_acc": fmt.Sprint(50 + s + len(y["config_hash"])), "val_worst": y["val_worst_mean"]})
		}
	}
	r := Results{File: &File{Name: "e", Headline: []string{"maple/rex"}, Choices: []Choice{{Name: "c", Sweeps: []string{"alike", "shared"}}}}, Summary: &Table{Rows: rows}, Runs: runs}
	want := versus(rows[0], rows, r, true)
	if !strings.HasPrefix(want, "jtt (chosen on validation): ") {
		t.Fatalf("fixture: %q", want)
	}
	if got := Headline([]Results{r}); !strings.Contains(got, "| "+want+" |") {
		t.Errorf("headline without %q:\n%s", want, got)
	}
}

// TestCompareModelsShapes: models of two depths order by shape first,
// then by width (a one-layer 128 before a two-layer 64).
func TestCompareModelsShapes(t *testing.T) {
	ms := []string{"mlp:64,64", "mlp:128", "mlp:32,32", "mlp:16"}
	slices.SortFunc(ms, compareModels)
	if want := []string{"mlp:16", "mlp:128", "mlp:32,32", "mlp:64,64"}; !slices.Equal(ms, want) {
		t.Errorf("%q, want %q", ms, want)
	}
}

// TestChosenAlikeOneConfigurationEach: a choice whose sweeps trained a
// method by the MAPLE code's recipe in two configurations is not the
// choice maple's runs make (each of them trains one final model by each
// recipe), and gives no comparator.
func TestChosenAlikeOneConfigurationEach(t *testing.T) {
	const preset = "eval-every 1; eval-lr 1; eval-min-step 1; eval-steps 200; eval-weight-decay 0"
	row := func(sweep, settings, hash string) map[string]string {
		return map[string]string{"sweep": sweep, "method": "jtt", "settings": settings, "config_hash": hash, "dataset": "cmnist", "train_size": "0",
			"model": "mlp:390,390", "group_labels_training": "no"}
	}
	x := map[string]string{"sweep": "m", "method": "maple/rex", "settings": "", "config_hash": "md", "dataset": "cmnist", "train_size": "0", "model": "mlp:390,390"}
	rows := []map[string]string{x, row("alike", preset, "ja"), row("alike-b", preset+"; beta 0.5", "jb"), row("shared", "", "js")}
	if got := FinalTraining(rows[2]); got != TrainingCode {
		t.Fatalf("fixture: %q trains by %q, want the MAPLE code's", rows[2]["settings"], got)
	}
	runs := &Table{}
	for _, y := range rows {
		for s := range 2 {
			runs.Rows = append(runs.Rows, map[string]string{"sweep": y["sweep"], "config_hash": y["config_hash"], "dataset": "cmnist", "train_size": "0", "model": "mlp:390,390",
				"method": y["method"], "settings": y["settings"], "seed": fmt.Sprint(s + 1), "test_acc": "60", "val_worst": "60"})
		}
	}
	keep := func(y map[string]string) bool { return y["method"] == "jtt" }
	three := Results{File: &File{Choices: []Choice{{Name: "c", Sweeps: []string{"alike", "alike-b", "shared"}}}}, Runs: runs}
	if got := chosenAlike(x, rows, three, keep); len(got) != 0 {
		t.Errorf("two configurations by the MAPLE code's recipe: chosen %v, want none", got)
	}
	two := Results{File: &File{Choices: []Choice{{Name: "c", Sweeps: []string{"alike", "shared"}}}}, Runs: runs}
	if got := chosenAlike(x, rows, two, keep); len(got) != 1 || len(got[0].runs) != 2 {
		t.Errorf("one configuration by each: chosen %v, want jtt's two seeds", got)
	}
}
