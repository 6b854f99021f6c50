/* Packed GEMM: B packed once in 8-wide panels, A per call, 4x8 microkernels, read-ahead, fused epilogues. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ffn.h"
#include "internal.h"
#include "simd.h"

#define MR 4 /* rows of A per microkernel tile */
#define NR 8 /* columns of a packed panel: two f32x4 */
#ifndef NC
#define NC 64 /* columns per epilogue group: 8 panels share one activation call per row */
#endif
#ifndef B_L2
#define B_L2 131072 /* floats of packed B (512 KB) taken to stay in L2 */
#endif
#define A_BUDGET 131072 /* floats of packed A kept hot in L2 (512 KB): sets the row block mc */
#ifndef KC
#define KC 768 /* largest K block: a 4 x 768 A strip and a 768 x 8 panel block (36 KB) fit in L1 */
#endif
#ifndef KC_PB
#define KC_PB 384 /* the same with A broadcast (FFN_GEMM_PREBROADCAST): a 4 x 4 x 384 strip, a 384 x 8 panel block */
#endif

/* Keeps clang from hoisting all the A broadcasts of a k step up front (V8 would spill them). */
#if defined(__wasm_simd128__)
#define ORDER_BARRIER() __asm__ volatile("" ::: "memory")
#define SPLAT_LOAD(p) wasm_v128_load32_splat(p)
#else
#define ORDER_BARRIER() ((void)0)
#define SPLAT_LOAD(p) f32x4_splat(*(p))
#endif

static inline int panels(int N) { return (N + NR - 1) / NR; }

/* The microkernel of every packed product (gemm_select_kernel; the loader picks one per engine). */
static int kernel = FFN_GEMM_SPLAT;

FFN_API int gemm_select_kernel(int k) {
  if (k == FFN_GEMM_SPLAT || k == FFN_GEMM_PREBROADCAST) kernel = k;
  return kernel;
}

/* Floats per A value in a packed strip: 1, or 4 when the packing broadcasts it (FFN_GEMM_PREBROADCAST). */
static inline int a_lanes(int k) { return k == FFN_GEMM_PREBROADCAST ? 4 : 1; }

/* ---- packing --------------------------------------------------------------------------------- */

/* Floats of a packed B (K,N): ceil(N/8) panels of K x 8, zero padded. Negative sizes -> -1. */
FFN_API double gemm_packed_size(int K, int N) {
  if (K < 0 || N < 0) return -1;
  return (double)panels(N) * NR * K;
}

/* B (K,N) -> Bp (ceil(N/8), K, 8): panel p holds columns 8p..8p+7, row k contiguous, zero padded.
   Rows go in blocks of 16: B is read row by row (sequentially) and each panel gets 16 rows at once. */
FFN_API int gemm_pack(float *Bp, const float *B, int K, int N) {
  if (K < 0 || N < 0) return FFN_EINVAL;
  int np = panels(N), full = N / NR;
  for (int k0 = 0; k0 < K; k0 += 16) {
    int kb = imin(16, K - k0);
    for (int p = 0; p < np; p++) {
      const float *src = B + (size_t)k0 * N + (size_t)p * NR;
      float *dst = Bp + ((size_t)p * K + k0) * NR;
      if (p < full) {
        for (int k = 0; k < kb; k++, src += N, dst += NR)
          f32x4_store(dst, f32x4_load(src)), f32x4_store(dst + 4, f32x4_load(src + 4));
      } else {
        int nc = N - p * NR;
        for (int k = 0; k < kb; k++, src += N, dst += NR) {
          memcpy(dst, src, (size_t)nc * sizeof(float));
          memset(dst + nc, 0, (size_t)(NR - nc) * sizeof(float));
        }
      }
    }
  }
  return FFN_OK;
}

/* Floats of a packed gate/up pair Wg, Wu (K,N): ceil(N/4) panels of K x 8. Negative sizes -> -1. */
FFN_API double gemm_gated_packed_size(int K, int N) {
  if (K < 0 || N < 0) return -1;
  return (double)((N + 3) / 4) * NR * K;
}

