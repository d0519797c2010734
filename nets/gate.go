package nets

import "math"

// The ReLU derivative masks below are branch-free: their gates are about
// half zeros in random order, and a branch per element costs more than the
// memory traffic of the whole pass.

// gateRow zeroes row[j] where g[j] <= 0, except that g[j] = -0 passes
// (ReLU outputs are never -0).
func gateRow[T Float](row, g []T) {
	if is32[T]() {
		gate32(as32(row), as32(g))
		return
	}
	gate64(as64(row), as64(g))
}

// gateRowSum is gateRow that also adds the gated row to s.
func gateRowSum[T Float](row, g, s []T) {
	if is32[T]() {
		gateSum32(as32(row), as32(g), as32(s))
		return
	}
	gateSum64(as64(row), as64(g), as64(s))
}

// gateSumRows32 and outerGateSumRows32, when set (the cgo builds:
// gate_c.go), run the float32 passes of maskColSum and outerGateSum over a
// block of rows in C, vectorised: the same operations per element and the
// same order of each column's sum as the Go loops, so the same bits. Nil
// in the pure-Go build, which runs the Go loops.
var (
	gateSumRows32      func(dx, y, s []float32, rows, m int)
	outerGateSumRows32 func(dy, w, dx, y, s []float32, rows, m int)
)

// mask32 is all ones when g > 0 (as a signed integer of the bits, which
// orders non-negative floats as the floats), else zero.
func mask32(g float32) uint32 { return uint32(-int32(math.Float32bits(g)) >> 31) }
func mask64(g float64) uint64 { return uint64(-int64(math.Float64bits(g)) >> 63) }

func gate32(row, g []float32) { gateTo32(row, row, g) }
func gate64(row, g []float64) { gateTo64(row, row, g) }

func gateSum32(row, g, s []float32) {
	g, s = g[:len(row)], s[:len(row)]
	for j := range row {
		v := math.Float32frombits(math.Float32bits(row[j]) & mask32(g[j]))
		row[j] = v
		s[j] += v
	}
}

func gateSum64(row, g, s []float64) {
	g, s = g[:len(row)], s[:len(row)]
	for j := range row {
		v := math.Float64frombits(math.Float64bits(row[j]) & mask64(g[j]))
		row[j] = v
		s[j] += v
	}
}
