/* Training kernels: fused softmax cross-entropy, AdamW and SGD steps, rank-one update, Cholesky factor and solve. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ffn.h"
#include "internal.h"
#include "simd.h"

#if defined(__wasm_simd128__)
static inline f32x4 sqrt_f(f32x4 a) { return wasm_f32x4_sqrt(a); }
#else
static inline f32x4 sqrt_f(f32x4 a) { return (f32x4){sqrtf(a[0]), sqrtf(a[1]), sqrtf(a[2]), sqrtf(a[3])}; }
#endif

/* ---- softmax cross-entropy --------------------------------------------------------------------------------- */

#define EXP_SHIFT 12582912.0f /* 1.5 * 2^23: adding it rounds to an integer kept in the low mantissa bits */
#define EXP_MIN -87.0f        /* e^z below this is returned as 0 (e^-87 = 1.6e-38, still a normal float) */

/* e^z for z <= 0 lane by lane (NaN passes): z = n ln2 + r, |r| <= ln2/2, e^r by its Taylor polynomial of degree 8
   (truncation below 3e-10 relative), times 2^n built in the exponent bits; z < EXP_MIN -> +0. */
static inline f32x4 exp_neg_f(f32x4 z) {
  m32x4 under = f32x4_lt(z, f32x4_splat(EXP_MIN));
  f32x4 zc = f32x4_pmax(z, f32x4_splat(EXP_MIN)); /* a NaN z is kept */
  f32x4 kf = f32x4_add(f32x4_mul(zc, f32x4_splat(1.44269504088896341f)), f32x4_splat(EXP_SHIFT));
  f32x4 nf = f32x4_sub(kf, f32x4_splat(EXP_SHIFT));
  f32x4 r =
      f32x4_sub(f32x4_sub(zc, f32x4_mul(nf, f32x4_splat(0.693359375f))), f32x4_mul(nf, f32x4_splat(-2.12194440e-4f)));
  static const float c[7] = {1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f};
  f32x4 p = f32x4_splat(1.0f / 40320);
  for (int i = 0; i < 7; i++) p = f32x4_add(f32x4_mul(p, r), f32x4_splat(c[i]));
  p = f32x4_add(f32x4_mul(p, r), f32x4_splat(1.0f));
  return f32x4_select(under, f32x4_splat(0.0f), f32x4_mul(p, f32x4_shl23_add(kf, 127 << 23)));
}

/* the largest of x (n) (-inf for n = 0), and whether any is NaN */
static float row_max(const float *x, size_t n, int *nan) {
  f32x4 vm = f32x4_splat(-INFINITY), bad = f32x4_splat(0.0f);
  size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    f32x4 v = f32x4_load(x + j);
    vm = f32x4_pmax(vm, v);
    bad = f32x4_select(f32x4_isnan(v), v, bad);
  }
  float lanes[4], b[4], mx = -INFINITY;
  f32x4_store(lanes, vm), f32x4_store(b, bad);
  *nan = b[0] != b[0] || b[1] != b[1] || b[2] != b[2] || b[3] != b[3];
  for (int l = 0; l < 4; l++) mx = lanes[l] > mx ? lanes[l] : mx;
  for (; j < n; j++) {
    *nan |= x[j] != x[j];
    mx = x[j] > mx ? x[j] : mx;
  }
  return mx;
}