/* Wg (K,N), Wu (K,N) -> Bp (ceil(N/4), K, 8): panel p row k = Wg[k, 4p..4p+3], Wu[k, 4p..4p+3],
   zero padded; one pass of the microkernel then yields a G tile and the matching U tile. */
FFN_API int gemm_gated_pack(float *Bp, const float *Wg, const float *Wu, int K, int N) {
  if (K < 0 || N < 0) return FFN_EINVAL;
  for (int p = 0; p < (N + 3) / 4; p++) {
    int c0 = p * 4, nc = imin(4, N - c0);
    float *dst = Bp + (size_t)p * K * NR;
    for (int k = 0; k < K; k++, dst += NR) {
      memset(dst, 0, NR * sizeof(float));
      memcpy(dst, Wg + (size_t)k * N + c0, (size_t)nc * sizeof(float));
      memcpy(dst + 4, Wu + (size_t)k * N + c0, (size_t)nc * sizeof(float));
    }
  }
  return FFN_OK;
}

/* The 4 values of strip row k, each written once (lanes 1) or four times (lanes 4, a broadcast f32x4). */
static inline void put_k(float *dst, int lanes, float a0, float a1, float a2, float a3) {
  if (lanes == 1) {
    dst[0] = a0, dst[1] = a1, dst[2] = a2, dst[3] = a3;
    return;
  }
  f32x4_store(dst, f32x4_splat(a0)), f32x4_store(dst + 4, f32x4_splat(a1));
  f32x4_store(dst + 8, f32x4_splat(a2)), f32x4_store(dst + 12, f32x4_splat(a3));
}

/* rows i0..i0+mr-1 of op(A) (.,K) -> Ap (ceil(mr/4), K, 4 * lanes): strip s row k = op(A)[i0+4s .. +3, k],
   each value lanes times (1, or 4 for FFN_GEMM_PREBROADCAST), zero padded. op(A)[i,k] = A[i*lda + k], or
   A[k*lda + i] when transA (A^T read in place). */
static void pack_a(float *Ap, const float *A, int transA, int lda, int K, int i0, int mr, int lanes) {
  if (K == 0) return;            /* nothing to pack (A may be NULL) */
  size_t w = (size_t)MR * lanes; /* floats per strip row */
  for (int s = 0; s < mr; s += MR) {
    int rows = imin(MR, mr - s);
    float *dst = Ap + (size_t)s * K * lanes;
    if (transA) { /* the 4 rows of a strip are 4 consecutive floats of each row k of A */
      const float *a = A + i0 + s;
      for (int k = 0; k < K; k++, dst += w, a += lda) {
        float v[MR];
        for (int r = 0; r < MR; r++) v[r] = r < rows ? a[r] : 0.0f;
        put_k(dst, lanes, v[0], v[1], v[2], v[3]);
      }
      continue;
    }
    const float *a = A + (size_t)(i0 + s) * lda;
    if (rows == MR) {
      const float *a0 = a, *a1 = a + lda, *a2 = a + 2 * (size_t)lda, *a3 = a + 3 * (size_t)lda;
      for (int k = 0; k < K; k++, dst += w) put_k(dst, lanes, a0[k], a1[k], a2[k], a3[k]);
    } else {
      for (int k = 0; k < K; k++, dst += w) {
        float v[MR];
        for (int r = 0; r < MR; r++) v[r] = r < rows ? a[(size_t)r * lda + k] : 0.0f;
        put_k(dst, lanes, v[0], v[1], v[2], v[3]);
      }
    }
  }
}

/* Rows of A per block: the packed block (mc x K) stays within A_BUDGET floats (4 times that when the
   packing broadcasts A: fewer rows per block, each panel group read from L3 more often, ran slower). */
static int row_block(int M, int K) {
  int mc = K > 0 ? A_BUDGET / K : M;
  mc = mc / MR * MR;
  if (mc < MR) mc = MR;
  return imin(mc, (M + MR - 1) / MR * MR);
}

