//go:build openblas || onednn

package nets

/*
#cgo CFLAGS: -O3
#include <stdint.h>
#include <string.h>

// The float32 ReLU-gate passes of the backward step, over a block of rows
// (row-major, m columns): the same operations as gate.go's Go loops, in
// the same order per element and per column sum, so the same bits;
// compiled for AVX-512, AVX2 and plain x86-64, chosen at load time. No
// product meets a sum unmasked, so no contraction into an FMA can change
// a bit.

#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__) // target_clones needs ELF's ifunc
#define MAPLE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MAPLE_CLONES
#endif

static inline float gatef(float v, float g) {
	uint32_t vb, gb;
	memcpy(&vb, &v, 4);
	memcpy(&gb, &g, 4);
	// All ones where g > 0 or g is -0 (as gate.go's mask32).
	uint32_t mask = (uint32_t)((int32_t)(0u - gb) >> 31);
	vb &= mask;
	memcpy(&v, &vb, 4);
	return v;
}

MAPLE_CLONES
void maple_gate_sum_rows(float *dx, const float *y, float *s, long rows, long m) {
	for (long i = 0; i < rows; i++) {
		float *row = dx + i * m;
		const float *g = y + i * m;
		for (long j = 0; j < m; j++) {
			float v = gatef(row[j], g[j]);
			row[j] = v;
			s[j] += v;
		}
	}
}

MAPLE_CLONES
void maple_outer_gate_sum_rows(const float *dy, const float *w, float *dx, const float *y, float *s, long rows, long m) {
	for (long i = 0; i < rows; i++) {
		float *row = dx + i * m;
		const float *g = y + i * m;
		float d = dy[i];
		for (long j = 0; j < m; j++) {
			float v = gatef(d * w[j], g[j]);
			row[j] = v;
			s[j] += v;
		}
	}
}
*/
import "C"

import "unsafe"

func init() {
	gateSumRows32 = func(dx, y, s []float32, rows, m int) {
		if rows == 0 || m == 0 {
			return
		}
		_, _, _ = dx[rows*m-1], y[rows*m-1], s[m-1]
		C.maple_gate_sum_rows((*C.float)(unsafe.Pointer(&dx[0])), (*C.float)(unsafe.Pointer(&y[0])), (*C.float)(unsafe.Pointer(&s[0])), C.long(rows), C.long(m))
	}
	outerGateSumRows32 = func(dy, w, dx, y, s []float32, rows, m int) {
		if rows == 0 || m == 0 {
			return
		}
		_, _, _, _, _ = dy[rows-1], w[m-1], dx[rows*m-1], y[rows*m-1], s[m-1]
		C.maple_outer_gate_sum_rows((*C.float)(unsafe.Pointer(&dy[0])), (*C.float)(unsafe.Pointer(&w[0])), (*C.float)(unsafe.Pointer(&dx[0])),
			(*C.float)(unsafe.Pointer(&y[0])), (*C.float)(unsafe.Pointer(&s[0])), C.long(rows), C.long(m))
	}
}
