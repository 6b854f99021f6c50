/* Native ASan/UBSan test of the C kernels: SIMD vs *_ref on edge shapes,
 * specials, bad sizes. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffn.h"

static int failures = 0, checks = 0;
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    checks++;                                                                  \
    if (!(cond)) {                                                             \
      if (++failures <= 40) {                                                  \
        fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                   \
        fprintf(stderr, __VA_ARGS__);                                          \
        fputc('\n', stderr);                                                   \
      }                                                                        \
    }                                                                          \
  } while (0)

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd32(void) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7,
      rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 16);
}
static float urand(float lo, float hi) {
  return lo + (hi - lo) * (float)(rnd32() >> 8) / 16777216.0f;
}

/* exact-size heap buffers so ASan sees any overrun; NULL for n == 0 */
static float *fbuf(size_t n) { return n ? malloc(n * sizeof(float)) : NULL; }
static void fill(float *p, size_t n, float lo, float hi) {
  for (size_t i = 0; i < n; i++)
    p[i] = urand(lo, hi);
}

static const float specials[] = {
    NAN,     INFINITY, -INFINITY, 1e4f,     -1e4f,   0.0f,   -0.0f,  1e-40f,
    -1e-40f, 1e-30f,   3.4e38f,   -3.4e38f, 88.0f,   -88.0f, 104.0f, -104.0f,
    20.0f,   -20.0f,   5.0f,      -5.0f,    -0.752f, 1.0f,   -1.0f,  30.0f};
#define NSPECIAL (sizeof specials / sizeof specials[0])

/* distance in float32 ulps (order-preserving integer map); NaN only matches NaN
 */
static double ulps(float a, float b) {
  if (a != a || b != b)
    return (a != a && b != b) ? 0.0 : INFINITY;
  if (a == b)
    return 0.0;
  int32_t ia, ib;
  memcpy(&ia, &a, 4), memcpy(&ib, &b, 4);
  int64_t ma = ia < 0 ? (int64_t)INT32_MIN - ia : ia,
          mb = ib < 0 ? (int64_t)INT32_MIN - ib : ib;
  return (double)llabs(ma - mb);
}

static int same_bits(float a, float b) {
  if (a != a && b != b)
    return 1;
  return memcmp(&a, &b, 4) == 0;
}

/* |a - b| <= tol * (scale + |b|) with NaN matching NaN */
static int close_to(float a, float b, double tol, double scale) {
  if (a != a || b != b)
    return a != a && b != b;
  if (isinf(a) || isinf(b))
    return a == b;
  return fabs((double)a - b) <= tol * (scale + fabs((double)b));
}

