/* Plain scalar C references (*_ref) of every SIMD kernel, compiled without -msimd128. */

/* Activations are evaluated in double with libm and rounded once to float. Matrix products
   accumulate in float, in order k = 0..K-1, then add the bias (the SIMD i-k-j kernels sum in
   the same order, so matmul_forward matches matmul_ref bit for bit; products computed as row
   dot products in the SIMD code differ by summation order only). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "ffn.h"
#include "internal.h"

#define SQRT_2_OVER_PI 0.79788456080286535588
#define INV_SQRT_2PI 0.39894228040143267794
#define GELU_TANH_A 0.044715
#define GELU_SIGMOID_K 1.702

/* sigmoid(z) in double, without overflow: exp of a non-positive argument only */
static double sig(double z) {
  if (z >= 0.0) return 1.0 / (1.0 + exp(-z));
  double e = exp(z);
  return e / (1.0 + e); /* also NaN -> NaN */
}

/* s'(z) = s(z) (1 - s(z)) with 1 - s(z) = s(-z) */
static double dsig(double z) { return sig(z) * sig(-z); }

/* Phi(x) = 0.5 erfc(-x / sqrt 2): keeps relative accuracy in the lower tail */
static double cdf(double x) { return 0.5 * erfc(-x * 0.70710678118654752440); }

static double tanh_arg2(double x) { /* 2u, with 1 + tanh(u) = 2 sigmoid(2u) */
  return 2.0 * SQRT_2_OVER_PI * (x + GELU_TANH_A * x * x * x);
}

static float fwd_act(float xf, int act) {
  double x = xf;
  if (xf != xf) return xf;
  switch (act) {
    case FFN_ACT_IDENTITY:
      return xf;
    case FFN_ACT_RELU:
      return xf > 0.0f ? xf : 0.0f;
    case FFN_ACT_RELU2: {
      float r = xf > 0.0f ? xf : 0.0f;
      return r * r;
    }
    case FFN_ACT_SIGMOID:
      return (float)sig(x);
    default:
      break;
  }
  if (x == -INFINITY) return -0.0f; /* x times a factor that vanishes faster than 1/x */
  switch (act) {
    case FFN_ACT_SILU:
      return (float)(x * sig(x));
    case FFN_ACT_GELU:
      return (float)(x * cdf(x));
    case FFN_ACT_GELU_TANH:
      return (float)(x * sig(tanh_arg2(x)));
    default:
      return (float)(x * sig(GELU_SIGMOID_K * x)); /* FFN_ACT_GELU_SIGMOID */
  }
}

static float grad_act(float xf, int act) {
  double x = xf;
  if (xf != xf) return xf;
  switch (act) {
    case FFN_ACT_IDENTITY:
      return 1.0f;
    case FFN_ACT_RELU:
      return xf > 0.0f ? 1.0f : 0.0f;
    case FFN_ACT_RELU2: {
      float r = xf > 0.0f ? xf : 0.0f;
      return r + r;
    }
    case FFN_ACT_SIGMOID:
      return (float)dsig(x);
    default:
      break;
  }
  if (isinf(x)) return x > 0 ? 1.0f : 0.0f; /* the limits of the smooth gates */
  switch (act) {
    case FFN_ACT_SILU:
      return (float)(sig(x) + x * dsig(x));
    case FFN_ACT_GELU:
      return (float)(cdf(x) + x * INV_SQRT_2PI * exp(-0.5 * x * x));
    case FFN_ACT_GELU_TANH: {
      double du = 2.0 * SQRT_2_OVER_PI * (1.0 + 3.0 * GELU_TANH_A * x * x);
      double z = tanh_arg2(x);
      return (float)(sig(z) + x * du * dsig(z));
    }
    default: { /* FFN_ACT_GELU_SIGMOID */
      double kx = GELU_SIGMOID_K * x;
      return (float)(sig(kx) + kx * dsig(kx));
    }
  }
}

/* x (n) -> y (n) = phi(x) */
FFN_API int act_ref(float *y, const float *x, int n, int act) {
  if (n < 0 || bad_act(act)) return FFN_EINVAL;
  for (int i = 0; i < n; i++) y[i] = fwd_act(x[i], act);
  return FFN_OK;
}

/* x (n) -> g (n) = phi'(x) */
FFN_API int act_grad_ref(float *g, const float *x, int n, int act) {
  if (n < 0 || bad_act(act)) return FFN_EINVAL;
  for (int i = 0; i < n; i++) g[i] = grad_act(x[i], act);
  return FFN_OK;
}

/* A (M,K) @ B (K,N) [+ bias (N)] -> C (M,N), float accumulation in k order */
static void mm(float *C, const float *A, const float *B, const float *bias, size_t M, size_t K, size_t N) {
  for (size_t i = 0; i < M; i++)
    for (size_t j = 0; j < N; j++) {
      float acc = 0.0f;
      for (size_t k = 0; k < K; k++) acc += A[i * K + k] * B[k * N + j];
      if (bias) acc += bias[j];
      C[i * N + j] = acc;
    }
}

/* A (M,K) @ B (K,N) -> C (M,N) */
FFN_API int matmul_ref(float *C, const float *A, const float *B, int M, int K, int N) {
  if (M < 0 || K < 0 || N < 0) return FFN_EINVAL;
  mm(C, A, B, NULL, (size_t)M, (size_t)K, (size_t)N);
  return FFN_OK;
}

