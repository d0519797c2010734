package report

import (
	"fmt"
	"io"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/train"
)

// WriteOutcome writes the outcome of a run for a person (what `maple run`
// prints when a run ends).
func WriteOutcome(w io.Writer, o *Outcome) {
	if o.Status != core.StatusDone {
		fmt.Fprintf(w, "run %s: %s\n", o.RunID, o.Status)
		return
	}
	fmt.Fprintf(w, "%s on %s (model %s, seed %d), ", o.Method, o.Dataset, o.Model, o.Seed)
	WriteResult(w, o.Result)
	if o.SpuriousShare != nil {
		fmt.Fprintf(w, "  spurious share of the linear coefficient: %.4f", *o.SpuriousShare)
		if o.ERMSpuriousShare != nil {
			fmt.Fprintf(w, " (erm trained as this run's evaluation (%s): %.4f, erm test acc %.4f)", o.ERMSettings, *o.ERMSpuriousShare, *o.ERMTestAcc)
		}
		fmt.Fprintln(w)
	}
}

// WriteResult writes a result's selected checkpoint for a person: its
// validation and test accuracy, test accuracy per group, and the oracle
// (test-selected) figures, labelled as reference only.
func WriteResult(w io.Writer, r *train.Result) {
	if t := r.Tuned; t != nil {
		writeTuned(w, r.Criterion, t)
	} else {
		fmt.Fprintf(w, "selected on validation (%s) at step %d\n", r.Criterion, r.SelectedStep)
	}
	if c := r.Choice; c != nil {
		switch {
		case c.OwnError != "":
			fmt.Fprintf(w, "  final training: the shared evaluation's; the run's own failed: %s\n", c.OwnError)
		case c.SharedError != "":
			fmt.Fprintf(w, "  final training: the run's own; the shared evaluation's failed: %s\n", c.SharedError)
		case c.Own != nil && c.Shared != nil:
			kept := "the run's own (--eval-* settings)"
			if c.Chosen == train.TrainedShared {
				kept = "the shared evaluation's"
			}
			what, own, shared := "val worst-group", c.Own.ValWorst, c.Shared.ValWorst
			if r.Criterion == train.CriterionAcc {
				what, own, shared = "val accuracy", c.Own.ValAcc, c.Shared.ValAcc
			}
			fmt.Fprintf(w, "  final training chosen on validation: %s; the run's own reached %s %.4f (step %d), the shared evaluation's %.4f (step %d)\n",
				kept, what, own, c.Own.SelectedStep, shared, c.Shared.SelectedStep)
		}
	}
	if r.Stopped != nil {
		fmt.Fprintf(w, "  training stopped at step %d: its gradient was no longer finite (a learning rate too high for the model; see --eval-lr); the checkpoint is the best of the checks before\n", *r.Stopped)
	}
	fmt.Fprintf(w, "  val  acc %.4f  worst-group %.4f\n  test acc %.4f  worst-group %.4f\n", r.ValAcc, r.ValWorst, r.TestAcc, r.TestWorst)
	if r.KeptWeights != nil {
		fmt.Fprintf(w, "  the selected network keeps %.1f%% of its weights\n", 100**r.KeptWeights)
	}
	for g, a := range r.PerGroupTest {
		fmt.Fprintf(w, "    test %-18s %.4f\n", r.GroupNames[g], a)
	}
	if rw := r.Reweighting; rw != nil {
		for _, l := range rw.Lines(config.FlagName) {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	if r.Tuned != nil {
		return // one model, no steps: nothing to select on test
	}
	fmt.Fprintf(w, "  oracle selection (test-selected, reference only): test acc %.4f worst-group %.4f at step %d\n",
		r.OracleSelection.TestAcc, r.OracleSelection.TestWorst, r.OracleSelection.Step)
}

// writeTuned writes the setting a method chose on validation, each
// candidate's figures (the test figures beside them, unused), and what
// they were measured on.
func writeTuned(w io.Writer, criterion string, t *train.Tuned) {
	fmt.Fprintf(w, "selected on validation (%s): %s = %g, %s\n", criterion, t.Name, t.Chosen, t.Setting)
	for _, c := range t.Candidates {
		chosen := ""
		if c.Value == t.Chosen {
			chosen = " (chosen)"
		}
		fmt.Fprintf(w, "    %s = %g: val acc %.4f worst-group %.4f; test acc %.4f worst-group %.4f%s\n", t.Name, c.Value, c.ValAcc, c.ValWorst, c.TestAcc, c.TestWorst, chosen)
	}
	if t.Note != "" {
		fmt.Fprintf(w, "  %s\n", t.Note)
	}
}