static const int sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void test_activations(void) {
  for (int act = 0; act < FFN_ACT_COUNT; act++) {
    double worst_f = 0, worst_g = 0;
    for (size_t si = 0; si < NSIZES; si++) {
      int n = sizes[si] +
              (int)NSPECIAL *
                  (si == NSIZES - 1); /* last size also carries specials */
      float *x = fbuf((size_t)n), *y = fbuf((size_t)n), *r = fbuf((size_t)n),
            *dy = fbuf((size_t)n), *dx = fbuf((size_t)n);
      fill(x, (size_t)n, -12.0f, 12.0f);
      fill(dy, (size_t)n, -2.0f, 2.0f);
      for (int i = 0; i < n; i++)
        if (rnd32() % 4 == 0)
          x[i] = specials[rnd32() % NSPECIAL];
      if (si == NSIZES - 1)
        for (size_t i = 0; i < NSPECIAL; i++)
          x[sizes[si] + (int)i] = specials[i];
      CHECK(act_forward(y, x, n, act) == FFN_OK, "act_forward status");
      CHECK(act_ref(r, x, n, act) == FFN_OK, "act_ref status");
      for (int i = 0; i < n; i++) {
        double u = ulps(y[i], r[i]);
        if (u > worst_f)
          worst_f = u;
        CHECK(u <= 2, "act %d forward x=%g simd=%.9g ref=%.9g (%g ulp)", act,
              x[i], y[i], r[i], u);
        if (x[i] != x[i])
          CHECK(y[i] != y[i], "act %d: NaN in, %g out", act, y[i]);
      }
      CHECK(act_grad(y, x, n, act) == FFN_OK, "act_grad status");
      CHECK(act_grad_ref(r, x, n, act) == FFN_OK, "act_grad_ref status");
      for (int i = 0; i < n; i++) {
        double u = ulps(y[i], r[i]);
        /* zero crossings of the derivatives: allow a tiny absolute error */
        if (fabs((double)y[i] - r[i]) < 1e-30)
          u = 0;
        if (u > worst_g)
          worst_g = u;
        CHECK(u <= 4, "act %d grad x=%g simd=%.9g ref=%.9g (%g ulp)", act, x[i],
              y[i], r[i], u);
      }
      CHECK(act_backward(dx, dy, x, n, act) == FFN_OK, "act_backward status");
      for (int i = 0; i < n; i++)
        CHECK(same_bits(dx[i], dy[i] * y[i]),
              "act %d backward x=%g: %g != dy*g %g", act, x[i], dx[i],
              dy[i] * y[i]);
      /* in place: y may alias x, dx may alias dy or x */
      if (n) {
        memcpy(r, x, (size_t)n * sizeof(float));
        act_forward(r, r, n, act);
        act_forward(y, x, n, act);
        for (int i = 0; i < n; i++)
          CHECK(same_bits(r[i], y[i]), "act %d in-place forward", act);
        memcpy(r, dy, (size_t)n * sizeof(float));
        act_backward(r, r, x, n, act);
        for (int i = 0; i < n; i++)
          CHECK(same_bits(r[i], dx[i]), "act %d in-place backward", act);
      }
      free(x), free(y), free(r), free(dy), free(dx);
    }
    printf("act %d: max %g ulp forward, %g ulp grad (SIMD vs ref)\n", act,
           worst_f, worst_g);
  }
  /* limits and signs */
  float x[4] = {-INFINITY, INFINITY, -1e4f, 1e4f}, y[4];
  act_forward(y, x, 4, FFN_ACT_SIGMOID);
  CHECK(y[0] == 0 && y[1] == 1 && y[2] == 0 && y[3] == 1, "sigmoid limits");
  for (int act = FFN_ACT_SILU; act <= FFN_ACT_GELU_SIGMOID; act++) {
    act_forward(y, x, 4, act);
    CHECK(y[0] == 0 && signbit(y[0]) && y[1] == INFINITY && y[2] == 0 &&
              y[3] == 1e4f,
          "act %d limits: %g %g %g %g", act, y[0], y[1], y[2], y[3]);
    act_grad(y, x, 4, act);
    CHECK(y[0] == 0 && y[1] == 1 && y[2] == 0 && y[3] == 1,
          "act %d grad limits", act);
  }
}

/* the three products every kernel is made of, checked through matmul */
static void test_matmul(void) {
  static const int ms[] = {0, 1, 3, 4, 5, 9}, ks[] = {0, 1, 2, 4, 7, 8, 17},
                   ns[] = {0, 1, 3, 4, 5, 8, 13, 33};
  for (size_t a = 0; a < 6; a++)
    for (size_t b = 0; b < 7; b++)
      for (size_t c = 0; c < 8; c++) {
        int M = ms[a], K = ks[b], N = ns[c];
        float *A = fbuf((size_t)M * K), *B = fbuf((size_t)K * N),
              *C = fbuf((size_t)M * N), *R = fbuf((size_t)M * N);
        fill(A, (size_t)M * K, -1, 1), fill(B, (size_t)K * N, -1, 1);
        if (M * K > 2 && (a + b + c) % 3 == 0)
          A[1] = specials[(a + c) % NSPECIAL];
        CHECK(matmul_forward(C, A, B, M, K, N) == FFN_OK, "matmul status");
        matmul_ref(R, A, B, M, K, N);
        for (int i = 0; i < M * N; i++)
          CHECK(same_bits(C[i], R[i]), "matmul %dx%dx%d [%d]: %.9g vs %.9g", M,
                K, N, i, C[i], R[i]);
        free(A), free(B), free(C), free(R);
      }
}

