package tinydata

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/maple-ood/maple/dataset"
)

// Split makes a split of n samples of dimension d with two
// environments and (label, attribute) groups.
func Split(name string, n, d, classes int, envBase int32, rng *rand.Rand) *dataset.Dataset {
	ds := &dataset.Dataset{Name: name, N: n, D: d, Shape: dataset.Shape{C: d, H: 1, W: 1}, Classes: classes,
		EnvNames: []string{"e0", "e1", "test"}, X: make([]float32, n*d), Y: make([]int32, n),
		Env: make([]int32, n), Group: make([]int32, n), Attr: make([]int32, n), ID: make([]int64, n)}
	ds.GroupNames = make([]string, 2*classes)
	for g := range ds.GroupNames {
		ds.GroupNames[g] = string(rune('a' + g))
	}
	for i := 0; i < n; i++ {
		ds.Y[i] = int32(rng.IntN(classes))
		ds.Attr[i] = int32(rng.IntN(2))
		ds.Env[i] = envBase + int32(i%2)
		if envBase == 2 {
			ds.Env[i] = 2
		}
		ds.Group[i] = 2*ds.Y[i] + ds.Attr[i]
		ds.ID[i] = int64(i)
		for j := 0; j < d; j++ {
			ds.X[i*d+j] = float32(rng.NormFloat64() + 0.5*float64(ds.Y[i]) - 0.3*float64(ds.Attr[i]))
		}
	}
	return ds
}

// Splits makes a tiny split set: n training samples, 10 validation and
// 10 test samples of dimension 3, with classes classes, drawn from seed.
func Splits(n, classes int, seed uint64) *dataset.Splits {
	rng := rand.New(rand.NewPCG(seed, 1))
	return &dataset.Splits{Name: "tiny", Train: Split("train", n, 3, classes, 0, rng),
		Val: Split("val", 10, 3, classes, 0, rng), Test: Split("test", 10, 3, classes, 2, rng)}
}

// Hash is the SHA-256 of the bits of every slice, in order.
func Hash(parts ...any) string {
	h := sha256.New()
	for _, p := range parts {
		switch v := p.(type) {
		case []float64:
			for _, x := range v {
				binary.Write(h, binary.LittleEndian, math.Float64bits(x))
			}
		case []float32:
			for _, x := range v {
				binary.Write(h, binary.LittleEndian, math.Float32bits(x))
			}
		case []bool:
			binary.Write(h, binary.LittleEndian, v)
		default:
			panic(fmt.Sprintf("Hash: %T", p))
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}
