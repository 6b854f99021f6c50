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

/* A^T B: A (K,M), B (K,N) -> C (M,N), float sums in order k = 0..K-1 */
static void mm_tn(float *C, const float *A, const float *B, size_t M, size_t K, size_t N) {
  for (size_t i = 0; i < M; i++)
    for (size_t j = 0; j < N; j++) {
      float acc = 0.0f;
      for (size_t k = 0; k < K; k++) acc += A[k * M + i] * B[k * N + j];
      C[i * N + j] = acc;
    }
}

/* A B^T: A (M,K), B (N,K) -> C (M,N) (C += when accumulate), float sums in order k = 0..K-1 */
static void mm_nt(float *C, const float *A, const float *B, size_t M, size_t K, size_t N, int accumulate) {
  for (size_t i = 0; i < M; i++)
    for (size_t j = 0; j < N; j++) {
      float acc = 0.0f;
      for (size_t k = 0; k < K; k++) acc += A[i * K + k] * B[j * K + k];
      C[i * N + j] = accumulate ? C[i * N + j] + acc : acc;
    }
}

/* s (n) = column sums of M (rows,n), rows in order */
static void col_sums(float *s, const float *M, size_t rows, size_t n) {
  for (size_t j = 0; j < n; j++) {
    float acc = 0.0f;
    for (size_t r = 0; r < rows; r++) acc += M[r * n + j];
    s[j] = acc;
  }
}

/* dY (T,d), X (T,d), H, A = act(H) (T,dff), W2 (dff,d), W1 (d,dff) -> dW2 = A^T dY, A <- dH = dY W2^T act'(H),
   db1 = column sums of dH, dW1 = X^T dH, dX = dH W1^T (needs W1) */
FFN_API int ffn_backward_saved_ref(float *dX, float *dW1, float *db1, float *dW2, const float *dY, const float *X,
                                   const float *H, float *A, const float *W2, int T, int d, int dff, int act,
                                   const float *W1) {
  if (T < 0 || d < 0 || dff < 0 || bad_act(act) || (dX && !W1 && d && dff)) return FFN_EINVAL;
  size_t t = (size_t)T, D = (size_t)d, F = (size_t)dff;
  mm_tn(dW2, A, dY, F, t, D);
  mm_nt(A, dY, W2, t, D, F, 0);
  for (size_t i = 0; i < t * F; i++) A[i] = A[i] * grad_act(H[i], act);
  if (db1) col_sums(db1, A, t, F);
  mm_tn(dW1, X, A, D, t, F);
  if (dX) mm_nt(dX, A, W1, t, F, D, 0);
  return FFN_OK;
}

/* dY (T,d), X (T,d), W1 (d,dff), b1 (dff) or NULL, W2 (dff,d) -> dX, dW1, db1, dW2, db2. work: H, A (T*dff each) */
FFN_API int ffn_backward_ref(float *dX, float *dW1, float *db1, float *dW2, float *db2, const float *dY, const float *X,
                             const float *W1, const float *b1, const float *W2, int T, int d, int dff, int act,
                             float *work) {
  if (T < 0 || d < 0 || dff < 0 || bad_act(act)) return FFN_EINVAL;
  size_t t = (size_t)T, D = (size_t)d, F = (size_t)dff;
  float *H = work, *A = skip(work, t * F);
  mm(H, X, W1, b1, t, D, F);
  for (size_t i = 0; i < t * F; i++) A[i] = fwd_act(H[i], act);
  if (db2) col_sums(db2, dY, t, D);
  return ffn_backward_saved_ref(dX, dW1, db1, dW2, dY, X, H, A, W2, T, d, dff, act, W1);
}

/* dY (N,d), X (N,d), Wg (d,dff), Wu (d,dff), Wd (dff,d) -> dX (N,d), dWg, dWu (d,dff), dWd (dff,d).
   work: G, U, H = act(G) U (later dH), each N*dff. */
FFN_API int gated_ffn_backward_ref(float *dX, float *dWg, float *dWu, float *dWd, const float *dY, const float *X,
                                   const float *Wg, const float *Wu, const float *Wd, int N, int d, int dff, int act,
                                   float *work) {
  if (N < 0 || d < 0 || dff < 0 || bad_act(act)) return FFN_EINVAL;
  size_t n = (size_t)N, D = (size_t)d, F = (size_t)dff;
  size_t nf = n * F;
  float *G = work, *U = skip(work, nf), *H = skip(work, 2 * nf);
  mm(G, X, Wg, NULL, n, D, F);
  mm(U, X, Wu, NULL, n, D, F);
  for (size_t i = 0; i < nf; i++) H[i] = fwd_act(G[i], act) * U[i];
  mm_tn(dWd, H, dY, F, n, D);       /* dWd = H^T dY */
  mm_nt(H, dY, Wd, n, D, F, 0);     /* dH = dY Wd^T, into H */
  for (size_t i = 0; i < nf; i++) { /* G <- dG = dH U act'(G); U <- dU = dH act(G) */
    float g = G[i], u = U[i], dh = H[i];
    G[i] = dh * u * grad_act(g, act);
    U[i] = dh * fwd_act(g, act);
  }
  mm_tn(dWg, X, G, D, n, F); /* dWg = X^T dG, dWu = X^T dU */
  mm_tn(dWu, X, U, D, n, F);
  mm_nt(dX, G, Wg, n, F, D, 0); /* dX = dG Wg^T + dU Wu^T */
  mm_nt(dX, U, Wu, n, F, D, 1);
  return FFN_OK;
}

