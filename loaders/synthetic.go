package loaders

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// SyntheticConfig configures the MAPLE paper's linear case: y in {0,1}
// with P = 1/2; spurious attribute a = y with probability p_e, else 1-y;
// z_c = (2y-1) mu_c + N(0, I), z_s = (2a-1) mu_s + N(0, I); x = S [z_c; z_s]
// with S a seeded random orthogonal matrix. mu_c and mu_s point along the
// all-ones direction with the lengths that give the stated Bayes
// accuracies (|mu| = Phi^-1(accuracy)).
type SyntheticConfig struct {
	Seed     uint64    // generator seed; default 1
	CoreDims int       // d_c, length of z_c; default 5
	SpurDims int       // d_s, length of z_s; default 5
	CoreAcc  float64   // Bayes accuracy of y from z_c alone; default 0.75
	SpurAcc  float64   // Bayes accuracy of a from z_s alone; default 0.95
	TrainP   []float64 // p_e of the training environments; default [0.9, 0.8]
	TestP    float64   // p of the test environment; default 0.1
	PerEnv   int       // samples per training environment; default 5000
	TestN    int       // test samples; default 5000
	ValFrac  float64   // seeded fraction of training held out for validation; default 0.1
}

// DefaultSynthetic returns the defaults documented on SyntheticConfig.
func DefaultSynthetic() SyntheticConfig {
	return SyntheticConfig{Seed: 1, CoreDims: 5, SpurDims: 5, CoreAcc: 0.75, SpurAcc: 0.95,
		TrainP: []float64{0.9, 0.8}, TestP: 0.1, PerEnv: 5000, TestN: 5000, ValFrac: 0.1}
}

func (c SyntheticConfig) check() error {
	switch {
	case c.CoreDims < 1 || c.SpurDims < 1:
		return fmt.Errorf("synthetic: dimensions %d and %d must be at least 1", c.CoreDims, c.SpurDims)
	case c.CoreAcc <= 0.5 || c.CoreAcc >= 1 || c.SpurAcc <= 0.5 || c.SpurAcc >= 1:
		return fmt.Errorf("synthetic: Bayes accuracies %g and %g must lie in (0.5, 1)", c.CoreAcc, c.SpurAcc)
	case len(c.TrainP) == 0:
		return fmt.Errorf("synthetic: no training environments")
	case c.PerEnv < 10 || c.TestN < 1:
		return fmt.Errorf("synthetic: need at least 10 samples per environment and 1 test sample")
	case c.ValFrac <= 0 || c.ValFrac >= 1:
		return fmt.Errorf("synthetic: validation fraction %g must lie in (0, 1)", c.ValFrac)
	}
	for _, p := range append([]float64{c.TestP}, c.TrainP...) {
		if p < 0 || p > 1 {
			return fmt.Errorf("synthetic: agreement probability %g outside [0, 1]", p)
		}
	}
	return nil
}

// binaryGroups names the four (label, attribute) groups; group = 2y + a.
var binaryGroups = []string{"y=0,a=0", "y=0,a=1", "y=1,a=0", "y=1,a=1"}

