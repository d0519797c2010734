package extend

import (
	"fmt"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/models"
	"github.com/maple-ood/maple/nets"
)

func init() { models.Register(wide{}) }

// wide is a one-hidden-layer MLP whose spec gives its width as a
// multiple of the input's size ("wide:4" on 2 features is mlp:8), built
// from package nets' models.
type wide struct{}

func (wide) Kinds() []string  { return []string{"wide"} }
func (wide) Syntax() []string { return []string{"wide:M"} }

func (wide) Check(spec string) error {
	_, err := multiple(spec)
	return err
}

func multiple(spec string) (int, error) {
	var m int
	if _, err := fmt.Sscanf(spec, "wide:%d", &m); err != nil || m < 1 {
		return 0, fmt.Errorf("model %q: want wide:M, M a whole number from 1", spec)
	}
	return m, nil
}

func newWide[T nets.Float](spec string, in dataset.Shape, k int) (*nets.Net[T], error) {
	m, err := multiple(spec)
	if err != nil {
		return nil, err
	}
	s, err := nets.ParseSpec(fmt.Sprintf("mlp:%d", m*in.Size()))
	if err != nil {
		return nil, err
	}
	return nets.New[T](s, nets.Shape{C: in.C, H: in.H, W: in.W}, k)
}

func (wide) New32(spec string, in dataset.Shape, k int) (models.Model[float32], error) {
	return newWide[float32](spec, in, k)
}

func (wide) New64(spec string, in dataset.Shape, k int) (models.Model[float64], error) {
	return newWide[float64](spec, in, k)
}

func (wide) Examples() []string { return []string{"wide:4"} }
