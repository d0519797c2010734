package train

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/maple-ood/maple/dataset"
)

// TestNewReweighting: the weight moved off uniform is the total
// variation distance from 1/n each, and a reweighting that moved none,
// or less than MinMoved, or whose set is empty, is degenerate; its lines
// say so and name the settings to change.
func TestNewReweighting(t *testing.T) {
	const n = 1000
	d := &dataset.Dataset{N: n, GroupNames: []string{"a", "b"}, Group: make([]int32, n)}
	for i := n / 2; i < n; i++ {
		d.Group[i] = 1
	}
	jtt := func(errs int) ([]float64, []bool) { // errs samples of group b at 6
		u, set := make([]float64, n), make([]bool, n)
		for i := range u {
			u[i] = 1
			if i >= n-errs {
				u[i], set[i] = 6, true
			}
		}
		return u, set
	}
	for _, tc := range []struct {
		name       string
		errs       int
		moved      float64 // 6e/(n+5e) - e/n
		degenerate Degeneracy
		line       string
	}{
		{"empty set", 0, 0, DegenerateEmptySet, "changed nothing: the error set is empty"},
		{"one error in 1000", 1, 6.0/1005 - 0.001, DegenerateSmall, "changed too little to matter: it moved 0.5% of the training weight off uniform, under the 2% taken to matter"},
		{"50 errors in 1000", 50, 300.0/1250 - 0.05, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, set := jtt(tc.errs)
			r := NewReweighting("6 on the error set", d, u, set, "error set")
			if math.Abs(r.Moved-tc.moved) > 1e-12 || r.Degenerate != tc.degenerate || r.Set.Size != tc.errs || r.Groups[1].InSet != tc.errs || r.Groups[0].InSet != 0 {
				t.Errorf("moved %g (want %g), degenerate %q (want %q), %+v %+v", r.Moved, tc.moved, r.Degenerate, tc.degenerate, r.Set, r.Groups)
			}
			r.Change = []Change{{Field: "EvalSettings.JTTSteps", Lower: true, Now: 100, Why: "so"}, {Field: "EvalSettings.JTTUp", Now: 6}}
			text := r.String()
			if tc.line != "" && (!strings.Contains(text, tc.line) || !strings.Contains(text, "; try EvalSettings.JTTSteps below 100 (so), or EvalSettings.JTTUp above 6")) {
				t.Errorf("lines lack %q:\n%s", tc.line, text)
			}
			if tc.line == "" && strings.Contains(text, "changed") {
				t.Errorf("lines say it changed nothing:\n%s", text)
			}
		})
	}
	t.Run("equal weights", func(t *testing.T) {
		r := NewReweighting("w", d, Ones(n), nil, "")
		if r.Degenerate != DegenerateEqual || r.MaxOverMin != 1 || math.Abs(r.Groups[0].Weight-0.5) > 1e-12 {
			t.Errorf("%+v", r)
		}
	})
	t.Run("a result recorded before it reads without one", func(t *testing.T) {
		var res Result
		if err := json.Unmarshal([]byte(`{"method":"jtt","test_acc":0.5}`), &res); err != nil || res.Reweighting != nil {
			t.Errorf("%v, %+v", err, res.Reweighting)
		}
		b, _ := json.Marshal(Result{})
		if strings.Contains(string(b), "reweighting") {
			t.Errorf("a result without one writes %s", b)
		}
	})
}
