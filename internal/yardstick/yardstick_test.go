package yardstick

import (
	"math"
	"testing"
	"time"
)

// TestPairedRatio: under a load that comes and goes (each pair slowed by
// the same factor) the paired ratio is the operation's true share of the
// reference's rate, where the median over the best reference call is not.
func TestPairedRatio(t *testing.T) {
	const opFlops, refFlops = 2e9, 1e9
	ms := func(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }
	for _, tc := range []struct {
		name    string
		slow    []float64 // each pair's slowdown
		want    float64   // the paired ratio
		naiveLo bool      // Op.Median / Ref.Best reads lower than the truth
	}{
		{"idle: every call at full speed", []float64{1, 1, 1, 1}, 0.8, false},
		{"loaded: pairs slowed 1x to 6x", []float64{1, 3, 6, 2, 4}, 0.8, true},
		{"one pair", []float64{5}, 0.8, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The reference runs at 100 GFLOP/s idle (10 ms), the operation
			// at 0.8 of it (25 ms for twice the flops).
			var op, ref []time.Duration
			for _, s := range tc.slow {
				op = append(op, ms(25*s))
				ref = append(ref, ms(10*s))
			}
			got := PairedRatio(opFlops, refFlops, op, ref)
			if math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("paired ratio %g, want %g", got, tc.want)
			}
			naive := Report{Op: Rates(opFlops, op), Ref: Rates(refFlops, ref)}.Ratio()
			if (naive < tc.want-1e-9) != tc.naiveLo {
				t.Errorf("median over best %g: want it below %g: %v", naive, tc.want, tc.naiveLo)
			}
		})
	}
	if r := PairedRatio(1, 1, nil, nil); r != 0 {
		t.Errorf("no pairs: %g, want 0", r)
	}
	// Pairs beyond the shorter slice are left out.
	if r := PairedRatio(1, 1, []time.Duration{ms(2), ms(2), ms(100)}, []time.Duration{ms(1), ms(1)}); r != 0.5 {
		t.Errorf("unequal lengths: %g, want 0.5", r)
	}
}
