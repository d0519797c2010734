package baselines

import (
	"fmt"

	"github.com/maple-ood/maple/train"
)

// EmbeddingsRecipe returns es with method's recipe for embeddings
// (loaders.Embeddings: waterbirds-sim, celeba-sim, features) applied to
// the settings not in keep; methods without one are returned unchanged.
//
// The recipes were chosen on waterbirds-sim (4,795 x 2,048, Waterbirds'
// group sizes), seed 1, by validation worst-group accuracy alone, each
// method's head linear, SGD lr 0.1 with momentum 0.9 for 500 steps,
// the step chosen on validation (early stopping):
//
//	method    weight decay tried           chosen    val wg
//	erm       0.001, 0.01, 0.1, 1          0.001     0.226
//	groupdro  0.001 ... 1, 3, 10, 30       30        0.654
//	upweight  0.001 ... 1, 3, 10, 30       30        0.659
//	jtt       1, 30 x steps 10, 50 x up 6, 20, 100
//	                                       30, 50, 100  0.496
//
// A weight decay of 100 at lr 0.01 and 1,000 steps gained nothing; an
// MLP of 64 units did worse (groupdro 0.335 at weight decay 30).
// docs/EMBEDDINGS.md gives the test figures.
func EmbeddingsRecipe(method string, es train.EvalSettings, keep map[string]bool) train.EvalSettings {
	m, _ := lookup(method)
	if r, ok := m.(EmbeddingsRecipeMethod); ok {
		return r.EmbeddingsRecipe(es, keep)
	}
	return es
}

// linearHead applies the shared part of the embeddings recipes: SGD at
// lr 0.1 with momentum 0.9 for 500 steps, checked every 10, at weight
// decay wd; it names the recipe.
func linearHead(es train.EvalSettings, keep map[string]bool, wd float64, what string) train.EvalSettings {
	apply := train.RecipeSetter(keep)
	apply("EvalSettings.Optimizer", func() { es.Optimizer = "sgd" })
	apply("EvalSettings.LR", func() { es.LR = 0.1 })
	apply("EvalSettings.Momentum", func() { es.Momentum = 0.9 })
	apply("EvalSettings.Steps", func() { es.Steps = 500 })
	apply("EvalSettings.EvalEvery", func() { es.EvalEvery = 10 })
	apply("EvalSettings.WeightDecay", func() { es.WeightDecay = wd })
	es.Recipe = fmt.Sprintf("embeddings: %s; SGD lr 0.1, momentum 0.9, weight decay %g, 500 steps, the step chosen on validation", what, wd)
	return es
}

// The weight decay of each embeddings recipe (EmbeddingsRecipe).
const (
	embeddingsERMDecay   = 0.001
	embeddingsGroupDecay = 30 // groupdro, upweight, jtt's second stage
	embeddingsJTTSteps   = 50
	embeddingsJTTUp      = 100
)

func (m weightedMethod) EmbeddingsRecipe(es train.EvalSettings, keep map[string]bool) train.EvalSettings {
	if m.name == "upweight" {
		return linearHead(es, keep, embeddingsGroupDecay, "each group weighted by the inverse of its size")
	}
	return linearHead(es, keep, embeddingsERMDecay, "every sample at weight 1")
}

func (groupDRO) EmbeddingsRecipe(es train.EvalSettings, keep map[string]bool) train.EvalSettings {
	return linearHead(es, keep, embeddingsGroupDecay, "online group DRO, step size as given")
}

func (jtt) EmbeddingsRecipe(es train.EvalSettings, keep map[string]bool) train.EvalSettings {
	apply := train.RecipeSetter(keep)
	apply("EvalSettings.JTTSteps", func() { es.JTTSteps = embeddingsJTTSteps })
	apply("EvalSettings.JTTUp", func() { es.JTTUp = embeddingsJTTUp })
	return linearHead(es, keep, embeddingsGroupDecay, fmt.Sprintf("errors of %d steps of ERM upweighted %d times", es.JTTSteps, int(es.JTTUp)))
}
