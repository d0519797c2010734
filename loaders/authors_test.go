package loaders

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestAuthorsData compares maple's cmnist with the ColoredMNIST tensors
// the MAPLE code (x-zho14/MAPLE, utils.make_mnist_envs) built, dumped by
// the instrumented run the README's "Side by side with the authors'
// code" describes (MAPLE_AUTHORS_DUMP; skipped without it). Each of the
// code's 50000 training images is matched to its MNIST index by its
// pixels; then, sample by sample: the 14x14 subsampled pixels and their
// scale must be identical, the colour must sit in the channel its colour
// label names, and the label noise and colour flips (drawn from other
// generators on either side) must have the same rates per environment.
// The test images must be MNIST 50000-59999 in order in both.
func TestAuthorsData(t *testing.T) {
	dir := os.Getenv("MAPLE_AUTHORS_DUMP")
	if dir == "" {
		t.Skip("MAPLE_AUTHORS_DUMP names no dump of the MAPLE code's data (README, \"Side by side with the authors' code\")")
	}
	get := func(name string) []float32 {
		_, v, err := ReadNPYFile(filepath.Join(dir, name+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	c := DefaultCMNIST()
	s, err := CMNIST(&Fetcher{Dir: sharedData(t), Offline: true}, c)
	if err != nil {
		t.Fatal(err)
	}
	// maple's 50000 training images: its training and validation splits.
	all := s.Train.Subset("train+val", nil)
	for _, d := range []*Dataset{s.Train, s.Val} {
		idx := make([]int, d.N)
		for i := range idx {
			idx[i] = i
		}
		part := d.Subset(d.Name, idx)
		all.N += part.N
		all.X, all.Y, all.Env, all.Attr, all.ID = append(all.X, part.X...), append(all.Y, part.Y...), append(all.Env, part.Env...), append(all.Attr, part.Attr...), append(all.ID, part.ID...)
		all.CleanY = append(all.CleanY, part.CleanY...)
	}
	grey := func(row []float32) string { // the image, whichever channel holds it
		b := make([]byte, 196)
		for p := 0; p < 196; p++ {
			b[p] = byte(math.Round(float64(row[p]+row[196+p]) * 255))
		}
		return string(b)
	}
	byImage := map[string][]int{} // MNIST index(es) of each image
	for j := 0; j < all.N; j++ {
		g := grey(all.Row(j))
		byImage[g] = append(byImage[g], j)
	}
	x, y, env, col := get("train_x"), get("train_y"), get("train_g"), get("train_c")
	n := len(y)
	if n != 50000 || len(x) != n*392 {
		t.Fatalf("dump holds %d training labels and %d values, want 50000 x 392", n, len(x))
	}
	var noise, flips, cnt [2]float64
	var mNoise, mFlips, mCnt [2]float64
	sameEnv, unmatched := 0, 0
	for i := 0; i < n; i++ {
		row := x[i*392 : (i+1)*392]
		js := byImage[grey(row)]
		if len(js) == 0 {
			unmatched++
			continue
		}
		j := js[0]
		// Pixels and scale: maple's row, moved to the code's colour
		// channel, must equal the code's row.
		colour := int(y[i])
		if col[i] < 0.5 { // c = 1: the colour agrees with the label
			colour = 1 - colour
		}
		mrow := all.Row(j)
		for p := 0; p < 196; p++ {
			v := mrow[p] + mrow[196+p]
			if row[colour*196+p] != v || row[(1-colour)*196+p] != 0 {
				t.Fatalf("training image %d (MNIST %d) pixel %d: code (%g, %g) in colour %d, maple %g", i, all.ID[j], p, row[p], row[196+p], colour, v)
			}
		}
		e := int(env[i])
		clean := all.CleanY[j]
		noise[e] += b2f(int32(y[i]) != clean)
		flips[e] += b2f(col[i] < 0.5)
		cnt[e]++
		me := int(all.Env[j])
		mNoise[me] += b2f(all.Y[j] != clean)
		mFlips[me] += b2f(all.Attr[j] != all.Y[j])
		mCnt[me]++
		if me == e {
			sameEnv++
		}
	}
	if unmatched > 0 {
		t.Errorf("%d of the code's training images match no MNIST training image 0-49999", unmatched)
	}
	for e := 0; e < 2; e++ {
		t.Logf("env %d: code %5.0f samples, label noise %.4f, colour flips %.4f; maple %5.0f samples, %.4f, %.4f",
			e, cnt[e], noise[e]/cnt[e], flips[e]/cnt[e], mCnt[e], mNoise[e]/mCnt[e], mFlips[e]/mCnt[e])
		want := c.Flips[e]
		for _, r := range []struct {
			what      string
			got, want float64
		}{{"code label noise", noise[e] / cnt[e], 0.25}, {"maple label noise", mNoise[e] / mCnt[e], 0.25},
			{"code colour flips", flips[e] / cnt[e], want}, {"maple colour flips", mFlips[e] / mCnt[e], want}} {
			// Four standard deviations of a rate over 25000 draws.
			if sd := math.Sqrt(r.want * (1 - r.want) / 25000); math.Abs(r.got-r.want) > 4*sd {
				t.Errorf("env %d: %s %.4f, want %.2f +- %.4f", e, r.what, r.got, r.want, 4*sd)
			}
		}
	}
	t.Logf("%d of %d images are in the same environment on both sides (independent shuffles: about half)", sameEnv, n)
	// The test images: MNIST 50000-59999 in order on both sides.
	tx := get("test_x")
	for i := 0; i < s.Test.N; i++ {
		if grey(tx[i*392:(i+1)*392]) != grey(s.Test.Row(i)) {
			t.Fatalf("test image %d differs from maple's (MNIST %d)", i, s.Test.ID[i])
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
