package loaders

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// EmbeddingsConfig configures the simulated embeddings (waterbirds-sim,
// celeba-sim): rows shaped like a pretrained network's features, with
// the published group sizes of a dataset and a structure that is known.
// Row i of group (y, a) is
//
//	x = (2y-1) m_c u_c + (2a-1) m_s u_s + Noise z,  z ~ N(0, I_Dim),
//
// with u_c and u_s orthogonal unit directions drawn from Seed (dense:
// every feature carries a little of each). m_c = Noise Phi^-1(CoreAcc),
// so the core direction alone, sign(<x, u_c>), predicts y with accuracy
// CoreAcc in every group; m_s = Noise Phi^-1(SpurAcc), so the spurious
// direction alone predicts a with accuracy SpurAcc. The attribute is the
// env, as on the published datasets.
type EmbeddingsConfig struct {
	Name string // the dataset's name
	// Seed is the data's seed; default 1. The datasets keep it whatever
	// the run's --seed: the published datasets they copy are fixed files,
	// so a run's seed varies its training, never its data.
	Seed uint64
	Dim  int // features per row; default 2048 (a ResNet-50's)
	// Groups holds the rows per group of train, val and test, the groups
	// in the order (y, a) = (0,0), (0,1), (1,0), (1,1), group = 2y + a.
	Groups    [3][4]int
	CoreAcc   float64 // accuracy of y from the core direction alone, in every group; default 0.84
	SpurAcc   float64 // accuracy of a from the spurious direction alone; default 0.99
	Noise     float64 // standard deviation of the noise in every feature; default 1
	TrainSize int     // keep a seeded subset of this many training rows; 0 = all
	// EnvNames names the attribute's values, which are the envs;
	// GroupNames the groups, as the published dataset's loader does.
	EnvNames, GroupNames []string
}

// The published datasets' envs and groups (group = 2y + a), shared by
// their loaders and the simulated embeddings that copy them.
var (
	waterbirdsEnvs   = []string{"land", "water"}
	waterbirdsGroups = []string{"landbird,land", "landbird,water", "waterbird,land", "waterbird,water"}
	celebaEnvs       = []string{"female", "male"}
	celebaGroups     = []string{"not blond,female", "not blond,male", "blond,female", "blond,male"}
)

// defaultEmbeddings holds the constants both layouts share.
func defaultEmbeddings(name string, groups [3][4]int, envs, names []string) EmbeddingsConfig {
	return EmbeddingsConfig{Name: name, Seed: 1, Dim: 2048, Groups: groups, CoreAcc: 0.84, SpurAcc: 0.99, Noise: 1,
		EnvNames: envs, GroupNames: names}
}

// DefaultWaterbirdsSim returns waterbirds-sim's EmbeddingsConfig: the
// group sizes of Waterbirds (Sagawa et al., 2020), y = waterbird, a =
// water background.
func DefaultWaterbirdsSim() EmbeddingsConfig {
	return defaultEmbeddings("waterbirds-sim", [3][4]int{
		{3498, 184, 56, 1057},
		{467, 466, 133, 133},
		{2255, 2255, 642, 642},
	}, waterbirdsEnvs, waterbirdsGroups)
}

// DefaultCelebASim returns celeba-sim's EmbeddingsConfig: the group sizes
// of CelebA's Blond_Hair x Male (Sagawa et al., 2020), y = blond, a =
// male.
func DefaultCelebASim() EmbeddingsConfig {
	return defaultEmbeddings("celeba-sim", [3][4]int{
		{71629, 66874, 22880, 1387},
		{8535, 8276, 2874, 182},
		{9767, 7535, 2480, 180},
	}, celebaEnvs, celebaGroups)
}

// maxEmbeddingsDim bounds --dim: wider than any network's features.
const maxEmbeddingsDim = 1 << 16

func (c EmbeddingsConfig) check() error {
	switch {
	case c.Dim < 2 || c.Dim > maxEmbeddingsDim:
		return fmt.Errorf("--dim %d: want 2 to %d features per row (0 for the default, 2048)", c.Dim, maxEmbeddingsDim)
	case c.TrainSize < 0 || c.TrainSize > c.rows(0):
		return fmt.Errorf("--train-size %d: %s has %d training rows; want at most that, or 0 for all", c.TrainSize, c.Name, c.rows(0))
	case !(c.CoreAcc > 0.5 && c.CoreAcc < 1) || !(c.SpurAcc > 0.5 && c.SpurAcc < 1):
		return fmt.Errorf("%s: accuracies %g and %g must lie in (0.5, 1)", c.Name, c.CoreAcc, c.SpurAcc)
	case !(c.Noise > 0):
		return fmt.Errorf("%s: noise %g must be positive", c.Name, c.Noise)
	}
	return nil
}

