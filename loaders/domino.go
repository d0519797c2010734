package loaders

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
)

// DominoConfig configures the CIFARMNIST construction of the MAPLE paper:
// a core image (Fashion-MNIST or CIFAR-10) above a spurious MNIST digit.
// The label is the core image's class half (classes 0-4 -> 0, 5-9 -> 1),
// flipped with probability LabelNoise; the spurious digit's class half
// (digits 0-4 -> 0, 5-9 -> 1) equals the label with the env's correlation.
type DominoConfig struct {
	Seed       uint64     // default 1
	Corr       [3]float64 // label/digit agreement of train env 0, train env 1 and test; default (0.999, 0.7, 0.1)
	LabelNoise float64    // default 0.1
	ValFrac    float64    // seeded fraction of the training envs held out; default 0.1
	TrainSize  int        // seeded subset of the training samples; 0 = all
	Downsample int        // keep every k-th pixel in each direction; default 2 (mnist-fashion) or 1 (cifar-mnist)
}

// DefaultDomino returns the defaults documented on DominoConfig with the
// given downsampling.
func DefaultDomino(downsample int) DominoConfig {
	return DominoConfig{Seed: 1, Corr: [3]float64{0.999, 0.7, 0.1}, LabelNoise: 0.1, ValFrac: 0.1, Downsample: downsample}
}

// MNISTFashion builds the construction with Fashion-MNIST as the core
// (1 x 56 x 28 before downsampling: the garment above the digit). Train
// envs are the Fashion-MNIST training images by parity, the test env its
// test images; digits come from the MNIST training (resp. test) images.
func MNISTFashion(fe *Fetcher, c DominoConfig) (*Splits, error) {
	ftr, err := loadIDXPair(fe, FashionTrainImages, FashionTrainLabels)
	if err != nil {
		return nil, err
	}
	fte, err := loadIDXPair(fe, FashionTestImages, FashionTestLabels)
	if err != nil {
		return nil, err
	}
	mtr, mte, err := loadMNISTBoth(fe)
	if err != nil {
		return nil, err
	}
	s, err := domino("mnist-fashion", ftr, fte, mtr, mte, c)
	if err != nil {
		return nil, err
	}
	s.Source = filepath.Join(fe.Dir, FashionTrainImages.Dir) + " + " + filepath.Join(fe.Dir, MNISTTrainImages.Dir)
	s.Oracle.Source = s.Source
	return s, nil
}

func loadMNISTBoth(fe *Fetcher) (*images, *images, error) {
	mtr, err := loadIDXPair(fe, MNISTTrainImages, MNISTTrainLabels)
	if err != nil {
		return nil, nil, err
	}
	mte, err := loadIDXPair(fe, MNISTTestImages, MNISTTestLabels)
	if err != nil {
		return nil, nil, err
	}
	return mtr, mte, nil
}

