package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

// finished is a finished run of sweep sw: method (maple or a baseline),
// its cell's trial, seed, inner learning rate and model, and its final
// model's validation worst-group accuracy.
type finishedSpec struct {
	method  string
	trial   int
	seed    uint64
	innerLR float64
	model   string
	val     float64
}

func finishedRuns(specs []finishedSpec) []runs.Finished {
	var out []runs.Finished
	for i, s := range specs {
		cfg := runs.DefaultConfig("synthetic")
		cfg.Method, cfg.Sweep = s.method, "sw"
		cfg.Settings.Seed, cfg.Settings.InnerLR = s.seed, s.innerLR
		if s.model != "" {
			cfg.Settings.Model, cfg.Eval.Model = s.model, s.model
		}
		label := s.method
		if s.trial > 0 {
			label = fmt.Sprintf("%s trial %d", s.method, s.trial)
		}
		cfg.Cell = fmt.Sprintf("synthetic|0|linear|%s|%d", label, s.seed)
		out = append(out, runs.Finished{ID: fmt.Sprintf("R%d", i+1), Config: &cfg,
			Summary: &runs.Summary{Done: true, Status: core.StatusDone, Result: &train.Result{ValWorst: s.val}}})
	}
	return out
}

// TestSearchedOf: the sweep's searched settings are those that vary
// across its finished runs (the seed and the settings every run shares
// left out); each run's point is its recorded value and its final
// model's validation worst-group accuracy; the configuration with the
// best mean of that figure over its seeds is marked, per method.
func TestSearchedOf(t *testing.T) {
	for _, tc := range []struct {
		name  string
		runs  []finishedSpec
		want  string // per setting: flag, axis, then each point as run:value=val, * for the pick
		picks string // the runs marked
	}{
		{"two inner rates over two seeds", []finishedSpec{
			{"maple", 1, 1, 0.1, "", 0.60}, {"maple", 1, 2, 0.1, "", 0.70},
			{"maple", 2, 1, 0.01, "", 0.80}, {"maple", 2, 2, 0.01, "", 0.40},
		}, "inner-lr log R1:0.1=0.6* R2:0.1=0.7* R3:0.01=0.8 R4:0.01=0.4", "R1 R2"},
		{"only seeds vary: nothing searched", []finishedSpec{
			{"maple", 0, 1, 0.1, "", 0.6}, {"maple", 0, 2, 0.1, "", 0.7},
		}, "", "R1 R2"},
		{"rates within a decade: linear axis", []finishedSpec{
			{"maple", 1, 1, 0.1, "", 0.5}, {"maple", 2, 1, 0.3, "", 0.6},
		}, "inner-lr linear R1:0.1=0.5 R2:0.3=0.6*", "R2"},
		{"a baseline reads no search rate", []finishedSpec{
			{"maple", 1, 1, 0.1, "", 0.5}, {"maple", 2, 1, 0.01, "", 0.4}, {"erm", 0, 1, 0.1, "", 0.9},
		}, "inner-lr log R1:0.1=0.5* R2:0.01=0.4", "R1 R3"},
		{"models: categories, given once", []finishedSpec{
			{"erm", 0, 1, 0.1, "mlp:8", 0.5}, {"erm", 0, 1, 0.1, "linear", 0.7},
		}, "model categories[linear mlp:8] R1:mlp:8=0.5 R2:linear=0.7*", "R2"},
		{"recipes differ between methods: nothing searched", []finishedSpec{
			{"erm", 0, 1, 0.1, "mlp:8", 0.5}, {"erm", 0, 2, 0.1, "mlp:8", 0.6},
			{"groupdro", 0, 1, 0.1, "linear", 0.7}, {"groupdro", 0, 2, 0.1, "linear", 0.8},
		}, "", "R1 R2 R3 R4"},
		{"a tie goes to the lower trial", []finishedSpec{
			{"maple", 2, 1, 0.1, "", 0.5}, {"maple", 1, 1, 0.2, "", 0.5},
		}, "inner-lr linear R1:0.1=0.5 R2:0.2=0.5*", "R2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := SearchedOf(finishedRuns(tc.runs))
			var got []string
			for _, p := range s.Params {
				axis := "linear"
				switch {
				case p.Categories != nil:
					axis = fmt.Sprintf("categories%v", p.Categories)
				case p.Log:
					axis = "log"
				}
				parts := []string{p.Flag, axis}
				for _, pt := range p.Points {
					mark := ""
					if pt.Best {
						mark = "*"
					}
					if p.Categories == nil && fmt.Sprint(pt.X) != pt.Value {
						t.Errorf("%s: point at %g for the value %s", p.Flag, pt.X, pt.Value)
					}
					parts = append(parts, fmt.Sprintf("%s:%s=%g%s", s.Runs[pt.Run].ID, pt.Value, pt.Val, mark))
				}
				got = append(got, strings.Join(parts, " "))
			}
			if g := strings.Join(got, "; "); g != tc.want {
				t.Errorf("searched\n  %s\nwant\n  %s", g, tc.want)
			}
			var picks []string
			for _, r := range s.Runs {
				if r.Best {
					picks = append(picks, r.ID)
				}
			}
			if p := strings.Join(picks, " "); p != tc.picks {
				t.Errorf("picks %q, want %q", p, tc.picks)
			}
		})
	}
}

// TestPlotSearched: the figure is written when a setting varies, and
// not when none does.
func TestPlotSearched(t *testing.T) {
	out := t.TempDir()
	files, err := plotSearched(SearchedOf(finishedRuns([]finishedSpec{{"maple", 1, 1, 0.1, "", 0.6}, {"maple", 2, 1, 0.01, "", 0.7}})), "sw", out)
	if err != nil || len(files) != 2 {
		t.Fatalf("files %v, %v", files, err)
	}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	none := t.TempDir()
	files, err = plotSearched(SearchedOf(finishedRuns([]finishedSpec{{"maple", 0, 1, 0.1, "", 0.6}, {"maple", 0, 2, 0.1, "", 0.7}})), "sw", none)
	if m, _ := filepath.Glob(filepath.Join(none, "*")); err != nil || files != nil || len(m) != 0 {
		t.Errorf("nothing varies: files %v %v, in the directory %v", files, err, m)
	}
}