// rows is the number of rows of split k (0 train, 1 val, 2 test) before
// any subset.
func (c EmbeddingsConfig) rows(k int) int {
	n := 0
	for _, g := range c.Groups[k] {
		n += g
	}
	return n
}

// Bytes is the memory the three splits take: their float32 features and
// per-row annotations.
func (c EmbeddingsConfig) Bytes() int64 {
	n := int64(c.rows(1) + c.rows(2))
	if c.TrainSize > 0 {
		n += int64(c.TrainSize)
	} else {
		n += int64(c.rows(0))
	}
	return n * (4*int64(c.Dim) + 5*4 + 8)
}

// Strengths returns m_c and m_s, the lengths of the core and spurious
// means (see EmbeddingsConfig).
func (c EmbeddingsConfig) Strengths() (core, spur float64) {
	return c.Noise * distuv.UnitNormal.Quantile(c.CoreAcc), c.Noise * distuv.UnitNormal.Quantile(c.SpurAcc)
}

// directions returns u_c and u_s: two Gaussian vectors from the seed,
// the second made orthogonal to the first, both of unit length.
func (c EmbeddingsConfig) directions() (uc, us []float64) {
	rng := rand.New(rand.NewPCG(c.Seed, 0xd1))
	uc, us = make([]float64, c.Dim), make([]float64, c.Dim)
	for j := range uc {
		uc[j] = rng.NormFloat64()
	}
	for j := range us {
		us[j] = rng.NormFloat64()
	}
	unit := func(v []float64) {
		var s float64
		for _, x := range v {
			s += x * x
		}
		s = math.Sqrt(s)
		for j := range v {
			v[j] /= s
		}
	}
	unit(uc)
	var dot float64
	for j := range us {
		dot += us[j] * uc[j]
	}
	for j := range us {
		us[j] -= dot * uc[j]
	}
	unit(us)
	return uc, us
}

// SimEmbeddings generates c's splits straight into their matrices: the
// memory they take is the features and a few numbers per row (Bytes).
// Every row draws its noise from a stream of its own, keyed by its split
// and place, so that the result is the same bit for bit whatever the
// number of goroutines, and a training subset's rows are those of the
// whole split.
func SimEmbeddings(c EmbeddingsConfig) (*Splits, error) {
	return simEmbeddings(c, runtime.GOMAXPROCS(0))
}

func simEmbeddings(c EmbeddingsConfig, workers int) (*Splits, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	uc, us := c.directions()
	mc, ms := c.Strengths()
	// The mean of each group: (2y-1) m_c u_c + (2a-1) m_s u_s.
	var means [4][]float64
	for g := range means {
		sy, sa := float64(2*(g/2)-1), float64(2*(g%2)-1)
		means[g] = make([]float64, c.Dim)
		for j := range means[g] {
			means[g][j] = float64(sy*mc*uc[j]) + float64(sa*ms*us[j])
		}
	}
	var out [3]*Dataset
	idBase := int64(0)
	for k, name := range []string{"train", "val", "test"} {
		// The rows' groups in a seeded order: the groups' blocks shuffled.
		groups := make([]int8, 0, c.rows(k))
		for g, n := range c.Groups[k] {
			for range n {
				groups = append(groups, int8(g))
			}
		}
		rand.New(rand.NewPCG(c.Seed, 0x6700+uint64(k))).Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
		rows := make([]int, len(groups)) // the places kept
		for i := range rows {
			rows[i] = i
		}
		if k == 0 && c.TrainSize > 0 {
			rows = rand.New(rand.NewPCG(c.Seed, 0x5a1)).Perm(len(groups))[:c.TrainSize]
			slices.Sort(rows)
		}
		ds := newDataset(name, len(rows), Shape{C: c.Dim, H: 1, W: 1}, 2, c.EnvNames, c.GroupNames)
		ds.CleanY = make([]int32, len(rows))
		for i, r := range rows {
			g := int32(groups[r])
			y, a := g/2, g%2
			ds.Y[i], ds.CleanY[i], ds.Attr[i], ds.Env[i], ds.Group[i], ds.ID[i] = y, y, a, a, g, idBase+int64(r)
		}
		c.fill(ds, uint64(k), rows, &means, workers)
		out[k] = ds
		idBase += int64(len(groups))
	}
	s := &Splits{Name: c.Name, Train: out[0], Val: out[1], Test: out[2], Source: "generated", About: c.about()}
	return s, s.Validate()
}