/* K block: K split evenly into ceil(K/kmax) blocks (no short last block). */
static int k_block(int K, int kmax) {
  int nk = (K + kmax - 1) / kmax;
  return nk > 1 ? (K + nk - 1) / nk : K;
}

/* Floats of packed A a call needs: the K-blocked GEMM (either block size) or the unblocked gated one, each A
   value four times (FFN_GEMM_PREBROADCAST) whichever microkernel is selected, so the size never depends on it. */
static size_t a_floats(int M, int K) {
  static const int kmax[2] = {KC, KC_PB};
  size_t most = (size_t)row_block(M, K) * K;
  for (int i = 0; i < 2; i++) {
    int kc = k_block(K, kmax[i]);
    size_t blocked = (size_t)row_block(M, kc) * kc;
    if (blocked > most) most = blocked;
  }
  return 4 * most + (size_t)MR * NC;
}

/* Scratch floats gemm_forward / gemm_gated_forward need for A (M,K). Negative sizes -> -1. */
FFN_API double gemm_work_size(int M, int K) {
  if (M < 0 || K < 0) return -1;
  if (M <= 1) return 0; /* the GEMV path reads A in place */
  return (double)a_floats(M, K) + ALIGN_SLACK;
}

/* ---- microkernels ---------------------------------------------------------------------------- */

/* Ap strip @ Bp (K,8) panel -> acc (4 rows x 2 f32x4), sums in order k = 0..K-1 from zero, or from acc
   (resume: the sums of earlier K blocks). The strip holds K rows
   of lanes * 4 floats: row values (lanes 1), broadcast by load32_splat here, or each value already in all
   four lanes (lanes 4, FFN_GEMM_PREBROADCAST), loaded whole. Inlined into each microkernel with a constant
   lanes, so each loop has only its own loads. */
static inline void ukr_body(const float *Ap, const float *Bp, int K, f32x4 acc[MR][2], int lanes, int resume) {
  f32x4 c00 = f32x4_splat(0.0f), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
  if (resume) {
    c00 = acc[0][0], c01 = acc[0][1], c10 = acc[1][0], c11 = acc[1][1];
    c20 = acc[2][0], c21 = acc[2][1], c30 = acc[3][0], c31 = acc[3][1];
  }
#define A_ROW(r) (lanes == 1 ? SPLAT_LOAD(Ap + (r)) : f32x4_load(Ap + 4 * (r)))
  for (int k = 0; k < K; k++, Ap += MR * lanes, Bp += NR) {
    f32x4 b0 = f32x4_load(Bp), b1 = f32x4_load(Bp + 4), a;
    a = A_ROW(0);
    c00 = f32x4_madd(c00, a, b0), c01 = f32x4_madd(c01, a, b1);
    ORDER_BARRIER();
    a = A_ROW(1);
    c10 = f32x4_madd(c10, a, b0), c11 = f32x4_madd(c11, a, b1);
    ORDER_BARRIER();
    a = A_ROW(2);
    c20 = f32x4_madd(c20, a, b0), c21 = f32x4_madd(c21, a, b1);
    ORDER_BARRIER();
    a = A_ROW(3);
    c30 = f32x4_madd(c30, a, b0), c31 = f32x4_madd(c31, a, b1);
  }
#undef A_ROW
  acc[0][0] = c00, acc[0][1] = c01, acc[1][0] = c10, acc[1][1] = c11;
  acc[2][0] = c20, acc[2][1] = c21, acc[3][0] = c30, acc[3][1] = c31;
}

/* The microkernels are functions of their own, not inlined into the loop nests: SpiderMonkey's register
   allocation of the inlined loop ran the GEMM at 0.55 of its peak loop, the call at 1.0 (V8 and
   JavaScriptCore run both alike). FFN_GEMM_SPLAT: Ap (K,4), four v128.load32_splat per k. */
static __attribute__((noinline)) void ukr_4x8(const float *Ap, const float *Bp, int K, f32x4 acc[MR][2], int resume) {
  ukr_body(Ap, Bp, K, acc, 1, resume);
}

