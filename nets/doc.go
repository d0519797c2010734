// Package nets owns maple's models and their exact derivatives.
//
// A model maps a batch of N samples (N x D, row-major, with an optional
// image shape C x H x W per sample) to logits (N x K; K = 1 for binary
// classification). For a flat parameter vector theta every model provides
//
//   - Forward: the logits;
//   - VJP (Backprop): output cotangents (N x K) to the parameter gradient;
//   - JVP: a parameter direction to the per-sample output tangents (N x K),
//     by forward-mode tangent propagation.
//
// Models are generic over float32 (for speed) and float64 (for the
// finite-difference tests). Matrix products go through gonum's blas32 and
// blas64; the build tag openblas switches both to OpenBLAS through
// gonum.org/v1/netlib (cgo, -lopenblas), and the build tag onednn sends the
// float32 products to oneDNN matmul primitives (cgo, -ldnnl; cached per
// shape, bias and ReLU fused into the dense forward, all calls on one
// goroutine locked to its OS thread) and offers bf16 products with float32
// accumulation (Net.SetBF16, BF16). The pure-Go build works everywhere.
// ProductTime counts the time spent in products, for benchmarks.
//
// The package also holds the per-sample losses (binary cross-entropy with
// logits and softmax cross-entropy) with their derivatives, Xavier-uniform
// initialisation from a seeded math/rand/v2 generator, and SGD with momentum
// and weight decay exactly as torch.optim.SGD defines it.
//
// A Net keeps its work buffers between calls and is not safe for concurrent
// use; build one Net per goroutine.
package nets
