package loaders

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// simSpec is the Spec of a simulated layout at a dimension.
func simSpec(name string, dim int) Spec {
	d := DefaultSpec(name)
	d.Dim = dim
	return d
}

// TestSimEmbeddingsGroups: each split has the published group sizes of
// its layout, groups in the order (y, a) with group = 2y + a, env = the
// attribute, ids unique across the splits; a training subset keeps the
// other splits whole and its rows are the whole split's rows.
func TestSimEmbeddingsGroups(t *testing.T) {
	for _, tc := range []struct {
		name      string
		trainSize int
		want      [3][4]int
		envs      []string
		groups    []string
	}{
		{"waterbirds-sim", 0, [3][4]int{{3498, 184, 56, 1057}, {467, 466, 133, 133}, {2255, 2255, 642, 642}},
			[]string{"land", "water"}, []string{"landbird,land", "landbird,water", "waterbird,land", "waterbird,water"}},
		{"celeba-sim", 0, [3][4]int{{71629, 66874, 22880, 1387}, {8535, 8276, 2874, 182}, {9767, 7535, 2480, 180}},
			[]string{"female", "male"}, []string{"not blond,female", "not blond,male", "blond,female", "blond,male"}},
		{"waterbirds-sim", 1000, [3][4]int{{}, {467, 466, 133, 133}, {2255, 2255, 642, 642}},
			[]string{"land", "water"}, []string{"landbird,land", "landbird,water", "waterbird,land", "waterbird,water"}},
	} {
		t.Run(tc.name+"/"+map[bool]string{true: "subset", false: "whole"}[tc.trainSize > 0], func(t *testing.T) {
			d := simSpec(tc.name, 4)
			d.TrainSize = tc.trainSize
			s, err := d.Load(1, nil)
			if err != nil {
				t.Fatal(err)
			}
			ids := map[int64]bool{}
			for k, ds := range []*Dataset{s.Train, s.Val, s.Test} {
				var got [4]int
				for i := range ds.N {
					got[ds.Group[i]]++
					if ds.Group[i] != 2*ds.Y[i]+ds.Attr[i] || ds.Env[i] != ds.Attr[i] || ds.CleanY[i] != ds.Y[i] {
						t.Fatalf("%s row %d: y %d, a %d, env %d, group %d", ds.Name, i, ds.Y[i], ds.Attr[i], ds.Env[i], ds.Group[i])
					}
					if ids[ds.ID[i]] {
						t.Fatalf("%s row %d: id %d taken", ds.Name, i, ds.ID[i])
					}
					ids[ds.ID[i]] = true
				}
				if k == 0 && tc.trainSize > 0 {
					if ds.N != tc.trainSize {
						t.Errorf("train: %d rows, want %d", ds.N, tc.trainSize)
					}
				} else if got != tc.want[k] {
					t.Errorf("%s: groups %v, want %v", ds.Name, got, tc.want[k])
				}
				if !slices.Equal(ds.EnvNames, tc.envs) || !slices.Equal(ds.GroupNames, tc.groups) {
					t.Errorf("%s: envs %q, groups %q", ds.Name, ds.EnvNames, ds.GroupNames)
				}
			}
			if tc.trainSize == 0 {
				return
			}
			whole, err := simSpec(tc.name, 4).Load(1, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range s.Train.N {
				w := int(s.Train.ID[i])
				if !slices.Equal(s.Train.Row(i), whole.Train.Row(w)) || s.Train.Group[i] != whole.Train.Group[w] {
					t.Fatalf("subset row %d (id %d) differs from the whole split's", i, w)
				}
			}
		})
	}
}

// TestSimEmbeddingsRepeatable: the data are the same bit for bit for a
// seed, whatever the run's seed and the number of goroutines; another
// data seed gives other data.
func TestSimEmbeddingsRepeatable(t *testing.T) {
	c := DefaultWaterbirdsSim()
	c.Dim = 64
	base, err := simEmbeddings(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	other := c
	other.Seed = 2
	for _, tc := range []struct {
		name string
		make func() (*Splits, error)
		same bool
	}{
		{"again", func() (*Splits, error) { return simEmbeddings(c, 1) }, true},
		{"on 3 goroutines", func() (*Splits, error) { return simEmbeddings(c, 3) }, true},
		{"a run's seed of 7", func() (*Splits, error) { return simSpec("waterbirds-sim", 64).Load(7, nil) }, true},
		{"data seed 2", func() (*Splits, error) { return simEmbeddings(other, 1) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.make()
			if err != nil {
				t.Fatal(err)
			}
			same := true
			for k, ds := range []*Dataset{s.Train, s.Val, s.Test} {
				b := []*Dataset{base.Train, base.Val, base.Test}[k]
				same = same && slices.Equal(ds.Y, b.Y) && slices.Equal(ds.Group, b.Group) && slices.Equal(ds.ID, b.ID) &&
					slices.EqualFunc(ds.X, b.X, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
			}
			if same != tc.same {
				t.Errorf("same data: %v, want %v", same, tc.same)
			}
		})
	}
}

// project returns <row i, u> for every row of ds.
func project(ds *Dataset, u []float64) []float64 {
	out := make([]float64, ds.N)
	for i := range ds.N {
		for j, x := range ds.Row(i) {
			out[i] += float64(x) * u[j]
		}
	}
	return out
}

// TestSimEmbeddingsDirections: the core direction alone, sign(<x, u_c>),
// predicts y with accuracy 0.84 in every group of every split, and the
// spurious direction predicts the attribute with accuracy 0.99, each
// within four standard errors of the group's size.
func TestSimEmbeddingsDirections(t *testing.T) {
	for _, tc := range []struct {
		name string
		dim  int
	}{
		{"waterbirds-sim", 2048},
		{"celeba-sim", 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := simSpec(tc.name, tc.dim).Load(1, nil)
			if err != nil {
				t.Fatal(err)
			}
			c := embeddingsSource{DefaultWaterbirdsSim}.config(simSpec(tc.name, tc.dim))
			uc, us := c.directions()
			for _, ds := range []*Dataset{s.Train, s.Val, s.Test} {
				pc, ps := project(ds, uc), project(ds, us)
				var n, core, spur [4]float64
				for i, g := range ds.Group {
					n[g]++
					if (pc[i] > 0) == (ds.Y[i] == 1) {
						core[g]++
					}
					if (ps[i] > 0) == (ds.Attr[i] == 1) {
						spur[g]++
					}
				}
				for g := range n {
					for _, m := range []struct {
						what      string
						right, to float64
					}{{"core direction, y", core[g], c.CoreAcc}, {"spurious direction, a", spur[g], c.SpurAcc}} {
						acc, tol := m.right/n[g], 4*math.Sqrt(m.to*(1-m.to)/n[g])
						if math.Abs(acc-m.to) > tol {
							t.Errorf("%s, group %s (%g rows): %s accuracy %.4f, want %g ± %.4f", ds.Name, ds.GroupNames[g], n[g], m.what, acc, m.to, tol)
						}
					}
				}
			}
		})
	}
}

// logistic fits a logistic regression of y on the columns of x (plus a
// bias) by Newton's method and returns its predictions on the rows of z.
func logistic(x [][]float64, y []int32, z [][]float64) []bool {
	k := len(x[0]) + 1
	w := make([]float64, k)
	feat := func(r []float64) []float64 { return append(slices.Clone(r), 1) }
	for range 12 {
		g := make([]float64, k)
		h := make([][]float64, k)
		for a := range h {
			h[a] = make([]float64, k)
			h[a][a] = 1e-6
		}
		for i, r := range x {
			f := feat(r)
			var t float64
			for a := range f {
				t += w[a] * f[a]
			}
			p := 1 / (1 + math.Exp(-t))
			for a := range f {
				g[a] += (p - float64(y[i])) * f[a]
				for b := range f {
					h[a][b] += p * (1 - p) * f[a] * f[b]
				}
			}
		}
		// Solve h d = g by Gaussian elimination (k is 2 or 3).
		for a := range k {
			for b := a + 1; b < k; b++ {
				r := h[b][a] / h[a][a]
				for c := a; c < k; c++ {
					h[b][c] -= r * h[a][c]
				}
				g[b] -= r * g[a]
			}
		}
		d := make([]float64, k)
		for a := k - 1; a >= 0; a-- {
			d[a] = g[a]
			for b := a + 1; b < k; b++ {
				d[a] -= h[a][b] * d[b]
			}
			d[a] /= h[a][a]
		}
		for a := range w {
			w[a] -= d[a]
		}
	}
	out := make([]bool, len(z))
	for i, r := range z {
		f := feat(r)
		var t float64
		for a := range f {
			t += w[a] * f[a]
		}
		out[i] = t > 0
	}
	return out
}

// datasetsPage quotes what TestSimEmbeddingsSpuriousLeads computes.
const datasetsPage = "../docs/DATASETS.md"

// spuriousFigures are the page's figures of what ERM sees: the training
// accuracy of the spurious and of the core direction on waterbirds-sim,
// and the worst test group of the classifier on both directions.
var spuriousFigures = regexp.MustCompile(`core does: (\d\.\d\d) against (\d\.\d\d) in training\.[\s\S]*?Its worst test group falls to about (\d\.\d\d)\.`)

// spuriousMismatches compares the page's figures with the computed ones
// (two decimals; the worst group's of each layout), and says which
// differ.
func spuriousMismatches(page string, spur, core float64, worst []float64) []string {
	m := spuriousFigures.FindStringSubmatch(page)
	if m == nil {
		return []string{fmt.Sprintf("no sentences matching %s", spuriousFigures)}
	}
	var out []string
	check := func(what, quoted string, got float64) {
		if s := fmt.Sprintf("%.2f", got); s != quoted {
			out = append(out, fmt.Sprintf("%s: the page says %s, computed %s", what, quoted, s))
		}
	}
	check("waterbirds-sim's spurious direction in training", m[1], spur)
	check("waterbirds-sim's core direction in training", m[2], core)
	for _, w := range worst {
		check("the worst test group on both directions", m[3], w)
	}
	return out
}

// TestSimEmbeddingsSpuriousLeads: what ERM sees. On waterbirds-sim's
// training split a linear classifier on the spurious direction alone
// beats one on the core direction alone; on both layouts, one on the two
// directions fits training better than the core alone and falls far
// below the core's 0.84 in its worst test group: it leans on the
// attribute. docs/DATASETS.md quotes the accuracies: a changed figure
// fails.
func TestSimEmbeddingsSpuriousLeads(t *testing.T) {
	var wbSpur, wbCore float64
	var worsts []float64
	for _, tc := range []struct {
		name          string
		spurBeatsCore bool
		worstBelow    float64
	}{
		{"waterbirds-sim", true, 0.5},
		{"celeba-sim", false, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := simSpec(tc.name, 8).Load(1, nil)
			if err != nil {
				t.Fatal(err)
			}
			c := embeddingsSource{DefaultWaterbirdsSim}.config(simSpec(tc.name, 8))
			uc, us := c.directions()
			cols := func(ds *Dataset, which ...int) [][]float64 {
				p := [2][]float64{project(ds, uc), project(ds, us)}
				out := make([][]float64, ds.N)
				for i := range out {
					for _, w := range which {
						out[i] = append(out[i], p[w][i])
					}
				}
				return out
			}
			acc := func(ds *Dataset, pred []bool) (all, worst float64) {
				var n, right [4]float64
				for i, g := range ds.Group {
					n[g]++
					if pred[i] == (ds.Y[i] == 1) {
						right[g]++
					}
				}
				worst = 1
				for g := range n {
					worst = min(worst, right[g]/n[g])
				}
				return (right[0] + right[1] + right[2] + right[3]) / float64(ds.N), worst
			}
			tr := s.Train
			core, _ := acc(tr, logistic(cols(tr, 0), tr.Y, cols(tr, 0)))
			spur, _ := acc(tr, logistic(cols(tr, 1), tr.Y, cols(tr, 1)))
			both, _ := acc(tr, logistic(cols(tr, 0, 1), tr.Y, cols(tr, 0, 1)))
			_, worst := acc(s.Test, logistic(cols(tr, 0, 1), tr.Y, cols(s.Test, 0, 1)))
			t.Logf("training accuracy: core %.3f, spurious %.3f, both %.3f; both's worst test group %.3f", core, spur, both, worst)
			if tc.name == "waterbirds-sim" {
				wbSpur, wbCore = spur, core
			}
			worsts = append(worsts, worst)
			if tc.spurBeatsCore && spur <= core {
				t.Errorf("training accuracy of the spurious direction %.3f, of the core %.3f: want the spurious one ahead", spur, core)
			}
			if both <= core {
				t.Errorf("training accuracy on both directions %.3f, on the core %.3f: want both ahead", both, core)
			}
			if worst >= tc.worstBelow {
				t.Errorf("worst test group of the classifier on both directions %.3f: want below %g", worst, tc.worstBelow)
			}
		})
	}
	if len(worsts) != 2 {
		t.Fatalf("%d layouts computed, want 2", len(worsts))
	}
	b, err := os.ReadFile(datasetsPage)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, m := range spuriousMismatches(page, wbSpur, wbCore, worsts) {
		t.Errorf("%s: %s", datasetsPage, m)
	}
	// A changed figure fails.
	for _, c := range []struct{ name, from, to string }{
		{"the spurious direction", "does: 0.94 against", "does: 0.95 against"},
		{"the core direction", "against 0.88 in", "against 0.87 in"},
		{"the worst group", "about 0.22.", "about 0.23."},
	} {
		if !strings.Contains(page, c.from) {
			t.Errorf("%s: %q not found", c.name, c.from)
		} else if len(spuriousMismatches(strings.Replace(page, c.from, c.to, 1), wbSpur, wbCore, worsts)) == 0 {
			t.Errorf("%s: %q passes", c.name, c.to)
		}
	}
}

// TestSimEmbeddingsRefused: a dimension out of range, --dim on another
// dataset, a training subset larger than the split, and data larger than
// the machine's memory are refused, naming the flag.
func TestSimEmbeddingsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec func() Spec
		mem  string // /proc/meminfo's MemAvailable, kB; "" = the machine's
		want string
	}{
		{"dim 1", func() Spec { return simSpec("celeba-sim", 1) }, "", "--dim 1: want 2 to 65536"},
		{"dim too wide", func() Spec { return simSpec("celeba-sim", 1<<17) }, "", "--dim 131072: want 2 to 65536"},
		{"negative dim", func() Spec { return simSpec("waterbirds-sim", -3) }, "", "--dim -3"},
		{"dim on cmnist", func() Spec { d := DefaultSpec("cmnist"); d.Dim = 64; return d }, "", "--dim applies to --dataset waterbirds-sim, celeba-sim only, not cmnist"},
		{"train size beyond the split", func() Spec { d := simSpec("waterbirds-sim", 8); d.TrainSize = 4796; return d }, "",
			"--train-size 4796: waterbirds-sim has 4795 training rows"},
		{"more than the memory", func() Spec { return simSpec("celeba-sim", 2048) }, "1048576",
			"--dataset celeba-sim at --dim 2048 takes about 1.6 GiB in memory, and the machine has 1.0 GiB available"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.mem != "" {
				dir := t.TempDir()
				os.MkdirAll(filepath.Join(dir, "self"), 0o700)
				os.WriteFile(filepath.Join(dir, "meminfo"), []byte("MemTotal:       16777216 kB\nMemAvailable:    "+tc.mem+" kB\n"), 0o600)
				procRoot = dir
				t.Cleanup(func() { procRoot = "/proc" })
			}
			_, err := tc.spec().Load(1, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestSimEmbeddingsSpec: a new run records the dimension it reads, so
// that --dim 2048 and no flag are one configuration; other datasets
// record none, and Effective writes the default out.
func TestSimEmbeddingsSpec(t *testing.T) {
	for _, tc := range []struct {
		name    string
		spec    Spec
		newRun  int
		written int
	}{
		{"waterbirds-sim without --dim", Spec{Name: "waterbirds-sim", LabelNoise: -1}, 2048, 2048},
		{"celeba-sim at 64", Spec{Name: "celeba-sim", Dim: 64, LabelNoise: -1}, 64, 64},
		{"a recorded spec without a dimension", Spec{Name: "celeba-sim", LabelNoise: -1}, 2048, 2048},
		{"cmnist given one in a sweep", Spec{Name: "cmnist", Dim: 64, LabelNoise: -1}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.spec.ForNewRun().Dim; got != tc.newRun {
				t.Errorf("a new run records dim %d, want %d", got, tc.newRun)
			}
			d := tc.spec.ForNewRun()
			if got := d.Effective(); got.Dim != tc.written {
				t.Errorf("effective dim %d, want %d", got.Dim, tc.written)
			}
			if got := d.Effective(); tc.written != 0 && got.LabelNoise != 0 {
				t.Errorf("effective label noise %g, want 0", got.LabelNoise)
			}
		})
	}
}

// BenchmarkSimEmbeddings generates each layout at 2,048 features per
// row, on one goroutine and on all of them.
func BenchmarkSimEmbeddings(b *testing.B) {
	for _, def := range []func() EmbeddingsConfig{DefaultWaterbirdsSim, DefaultCelebASim} {
		for _, workers := range []int{1, 0} {
			c := def()
			name := c.Name + "/1"
			if workers == 0 {
				workers, name = runtime.GOMAXPROCS(0), c.Name+"/all"
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(c.Bytes())
				for b.Loop() {
					if _, err := simEmbeddings(c, workers); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
