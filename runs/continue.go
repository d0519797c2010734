package runs

import (
	"fmt"
	"strings"

	"github.com/maple-ood/maple/record"
)

// Continue says how to go on with the run of cfg that did not finish,
// for a person: the resume command, with lower learning rates when a
// search failed on a non-finite value. A baseline keeps no checkpoint:
// resume trains it again from its start.
func (s Store) Continue(sum *Summary, cfg Config) string {
	id := cfg.ID
	cmd := fmt.Sprintf("maple resume %s --runs-dir %s", id, s.dir)
	if !cfg.Searches() {
		switch sum.Status {
		case record.StatusDone:
			return ""
		case record.StatusFailed:
			return fmt.Sprintf("run %s (%s) failed: %s\nfix the cause, then train it again with: %s", id, cfg.Method, sum.Error, cmd)
		}
		return fmt.Sprintf("run %s (%s) %s before it finished; a baseline keeps no checkpoint: %s trains it again from the start (seeded, to the same result)",
			id, cfg.Method, sum.Status, cmd)
	}
	switch sum.Status {
	case record.StatusFailed:
		msg := fmt.Sprintf("run %s failed at iteration %d: %s\n", id, sum.Iter, sum.Error)
		if sum.Rates != (record.LearningRates{}) && strings.Contains(sum.Error, "non-finite") {
			return msg + fmt.Sprintf("its state at iteration %d is checkpointed; continue with lower rates, e.g.: %s --inner-lr %.3g --weight-lr %.3g --keep-lr %.3g",
				sum.Iter, cmd, sum.Rates.Inner/10, sum.Rates.Weight, sum.Rates.Keep)
		}
		return msg + "fix the cause, then continue with: " + cmd
	case record.StatusDone:
		return ""
	}
	if sum.CheckpointErr != nil {
		return fmt.Sprintf("run %s %s at iteration %d, but its final checkpoint could not be written (%v): %s continues from the last checkpoint that was", id, sum.Status, sum.Iter, sum.CheckpointErr, cmd)
	}
	return fmt.Sprintf("run %s %s at iteration %d; its state is checkpointed: continue with %s", id, sum.Status, sum.Iter, cmd)
}
