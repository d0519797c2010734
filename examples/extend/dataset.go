package extend

import (
	"fmt"
	"math/rand/v2"

	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/loaders"
)

func init() { loaders.Register(toyData{}) }

// toyData is a two-feature dataset: the first feature carries the label
// (y + noise), the second a spurious attribute that agrees with the
// label in 90% of the training and validation samples and in 10% of the
// test samples; two environments by sample parity.
type toyData struct{}

func (toyData) Name() string { return "toy2d" }

func (toyData) Load(d loaders.Spec, in loaders.LoadInput) (*dataset.Splits, error) {
	r := rand.New(rand.NewPCG(in.Seed, 2))
	split := func(name string, n int, agree float64, id0 int64) *dataset.Dataset {
		ds := &dataset.Dataset{Name: name, N: n, D: 2, Shape: dataset.Shape{C: 1, H: 1, W: 2}, Classes: 2,
			EnvNames: []string{"e0", "e1"}, GroupNames: []string{"y=0,a=0", "y=0,a=1", "y=1,a=0", "y=1,a=1"},
			X: make([]float32, 2*n), Y: make([]int32, n), Env: make([]int32, n), Group: make([]int32, n), Attr: make([]int32, n), ID: make([]int64, n)}
		for i := range n {
			y := int32(r.IntN(2))
			a := y
			if r.Float64() > agree {
				a = 1 - y
			}
			ds.X[2*i], ds.X[2*i+1] = float32(y)+float32(r.NormFloat64()), float32(a)+0.3*float32(r.NormFloat64())
			ds.Y[i], ds.Attr[i], ds.Group[i], ds.Env[i], ds.ID[i] = y, a, 2*y+a, int32(i%2), id0+int64(i)
		}
		return ds
	}
	return &dataset.Splits{Name: "toy2d", Train: split("train", 400, 0.9, 0), Val: split("val", 100, 0.9, 400), Test: split("test", 200, 0.1, 500), Source: "generated"}, nil
}

// Two of a Source's optional parts (loaders.ModelDefaulter and
// loaders.Checker), implemented from outside maple's packages.

// DefaultModel is the search model of a run on toy2d without --model:
// the toy family's, two units per feature.
func (toyData) DefaultModel() string { return "wide:2" }

// Check refuses a training size: toy2d's splits have a fixed size.
func (toyData) Check(d loaders.Spec) error {
	if d.TrainSize != 0 {
		return fmt.Errorf("--train-size %d: toy2d always has 400 training samples; leave the flag out", d.TrainSize)
	}
	return nil
}
