package setting

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestInterval(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Interval
		v    float64
		want bool
	}{
		{"positive excludes 0", Positive, 0, false},
		{"positive takes a tiny value", Positive, 1e-300, true},
		{"non-negative takes 0", NonNegative, 0, true},
		{"fraction takes 1", Fraction, 1, true},
		{"fraction excludes 0", Fraction, 0, false},
		{"below 1 excludes 1", Below1, 1, false},
		{"unit takes 0 and 1", Unit, 1, true},
		{"NaN is refused", Unit, math.NaN(), false},
		{"infinity is refused", NonNegative, math.Inf(1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.Holds(tc.v); got != tc.want {
				t.Fatalf("%s holds %g: %v, want %v", tc.r, tc.v, got, tc.want)
			}
		})
	}
	if s := Fraction.String(); s != "a finite number in (0, 1]" {
		t.Errorf("Fraction reads %q", s)
	}
	if s := Positive.String(); s != "a finite number in (0, inf)" {
		t.Errorf("Positive reads %q", s)
	}
}

func TestErrors(t *testing.T) {
	err := First(nil, Num("Settings.Keep", 1.5, Fraction), Count("Settings.OuterIters", 0, 1))
	e, ok := err.(*Error)
	if !ok || e.Field != "Settings.Keep" || e.Value != "1.5" {
		t.Fatalf("First: %#v, want the keep fraction's refusal", err)
	}
	if got := e.Format(func(f string) string { return "--keep" }); !strings.HasPrefix(got, "--keep 1.5: want a finite number in (0, 1]") {
		t.Errorf("Format: %q", got)
	}
	if err := Count("Settings.OuterIters", MaxIters+1, 1); err == nil || !strings.Contains(err.Error(), "want 1 to 1000000") {
		t.Errorf("Count above the bound: %v", err)
	}
	if err := OneOf("Settings.OuterOn", "test", []string{"val", "train"}); err == nil || !strings.Contains(err.Error(), `"test": want one of val, train`) {
		t.Errorf("OneOf: %v", err)
	}
	if First(nil, nil) != nil || Int("x", 3, 3) != nil {
		t.Error("no refusal expected")
	}
}

// TestDraws: the search distributions stay in their ranges, log-uniform
// draws spread over the decades, whole numbers are whole.
func TestDraws(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var low int
	for range 2000 {
		x := LogUniform{Lo: 1e-4, Hi: 1}.Draw(r)
		if x < 1e-4 || x > 1 {
			t.Fatalf("log-uniform draw %g outside [1e-4, 1]", x)
		}
		if x < 1e-2 {
			low++
		}
		if u := (Uniform{Lo: 2, Hi: 3}).Draw(r); u < 2 || u > 3 {
			t.Fatalf("uniform draw %g outside [2, 3]", u)
		}
	}
	if low < 800 || low > 1200 { // half the decades: about 1000 of 2000
		t.Errorf("%d of 2000 log-uniform draws below 1e-2, want about 1000", low)
	}
	p := Param{Field: "EvalSettings.JTTSteps", Dist: Uniform{Lo: 20, Hi: 300}, Int: true}
	if v := p.Draw(r); strings.ContainsAny(v, ".e") {
		t.Errorf("a whole-number draw reads %q", v)
	}
}
