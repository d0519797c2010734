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
