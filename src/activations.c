/* Activations and their derivatives on f32x4 lanes (widened to f64x2 for the smooth ones). */
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "ffn.h"
#include "simd.h"

/* ---- double-lane building blocks --------------------------------------- */

/* exp(z) for every lane, z clamped to [-708, 708] (results stay normal doubles).
   z = n ln2 + r with |r| <= ln2/2, exp(r) by its Taylor polynomial to degree 13
   (truncation below 2e-17 relative), then scaled by 2^n built in the exponent bits. */
static inline f64x2 exp_d(f64x2 z) {
  const double shifter = 6755399441055744.0;     /* 1.5 * 2^52: adding it rounds to an integer */
  const double log2e = 1.4426950408889634074;    /* 1/ln 2 */
  const double ln2_hi = 0.693147180369123816490; /* ln 2 with 32 significant bits: n*ln2_hi exact */
  const double ln2_lo = 1.90821492927058770002e-10; /* ln 2 - ln2_hi */
  z = f64x2_clamp(z, -708.0, 708.0);
  f64x2 kd = f64x2_add(f64x2_mul(z, f64x2_splat(log2e)), f64x2_splat(shifter));
  f64x2 n = f64x2_sub(kd, f64x2_splat(shifter));
  f64x2 r =
      f64x2_sub(f64x2_sub(z, f64x2_mul(n, f64x2_splat(ln2_hi))), f64x2_mul(n, f64x2_splat(ln2_lo)));
  /* Horner on 1 + r + r^2/2! + ... + r^13/13! */
  f64x2 p = f64x2_splat(1.0 / 6227020800.0);
  static const double inv_fact[13] = {/* 1/12!, 1/11!, ..., 1/1!, 1/0! */
                                      1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
                                      1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0,
                                      1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0};
  for (int i = 0; i < 13; i++) p = f64x2_add(f64x2_mul(p, r), f64x2_splat(inv_fact[i]));
  /* the low mantissa bits of kd hold n (two's complement): move them to the exponent field */
  f64x2 scale = f64x2_shl52_add(kd, (int64_t)1023 << 52);
  return f64x2_mul(p, scale);
}

/* e = exp(-z) and s = sigmoid(z) = 1/(1+e); 1 - s = e*s without cancellation */
static inline f64x2 sigmoid_d(f64x2 z, f64x2 *e_out) {
  f64x2 e = exp_d(f64x2_neg(z));
  if (e_out) *e_out = e;
  return f64x2_div(f64x2_splat(1.0), f64x2_add(f64x2_splat(1.0), e));
}

/* Chebyshev coefficients of g(Y) = (t + 3) erfcx(t) in Y = (t - 3)/(t + 3) for t >= 0 (Y in
   [-1, 1)), erfcx(t) = exp(t^2) erfc(t); fitted by Chebyshev interpolation in 40-digit arithmetic.
   Max relative error of erfcx over t in [0, 15]: 4e-16. */
static const double erfcx_cheb[24] = {
    1.413438223980872,       -1.1314768490746974,    0.35410810034248635,
    -0.08508704009908545,    0.014615273272816639,   -0.0013795571636296329,
    -6.429066714315945e-05,  3.9043421097724045e-05, -2.642785074856054e-06,
    -8.239440143910853e-07,  1.3247975697671355e-07, 1.919522515672645e-08,
    -5.0305071637453915e-09, -5.842006410266948e-10, 1.8742323910407103e-10,
    2.4373672656610363e-11,  -6.990943839835589e-12, -1.2573115602204489e-12,
    2.4580006491395815e-13,  7.00574079655885e-14,   -6.732913848333775e-15,
    -3.843621769458056e-15,  5.321084928155128e-18,  2.0141250572974564e-16};

/* Phi(-|x|) = 0.5 erfc(|x|/sqrt 2) = 0.5 exp(-x^2/2) erfcx(|x|/sqrt 2): the lower normal tail,
   with full relative accuracy (no cancellation anywhere) */
