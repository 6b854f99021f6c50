/* FFN backwards (classic and gated, every activation): every product on the packed GEMM (gemm_ex), the
   activation derivatives in activations.c. */
#include <stddef.h>
#include <string.h>

#include "ffn.h"
#include "internal.h"
#include "simd.h"

/* s (n) += m (n) */
static void add_row(float *s, const float *m, size_t n) {
  size_t j = 0;
  for (; j + 4 <= n; j += 4) f32x4_store(s + j, f32x4_add(f32x4_load(s + j), f32x4_load(m + j)));
  for (; j < n; j++) s[j] += m[j];
}

/* s (n) = the column sums of M (rows,n), each summed over rows in order 0..rows-1 */
static void col_sums(float *s, const float *M, size_t rows, size_t n) {
  if (n) memset(s, 0, n * sizeof(float));
  for (size_t r = 0; r < rows; r++) add_row(s, M + r * n, n);
}

/* dY (T,d), X (T,d), H (T,dff), A (T,dff) = act(H), W2 (dff,d), W1 (d,dff) or NULL -> dW2 (dff,d) = A^T dY,
   then A <- dH = (dY W2^T) * act'(H) (T,dff), db1 (dff) = column sums of dH, dW1 (d,dff) = X^T dH,
   dX (T,d) = dH W1^T. db1 and dX may be NULL; dX needs W1 (unless d or dff is 0). */
FFN_API int ffn_backward_saved(float *dX, float *dW1, float *db1, float *dW2, const float *dY, const float *X,
                               const float *H, float *A, const float *W2, int T, int d, int dff, int act,
                               const float *W1) {
  if (T < 0 || d < 0 || dff < 0 || bad_act(act) || (dX && !W1 && d && dff)) return FFN_EINVAL;
  int st = gemm_ex(dW2, A, 1, dY, 0, dff, T, d, 0);              /* dW2 = A^T dY  (dff,d) */
  if (st == FFN_OK) st = gemm_ex(A, dY, 0, W2, 1, T, d, dff, 0); /* dA = dY W2^T  (T,dff) */
  if (st != FFN_OK) return st;
  if (db1) col_sums(db1, NULL, 0, (size_t)dff);   /* zeros */
  for (size_t r = 0; dff && r < (size_t)T; r++) { /* dH = dA act'(H) and db1 += dH, one pass while the row is in L1 */
    float *a = A + r * dff;
    act_backward(a, a, H + r * dff, dff, act);
    if (db1) add_row(db1, a, (size_t)dff);
  }
  st = gemm_ex(dW1, X, 1, A, 0, d, T, dff, 0);                         /* dW1 = X^T dH  (d,dff) */
  if (st == FFN_OK && dX) st = gemm_ex(dX, A, 0, W1, 1, T, dff, d, 0); /* dX = dH W1^T  (T,d) */
  return st;
}

/* dY (T,d), X (T,d), W1 (d,dff), b1 (dff) or NULL, W2 (dff,d) -> dX (T,d), dW1 (d,dff), db1 (dff), dW2 (dff,d),
   db2 (d). work: H = X W1 + b1 and A = act(H), T*dff floats each; then ffn_backward_saved. */
FFN_API int ffn_backward(float *dX, float *dW1, float *db1, float *dW2, float *db2, const float *dY, const float *X,
                         const float *W1, const float *b1, const float *W2, int T, int d, int dff, int act,
                         float *work) {
  if (T < 0 || d < 0 || dff < 0 || bad_act(act)) return FFN_EINVAL;
  size_t n = (size_t)T * dff, F = (size_t)dff;
  float *H = work, *A = skip(work, n);
  int st = gemm_ex(H, X, 0, W1, 0, T, d, dff, 0); /* H = X W1 + b1 (T,dff) */
  if (st != FFN_OK) return st;
  for (size_t r = 0; F && r < (size_t)T; r++) {
    float *h = H + r * F;
    if (b1) {
      size_t j = 0;
      for (; j + 4 <= F; j += 4) f32x4_store(h + j, f32x4_add(f32x4_load(h + j), f32x4_load(b1 + j)));
      for (; j < F; j++) h[j] += b1[j];
    }
    act_forward(A + r * F, h, dff, act); /* A = act(H), the row still in L1 */
  }
  if (db2) col_sums(db2, dY, (size_t)T, (size_t)d);
  return ffn_backward_saved(dX, dW1, db1, dW2, dY, X, H, A, W2, T, d, dff, act, W1);
}

/* dY (N,d), X (N,d), Wg (d,dff), Wu (d,dff), Wd (dff,d) -> dX (N,d), dWg (d,dff), dWu (d,dff), dWd (dff,d) of
   Y = (act(X Wg) * X Wu) Wd. work: 3*N*dff floats holding G, U and H = act(G)*U (later dH). */
FFN_API int gated_ffn_backward(float *dX, float *dWg, float *dWu, float *dWd, const float *dY, const float *X,
                               const float *Wg, const float *Wu, const float *Wd, int N, int d, int dff, int act,
                               float *work) {
  if (N < 0 || d < 0 || dff < 0 || bad_act(act)) return FFN_EINVAL;
  size_t n = (size_t)N * dff;
  float *G = work, *U = skip(work, n), *H = skip(work, 2 * n);
  int st = gemm_ex(G, X, 0, Wg, 0, N, d, dff, 0);               /* G = X Wg        (N,dff) */
  if (st == FFN_OK) st = gemm_ex(U, X, 0, Wu, 0, N, d, dff, 0); /* U = X Wu        (N,dff) */
  if (st != FFN_OK) return st;
  ffn_gate_mul(H, G, U, n, act);                                 /* H = act(G) U */
  st = gemm_ex(dWd, H, 1, dY, 0, dff, N, d, 0);                  /* dWd = H^T dY    (dff,d) */
  if (st == FFN_OK) st = gemm_ex(H, dY, 0, Wd, 1, N, d, dff, 0); /* dH = dY Wd^T    (N,dff) */
  if (st != FFN_OK) return st;
  ffn_gated_gate_grads(G, U, H, n, act);                         /* G <- dG, U <- dU */
  st = gemm_ex(dWg, X, 1, G, 0, d, N, dff, 0);                   /* dWg = X^T dG    (d,dff) */
  if (st == FFN_OK) st = gemm_ex(dWu, X, 1, U, 0, d, N, dff, 0); /* dWu = X^T dU    (d,dff) */
  if (st == FFN_OK) st = gemm_ex(dX, G, 0, Wg, 1, N, dff, d, 0); /* dX = dG Wg^T    (N,d) */
  if (st == FFN_OK) st = gemm_ex(dX, U, 0, Wu, 1, N, dff, d, 1); /*    + dU Wu^T */
  return st;
}

/* dY (N,d), X (N,d), Wg (d,dff), Wu (d,dff), Wd (dff,d) -> dX (N,d), dWg (d,dff), dWu (d,dff), dWd (dff,d):
   gated_ffn_backward with act SiLU. work: 3*N*dff floats. */
FFN_API int swiglu_backward(float *dX, float *dWg, float *dWu, float *dWd, const float *dY, const float *X,
                            const float *Wg, const float *Wu, const float *Wd, int N, int d, int dff, float *work) {
  return gated_ffn_backward(dX, dWg, dWu, dWd, dY, X, Wg, Wu, Wd, N, d, dff, FFN_ACT_SILU, work);
}
