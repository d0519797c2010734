package baselines

import (
	"context"
	"fmt"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
	"github.com/maple-ood/maple/train"
)

// jtt is Just Train Twice (Liu et al. 2021): ERM for es.JTTSteps, then
// weighted ERM with its training errors upweighted by es.JTTUp.
type jtt struct{}

func (jtt) Name() string { return "jtt" }

func (jtt) OwnFields() []string { return []string{"EvalSettings.JTTSteps", "EvalSettings.JTTUp"} }

func (jtt) FieldHelp(field string) string {
	switch field {
	case "EvalSettings.JTTSteps":
		return "the ERM steps of the first stage, whose training errors the second upweights"
	case "EvalSettings.JTTUp":
		return "the weight of the first stage's training errors in the second stage"
	}
	return ""
}

func (jtt) Train(ctx context.Context, sp *dataset.Splits, es train.EvalSettings) (*train.Result, error) {
	n := sp.Train.N
	first := es
	first.Steps = es.JTTSteps
	tr, err := train.NewTrainer(sp, first, nil)
	if err != nil {
		return nil, err
	}
	all := train.Ones(n)
	err = train.RunStage(ctx, train.Stage{Name: "ERM, to find the errors to upweight", N: 1, Of: 2}, first.Steps, func(int) error {
		if err := tr.WeightedGrad(all); err != nil {
			return err
		}
		tr.Opt.Step(tr.Theta, tr.Grad)
		return nil
	})
	if err != nil {
		return nil, err
	}
	f := tr.Logits()
	u := make([]float64, n)
	errs := make([]bool, n)
	for i := range u {
		u[i] = 1
		if nets.Predict(f, tr.K, i) != sp.Train.Y[i] {
			u[i], errs[i] = es.JTTUp, true
		}
	}
	res, err := train.WeightedERM(ctx, sp, u, es, "jtt")
	if res != nil {
		res.Reweighting = jttReweighting(sp.Train, u, errs, es)
	}
	return res, err
}

// jttReweighting describes JTT's weights: its error set (the training
// samples the first stage misclassified) at es.JTTUp, the others at 1.
// An empty set makes the second stage ERM: the first stage fitted the
// training set, and only fewer first-stage steps help; a set too small
// to matter (train.MinMoved) also takes a higher upweight.
func jttReweighting(d *dataset.Dataset, u []float64, errs []bool, es train.EvalSettings) *train.Reweighting {
	r := train.NewReweighting(fmt.Sprintf("%g on the error set, 1 elsewhere", es.JTTUp), d, u, errs, "error set")
	if r.Degenerate == "" {
		return r
	}
	if es.JTTSteps > 0 {
		r.Change = append(r.Change, train.Change{Field: "EvalSettings.JTTSteps", Lower: true, Now: float64(es.JTTSteps),
			Why: "so that its first stage stops before it fits the training set"})
	}
	if r.Set.Size > 0 {
		r.Change = append(r.Change, train.Change{Field: "EvalSettings.JTTUp", Now: es.JTTUp})
	}
	return r
}
