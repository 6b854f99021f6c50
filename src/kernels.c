/* f32x4 matrix kernels: matmul, classic and gated FFN, key-value memories. */
#include <stddef.h>
#include <string.h>

#include "ffn.h"
#include "internal.h"
#include "simd.h"

/* ---- building blocks ---------------------------------------------------- */

/* p (n) = 0; p may be NULL when n == 0 */
static inline void zero(float *p, size_t n) {
  if (n) memset(p, 0, n * sizeof(float));
}

/* mm_nn stays out of line (one copy for its two call sites) to keep the module small */
#define NOINLINE __attribute__((noinline))

/* c (n) += a * b (n) */
static inline void axpy(float *c, float a, const float *b, size_t n) {
  f32x4 va = f32x4_splat(a);
  size_t j = 0;
  for (; j + 4 <= n; j += 4) f32x4_store(c + j, f32x4_add(f32x4_load(c + j), f32x4_mul(va, f32x4_load(b + j))));
  for (; j < n; j++) c[j] += a * b[j];
}

/* A (M,K) @ B (K,N) [+ bias (N)] -> C (M,N), i-k-j order: each C[i,j] sums its K products in
   order k = 0..K-1 in float, then adds the bias, exactly as the scalar reference does. */
static NOINLINE void mm_nn(float *C, const float *A, const float *B, const float *bias, size_t M, size_t K, size_t N) {
  if (N == 0) return; /* nothing to write: A and B need not be read */
  for (size_t i = 0; i < M; i++) {
    float *c = C + i * N;
    zero(c, N);
    for (size_t k = 0; k < K; k++) axpy(c, A[i * K + k], B + k * N, N);
    if (bias) {
      size_t j = 0;
      for (; j + 4 <= N; j += 4) f32x4_store(c + j, f32x4_add(f32x4_load(c + j), f32x4_load(bias + j)));
      for (; j < N; j++) c[j] += bias[j];
    }
  }
}

/* Products with at least GEMM_MIN_ROWS rows and GEMM_MIN_WORK multiply-adds run on the packed GEMM
   (gemm.c), which repays its packing from there on; smaller ones stay on mm_nn, which allocates
   nothing. Either way each C[i,j] is the float sum of its K products, then the bias. */
#define GEMM_MIN_ROWS 4
#define GEMM_MIN_WORK ((size_t)1 << 18)

/* A (M,K) @ B (K,N) [+ bias (N)] -> C (M,N) on whichever kernel suits the size; FFN_ENOMEM if the
   GEMM's packing buffer cannot be allocated (C is then unspecified). */
static int mm(float *C, const float *A, const float *B, const float *bias, size_t M, size_t K, size_t N) {
  if (M < GEMM_MIN_ROWS || M * K * N < GEMM_MIN_WORK) {
    mm_nn(C, A, B, bias, M, K, N);
    return FFN_OK;
  }
  int st = gemm_ex(C, A, 0, B, 0, (int)M, (int)K, (int)N, 0);
  if (st != FFN_OK || !bias) return st;
  for (size_t i = 0; i < M; i++) {
    float *c = C + i * N;
    size_t j = 0;
    for (; j + 4 <= N; j += 4) f32x4_store(c + j, f32x4_add(f32x4_load(c + j), f32x4_load(bias + j)));
    for (; j < N; j++) c[j] += bias[j];
  }
  return FFN_OK;
}

/* ---- exported kernels --------------------------------------------------- */

/* A (M,K) @ B (K,N) -> C (M,N). C must not alias A or B. K = 0 gives zeros. */
FFN_API int matmul_forward(float *C, const float *A, const float *B, int M, int K, int N) {
  if (M < 0 || K < 0 || N < 0) return FFN_EINVAL;
  return mm(C, A, B, NULL, (size_t)M, (size_t)K, (size_t)N);
}

/* X (T,d) @ W1 (d,dff) + b1 (dff) -> H (T,dff) in work; phi(H) @ W2 (dff,d) + b2 (d) -> Y (T,d).
   b1, b2 may be NULL. work: T*dff floats. */