/* e (n) = exp(x - mx) (written only when e is not NULL; e may alias x); returns their sum in double */
static double row_exp(float *e, const float *x, size_t n, float mx) {
  f32x4 vmx = f32x4_splat(mx);
  f64x2 s0 = f64x2_splat(0.0), s1 = f64x2_splat(0.0);
  for (size_t j = 0; j < n; j += 4) {
    float buf[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    size_t m = n - j < 4 ? n - j : 4;
    const float *s = x + j;
    if (m < 4) memcpy(buf, s, m * sizeof(float)), s = buf;
    f32x4 y = exp_neg_f(f32x4_sub(f32x4_load(s), vmx));
    s0 = f64x2_add(s0, f32x4_promote_lo(y)), s1 = f64x2_add(s1, f32x4_promote_hi(y));
    if (!e) continue;
    if (m == 4) {
      f32x4_store(e + j, y);
    } else {
      f32x4_store(buf, y);
      memcpy(e + j, buf, m * sizeof(float));
    }
  }
  double s[2], t[2];
  memcpy(s, &s0, sizeof s), memcpy(t, &s1, sizeof t);
  return (s[0] + t[0]) + (s[1] + t[1]);
}

/* d (n) *= scale */
static void scale_row(float *d, size_t n, float scale) {
  f32x4 vs = f32x4_splat(scale);
  size_t j = 0;
  for (; j + 4 <= n; j += 4) f32x4_store(d + j, f32x4_mul(f32x4_load(d + j), vs));
  for (; j < n; j++) d[j] *= scale;
}

/* logits (N,V), targets (N) in [0,V) -> *loss = mean of -log softmax(row)[target], *correct = rows whose first
   argmax is the target (correct may be NULL), dlogits (N,V) = (softmax - onehot) / N (may be NULL or alias logits).
   Each row in one pass while it is in L1: max, exp(x - max) summed in double, scale. The target's entry is
   (e_t - sum) / sum / N in double (no cancellation when p -> 1). */
FFN_API int softmax_ce_backward(float *dlogits, float *loss, int32_t *correct, const float *logits,
                                const int32_t *targets, int N, int V) {
  if (bad_targets(targets, N, V)) return FFN_EINVAL;
  double total = 0.0;
  int32_t right = 0;
  size_t n = (size_t)V;
  for (size_t i = 0; i < (size_t)N; i++) {
    const float *x = logits + i * n;
    float *d = dlogits ? dlogits + i * n : NULL;
    size_t t = (size_t)targets[i];
    int nan;
    float mx = row_max(x, n, &nan), xt = x[t];
    if (nan || !isfinite(mx)) { /* NaN, +inf (inf - inf) or all -inf: PyTorch gives NaN */
      total += NAN;
      for (size_t j = 0; d && j < n; j++) d[j] = NAN;
      continue;
    }
    if (correct) {
      size_t j = 0;
      while (x[j] != mx) j++;
      right += j == t;
    }
    double sum = row_exp(d, x, n, mx);
    total += (double)mx + log(sum) - (double)xt;
    if (!d) continue;
    double et = d[t];
    scale_row(d, n, (float)(1.0 / (sum * N)));
    d[t] = (float)((et - sum) / sum / N);
  }
  *loss = N ? (float)(total / N) : NAN;
  if (correct) *correct = right;
  return FFN_OK;
}

/* ---- optimizers --------------------------------------------------------------------------------------------- */

/* p, m, v, g (n) -> one AdamW step in place (torch.optim.AdamW): p *= 1 - lr wd; m += (1 - b1) (g - m);
   v = b2 v + ((1 - b2) g) g; p += -(lr / (1 - b1^t)) (m / (sqrt(v) / sqrt(1 - b2^t) + eps)). One pass. */
FFN_API int adamw_step(float *p, float *m, float *v, const float *g, int n, float lr, float beta1, float beta2,
                       float eps, float weight_decay, int t) {
  if (n < 0 || t < 1) return FFN_EINVAL;
  float decay = (float)(1.0 - (double)lr * weight_decay), c1 = (float)(1.0 - (double)beta1);
  float c2 = (float)(1.0 - (double)beta2), nstep = (float)(-(double)lr / (1.0 - pow(beta1, t)));
  float bc2 = (float)sqrt(1.0 - pow(beta2, t));
  f32x4 vd = f32x4_splat(decay), vc1 = f32x4_splat(c1), vc2 = f32x4_splat(c2), vb2 = f32x4_splat(beta2);
  f32x4 vs = f32x4_splat(nstep), vbc = f32x4_splat(bc2), ve = f32x4_splat(eps);
  size_t i = 0, N = (size_t)n;
  for (; i + 4 <= N; i += 4) {
    f32x4 gi = f32x4_load(g + i), mi = f32x4_load(m + i), vi = f32x4_load(v + i);
    mi = f32x4_add(mi, f32x4_mul(vc1, f32x4_sub(gi, mi)));
    vi = f32x4_add(f32x4_mul(vi, vb2), f32x4_mul(f32x4_mul(vc2, gi), gi));
    f32x4 den = f32x4_add(f32x4_div(sqrt_f(vi), vbc), ve);
    f32x4 pi = f32x4_mul(f32x4_load(p + i), vd);
    f32x4_store(p + i, f32x4_add(pi, f32x4_mul(vs, f32x4_div(mi, den))));
    f32x4_store(m + i, mi), f32x4_store(v + i, vi);
  }
  for (; i < N; i++) {
    float mi = m[i] + c1 * (g[i] - m[i]), vi = v[i] * beta2 + c2 * g[i] * g[i];
    m[i] = mi, v[i] = vi;
    p[i] = p[i] * decay + nstep * (mi / (sqrtf(vi) / bc2 + eps));
  }
  return FFN_OK;
}

/* p (n) -= lr g (n), as p + (-lr) g */
FFN_API int sgd_step(float *p, const float *g, int n, float lr) {
  if (n < 0) return FFN_EINVAL;
  f32x4 vl = f32x4_splat(-lr);
  size_t i = 0, N = (size_t)n;
  for (; i + 4 <= N; i += 4) f32x4_store(p + i, f32x4_add(f32x4_load(p + i), f32x4_mul(vl, f32x4_load(g + i))));
  for (; i < N; i++) p[i] += -lr * g[i];
  return FFN_OK;
}

/* ---- rank-one update, Cholesky ------------------------------------------------------------------------------ */

/* W (M,N) += alpha u (M) v (N)^T, each entry W + (alpha u_i) v_j */
FFN_API int rank_one_update(float *W, const float *u, const float *v, int M, int N, float alpha) {
  if (M < 0 || N < 0) return FFN_EINVAL;
  size_t n = (size_t)N;
  for (size_t i = 0; i < (size_t)M; i++) {
    float a = alpha * u[i], *w = W + i * n;
    f32x4 va = f32x4_splat(a);
    size_t j = 0;
    for (; j + 4 <= n; j += 4) f32x4_store(w + j, f32x4_add(f32x4_load(w + j), f32x4_mul(va, f32x4_load(v + j))));
    for (; j < n; j++) w[j] += a * v[j];
  }
  return FFN_OK;
}

/* sum of a[k] b[k] (n floats each) in double, on four f64x2 accumulators (8 floats a step) */
static double ddot(const float *a, const float *b, size_t n) {
  f64x2 s0 = f64x2_splat(0.0), s1 = s0, s2 = s0, s3 = s0;
  size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    f32x4 x = f32x4_load(a + k), y = f32x4_load(b + k), z = f32x4_load(a + k + 4), w = f32x4_load(b + k + 4);
    s0 = f64x2_add(s0, f64x2_mul(f32x4_promote_lo(x), f32x4_promote_lo(y)));
    s1 = f64x2_add(s1, f64x2_mul(f32x4_promote_hi(x), f32x4_promote_hi(y)));
    s2 = f64x2_add(s2, f64x2_mul(f32x4_promote_lo(z), f32x4_promote_lo(w)));
    s3 = f64x2_add(s3, f64x2_mul(f32x4_promote_hi(z), f32x4_promote_hi(w)));
  }
  double s[2], t[2];
  s0 = f64x2_add(s0, s2), s1 = f64x2_add(s1, s3);
  memcpy(s, &s0, sizeof s), memcpy(t, &s1, sizeof t);
  double acc = (s[0] + t[0]) + (s[1] + t[1]);
  for (; k < n; k++) acc += (double)a[k] * b[k];
  return acc;
}

