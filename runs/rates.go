package runs

import (
	"fmt"

	"github.com/maple-ood/maple/core"
)

// RatesNow returns the learning rates a search has in force (those of its
// latest checkpoint, else its last rate change, else its config) and where
// they come from, for people.
func RatesNow(dir string, cfg *Config) (core.LearningRates, string) {
	lr, from := cfg.Settings.Rates(), "as started"
	events, _ := ReadEvents(dir)
	for _, e := range events {
		if e.Kind == core.EventSetLR && e.LR != nil {
			lr, from = *e.LR, fmt.Sprintf("set before iteration %d", e.Iter+1)
		}
	}
	if st, err := ReadCheckpoint(dir, func(string) {}); err == nil && st != nil && st.LR != lr {
		lr, from = st.LR, fmt.Sprintf("from the checkpoint at iteration %d", st.Iter)
	}
	return lr, from
}
