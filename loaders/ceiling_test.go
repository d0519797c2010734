package loaders

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/maple-ood/maple/dataset"
)

var updateCeiling = flag.Bool("update", false, "rewrite the ceiling table of docs/EMBEDDINGS.md")

// The ceiling table of docs/EMBEDDINGS.md lies between these markers;
// TestEmbeddingsCeiling writes it with -update and checks it otherwise.
const (
	embeddingsPage = "../docs/EMBEDDINGS.md"
	ceilingStart   = "<!-- ceiling:start (go test ./loaders -run TestEmbeddingsCeiling -update) -->"
	ceilingEnd     = "<!-- ceiling:end -->"
)

// balancedHead is the linear head that group-balanced training rows give
// in closed form: w is the difference of the two classes' centroids,
// each the mean of its two groups' means, and the threshold lies half
// way between the centroids. A weighted ERM whose weights balance the
// groups and whose weight decay is strong tends to this direction (the
// decay's optimum is the weighted mean of (2y-1) x); group DRO's weights
// approach it when the groups' losses level.
//
// The half-way point is corrected for the centroids' noise: in d
// features a centroid of k rows lies sqrt(d s^2/k) from its mean, so the
// plain half-way point leans towards the class with the smaller groups
// (at 2,048 features and 56 rows, by more than the signal). The
// correction subtracts d s^2 (v+ - v-)/2, with s^2 the rows' pooled
// within-group variance and v+- a centroid's variance factor,
// (1/4)(1/n_a + 1/n_b) over its two groups.
func balancedHead(tr *dataset.Dataset) (w []float64, b float64) {
	var sum, sq [4][]float64
	var counts [4]int
	for g := range sum {
		sum[g], sq[g] = make([]float64, tr.D), make([]float64, tr.D)
	}
	for i := range tr.N {
		g := tr.Group[i]
		counts[g]++
		for j, x := range tr.Row(i) {
			sum[g][j] += float64(x)
			sq[g][j] += float64(x) * float64(x)
		}
	}
	var within float64 // the pooled within-group variance, summed over features
	w = make([]float64, tr.D)
	var posSq, negSq float64
	for j := range w {
		var c [4]float64
		for g := range c {
			n := float64(counts[g])
			c[g] = sum[g][j] / n
			within += sq[g][j] - n*c[g]*c[g]
		}
		pos, neg := (c[2]+c[3])/2, (c[0]+c[1])/2
		w[j] = pos - neg
		posSq += pos * pos
		negSq += neg * neg
	}
	within /= float64(tr.N - 4)
	factor := func(a, b int) float64 { return (1/float64(counts[a]) + 1/float64(counts[b])) / 4 }
	b = -((posSq - within*factor(2, 3)) - (negSq - within*factor(0, 1))) / 2
	return w, b
}

// worstGroup is the lowest per-group accuracy of sign(w.x + b) on ds.
func worstGroup(ds *dataset.Dataset, w []float64, b float64) float64 {
	var right, n [4]int
	for i := range ds.N {
		s := b
		for j, x := range ds.Row(i) {
			s += w[j] * float64(x)
		}
		g := ds.Group[i]
		n[g]++
		if (s > 0) == (ds.Y[i] == 1) {
			right[g]++
		}
	}
	worst := 1.0
	for g := range n {
		worst = min(worst, float64(right[g])/float64(n[g]))
	}
	return worst
}

// expectedBalanced is the balanced head's expected worst-group
// accuracy, to first order: its direction is 2 m_c u_c plus noise e of
// variance v = (1/4) sum_g 1/n_g in each of the Dim features, so a test
// row's score has mean 2 m_c^2 and standard deviation
// sqrt(4 m_c^2 + Dim v). The noise's component along the spurious
// direction, e_s, moves two groups' means by m_s e_s, up for one
// attribute and down for the other; the worst group takes E|e_s| =
// sqrt(2v/pi) off its mean.
func expectedBalanced(c EmbeddingsConfig) float64 {
	mc, ms := c.Strengths()
	var v float64
	for _, n := range c.Groups[0] {
		v += 1 / float64(n)
	}
	v *= c.Noise * c.Noise / 4
	return distuv.UnitNormal.CDF((2*mc*mc - ms*math.Sqrt(2*v/math.Pi)) / math.Sqrt(4*mc*mc+float64(c.Dim)*v))
}

// TestEmbeddingsCeiling computes, for the simulated embeddings at the
// dimensions the docs use, the test worst-group accuracy of the head that
// group-balanced training rows give (balancedHead), and checks it
// against its expectation (expectedBalanced) within 4 points: the
// training rows bound what a group-reading method can reach, well below
// the core direction's CoreAcc when the smallest group is small against
// the dimension. docs/EMBEDDINGS.md quotes the table; -update rewrites it.
func TestEmbeddingsCeiling(t *testing.T) {
	cases := []struct {
		name string
		def  func() EmbeddingsConfig
		dim  int
	}{
		{"waterbirds-sim at 64", DefaultWaterbirdsSim, 64},
		{"waterbirds-sim at 512", DefaultWaterbirdsSim, 512},
		{"waterbirds-sim at 2048", DefaultWaterbirdsSim, 2048},
		{"celeba-sim at 2048", DefaultCelebASim, 2048},
	}
	var table strings.Builder
	table.WriteString("| data | features | smallest training group | balanced head, computed | balanced head, expected | core direction |\n|---|---|---|---|---|---|\n")
	for _, tc := range cases {
		c := tc.def()
		c.Dim = tc.dim
		s, err := SimEmbeddings(c)
		if err != nil {
			t.Fatal(err)
		}
		w, b := balancedHead(s.Train)
		got, want := worstGroup(s.Test, w, b), expectedBalanced(c)
		if math.Abs(got-want) > 0.04 {
			t.Errorf("%s: the balanced head's test worst-group is %.3f; its expectation %.3f", tc.name, got, want)
		}
		fmt.Fprintf(&table, "| %s | %d | %d | %.3f | %.3f | %.2f |\n", c.Name, c.Dim, min(c.Groups[0][0], c.Groups[0][1], c.Groups[0][2], c.Groups[0][3]), got, want, c.CoreAcc)
	}
	page, err := os.ReadFile(embeddingsPage)
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	i, j := strings.Index(text, ceilingStart), strings.Index(text, ceilingEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: want the markers %q and %q around the ceiling table", embeddingsPage, ceilingStart, ceilingEnd)
	}
	spliced := text[:i+len(ceilingStart)] + "\n" + table.String() + text[j:]
	if *updateCeiling {
		if err := os.WriteFile(embeddingsPage, []byte(spliced), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if spliced != text {
		t.Errorf("%s: the ceiling table is not what the data give; rewrite it with go test ./loaders -run TestEmbeddingsCeiling -update", embeddingsPage)
	}
}
