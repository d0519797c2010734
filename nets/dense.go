package nets

import (
	"math"
	"math/rand/v2"
	"time"
)

// dense is a fully connected layer y = act(x W + b) with W stored in x out
// row-major followed by b; act is ReLU or the identity.
type dense[T Float] struct {
	nin, nout int
	relu      bool
	part      [][]T // per-worker partial bias gradients

	// bf16 runs forward and backward products in bf16 with float32
	// accumulation (float32 nets only; see Net.SetBF16). The bf16 copies
	// of the last forward pass's input and weights are kept for the
	// backward pass.
	bf16   bool
	xb, wb []uint16
	dyb    []uint16
}

func newDense[T Float](nin, nout int, relu bool) *dense[T] {
	return &dense[T]{nin: nin, nout: nout, relu: relu}
}

func (l *dense[T]) in() int      { return l.nin }
func (l *dense[T]) out() int     { return l.nout }
func (l *dense[T]) nparams() int { return l.nin*l.nout + l.nout }

func (l *dense[T]) init(p []T, rng *rand.Rand) {
	xavier(p[:l.nin*l.nout], l.nin, l.nout, rng)
	clear(p[l.nin*l.nout:])
}

func (l *dense[T]) split(p []T) (w, b []T) { return p[:l.nin*l.nout], p[l.nin*l.nout:] }

func (l *dense[T]) forward(p, x, y []T, n int) {
	w, b := l.split(p)
	if l.bf16 && n > 0 {
		l.xb, l.wb = grow(l.xb, n*l.nin), grow(l.wb, l.nin*l.nout)
		toBF16(n, l.nin, as32(x), l.nin, l.xb)
		toBF16(l.nin, l.nout, as32(w), l.nout, l.wb)
		t := time.Now()
		defer since(t)
		gemmBF16(false, false, n, l.nout, l.nin, l.xb, l.nin, l.wb, l.nout, as32(b), l.relu, 0, as32(y), l.nout)
		return
	}
	if is32[T]() && dense32 != nil && n > 0 {
		defer since(time.Now())
		dense32(n, l.nout, l.nin, as32(x), as32(w), as32(b), l.relu, as32(y))
		return
	}
	Gemm(false, false, n, l.nout, l.nin, 1, x, l.nin, w, l.nout, 0, y, l.nout)
	biasAct(y, b, nil, n, l.nout, l.relu)
}

func (l *dense[T]) backward(p, x, y, dy, dp, dx []T, n int) {
	l.backwardGated(p, x, y, dy, dp, dx, n, false, nil)
}

// gateNext is the ReLU layer below a one-output head, whose input
// cotangents the head's outer product gates and sums in the same pass.
type gateNext[T Float] struct {
	layer *dense[T]
	y, db []T // that layer's forward output and bias gradient
}

// backwardGated is backward where dy may already be gated, with its
// column sums added to db (masked), and where a one-output layer may gate
// its input cotangents dx for the ReLU layer below and add their column
// sums to that layer's bias gradient (next, nil for none): one pass over
// dx instead of the outer product's and the mask's. The sums are the
// ones maskColSum takes (the same rows per worker, added in the same
// order), so the results are the same bits.
func (l *dense[T]) backwardGated(p, x, y, dy, dp, dx []T, n int, masked bool, next *gateNext[T]) {
	w, _ := l.split(p)
	dw, db := l.split(dp)
	if !masked {
		l.part = maskColSum(dy, y, db, n, l.nout, l.relu, l.part)
	}
	if l.nout == 1 && n > 0 {
		// A single output (the binary head): the products are a matrix-
		// vector product and an outer product, memory-bound; a GEMM with
		// one column wastes its blocking.
		Gemv(true, n, l.nin, 1, x, l.nin, dy, 1, dw)
		if dx != nil {
			if next != nil {
				next.layer.part = outerGateSum(dy, w, dx, n, l.nin, next.y, next.db, next.layer.part)
			} else {
				outer(dy, w, dx, n, l.nin)
			}
		}
		return
	}
	if l.bf16 && n > 0 {
		// xb and wb hold this x and these weights from the forward pass.
		l.dyb = grow(l.dyb, n*l.nout)
		toBF16(n, l.nout, as32(dy), l.nout, l.dyb)
		defer since(time.Now())
		gemmBF16(true, false, l.nin, l.nout, n, l.xb, l.nin, l.dyb, l.nout, nil, false, 1, as32(dw), l.nout)
		if dx != nil {
			gemmBF16(false, true, n, l.nin, l.nout, l.dyb, l.nout, l.wb, l.nout, nil, false, 0, as32(dx), l.nin)
		}
		return
	}
	Gemm(true, false, l.nin, l.nout, n, 1, x, l.nin, dy, l.nout, 1, dw, l.nout)
	if dx != nil {
		Gemm(false, true, n, l.nin, l.nout, 1, dy, l.nout, w, l.nout, 0, dx, l.nin)
	}
}

