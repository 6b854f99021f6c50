/* Activations and derivatives: f32x4 polynomials (f64x2 where exactness needs it), f64x2 lanes */
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "ffn.h"
#include "internal.h"
#include "simd.h"

/* ---- double-lane building blocks --------------------------------------- */

/* exp(z) for every lane, z clamped to [-708, 708] (results stay normal doubles).
   z = n ln2 + r with |r| <= ln2/2, exp(r) by its Taylor polynomial to degree 12
   (truncation below 2e-16 relative), then scaled by 2^n built in the exponent bits. */
static inline f64x2 exp_d(f64x2 z) {
  const double shifter = 6755399441055744.0;        /* 1.5 * 2^52: adding it rounds to an integer */
  const double log2e = 1.4426950408889634074;       /* 1/ln 2 */
  const double ln2_hi = 0.693147180369123816490;    /* ln 2 with 32 significant bits: n*ln2_hi exact */
  const double ln2_lo = 1.90821492927058770002e-10; /* ln 2 - ln2_hi */
  z = f64x2_clamp(z, -708.0, 708.0);
  f64x2 kd = f64x2_add(f64x2_mul(z, f64x2_splat(log2e)), f64x2_splat(shifter));
  f64x2 n = f64x2_sub(kd, f64x2_splat(shifter));
  f64x2 r = f64x2_sub(f64x2_sub(z, f64x2_mul(n, f64x2_splat(ln2_hi))), f64x2_mul(n, f64x2_splat(ln2_lo)));
  /* Horner on 1 + r + r^2/2! + ... + r^12/12! */
  f64x2 p = f64x2_splat(1.0 / 479001600.0);
  static const double inv_fact[12] = {
      /* 1/11!, 1/10!, ..., 1/1!, 1/0! */
      1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0,
      1.0 / 120.0,      1.0 / 24.0,      1.0 / 6.0,      0.5,           1.0,          1.0};
  for (int i = 0; i < 12; i++) p = f64x2_add(f64x2_mul(p, r), f64x2_splat(inv_fact[i]));
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

#define SQRT_2_OVER_PI 0.79788456080286535588 /* sqrt(2/pi) */
#define INV_SQRT_2PI 0.39894228040143267794   /* 1/sqrt(2 pi) */
#define GELU_TANH_A 0.044715
#define GELU_SIGMOID_K 1.702

/* x with both infinities replaced by +-FLT_MAX (for products with a vanishing factor) */
static inline f64x2 clamp_d(f64x2 x) { return f64x2_clamp(x, -FLT_MAX, FLT_MAX); }

/* 2u for gelu_tanh: 2 sqrt(2/pi) (x + a x^3); 1 + tanh(u) = 2 sigmoid(2u) */
static inline f64x2 gelu_tanh_arg_d(f64x2 x) {
  f64x2 x2 = f64x2_mul(x, x);
  f64x2 inner = f64x2_add(f64x2_splat(1.0), f64x2_mul(f64x2_splat(GELU_TANH_A), x2));
  return f64x2_mul(f64x2_splat(2.0 * SQRT_2_OVER_PI), f64x2_mul(x, inner));
}

/* derivative, one double pair */
static inline f64x2 grad_act_d(f64x2 x, int act) {
  f64x2 e, s, xc = clamp_d(x);
  switch (act) {
    case FFN_ACT_SIGMOID: /* s (1 - s) */
      s = sigmoid_d(x, &e);
      return f64x2_mul(s, f64x2_mul(e, s));
    case FFN_ACT_SILU: /* s + x s (1 - s) */
      s = sigmoid_d(xc, &e);
      return f64x2_add(s, f64x2_mul(xc, f64x2_mul(s, f64x2_mul(e, s))));
    case FFN_ACT_GELU_TANH: { /* d/dx x s(2u) = s + x (2u)' s (1 - s) */
      f64x2 x2 = f64x2_mul(xc, xc);
      f64x2 du = f64x2_mul(f64x2_splat(2.0 * SQRT_2_OVER_PI),
                           f64x2_add(f64x2_splat(1.0), f64x2_mul(f64x2_splat(3.0 * GELU_TANH_A), x2)));
      s = sigmoid_d(gelu_tanh_arg_d(xc), &e);
      return f64x2_add(s, f64x2_mul(f64x2_mul(xc, du), f64x2_mul(s, f64x2_mul(e, s))));
    }
    default: { /* FFN_ACT_GELU_SIGMOID: s(kx) + kx s (1 - s) */
      f64x2 kx = f64x2_mul(f64x2_splat(GELU_SIGMOID_K), xc);
      s = sigmoid_d(kx, &e);
      return f64x2_add(s, f64x2_mul(kx, f64x2_mul(s, f64x2_mul(e, s))));
    }
  }
}

/* ---- f32x4 lanes: forward kernels ---------------------------------------- */

static inline f32x4 nan_pass_f(f32x4 x, f32x4 y) { return f32x4_select(f32x4_isnan(x), x, y); }

#define SHIFT_F 12582912.0f                /* 1.5 * 2^23: adding it rounds to an integer kept in low bits */
#define LOG2E_F 1.44269504088896341f       /* 1/ln 2 */
#define LN2_HI_F 0.693359375f              /* ln 2 with 9 significant bits: n*LN2_HI_F exact */
#define LN2_LO_F -2.12194440e-4f           /* ln 2 - LN2_HI_F */
#define TWO_M64_F 5.42101086242752217e-20f /* 2^-64 */
#define EXP_BIAS64 ((127 + 64) << 23)      /* float bits of 2^(n+64) = (n << 23) + EXP_BIAS64 */
/* exp arguments are clamped here: 2^(n+64) stays normal, the results underflow */
#define Z_MIN -130.0f
#define SHIFT_D 6755399441055744.0 /* 1.5 * 2^52 */
#define LN2_D 0.69314718055994530942
#define LN2_F 0.693147182f /* ln 2 rounded to float */

/* e^r - 1 - r for |r| <= ln2/2 + 1e-3: r^2 q(r), q minimax for absolute error (4.6e-9 as float32s;
   fitted by src/fit, derivation in src/README.md "Numerics") */
static inline f32x4 em1_tail_f(f32x4 r) {
  f32x4 q = f32x4_add(f32x4_mul(f32x4_splat(1.3950835e-03f), r), f32x4_splat(8.369088e-03f));
  q = f32x4_add(f32x4_mul(q, r), f32x4_splat(4.1666202e-02f));
  q = f32x4_add(f32x4_mul(q, r), f32x4_splat(1.6666517e-01f));
  q = f32x4_add(f32x4_mul(q, r), f32x4_splat(5.0e-01f));
  return f32x4_mul(f32x4_mul(r, r), q);
}
static inline f32x4 em1_f(f32x4 r) { return f32x4_add(r, em1_tail_f(r)); } /* e^r - 1 */

/* x sigmoid(u) given z = -|u| = n ln2 + r (r as floats, p64 = 2^(n+64)) and the sign of u (that
   of x); sigmoid(u) alone is num / sigmoid_den_f with num = 1 or P. With P = 2^n:
   u >= 0: x / (1 + P e^r) = x / ((1 + P) + P (e^r - 1));
   u < 0: x P / (P + e^-r) = x P / ((1 + P) + (e^-r - 1)).
   One polynomial (at r or -r), one rounded sum (1 + P kept exact by its Fast2Sum error), one
   division; x P is formed as (x 2^(n+64)) 2^-64, exact unless it is subnormal. */
static inline f32x4 sigmoid_den_f(f32x4 r, f32x4 P, f32x4 sgn, m32x4 neg) {
  f32x4 one = f32x4_splat(1.0f);
  f32x4 em = em1_f(f32x4_xorsign(r, sgn));
  f32x4 A = f32x4_add(one, P), A_lo = f32x4_add(f32x4_sub(one, A), P);
  return f32x4_add(A, f32x4_add(f32x4_mul(f32x4_select(neg, one, P), em), A_lo));
}
static inline f32x4 times_sigmoid_f(f32x4 x, f32x4 r, f32x4 p64, f32x4 sgn) {
  m32x4 neg = f32x4_lt(sgn, f32x4_splat(0.0f));
  f32x4 m64 = f32x4_splat(TWO_M64_F);
  f32x4 den = sigmoid_den_f(r, f32x4_mul(p64, m64), sgn, neg);
  return f32x4_div(f32x4_select(neg, f32x4_mul(f32x4_mul(x, p64), m64), x), den);
}

/* z = n ln2 + r for z in [Z_MIN, 0] in floats; returns r, *p64 = 2^(n+64) */
static inline f32x4 reduce_f(f32x4 z, f32x4 *p64) {
  f32x4 kf = f32x4_add(f32x4_mul(z, f32x4_splat(LOG2E_F)), f32x4_splat(SHIFT_F));
  f32x4 nf = f32x4_sub(kf, f32x4_splat(SHIFT_F));
  *p64 = f32x4_shl23_add(kf, EXP_BIAS64);
  return f32x4_sub(f32x4_sub(z, f32x4_mul(nf, f32x4_splat(LN2_HI_F))), f32x4_mul(nf, f32x4_splat(LN2_LO_F)));
}

static inline f32x4 fwd_sigmoid_f(f32x4 x) { /* NaN propagates through den */
  m32x4 neg = f32x4_lt(x, f32x4_splat(0.0f));
  f32x4 p64, r = reduce_f(f32x4_pmax(f32x4_negabs(x), f32x4_splat(Z_MIN)), &p64);
  f32x4 P = f32x4_mul(p64, f32x4_splat(TWO_M64_F)); /* 0 below 2^-150: so is the result */
  return f32x4_div(f32x4_select(neg, P, f32x4_splat(1.0f)), sigmoid_den_f(r, P, x, neg));
}

static inline f32x4 fwd_silu_f(f32x4 x) {
  f32x4 xc = f32x4_pmax(x, f32x4_splat(Z_MIN)); /* -inf -> Z_MIN: the product underflows to -0 */
  f32x4 p64, r = reduce_f(f32x4_pmax(f32x4_negabs(x), f32x4_splat(Z_MIN)), &p64);
  return times_sigmoid_f(xc, r, p64, x);
}

/* x sigmoid(1.702 x): u = 1.702 |x| kept exact as zh + zm + zl (x split into 12-bit halves) */
static inline f32x4 fwd_gelu_sigmoid_f(f32x4 x) {
  const float kh = 1.7021484375f; /* 1.702 to 11 bits: kh times a 12-bit half of x is exact */
  const float kl = -1.484375e-4f; /* 1.702 - kh */
  f32x4 xc = f32x4_pmax(x, f32x4_splat(-76.0f));
  f32x4 a = f32x4_pmin(f32x4_abs(x), f32x4_splat(76.0f));
  f32x4 t = f32x4_mul(a, f32x4_splat(4097.0f));
  f32x4 ah = f32x4_sub(t, f32x4_sub(t, a)), al = f32x4_sub(a, ah);
  f32x4 zh = f32x4_mul(ah, f32x4_splat(kh)), zm = f32x4_mul(al, f32x4_splat(kh));
  f32x4 zl = f32x4_mul(a, f32x4_splat(kl));
  /* -u = n ln2 + r: n from the rounded sum; -zh - n LN2_HI exact, the small terms summed first */
  f32x4 kf = f32x4_add(f32x4_mul(f32x4_add(zh, zm), f32x4_splat(-LOG2E_F)), f32x4_splat(SHIFT_F));
  f32x4 nf = f32x4_sub(kf, f32x4_splat(SHIFT_F));
  f32x4 big = f32x4_sub(f32x4_neg(zh), f32x4_mul(nf, f32x4_splat(LN2_HI_F)));
  f32x4 small = f32x4_add(f32x4_add(zm, zl), f32x4_mul(nf, f32x4_splat(LN2_LO_F)));
  f32x4 r = f32x4_sub(big, small);
  return times_sigmoid_f(xc, r, f32x4_shl23_add(kf, EXP_BIAS64), x);
}

/* x sigmoid(2u), 2u = 2 sqrt(2/pi) (x + 0.044715 x^3) (the 1 + tanh(u) form), for |x| <= 11
   (beyond, the result is x or -0). S = 2u / ln2 (odd in x) is a cubic in double; with m = round(S),
   t = m - S and rho = t ln2, -|2u| = -|m| ln2 + rho for either sign of x, so rho is the argument
   times_sigmoid_f wants (e^rho, no sign flip) and 2^-|m| is P. */
static inline f64x2 gelu_tanh_s_d(f64x2 X) {
  const double c1 = 2.0 * SQRT_2_OVER_PI * 1.4426950408889634074, c3 = c1 * GELU_TANH_A;
  return f64x2_mul(X, f64x2_add(f64x2_splat(c1), f64x2_mul(f64x2_splat(c3), f64x2_mul(X, X))));
}
/* S (two double halves) -> t = round(S) - S as floats (exact in double, then rounded once);
   round(S) goes to m as integer lanes */
static inline f32x4 gelu_tanh_reduce_d(f64x2 slo, f64x2 shi, f32x4 *m) {
  f64x2 kl = f64x2_add(slo, f64x2_splat(SHIFT_D)), kh = f64x2_add(shi, f64x2_splat(SHIFT_D));
  f64x2 tl = f64x2_sub(f64x2_sub(kl, f64x2_splat(SHIFT_D)), slo);
  f64x2 th = f64x2_sub(f64x2_sub(kh, f64x2_splat(SHIFT_D)), shi);
  *m = f64x2_low_words(kl, kh);
  return f64x2_demote_pair(tl, th);
}
static inline f32x4 fwd_gelu_tanh_f(f32x4 x) { /* NaN propagates (through xc) */
  f32x4 one = f32x4_splat(1.0f), m64 = f32x4_splat(TWO_M64_F);
  f32x4 xc = f32x4_pmax(x, f32x4_splat(-11.0f)), X = f32x4_pmin(xc, f32x4_splat(11.0f));
  f32x4 m, t = gelu_tanh_reduce_d(gelu_tanh_s_d(f32x4_promote_lo(X)), gelu_tanh_s_d(f32x4_promote_hi(X)), &m);
  f32x4 p64 = f32x4_sub_shl23_abs(EXP_BIAS64, m); /* 2^(64 - |m|) */
  f32x4 P = f32x4_mul(p64, m64);
  f32x4 em = em1_f(f32x4_mul(t, f32x4_splat(LN2_F)));
  /* times_sigmoid_f(xc, rho, p64, x) with its em1(+-r) = em1(rho), and since P <= 1 its two selects
     as maxima: select(neg, 1, P) = max(P, 1 or 0), select(neg, x P, x) = max(x, x P): the same
     values. The denominator 1 + P + (P or 1) em adds the small terms first, without times_sigmoid_f's
     Fast2Sum (three operations fewer; at most 1.99 ulp over every float, 1.85 with it). */
  m32x4 neg = f32x4_lt(x, f32x4_splat(0.0f));
  f32x4 den = f32x4_add(f32x4_add(f32x4_mul(f32x4_pmax(P, f32x4_and_mask(neg, one)), em), P), one);
  return f32x4_div(f32x4_pmax(xc, f32x4_mul(f32x4_mul(xc, p64), m64)), den);
}

/* GELU' (below) works with Q = Phi(-|x|) = 0.5 e^{-a^2/2} erfcx(a/sqrt2), a = |x| <= 15:
   erfcx(a/sqrt2) = g(y)/(a + K), y = (a - K)/(a + K), K = 3.5, g a degree-9 polynomial (relative
   error 9.9e-9 over a <= 15; src/fit). a^2, the reduction, y and 1/(a+K) in double; the exp and g
   polynomials in floats (their last two terms of g in double). */
static const float gelu_g_tail[8] = {/* 0.5 g(y) = c0 + y (c1 + y T(y)): T's c9 .. c2, halved */
                                     1.08692926e-04f, 4.183224e-04f,  -4.950392e-04f,  -3.172828e-03f,
                                     6.4937267e-03f,  1.7405821e-02f, -1.1605317e-01f, 3.154251e-01f};
#define GELU_C0 0.7444160721124123  /* 0.5 c0 */
#define GELU_C1 -0.5655617407294252 /* 0.5 c1 */
#define GELU_K 3.5

static inline void gelu_prep_d(f64x2 a, f64x2 *t, f64x2 *y, f64x2 *inv) {
  *t = f64x2_mul(f64x2_mul(a, a), f64x2_splat(-0.5 * 1.4426950408889634074)); /* -a^2/2 / ln2 */
  *inv = f64x2_div(f64x2_splat(1.0), f64x2_add(a, f64x2_splat(GELU_K)));
  *y = f64x2_mul(f64x2_sub(a, f64x2_splat(GELU_K)), *inv);
}
/* the parts of GELU', for a = min(|x|, 15), low (0) and high (1) lane pairs: the
   reduction -a^2/2 = n ln2 + r (k holding n in its low bits, r kept in double too), e^r - 1 - r,
   y, 1/(a + K) and T(y) */
typedef struct {
  f64x2 a[2], k[2], r[2], em_tail[2], y[2], T[2], inv[2];
} gelu_parts;
static inline gelu_parts gelu_parts_f(f32x4 x) {
  gelu_parts p;
  f32x4 a = f32x4_pmin(f32x4_abs(x), f32x4_splat(15.0f));
  p.a[0] = f32x4_promote_lo(a), p.a[1] = f32x4_promote_hi(a);
  for (int h = 0; h < 2; h++) {
    f64x2 t;
    gelu_prep_d(p.a[h], &t, &p.y[h], &p.inv[h]);
    p.k[h] = f64x2_add(t, f64x2_splat(SHIFT_D));
    p.r[h] = f64x2_mul(f64x2_sub(t, f64x2_sub(p.k[h], f64x2_splat(SHIFT_D))), f64x2_splat(LN2_D));
  }
  f32x4 r = f64x2_demote_pair(p.r[0], p.r[1]), yf = f64x2_demote_pair(p.y[0], p.y[1]);
  f32x4 em_tail = em1_tail_f(r);
  f32x4 T = f32x4_splat(gelu_g_tail[0]);
  for (int i = 1; i < 8; i++) T = f32x4_add(f32x4_mul(T, yf), f32x4_splat(gelu_g_tail[i]));
  p.em_tail[0] = f32x4_promote_lo(em_tail), p.em_tail[1] = f32x4_promote_hi(em_tail);
  p.T[0] = f32x4_promote_lo(T), p.T[1] = f32x4_promote_hi(T);
  return p;
}
/* GELU forward in f32x4 only: x Phi(x) = x - a Q (x >= 0) or -a Q (x < 0), a = min(|x|, 15),
   Q = Phi(-a) = e^{-a^2/2} / D(a), D = 1/(e^{a^2/2} Phi(-a)) = 2 + 2.25 a + a T(a), T a (4,4)
   rational (relative error 7.7e-9 in D; src/fit). a^2 = u + ul with u = ah^2 exact (ah: a to 2^-6),
   -a^2/2 = n ln2 + r; H = 2 + 2.25 ah is exact and D = H + rest; q = a / D to 10 bits, its
   residual a - q H - q rest nearly exact, so a Q = 2^n e^r (q + dq) is rounded once at the end
   (max error measured: README "Numerics"). */
static const float gelu_t_num[5] = {2.1154087e-03f, 4.4074846e-03f, -4.823686e-02f, -3.006304e-01f, -6.542303e-01f};
static const float gelu_t_den[5] = {8.243975e-03f, 8.137431e-02f, 3.6683622e-01f, 8.771554e-01f, 1.0f};
#define GELU_D1 2.25f                      /* the linear term of D kept exact (2 bits) */
#define SHIFT_64TH 196608.0f               /* 1.5 * 2^17: adding it rounds to a multiple of 2^-6 */
#define LN2X2_HI_F 1.38629150390625f       /* 2 ln 2 with 16 significant bits: n*LN2X2_HI_F exact */
#define LN2X2_LO_F 2.85721364061883446e-6f /* 2 ln 2 - LN2X2_HI_F */
static inline f32x4 fwd_gelu_f(f32x4 x) {  /* NaN propagates; -0 -> -0, -inf -> -0 */
  f32x4 one = f32x4_splat(1.0f);
  f32x4 a = f32x4_pmin(f32x4_abs(x), f32x4_splat(15.0f));
  f32x4 ah = f32x4_sub(f32x4_add(a, f32x4_splat(SHIFT_64TH)), f32x4_splat(SHIFT_64TH));
  f32x4 al = f32x4_sub(a, ah);
  f32x4 u = f32x4_mul(ah, ah), ul = f32x4_mul(al, f32x4_add(a, ah)); /* a^2 = u + ul */
  /* -a^2/2 = n ln2 + r: kf holds n in its low bits; u + n (2 ln2)_hi exact */
  f32x4 kf = f32x4_add(f32x4_mul(f32x4_add(u, ul), f32x4_splat(-0.5f * LOG2E_F)), f32x4_splat(SHIFT_F));
  f32x4 nf = f32x4_sub(kf, f32x4_splat(SHIFT_F));
  f32x4 r = f32x4_mul(f32x4_add(f32x4_add(u, f32x4_mul(nf, f32x4_splat(LN2X2_HI_F))),
                                f32x4_add(ul, f32x4_mul(nf, f32x4_splat(LN2X2_LO_F)))),
                      f32x4_splat(-0.5f));
  f32x4 tail = em1_tail_f(r); /* e^r = 1 + r + tail */
  f32x4 P = f32x4_splat(gelu_t_num[0]), Q = f32x4_splat(gelu_t_den[0]);
  for (int i = 1; i < 5; i++) {
    P = f32x4_add(f32x4_mul(P, a), f32x4_splat(gelu_t_num[i]));
    Q = f32x4_add(f32x4_mul(Q, a), f32x4_splat(gelu_t_den[i]));
  }
  f32x4 rest = f32x4_add(f32x4_mul(al, f32x4_splat(GELU_D1)), f32x4_mul(a, f32x4_div(P, Q)));
  f32x4 H = f32x4_add(f32x4_mul(ah, f32x4_splat(GELU_D1)), f32x4_splat(2.0f)); /* 14 bits */
  f32x4 inv = f32x4_div(one, f32x4_add(H, rest));
  /* q: a/D rounded to 10 bits (q H exact); dq = (a - q H - q rest) / D */
  f32x4 q0 = f32x4_mul(a, inv), tq = f32x4_mul(q0, f32x4_splat(16385.0f));
  f32x4 q = f32x4_sub(tq, f32x4_sub(tq, q0));
  f32x4 dq = f32x4_mul(f32x4_sub(f32x4_sub(a, f32x4_mul(q, H)), f32x4_mul(q, rest)), inv);
  /* (q + dq) e^r = q + (q r + (q tail + dq e^r)): one rounding at the end */
  f32x4 corr = f32x4_add(f32x4_mul(q, tail), f32x4_mul(dq, f32x4_add(one, f32x4_add(r, tail))));
  f32x4 aq = f32x4_add(q, f32x4_add(f32x4_mul(q, r), corr));
  /* a Q = ((a Q') 2^(n+64)) 2^-64: exact scalings, one rounding if a Q is subnormal */
  aq = f32x4_mul(f32x4_mul(aq, f32x4_shl23_add(kf, EXP_BIAS64)), f32x4_splat(TWO_M64_F));
  return f32x4_sub(f32x4_select(f32x4_signmask(x), f32x4_splat(-0.0f), x), aq);
}

/* GELU' = Phi(x) + x phi(x) = 1 - G B (x >= 0) or G B (x < 0), with G = e^{-a^2/2} and
   B = Q/G - a/sqrt(2 pi), Q/G = g(y)/(2(a + K)) (gelu_parts_f, above). For x < 0, B has a root at
   a0 = 0.7518 (GELU's minimum): within |a - a0| < 0.3, B = d h(d), d = a - a0, h a degree-7
   polynomial (relative error 4.3e-11; src/fit); elsewhere the cancellation in B is at most 2x. */
static const double gelu_grad_h[8] = {/* h(d), highest degree first */
                                      0.00016816582950484796, -0.0005596241976545725, 0.0017383748730724453,
                                      -0.005163655134280873,  0.01431366411237903,    -0.03658160023863951,
                                      0.08475636961021298,    -0.5724061752030023};
#define GELU_A0_HI 0.7517915246935645
#define GELU_A0_LO -1.4956759177009883e-17
static inline f64x2 grad_gelu_d(f64x2 x, f64x2 a, f64x2 k, f64x2 r, f64x2 em_tail, f64x2 y, f64x2 T, f64x2 inv) {
  f64x2 e = f64x2_add(f64x2_splat(1.0), f64x2_add(r, em_tail)); /* e^r */
  f64x2 G = f64x2_mul(e, f64x2_shl52_add(k, (int64_t)1023 << 52));
  f64x2 g = f64x2_add(f64x2_splat(GELU_C0), f64x2_mul(y, f64x2_add(f64x2_splat(GELU_C1), f64x2_mul(y, T))));
  f64x2 b_far = f64x2_sub(f64x2_mul(g, inv), f64x2_mul(a, f64x2_splat(INV_SQRT_2PI)));
  f64x2 d = f64x2_sub(f64x2_sub(a, f64x2_splat(GELU_A0_HI)), f64x2_splat(GELU_A0_LO));
  f64x2 h = f64x2_splat(gelu_grad_h[0]);
  for (int i = 1; i < 8; i++) h = f64x2_add(f64x2_mul(h, d), f64x2_splat(gelu_grad_h[i]));
  m64x2 neg = f64x2_lt(x, f64x2_splat(0.0));
  f64x2 b = f64x2_select(f64x2_lt(f64x2_abs(d), f64x2_splat(0.3)), f64x2_mul(d, h), b_far);
  f64x2 gb = f64x2_mul(G, f64x2_select(neg, b, b_far));
  return f64x2_select(neg, gb, f64x2_sub(f64x2_splat(1.0), gb));
}
static inline f32x4 grad_gelu_f(f32x4 x) { /* NaN propagates */
  gelu_parts p = gelu_parts_f(x);
  return f64x2_demote_pair(
      grad_gelu_d(f32x4_promote_lo(x), p.a[0], p.k[0], p.r[0], p.em_tail[0], p.y[0], p.T[0], p.inv[0]),
      grad_gelu_d(f32x4_promote_hi(x), p.a[1], p.k[1], p.r[1], p.em_tail[1], p.y[1], p.T[1], p.inv[1]));
}

static inline f32x4 fwd_relu_f(f32x4 x) { /* x <= 0 -> +0 (also for -0); NaN stays NaN */
  return f32x4_select(f32x4_le(x, f32x4_splat(0.0f)), f32x4_splat(0.0f), x);
}
static inline f32x4 fwd_relu2_f(f32x4 x) {
  f32x4 r = fwd_relu_f(x);
  return f32x4_mul(r, r);
}
static inline f32x4 fwd_identity_f(f32x4 x) { return x; }

/* ---- f32x4 lanes: derivatives (double lanes) -------------------------------- */

static inline f32x4 grad_act_f(f32x4 x, int act) {
  f32x4 zero = f32x4_splat(0.0f), one = f32x4_splat(1.0f);
  switch (act) {
    case FFN_ACT_IDENTITY:
      return nan_pass_f(x, one);
    case FFN_ACT_RELU: /* relu'(0) = 0, as PyTorch */
      return nan_pass_f(x, f32x4_select(f32x4_gt(x, zero), one, zero));
    case FFN_ACT_RELU2: {
      f32x4 r = f32x4_select(f32x4_le(x, zero), zero, x);
      return f32x4_add(r, r);
    }
    case FFN_ACT_GELU:
      return grad_gelu_f(x);
    default: {
      f32x4 y = f64x2_demote_pair(grad_act_d(f32x4_promote_lo(x), act), grad_act_d(f32x4_promote_hi(x), act));
      return nan_pass_f(x, y);
    }
  }
}

/* One loop per activation (the switch is outside), the last partial block through a zero-padded
   buffer. Forward: four vectors per iteration (1.2-1.5x faster in V8 than one), six for tanh GELU
   (1.1x faster than four in Node 20, the same in Chromium); derivatives: one (four would be 1.3x
   faster but add 16 KB of wasm). MAP_LOOP makes y (n) = fn(x (n)), W floats per iteration through
   BODY (the last partial block too, on the padded buffer). */
#define MAP_LOOP(name, fn, W, BODY)                      \
  static void name(float *y, const float *x, size_t n) { \
    float bx[W], by[W];                                  \
    for (size_t i = 0; i < n; i += W) {                  \
      const float *s = x + i;                            \
      float *d = y + i;                                  \
      size_t m = n - i < W ? n - i : W;                  \
      if (m < W) {                                       \
        memset(bx, 0, sizeof bx);                        \
        memcpy(bx, s, m * sizeof(float));                \
        s = bx, d = by;                                  \
      }                                                  \
      BODY(fn)                                           \
      if (m < W) memcpy(y + i, by, m * sizeof(float));   \
    }                                                    \
  }
/* the bodies: d (W) = fn(s (W)) */
#define BODY16(fn)                                       \
  f32x4 a0 = f32x4_load(s), a1 = f32x4_load(s + 4);      \
  f32x4 a2 = f32x4_load(s + 8), a3 = f32x4_load(s + 12); \
  f32x4_store(d, fn(a0));                                \
  f32x4_store(d + 4, fn(a1));                            \
  f32x4_store(d + 8, fn(a2));                            \
  f32x4_store(d + 12, fn(a3));
#define BODY24(fn)                                                                 \
  f32x4 a0 = f32x4_load(s), a1 = f32x4_load(s + 4), a2 = f32x4_load(s + 8);        \
  f32x4 a3 = f32x4_load(s + 12), a4 = f32x4_load(s + 16), a5 = f32x4_load(s + 20); \
  f32x4_store(d, fn(a0));                                                          \
  f32x4_store(d + 4, fn(a1));                                                      \
  f32x4_store(d + 8, fn(a2));                                                      \
  f32x4_store(d + 12, fn(a3));                                                     \
  f32x4_store(d + 16, fn(a4));                                                     \
  f32x4_store(d + 20, fn(a5));
#define BODY4(fn) f32x4_store(d, fn(f32x4_load(s)));
#define GRAD_OF(act) \
  static inline f32x4 grad_act_##act##_f(f32x4 x) { return grad_act_f(x, FFN_ACT_##act); }
#define ACT_LOOPS_W(act, fwd, W, BODY)   \
  GRAD_OF(act)                           \
  MAP_LOOP(fwd_loop_##act, fwd, W, BODY) \
  MAP_LOOP(grad_loop_##act, grad_act_##act##_f, 4, BODY4)
#define ACT_LOOPS(act, fwd) ACT_LOOPS_W(act, fwd, 16, BODY16)
ACT_LOOPS(IDENTITY, fwd_identity_f)
ACT_LOOPS(RELU, fwd_relu_f)
ACT_LOOPS(RELU2, fwd_relu2_f)
ACT_LOOPS(SIGMOID, fwd_sigmoid_f)
ACT_LOOPS(SILU, fwd_silu_f)
ACT_LOOPS(GELU, fwd_gelu_f)
ACT_LOOPS_W(GELU_TANH, fwd_gelu_tanh_f, 24, BODY24)
ACT_LOOPS(GELU_SIGMOID, fwd_gelu_sigmoid_f)

typedef void (*map_fn)(float *, const float *, size_t);
/* The loops by activation code: designated initializers, so the table does not depend on the enum's order. */
#define ACT_TABLE(kind)                                                                                                \
  {                                                                                                                    \
    [FFN_ACT_IDENTITY] = kind##_loop_IDENTITY, [FFN_ACT_RELU] = kind##_loop_RELU, [FFN_ACT_RELU2] = kind##_loop_RELU2, \
    [FFN_ACT_SIGMOID] = kind##_loop_SIGMOID, [FFN_ACT_SILU] = kind##_loop_SILU, [FFN_ACT_GELU] = kind##_loop_GELU,     \
    [FFN_ACT_GELU_TANH] = kind##_loop_GELU_TANH, [FFN_ACT_GELU_SIGMOID] = kind##_loop_GELU_SIGMOID                     \
  }
static const map_fn fwd_loops[FFN_ACT_COUNT] = ACT_TABLE(fwd);
static const map_fn grad_loops[FFN_ACT_COUNT] = ACT_TABLE(grad);

/* z (n) = f(a) * b with f one of the loops above, through an L1-resident chunk (z may alias a or
   b: each chunk is read before it is written) */
#define CHUNK 512
static void map_times(map_fn f, float *z, const float *a, const float *b, size_t n) {
  float buf[CHUNK];
  for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
    size_t m = n - i0 < CHUNK ? n - i0 : CHUNK, i = 0;
    f(buf, a + i0, m);
    for (; i + 4 <= m; i += 4) f32x4_store(z + i0 + i, f32x4_mul(f32x4_load(buf + i), f32x4_load(b + i0 + i)));
    for (; i < m; i++) z[i0 + i] = buf[i] * b[i0 + i];
  }
}

/* x (n) -> y (n) = phi(x). y may alias x. */
FFN_API int act_forward(float *y, const float *x, int n, int act) {
  if (n < 0 || bad_act(act)) return FFN_EINVAL;
  if (n > 0 && !(act == FFN_ACT_IDENTITY && y == x)) fwd_loops[act](y, x, (size_t)n);
  return FFN_OK;
}

/* x (n) -> g (n) = phi'(x). g may alias x. */
FFN_API int act_grad(float *g, const float *x, int n, int act) {
  if (n < 0 || bad_act(act)) return FFN_EINVAL;
  if (n > 0) grad_loops[act](g, x, (size_t)n);
  return FFN_OK;
}

/* dy (n), x (n) -> dx (n) = dy * phi'(x), phi'(x) rounded to float first (so dx == dy *
   act_grad(x)). dx may alias dy or x. */
FFN_API int act_backward(float *dx, const float *dy, const float *x, int n, int act) {
  if (n < 0 || bad_act(act)) return FFN_EINVAL;
  if (n > 0) map_times(grad_loops[act], dx, x, dy, (size_t)n);
  return FFN_OK;
}

/* h (n) = phi(g) * u, phi(g) rounded to float first; used by the gated FFN (h may alias g or u) */
void ffn_gate_mul(float *h, const float *g, const float *u, size_t n, int act) {
  if (n > 0 && !bad_act(act)) map_times(fwd_loops[act], h, g, u, n);
}

/* In place over the gated FFN backward: given G, U and dH (each n), writes dG = dH * U * phi'(G) into G and
   dU = dH * phi(G) into U, phi and phi' from the loops above on an L1-resident chunk. Unknown act: nothing. */
void ffn_gated_gate_grads(float *G, float *U, const float *dH, size_t n, int act) {
  if (bad_act(act)) return;
  float a[CHUNK], da[CHUNK];
  for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
    size_t m = n - i0 < CHUNK ? n - i0 : CHUNK, i = 0;
    float *g = G + i0, *u = U + i0;
    const float *dh = dH + i0;
    fwd_loops[act](a, g, m);
    grad_loops[act](da, g, m);
    for (; i + 4 <= m; i += 4) {
      f32x4 vh = f32x4_load(dh + i);
      f32x4_store(g + i, f32x4_mul(f32x4_mul(vh, f32x4_load(u + i)), f32x4_load(da + i)));
      f32x4_store(u + i, f32x4_mul(vh, f32x4_load(a + i)));
    }
    for (; i < m; i++) g[i] = dh[i] * u[i] * da[i], u[i] = dh[i] * a[i];
  }
}
