package models

import (
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/nets"
)

// netsFamily is package nets' models: linear, mlp, cnn and cnns, with
// their hand-written float32 and float64 derivatives and the BLAS and
// oneDNN backends.
type netsFamily struct{}

func (netsFamily) Kinds() []string { return []string{"linear", "mlp", "cnn", "cnns"} }

func (netsFamily) Syntax() []string {
	return []string{"linear", "mlp:W1,W2,...", "cnn:C1,C2", "cnns:C1,C2"}
}

func (netsFamily) Check(spec string) error {
	_, err := nets.ParseSpec(spec)
	return err
}

func (netsFamily) New32(spec string, in dataset.Shape, k int) (Model[float32], error) {
	return newNet[float32](spec, in, k)
}

func (netsFamily) New64(spec string, in dataset.Shape, k int) (Model[float64], error) {
	return newNet[float64](spec, in, k)
}

func newNet[T nets.Float](spec string, in dataset.Shape, k int) (Model[T], error) {
	s, err := nets.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	net, err := nets.New[T](s, nets.Shape{C: in.C, H: in.H, W: in.W}, k)
	if err != nil {
		return nil, err
	}
	return net, nil
}

func (netsFamily) Examples() []string {
	return []string{"linear", "mlp:390,390", "mlp:64,64", "mlp:256,256", "cnn:16,32", "cnns:16,32"}
}
