package core

import (
	"slices"

	"github.com/maple-ood/maple/record"
	"github.com/maple-ood/maple/train"
)

// RecipeReference names the MAPLE code's ColoredMNIST recipe.
const RecipeReference = record.RecipeReference

// ReferenceRecipe returns set and es with the MAPLE code's ColoredMNIST
// recipe (x-zho14/MAPLE, cnn_mnist_probability_1step_irm.py) applied to
// the settings not in keep (the fields the person set): keep scores only (w
// frozen: weight lr 0), a 30% subset from the start (keep 0.3 = keep0),
// keep lr 1.5, the outer objective on the training split, no weight
// decay, 30 outer x 100 inner steps, the code's hypergradient (weight sum
// held constant), mask (eps 1e-20 inside the logarithms) and IRMv1 scale
// (the mean over its two environments, half maple's sum); every
// iterate evaluated as the code's train_to_converge does: from the
// search's initial parameters, SGD lr 1.0 with momentum 0.9 and no weight
// decay for 200 steps, checked after every step, with the reference
// protocol's figure tracked at a training accuracy above 0.68.
func ReferenceRecipe(set Settings, es train.EvalSettings, keep map[string]bool) (Settings, train.EvalSettings) {
	apply := train.RecipeSetter(keep)
	set.Recipe = RecipeReference
	apply("Settings.EvalEachIter", func() { set.EvalEachIter = true })
	apply("Settings.WeightLR", func() { set.WeightLR = 0 })
	apply("Settings.Keep", func() { set.Keep = 0.3 })
	apply("Settings.Keep0", func() { set.Keep0 = 0.3 })
	apply("Settings.KeepLR", func() { set.KeepLR = 1.5 })
	apply("Settings.OuterOn", func() { set.OuterOn = "train" })
	apply("Settings.WeightDecay", func() { set.WeightDecay = 0 })
	apply("Settings.OuterIters", func() { set.OuterIters = 30 })
	apply("Settings.InnerSteps", func() { set.InnerSteps = 100 })
	apply("Settings.DetachSum", func() { set.DetachSum = true })
	apply("Settings.MaskEps", func() { set.MaskEps = 1e-20 })
	apply("Settings.OuterScale", func() {
		if sc := ObjectiveScale(set.Objective); sc != 1 {
			set.OuterScale = sc // irmv1's: the code averages its 2 environments' penalties
		}
	})
	codeTraining(&es, apply)
	apply("EvalSettings.SameInit", func() { es.SameInit = true })
	apply("EvalSettings.AlsoShared", func() { es.AlsoShared = false })
	es.RefTrainAcc = 0.68
	return set, es
}

// MapleEvaluation returns es with the evaluation every maple search
// defaults to applied to the settings not in keep: the MAPLE code's
// train_to_converge (SGD lr 1.0 with momentum 0.9 and no weight decay for
// 200 steps, checked after every step, the first step's checkpoint
// selectable), from the search's initial parameters where the evaluation
// model is the search model (searchModel), else from a fresh model; and,
// unless keep holds one of TrainingFields (the person chose the
// training), the shared evaluation's training too, validation keeping
// the better of the two (AlsoShared, train.ChooseWeightedERM). The
// paper-scale ablation (docs/experiments/ablation.toml) preferred the
// MAPLE code's training on ColoredMNIST's validation split (worst-group
// accuracy 70.4 against 69.6 with the shared evaluation, on the same
// searches' weights); on mnist-fashion it collapsed the oracle and one
// search's weights where the shared one did not, so neither is the
// default alone: each run's validation split chooses.
func MapleEvaluation(es train.EvalSettings, searchModel string, keep map[string]bool) train.EvalSettings {
	apply := train.RecipeSetter(keep)
	codeTraining(&es, apply)
	if es.Model == searchModel {
		apply("EvalSettings.SameInit", func() { es.SameInit = true })
	}
	if !slices.ContainsFunc(TrainingFields, func(f string) bool { return keep[f] }) {
		apply("EvalSettings.AlsoShared", func() { es.AlsoShared = true })
	}
	return es
}

// TrainingFields are the settings of how the final model trains: a
// person who sets one has chosen the final training, and a search's
// evaluation then trains only by it (MapleEvaluation).
var TrainingFields = []string{"EvalSettings.LR", "EvalSettings.Steps", "EvalSettings.Momentum", "EvalSettings.WeightDecay",
	"EvalSettings.EvalEvery", "EvalSettings.MinStep", "EvalSettings.Optimizer", "EvalSettings.L2", "EvalSettings.SameInit"}

// codeTraining applies the MAPLE code's final training (train_to_converge)
// to the settings apply sets.
func codeTraining(es *train.EvalSettings, apply func(field string, set func())) {
	apply("EvalSettings.LR", func() { es.LR = 1 })
	apply("EvalSettings.Steps", func() { es.Steps = 200 })
	apply("EvalSettings.Momentum", func() { es.Momentum = 0.9 })
	apply("EvalSettings.WeightDecay", func() { es.WeightDecay = 0 })
	apply("EvalSettings.EvalEvery", func() { es.EvalEvery = 1 })
	apply("EvalSettings.MinStep", func() { es.MinStep = 1 })
}