FFN_API int ffn_forward(float *Y, const float *X, const float *W1, const float *b1, const float *W2, const float *b2,
                        int T, int d, int dff, int act, float *work) {
  if (T < 0 || d < 0 || dff < 0 || bad_act(act)) return FFN_EINVAL;
  size_t t = (size_t)T, D = (size_t)d, F = (size_t)dff;
  int st = mm(work, X, W1, b1, t, D, F);
  if (st != FFN_OK) return st;
  for (size_t i = 0; i < t && F > 0; i++) act_forward(work + i * F, work + i * F, dff, act);
  return mm(Y, work, W2, b2, t, F, D);
}

/* X (T,d) @ Wg (d,dff) -> G, X @ Wu (d,dff) -> U; (phi(G) * U) (T,dff) @ Wd (dff,d) -> Y (T,d).
   No biases. work: 2*T*dff floats (G, then U overwritten by phi(G)*U in one fused pass). */
FFN_API int gated_ffn_forward(float *Y, const float *X, const float *Wg, const float *Wu, const float *Wd, int T, int d,
                              int dff, int act, float *work) {
  if (T < 0 || d < 0 || dff < 0 || bad_act(act)) return FFN_EINVAL;
  size_t t = (size_t)T, D = (size_t)d, F = (size_t)dff;
  float *G = work, *U = skip(work, t * F);
  int st = mm(G, X, Wg, NULL, t, D, F);
  if (st == FFN_OK) st = mm(U, X, Wu, NULL, t, D, F);
  if (st != FFN_OK) return st;
  ffn_gate_mul(U, G, U, t * F, act);
  return mm(Y, U, Wd, NULL, t, F, D);
}

/* ---- key-value memories ------------------------------------------------- */

/* strict total order of memories: larger coef first, NaN above every number (as torch.topk),
   equal values by lower index */
static inline int ranks_before(const float *c, int32_t i, int32_t j) {
  float a = c[i], b = c[j];
  int an = a != a, bn = b != b;
  if (an || bn) return an && bn ? i < j : an;
  return a > b || (a == b && i < j);
}

/* sift down in a heap whose root is the memory ranked last */
static void sift_down(int32_t *h, size_t len, size_t r, const float *c) {
  for (;;) {
    size_t l = 2 * r + 1, w = r;
    if (l < len && ranks_before(c, h[w], h[l])) w = l;
    if (l + 1 < len && ranks_before(c, h[w], h[l + 1])) w = l + 1;
    if (w == r) return;
    int32_t tmp = h[r];
    h[r] = h[w], h[w] = tmp, r = w;
  }
}

/* x (d) @ W1 (d,dff) + b1 (dff) -> coef (dff) = relu(.); top (k): the k largest coef, largest
   first, ties by lower index; partial (d) = sum over top, in that order, of coef_i W2[i,:]
   with W2 (dff,d). b1 may be NULL. Requires 0 <= k <= dff. */
FFN_API int ffn_memories(float *coef, int32_t *top, float *partial, const float *x, const float *W1, const float *b1,
                         const float *W2, int d, int dff, int k) {
  if (d < 0 || dff < 0 || k < 0 || k > dff) return FFN_EINVAL;
  size_t D = (size_t)d, F = (size_t)dff, K = (size_t)k;
  mm_nn(coef, x, W1, b1, 1, D, F);
  act_forward(coef, coef, dff, FFN_ACT_RELU);
  /* top-k by a heap of the k best seen so far, rooted at the worst of them; then heap sort */
  for (size_t i = 0; i < K; i++) top[i] = (int32_t)i;
  for (size_t r = K / 2; r-- > 0;) sift_down(top, K, r, coef);
  for (size_t i = K; i < F && K > 0; i++)
    if (ranks_before(coef, (int32_t)i, top[0])) top[0] = (int32_t)i, sift_down(top, K, 0, coef);
  for (size_t len = K; len > 1; len--) { /* move the worst to the end: best ends up first */
    int32_t tmp = top[0];
    top[0] = top[len - 1], top[len - 1] = tmp;
    sift_down(top, len - 1, 0, coef);
  }
  zero(partial, D);
  for (size_t r = 0; r < K && D > 0; r++) axpy(partial, coef[top[r]], W2 + (size_t)top[r] * D, D);
  return FFN_OK;
}