/* FFN_GEMM_PREBROADCAST: Ap (K,4,4), four v128.load per k. JavaScriptCore compiles a load32_splat at an
   address offset into a scalar load, a move and a shuffle; a v128.load keeps its offset. */
static __attribute__((noinline)) void ukr_4x8_pb(const float *Ap, const float *Bp, int K, f32x4 acc[MR][2],
                                                 int resume) {
  ukr_body(Ap, Bp, K, acc, 4, resume);
}

/* The selected microkernel on strip Ap (packed with lanes a_lanes(k)) and panel Bp. */
static inline void ukr(int k, const float *Ap, const float *Bp, int K, f32x4 acc[MR][2], int resume) {
  if (k == FFN_GEMM_PREBROADCAST)
    ukr_4x8_pb(Ap, Bp, K, acc, resume);
  else
    ukr_4x8(Ap, Bp, K, acc, resume);
}

/* x (K) @ np consecutive panels of Bp (each K x 8) -> out (np*8). Four panels stream at once (four
   read streams keep more memory requests in flight than one); each lane sums in order k = 0..K-1. */
static void gemv_panels(float *out, const float *x, const float *Bp, int K, int np) {
  size_t S = (size_t)K * NR;
  int p = 0;
  for (; p + 4 <= np; p += 4, out += 4 * NR) {
    const float *B = Bp + (size_t)p * S;
    f32x4 z = f32x4_splat(0.0f), s0 = z, s1 = z, t0 = z, t1 = z, u0 = z, u1 = z, v0 = z, v1 = z;
    for (int k = 0; k < K; k++, B += NR) {
      f32x4 a = SPLAT_LOAD(x + k);
      s0 = f32x4_madd(s0, a, f32x4_load(B)), s1 = f32x4_madd(s1, a, f32x4_load(B + 4));
      t0 = f32x4_madd(t0, a, f32x4_load(B + S)), t1 = f32x4_madd(t1, a, f32x4_load(B + S + 4));
      u0 = f32x4_madd(u0, a, f32x4_load(B + 2 * S)), u1 = f32x4_madd(u1, a, f32x4_load(B + 2 * S + 4));
      v0 = f32x4_madd(v0, a, f32x4_load(B + 3 * S)), v1 = f32x4_madd(v1, a, f32x4_load(B + 3 * S + 4));
    }
    f32x4_store(out, s0), f32x4_store(out + 4, s1), f32x4_store(out + 8, t0), f32x4_store(out + 12, t1);
    f32x4_store(out + 16, u0), f32x4_store(out + 20, u1), f32x4_store(out + 24, v0), f32x4_store(out + 28, v1);
  }
  for (; p < np; p++, out += NR) { /* leftover panels one at a time */
    const float *B = Bp + (size_t)p * S;
    f32x4 s0 = f32x4_splat(0.0f), s1 = s0;
    for (int k = 0; k < K; k++, B += NR) {
      f32x4 a = SPLAT_LOAD(x + k);
      s0 = f32x4_madd(s0, a, f32x4_load(B)), s1 = f32x4_madd(s1, a, f32x4_load(B + 4));
    }
    f32x4_store(out, s0), f32x4_store(out + 4, s1);
  }
}

/* ---- read-ahead ------------------------------------------------------------------------------ */

/* While one panel group computes, the next is read one word per 64-byte line, a few lines after each
   microkernel call, so its first row strip finds it in cache (wasm has no prefetch instruction). */
#define AHEAD_LINES 12     /* lines read per call at most: more stalls the core on the misses */
#define AHEAD_MIN_STRIPS 8 /* fewer row strips per group: the reads cost more than they save */
typedef struct {
  const float *base; /* the packed B */
  size_t at;         /* offset of the current segment */
  size_t stride;     /* floats from one segment to the next */
  size_t len;        /* floats per segment */
  size_t off;        /* next float to read in the segment */
  size_t per;        /* lines read per step */
  int segs;          /* segments left (0: nothing to read) */
  uint32_t sink;     /* the words read, kept live so the loads stay */
} ahead_t;

