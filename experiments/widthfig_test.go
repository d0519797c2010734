package experiments

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// TestWidthFigure: a figure where a method ran at two widths or more,
// its lines ordered by width; none (and no file left behind) where every
// method ran at one width.
func TestWidthFigure(t *testing.T) {
	row := func(method, model, size, acc, sd string) map[string]string {
		return map[string]string{"dataset": "cmnist", "method": method, "model": model, "train_size": size, "test_acc_mean": acc, "test_acc_sd": sd,
			"test_worst_mean": acc, "test_worst_sd": sd}
	}
	two := &Table{Header: summaryHeader, Rows: []map[string]string{
		row("erm", "mlp:390,390", "0", "17.1", "0.4"), row("erm", "mlp:64,64", "0", "20.5", "1.0"),
		row("maple/rex", "mlp:64,64", "0", "68.0", ""), row("maple/rex", "mlp:390,390", "0", "69.3", ""),
		row("erm", "mlp:64,64", "10000", "25", "2"),
	}}
	lines, err := widthLines(two)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 3 || lines[0].label != "cmnist erm, n=all" || lines[0].points[0].x != 64 || lines[0].points[0].acc != 20.5 || lines[0].points[1].accSD != 0.4 || lines[2].label != "cmnist erm, n=10000" {
		t.Fatalf("lines: %+v %+v %+v", *lines[0], *lines[1], *lines[2])
	}
	// A row of panels per training size, ascending, every image last.
	if got := lineSizes(lines); !slices.Equal(got, []string{"10000", "all"}) {
		t.Errorf("rows of panels %q, want 10000 then all", got)
	}
	dir := t.TempDir()
	if err := WriteWidthFigure(dir, two); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".png", ".svg"} {
		if st, err := os.Stat(filepath.Join(dir, WidthsFigure+ext)); err != nil || st.Size() == 0 {
			t.Errorf("%s%s not written: %v", WidthsFigure, ext, err)
		}
	}
	one := &Table{Header: summaryHeader, Rows: two.Rows[:1]}
	if _, _, ok, err := WidthFigureOf(one); ok || err != nil {
		t.Errorf("a figure (%v, %v) from one width", ok, err)
	}
	if err := WriteWidthFigure(dir, one); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, WidthsFigure+".png")); err == nil {
		t.Error("the width figure of an earlier summary is left beside a summary with one width")
	}
	// One width on two datasets, or at two depths, is no line.
	other := row("erm", "mlp:64,64", "0", "30", "")
	other["dataset"] = "mnist-fashion"
	deeper := row("erm", "mlp:64", "0", "31", "")
	for name, rows := range map[string][]map[string]string{"two datasets": {two.Rows[1], other}, "two depths": {two.Rows[1], deeper}} {
		if _, _, ok, err := WidthFigureOf(&Table{Header: summaryHeader, Rows: rows}); ok || err != nil {
			t.Errorf("%s at one width: a figure (%v, %v)", name, ok, err)
		}
	}
	bad := &Table{Header: summaryHeader, Rows: []map[string]string{row("erm", "mlp:64,64", "0", "x", "")}}
	if _, _, _, err := WidthFigureOf(bad); err == nil {
		t.Error("a summary with a test_acc_mean that is no number drew a figure")
	}
	if os.Getenv("WIDTHFIG_OUT") != "" {
		WriteWidthFigure(os.Getenv("WIDTHFIG_OUT"), two)
	}
}