static inline f64x2 normal_tail_d(f64x2 x) {
  const f64x2 K = f64x2_splat(3.0);
  f64x2 t = f64x2_mul(f64x2_clamp(f64x2_abs(x), 0.0, 1e30), f64x2_splat(0.70710678118654752440));
  f64x2 tk = f64x2_add(t, K);
  f64x2 y = f64x2_div(f64x2_sub(t, K), tk), y2 = f64x2_add(y, y);
  f64x2 b1 = f64x2_splat(0.0), b2 = f64x2_splat(0.0);
  for (int k = 23; k >= 1; k--) { /* Clenshaw recurrence */
    f64x2 b0 = f64x2_add(f64x2_sub(f64x2_mul(y2, b1), b2), f64x2_splat(erfcx_cheb[k]));
    b2 = b1, b1 = b0;
  }
  f64x2 g = f64x2_add(f64x2_sub(f64x2_mul(y, b1), b2), f64x2_splat(erfcx_cheb[0]));
  f64x2 gauss = exp_d(f64x2_mul(f64x2_splat(-0.5), f64x2_mul(x, x))); /* x*x/2 exact for float x */
  return f64x2_mul(f64x2_mul(f64x2_splat(0.5), gauss), f64x2_div(g, tk));
}

/* Phi(x), the standard normal CDF */
static inline f64x2 normal_cdf_d(f64x2 x) {
  f64x2 q = normal_tail_d(x);
  return f64x2_select(f64x2_lt(x, f64x2_splat(0.0)), q, f64x2_sub(f64x2_splat(1.0), q));
}

#define SQRT_2_OVER_PI 0.79788456080286535588 /* sqrt(2/pi) */
#define INV_SQRT_2PI 0.39894228040143267794   /* 1/sqrt(2 pi) */
#define GELU_TANH_A 0.044715
#define GELU_SIGMOID_K 1.702

/* x with -inf replaced by -FLT_MAX: x * (vanishing factor) then gives -0, not -inf * tiny */
static inline f64x2 lowclamp_d(f64x2 x) { return f64x2_clamp(x, -FLT_MAX, INFINITY); }
/* x with both infinities replaced by +-FLT_MAX (for products with a vanishing factor) */
static inline f64x2 clamp_d(f64x2 x) { return f64x2_clamp(x, -FLT_MAX, FLT_MAX); }

/* 2u for gelu_tanh: 2 sqrt(2/pi) (x + a x^3); 1 + tanh(u) = 2 sigmoid(2u) */
static inline f64x2 gelu_tanh_arg_d(f64x2 x) {
  f64x2 x2 = f64x2_mul(x, x);
  f64x2 inner = f64x2_add(f64x2_splat(1.0), f64x2_mul(f64x2_splat(GELU_TANH_A), x2));
  return f64x2_mul(f64x2_splat(2.0 * SQRT_2_OVER_PI), f64x2_mul(x, inner));
}

/* forward, one double pair (x already a float value) */
static inline f64x2 fwd_d(f64x2 x, int act) {
  switch (act) {
    case FFN_ACT_SIGMOID: return sigmoid_d(x, NULL);
    case FFN_ACT_SILU: return f64x2_mul(lowclamp_d(x), sigmoid_d(x, NULL));
    case FFN_ACT_GELU_SIGMOID:
      return f64x2_mul(lowclamp_d(x), sigmoid_d(f64x2_mul(f64x2_splat(GELU_SIGMOID_K), x), NULL));
    case FFN_ACT_GELU_TANH: {
      f64x2 xc = lowclamp_d(x);
      return f64x2_mul(xc, sigmoid_d(gelu_tanh_arg_d(xc), NULL));
    }
    default: /* FFN_ACT_GELU */ return f64x2_mul(lowclamp_d(x), normal_cdf_d(x));
  }
}