/* segs segments of len floats at base + at, base + at + stride, ..., read over a group of strips row
   strips with calls microkernel calls each; nothing when the group has too few strips. */
static inline ahead_t ahead_start(const float *base, size_t at, size_t stride, size_t len, int segs, int strips,
                                  int calls) {
  size_t lines = (size_t)segs * ((len + 15) / 16), steps = (size_t)strips * calls;
  size_t per = steps ? (lines + steps - 1) / steps : 0;
  ahead_t a = {
      base, at, stride, len, 0, per < AHEAD_LINES ? per : AHEAD_LINES, len && strips >= AHEAD_MIN_STRIPS ? segs : 0, 0};
  return a;
}

static inline void ahead_step(ahead_t *a) {
  for (size_t n = a->per; n && a->segs; n--) {
    uint32_t u;
    memcpy(&u, a->base + a->at + a->off, sizeof u);
    a->sink |= u;
    if ((a->off += 16) >= a->len) a->off = 0, a->at += a->stride, a->segs--;
  }
}

/* Keeps the read-ahead loads: their words feed an empty asm statement. */
static inline void ahead_keep(const ahead_t *a) { __asm__ volatile("" : : "r"(a->sink)); }

/* ---- epilogues ------------------------------------------------------------------------------- */

/* The sums earlier K blocks left in rows x cols of C (ldc) -> acc, for the microkernel to resume. */
static inline void resume_tile(f32x4 acc[MR][2], const float *C, int ldc, int rows, int cols) {
  if (rows < MR || cols < NR) {
    float t[MR * NR] = {0};
    for (int r = 0; r < rows; r++) memcpy(t + r * NR, C + (size_t)r * ldc, (size_t)cols * sizeof(float));
    for (int r = 0; r < MR; r++) acc[r][0] = f32x4_load(t + r * NR), acc[r][1] = f32x4_load(t + r * NR + 4);
    return;
  }
  for (int r = 0; r < MR; r++)
    acc[r][0] = f32x4_load(C + (size_t)r * ldc), acc[r][1] = f32x4_load(C + (size_t)r * ldc + 4);
}

/* Stores rows x cols of a 4x8 tile (plus bias) into C (ldc); full tiles go straight from registers. */
static inline void store_tile(float *C, int ldc, f32x4 acc[MR][2], const float *bias, int rows, int cols,
                              int accumulate) {
  if (bias) {
    float bb[NR] = {0};
    memcpy(bb, bias, (size_t)cols * sizeof(float));
    f32x4 b0 = f32x4_load(bb), b1 = f32x4_load(bb + 4);
    for (int r = 0; r < MR; r++) acc[r][0] = f32x4_add(acc[r][0], b0), acc[r][1] = f32x4_add(acc[r][1], b1);
  }
  if (rows == MR && cols == NR) {
    for (int r = 0; r < MR; r++) {
      float *c = C + (size_t)r * ldc;
      if (accumulate)
        acc[r][0] = f32x4_add(f32x4_load(c), acc[r][0]), acc[r][1] = f32x4_add(f32x4_load(c + 4), acc[r][1]);
      f32x4_store(c, acc[r][0]);
      f32x4_store(c + 4, acc[r][1]);
    }
  } else {
    float t[MR * NR];
    for (int r = 0; r < MR; r++) f32x4_store(t + r * NR, acc[r][0]), f32x4_store(t + r * NR + 4, acc[r][1]);
    for (int r = 0; r < rows; r++) {
      float *c = C + (size_t)r * ldc;
      if (accumulate)
        for (int j = 0; j < cols; j++) c[j] += t[r * NR + j];
      else
        memcpy(c, t + r * NR, (size_t)cols * sizeof(float));
    }
  }
}

/* ---- GEMM -------------------------------------------------------------------------------------- */