/* A (n,n) SPD (lower triangle read) -> L (n,n) with A = L L^T, upper part zero. Cholesky-Crout,
   L[i][j] = (A[i][j] - L[i][:j] . L[j][:j]) / L[j][j], L[i][i] = sqrt(A[i][i] - |L[i][:i]|^2), the dots in double,
   in blocks of CHOL_B x CHOL_B entries: the rows of a block pair are read CHOL_B times each from cache (row by row,
   n = 2048 streamed L from memory for every entry). FFN_ENOTPD if a pivot is <= 0 or not finite. L may alias A. */
#define CHOL_B 32
FFN_API int spd_factor(float *L, const float *A, int n) {
  if (n < 0) return FFN_EINVAL;
  size_t N = (size_t)n;
  for (size_t i0 = 0; i0 < N; i0 += CHOL_B) {
    size_t i1 = i0 + CHOL_B < N ? i0 + CHOL_B : N;
    for (size_t j0 = 0; j0 <= i0; j0 += CHOL_B)
      for (size_t i = i0; i < i1; i++) {
        float *li = L + i * N;
        const float *ai = A + i * N;
        for (size_t j = j0; j < j0 + CHOL_B && j <= i; j++) {
          const float *lj = L + j * N;
          double s = (double)ai[j] - ddot(li, lj, j); /* A[i][j] is read before L[i][j] is written */
          if (j < i) {
            li[j] = (float)(s / lj[j]);
          } else {
            if (!(s > 0.0) || !isfinite(s)) return FFN_ENOTPD;
            li[i] = (float)sqrt(s);
          }
        }
      }
    for (size_t i = i0; i < i1; i++)
      if (i + 1 < N) memset(L + i * N + i + 1, 0, (N - i - 1) * sizeof(float));
  }
  return FFN_OK;
}