/* gated_ffn_backward_ref with act SiLU */
FFN_API int swiglu_backward_ref(float *dX, float *dWg, float *dWu, float *dWd, const float *dY, const float *X,
                                const float *Wg, const float *Wu, const float *Wd, int N, int d, int dff, float *work) {
  return gated_ffn_backward_ref(dX, dWg, dWu, dWd, dY, X, Wg, Wu, Wd, N, d, dff, FFN_ACT_SILU, work);
}

/* logits (N,V), targets (N) -> mean -log softmax[target], argmax hits, dlogits = (softmax - onehot) / N, all in
   double with libm exp/log */
FFN_API int softmax_ce_backward_ref(float *dlogits, float *loss, int32_t *correct, const float *logits,
                                    const int32_t *targets, int N, int V) {
  if (bad_targets(targets, N, V)) return FFN_EINVAL;
  double total = 0.0;
  int32_t right = 0;
  for (int i = 0; i < N; i++) {
    const float *x = logits + (size_t)i * V;
    float *d = dlogits ? dlogits + (size_t)i * V : NULL;
    int t = targets[i], arg = 0, nan = 0;
    for (int j = 0; j < V; j++) {
      nan |= x[j] != x[j];
      if (x[j] > x[arg]) arg = j;
    }
    double mx = x[arg], xt = x[t], sum = 0.0;
    if (nan || !isfinite(mx)) {
      total += NAN;
      for (int j = 0; d && j < V; j++) d[j] = NAN;
      continue;
    }
    right += arg == t;
    for (int j = 0; j < V; j++) sum += exp(x[j] - mx);
    total += mx + log(sum) - xt;
    for (int j = 0; d && j < V; j++) d[j] = (float)((exp(x[j] - mx) / sum - (j == t)) / N);
  }
  *loss = N ? (float)(total / N) : NAN;
  if (correct) *correct = right;
  return FFN_OK;
}

/* one AdamW step, the same float operations as adamw_step in the same order */
FFN_API int adamw_step_ref(float *p, float *m, float *v, const float *g, int n, float lr, float beta1, float beta2,
                           float eps, float weight_decay, int t) {
  if (n < 0 || t < 1) return FFN_EINVAL;
  float decay = (float)(1.0 - (double)lr * weight_decay), c1 = (float)(1.0 - (double)beta1);
  float c2 = (float)(1.0 - (double)beta2), nstep = (float)(-(double)lr / (1.0 - pow(beta1, t)));
  float bc2 = (float)sqrt(1.0 - pow(beta2, t));
  for (int i = 0; i < n; i++) {
    float mi = m[i] + c1 * (g[i] - m[i]);
    float vi = v[i] * beta2 + c2 * g[i] * g[i];
    float den = sqrtf(vi) / bc2 + eps;
    float pi = p[i] * decay;
    p[i] = pi + nstep * (mi / den);
    m[i] = mi, v[i] = vi;
  }
  return FFN_OK;
}

/* p (n) = p + (-lr) g */
FFN_API int sgd_step_ref(float *p, const float *g, int n, float lr) {
  if (n < 0) return FFN_EINVAL;
  for (int i = 0; i < n; i++) p[i] += -lr * g[i];
  return FFN_OK;
}

/* W (M,N) = W + (alpha u_i) v_j */
FFN_API int rank_one_update_ref(float *W, const float *u, const float *v, int M, int N, float alpha) {
  if (M < 0 || N < 0) return FFN_EINVAL;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) W[(size_t)i * N + j] += (alpha * u[i]) * v[j];
  return FFN_OK;
}

/* A (n,n) -> lower L, A = L L^T, Cholesky-Crout with double sums in k order; FFN_ENOTPD on a pivot <= 0 or not
   finite */
FFN_API int spd_factor_ref(float *L, const float *A, int n) {
  if (n < 0) return FFN_EINVAL;
  size_t N = (size_t)n;
  for (size_t i = 0; i < N; i++) {
    for (size_t j = 0; j <= i; j++) {
      double s = A[i * N + j];
      for (size_t k = 0; k < j; k++) s -= (double)L[i * N + k] * L[j * N + k];
      if (j < i) {
        L[i * N + j] = (float)(s / L[j * N + j]);
      } else {
        if (!(s > 0.0) || !isfinite(s)) return FFN_ENOTPD;
        L[i * N + i] = (float)sqrt(s);
      }
    }
    for (size_t j = i + 1; j < N; j++) L[i * N + j] = 0.0f;
  }
  return FFN_OK;
}

/* L (n,n), B (n,nrhs) -> X with L L^T X = B, column by column in double (no scratch) */
FFN_API int spd_solve_ref(float *X, const float *L, const float *B, int n, int nrhs) {
  if (n < 0 || nrhs < 0) return FFN_EINVAL;
  size_t N = (size_t)n, R = (size_t)nrhs;
  for (size_t c = 0; c < R; c++) {
    for (size_t i = 0; i < N; i++) { /* forward: y into X's column (B's entry i is read first) */
      double s = B[i * R + c];
      for (size_t k = 0; k < i; k++) s -= (double)L[i * N + k] * X[k * R + c];
      X[i * R + c] = (float)(s / L[i * N + i]);
    }
    for (size_t i = N; i-- > 0;) {
      double s = X[i * R + c];
      for (size_t k = i + 1; k < N; k++) s -= (double)L[k * N + i] * X[k * R + c];
      X[i * R + c] = (float)(s / L[i * N + i]);
    }
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
