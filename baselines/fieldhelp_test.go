package baselines

import (
	"strings"
	"testing"
)

// TestFieldHelp: the help of --penalty and --penalty-anneal, written from
// the methods, names every method that reads the setting, so that a new
// method reading it says what it means for it in its own file.
func TestFieldHelp(t *testing.T) {
	for _, field := range []string{"EvalSettings.Penalty", "EvalSettings.PenaltyAnneal", "EvalSettings.LfFQ", "EvalSettings.LfFEMA", "EvalSettings.MaskKeep", "EvalSettings.MaskLR"} {
		help := FieldHelp(field)
		readers, _ := Reading(field)
		for _, m := range readers {
			if !strings.Contains(help, m+":") && !strings.Contains(help, m+",") {
				t.Errorf("%s reads %s, but its help %q does not name it", m, field, help)
			}
		}
	}
}