// fill writes the features of ds's rows (places rows of split k) on up
// to workers goroutines, each row from its own stream.
func (c EmbeddingsConfig) fill(ds *Dataset, k uint64, rows []int, means *[4][]float64, workers int) {
	const chunk = 256
	workers = max(1, min(workers, (len(rows)+chunk-1)/chunk))
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	hi := splitmix64(c.Seed ^ 0x5e3d)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pcg := rand.NewPCG(0, 0)
			rng := rand.New(pcg)
			for {
				mu.Lock()
				lo := next
				next += chunk
				mu.Unlock()
				if lo >= len(rows) {
					return
				}
				for i := lo; i < min(lo+chunk, len(rows)); i++ {
					pcg.Seed(hi, splitmix64(k<<40|uint64(rows[i])))
					mean, row := means[ds.Group[i]], ds.Row(i)
					for j := range row {
						// The product rounded on its own: no fused
						// multiply-add where the compiler would make one.
						row[j] = float32(float64(c.Noise*rng.NormFloat64()) + mean[j])
					}
				}
			}
		}()
	}
	wg.Wait()
}

// splitmix64 scrambles a stream's key, so that neighbouring rows' streams
// start far apart.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// about says what the construction is, for maple data.
func (c EmbeddingsConfig) about() []string {
	mc, ms := c.Strengths()
	return []string{
		fmt.Sprintf("simulated embeddings: x = (2y-1) %.3g u_c + (2a-1) %.3g u_s + noise of sd %g in every feature; u_c and u_s orthogonal unit directions; data seed %d, whatever the run's seed",
			mc, ms, c.Noise, c.Seed),
		fmt.Sprintf("the core direction alone predicts y with accuracy %g in every group; the spurious direction alone predicts a (the env) with accuracy %g", c.CoreAcc, c.SpurAcc),
	}
}

// embeddingsSource is a layout of the simulated embeddings
// (SimEmbeddings): waterbirds-sim or celeba-sim.
type embeddingsSource struct{ def func() EmbeddingsConfig }

func (s embeddingsSource) Name() string { return s.def().Name }

func (embeddingsSource) Options() []string { return []string{"Dim"} }

// defaultModel: a linear head, as on a person's embeddings.
func (embeddingsSource) DefaultModel() string { return "linear" }

func (embeddingsSource) Embeddings() bool { return true }

func (s embeddingsSource) OptionHelp(option string) string {
	if option == "Dim" {
		return fmt.Sprintf("features per row of the simulated embeddings (default %d)", s.def().Dim)
	}
	return ""
}

// config is s's EmbeddingsConfig with d's options.
func (s embeddingsSource) config(d Spec) EmbeddingsConfig {
	c := s.def()
	if d.Dim != 0 {
		c.Dim = d.Dim
	}
	c.TrainSize = d.TrainSize
	return c
}

func (s embeddingsSource) Check(d Spec) error { return s.config(d).check() }

func (s embeddingsSource) Load(d Spec, in LoadInput) (*Splits, error) {
	c := s.config(d)
	if err := c.check(); err != nil {
		return nil, err
	}
	// Refused before a byte is allocated, as a person's file is.
	if m := MachineMemory(); m.Known() && c.Bytes() > m.Free() {
		return nil, fmt.Errorf("--dataset %s at --dim %d takes about %s in memory, and the machine has %s: choose a smaller --dim or --train-size, or give maple a machine or a Slurm job with more memory",
			c.Name, c.Dim, SizeText(c.Bytes()), m)
	}
	return SimEmbeddings(c)
}

func (s embeddingsSource) Effective(d Spec) Spec {
	if d.Dim == 0 {
		d.Dim = s.def().Dim
	}
	if d.LabelNoise < 0 {
		d.LabelNoise = 0
	}
	return d
}

// forNewRun records the dimension a new run reads, so that --dim 2048
// and no flag are one configuration.
func (s embeddingsSource) ForNewRun(d Spec) Spec {
	if d.Dim == 0 {
		d.Dim = s.def().Dim
	}
	return d
}