static void test_ffn(void) {
  static const int Ts[] = {0, 1, 3, 5}, ds[] = {0, 1, 4, 5, 9},
                   fs[] = {0, 1, 3, 8, 17};
  for (int act = 0; act < FFN_ACT_COUNT; act++)
    for (size_t a = 0; a < 4; a++)
      for (size_t b = 0; b < 5; b++)
        for (size_t c = 0; c < 5; c++) {
          int T = Ts[a], d = ds[b], F = fs[c];
          size_t nx = (size_t)T * d, nw = (size_t)d * F, nh = (size_t)T * F;
          float *X = fbuf(nx), *W1 = fbuf(nw), *W2 = fbuf(nw), *W3 = fbuf(nw),
                *b1 = fbuf((size_t)F), *b2 = fbuf((size_t)d), *Y = fbuf(nx),
                *R = fbuf(nx), *w1 = fbuf(2 * nh), *w2 = fbuf(2 * nh);
          fill(X, nx, -2, 2), fill(W1, nw, -1, 1), fill(W2, nw, -1, 1),
              fill(W3, nw, -1, 1);
          fill(b1, (size_t)F, -1, 1), fill(b2, (size_t)d, -1, 1);
          int with_bias = (a + b + c) % 2;
          CHECK(ffn_forward(Y, X, W1, with_bias ? b1 : NULL, W2,
                            with_bias ? b2 : NULL, T, d, F, act, w1) == FFN_OK,
                "ffn status");
          ffn_ref(R, X, W1, with_bias ? b1 : NULL, W2, with_bias ? b2 : NULL, T,
                  d, F, act, w2);
          for (size_t i = 0; i < nx; i++)
            CHECK(close_to(Y[i], R[i], 1e-5, 1.0),
                  "ffn act %d T%d d%d F%d: %.9g vs %.9g", act, T, d, F, Y[i],
                  R[i]);
          CHECK(gated_ffn_forward(Y, X, W1, W2, W3, T, d, F, act, w1) == FFN_OK,
                "gated status");
          gated_ffn_ref(R, X, W1, W2, W3, T, d, F, act, w2);
          for (size_t i = 0; i < nx; i++)
            CHECK(close_to(Y[i], R[i], 1e-5, 1.0),
                  "gated act %d T%d d%d F%d: %.9g vs %.9g", act, T, d, F, Y[i],
                  R[i]);
          free(X), free(W1), free(W2), free(W3), free(b1), free(b2), free(Y),
              free(R), free(w1), free(w2);
        }
}

static void test_swiglu_backward(void) {
  static const int Ns[] = {0, 1, 2, 5}, ds[] = {0, 1, 3, 4, 6},
                   fs[] = {0, 1, 4, 5, 11};
  for (size_t a = 0; a < 4; a++)
    for (size_t b = 0; b < 5; b++)
      for (size_t c = 0; c < 5; c++) {
        int N = Ns[a], d = ds[b], F = fs[c];
        size_t nx = (size_t)N * d, nw = (size_t)d * F, nh = (size_t)N * F;
        float *X = fbuf(nx), *dY = fbuf(nx), *Wg = fbuf(nw), *Wu = fbuf(nw),
              *Wd = fbuf(nw);
        float *out[2][4], *work[2];
        for (int s = 0; s < 2; s++) {
          out[s][0] = fbuf(nx), out[s][1] = fbuf(nw), out[s][2] = fbuf(nw),
          out[s][3] = fbuf(nw);
          work[s] = fbuf(3 * nh);
        }
        fill(X, nx, -2, 2), fill(dY, nx, -1, 1), fill(Wg, nw, -1, 1),
            fill(Wu, nw, -1, 1), fill(Wd, nw, -1, 1);
        CHECK(swiglu_backward(out[0][0], out[0][1], out[0][2], out[0][3], dY, X,
                              Wg, Wu, Wd, N, d, F, work[0]) == FFN_OK,
              "swiglu_backward status");
        swiglu_backward_ref(out[1][0], out[1][1], out[1][2], out[1][3], dY, X,
                            Wg, Wu, Wd, N, d, F, work[1]);
        size_t lens[4] = {nx, nw, nw, nw};
        for (int o = 0; o < 4; o++)
          for (size_t i = 0; i < lens[o]; i++)
            CHECK(close_to(out[0][o][i], out[1][o][i], 1e-5, 1.0),
                  "swiglu_backward out %d N%d d%d F%d [%zu]: %.9g vs %.9g", o,
                  N, d, F, i, out[0][o][i], out[1][o][i]);
        free(X), free(dY), free(Wg), free(Wu), free(Wd);
        for (int s = 0; s < 2; s++) {
          for (int o = 0; o < 4; o++)
            free(out[s][o]);
          free(work[s]);
        }
      }
}