// Synthetic generates the linear-case dataset and its oracle variant
// (every training and validation p_e = 0.5: the spurious features carry
// no label information; same test set).
func Synthetic(c SyntheticConfig) (*Splits, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	d := c.CoreDims + c.SpurDims
	rng := rand.New(rand.NewPCG(c.Seed, 0x5e17))
	basis := randomOrthogonal(d, rng)
	muC := distuv.UnitNormal.Quantile(c.CoreAcc) / math.Sqrt(float64(c.CoreDims))
	muS := distuv.UnitNormal.Quantile(c.SpurAcc) / math.Sqrt(float64(c.SpurDims))
	envNames := make([]string, 0, len(c.TrainP)+1)
	for e, p := range c.TrainP {
		envNames = append(envNames, fmt.Sprintf("train%d (p=%g)", e, p))
	}
	envNames = append(envNames, fmt.Sprintf("test (p=%g)", c.TestP))

	gen := func(name string, sizes []int, ps []float64, envs []int32, idBase int64, rng *rand.Rand) *Dataset {
		n := 0
		for _, s := range sizes {
			n += s
		}
		ds := &Dataset{Name: name, N: n, D: d, Shape: Shape{C: d, H: 1, W: 1}, Classes: 2,
			EnvNames: envNames, GroupNames: binaryGroups,
			X: make([]float32, n*d), Y: make([]int32, n), Env: make([]int32, n),
			Group: make([]int32, n), Attr: make([]int32, n), ID: make([]int64, n)}
		z := make([]float64, d)
		i := 0
		for k, size := range sizes {
			for j := 0; j < size; j++ {
				y := int32(rng.IntN(2))
				a := y
				if rng.Float64() >= ps[k] {
					a = 1 - y
				}
				for q := range z {
					mu, lab := muS, a
					if q < c.CoreDims {
						mu, lab = muC, y
					}
					z[q] = float64(2*lab-1)*mu + rng.NormFloat64()
				}
				row := ds.Row(i)
				for r := range row {
					var s float64
					for q, zq := range z {
						s += basis[r*d+q] * zq
					}
					row[r] = float32(s)
				}
				ds.Y[i], ds.Attr[i], ds.Env[i], ds.Group[i], ds.ID[i] = y, a, envs[k], 2*y+a, idBase+int64(i)
				i++
			}
		}
		return ds
	}

	trainEnvs := make([]int32, len(c.TrainP))
	sizes := make([]int, len(c.TrainP))
	half := make([]float64, len(c.TrainP))
	for e := range trainEnvs {
		trainEnvs[e], sizes[e], half[e] = int32(e), c.PerEnv, 0.5
	}
	testEnv := []int32{int32(len(c.TrainP))}
	// Separate streams so that the oracle variant does not shift the others.
	all := gen("train+val", sizes, c.TrainP, trainEnvs, 0, rand.New(rand.NewPCG(c.Seed, 1)))
	test := gen("test", []int{c.TestN}, []float64{c.TestP}, testEnv, int64(all.N), rand.New(rand.NewPCG(c.Seed, 2)))
	oracleAll := gen("train+val", sizes, half, trainEnvs, 0, rand.New(rand.NewPCG(c.Seed, 3)))

	split := func(all *Dataset) (*Dataset, *Dataset) {
		perm := rand.New(rand.NewPCG(c.Seed, 4)).Perm(all.N)
		nv := int(math.Round(c.ValFrac * float64(all.N)))
		val, train := perm[:nv], perm[nv:]
		slices.Sort(val)
		slices.Sort(train)
		return all.Subset("train", train), all.Subset("val", val)
	}
	train, val := split(all)
	otrain, oval := split(oracleAll)
	s := &Splits{Name: "synthetic", Train: train, Val: val, Test: test, Source: "generated",
		Basis: basis, CoreDims: c.CoreDims}
	s.Oracle = &Splits{Name: "synthetic-oracle", Train: otrain, Val: oval, Test: test, Source: "generated",
		Basis: basis, CoreDims: c.CoreDims}
	return s, s.Validate()
}

// randomOrthogonal returns a Haar-distributed d x d orthogonal matrix
// (row-major): Q of the QR decomposition of a Gaussian matrix, with the
// signs of R's diagonal moved into Q.
func randomOrthogonal(d int, rng *rand.Rand) []float64 {
	g := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q, r mat.Dense
	qr.QTo(&q)
	qr.RTo(&r)
	out := make([]float64, d*d)
	for j := 0; j < d; j++ {
		sign := 1.0
		if r.At(j, j) < 0 {
			sign = -1
		}
		for i := 0; i < d; i++ {
			out[i*d+j] = sign * q.At(i, j)
		}
	}
	return out
}

// syntheticSource is the synthetic linear case (Synthetic).
type syntheticSource struct{}

func (syntheticSource) Name() string { return "synthetic" }

// defaultModel: the linear case's model is linear.
func (syntheticSource) DefaultModel() string { return "linear" }

func (syntheticSource) OptionHelp(option string) string {
	if option == "Corr" {
		c := DefaultSynthetic()
		return fmt.Sprintf("agreements of the spurious features with the label (default %s)", triple([3]float64{c.TrainP[0], c.TrainP[1], c.TestP}))
	}
	return ""
}

func (syntheticSource) Load(d Spec, in LoadInput) (*Splits, error) {
	c := DefaultSynthetic()
	c.Seed = in.Seed
	if d.TrainSize > 0 {
		// Training is (1 - ValFrac) of both envs together.
		c.PerEnv = int(float64(d.TrainSize)/(1-c.ValFrac)/2 + 0.5)
	}
	if d.Corr != "" {
		c.TrainP, c.TestP = []float64{in.Corr[0], in.Corr[1]}, in.Corr[2]
	}
	return Synthetic(c)
}

// check refuses a training size whose data would not fit in memory.
func (syntheticSource) Check(d Spec) error {
	if d.TrainSize > 0 {
		c := DefaultSynthetic()
		// Training, validation and test features, float32, plus the
		// engine's per-sample vectors (about 30 float64 each).
		n := float64(d.TrainSize) / (1 - c.ValFrac)
		need := n*float64(c.CoreDims+c.SpurDims)*4*3 + n*30*8
		if mem := MemTotal(); mem > 0 && need > 0.8*float64(mem) {
			return fmt.Errorf("--train-size %d: the synthetic data alone would need about %.1f GiB, this machine has %.1f GiB; choose a smaller size",
				d.TrainSize, need/(1<<30), float64(mem)/(1<<30))
		}
	}
	return nil
}
