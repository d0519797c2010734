//go:build onednn

package nets

/*
#cgo LDFLAGS: -ldnnl
#include <oneapi/dnnl/dnnl.h>
#include <string.h>

// One cached matmul primitive: the shape, transposes, leading dimensions,
// beta and epilogue it was built for, and its memory objects, whose data
// handles are set per call and cleared afterwards.
typedef struct {
	int ta, tb, post; // post: 0 none, 1 bias, 2 bias then ReLU
	int bf;           // A and B are bf16 (C stays f32)
	long m, n, k, lda, ldb, ldc;
	float beta;
	dnnl_primitive_t p;
	dnnl_memory_t a, b, c, bias;
	unsigned long used;
} mm_entry;

#define MM_CACHE 64
static mm_entry mm_cache[MM_CACHE];
static int mm_len;
static unsigned long mm_tick;
static dnnl_engine_t mm_eng;
static dnnl_stream_t mm_strm;

static int mm_init(void) {
	dnnl_status_t s = dnnl_engine_create(&mm_eng, dnnl_cpu, 0);
	if (s != dnnl_success) return (int)s;
	return (int)dnnl_stream_create(&mm_strm, mm_eng, dnnl_stream_default_flags);
}

// md_rm describes a logical r x c f32 matrix stored row-major with leading
// dimension ld, or (trans) the transpose of such a c x r matrix.
static dnnl_status_t md_rm(dnnl_memory_desc_t *md, long r, long c, int trans, long ld, dnnl_data_type_t dt) {
	dnnl_dims_t d = {r, c}, s;
	if (trans) { s[0] = 1; s[1] = ld; } else { s[0] = ld; s[1] = 1; }
	return dnnl_memory_desc_init_by_strides(md, 2, d, dt, s);
}

static void mm_destroy(mm_entry *e) {
	if (e->p) dnnl_primitive_destroy(e->p);
	if (e->a) dnnl_memory_destroy(e->a);
	if (e->b) dnnl_memory_destroy(e->b);
	if (e->c) dnnl_memory_destroy(e->c);
	if (e->bias) dnnl_memory_destroy(e->bias);
	memset(e, 0, sizeof *e);
}

#define CK(x) do { s = (x); if (s != dnnl_success) goto fail; } while (0)

static dnnl_status_t mm_build(mm_entry *e) {
	dnnl_status_t s;
	dnnl_memory_desc_t amd, bmd, cmd, biasmd;
	dnnl_matmul_desc_t d;
	dnnl_primitive_attr_t attr = NULL;
	dnnl_post_ops_t po = NULL;
	dnnl_primitive_desc_t pd = NULL;
	dnnl_data_type_t in = e->bf ? dnnl_bf16 : dnnl_f32;
	CK(md_rm(&amd, e->m, e->k, e->ta, e->lda, in));
	CK(md_rm(&bmd, e->k, e->n, e->tb, e->ldb, in));
	CK(md_rm(&cmd, e->m, e->n, 0, e->ldc, dnnl_f32));
	if (e->post) CK(md_rm(&biasmd, 1, e->n, 0, e->n, dnnl_f32));
	CK(dnnl_matmul_desc_init(&d, &amd, &bmd, e->post ? &biasmd : NULL, &cmd));
	CK(dnnl_primitive_attr_create(&attr));
	CK(dnnl_post_ops_create(&po));
	if (e->beta != 0) CK(dnnl_post_ops_append_sum(po, e->beta));
	if (e->post == 2) CK(dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f));
	CK(dnnl_primitive_attr_set_post_ops(attr, po));
	CK(dnnl_primitive_desc_create(&pd, &d, attr, mm_eng, NULL));
	CK(dnnl_primitive_create(&e->p, pd));
	CK(dnnl_memory_create(&e->a, &amd, mm_eng, DNNL_MEMORY_NONE));
	CK(dnnl_memory_create(&e->b, &bmd, mm_eng, DNNL_MEMORY_NONE));
	CK(dnnl_memory_create(&e->c, &cmd, mm_eng, DNNL_MEMORY_NONE));
	if (e->post) CK(dnnl_memory_create(&e->bias, &biasmd, mm_eng, DNNL_MEMORY_NONE));
fail:
	if (pd) dnnl_primitive_desc_destroy(pd);
	if (po) dnnl_post_ops_destroy(po);
	if (attr) dnnl_primitive_attr_destroy(attr);
	return s;
}

// mm_run computes C = op(A) op(B) [+ bias] [ReLU] + beta C with a cached
// primitive, building (and evicting the least recently used) as needed.
static int mm_run(int bf, int ta, int tb, long m, long n, long k, const void *a, long lda,
		const void *b, long ldb, const float *bias, int post, float beta, float *c, long ldc) {
	mm_entry *e = NULL;
	dnnl_status_t s;
	for (int i = 0; i < mm_len; i++) {
		mm_entry *x = &mm_cache[i];
		if (x->bf == bf && x->ta == ta && x->tb == tb && x->post == post && x->m == m && x->n == n && x->k == k &&
				x->lda == lda && x->ldb == ldb && x->ldc == ldc && x->beta == beta) { e = x; break; }
	}
	if (!e) {
		if (mm_len < MM_CACHE) e = &mm_cache[mm_len++];
		else {
			e = &mm_cache[0];
			for (int i = 1; i < MM_CACHE; i++) if (mm_cache[i].used < e->used) e = &mm_cache[i];
			mm_destroy(e);
		}
		e->bf = bf; e->ta = ta; e->tb = tb; e->post = post; e->m = m; e->n = n; e->k = k;
		e->lda = lda; e->ldb = ldb; e->ldc = ldc; e->beta = beta;
		s = mm_build(e);
		if (s != dnnl_success) { mm_destroy(e); return (int)s; }
	}
	e->used = ++mm_tick;
	dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, e->a}, {DNNL_ARG_WEIGHTS, e->b}, {DNNL_ARG_DST, e->c}, {DNNL_ARG_BIAS, e->bias}};
	if ((s = dnnl_memory_set_data_handle(e->a, (void *)a)) != dnnl_success) return (int)s;
	if ((s = dnnl_memory_set_data_handle(e->b, (void *)b)) != dnnl_success) return (int)s;
	if ((s = dnnl_memory_set_data_handle(e->c, c)) != dnnl_success) return (int)s;
	if (post && (s = dnnl_memory_set_data_handle(e->bias, (void *)bias)) != dnnl_success) return (int)s;
	s = dnnl_primitive_execute(e->p, mm_strm, post ? 4 : 3, args);
	if (s == dnnl_success) s = dnnl_stream_wait(mm_strm);
	// Keep no Go pointer in C memory after the call.
	dnnl_memory_set_data_handle(e->a, NULL);
	dnnl_memory_set_data_handle(e->b, NULL);
	dnnl_memory_set_data_handle(e->c, NULL);
	if (post) dnnl_memory_set_data_handle(e->bias, NULL);
	return (int)s;
}

// One cached f32 -> bf16 reorder of an r x c row-major matrix with leading
// dimension ld into a dense r x c one.
typedef struct {
	long r, c, ld;
	dnnl_primitive_t p;
	dnnl_memory_t src, dst;
	unsigned long used;
} rd_entry;

static rd_entry rd_cache[MM_CACHE];
static int rd_len;

static void rd_destroy(rd_entry *e) {
	if (e->p) dnnl_primitive_destroy(e->p);
	if (e->src) dnnl_memory_destroy(e->src);
	if (e->dst) dnnl_memory_destroy(e->dst);
	memset(e, 0, sizeof *e);
}

static int rd_run(long r, long c, const float *src, long ld, void *dst) {
	rd_entry *e = NULL;
	dnnl_status_t s;
	for (int i = 0; i < rd_len; i++) {
		rd_entry *x = &rd_cache[i];
		if (x->r == r && x->c == c && x->ld == ld) { e = x; break; }
	}
	if (!e) {
		if (rd_len < MM_CACHE) e = &rd_cache[rd_len++];
		else {
			e = &rd_cache[0];
			for (int i = 1; i < MM_CACHE; i++) if (rd_cache[i].used < e->used) e = &rd_cache[i];
			rd_destroy(e);
		}
		e->r = r; e->c = c; e->ld = ld;
		dnnl_memory_desc_t smd, dmd;
		dnnl_primitive_desc_t pd = NULL;
		CK(md_rm(&smd, r, c, 0, ld, dnnl_f32));
		CK(md_rm(&dmd, r, c, 0, c, dnnl_bf16));
		CK(dnnl_reorder_primitive_desc_create(&pd, &smd, mm_eng, &dmd, mm_eng, NULL));
		s = dnnl_primitive_create(&e->p, pd);
		dnnl_primitive_desc_destroy(pd);
		if (s != dnnl_success) goto fail;
		CK(dnnl_memory_create(&e->src, &smd, mm_eng, DNNL_MEMORY_NONE));
		CK(dnnl_memory_create(&e->dst, &dmd, mm_eng, DNNL_MEMORY_NONE));
	}
	e->used = ++mm_tick;
	dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, e->src}, {DNNL_ARG_TO, e->dst}};
	if ((s = dnnl_memory_set_data_handle(e->src, (void *)src)) != dnnl_success) return (int)s;
	if ((s = dnnl_memory_set_data_handle(e->dst, dst)) != dnnl_success) return (int)s;
	s = dnnl_primitive_execute(e->p, mm_strm, 2, args);
	if (s == dnnl_success) s = dnnl_stream_wait(mm_strm);
	dnnl_memory_set_data_handle(e->src, NULL);
	dnnl_memory_set_data_handle(e->dst, NULL);
	return (int)s;
fail:
	rd_destroy(e);
	return (int)s;
}

// bf16_native reports whether the CPU computes bf16 products natively
// (avx512_bf16 or AMX); elsewhere oneDNN emulates them slowly or not at all.
static int bf16_native(void) {
	dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
	return isa == dnnl_cpu_isa_avx512_core_bf16 || isa == dnnl_cpu_isa_avx512_core_amx;
}

// isa_name names the instruction set oneDNN's kernels use: the CPU's best,
// or less where ONEDNN_MAX_CPU_ISA caps it.
static const char *isa_name(void) {
	switch (dnnl_get_effective_cpu_isa()) {
	case dnnl_cpu_isa_sse41: return "SSE4.1";
	case dnnl_cpu_isa_avx: return "AVX";
	case dnnl_cpu_isa_avx2: return "AVX2";
	case dnnl_cpu_isa_avx2_vnni: return "AVX2 VNNI";
	case dnnl_cpu_isa_avx512_mic: return "AVX-512 MIC";
	case dnnl_cpu_isa_avx512_mic_4ops: return "AVX-512 MIC 4OPS";
	case dnnl_cpu_isa_avx512_core: return "AVX-512";
	case dnnl_cpu_isa_avx512_core_vnni: return "AVX-512 VNNI";
	case dnnl_cpu_isa_avx512_core_bf16: return "AVX-512 BF16";
	case dnnl_cpu_isa_avx512_core_amx: return "AVX-512 AMX";
	default: return "";
	}
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// oneDNN runs its kernels on an OpenMP thread team that belongs to the
// calling OS thread; every call therefore goes through one goroutine
// locked to its thread, so that one team serves the whole process.
var dnnl struct {
	once  sync.Once
	calls chan func()
	err   error
}

func dnnlStart() {
	dnnl.calls = make(chan func())
	ready := make(chan error)
	go func() {
		runtime.LockOSThread()
		if s := C.mm_init(); s != 0 {
			ready <- fmt.Errorf("oneDNN: no CPU engine (status %d)", int(s))
			return
		}
		ready <- nil
		for f := range dnnl.calls {
			f()
		}
	}()
	dnnl.err = <-ready
}

var donePool = sync.Pool{New: func() any { return make(chan struct{}, 1) }}

// onDNNLThread runs f on the oneDNN thread and waits for it.
func onDNNLThread(f func()) error {
	dnnl.once.Do(dnnlStart)
	if dnnl.err != nil {
		return dnnl.err
	}
	done := donePool.Get().(chan struct{})
	dnnl.calls <- func() { f(); done <- struct{}{} }
	<-done
	donePool.Put(done)
	return nil
}

// isaText is "; ISA" for the instruction set oneDNN's kernels use, which
// decides how their sums round (ONEDNN_MAX_CPU_ISA caps it), or "" when
// oneDNN names none.
func isaText() string {
	if name := C.GoString(C.isa_name()); name != "" {
		return "; " + name
	}
	return ""
}

func dnnlVersion() string {
	v := C.dnnl_version()
	return fmt.Sprintf("%d.%d.%d", int(v.major), int(v.minor), int(v.patch))
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// dnnlMatmul computes c = op(a) op(b) (+ bias, then ReLU when relu) + beta c
// for row-major float32 matrices; bias is nil or has n entries.
func dnnlMatmul(tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, bias []float32, relu bool, beta float32, c []float32, ldc int) {
	dnnlMatmulAny(false, tA, tB, m, n, k, unsafe.Pointer(&a[0]), lda, unsafe.Pointer(&b[0]), ldb, bias, relu, beta, c, ldc)
}

// dnnlMatmulAny is dnnlMatmul with a and b float32 or (bf) bf16 values.
func dnnlMatmulAny(bf, tA, tB bool, m, n, k int, a unsafe.Pointer, lda int, b unsafe.Pointer, ldb int, bias []float32, relu bool, beta float32, c []float32, ldc int) {
	post := C.int(0)
	var bp *C.float
	if bias != nil {
		post, bp = 1, (*C.float)(unsafe.Pointer(&bias[0]))
		if relu {
			post = 2
		}
	}
	var s C.int
	err := onDNNLThread(func() {
		s = C.mm_run(cbool(bf), cbool(tA), cbool(tB), C.long(m), C.long(n), C.long(k),
			a, C.long(lda), b, C.long(ldb), bp, post, C.float(beta), (*C.float)(unsafe.Pointer(&c[0])), C.long(ldc))
	})
	if err == nil && s != 0 {
		err = fmt.Errorf("oneDNN matmul %dx%dx%d (transposes %v %v): status %d", m, n, k, tA, tB, int(s))
	}
	if err != nil {
		// A primitive oneDNN refuses on this CPU is a build or machine
		// fault, not a data error: stop loudly rather than compute
		// something else.
		panic(err)
	}
}

// dnnlToBF16 rounds the r x c matrix src (leading dimension ld) to bf16
// into the dense r x c dst.
func dnnlToBF16(r, c int, src []float32, ld int, dst []uint16) {
	var s C.int
	err := onDNNLThread(func() {
		s = C.rd_run(C.long(r), C.long(c), (*C.float)(unsafe.Pointer(&src[0])), C.long(ld), unsafe.Pointer(&dst[0]))
	})
	if err == nil && s != 0 {
		err = fmt.Errorf("oneDNN f32->bf16 reorder %dx%d: status %d", r, c, int(s))
	}
	if err != nil {
		panic(err)
	}
}

func init() {
	// libgomp's threads otherwise spin for a while after each parallel
	// region; oneDNN opens one per matrix product, so on a machine whose
	// cores are busy with other work the spinning threads take those cores
	// from it and from the search (README, "Threads on a shared machine").
	loadEnv = append(loadEnv, EnvDefault{Name: "OMP_WAIT_POLICY", Value: "PASSIVE",
		Why: "OpenMP threads sleep between matrix products instead of spinning on cores other work needs"})
	bf16Native = func() bool {
		var ok bool
		if onDNNLThread(func() { ok = C.bf16_native() != 0 }) != nil {
			return false
		}
		return ok
	}
	toBF16 = dnnlToBF16
	gemmBF16 = func(tA, tB bool, m, n, k int, a []uint16, lda int, b []uint16, ldb int, bias []float32, relu bool, beta float32, c []float32, ldc int) {
		dnnlMatmulAny(true, tA, tB, m, n, k, unsafe.Pointer(&a[0]), lda, unsafe.Pointer(&b[0]), ldb, bias, relu, beta, c, ldc)
	}
	matmulName = "oneDNN " + dnnlVersion() + " matmul for float32 (cgo" + isaText() + ")"
	gemm32 = func(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) bool {
		if alpha != 1 {
			return false
		}
		dnnlMatmul(tA, tB, m, n, k, a, lda, b, ldb, nil, false, beta, c, ldc)
		return true
	}
	dense32 = func(m, n, k int, x, w, bias []float32, relu bool, y []float32) {
		dnnlMatmul(false, false, m, n, k, x, k, w, n, bias, relu, 0, y, n)
	}
}
