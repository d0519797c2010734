package nets

import "math"

// The dense layers' elementwise passes, exported for other model families
// (package gmodel's gorgonia ops) to run the same operations per element,
// parallel over rows as the layers run them.

// BiasAct writes act(y + b) to dst for the n rows of y (n x m,
// row-major, b of m entries): act is the ReLU max(v, 0) when relu, else
// the identity. The same operations as the dense layers' forward pass;
// dst may be y.
func BiasAct[T Float](dst, y, b []T, n, m int, relu bool) {
	b, y, dst = b[:m], y[:n*m], dst[:n*m]
	parallelFor(n, n*m, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			src, out := y[i*m:i*m+m:i*m+m], dst[i*m:i*m+m:i*m+m]
			if relu {
				for j := range out {
					out[j] = max(src[j]+b[j], 0)
				}
				continue
			}
			for j := range out {
				out[j] = src[j] + b[j]
			}
		}
	})
}

// Gate writes g where y > 0 (or y is -0), else +0, to dst, for n x m
// arrays: the ReLU's derivative applied to g, y the ReLU's output. The
// same branch-free mask as the dense layers' backward pass; dst may be g
// or y.
func Gate[T Float](dst, g, y []T, n, m int) {
	dst, g, y = dst[:n*m], g[:n*m], y[:n*m]
	parallelFor(n, n*m, func(_, lo, hi int) {
		a, b := lo*m, hi*m
		if is32[T]() {
			gateTo32(as32(dst[a:b]), as32(g[a:b]), as32(y[a:b]))
			return
		}
		gateTo64(as64(dst[a:b]), as64(g[a:b]), as64(y[a:b]))
	})
}

// ColSums adds the column sums of y (n x m) to s, each column summed in
// per-worker partials then in worker order, as the dense layers sum their
// bias gradients. part holds the partial sums and is returned, grown as
// needed, for the next call.
func ColSums[T Float](s, y []T, n, m int, part [][]T) [][]T {
	return maskColSum(y, nil, s, n, m, false, part)
}

func gateTo32(dst, src, g []float32) {
	src, g = src[:len(dst)], g[:len(dst)]
	for j := range dst {
		dst[j] = math.Float32frombits(math.Float32bits(src[j]) & mask32(g[j]))
	}
}

func gateTo64(dst, src, g []float64) {
	src, g = src[:len(dst)], g[:len(dst)]
	for j := range dst {
		dst[j] = math.Float64frombits(math.Float64bits(src[j]) & mask64(g[j]))
	}
}