/* a (n) against b (n): within tol (scale 1), or the same bits when tol < 0 */
static void check_all(const float *a, const float *b, size_t n, double tol,
                      const char *what, int x, int y, int z) {
  for (size_t i = 0; i < n; i++)
    CHECK(tol < 0 ? same_bits(a[i], b[i]) : close_to(a[i], b[i], tol, 1.0),
          "%s %d,%d,%d [%zu]: %.9g vs %.9g", what, x, y, z, i, a[i], b[i]);
}

/* ffn_backward and gated_ffn_backward against their _ref twins on exact-size
 * buffers, every activation */
static void test_ffn_backwards(void) {
  static const int Ts[] = {0, 1, 3, 5}, ds[] = {0, 1, 4, 9},
                   fs[] = {0, 1, 5, 9};
  for (int act = 0; act < FFN_ACT_COUNT; act++)
    for (size_t a = 0; a < 4; a++)
      for (size_t b = 0; b < 4; b++)
        for (size_t c = 0; c < 4; c++) {
          int T = Ts[a], d = ds[b], F = fs[c];
          size_t nx = (size_t)T * d, nw = (size_t)d * F, nh = (size_t)T * F;
          size_t lens[5] = {nx, nw, (size_t)F, nw, (size_t)d},
                 glens[4] = {nx, nw, nw, nw};
          float *X = fbuf(nx), *dY = fbuf(nx), *W1 = fbuf(nw), *b1 = fbuf(F),
                *W2 = fbuf(nw), *Wu = fbuf(nw);
          fill(X, nx, -2, 2), fill(dY, nx, -1, 1), fill(W1, nw, -1, 1),
              fill(b1, F, -1, 1), fill(W2, nw, -1, 1);
          fill(Wu, nw, -1, 1);
          float *o[2][5], *g[2][4], *work[2];
          for (int s = 0; s < 2; s++) {
            for (int q = 0; q < 5; q++)
              o[s][q] = fbuf(lens[q]);
            for (int q = 0; q < 4; q++)
              g[s][q] = fbuf(glens[q]);
            work[s] = fbuf(3 * nh);
          }
          CHECK(ffn_backward(o[0][0], o[0][1], o[0][2], o[0][3], o[0][4], dY, X,
                             W1, b1, W2, T, d, F, act, work[0]) == FFN_OK,
                "ffn_backward status");
          ffn_backward_ref(o[1][0], o[1][1], o[1][2], o[1][3], o[1][4], dY, X,
                           W1, b1, W2, T, d, F, act, work[1]);
          for (int q = 0; q < 5; q++)
            check_all(o[0][q], o[1][q], lens[q], 2e-5, "ffn_backward", T, d, F);
          CHECK(gated_ffn_backward(g[0][0], g[0][1], g[0][2], g[0][3], dY, X,
                                   W1, Wu, W2, T, d, F, act, work[0]) == FFN_OK,
                "gated_ffn_backward status");
          gated_ffn_backward_ref(g[1][0], g[1][1], g[1][2], g[1][3], dY, X, W1,
                                 Wu, W2, T, d, F, act, work[1]);
          for (int q = 0; q < 4; q++)
            check_all(g[0][q], g[1][q], glens[q], 2e-5, "gated_ffn_backward", T,
                      d, F);
          free(X), free(dY), free(W1), free(b1), free(W2), free(Wu);
          for (int s = 0; s < 2; s++) {
            for (int q = 0; q < 5; q++)
              free(o[s][q]);
            for (int q = 0; q < 4; q++)
              free(g[s][q]);
            free(work[s]);
          }
        }
}

