package models

import "testing"

// TestWidth: a spec's first hidden width, 0 where it has none.
func TestWidth(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		want       int
	}{
		{"two layers", "mlp:390,390", 390},
		{"one layer", "mlp:16", 16},
		{"spaces", "mlp: 8 ,8", 8},
		{"no hidden layer", "linear", 0},
		{"not a number", "mlp:wide", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Width(tc.spec); got != tc.want {
				t.Errorf("Width(%q) = %d, want %d", tc.spec, got, tc.want)
			}
		})
	}
}
