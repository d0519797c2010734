package main

import (
	"github.com/maple-ood/maple/loaders"
	"github.com/spf13/pflag"
)

// registerData adds the dataset option flags shared by `maple data` and
// `maple run` to fl, writing into d.
func registerData(fl *pflag.FlagSet, d *loaders.Spec) {
	fl.StringVar(&d.DataDir, "data-dir", "", "data directory (default $MAPLE_DATA_DIR, else the user cache dir + /maple)")
	fl.IntVar(&d.TrainSize, "train-size", 0, "keep a seeded subset of this many training samples (0 = all)")
	fl.StringVar(&d.Corr, "corr", "", "per-env spurious parameters, train0,train1,test: cmnist colour flips (default 0.1,0.2,0.9), synthetic agreements (0.9,0.8,0.1), mnist-fashion/cifar-mnist correlations (0.999,0.7,0.1)")
	fl.Float64Var(&d.LabelNoise, "label-noise", -1, "label flip probability (default 0.25 for cmnist, 0.1 for mnist-fashion and cifar-mnist)")
	fl.IntVar(&d.Downsample, "downsample", 0, "mnist-fashion / cifar-mnist: keep every k-th pixel (default 2 and 1)")
	fl.BoolVar(&d.Offline, "offline", false, "never download a missing file")
	fl.StringVar(&d.Dir, "dir", "", "waterbirds / celeba: the dataset folder (default <data-dir>/waterbirds or <data-dir>/celeba)")
	fl.IntVar(&d.ImageSize, "image-size", 64, "waterbirds / celeba: resize and centre-crop images to this size")
	fl.StringVar(&d.Features, "features", "", "waterbirds / celeba / features: .npy of per-sample features, one row per metadata row")
	fl.StringVar(&d.CSV, "csv", "", "features: CSV with a header (features and/or label, env, group, split columns)")
	fl.StringVar(&d.Columns.Label, "label-col", d.Columns.Label, "features: label column")
	fl.StringVar(&d.Columns.Env, "env-col", d.Columns.Env, "features: environment column (optional in the file)")
	fl.StringVar(&d.Columns.Group, "group-col", d.Columns.Group, "features: group column (optional in the file)")
	fl.StringVar(&d.Columns.Split, "split-col", d.Columns.Split, "features: split column (train/val/test or 0/1/2)")
	fl.StringVar(&d.Columns.Attr, "attr-col", d.Columns.Attr, "features: spurious attribute column (optional in the file)")
	fl.StringVar(&d.Columns.ID, "id-col", d.Columns.ID, "features: sample id column (optional; default the row number)")
}
