/* Resident FFN layers: classic and gated FFN forward on weights packed once, a block of tokens at a time. */
#include <stddef.h>

#include "ffn.h"
#include "internal.h"

#ifndef FFN_ROWS
#define FFN_ROWS 128 /* token rows per block (the hidden block stays in L2) */
#endif

/* Scratch floats for ffn_packed_forward / gated_packed_forward with T tokens. Negative sizes -> -1. */
FFN_API double ffn_packed_work_size(int T, int d, int dff) {
  if (T < 0 || d < 0 || dff < 0) return -1;
  int tb = imin(T, FFN_ROWS);
  double w1 = gemm_work_size(tb, d), w2 = gemm_work_size(tb, dff);
  return (double)round16((size_t)tb * dff) + ALIGN_SLACK + (w1 > w2 ? w1 : w2);
}

/* X (T,d) @ W1 (d,dff) + b1 -> act -> H (T,dff) @ W2 (dff,d) + b2 -> Y (T,d), W1 and W2 packed by
   gemm_pack; b1, b2 may be NULL. Runs FFN_ROWS tokens at a time so the hidden block stays in cache.
   work: ffn_packed_work_size(T,d,dff) floats. Y must not alias X. */
FFN_API int ffn_packed_forward(float *Y, const float *X, const float *W1p, const float *b1, const float *W2p,
                               const float *b2, int T, int d, int dff, int act, float *work) {
  if (T < 0 || d < 0 || dff < 0 || bad_act(act)) return FFN_EINVAL;
  int tb = imin(T, FFN_ROWS);
  /* hidden block, then the GEMM scratch (align64(NULL) is NULL: T = 0 may pass no work) */
  float *Hb = align64(work), *w = skip(Hb, round16((size_t)tb * dff));
  for (int t0 = 0; t0 < T; t0 += tb) {
    int rows = imin(tb, T - t0);
    gemm_forward(Hb, X + (size_t)t0 * d, W1p, b1, rows, d, dff, act, w);
    gemm_forward(Y + (size_t)t0 * d, Hb, W2p, b2, rows, dff, d, FFN_ACT_IDENTITY, w);
  }
  return FFN_OK;
}

/* X (T,d) @ (Wg, Wu) (d,dff) -> H = act(X Wg) * (X Wu) (T,dff) @ Wd (dff,d) -> Y (T,d), Wg and Wu
   packed together by gemm_gated_pack, Wd by gemm_pack. work: ffn_packed_work_size(T,d,dff) floats.
   Y must not alias X. */
FFN_API int gated_packed_forward(float *Y, const float *X, const float *Wgu, const float *Wdp, int T, int d, int dff,
                                 int act, float *work) {
  if (T < 0 || d < 0 || dff < 0 || bad_act(act)) return FFN_EINVAL;
  int tb = imin(T, FFN_ROWS);
  /* hidden block, then the GEMM scratch (align64(NULL) is NULL: T = 0 may pass no work) */
  float *Hb = align64(work), *w = skip(Hb, round16((size_t)tb * dff));
  for (int t0 = 0; t0 < T; t0 += tb) {
    int rows = imin(tb, T - t0);
    gemm_gated_forward(Hb, X + (size_t)t0 * d, Wgu, rows, d, dff, act, w);
    gemm_forward(Y + (size_t)t0 * d, Hb, Wdp, NULL, rows, dff, d, FFN_ACT_IDENTITY, w);
  }
  return FFN_OK;
}