/* op(A) (M,K) @ B (K,N) + bias (N) -> act(.) -> C (M,N) (or C += that if accumulate, act identity),
   B packed. op(A) as in pack_a. work: gemm_work_size(M,K) floats. */
static void gemm_run(float *C, const float *A, int transA, int lda, const float *Bp, const float *bias, int M, int K,
                     int N, int act, int accumulate, float *work) {
  if (K == 0) { /* empty sums (A and B may be NULL): C = act(bias), or C unchanged when accumulating */
    if (accumulate) return;
    for (int i = 0; i < M; i++) {
      float *c = C + (size_t)i * N;
      if (bias)
        memcpy(c, bias, (size_t)N * sizeof(float));
      else
        memset(c, 0, (size_t)N * sizeof(float));
      if (act != FFN_ACT_IDENTITY) act_forward(c, c, N, act);
    }
    return;
  }
  if (M == 1 && !transA && !accumulate) { /* GEMV: stream the panels once, NC columns at a time */
    float t[NC];
    for (int j0 = 0; j0 < N; j0 += NC) {
      int nb = imin(NC, N - j0);
      gemv_panels(t, A, Bp + (size_t)(j0 / NR) * K * NR, K, panels(nb));
      if (bias)
        for (int j = 0; j < nb; j++) C[j0 + j] = t[j] + bias[j0 + j];
      else
        memcpy(C + j0, t, (size_t)nb * sizeof(float));
      if (act != FFN_ACT_IDENTITY) act_forward(C + j0, C + j0, nb, act);
    }
    return;
  }
  /* K in blocks when K is large: a block of the A strip and of the B panel then stay in L1. Later blocks resume
     the sums C holds (in order k = 0..K-1, as the reference); the bias and the activation go with the last. When
     accumulating, each block adds its own sums into C (the bias with the first), in blocks of KC for both
     microkernels, so that both give the same bits. */
  int uk = kernel, lanes = a_lanes(uk), kc = k_block(K, lanes == 4 && !accumulate ? KC_PB : KC);
  /* prebroadcast with a packed B (of the K block) that stays in L2: one strip at a time, packed into L1 and run
     across all of B (a block of strips, 4x the floats of A, would go out to L3 and come back once per group) */
  int mc = lanes == 4 && (size_t)panels(N) * NR * kc <= B_L2 ? MR : row_block(M, kc);
  float *Ap = align64(work);
  for (int k0 = 0; k0 < K; k0 += kc) { /* K >= 1 here: K == 0 returned above */
    int kb = imin(kc, K - k0), first = k0 == 0, last = k0 + kb >= K, resume = !first && !accumulate;
    const float *Ak = k0 ? A + (transA ? (size_t)k0 * lda : (size_t)k0) : A;
    for (int i0 = 0; i0 < M; i0 += mc) {
      int mb = imin(mc, M - i0);
      pack_a(Ap, Ak, transA, lda, kb, i0, mb, lanes);
      for (int j0 = 0; j0 < N; j0 += NC) { /* a group of panels: the activation runs on L1-hot rows */
        int nb = imin(NC, N - j0);
        /* the group computed next: the next panels, else the first ones of the next row or K block */
        int jn = j0 + NC < N ? j0 + NC : 0, kn = j0 + NC < N || i0 + mc < M ? k0 : k0 + kb;
        ahead_t ah =
            ahead_start(Bp, (size_t)(jn / NR) * K * NR + (size_t)kn * NR, (size_t)K * NR, (size_t)imin(kc, K - kn) * NR,
                        panels(imin(NC, N - jn)), (mb + MR - 1) / MR, panels(nb));
        for (int s = 0; s < mb; s += MR) {
          int rows = imin(MR, mb - s);
          float *Crow = C + (size_t)(i0 + s) * N;
          for (int c0 = j0; c0 < j0 + nb; c0 += NR) {
            f32x4 acc[MR][2];
            int cols = imin(NR, N - c0);
            if (resume) resume_tile(acc, Crow + c0, N, rows, cols);
            ukr(uk, Ap + (size_t)s * kb * lanes, Bp + (size_t)(c0 / NR) * K * NR + (size_t)k0 * NR, kb, acc, resume);
            ahead_step(&ah);
            store_tile(Crow + c0, N, acc, bias && (accumulate ? first : last) ? bias + c0 : NULL, rows, cols,
                       accumulate);
          }
          if (last && act != FFN_ACT_IDENTITY)
            for (int r = 0; r < rows; r++) act_forward(Crow + (size_t)r * N + j0, Crow + (size_t)r * N + j0, nb, act);
        }
        ahead_keep(&ah);
      }
    }
  }
}

