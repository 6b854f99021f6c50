/* SwiGLU backward: every product on the packed GEMM (gemm_ex), the gate's gradients in activations.c. */
#include <stddef.h>

#include "ffn.h"
#include "internal.h"

/* dY (N,d), X (N,d), Wg (d,dff), Wu (d,dff), Wd (dff,d) -> dX (N,d), dWg (d,dff), dWu (d,dff),
   dWd (dff,d), with every product on gemm_ex (transposes read in place). work: 3*N*dff floats
   holding G, U and H = silu(G)*U (later dH). FFN_ENOMEM if a packing buffer cannot be allocated. */
FFN_API int swiglu_backward(float *dX, float *dWg, float *dWu, float *dWd, const float *dY, const float *X,
                            const float *Wg, const float *Wu, const float *Wd, int N, int d, int dff, float *work) {
  if (N < 0 || d < 0 || dff < 0) return FFN_EINVAL;
  size_t n = (size_t)N * dff;
  float *G = work, *U = skip(work, n), *H = skip(work, 2 * n);
  int st = gemm_ex(G, X, 0, Wg, 0, N, d, dff, 0);               /* G = X Wg        (N,dff) */
  if (st == FFN_OK) st = gemm_ex(U, X, 0, Wu, 0, N, d, dff, 0); /* U = X Wu        (N,dff) */
  if (st != FFN_OK) return st;
  ffn_gate_mul(H, G, U, n, FFN_ACT_SILU);                        /* H = silu(G) U */
  st = gemm_ex(dWd, H, 1, dY, 0, dff, N, d, 0);                  /* dWd = H^T dY    (dff,d) */
  if (st == FFN_OK) st = gemm_ex(H, dY, 0, Wd, 1, N, d, dff, 0); /* dH = dY Wd^T    (N,dff) */
  if (st != FFN_OK) return st;
  ffn_swiglu_gate_grads(G, U, H, n);                             /* G <- dG, U <- dU */
  st = gemm_ex(dWg, X, 1, G, 0, d, N, dff, 0);                   /* dWg = X^T dG    (d,dff) */
  if (st == FFN_OK) st = gemm_ex(dWu, X, 1, U, 0, d, N, dff, 0); /* dWu = X^T dU    (d,dff) */
  if (st == FFN_OK) st = gemm_ex(dX, G, 0, Wg, 1, N, dff, d, 0); /* dX = dG Wg^T    (N,d) */
  if (st == FFN_OK) st = gemm_ex(dX, U, 0, Wu, 1, N, dff, d, 1); /*    + dU Wu^T */
  return st;
}