/* X (T,d) @ W1 (d,dff) + b1 -> H (T,dff) in work; phi(H) @ W2 (dff,d) + b2 -> Y (T,d) */
FFN_API int ffn_ref(float *Y, const float *X, const float *W1, const float *b1, const float *W2, const float *b2, int T,
                    int d, int dff, int act, float *work) {
  if (T < 0 || d < 0 || dff < 0 || bad_act(act)) return FFN_EINVAL;
  size_t t = (size_t)T, D = (size_t)d, F = (size_t)dff;
  mm(work, X, W1, b1, t, D, F);
  for (size_t i = 0; i < t * F; i++) work[i] = fwd_act(work[i], act);
  mm(Y, work, W2, b2, t, F, D);
  return FFN_OK;
}

/* X (T,d) @ Wg -> G, X @ Wu -> U (T,dff); (phi(G) * U) @ Wd (dff,d) -> Y (T,d) */
FFN_API int gated_ffn_ref(float *Y, const float *X, const float *Wg, const float *Wu, const float *Wd, int T, int d,
                          int dff, int act, float *work) {
  if (T < 0 || d < 0 || dff < 0 || bad_act(act)) return FFN_EINVAL;
  size_t t = (size_t)T, D = (size_t)d, F = (size_t)dff;
  float *G = work, *U = skip(work, t * F);
  mm(G, X, Wg, NULL, t, D, F);
  mm(U, X, Wu, NULL, t, D, F);
  for (size_t i = 0; i < t * F; i++) U[i] = fwd_act(G[i], act) * U[i];
  mm(Y, U, Wd, NULL, t, F, D);
  return FFN_OK;
}

/* dY (N,d), X (N,d), Wg (d,dff), Wu (d,dff), Wd (dff,d) -> dX (N,d), dWg, dWu (d,dff), dWd (dff,d).
   work: G, U, H = silu(G) U (later dH), each N*dff. */
FFN_API int swiglu_backward_ref(float *dX, float *dWg, float *dWu, float *dWd, const float *dY, const float *X,
                                const float *Wg, const float *Wu, const float *Wd, int N, int d, int dff, float *work) {
  if (N < 0 || d < 0 || dff < 0) return FFN_EINVAL;
  size_t n = (size_t)N, D = (size_t)d, F = (size_t)dff;
  size_t nf = n * F;
  float *G = work, *U = skip(work, nf), *H = skip(work, 2 * nf);
  mm(G, X, Wg, NULL, n, D, F);
  mm(U, X, Wu, NULL, n, D, F);
  for (size_t i = 0; i < n * F; i++) H[i] = fwd_act(G[i], FFN_ACT_SILU) * U[i];
  for (size_t j = 0; j < F; j++) /* dWd = H^T dY */
    for (size_t c = 0; c < D; c++) {
      float acc = 0.0f;
      for (size_t r = 0; r < n; r++) acc += H[r * F + j] * dY[r * D + c];
      dWd[j * D + c] = acc;
    }
  for (size_t r = 0; r < n; r++) /* dH = dY Wd^T, into H */
    for (size_t j = 0; j < F; j++) {
      float acc = 0.0f;
      for (size_t c = 0; c < D; c++) acc += dY[r * D + c] * Wd[j * D + c];
      H[r * F + j] = acc;
    }
  for (size_t i = 0; i < n * F; i++) { /* G <- dG = dH U silu'(G); U <- dU = dH silu(G) */
    float g = G[i], u = U[i], dh = H[i];
    G[i] = dh * u * grad_act(g, FFN_ACT_SILU);
    U[i] = dh * fwd_act(g, FFN_ACT_SILU);
  }
  for (size_t c = 0; c < D; c++) /* dWg = X^T dG, dWu = X^T dU */
    for (size_t j = 0; j < F; j++) {
      float ag = 0.0f, au = 0.0f;
      for (size_t r = 0; r < n; r++) {
        ag += X[r * D + c] * G[r * F + j];
        au += X[r * D + c] * U[r * F + j];
      }
      dWg[c * F + j] = ag;
      dWu[c * F + j] = au;
    }
  for (size_t r = 0; r < n; r++) /* dX = dG Wg^T + dU Wu^T */
    for (size_t c = 0; c < D; c++) {
      float ag = 0.0f, au = 0.0f;
      for (size_t j = 0; j < F; j++) {
        ag += G[r * F + j] * Wg[c * F + j];
        au += U[r * F + j] * Wu[c * F + j];
      }
      dX[r * D + c] = ag + au;
    }
  return FFN_OK;
}

/* does memory i rank before memory j? larger coef, NaN above all numbers, ties by lower index */
static int ranks_before(const float *c, int i, int j) {
  float a = c[i], b = c[j];
  if (a != a || b != b) return (a != a && b != b) ? i < j : a != a;
  return a > b || (a == b && i < j);
}

/* x (d) @ W1 (d,dff) + b1 -> coef (dff) = relu(.); top (k) by repeated selection of the best
   memory ranked after the previous pick; partial (d) = sum over top of coef_i W2[i,:] */
FFN_API int ffn_memories_ref(float *coef, int32_t *top, float *partial, const float *x, const float *W1,
                             const float *b1, const float *W2, int d, int dff, int k) {
  if (d < 0 || dff < 0 || k < 0 || k > dff) return FFN_EINVAL;
  mm(coef, x, W1, b1, 1, (size_t)d, (size_t)dff);
  for (int i = 0; i < dff; i++) coef[i] = fwd_act(coef[i], FFN_ACT_RELU);
  int prev = -1;
  for (int r = 0; r < k; r++) {
    int best = -1;
    for (int i = 0; i < dff; i++)
      if ((prev < 0 || ranks_before(coef, prev, i)) && (best < 0 || ranks_before(coef, i, best))) best = i;
    top[r] = best;
    prev = best;
  }
  for (int c = 0; c < d; c++) {
    float acc = 0.0f;
    for (int r = 0; r < k; r++) acc += coef[top[r]] * W2[(size_t)top[r] * d + c];
    partial[c] = acc;
  }
  return FFN_OK;
}