// TestSettingsLabel: a legend names a row trained by another recipe by
// that recipe, and spells out any other settings.
func TestSettingsLabel(t *testing.T) {
	for _, c := range []struct{ name, method, settings, want string }{
		{"oracle trained as maple evaluates", "oracle", "eval-every 1; eval-lr 1; eval-min-step 1; eval-steps 200; eval-weight-decay 0", "MAPLE code's training"},
		{"maple under the shared evaluation", "maple/irmv1", "eval-every 10; eval-lr 0.1; eval-min-step 0; eval-same-init false; eval-steps 500; eval-weight-decay 0.001", "shared training"},
		{"a search setting", "maple/irmv1", "keep-lr 0.05", "keep-lr 0.05"},
		{"a rate of no recipe", "erm", "eval-lr 0.5", "eval-lr 0.5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := map[string]string{"dataset": "cmnist", "method": c.method, "settings": c.settings, "model": "mlp:64,64", "train_size": "0"}
			if got := settingsLabel(r); got != c.want {
				t.Errorf("settingsLabel = %q, want %q", got, c.want)
			}
		})
	}
}

// TestWidthStyles: no two lines of the width figure look alike: a
// method's line by another final training, or at another training size,
// has its own dash pattern (the MAPLE code's ERM was drawn as the shared
// one's twin).
func TestWidthStyles(t *testing.T) {
	lines := []*widthLine{
		{method: "erm", size: "all"},
		{method: "oracle", size: "all"},
		{method: "erm", size: "all", settings: "eval-lr 1"},
		{method: "erm", size: "10000"},
		{method: "oracle", size: "all", settings: "eval-lr 1"},
	}
	styles := widthStyles(lines)
	for i := range lines {
		for j := range i {
			if styles[i] == styles[j] {
				t.Errorf("lines %d and %d (%+v, %+v) share colour and dashes %+v", j, i, *lines[j], *lines[i], styles[i])
			}
		}
	}
	if styles[0].colour != styles[2].colour || styles[1].colour != styles[4].colour {
		t.Errorf("a method's lines differ in colour: %+v", styles)
	}
}

