package report

import (
	"strings"
	"testing"

	"github.com/maple-ood/maple/train"
)

// TestWriteResultTuned: a result that chose a setting on validation
// rather than a step (dfr's C) says which value, among which, with each
// candidate's figures and what they were measured on, and names no
// step; a result selected at a step names it.
func TestWriteResultTuned(t *testing.T) {
	tuned := &train.Tuned{Name: "C", Setting: "the inverse strength of the L1 penalty", Chosen: 0.3, Note: "validation figures are those of the held-out half",
		Candidates: []train.Candidate{{Value: 1, ValAcc: 0.8, ValWorst: 0.6, TestAcc: 0.79, TestWorst: 0.62}, {Value: 0.3, ValAcc: 0.82, ValWorst: 0.7, TestAcc: 0.8, TestWorst: 0.71}}}
	for _, tc := range []struct {
		name          string
		tuned         *train.Tuned
		want, notWant []string
	}{
		{name: "a tuned setting", tuned: tuned,
			want: []string{"selected on validation (val worst-group accuracy): C = 0.3, the inverse strength of the L1 penalty",
				"C = 1: val acc 0.8000 worst-group 0.6000; test acc 0.7900 worst-group 0.6200",
				"C = 0.3: val acc 0.8200 worst-group 0.7000; test acc 0.8000 worst-group 0.7100 (chosen)",
				"validation figures are those of the held-out half"},
			notWant: []string{"at step", "oracle selection"}},
		{name: "a step", want: []string{"selected on validation (val worst-group accuracy) at step 40", "oracle selection"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &train.Result{Criterion: train.CriterionWorst, SelectedStep: 40, Tuned: tc.tuned}
			var b strings.Builder
			WriteResult(&b, r)
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("wrote\n%s\nwant a line containing %q", b.String(), w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(b.String(), w) {
					t.Errorf("wrote\n%s\nwant nothing of %q", b.String(), w)
				}
			}
		})
	}
}