/* derivative, one double pair */
static inline f64x2 grad_d(f64x2 x, int act) {
  f64x2 e, s, xc = clamp_d(x);
  switch (act) {
    case FFN_ACT_SIGMOID: /* s (1 - s) */
      s = sigmoid_d(x, &e);
      return f64x2_mul(s, f64x2_mul(e, s));
    case FFN_ACT_SILU: /* s + x s (1 - s) */
      s = sigmoid_d(xc, &e);
      return f64x2_add(s, f64x2_mul(xc, f64x2_mul(s, f64x2_mul(e, s))));
    case FFN_ACT_GELU_SIGMOID: { /* s(kx) + kx s (1 - s) */
      f64x2 kx = f64x2_mul(f64x2_splat(GELU_SIGMOID_K), xc);
      s = sigmoid_d(kx, &e);
      return f64x2_add(s, f64x2_mul(kx, f64x2_mul(s, f64x2_mul(e, s))));
    }
    case FFN_ACT_GELU_TANH: { /* d/dx x s(2u) = s + x (2u)' s (1 - s) */
      f64x2 x2 = f64x2_mul(xc, xc);
      f64x2 du =
          f64x2_mul(f64x2_splat(2.0 * SQRT_2_OVER_PI),
                    f64x2_add(f64x2_splat(1.0), f64x2_mul(f64x2_splat(3.0 * GELU_TANH_A), x2)));
      s = sigmoid_d(gelu_tanh_arg_d(xc), &e);
      return f64x2_add(s, f64x2_mul(f64x2_mul(xc, du), f64x2_mul(s, f64x2_mul(e, s))));
    }
    default: { /* FFN_ACT_GELU: Phi(x) + x phi(x) */
      f64x2 pdf = f64x2_mul(f64x2_splat(INV_SQRT_2PI),
                            exp_d(f64x2_mul(f64x2_splat(-0.5), f64x2_mul(xc, xc))));
      return f64x2_add(normal_cdf_d(x), f64x2_mul(xc, pdf));
    }
  }
}

/* ---- f32x4 lanes --------------------------------------------------------- */

static inline f32x4 nan_pass(f32x4 x, f32x4 y) { return f32x4_select(f32x4_isnan(x), x, y); }

static inline f32x4 fwd4(f32x4 x, int act) {
  f32x4 zero = f32x4_splat(0.0f);
  switch (act) {
    case FFN_ACT_IDENTITY: return x;
    case FFN_ACT_RELU: /* x <= 0 -> +0 (also for -0); NaN stays NaN */
      return f32x4_select(f32x4_le(x, zero), zero, x);
    case FFN_ACT_RELU2: {
      f32x4 r = f32x4_select(f32x4_le(x, zero), zero, x);
      return f32x4_mul(r, r);
    }
    default: {
      f32x4 y = f64x2_demote_pair(fwd_d(f32x4_promote_lo(x), act), fwd_d(f32x4_promote_hi(x), act));
      return nan_pass(x, y);
    }
  }
}

static inline f32x4 grad4(f32x4 x, int act) {
  f32x4 zero = f32x4_splat(0.0f), one = f32x4_splat(1.0f);
  switch (act) {
    case FFN_ACT_IDENTITY: return nan_pass(x, one);
    case FFN_ACT_RELU: /* relu'(0) = 0, as PyTorch */
      return nan_pass(x, f32x4_select(f32x4_gt(x, zero), one, zero));
    case FFN_ACT_RELU2: {
      f32x4 r = f32x4_select(f32x4_le(x, zero), zero, x);
      return f32x4_add(r, r);
    }
    default: {
      f32x4 y =
          f64x2_demote_pair(grad_d(f32x4_promote_lo(x), act), grad_d(f32x4_promote_hi(x), act));
      return nan_pass(x, y);
    }
  }
}