/* y (n) -= a x (n), doubles on f64x2 lanes */
static void daxpy(double *y, double a, const double *x, size_t n) {
  f64x2 va = f64x2_splat(a);
  size_t j = 0;
  for (; j + 2 <= n; j += 2) {
    f64x2 yv, xv;
    memcpy(&yv, y + j, sizeof yv), memcpy(&xv, x + j, sizeof xv);
    yv = f64x2_sub(yv, f64x2_mul(va, xv));
    memcpy(y + j, &yv, sizeof yv);
  }
  for (; j < n; j++) y[j] -= a * x[j];
}

/* L (n,n) lower, B (n,nrhs) -> X (n,nrhs) with L L^T X = B, in double on a scratch copy Y (n*nrhs doubles):
   forward, y_i = (b_i - sum_k<i L[i][k] y_k) / L[i][i]; backward by rows of L, x_i = y_i / L[i][i] and then
   y_k -= L[i][k] x_i for k < i (L read row by row both ways). X may alias B. */
FFN_API int spd_solve(float *X, const float *L, const float *B, int n, int nrhs) {
  if (n < 0 || nrhs < 0) return FFN_EINVAL;
  size_t N = (size_t)n, R = (size_t)nrhs;
  if (N * R == 0) return FFN_OK;
  double *Y = malloc(N * R * sizeof(double));
  if (!Y) return FFN_ENOMEM;
  for (size_t i = 0; i < N * R; i++) Y[i] = B[i];
  for (size_t i = 0; i < N; i++) {
    const float *li = L + i * N;
    double *yi = Y + i * R, inv = 1.0 / li[i];
    if (R == 1) {
      double s = yi[0];
      for (size_t k = 0; k < i; k++) s -= li[k] * Y[k];
      yi[0] = s;
    } else {
      for (size_t k = 0; k < i; k++) daxpy(yi, li[k], Y + k * R, R);
    }
    for (size_t c = 0; c < R; c++) yi[c] *= inv;
  }
  for (size_t i = N; i-- > 0;) {
    const float *li = L + i * N;
    double *xi = Y + i * R, inv = 1.0 / li[i];
    for (size_t c = 0; c < R; c++) xi[c] *= inv;
    if (R == 1) {
      for (size_t k = 0; k < i; k++) Y[k] -= li[k] * xi[0];
    } else {
      for (size_t k = 0; k < i; k++) daxpy(Y + k * R, li[k], xi, R);
    }
  }
  for (size_t i = 0; i < N * R; i++) X[i] = (float)Y[i];
  free(Y);
  return FFN_OK;
}