/* softmax_ce_backward, adamw_step, sgd_step, rank_one_update,
 * spd_factor/spd_solve against their twins */
static void test_train_kernels(void) {
  for (size_t a = 0; a < NSIZES; a++) {
    int n = sizes[a], V = n ? n : 1, N = 3;
    float *L = fbuf((size_t)N * V), *d0 = fbuf((size_t)N * V),
          *d1 = fbuf((size_t)N * V), l0, l1;
    int32_t t[3] = {0, V - 1, V / 2}, c0, c1;
    fill(L, (size_t)N * V, -5, 5);
    L[V - 1] = specials[a % NSPECIAL];
    CHECK(softmax_ce_backward(d0, &l0, &c0, L, t, N, V) == FFN_OK,
          "softmax_ce status");
    softmax_ce_backward_ref(d1, &l1, &c1, L, t, N, V);
    check_all(d0, d1, (size_t)N * V, 1e-6, "softmax_ce", N, V, 0);
    check_all(&l0, &l1, 1, 1e-6, "softmax_ce loss", N, V, 0);
    CHECK(c0 == c1, "softmax_ce correct %d vs %d", c0, c1);
    free(L), free(d0), free(d1);

    float *p[2], *m[2], *v[2], *g = fbuf(n), *u = fbuf(n), *W[2];
    fill(g, n, -1, 1), fill(u, n, -1, 1);
    if (n)
      g[n - 1] = specials[a % NSPECIAL];
    for (int s = 0; s < 2; s++) {
      p[s] = fbuf(n), m[s] = fbuf(n), v[s] = fbuf(n),
      W[s] = fbuf((size_t)n * n);
      if (n)
        memset(p[s], 0, n * 4), memset(m[s], 0, n * 4), memset(v[s], 0, n * 4),
            memset(W[s], 0, n * 4 * n);
    }
    for (int step = 1; step <= 3; step++) {
      adamw_step(p[0], m[0], v[0], g, n, 0.03f, 0.9f, 0.999f, 1e-8f, 0.01f,
                 step);
      adamw_step_ref(p[1], m[1], v[1], g, n, 0.03f, 0.9f, 0.999f, 1e-8f, 0.01f,
                     step);
    }
    sgd_step(m[0], g, n, 0.1f), sgd_step_ref(m[1], g, n, 0.1f);
    rank_one_update(W[0], u, g, n, n, -0.5f),
        rank_one_update_ref(W[1], u, g, n, n, -0.5f);
    /* the same float operations (a platform that contracts a*b+c into fma may
     * differ in the last bit) */
    check_all(p[0], p[1], n, 1e-6, "adamw p", n, 0, 0),
        check_all(v[0], v[1], n, 1e-6, "adamw v", n, 0, 0);
    check_all(m[0], m[1], n, 1e-6, "sgd", n, 0, 0),
        check_all(W[0], W[1], (size_t)n * n, 1e-6, "rank_one", n, 0, 0);
    /* SPD: W = 0.1 (u g^T + g u^T) + n I with g finite */
    if (n)
      g[n - 1] = 0.5f;
    float *A = fbuf((size_t)n * n), *X[2];
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        A[i * n + j] =
            0.1f * (u[i] * g[j] + g[i] * u[j]) + (i == j ? (float)n : 0.0f);
    CHECK(spd_factor(W[0], A, n) == FFN_OK &&
              spd_factor_ref(W[1], A, n) == FFN_OK,
          "spd_factor n=%d", n);
    check_all(W[0], W[1], (size_t)n * n, 1e-6, "spd_factor", n, 0, 0);
    for (int s = 0; s < 2; s++)
      X[s] = fbuf((size_t)n * 2), fill(X[s], (size_t)n * 2, 1, 1);
    CHECK(spd_solve(X[0], W[0], X[0], n, 2) == FFN_OK, "spd_solve status");
    spd_solve_ref(X[1], W[0], X[1], n, 2);
    check_all(X[0], X[1], (size_t)n * 2, 1e-5, "spd_solve", n, 0, 0);
    if (n)
      A[(n - 1) * n + n - 1] = -1.0f;
    CHECK(n == 0 || spd_factor(W[0], A, n) == FFN_ENOTPD,
          "spd_factor ENOTPD n=%d", n);
    free(g), free(u), free(A);
    for (int s = 0; s < 2; s++)
      free(p[s]), free(m[s]), free(v[s]), free(W[s]), free(X[s]);
  }
}