/* x (n) -> y (n) = phi(x). y may alias x. */
FFN_API int act_forward(float *y, const float *x, int n, int act) {
  if (n < 0 || act < 0 || act >= FFN_ACT_COUNT) return FFN_EINVAL;
  int i = 0;
  for (; i + 4 <= n; i += 4) f32x4_store(y + i, fwd4(f32x4_load(x + i), act));
  if (i < n) { /* leftovers: the same lane math on a zero-padded vector */
    float buf[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    memcpy(buf, x + i, (size_t)(n - i) * sizeof(float));
    f32x4_store(buf, fwd4(f32x4_load(buf), act));
    memcpy(y + i, buf, (size_t)(n - i) * sizeof(float));
  }
  return FFN_OK;
}

/* x (n) -> g (n) = phi'(x). g may alias x. */
FFN_API int act_grad(float *g, const float *x, int n, int act) {
  if (n < 0 || act < 0 || act >= FFN_ACT_COUNT) return FFN_EINVAL;
  int i = 0;
  for (; i + 4 <= n; i += 4) f32x4_store(g + i, grad4(f32x4_load(x + i), act));
  if (i < n) {
    float buf[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    memcpy(buf, x + i, (size_t)(n - i) * sizeof(float));
    f32x4_store(buf, grad4(f32x4_load(buf), act));
    memcpy(g + i, buf, (size_t)(n - i) * sizeof(float));
  }
  return FFN_OK;
}

/* dy (n), x (n) -> dx (n) = dy * phi'(x), phi'(x) rounded to float first (so dx == dy *
   act_grad(x)). dx may alias dy or x. */
FFN_API int act_backward(float *dx, const float *dy, const float *x, int n, int act) {
  if (n < 0 || act < 0 || act >= FFN_ACT_COUNT) return FFN_EINVAL;
  int i = 0;
  for (; i + 4 <= n; i += 4)
    f32x4_store(dx + i, f32x4_mul(f32x4_load(dy + i), grad4(f32x4_load(x + i), act)));
  if (i < n) {
    float bx[4] = {0.0f, 0.0f, 0.0f, 0.0f}, bd[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    memcpy(bx, x + i, (size_t)(n - i) * sizeof(float));
    memcpy(bd, dy + i, (size_t)(n - i) * sizeof(float));
    f32x4_store(bd, f32x4_mul(f32x4_load(bd), grad4(f32x4_load(bx), act)));
    memcpy(dx + i, bd, (size_t)(n - i) * sizeof(float));
  }
  return FFN_OK;
}

/* h (n) = phi(g) * u, phi(g) rounded to float first; used by the gated FFN (h may alias g or u) */
void ffn_gate_mul(float *h, const float *g, const float *u, size_t n, int act) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    f32x4_store(h + i, f32x4_mul(fwd4(f32x4_load(g + i), act), f32x4_load(u + i)));
  if (i < n) {
    float bg[4] = {0.0f, 0.0f, 0.0f, 0.0f}, bu[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    memcpy(bg, g + i, (n - i) * sizeof(float));
    memcpy(bu, u + i, (n - i) * sizeof(float));
    f32x4_store(bu, f32x4_mul(fwd4(f32x4_load(bg), act), f32x4_load(bu)));
    memcpy(h + i, bu, (n - i) * sizeof(float));
  }
}

/* In place over rows of the SwiGLU backward: given G, U and dH (each n),
   writes dG = dH * U * silu'(G) into G and dU = dH * silu(G) into U. */
void ffn_swiglu_gate_grads(float *G, float *U, const float *dH, size_t n) {
  size_t i = 0;
  float bg[4], bu[4], bh[4];
  for (; i < n; i += 4) {
    size_t m = n - i < 4 ? n - i : 4;
    f32x4 g, u, dh;
    if (m == 4) {
      g = f32x4_load(G + i), u = f32x4_load(U + i), dh = f32x4_load(dH + i);
    } else { /* leftovers on zero-padded vectors */
      memset(bg, 0, sizeof bg), memset(bu, 0, sizeof bu), memset(bh, 0, sizeof bh);
      memcpy(bg, G + i, m * sizeof(float));
      memcpy(bu, U + i, m * sizeof(float));
      memcpy(bh, dH + i, m * sizeof(float));
      g = f32x4_load(bg), u = f32x4_load(bu), dh = f32x4_load(bh);
    }
    f32x4 a = fwd4(g, FFN_ACT_SILU), da = grad4(g, FFN_ACT_SILU);
    f32x4 dg = f32x4_mul(f32x4_mul(dh, u), da), du = f32x4_mul(dh, a);
    if (m == 4) {
      f32x4_store(G + i, dg), f32x4_store(U + i, du);
    } else {
      f32x4_store(bg, dg), f32x4_store(bu, du);
      memcpy(G + i, bg, m * sizeof(float));
      memcpy(U + i, bu, m * sizeof(float));
    }
  }
}
