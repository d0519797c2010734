package main

import (
	"math"
	"testing"

	"github.com/maple-ood/maple/dataset"
)

// TestShares: on four samples, one with a flipped label and two whose
// attribute disagrees with their label, the weight shares are the
// weights' sums over those samples.
func TestShares(t *testing.T) {
	tr := &dataset.Dataset{Name: "t", N: 4,
		Y:      []int32{0, 1, 1, 0},
		CleanY: []int32{0, 1, 0, 0}, // sample 2's label was flipped
		Attr:   []int32{0, 0, 1, 1}, // samples 1 and 3 conflict with their label
	}
	got, err := shares([]float32{1, 2, 3, 4}, tr)
	if err != nil {
		t.Fatal(err)
	}
	want := share{noise: true, noisyFrac: 0.25, noisyShare: 0.3, conflictFrac: 0.5, conflictShare: 0.6}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"noisy frac", got.noisyFrac, want.noisyFrac}, {"noisy share", got.noisyShare, want.noisyShare},
		{"conflict frac", got.conflictFrac, want.conflictFrac}, {"conflict share", got.conflictShare, want.conflictShare}} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %g, want %g", c.name, c.got, c.want)
		}
	}
	if _, err := shares([]float32{0, 0, 0, 0}, tr); err == nil {
		t.Error("all-zero weights accepted")
	}
	tr.CleanY = nil // no label noise: no noisy samples, the conflicting ones as before
	if got, err := shares([]float32{1, 2, 3, 4}, tr); err != nil || got.noise || got.noisyShare != 0 || math.Abs(got.conflictShare-0.6) > 1e-12 {
		t.Errorf("without label noise: %+v %v", got, err)
	}
}
