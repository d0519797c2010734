package loaders

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
)

// images is a set of 8-bit images with integer labels.
type images struct {
	n, c, h, w int
	pix        []byte // n x c x h x w
	labels     []byte
}

func (im *images) size() int { return im.c * im.h * im.w }

// loadIDXPair reads an MNIST-format image file and its label file and
// checks that they agree.
func loadIDXPair(fe *Fetcher, imgF, labF PublicFile) (*images, error) {
	ip, err := fe.Path(imgF)
	if err != nil {
		return nil, err
	}
	lp, err := fe.Path(labF)
	if err != nil {
		return nil, err
	}
	img, err := ReadIDXFile(ip)
	if err != nil {
		return nil, err
	}
	lab, err := ReadIDXFile(lp)
	if err != nil {
		return nil, err
	}
	if len(img.Dims) != 3 {
		return nil, fmt.Errorf("%s: dimensions %v, want N x H x W images; is it an image file?", ip, img.Dims)
	}
	if len(lab.Dims) != 1 || lab.Dims[0] != img.Dims[0] {
		return nil, fmt.Errorf("%s: dimensions %v, want %d labels to match %s", lp, lab.Dims, img.Dims[0], ip)
	}
	for i, l := range lab.Data {
		if l > 9 {
			return nil, fmt.Errorf("%s: label %d of sample %d out of range 0-9; the file is corrupted, delete it so that it is fetched again", lp, l, i)
		}
	}
	return &images{n: img.Dims[0], c: 1, h: img.Dims[1], w: img.Dims[2], pix: img.Data, labels: lab.Data}, nil
}

// CMNISTConfig configures ColoredMNIST as the IRM paper builds it.
type CMNISTConfig struct {
	Seed       uint64     // seed of the label noise, colours and splits; default 1
	Flips      [3]float64 // colour flip probability of train env 0, train env 1 and test; default (0.1, 0.2, 0.9)
	LabelNoise float64    // label flip probability; default 0.25
	ValFrac    float64    // seeded fraction of the training envs held out; default 0.1
	TrainSize  int        // keep a seeded subset of this many training samples (ColoredMNIST-N); 0 = all 45000
	// Envs says how the 50000 images are split into the two training
	// envs: EnvsShuffle (default; the IRM code: a seeded shuffle, then
	// alternate) or EnvsParity (even and odd MNIST index, what maple did
	// before; the two halves of the MNIST file alternate writer
	// populations, so these envs differ in stroke width as well as in
	// colour).
	Envs string
}

// DefaultCMNIST returns the defaults documented on CMNISTConfig.
func DefaultCMNIST() CMNISTConfig {
	return CMNISTConfig{Seed: 1, Flips: [3]float64{0.1, 0.2, 0.9}, LabelNoise: 0.25, ValFrac: 0.1, Envs: EnvsShuffle}
}

// How ColoredMNIST assigns the 50000 training images to its two
// environments.
const (
	// EnvsShuffle: the IRM code's construction (colored_mnist/main.py
	// shuffles the images before taking [::2] and [1::2]): a seeded
	// permutation, even positions to env 0 and odd to env 1.
	EnvsShuffle = "shuffle"
	// EnvsParity: even MNIST indices to env 0, odd to env 1, unshuffled.
	// The MNIST training file alternates its writer populations with the
	// index (mean ink 0.122 at even indices, 0.140 at odd), so these envs
	// also differ in stroke width, and the IRM paper's IRMv1 recipe then
	// fails to leave colour (see the README).
	EnvsParity = "parity"
)

// EnvSplits are cmnist's env splits (Spec.Envs), the default first.
var EnvSplits = []string{EnvsShuffle, EnvsParity}

func checkEnvs(s string) error {
	if s != EnvsShuffle && s != EnvsParity {
		return fmt.Errorf("--cmnist-envs %q: want %s (the IRM code's construction) or %s (even and odd MNIST index, how runs recorded before the option were built)", s, EnvsShuffle, EnvsParity)
	}
	return nil
}