static void test_memories(void) {
  static const int ds[] = {0, 1, 3, 4, 5, 9}, fs[] = {0, 1, 2, 4, 5, 9, 31};
  for (size_t a = 0; a < 6; a++)
    for (size_t b = 0; b < 7; b++)
      for (int k = 0; k <= fs[b]; k++) {
        int d = ds[a], F = fs[b];
        float *x = fbuf((size_t)d), *W1 = fbuf((size_t)d * F),
              *b1 = fbuf((size_t)F), *W2 = fbuf((size_t)F * d);
        float *coef[2] = {fbuf((size_t)F), fbuf((size_t)F)},
              *part[2] = {fbuf((size_t)d), fbuf((size_t)d)};
        int32_t *top[2] = {k ? malloc((size_t)k * 4) : NULL,
                           k ? malloc((size_t)k * 4) : NULL};
        /* small integers: many exact ties, and zeros from the ReLU */
        for (int i = 0; i < d; i++)
          x[i] = (float)(int)(rnd32() % 3);
        for (int i = 0; i < d * F; i++)
          W1[i] = (float)((int)(rnd32() % 5) - 2), W2[i] = urand(-1, 1);
        for (int i = 0; i < F; i++)
          b1[i] = (float)((int)(rnd32() % 3) - 1);
        if (F > 3 && k % 2)
          b1[2] = NAN; /* NaN ranks above every number */
        CHECK(ffn_memories(coef[0], top[0], part[0], x, W1,
                           (b + k) % 3 ? b1 : NULL, W2, d, F, k) == FFN_OK,
              "memories status");
        ffn_memories_ref(coef[1], top[1], part[1], x, W1,
                         (b + k) % 3 ? b1 : NULL, W2, d, F, k);
        for (int i = 0; i < F; i++)
          CHECK(same_bits(coef[0][i], coef[1][i]), "memories coef");
        for (int i = 0; i < k; i++)
          CHECK(top[0][i] == top[1][i], "memories d%d F%d k%d top[%d] %d vs %d",
                d, F, k, i, top[0][i], top[1][i]);
        for (int i = 1; i < k; i++) {
          float p = coef[0][top[0][i - 1]], q = coef[0][top[0][i]];
          CHECK(p != p || p > q || (p == q && top[0][i - 1] < top[0][i]),
                "memories order");
        }
        for (int i = 0; i < d; i++)
          CHECK(same_bits(part[0][i], part[1][i]), "memories partial");
        free(x), free(W1), free(b1), free(W2);
        for (int s = 0; s < 2; s++)
          free(coef[s]), free(part[s]), free(top[s]);
      }
}