// TestGapFigure: each row less the oracle of its width trained the same
// way: maple on its default against the oracle's runs chosen per seed on
// validation, a baseline at its published recipe against the oracle at
// the shared evaluation (not the one validation ranks first), one
// trained by the MAPLE code's recipe against the oracle trained by it;
// a row without an oracle at its size is left out and counted; lines
// below the floor are named by panel; no figure without an oracle.
func TestGapFigure(t *testing.T) {
	const code = "eval-every 1; eval-lr 1; eval-min-step 1; eval-steps 200; eval-weight-decay 0"
	summary := &Table{Header: summaryHeader}
	runs := &Table{}
	// add records two seeds of a configuration; its test worst-group
	// accuracy is its test accuracy less drop.
	add := func(sweep, method, settings, model, size string, accs, vals [2]float64, drop float64) {
		hash := sweep + method + model + size
		for i, a := range accs {
			runs.Rows = append(runs.Rows, map[string]string{"sweep": sweep, "config_hash": hash, "dataset": "cmnist", "train_size": size, "model": model,
				"method": method, "settings": settings, "seed": strconv.Itoa(i + 1), "test_acc": fmt.Sprint(a), "test_worst": fmt.Sprint(a - drop), "val_worst": fmt.Sprint(vals[i])})
		}
		mean := (accs[0] + accs[1]) / 2
		summary.Rows = append(summary.Rows, map[string]string{"sweep": sweep, "dataset": "cmnist", "train_size": size, "model": model, "search_model": model,
			"method": method, "settings": settings, "config_hash": hash, "test_acc_mean": fmt.Sprint(mean), "test_worst_mean": fmt.Sprint(mean - drop),
			"val_worst_mean": fmt.Sprint((vals[0] + vals[1]) / 2)})
	}
	for _, m := range []struct {
		model string
		up    float64 // the oracles' accuracy above width 64's
	}{{"mlp:64,64", 0}, {"mlp:390,390", 2}} {
		// Validation ranks the MAPLE code's oracle first at seed 1, the
		// shared one at seed 2, and the MAPLE code's first on the mean.
		add("shared", "oracle", "", m.model, "0", [2]float64{70 + m.up, 80 + m.up}, [2]float64{73, 72}, 1)
		add("alike", "oracle", code, m.model, "0", [2]float64{72 + m.up, 60 + m.up}, [2]float64{75, 71}, 1)
		add("maple", "maple/rex", "", m.model, "0", [2]float64{70, 71}, [2]float64{70, 70}, 1)
		add("shared", "irmv1", "", m.model, "0", [2]float64{65, 66}, [2]float64{70, 70}, 1)
		add("alike", "erm", code, m.model, "0", [2]float64{10, 12}, [2]float64{70, 70}, 1)
		add("shared", "rex", "", m.model, "0", [2]float64{74, 75}, [2]float64{70, 70}, 30)
		add("shared", "irmv1", "", m.model, "10000", [2]float64{60, 61}, [2]float64{70, 70}, 1)
	}
	r := Results{File: &File{Choices: []Choice{{Name: "c", Sweeps: []string{"alike", "shared"}}}}, Summary: summary, Runs: runs}
	lines, left, err := gapLines(r)
	if err != nil {
		t.Fatal(err)
	}
	if left != 2 {
		t.Errorf("%d rows left out, want 2 (irmv1 at 10000 images, where no oracle ran)", left)
	}
	got := map[string][]float64{}
	for _, l := range lines {
		for _, p := range l.points {
			got[l.label] = append(got[l.label], p.x, p.acc)
		}
	}
	for _, tc := range []struct {
		name, label string
		want        []float64 // width, gap; width, gap
	}{
		{"maple against the oracle chosen per seed: 72 (MAPLE code's) and 80 (shared)", "cmnist maple/rex, n=all", []float64{64, 70.5 - 76, 390, 70.5 - 78}},
		{"a published recipe against the shared oracle", "cmnist irmv1, n=all", []float64{64, 65.5 - 75, 390, 65.5 - 77}},
		{"the MAPLE code's training against the oracle trained by it", "cmnist erm, n=all [MAPLE code's training]", []float64{64, 11 - 66, 390, 11 - 68}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := got[tc.label]
			if len(g) != len(tc.want) {
				t.Fatalf("points %v, want %v; lines %v", g, tc.want, got)
			}
			for i := range g {
				if math.Abs(g[i]-tc.want[i]) > 1e-9 {
					t.Fatalf("points %v, want %v", g, tc.want)
				}
			}
		})
	}
	if len(got) != 4 {
		t.Errorf("lines %v, want 4 (the oracle's own rows are no line)", got)
	}
	acc, worst := gapsBelow(lines)
	if strings.Join(acc, "; ") != "cmnist erm, n=all [MAPLE code's training]" || strings.Join(worst, "; ") != "cmnist rex, n=all" {
		t.Errorf("below the floor: %q in both panels, %q in the worst-group one; want ERM, then REx", acc, worst)
	}
	// The panels keep their range with a line below it (ERM).
	lp, rp, _, err := widthPlots(lines, make([]lineStyle, len(lines)), "the gap figure", "", "", gapFloor, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*plot.Plot{lp, rp} {
		if p.Y.Min != gapFloor || p.Y.Max != 5 || p.X.Min >= 64 || p.X.Max <= 390 {
			t.Errorf("panel %q: y from %v to %v, x from %v to %v; want y from %d to 5 and x around 64-390", p.Title.Text, p.Y.Min, p.Y.Max, p.X.Min, p.X.Max, gapFloor)
		}
	}
	if _, _, ok, err := GapFigureOf(r); !ok || err != nil {
		t.Errorf("no gap figure (%v, %v)", ok, err)
	}
	noOracle := Results{File: r.File, Summary: &Table{Header: summaryHeader, Rows: slices.DeleteFunc(slices.Clone(summary.Rows), isOracle)},
		Runs: &Table{Rows: slices.DeleteFunc(slices.Clone(runs.Rows), isOracle)}}
	if _, _, ok, err := GapFigureOf(noOracle); ok || err != nil {
		t.Errorf("a gap figure (%v, %v) without an oracle", ok, err)
	}
}

func isOracle(r map[string]string) bool { return r["method"] == "oracle" }
