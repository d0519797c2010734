package report

import (
	"strings"
	"testing"

	"github.com/maple-ood/maple/train"
)

// TestWriteResultChoice: a result whose final training was chosen
// between two says which was kept and what validation saw of each, by
// the criterion it was selected on; a result of one training says
// nothing of it.
func TestWriteResultChoice(t *testing.T) {
	for _, tc := range []struct {
		name, criterion, chosen, want string
	}{
		{"the shared one kept", "val worst-group accuracy", train.TrainedShared, "chosen on validation: the shared evaluation's; the run's own reached val worst-group 0.5000 (step 7), the shared evaluation's 0.6000 (step 40)"},
		{"the own kept, no groups", "val accuracy", train.TrainedOwn, "chosen on validation: the run's own (--eval-* settings); the run's own reached val accuracy 0.9000 (step 7), the shared evaluation's 0.8000 (step 40)"},
		{"the own failed", "val accuracy", "own failed", "final training: the shared evaluation's; the run's own failed: gradient is not finite"},
		{"one training", "val accuracy", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &train.Result{Criterion: tc.criterion}
			if tc.chosen == "own failed" {
				r.Choice = &train.Choice{Chosen: train.TrainedShared, OwnError: "gradient is not finite"}
			} else if tc.chosen != "" {
				r.Choice = &train.Choice{Chosen: tc.chosen, Own: &train.ChoiceFigures{SelectedStep: 7, ValAcc: 0.9, ValWorst: 0.5},
					Shared: &train.ChoiceFigures{SelectedStep: 40, ValAcc: 0.8, ValWorst: 0.6}}
			}
			var b strings.Builder
			WriteResult(&b, r)
			if got := strings.Contains(b.String(), "final training"); got != (tc.want != "") || tc.want != "" && !strings.Contains(b.String(), tc.want) {
				t.Fatalf("wrote\n%s\nwant a line containing %q", b.String(), tc.want)
			}
		})
	}
}
