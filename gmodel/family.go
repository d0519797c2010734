package gmodel

import (
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/models"
)

func init() { models.Register(family{}) }

// family is gorgonia's model family for core: the specs g:NAME[:ARGS].
type family struct{}

func (family) Kinds() []string { return []string{"g"} }

func (family) Syntax() []string {
	var out []string
	for _, n := range names() {
		k, _ := lookupKind(n)
		out = append(out, k.syntax)
	}
	return out
}

// Check parses the spec and builds its architecture for a 1x28x28 image
// with 2 logits: the arguments' errors, before any data is read (the
// shape's own errors come when the data is known).
func (family) Check(spec string) error {
	_, err := build(spec, dataset.Shape{C: 1, H: 28, W: 28}, 2)
	return err
}

func (family) New32(spec string, in dataset.Shape, k int) (models.Model[float32], error) {
	return New[float32](spec, in, k)
}

func (family) New64(spec string, in dataset.Shape, k int) (models.Model[float64], error) {
	return New[float64](spec, in, k)
}

func (family) Examples() []string {
	var out []string
	for _, n := range names() {
		k, _ := lookupKind(n)
		out = append(out, k.examples...)
	}
	return out
}
