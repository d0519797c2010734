//go:build openblas || onednn

package nets

/*
#cgo CFLAGS: -O3
#include <stdint.h>
#include <string.h>

// The float32 ReLU-gate passes of the backward step, over a block of rows
// (row-major, m columns): the same operations as gate.go's Go loops, in
// the same order per element and per column sum, so the same bits. Each
// is compiled three times, for plain x86-64 (or the host), AVX2 and
// AVX-512, and the best the CPU has is chosen at start (level: 0 plain,
// 1 AVX2, 2 AVX-512); the tests run every level the CPU has. No product
// meets a sum unmasked, so no contraction into an FMA can change a bit.

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

#define MAPLE_GATE_KERNELS(suffix, attr) \
attr static void gate_sum_rows_##suffix(float *dx, const float *y, float *s, long rows, long m) { \
	for (long i = 0; i < rows; i++) { \
		float *row = dx + i * m; \
		const float *g = y + i * m; \
		for (long j = 0; j < m; j++) { \
			float v = gatef(row[j], g[j]); \
			row[j] = v; \
			s[j] += v; \
		} \
	} \
} \
attr static void outer_gate_sum_rows_##suffix(const float *dy, const float *w, float *dx, const float *y, float *s, long rows, long m) { \
	for (long i = 0; i < rows; i++) { \
		float *row = dx + i * m; \
		const float *g = y + i * m; \
		float d = dy[i]; \
		for (long j = 0; j < m; j++) { \
			float v = gatef(d * w[j], g[j]); \
			row[j] = v; \
			s[j] += v; \
		} \
	} \
}

MAPLE_GATE_KERNELS(plain, )
#if defined(__x86_64__) && defined(__GNUC__)
#define MAPLE_X86 1
MAPLE_GATE_KERNELS(avx2, __attribute__((target("avx2"))))
MAPLE_GATE_KERNELS(avx512, __attribute__((target("avx512f"))))
#endif

static int maple_gate_best(void) {
#ifdef MAPLE_X86
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f")) return 2;
	if (__builtin_cpu_supports("avx2")) return 1;
#endif
	return 0;
}

static void maple_gate_sum_rows(int level, float *dx, const float *y, float *s, long rows, long m) {
#ifdef MAPLE_X86
	if (level == 2) { gate_sum_rows_avx512(dx, y, s, rows, m); return; }
	if (level == 1) { gate_sum_rows_avx2(dx, y, s, rows, m); return; }
#endif
	gate_sum_rows_plain(dx, y, s, rows, m);
}

static void maple_outer_gate_sum_rows(int level, const float *dy, const float *w, float *dx, const float *y, float *s, long rows, long m) {
#ifdef MAPLE_X86
	if (level == 2) { outer_gate_sum_rows_avx512(dy, w, dx, y, s, rows, m); return; }
	if (level == 1) { outer_gate_sum_rows_avx2(dy, w, dx, y, s, rows, m); return; }
#endif
	outer_gate_sum_rows_plain(dy, w, dx, y, s, rows, m);
}
*/
import "C"

import "unsafe"

// gateLevel is the instruction set the C kernels run with: 0 plain,
// 1 AVX2, 2 AVX-512 (gateBest: the best the CPU has, the default).
var gateBest = int(C.maple_gate_best())
var gateLevel = gateBest

func init() {
	gateSumRows32 = func(dx, y, s []float32, rows, m int) {
		if rows == 0 || m == 0 {
			return
		}
		_, _, _ = dx[rows*m-1], y[rows*m-1], s[m-1]
		C.maple_gate_sum_rows(C.int(gateLevel), (*C.float)(unsafe.Pointer(&dx[0])), (*C.float)(unsafe.Pointer(&y[0])), (*C.float)(unsafe.Pointer(&s[0])), C.long(rows), C.long(m))
	}
	outerGateSumRows32 = func(dy, w, dx, y, s []float32, rows, m int) {
		if rows == 0 || m == 0 {
			return
		}
		_, _, _, _, _ = dy[rows-1], w[m-1], dx[rows*m-1], y[rows*m-1], s[m-1]
		C.maple_outer_gate_sum_rows(C.int(gateLevel), (*C.float)(unsafe.Pointer(&dy[0])), (*C.float)(unsafe.Pointer(&w[0])), (*C.float)(unsafe.Pointer(&dx[0])),
			(*C.float)(unsafe.Pointer(&y[0])), (*C.float)(unsafe.Pointer(&s[0])), C.long(rows), C.long(m))
	}
}