/* A (M,K) @ B (K,N) + bias (N) -> act(.) -> C (M,N), B given packed by gemm_pack. bias may be NULL.
   work: gemm_work_size(M,K) floats. C must not alias A. */
FFN_API int gemm_forward(float *C, const float *A, const float *Bp, const float *bias, int M, int K, int N, int act,
                         float *work) {
  if (M < 0 || K < 0 || N < 0 || bad_act(act)) return FFN_EINVAL;
  if (M == 0 || N == 0) return FFN_OK;
  gemm_run(C, A, 0, K, Bp, bias, M, K, N, act, 0, work);
  return FFN_OK;
}

/* op(B) (K,N) -> Bp panels as gemm_pack; op(B)[k,n] = B[k*N + n], or B[n*K + k] when transB. */
static void pack_b(float *Bp, const float *B, int transB, int K, int N) {
  if (K == 0) return; /* nothing to pack (B may be NULL) */
  if (!transB) {
    gemm_pack(Bp, B, K, N);
    return;
  }
  for (int p = 0; p < panels(N); p++) { /* eight rows of the stored B read side by side */
    float *dst = Bp + (size_t)p * K * NR;
    const float *b[NR];
    int nc = imin(NR, N - p * NR);
    for (int j = 0; j < NR; j++) b[j] = B + (size_t)(p * NR + (j < nc ? j : 0)) * K;
    for (int k = 0; k < K; k++, dst += NR)
      for (int j = 0; j < NR; j++) dst[j] = j < nc ? b[j][k] : 0.0f;
  }
}

/* op(A) (M,K) @ op(B) (K,N) -> C (M,N), or C += op(A) @ op(B) when accumulate. op(A) = A stored (M,K),
   or A^T with A stored (K,M) when transA; op(B) = B stored (K,N), or B^T with B stored (N,K) when
   transB. Transposed operands are read in place by the packing (no transposed copy). Packs op(B)
   into its own buffer per call: returns FFN_ENOMEM if that cannot be allocated. C must not alias. */
FFN_API int gemm_ex(float *C, const float *A, int transA, const float *B, int transB, int M, int K, int N,
                    int accumulate) {
  if (M < 0 || K < 0 || N < 0) return FFN_EINVAL;
  if (M == 0 || N == 0) return FFN_OK;
  float *buf = malloc((size_t)gemm_ex_work_size(M, K, N) * sizeof(float));
  if (!buf) return FFN_ENOMEM;
  gemm_ex_w(C, A, transA, B, transB, M, K, N, accumulate, buf);
  free(buf);
  return FFN_OK;
}

/* Scratch floats of gemm_ex_w: op(B) packed (64-byte aligned), then the A strips. Negative sizes -> -1. */
FFN_API double gemm_ex_work_size(int M, int K, int N) {
  if (M < 0 || K < 0 || N < 0) return -1;
  return (double)(round16((size_t)panels(N) * NR * K) + a_floats(M, K) + 2 * ALIGN_SLACK);
}

/* gemm_ex on caller scratch: work holds gemm_ex_work_size(M,K,N) floats; allocates nothing. */
FFN_API int gemm_ex_w(float *C, const float *A, int transA, const float *B, int transB, int M, int K, int N,
                      int accumulate, float *work) {
  if (M < 0 || K < 0 || N < 0) return FFN_EINVAL;
  if (M == 0 || N == 0) return FFN_OK;
  size_t nb = round16((size_t)panels(N) * NR * K);
  float *Bp = align64(work);
  pack_b(Bp, B, transB, K, N);
  gemm_run(C, A, transA, transA ? M : K, Bp, NULL, M, K, N, FFN_ACT_IDENTITY, accumulate, Bp + nb);
  return FFN_OK;
}