static void test_validation(void) {
  /* bad arguments: FFN_EINVAL without touching memory (NULL pointers would
   * crash if touched) */
  float sentinel[4] = {7, 7, 7, 7};
  CHECK(matmul_forward(NULL, NULL, NULL, -1, 2, 2) == FFN_EINVAL, "matmul M<0");
  CHECK(matmul_forward(NULL, NULL, NULL, 2, -1, 2) == FFN_EINVAL, "matmul K<0");
  CHECK(matmul_forward(NULL, NULL, NULL, 2, 2, -1) == FFN_EINVAL, "matmul N<0");
  CHECK(matmul_ref(NULL, NULL, NULL, 2, 2, -3) == FFN_EINVAL, "matmul_ref N<0");
  for (int act = -1; act <= FFN_ACT_COUNT; act += FFN_ACT_COUNT + 1) {
    CHECK(act_forward(sentinel, sentinel, 4, act) == FFN_EINVAL,
          "act_forward act %d", act);
    CHECK(act_grad(sentinel, sentinel, 4, act) == FFN_EINVAL, "act_grad act %d",
          act);
    CHECK(act_backward(sentinel, sentinel, sentinel, 4, act) == FFN_EINVAL,
          "act_backward act");
    CHECK(act_ref(sentinel, sentinel, 4, act) == FFN_EINVAL, "act_ref act");
    CHECK(act_grad_ref(sentinel, sentinel, 4, act) == FFN_EINVAL,
          "act_grad_ref act");
    CHECK(ffn_forward(NULL, NULL, NULL, NULL, NULL, NULL, 1, 1, 1, act, NULL) ==
              FFN_EINVAL,
          "ffn act");
    CHECK(ffn_ref(NULL, NULL, NULL, NULL, NULL, NULL, 1, 1, 1, act, NULL) ==
              FFN_EINVAL,
          "ffn_ref act");
    CHECK(gated_ffn_forward(NULL, NULL, NULL, NULL, NULL, 1, 1, 1, act, NULL) ==
              FFN_EINVAL,
          "gated act");
    CHECK(gated_ffn_ref(NULL, NULL, NULL, NULL, NULL, 1, 1, 1, act, NULL) ==
              FFN_EINVAL,
          "gated_ref act");
  }
  for (int i = 0; i < 4; i++)
    CHECK(sentinel[i] == 7, "EINVAL touched memory");
  CHECK(act_forward(NULL, NULL, -1, 0) == FFN_EINVAL, "act n<0");
  CHECK(act_grad(NULL, NULL, -1, 1) == FFN_EINVAL, "act_grad n<0");
  CHECK(act_backward(NULL, NULL, NULL, -5, 1) == FFN_EINVAL,
        "act_backward n<0");
  CHECK(act_ref(NULL, NULL, -1, 1) == FFN_EINVAL, "act_ref n<0");
  CHECK(act_grad_ref(NULL, NULL, -1, 1) == FFN_EINVAL, "act_grad_ref n<0");
  const int bad[3][3] = {{-1, 1, 1}, {1, -1, 1}, {1, 1, -1}};
  for (int b = 0; b < 3; b++) {
    int T = bad[b][0], d = bad[b][1], F = bad[b][2];
    CHECK(ffn_forward(NULL, NULL, NULL, NULL, NULL, NULL, T, d, F, 1, NULL) ==
              FFN_EINVAL,
          "ffn size");
    CHECK(ffn_ref(NULL, NULL, NULL, NULL, NULL, NULL, T, d, F, 1, NULL) ==
              FFN_EINVAL,
          "ffn_ref size");
    CHECK(gated_ffn_forward(NULL, NULL, NULL, NULL, NULL, T, d, F, 4, NULL) ==
              FFN_EINVAL,
          "gated size");
    CHECK(gated_ffn_ref(NULL, NULL, NULL, NULL, NULL, T, d, F, 4, NULL) ==
              FFN_EINVAL,
          "gated_ref size");
    CHECK(swiglu_backward(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                          T, d, F, NULL) == FFN_EINVAL,
          "swiglu_backward size");
    CHECK(swiglu_backward_ref(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                              NULL, T, d, F, NULL) == FFN_EINVAL,
          "swiglu_backward_ref size");
  }
  CHECK(ffn_memories(NULL, NULL, NULL, NULL, NULL, NULL, NULL, -1, 4, 1) ==
            FFN_EINVAL,
        "mem d<0");
  CHECK(ffn_memories(NULL, NULL, NULL, NULL, NULL, NULL, NULL, 4, -1, 0) ==
            FFN_EINVAL,
        "mem dff<0");
  CHECK(ffn_memories(NULL, NULL, NULL, NULL, NULL, NULL, NULL, 4, 4, -1) ==
            FFN_EINVAL,
        "mem k<0");
  CHECK(ffn_memories(NULL, NULL, NULL, NULL, NULL, NULL, NULL, 4, 4, 5) ==
            FFN_EINVAL,
        "mem k>dff");
  CHECK(ffn_memories_ref(NULL, NULL, NULL, NULL, NULL, NULL, NULL, 4, 4, 5) ==
            FFN_EINVAL,
        "mem_ref k>dff");
  CHECK(ffn_memories_ref(NULL, NULL, NULL, NULL, NULL, NULL, NULL, 4, 4, -1) ==
            FFN_EINVAL,
        "mem_ref k<0");

  /* zero sizes are valid no-ops (NULL pointers allowed); K = 0 gives zeros */
  CHECK(matmul_forward(NULL, NULL, NULL, 0, 5, 0) == FFN_OK, "matmul empty");
  CHECK(act_forward(NULL, NULL, 0, 5) == FFN_OK, "act empty");
  CHECK(act_backward(NULL, NULL, NULL, 0, 5) == FFN_OK, "act_backward empty");
  float C[6] = {9, 9, 9, 9, 9, 9};
  CHECK(matmul_forward(C, NULL, NULL, 2, 0, 3) == FFN_OK, "matmul K=0");
  for (int i = 0; i < 6; i++)
    CHECK(C[i] == 0 && !signbit(C[i]), "matmul K=0 gives +0");
  float Y[2] = {9, 9}, b2[2] = {1.5f, -2};
  CHECK(ffn_forward(Y, NULL, NULL, NULL, NULL, b2, 1, 2, 0, 6, NULL) == FFN_OK,
        "ffn dff=0");
  CHECK(Y[0] == 1.5f && Y[1] == -2, "ffn dff=0 gives b2");
  CHECK(ffn_memories(NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0) ==
            FFN_OK,
        "mem empty");
}

