package loaders

import "github.com/maple-ood/maple/dataset"

// The dataset types live in package dataset (no I/O); these aliases keep
// the loaders' signatures short.
type (
	Dataset = dataset.Dataset
	Splits  = dataset.Splits
	Shape   = dataset.Shape
)
