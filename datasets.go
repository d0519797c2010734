package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/maple-ood/maple/loaders"
	"github.com/spf13/pflag"
)

// dataFlags select and configure a dataset; `maple data` and `maple run`
// share them.
type dataFlags struct {
	name       string
	dataDir    string
	trainSize  int
	corr       string
	labelNoise float64
	downsample int
	offline    bool
	dir        string // waterbirds / celeba folder
	imageSize  int
	features   string // .npy embeddings or features
	csv        string
	cols       loaders.FeaturesConfig
}

func (d *dataFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&d.dataDir, "data-dir", "", "data directory (default $MAPLE_DATA_DIR, else the user cache dir + /maple)")
	fl.IntVar(&d.trainSize, "train-size", 0, "keep a seeded subset of this many training samples (0 = all)")
	fl.StringVar(&d.corr, "corr", "", "per-env spurious parameters, train0,train1,test: cmnist colour flips (default 0.1,0.2,0.9), mnist-fashion/cifar-mnist correlations (default 0.999,0.7,0.1)")
	fl.Float64Var(&d.labelNoise, "label-noise", -1, "label flip probability (default 0.25 for cmnist, 0.1 for mnist-fashion and cifar-mnist)")
	fl.IntVar(&d.downsample, "downsample", 0, "mnist-fashion / cifar-mnist: keep every k-th pixel (default 2 and 1)")
	fl.BoolVar(&d.offline, "offline", false, "never download a missing file")
	fl.StringVar(&d.dir, "dir", "", "waterbirds / celeba: the dataset folder (default <data-dir>/waterbirds or <data-dir>/celeba)")
	fl.IntVar(&d.imageSize, "image-size", 64, "waterbirds / celeba: resize and centre-crop images to this size")
	fl.StringVar(&d.features, "features", "", "waterbirds / celeba / features: .npy of per-sample features, one row per metadata row")
	fl.StringVar(&d.csv, "csv", "", "features: CSV with a header (features and/or label, env, group, split columns)")
	d.cols = loaders.DefaultFeatures()
	fl.StringVar(&d.cols.Label, "label-col", d.cols.Label, "features: label column")
	fl.StringVar(&d.cols.Env, "env-col", d.cols.Env, "features: environment column (optional in the file)")
	fl.StringVar(&d.cols.Group, "group-col", d.cols.Group, "features: group column (optional in the file)")
	fl.StringVar(&d.cols.Split, "split-col", d.cols.Split, "features: split column (train/val/test or 0/1/2)")
	fl.StringVar(&d.cols.Attr, "attr-col", d.cols.Attr, "features: spurious attribute column (optional in the file)")
	fl.StringVar(&d.cols.ID, "id-col", d.cols.ID, "features: sample id column (optional; default the row number)")
}

func parseTriple(flag, s string) ([3]float64, error) {
	var t [3]float64
	f := strings.Split(s, ",")
	if len(f) != 3 {
		return t, fmt.Errorf("--%s %q: want three comma-separated numbers (train env 0, train env 1, test)", flag, s)
	}
	for i, v := range f {
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || x < 0 || x > 1 {
			return t, fmt.Errorf("--%s %q: %q is not a probability in [0, 1]", flag, s, v)
		}
		t[i] = x
	}
	return t, nil
}

// datasetNames lists what load understands.
var datasetNames = []string{"synthetic", "cmnist", "mnist-fashion", "cifar-mnist", "waterbirds", "celeba", "features"}

// load builds the dataset with the given seed.
func (d *dataFlags) load(seed uint64) (*loaders.Splits, error) {
	dir, err := loaders.DataDir(d.dataDir)
	if err != nil {
		return nil, err
	}
	fe := &loaders.Fetcher{Dir: dir, Progress: os.Stderr, Offline: d.offline}
	switch d.name {
	case "synthetic":
		c := loaders.DefaultSynthetic()
		c.Seed = seed
		if d.trainSize > 0 {
			c.PerEnv = d.trainSize / 2
		}
		if d.corr != "" {
			t, err := parseTriple("corr", d.corr)
			if err != nil {
				return nil, err
			}
			c.TrainP, c.TestP = []float64{t[0], t[1]}, t[2]
		}
		return loaders.Synthetic(c)
	case "cmnist":
		c := loaders.DefaultCMNIST()
		c.Seed, c.TrainSize = seed, d.trainSize
		if d.labelNoise >= 0 {
			c.LabelNoise = d.labelNoise
		}
		if d.corr != "" {
			if c.Flips, err = parseTriple("corr", d.corr); err != nil {
				return nil, err
			}
		}
		return loaders.CMNIST(fe, c)
	case "mnist-fashion", "cifar-mnist":
		ds := 2
		if d.name == "cifar-mnist" {
			ds = 1
		}
		c := loaders.DefaultDomino(ds)
		c.Seed, c.TrainSize = seed, d.trainSize
		if d.downsample > 0 {
			c.Downsample = d.downsample
		}
		if d.labelNoise >= 0 {
			c.LabelNoise = d.labelNoise
		}
		if d.corr != "" {
			if c.Corr, err = parseTriple("corr", d.corr); err != nil {
				return nil, err
			}
		}
		if d.name == "cifar-mnist" {
			return loaders.CIFARMNIST(fe, c)
		}
		return loaders.MNISTFashion(fe, c)
	case "waterbirds", "celeba":
		c := loaders.ImageConfig{Dir: d.dir, Size: d.imageSize, Features: d.features}
		if c.Dir == "" {
			c.Dir = filepath.Join(dir, d.name)
		}
		if d.name == "celeba" {
			return loaders.CelebA(c)
		}
		return loaders.Waterbirds(c)
	case "features":
		if d.csv == "" {
			return nil, fmt.Errorf("dataset features needs --csv FILE (and optionally --features FILE.npy)")
		}
		c := d.cols
		c.CSV, c.NPY = d.csv, d.features
		return loaders.Features(c)
	}
	return nil, fmt.Errorf("unknown dataset %q: want one of %s", d.name, strings.Join(datasetNames, ", "))
}