static void test_counts(void) {
  CHECK(ffn_param_count(768, 3072, 1, 0) == 4722432.0, "GPT-2 FFN params");
  CHECK(ffn_param_count(768, 3072, 0, 0) == 2.0 * 768 * 3072, "no-bias params");
  CHECK(ffn_param_count(4096, 11008, 0, 1) == 3.0 * 4096 * 11008,
        "LLaMA-7B FFN params");
  CHECK(ffn_param_count(10, 20, 1, 1) == 600 + 40 + 10, "gated biases");
  CHECK(ffn_param_count(-1, 3, 1, 0) == FFN_EINVAL, "params d<0");
  CHECK(ffn_param_count(1.5, 3, 1, 0) == FFN_EINVAL, "params d non-integer");
  CHECK(ffn_param_count(NAN, 3, 1, 0) == FFN_EINVAL, "params NaN");
  CHECK(llama_hidden_dim(4096, 256, 0) == 11008, "llama 4096");
  CHECK(llama_hidden_dim(8192, 4096, 1.3) == 28672, "llama 8192 x1.3 /4096");
  CHECK(llama_hidden_dim(4096, 1024, 1.3) == 14336, "llama 4096 x1.3 /1024");
  CHECK(llama_hidden_dim(768, 1, 0) == 2048, "Shazeer's 2048 at d=768");
  CHECK(llama_hidden_dim(0, 256, 0) == 0, "llama d=0");
  CHECK(llama_hidden_dim(4096, 0, 0) == FFN_EINVAL, "llama multiple_of=0");
  CHECK(llama_hidden_dim(-4, 256, 0) == FFN_EINVAL, "llama d<0");
  CHECK(llama_hidden_dim(4096, 256, NAN) == FFN_EINVAL, "llama NaN multiplier");
  CHECK(ffn_flops(768, 3072, 0) == 16.0 * 768 * 768, "flops 16 d^2");
  CHECK(ffn_flops(3, 8, 1) == 144, "gated flops");
  CHECK(ffn_flops(3, -8, 1) == FFN_EINVAL, "flops dff<0");
  CHECK(ffn_heap_in_use() == 0, "native heap accounting is 0");
}

int main(void) {
  test_activations();
  test_matmul();
  test_ffn();
  test_swiglu_backward();
  test_ffn_backwards();
  test_train_kernels();
  test_memories();
  test_validation();
  test_counts();
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