func (l *dense[T]) tangent(p, dir, x, tx, y, ty []T, n int) {
	w, _ := l.split(p)
	dw, db := l.split(dir)
	beta := T(0)
	if tx != nil {
		Gemm(false, false, n, l.nout, l.nin, 1, tx, l.nin, w, l.nout, 0, ty, l.nout)
		beta = 1
	}
	Gemm(false, false, n, l.nout, l.nin, 1, x, l.nin, dw, l.nout, beta, ty, l.nout)
	biasAct(ty, db, y, n, l.nout, l.relu)
}

// outer writes dx = dy w^T for a column dy (n) and a row w (m).
func outer[T Float](dy, w, dx []T, n, m int) {
	w = w[:m]
	parallelFor(n, n*m, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			row, d := dx[i*m:i*m+m:i*m+m], dy[i]
			for j := range row {
				row[j] = d * w[j]
			}
		}
	})
}

// outerGateSum writes dx = dy w^T for a column dy (n) and a row w (m),
// zeroed where the ReLU output y (n x m) is not positive, and adds the
// column sums of the result to db: outer then maskColSum in one pass,
// the sums split as maskColSum splits them.
func outerGateSum[T Float](dy, w, dx []T, n, m int, y, db []T, part [][]T) [][]T {
	part = partials(part, m)
	used := make([]bool, len(part))
	w = w[:m]
	parallelFor(n, n*m, func(k, lo, hi int) {
		used[k] = true
		s := part[k][:m:m]
		if is32[T]() && outerGateSumRows32 != nil {
			outerGateSumRows32(as32(dy[lo:hi]), as32(w), as32(dx[lo*m:hi*m]), as32(y[lo*m:hi*m]), as32(s), hi-lo, m)
			return
		}
		for i := lo; i < hi; i++ {
			row, d := dx[i*m:i*m+m:i*m+m], dy[i]
			for j := range row {
				row[j] = d * w[j]
			}
			gateRowSum(row, y[i*m:i*m+m], s)
		}
	})
	addPartials(part, used, db)
	return part
}

// xavier fills w (fanIn x fanOut) from U(-a, a), a = sqrt(6/(fanIn+fanOut)).
func xavier[T Float](w []T, fanIn, fanOut int, rng *rand.Rand) {
	a := math.Sqrt(6 / float64(fanIn+fanOut))
	for i := range w {
		w[i] = T((2*rng.Float64() - 1) * a)
	}
}

// biasAct adds the bias b to each of the n rows of y (n x m). With relu it
// then applies the ReLU: when gate is nil the gate is y itself (a forward
// pass); otherwise entries where gate <= 0 are zeroed (a tangent pass).
func biasAct[T Float](y, b, gate []T, n, m int, relu bool) {
	b = b[:m]
	parallelFor(n, n*m, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			row := y[i*m : i*m+m : i*m+m]
			switch {
			case !relu:
				for j := range row {
					row[j] += b[j]
				}
			case gate == nil:
				for j := range row {
					row[j] = max(row[j]+b[j], 0)
				}
			default:
				for j := range row {
					row[j] += b[j]
				}
				gateRow(row, gate[i*m:i*m+m])
			}
		}
	})
}

// maskColSum zeroes dy where y <= 0 (when relu) and adds the column sums of
// the result to db. part holds per-worker partial sums and is returned,
// grown as needed.
func maskColSum[T Float](dy, y, db []T, n, m int, relu bool, part [][]T) [][]T {
	part = partials(part, m)
	used := make([]bool, len(part))
	parallelFor(n, n*m, func(w, lo, hi int) {
		used[w] = true
		s := part[w][:m:m]
		if relu && is32[T]() && gateSumRows32 != nil {
			gateSumRows32(as32(dy[lo*m:hi*m]), as32(y[lo*m:hi*m]), as32(s), hi-lo, m)
			return
		}
		for i := lo; i < hi; i++ {
			row := dy[i*m : i*m+m : i*m+m]
			if !relu {
				for j := range row {
					s[j] += row[j]
				}
				continue
			}
			gateRowSum(row, y[i*m:i*m+m], s)
		}
	})
	addPartials(part, used, db)
	return part
}

// partials returns part with one cleared partial sum of m entries per
// worker, grown as needed.
func partials[T Float](part [][]T, m int) [][]T {
	for len(part) < maxWorkers() {
		part = append(part, nil)
	}
	for w := range part {
		if cap(part[w]) < m {
			part[w] = make([]T, m)
		}
		part[w] = part[w][:m]
		clear(part[w])
	}
	return part
}

// addPartials adds the used workers' partial sums to db in worker order.
func addPartials[T Float](part [][]T, used []bool, db []T) {
	for w, s := range part {
		if !used[w] {
			continue
		}
		for j, v := range s {
			db[j] += v
		}
	}
}
