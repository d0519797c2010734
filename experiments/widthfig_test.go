package experiments

import (
	"os"
	"path/filepath"
	"testing"
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
