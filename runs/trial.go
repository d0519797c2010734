package runs

import (
	"fmt"
	"strings"
)

// TrialOf is the trial number of a random search's cell (maple sweep
// --search random) from its cell key, whose method part reads "erm trial
// 3"; 0 for a grid's cell or a run of no sweep.
func TrialOf(cell string) int {
	p := strings.Split(cell, "|")
	if len(p) != 5 {
		return 0
	}
	var t int
	if _, after, ok := strings.Cut(p[3], " trial "); ok {
		fmt.Sscanf(after, "%d", &t)
	}
	return t
}