func checkProbs(name string, ps ...float64) error {
	for _, p := range ps {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("%s: probability %g outside [0, 1]", name, p)
		}
	}
	return nil
}

// CMNIST builds ColoredMNIST from the MNIST training files: the first
// 50000 images split into env 0 and env 1 as c.Envs says (by default a
// seeded shuffle, alternating, as the IRM code does), the last 10000 as
// the test env; 28x28 -> 14x14 by taking every other pixel; label = digit
// < 5, flipped with probability LabelNoise; colour = label flipped with the
// env's probability; two channels, the other colour's zeroed; values in
// [0, 1]; group = 2 label + colour. The oracle variant draws the colour of
// the training envs independently of the label.
func CMNIST(fe *Fetcher, c CMNISTConfig) (*Splits, error) {
	if err := checkProbs("cmnist", append(c.Flips[:], c.LabelNoise, c.ValFrac)...); err != nil {
		return nil, err
	}
	if c.TrainSize < 0 {
		return nil, fmt.Errorf("--train-size %d: want 0 (all) or a positive count", c.TrainSize)
	}
	if err := checkEnvs(c.Envs); err != nil {
		return nil, err
	}
	im, err := loadIDXPair(fe, MNISTTrainImages, MNISTTrainLabels)
	if err != nil {
		return nil, err
	}
	if im.n != 60000 || im.h != 28 || im.w != 28 {
		return nil, fmt.Errorf("MNIST training files hold %d images of %dx%d, want 60000 of 28x28", im.n, im.h, im.w)
	}
	envNames := []string{
		fmt.Sprintf("train0 (colour flip %g)", c.Flips[0]),
		fmt.Sprintf("train1 (colour flip %g)", c.Flips[1]),
		fmt.Sprintf("test (colour flip %g)", c.Flips[2]),
	}
	build := func(name string, idx []int, flip func(env int) float64, env func(i int) int) *Dataset {
		n := len(idx)
		ds := newDataset(name, n, Shape{C: 2, H: 14, W: 14}, 2, envNames, binaryGroups)
		ds.CleanY = make([]int32, n)
		rngs := map[int]*rand.Rand{}
		for j, i := range idx {
			e := env(i)
			rng, ok := rngs[e]
			if !ok {
				rng = rand.New(rand.NewPCG(c.Seed, uint64(0xc0+e)))
				rngs[e] = rng
			}
			clean := int32(0)
			if im.labels[i] < 5 {
				clean = 1
			}
			y := clean
			if rng.Float64() < c.LabelNoise {
				y = 1 - y
			}
			colour := y
			if rng.Float64() < flip(e) {
				colour = 1 - colour
			}
			row := ds.Row(j)
			pix := im.pix[i*784:]
			for h := 0; h < 14; h++ {
				for w := 0; w < 14; w++ {
					row[int(colour)*196+h*14+w] = float32(pix[2*h*28+2*w]) / 255
				}
			}
			ds.Y[j], ds.CleanY[j], ds.Attr[j], ds.Env[j], ds.Group[j], ds.ID[j] = y, clean, colour, int32(e), 2*y+colour, int64(i)
		}
		return ds
	}
	pool := make([]int, 50000)
	for i := range pool {
		pool[i] = i
	}
	test := make([]int, 10000)
	for i := range test {
		test[i] = 50000 + i
	}
	trainIdx, valIdx, err := splitVal(pool, c.ValFrac, c.TrainSize, c.Seed)
	if err != nil {
		return nil, err
	}
	envOf := make([]int8, 50000) // position parity: env 0 or 1
	for i := range envOf {
		envOf[i] = int8(i % 2)
	}
	if c.Envs == EnvsShuffle {
		for pos, i := range rand.New(rand.NewPCG(c.Seed, 0xe5)).Perm(50000) {
			envOf[i] = int8(pos % 2)
		}
	}
	byEnv := func(i int) int {
		if i >= 50000 {
			return 2
		}
		return int(envOf[i])
	}
	mk := func(name string, flips [3]float64) *Splits {
		// Every sample draws from its env's stream in index order, so the
		// labels are the same in the main and the oracle variant.
		f := func(e int) float64 { return flips[e] }
		all := build("train+val", pool, f, byEnv)
		pos := make(map[int]int, len(pool))
		for j, i := range pool {
			pos[i] = j
		}
		sub := func(nm string, idx []int) *Dataset {
			js := make([]int, len(idx))
			for k, i := range idx {
				js[k] = pos[i]
			}
			return all.Subset(nm, js)
		}
		return &Splits{Name: name, Train: sub("train", trainIdx), Val: sub("val", valIdx),
			Test: build("test", test, f, byEnv), LabelNoise: c.LabelNoise}
	}
	s := mk("cmnist", c.Flips)
	s.Oracle = mk("cmnist-oracle", [3]float64{0.5, 0.5, c.Flips[2]})
	s.Oracle.Test = s.Test
	s.Source = filepath.Join(fe.Dir, MNISTTrainImages.Dir)
	s.Oracle.Source = s.Source
	return s, s.Validate()
}

