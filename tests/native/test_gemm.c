/* Packed GEMM (gemm.c) vs the scalar references on edge shapes with each microkernel, natively under ASan/UBSan. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ffn.h"

static unsigned rs = 12345u;
static float rnd(void) {
  rs = rs * 1664525u + 1013904223u;
  return (float)((rs >> 8) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
}
/* exact-size heap blocks (so ASan sees any overrun); at least one byte for empty ones */
static float *fa(size_t n) {
  float *p = malloc(n ? n * sizeof(float) : 1);
  for (size_t i = 0; i < n; i++) p[i] = rnd();
  return p;
}
static long fails = 0, checks = 0;
static const char *kname = ""; /* the microkernel under test */
static void expect_close(const float *a, const float *b, size_t n, float tol, const char *what, int M, int K, int N) {
  for (size_t i = 0; i < n; i++) {
    checks++;
    if (!(fabsf(a[i] - b[i]) <= tol * (1.0f + fabsf(b[i])))) {
      if (fails++ < 10) printf("FAIL %s (%s) %dx%dx%d [%zu]: %g vs %g\n", what, kname, M, K, N, i, a[i], b[i]);
      return;
    }
  }
}
static void run_all(void) {
  static const int S[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 17, 33, 65};
  int ns = (int)(sizeof S / sizeof S[0]);
  for (int a = 0; a < ns; a++) for (int b = 0; b < ns; b++) for (int c = 0; c < ns; c++) {
    int M = S[a], K = S[b], N = S[c];
    float *A = fa((size_t)M * K), *B = fa((size_t)K * N), *Bu = fa((size_t)K * N), *bias = fa((size_t)N);
    float *R = fa((size_t)M * N), *C = fa((size_t)M * N), *G = fa((size_t)M * N), *U = fa((size_t)M * N);
    float *Bp = fa((size_t)gemm_packed_size(K, N)), *Gp = fa((size_t)gemm_gated_packed_size(K, N));
    float *W = fa((size_t)gemm_work_size(M, K));
    gemm_pack(Bp, B, K, N);
    gemm_gated_pack(Gp, B, Bu, K, N);
    matmul_ref(R, A, B, M, K, N);
    for (int i = 0; i < M; i++) for (int j = 0; j < N; j++) R[(size_t)i * N + j] += bias[j];
    int act = (M + K + N) % FFN_ACT_COUNT;
    if (gemm_forward(C, A, Bp, bias, M, K, N, act, W) != FFN_OK) fails++;
    act_ref(R, R, M * N, act);
    expect_close(C, R, (size_t)M * N, 1e-5f, "gemm_forward", M, K, N);
    if (gemm_gated_forward(C, A, Gp, M, K, N, act, W) != FFN_OK) fails++;
    matmul_ref(G, A, B, M, K, N);
    matmul_ref(U, A, Bu, M, K, N);
    act_ref(G, G, M * N, act);
    for (size_t i = 0; i < (size_t)M * N; i++) G[i] *= U[i];
    expect_close(C, G, (size_t)M * N, 1e-5f, "gemm_gated_forward", M, K, N);
    for (int t = 0; t < 4; t++) { /* transposed operands, read in place */
      int tA = t & 1, tB = t >> 1;
      float *At = fa((size_t)M * K), *Bt = fa((size_t)K * N);
      for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++) At[tA ? (size_t)k * M + i : (size_t)i * K + k] = A[(size_t)i * K + k];
      for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++) Bt[tB ? (size_t)j * K + k : (size_t)k * N + j] = B[(size_t)k * N + j];
      matmul_ref(R, A, B, M, K, N);
      memcpy(C, R, (size_t)M * N * sizeof(float));
      if (gemm_ex(C, At, tA, Bt, tB, M, K, N, 1) != FFN_OK) fails++;
      for (size_t i = 0; i < (size_t)M * N; i++) R[i] *= 2.0f;
      expect_close(C, R, (size_t)M * N, 1e-5f, "gemm_ex", M, K, N);
      free(At), free(Bt);
    }
    free(A), free(B), free(Bu), free(bias), free(R), free(C), free(G), free(U), free(Bp), free(Gp), free(W);
  }
  for (int K = 513; K <= 1100; K += 587) { /* one K block (513) and two (1100 > 768) */
    int M = 6, N = 11, act = FFN_ACT_GELU;
    float *A = fa((size_t)M * K), *B = fa((size_t)K * N), *bias = fa((size_t)N), *R = fa((size_t)M * N),
          *C = fa((size_t)M * N);
    float *Bp = fa((size_t)gemm_packed_size(K, N)), *W = fa((size_t)gemm_work_size(M, K));
    gemm_pack(Bp, B, K, N);
    gemm_forward(C, A, Bp, bias, M, K, N, act, W);
    matmul_ref(R, A, B, M, K, N);
    for (int i = 0; i < M; i++) for (int j = 0; j < N; j++) R[(size_t)i * N + j] += bias[j];
    act_ref(R, R, M * N, act);
    expect_close(C, R, (size_t)M * N, 1e-4f, "gemm_forward K-blocked", M, K, N);
    free(A), free(B), free(bias), free(R), free(C), free(Bp), free(W);
  }
  static const int L[][3] = {{1, 8, 32}, {3, 5, 7}, {65, 16, 40}, {130, 9, 33}, {0, 4, 4}, {2, 0, 3}};
  for (int l = 0; l < 6; l++) {
    int T = L[l][0], d = L[l][1], dff = L[l][2];
    float *X = fa((size_t)T * d), *W1 = fa((size_t)d * dff), *Wu = fa((size_t)d * dff), *W2 = fa((size_t)dff * d);
    float *b1 = fa((size_t)dff), *b2 = fa((size_t)d), *Y = fa((size_t)T * d), *R = fa((size_t)T * d);
    float *P1 = fa((size_t)gemm_packed_size(d, dff)), *P2 = fa((size_t)gemm_packed_size(dff, d)),
          *Pg = fa((size_t)gemm_gated_packed_size(d, dff));
    float *W = fa((size_t)ffn_packed_work_size(T, d, dff)), *Wr = fa((size_t)2 * T * dff);
    gemm_pack(P1, W1, d, dff), gemm_pack(P2, W2, dff, d), gemm_gated_pack(Pg, W1, Wu, d, dff);
    ffn_packed_forward(Y, X, P1, b1, P2, b2, T, d, dff, FFN_ACT_GELU_TANH, W);
    ffn_ref(R, X, W1, b1, W2, b2, T, d, dff, FFN_ACT_GELU_TANH, Wr);
    expect_close(Y, R, (size_t)T * d, 1e-4f, "ffn_packed_forward", T, d, dff);
    gated_packed_forward(Y, X, Pg, P2, T, d, dff, FFN_ACT_SILU, W);
    gated_ffn_ref(R, X, W1, Wu, W2, T, d, dff, FFN_ACT_SILU, Wr);
    expect_close(Y, R, (size_t)T * d, 1e-4f, "gated_packed_forward", T, d, dff);
    float *dY = fa((size_t)T * d), *g[4], *h[4], *Wb = fa((size_t)3 * T * dff);
    size_t sz[4] = {(size_t)T * d, (size_t)d * dff, (size_t)d * dff, (size_t)dff * d};
    for (int i = 0; i < 4; i++) g[i] = fa(sz[i]), h[i] = fa(sz[i]);
    if (swiglu_backward(g[0], g[1], g[2], g[3], dY, X, W1, Wu, W2, T, d, dff, Wb) != FFN_OK) fails++;
    swiglu_backward_ref(h[0], h[1], h[2], h[3], dY, X, W1, Wu, W2, T, d, dff, Wb);
    for (int i = 0; i < 4; i++)
      expect_close(g[i], h[i], sz[i], 1e-4f, "swiglu_backward", T, d, dff), free(g[i]), free(h[i]);
    free(dY), free(Wb);
    free(X), free(W1), free(Wu), free(W2), free(b1), free(b2), free(Y), free(R);
    free(P1), free(P2), free(Pg), free(W), free(Wr);
  }
  /* the read-ahead of the next panel group (32+ rows): across column groups, row blocks (mc = 238 rows
     at kc = 550, 116 in the gated pass) and K blocks (1100 = 2 x 550), packed B ending at its heap block;
     N = 250: a packed K block of B over 512 KB, so prebroadcast too runs row blocks, not strip by strip */
  {
    int M = 300, K = 1100, N = 250, act = FFN_ACT_SILU;
    float *A = fa((size_t)M * K), *B = fa((size_t)K * N), *Bu = fa((size_t)K * N), *R = fa((size_t)M * N),
          *C = fa((size_t)M * N);
    float *G = fa((size_t)M * N), *U = fa((size_t)M * N);
    float *Bp = fa((size_t)gemm_packed_size(K, N)), *Gp = fa((size_t)gemm_gated_packed_size(K, N)),
          *W = fa((size_t)gemm_work_size(M, K));
    gemm_pack(Bp, B, K, N), gemm_gated_pack(Gp, B, Bu, K, N);
    if (gemm_forward(C, A, Bp, NULL, M, K, N, FFN_ACT_IDENTITY, W) != FFN_OK) fails++;
    matmul_ref(R, A, B, M, K, N);
    expect_close(C, R, (size_t)M * N, 1e-4f, "gemm_forward read-ahead", M, K, N);
    if (gemm_gated_forward(C, A, Gp, M, K, N, act, W) != FFN_OK) fails++;
    matmul_ref(G, A, B, M, K, N), matmul_ref(U, A, Bu, M, K, N), act_ref(G, G, M * N, act);
    for (size_t i = 0; i < (size_t)M * N; i++) G[i] *= U[i];
    expect_close(C, G, (size_t)M * N, 1e-4f, "gemm_gated_forward read-ahead", M, K, N);
    free(A), free(B), free(Bu), free(R), free(C), free(G), free(U), free(Bp), free(Gp), free(W);
  }
  /* scratch at every 4-byte offset within a cache line, ending exactly at the end of its heap block:
     the 64-byte alignment done inside the GEMM stays within gemm_work_size / ffn_packed_work_size */
  for (int o = 0; o < 16; o++) {
    int M = 9, K = 37, N = 19, T = 5, dff = 24;
    float *A = fa((size_t)M * K), *B = fa((size_t)K * N), *Bu = fa((size_t)K * N), *R = fa((size_t)M * N),
          *C = fa((size_t)M * N), *G = fa((size_t)M * N), *U = fa((size_t)M * N);
    float *Bp = fa((size_t)gemm_packed_size(K, N)), *Gp = fa((size_t)gemm_gated_packed_size(K, N));
    size_t ws = (size_t)gemm_work_size(M, K), fs = (size_t)ffn_packed_work_size(T, K, dff);
    float *W = fa(ws + o), *F = fa(fs + o);
    float *W2 = fa((size_t)K * dff), *P2 = fa((size_t)gemm_packed_size(K, dff)), *W3 = fa((size_t)dff * K),
          *P3 = fa((size_t)gemm_packed_size(dff, K));
    float *Y = fa((size_t)T * K), *Yr = fa((size_t)T * K), *Wr = fa((size_t)2 * T * dff);
    gemm_pack(Bp, B, K, N), gemm_gated_pack(Gp, B, Bu, K, N), gemm_pack(P2, W2, K, dff), gemm_pack(P3, W3, dff, K);
    if (gemm_forward(C, A, Bp, NULL, M, K, N, FFN_ACT_IDENTITY, W + o) != FFN_OK) fails++;
    matmul_ref(R, A, B, M, K, N);
    expect_close(C, R, (size_t)M * N, 1e-5f, "gemm_forward, offset work", M, K, o);
    if (gemm_gated_forward(C, A, Gp, M, K, N, FFN_ACT_SILU, W + o) != FFN_OK) fails++;
    matmul_ref(G, A, B, M, K, N), matmul_ref(U, A, Bu, M, K, N), act_ref(G, G, M * N, FFN_ACT_SILU);
    for (size_t i = 0; i < (size_t)M * N; i++) G[i] *= U[i];
    expect_close(C, G, (size_t)M * N, 1e-5f, "gemm_gated_forward, offset work", M, K, o);
    if (ffn_packed_forward(Y, A, P2, NULL, P3, NULL, T, K, dff, FFN_ACT_RELU, F + o) != FFN_OK) fails++;
    ffn_ref(Yr, A, W2, NULL, W3, NULL, T, K, dff, FFN_ACT_RELU, Wr);
    expect_close(Y, Yr, (size_t)T * K, 1e-4f, "ffn_packed_forward, offset work", T, K, o);
    free(A), free(B), free(Bu), free(R), free(C), free(G), free(U), free(Bp), free(Gp), free(W), free(F);
    free(W2), free(P2), free(W3), free(P3), free(Y), free(Yr), free(Wr);
  }
  /* empty shapes with NULL buffers: no NULL + offset anywhere (UBSan) */
  float one[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  if (gemm_forward(NULL, NULL, NULL, NULL, 0, 0, 0, 0, NULL) != FFN_OK) fails++;
  if (gemm_forward(one, NULL, NULL, NULL, 1, 0, 3, 0, NULL) != FFN_OK || one[0] != 0.0f) fails++;
  if (gemm_forward(one, NULL, NULL, NULL, 2, 0, 3, 0, one + 6) != FFN_OK || one[5] != 0.0f) fails++;
  if (gemm_gated_forward(NULL, NULL, NULL, 0, 5, 5, 4, NULL) != FFN_OK) fails++;
  if (gemm_ex(NULL, NULL, 1, NULL, 1, 0, 3, 3, 0) != FFN_OK) fails++;
  if (ffn_packed_forward(NULL, NULL, NULL, NULL, NULL, NULL, 0, 4, 4, 1, NULL) != FFN_OK) fails++;
  if (gated_packed_forward(NULL, NULL, NULL, NULL, 0, 4, 4, 4, NULL) != FFN_OK) fails++;
  if (swiglu_backward(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, NULL) != FFN_OK) fails++;
  checks += 8;
}

int main(void) {
  static const char *names[] = {"splat", "prebroadcast"};
  for (int k = FFN_GEMM_SPLAT; k <= FFN_GEMM_PREBROADCAST; k++) {
    kname = names[k];
    if (gemm_select_kernel(k) != k || gemm_select_kernel(-1) != k) fails++, printf("FAIL gemm_select_kernel(%d)\n", k);
    run_all();
  }
  printf("%ld checks, %ld failures\n", checks, fails);
  return fails != 0;
}