/* A (M,K) @ Wg (K,N) -> G, A @ Wu (K,N) -> U, H (M,N) = act(G) * U, with Wg, Wu given packed by
   gemm_gated_pack: one pass over A computes the G and U tiles together; G and U never reach memory
   beyond an L1 tile. work: gemm_work_size(M,K) floats. H must not alias A. */
FFN_API int gemm_gated_forward(float *H, const float *A, const float *Bp, int M, int K, int N, int act, float *work) {
  if (M < 0 || K < 0 || N < 0 || bad_act(act)) return FFN_EINVAL;
  if (M == 0 || N == 0) return FFN_OK;
  if (M == 1) { /* GEMV over the interleaved panels: each gives 4 gate and 4 up columns */
    float t[NC], g[NC / 2], u[NC / 2];
    for (int j0 = 0; j0 < N; j0 += NC / 2) {
      int nb = imin(NC / 2, N - j0), np = (nb + 3) / 4;
      gemv_panels(t, A, Bp + (size_t)(j0 / 4) * K * NR, K, np);
      for (int q = 0; q < np; q++)
        memcpy(g + 4 * q, t + NR * q, 4 * sizeof(float)), memcpy(u + 4 * q, t + NR * q + 4, 4 * sizeof(float));
      ffn_gate_mul(H + j0, g, u, (size_t)nb, act);
    }
    return FFN_OK;
  }
  int uk = kernel, lanes = a_lanes(uk), mc = row_block(M, K);
  float *Ap = align64(work), *U = Ap + round16((size_t)mc * K * lanes); /* U: MR x NC/2 floats, L1 resident */
  for (int i0 = 0; i0 < M; i0 += mc) {
    int mb = imin(mc, M - i0);
    pack_a(Ap, A, 0, K, K, i0, mb, lanes);
    for (int j0 = 0; j0 < N; j0 += NC / 2) {
      int nb = imin(NC / 2, N - j0);
      /* the group computed next (as in gemm_run): one contiguous run of panels */
      int jn = j0 + NC / 2 < N ? j0 + NC / 2 : 0, more = j0 + NC / 2 < N || i0 + mc < M;
      ahead_t ah = ahead_start(Bp, (size_t)(jn / 4) * K * NR, 0, (size_t)(imin(NC / 2, N - jn) + 3) / 4 * K * NR, more,
                               (mb + MR - 1) / MR, (nb + 3) / 4);
      for (int s = 0; s < mb; s += MR) {
        int rows = imin(MR, mb - s);
        float *Hrow = H + (size_t)(i0 + s) * N;
        for (int c = 0; c < nb; c += 4) {
          f32x4 acc[MR][2];
          ukr(uk, Ap + (size_t)s * K * lanes, Bp + (size_t)((j0 + c) / 4) * K * NR, K, acc, 0);
          ahead_step(&ah);
          float t[MR * NR];
          for (int r = 0; r < MR; r++) f32x4_store(t + r * NR, acc[r][0]), f32x4_store(t + r * NR + 4, acc[r][1]);
          int cols = imin(4, nb - c);
          for (int r = 0; r < rows; r++) {
            memcpy(Hrow + (size_t)r * N + j0 + c, t + r * NR, (size_t)cols * sizeof(float));
            memcpy(U + r * (NC / 2) + c, t + r * NR + 4, (size_t)cols * sizeof(float));
          }
        }
        for (int r = 0; r < rows; r++)
          ffn_gate_mul(Hrow + (size_t)r * N + j0, Hrow + (size_t)r * N + j0, U + r * (NC / 2), (size_t)nb, act);
      }
      ahead_keep(&ah);
    }
  }
  return FFN_OK;
}