// splitVal holds out a seeded fraction of pool for validation and keeps
// a seeded subset of trainSize of the rest (0 = all). Both come back sorted.
func splitVal(pool []int, frac float64, trainSize int, seed uint64) (train, val []int, err error) {
	perm := rand.New(rand.NewPCG(seed, 0x5a1)).Perm(len(pool))
	nv := int(math.Round(frac * float64(len(pool))))
	if trainSize > len(pool)-nv {
		return nil, nil, fmt.Errorf("--train-size %d: the dataset has %d training samples", trainSize, len(pool)-nv)
	}
	for k, p := range perm {
		if k < nv {
			val = append(val, pool[p])
		} else if trainSize <= 0 || len(train) < trainSize {
			train = append(train, pool[p])
		}
	}
	slices.Sort(train)
	slices.Sort(val)
	return train, val, nil
}

func newDataset(name string, n int, sh Shape, classes int, envs, groups []string) *Dataset {
	d := sh.Size()
	return &Dataset{Name: name, N: n, D: d, Shape: sh, Classes: classes, EnvNames: envs, GroupNames: groups,
		X: make([]float32, n*d), Y: make([]int32, n), Env: make([]int32, n), Group: make([]int32, n),
		Attr: make([]int32, n), ID: make([]int64, n)}
}

// cmnistSource is ColoredMNIST (CMNIST), with its env split (Spec.Envs).
type cmnistSource struct{}

func (cmnistSource) Name() string { return "cmnist" }

func (cmnistSource) Options() []string { return []string{"Envs"} }

func (cmnistSource) OptionHelp(option string) string {
	switch option {
	case "Corr":
		return fmt.Sprintf("colour flips (default %s)", triple(DefaultCMNIST().Flips))
	case "LabelNoise":
		return fmt.Sprintf("default %g", DefaultCMNIST().LabelNoise)
	case "Envs":
		return "how the 50000 training images split into the two envs: " + EnvsShuffle + " (the IRM code's seeded shuffle; the default) or " +
			EnvsParity + " (even/odd MNIST index, as runs before this option were built)"
	}
	return ""
}

func (cmnistSource) Load(d Spec, in LoadInput) (*Splits, error) {
	c := DefaultCMNIST()
	c.Seed, c.TrainSize = in.Seed, d.TrainSize
	if d.LabelNoise >= 0 {
		c.LabelNoise = d.LabelNoise
	}
	if d.Corr != "" {
		c.Flips = in.Corr
	}
	c.Envs = cmnistSource{}.Effective(d).Envs
	return CMNIST(in.Fetcher, c)
}

func (cmnistSource) Effective(d Spec) Spec {
	if d.LabelNoise < 0 {
		d.LabelNoise = DefaultCMNIST().LabelNoise
	}
	if d.Envs == "" {
		d.Envs = EnvsParity // a spec written before the option existed
	}
	return d
}

// forNewRun: without an env split a new run gets EnvsShuffle (in a
// recorded spec, no split means parity: Spec.EnvSplit).
func (cmnistSource) ForNewRun(d Spec) Spec {
	if d.Envs == "" {
		d.Envs = EnvsShuffle
	}
	return d
}
