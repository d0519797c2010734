package runs

import (
	"bytes"
	"strings"
	"testing"

	"github.com/maple-ood/maple/core"
)

// TestPrinterOuterRisk: the progress line's outer risk keeps its
// significant digits at every scale ("outer 0.00000" for 1e-6).
func TestPrinterOuterRisk(t *testing.T) {
	for _, c := range []struct {
		name string
		risk float64
		want string
	}{
		{"ordinary", 0.10139, "outer 0.1014 "},
		{"small", 1.234e-6, "outer 1.234e-06 "},
		{"zero", 0, "outer 0 "},
		{"large", 12345.6, "outer 1.235e+04 "},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			Printer{&b}.Snapshot(&core.Snapshot{Iter: 1, Total: 10, OuterRisk: c.risk})
			if !strings.Contains(b.String(), c.want) {
				t.Errorf("%q, want %q in it", b.String(), c.want)
			}
		})
	}
}

// TestPrinterNamesWhatIsLearnt: the progress line shows the keep share
// and both gradient norms (with the default frozen weights, the keep
// scores' gradient is the one that moves the search; the line printed
// only the weights', as "|g|").
func TestPrinterNamesWhatIsLearnt(t *testing.T) {
	var b strings.Builder
	Printer{&b}.Snapshot(&core.Snapshot{Iter: 3, Total: 30, KeepFrac: 0.3, HyperNorm: 5.71e-8, KeepNorm: 1.88e-7})
	for _, want := range []string{"kept 30.0%", "|dR/dw| 5.71e-08", "|dR/ds| 1.88e-07"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("%q, want %q in it", b.String(), want)
		}
	}
}
