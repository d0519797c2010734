package loaders

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFakeMNIST writes n random 28x28 images with labels 0-9 in the IDX
// layout of f under dir (gzip).
func writeFakeIDX(t *testing.T, dir string, img, lab PublicFile, n int, rng *rand.Rand) {
	t.Helper()
	pix := make([]byte, n*784)
	for i := range pix {
		pix[i] = byte(rng.IntN(256))
	}
	labels := make([]byte, n)
	for i := range labels {
		labels[i] = byte(i % 10)
	}
	os.MkdirAll(filepath.Join(dir, img.Dir), 0o755)
	if err := os.WriteFile(filepath.Join(dir, img.Dir, img.Name), idxBytes(t, []int{n, 28, 28}, pix, true), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, lab.Dir, lab.Name), idxBytes(t, []int{n}, labels, true), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeCIFAR(t *testing.T, path string, n int, rng *rand.Rand) {
	t.Helper()
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		b.WriteByte(byte(i % 10))
		for j := 0; j < 3072; j++ {
			b.WriteByte(byte(rng.IntN(256)))
		}
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func fakeDir(t *testing.T) string {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	writeFakeIDX(t, dir, MNISTTrainImages, MNISTTrainLabels, 400, rng)
	writeFakeIDX(t, dir, MNISTTestImages, MNISTTestLabels, 100, rng)
	writeFakeIDX(t, dir, FashionTrainImages, FashionTrainLabels, 2000, rng)
	writeFakeIDX(t, dir, FashionTestImages, FashionTestLabels, 500, rng)
	for i := 1; i <= 5; i++ {
		writeCIFAR(t, filepath.Join(dir, cifarDir, "data_batch_"+string(rune('0'+i))+".bin"), 400, rng)
	}
	writeCIFAR(t, filepath.Join(dir, cifarDir, "test_batch.bin"), 500, rng)
	return dir
}

func TestDominoConstructions(t *testing.T) {
	dir := fakeDir(t)
	fe := &Fetcher{Dir: dir, Offline: true}
	mtr, _ := loadIDXPair(fe, MNISTTrainImages, MNISTTrainLabels)
	cases := []struct {
		name  string
		build func() (*Splits, error)
		core  func() *images
		shape Shape
		k     int
	}{
		{"mnist-fashion", func() (*Splits, error) { return MNISTFashion(fe, DefaultDomino(2)) },
			func() *images { im, _ := loadIDXPair(fe, FashionTrainImages, FashionTrainLabels); return im }, Shape{C: 1, H: 28, W: 14}, 2},
		{"cifar-mnist", func() (*Splits, error) { return CIFARMNIST(fe, DefaultDomino(1)) },
			func() *images {
				im, _ := loadCIFAR(dir, []string{"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin", "data_batch_5.bin"})
				return im
			},
			Shape{C: 3, H: 64, W: 32}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := c.build()
			if err != nil {
				t.Fatal(err)
			}
			if s.Train.Shape != c.shape || s.Train.N+s.Val.N != 2000 || s.Test.N != 500 {
				t.Fatalf("shape %v sizes %d+%d, %d", s.Train.Shape, s.Train.N, s.Val.N, s.Test.N)
			}
			sum := Describe(s)
			if a := sum.Splits[0].Envs[0].Agreement; a < 0.99 {
				t.Errorf("train env 0 agreement %.3f, want 0.999", a)
			}
			if a := sum.Splits[2].Envs[0].Agreement; math.Abs(a-0.1) > 0.04 {
				t.Errorf("test agreement %.3f, want 0.1", a)
			}
			core := c.core()
			sh := c.shape
			for i := 0; i < 20; i++ {
				row, id := s.Train.Row(i), int(s.Train.ID[i])
				// Top: the core image, subsampled.
				for ch := 0; ch < sh.C; ch++ {
					for h := 0; h < core.h/c.k; h++ {
						for w := 0; w < sh.W; w++ {
							want := float32(core.pix[id*core.size()+ch*core.h*core.w+h*c.k*core.w+w*c.k]) / 255
							if row[ch*sh.H*sh.W+h*sh.W+w] != want {
								t.Fatalf("sample %d core pixel (%d,%d,%d) wrong", i, ch, h, w)
							}
						}
					}
				}
				// Bottom: some MNIST digit of the attribute's half.
				found := false
				off := (core.w - 28) / 2
				for d := 0; d < mtr.n && !found; d++ {
					if (mtr.labels[d] >= 5) != (s.Train.Attr[i] == 1) {
						continue
					}
					ok := true
					for h := core.h / c.k; h < sh.H && ok; h++ {
						for w := 0; w < sh.W && ok; w++ {
							dh, dw := h*c.k-core.h, w*c.k-off
							var want float32
							if dh < 28 && dw >= 0 && dw < 28 {
								want = float32(mtr.pix[d*784+dh*28+dw]) / 255
							}
							ok = row[(sh.C-1)*sh.H*sh.W+h*sh.W+w] == want
						}
					}
					found = ok
				}
				if !found {
					t.Fatalf("sample %d: bottom half is no MNIST digit of half %d", i, s.Train.Attr[i])
				}
			}
		})
	}
}

func TestReadCIFARBad(t *testing.T) {
	good := make([]byte, 2*cifarRecord)
	badLabel := bytes.Clone(good)
	badLabel[cifarRecord] = 10
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{{"empty", nil, "whole number"}, {"truncated", good[:cifarRecord+5], "whole number"}, {"label", badLabel, "label 10"}} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ReadCIFAR(bytes.NewReader(c.in), "x.bin")
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "x.bin") {
				t.Errorf("error %v", err)
			}
		})
	}
	if _, err := CIFARMNIST(&Fetcher{Dir: t.TempDir(), Offline: true}, DefaultDomino(1)); err == nil || !strings.Contains(err.Error(), "cifar-10-batches-bin") {
		t.Errorf("missing CIFAR files: %v", err)
	}
}

func FuzzReadCIFAR(f *testing.F) {
	f.Add(make([]byte, cifarRecord))
	f.Add([]byte{11, 1, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		l, p, err := ReadCIFAR(bytes.NewReader(b), "fuzz")
		if err == nil && len(p) != 3072*len(l) {
			t.Fatal("sizes disagree")
		}
	})
}
