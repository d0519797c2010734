package methodsfig

import (
	"bytes"
	"fmt"
	"image/png"
	"slices"
	"strings"
	"testing"

	"github.com/maple-ood/maple/internal/figure"
)

// summaryRow is a summary.csv row with the columns the labels read.
func summaryRow(sweep, method, settings string) map[string]string {
	return map[string]string{"experiment": "e", "sweep": sweep, "dataset": "cmnist", "train_size": "0", "model": "mlp:8", "method": method,
		"settings": settings, "n": "3", "test_acc_mean": "70.0000", "test_acc_sd": "1.0000", "test_worst_mean": "60.0000", "test_worst_sd": "2.0000"}
}

func TestConfigLabels(t *testing.T) {
	long := "recipe maple-reference; eval-each-iter false; eval-every 10; eval-lr 0.1; eval-min-step 0; eval-same-init false; eval-steps 500"
	for _, tc := range []struct {
		name  string
		rows  []map[string]string
		want  []string
		kinds LabelKinds
	}{{
		name: "one sweep, many methods: the methods",
		rows: []map[string]string{summaryRow("s", "erm", ""), summaryRow("s", "irmv1", "irm-penalty 100"), summaryRow("s", "maple/rex", "")},
		want: []string{"erm", "irmv1", "maple/rex"},
	}, {
		name: "many sweeps, one method: the method and each row's sweep",
		rows: []map[string]string{
			summaryRow("abl-preset", "maple/irmv1", "recipe maple-reference; eval-each-iter false"),
			summaryRow("abl-preset-keeplr", "maple/irmv1", "recipe maple-reference; eval-each-iter false; keep-lr 0.05"),
			summaryRow("abl-defaults-subset", "maple/irmv1", "detach-sum false; keep-lr 0.05; mask-eps 0; outer-scale 0; weight-decay 0.001; weight-lr 0.25"),
		},
		want:  []string{"maple/irmv1 · abl-preset", "maple/irmv1 · abl-preset-keeplr", "maple/irmv1 · abl-defaults-subset"},
		kinds: LabelKinds{Sweep: true},
	}, {
		name: "many sweeps, a method alone in its: the method",
		rows: []map[string]string{summaryRow("base", "erm", ""), summaryRow("a", "maple/rex", "keep-lr 1"), summaryRow("b", "maple/rex", "keep-lr 2")},
		want: []string{"erm", "maple/rex · a", "maple/rex · b"}, kinds: LabelKinds{Sweep: true},
	}, {
		name: "one sweep, one method at several settings: the settings not shared",
		rows: []map[string]string{
			summaryRow("grid", "maple/rex", "recipe maple-reference; keep-lr 0.05"),
			summaryRow("grid", "maple/rex", "recipe maple-reference; keep-lr 1.5"),
			summaryRow("grid", "maple/rex", "recipe maple-reference"),
		},
		want:  []string{"maple/rex · keep-lr 0.05", "maple/rex · keep-lr 1.5", "maple/rex · recipe maple-reference"},
		kinds: LabelKinds{Settings: true},
	}, {
		name: "long settings: named whole (the figure wraps them)",
		rows: []map[string]string{summaryRow("s", "maple/irmv1", long), summaryRow("s", "maple/irmv1", "")},
		want: []string{"maple/irmv1 · " + long, "maple/irmv1 · defaults"}, kinds: LabelKinds{Settings: true},
	}, {
		name: "two sweeps of one configuration each, sharing a sweep: the settings",
		rows: []map[string]string{summaryRow("a", "erm", "lr 0.1"), summaryRow("a", "erm", "lr 0.01"), summaryRow("b", "erm", "lr 1")},
		want: []string{"erm · lr 0.1", "erm · lr 0.01", "erm · lr 1"}, kinds: LabelKinds{Settings: true},
	}, {
		name: "datasets differ: named before the method",
		rows: []map[string]string{summaryRow("s", "erm", ""), func() map[string]string { r := summaryRow("s", "erm", ""); r["dataset"] = "synthetic"; return r }()},
		want: []string{"cmnist erm", "synthetic erm"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, kinds := ConfigLabels(tc.rows)
			if !slices.Equal(got, tc.want) || kinds != tc.kinds {
				t.Errorf("ConfigLabels = %q %+v, want %q %+v", got, kinds, tc.want, tc.kinds)
			}
		})
	}
}

func TestLabelText(t *testing.T) {
	long := "maple/irmv1 · recipe maple-reference; eval-each-iter false; eval-every 10; eval-lr 0.1; eval-min-step 0; eval-same-init false; eval-steps 500; eval-weight-decay 0.001"
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"maple/irmv1 · abl-preset-keeplr", []string{"maple/irmv1 · abl-preset-keeplr"}},
		{"maple/irmv1 · recipe maple-reference; eval-each-iter false; keep-lr 0.05",
			[]string{"maple/irmv1 · recipe maple-reference;", "eval-each-iter false; keep-lr 0.05"}},
		{long, []string{"maple/irmv1 · recipe maple-reference;", "eval-each-iter false; eval-every 10;", "eval-lr 0.1; eval-min-step 0; eval-same-init…"}},
	} {
		got := labelText(tc.name)
		if !slices.Equal(got, tc.want) {
			t.Errorf("labelText(%q) = %q, want %q", tc.name, got, tc.want)
		}
		for _, l := range got {
			if n := len([]rune(l)); n > labelChars {
				t.Errorf("labelText(%q): line %q of %d characters, more than %d", tc.name, l, n, labelChars)
			}
		}
	}
}

// TestMethodsFigureHeight checks that the methods figure grows by a row's
// height per configuration, so that its labels never crowd.
func TestMethodsFigureHeight(t *testing.T) {
	height := func(n int) int {
		t.Helper()
		var rows []map[string]string
		for i := range n {
			rows = append(rows, summaryRow(fmt.Sprintf("sweep-%d", i), "maple/irmv1", fmt.Sprintf("keep-lr %d", i)))
		}
		pngBytes, svg, err := Draw(rows, "Experiment e")
		if err != nil {
			t.Fatal(err)
		}
		if n > 1 && !strings.Contains(string(svg), ">maple/irmv1 · sweep-0<") {
			t.Errorf("%d rows: the SVG does not name the first row maple/irmv1 · sweep-0", n)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(pngBytes))
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Height
	}
	h1, h2, h12 := height(1), height(2), height(12)
	row := int(methodsRowH / 72 * figure.DPI) // pixels
	if h2-h1 < row-1 || h2-h1 > row+1 || h12-h2 < 10*row-2 || h12-h2 > 10*row+2 {
		t.Errorf("heights %d, %d, %d px for 1, 2, 12 rows: want %d px more per row", h1, h2, h12, row)
	}
	if methodsHeight(12, 1, 2) <= methodsHeight(2, 1, 2) || methodsHeight(2, 1, 3) <= methodsHeight(2, 1, 2) || methodsHeight(2, 3, 2) <= methodsHeight(2, 2, 2) {
		t.Error("methodsHeight does not grow with the rows, their names' lines and the title's lines")
	}
}