// domino stacks each core image above a digit drawn by the rule of
// DominoConfig. The grey digit is repeated over the core's channels and
// centred in a canvas of the core's width.
func domino(name string, coreTr, coreTe, digTr, digTe *images, c DominoConfig) (*Splits, error) {
	if err := checkProbs(name, append(c.Corr[:], c.LabelNoise, c.ValFrac)...); err != nil {
		return nil, err
	}
	if c.Downsample < 1 || coreTr.h%c.Downsample != 0 || coreTr.w%c.Downsample != 0 {
		return nil, fmt.Errorf("%s: downsampling %d must divide the image size %dx%d", name, c.Downsample, coreTr.h, coreTr.w)
	}
	if c.TrainSize < 0 {
		return nil, fmt.Errorf("%s: negative train size %d", name, c.TrainSize)
	}
	if coreTr.w < digTr.w {
		return nil, fmt.Errorf("%s: core images (%d wide) narrower than the digits (%d)", name, coreTr.w, digTr.w)
	}
	k := c.Downsample
	H, W, C := (coreTr.h+coreTr.w)/k, coreTr.w/k, coreTr.c
	envNames := []string{
		fmt.Sprintf("train0 (corr %g)", c.Corr[0]), fmt.Sprintf("train1 (corr %g)", c.Corr[1]), fmt.Sprintf("test (corr %g)", c.Corr[2]),
	}
	half := func(l byte) int32 {
		if l >= 5 {
			return 1
		}
		return 0
	}
	byHalf := func(im *images) [2][]int {
		var p [2][]int
		for i, l := range im.labels {
			p[half(l)] = append(p[half(l)], i)
		}
		return p
	}
	poolTr, poolTe := byHalf(digTr), byHalf(digTe)
	if len(poolTr[0]) == 0 || len(poolTr[1]) == 0 || len(poolTe[0]) == 0 || len(poolTe[1]) == 0 {
		return nil, fmt.Errorf("%s: the digit files lack digits of one half (0-4 or 5-9)", name)
	}
	build := func(dsName string, core *images, idx []int, test bool, corr [3]float64, idBase int64) *Dataset {
		ds := newDataset(dsName, len(idx), Shape{C: C, H: H, W: W}, 2, envNames, binaryGroups)
		ds.CleanY = make([]int32, len(idx))
		dig, pool := digTr, poolTr
		if test {
			dig, pool = digTe, poolTe
		}
		var rngs [3]*rand.Rand
		for j, i := range idx {
			e := i % 2
			if test {
				e = 2
			}
			if rngs[e] == nil {
				rngs[e] = rand.New(rand.NewPCG(c.Seed, uint64(0xd0+e)))
			}
			rng := rngs[e]
			clean := half(core.labels[i])
			y := clean
			if rng.Float64() < c.LabelNoise {
				y = 1 - y
			}
			a := y
			if rng.Float64() >= corr[e] {
				a = 1 - a
			}
			d := pool[a][rng.IntN(len(pool[a]))]
			row := ds.Row(j)
			cs := core.size()
			off := (core.w - dig.w) / 2
			for ch := 0; ch < C; ch++ {
				for h := 0; h < H; h++ {
					for w := 0; w < W; w++ {
						sh, sw := h*k, w*k
						var v byte
						if sh < core.h {
							v = core.pix[i*cs+ch*core.h*core.w+sh*core.w+sw]
						} else if dh, dw := sh-core.h, sw-off; dh < dig.h && dw >= 0 && dw < dig.w {
							v = dig.pix[d*dig.size()+dh*dig.w+dw]
						}
						row[ch*H*W+h*W+w] = float32(v) / 255
					}
				}
			}
			ds.Y[j], ds.CleanY[j], ds.Attr[j], ds.Env[j], ds.Group[j], ds.ID[j] = y, clean, a, int32(e), 2*y+a, idBase+int64(i)
		}
		return ds
	}
	pool := make([]int, coreTr.n)
	for i := range pool {
		pool[i] = i
	}
	testIdx := make([]int, coreTe.n)
	for i := range testIdx {
		testIdx[i] = i
	}
	trainIdx, valIdx, err := splitVal(pool, c.ValFrac, c.TrainSize, c.Seed)
	if err != nil {
		return nil, err
	}
	mk := func(nm string, corr [3]float64) *Splits {
		// One pass in index order, so that every sample's draws are the
		// same whatever the split, and the same in the oracle variant.
		all := build("train+val", coreTr, pool, false, corr, 0)
		return &Splits{Name: nm, Train: all.Subset("train", trainIdx), Val: all.Subset("val", valIdx), LabelNoise: c.LabelNoise}
	}
	s := mk(name, c.Corr)
	s.Test = build("test", coreTe, testIdx, true, c.Corr, int64(coreTr.n))
	s.Oracle = mk(name+"-oracle", [3]float64{0.5, 0.5, c.Corr[2]})
	s.Oracle.Test = s.Test
	return s, s.Validate()
}

// dominoSource is a domino dataset: mnist-fashion (MNISTFashion) or
// cifar-mnist (CIFARMNIST).
type dominoSource struct{ name string }

func (s dominoSource) Name() string { return s.name }

// defaults is the dataset's DominoConfig at its defaults.
func (s dominoSource) defaults() DominoConfig {
	ds := 2
	if s.name == "cifar-mnist" {
		ds = 1
	}
	return DefaultDomino(ds)
}

func (s dominoSource) OptionHelp(option string) string {
	def := s.defaults()
	switch option {
	case "Corr":
		return fmt.Sprintf("correlations (default %s)", triple(def.Corr))
	case "LabelNoise":
		return fmt.Sprintf("default %g", def.LabelNoise)
	case "Downsample":
		return fmt.Sprintf("keep every k-th pixel (default %d)", def.Downsample)
	}
	return ""
}

func (s dominoSource) Load(d Spec, in LoadInput) (*Splits, error) {
	c := s.defaults()
	c.Seed, c.TrainSize = in.Seed, d.TrainSize
	if d.Downsample > 0 {
		c.Downsample = d.Downsample
	}
	if d.LabelNoise >= 0 {
		c.LabelNoise = d.LabelNoise
	}
	if d.Corr != "" {
		c.Corr = in.Corr
	}
	if s.name == "cifar-mnist" {
		return CIFARMNIST(in.Fetcher, c)
	}
	return MNISTFashion(in.Fetcher, c)
}

func (s dominoSource) Effective(d Spec) Spec {
	def := s.defaults()
	if d.LabelNoise < 0 {
		d.LabelNoise = def.LabelNoise
	}
	if d.Downsample <= 0 {
		d.Downsample = def.Downsample
	}
	return d
}
