/* Thin 128-bit SIMD helpers: wasm_simd128.h under -msimd128, GCC/clang vector types natively. */
#ifndef FFN_SIMD_H
#define FFN_SIMD_H

#include <stdint.h>
#include <string.h>

/* f32x4: 4 floats; f64x2: 2 doubles; i32x4 / i64x2 are their comparison masks and bit views.
   Masks are all-ones / all-zeros per lane. No helper changes IEEE semantics (no fast-math). */

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>

typedef v128_t f32x4;
typedef v128_t f64x2;
typedef v128_t m32x4; /* lane mask for f32x4 */
typedef v128_t m64x2; /* lane mask for f64x2 */

static inline f32x4 f32x4_load(const float *p) { return wasm_v128_load(p); }
static inline void f32x4_store(float *p, f32x4 v) { wasm_v128_store(p, v); }
static inline f32x4 f32x4_splat(float a) { return wasm_f32x4_splat(a); }
static inline f32x4 f32x4_add(f32x4 a, f32x4 b) { return wasm_f32x4_add(a, b); }
static inline f32x4 f32x4_sub(f32x4 a, f32x4 b) { return wasm_f32x4_sub(a, b); }
static inline f32x4 f32x4_mul(f32x4 a, f32x4 b) { return wasm_f32x4_mul(a, b); }
/* c + a*b. Under relaxed SIMD (ffn-relaxed.wasm) one f32x4.relaxed_madd: the engine may fuse it (one
   rounding) or not; without it a multiply then an add, as written. */
#if defined(__wasm_relaxed_simd__)
static inline f32x4 f32x4_madd(f32x4 c, f32x4 a, f32x4 b) {
  return (f32x4)__builtin_wasm_relaxed_madd_f32x4((__f32x4)a, (__f32x4)b, (__f32x4)c);
}
#else
static inline f32x4 f32x4_madd(f32x4 c, f32x4 a, f32x4 b) { return wasm_f32x4_add(c, wasm_f32x4_mul(a, b)); }
#endif
static inline m32x4 f32x4_lt(f32x4 a, f32x4 b) { return wasm_f32x4_lt(a, b); }
static inline m32x4 f32x4_le(f32x4 a, f32x4 b) { return wasm_f32x4_le(a, b); }
static inline m32x4 f32x4_gt(f32x4 a, f32x4 b) { return wasm_f32x4_gt(a, b); }
static inline m32x4 f32x4_isnan(f32x4 a) { return wasm_f32x4_ne(a, a); }
/* mask ? a : b, lane by lane */
static inline f32x4 f32x4_select(m32x4 m, f32x4 a, f32x4 b) { return wasm_v128_bitselect(a, b, m); }
static inline f32x4 f32x4_div(f32x4 a, f32x4 b) { return wasm_f32x4_div(a, b); }
/* -|a| (sign bit set) and |a| */
static inline f32x4 f32x4_negabs(f32x4 a) { return wasm_v128_or(a, wasm_f32x4_splat(-0.0f)); }
static inline f32x4 f32x4_abs(f32x4 a) { return wasm_v128_andnot(a, wasm_f32x4_splat(-0.0f)); }
static inline f32x4 f32x4_neg(f32x4 a) { return wasm_f32x4_neg(a); }
/* all-ones where the sign bit of a is set (also -0 and -NaN) */
static inline m32x4 f32x4_signmask(f32x4 a) { return wasm_i32x4_shr(a, 31); }
/* a with its sign flipped where s is negative (sign bit of s set) */
static inline f32x4 f32x4_xorsign(f32x4 a, f32x4 s) {
  return wasm_v128_xor(a, wasm_v128_and(s, wasm_f32x4_splat(-0.0f)));
}
/* b < a ? b : a and a < b ? b : a (one instruction each; a NaN in a is kept) */
static inline f32x4 f32x4_pmin(f32x4 a, f32x4 b) { return wasm_f32x4_pmin(a, b); }
static inline f32x4 f32x4_pmax(f32x4 a, f32x4 b) { return wasm_f32x4_pmax(a, b); }
/* 2^n for lanes whose low mantissa bits hold n (integer-valued x + 1.5*2^23): bits << 23, plus add
 */
static inline f32x4 f32x4_shl23_add(f32x4 bits, int32_t add) {
  return wasm_i32x4_add(wasm_i32x4_shl(bits, 23), wasm_i32x4_splat(add));
}
/* sub - (|n| << 23) for lanes holding n (two's complement): the float 2^(e - |n|) when sub holds
   the bits of 2^e */
static inline f32x4 f32x4_sub_shl23_abs(int32_t sub, f32x4 bits) {
  return wasm_i32x4_sub(wasm_i32x4_splat(sub), wasm_i32x4_shl(wasm_i32x4_abs(bits), 23));
}
/* a where the mask is set, +0 elsewhere: the unsigned minimum of the all-ones/zero mask and a's
   bits (one instruction; clang turns an and of a comparison mask into a three-instruction
   bitselect) */
static inline f32x4 f32x4_and_mask(m32x4 m, f32x4 a) { return wasm_u32x4_min(m, a); }
static inline f64x2 f32x4_promote_lo(f32x4 v) { return wasm_f64x2_promote_low_f32x4(v); }
static inline f64x2 f32x4_promote_hi(f32x4 v) {
  return wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(v, v, 2, 3, 2, 3));
}
/* (lo0, lo1, hi0, hi1) rounded to float */
static inline f32x4 f64x2_demote_pair(f64x2 lo, f64x2 hi) {
  return wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(lo), wasm_f32x4_demote_f64x2_zero(hi), 0, 1, 4, 5);
}

static inline f64x2 f64x2_splat(double a) { return wasm_f64x2_splat(a); }
static inline f64x2 f64x2_add(f64x2 a, f64x2 b) { return wasm_f64x2_add(a, b); }
static inline f64x2 f64x2_sub(f64x2 a, f64x2 b) { return wasm_f64x2_sub(a, b); }
static inline f64x2 f64x2_mul(f64x2 a, f64x2 b) { return wasm_f64x2_mul(a, b); }
static inline f64x2 f64x2_div(f64x2 a, f64x2 b) { return wasm_f64x2_div(a, b); }
static inline f64x2 f64x2_abs(f64x2 a) { return wasm_f64x2_abs(a); }
static inline f64x2 f64x2_neg(f64x2 a) { return wasm_f64x2_neg(a); }
static inline m64x2 f64x2_lt(f64x2 a, f64x2 b) { return wasm_f64x2_lt(a, b); }
static inline m64x2 f64x2_gt(f64x2 a, f64x2 b) { return wasm_f64x2_gt(a, b); }
static inline f64x2 f64x2_select(m64x2 m, f64x2 a, f64x2 b) { return wasm_v128_bitselect(a, b, m); }
/* 2^n for lanes whose low mantissa bits hold n (see exp_d in activations.c) */
static inline f64x2 f64x2_shl52_add(f64x2 bits, int64_t add) {
  return wasm_i64x2_add(wasm_i64x2_shl(bits, 52), wasm_i64x2_splat(add));
}
/* the low 32 bits of each double lane of lo, then of hi, as four 32-bit lanes */
static inline f32x4 f64x2_low_words(f64x2 lo, f64x2 hi) { return wasm_i32x4_shuffle(lo, hi, 0, 2, 4, 6); }

#else /* portable fallback: the same kernels compile natively (tests under ASan/UBSan) */

typedef float f32x4 __attribute__((vector_size(16)));
typedef double f64x2 __attribute__((vector_size(16)));
typedef int32_t m32x4 __attribute__((vector_size(16)));
typedef int64_t m64x2 __attribute__((vector_size(16)));

static inline f32x4 f32x4_load(const float *p) {
  f32x4 v;
  memcpy(&v, p, sizeof v);
  return v;
}
static inline void f32x4_store(float *p, f32x4 v) { memcpy(p, &v, sizeof v); }
static inline f32x4 f32x4_splat(float a) { return (f32x4){a, a, a, a}; }
static inline f32x4 f32x4_add(f32x4 a, f32x4 b) { return a + b; }
static inline f32x4 f32x4_sub(f32x4 a, f32x4 b) { return a - b; }
static inline f32x4 f32x4_mul(f32x4 a, f32x4 b) { return a * b; }
static inline f32x4 f32x4_madd(f32x4 c, f32x4 a, f32x4 b) { return f32x4_add(c, f32x4_mul(a, b)); }
static inline m32x4 f32x4_lt(f32x4 a, f32x4 b) { return (m32x4)(a < b); }
static inline m32x4 f32x4_le(f32x4 a, f32x4 b) { return (m32x4)(a <= b); }
static inline m32x4 f32x4_gt(f32x4 a, f32x4 b) { return (m32x4)(a > b); }
static inline m32x4 f32x4_isnan(f32x4 a) { return (m32x4)(a != a); }
static inline f32x4 f32x4_select(m32x4 m, f32x4 a, f32x4 b) { return (f32x4)((m & (m32x4)a) | (~m & (m32x4)b)); }
static inline f32x4 f32x4_div(f32x4 a, f32x4 b) { return a / b; }
static inline f32x4 f32x4_negabs(f32x4 a) {
  return (f32x4)((m32x4)a | (m32x4){INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN});
}
static inline f32x4 f32x4_abs(f32x4 a) {
  return (f32x4)((m32x4)a & (m32x4){INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX});
}
static inline f32x4 f32x4_neg(f32x4 a) { return -a; }
static inline m32x4 f32x4_signmask(f32x4 a) { return (m32x4)a >> 31; }
static inline f32x4 f32x4_xorsign(f32x4 a, f32x4 s) {
  return (f32x4)((m32x4)a ^ ((m32x4)s & (m32x4){INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN}));
}
static inline f32x4 f32x4_pmin(f32x4 a, f32x4 b) { return f32x4_select(f32x4_lt(b, a), b, a); }
static inline f32x4 f32x4_pmax(f32x4 a, f32x4 b) { return f32x4_select(f32x4_lt(a, b), b, a); }
static inline f32x4 f32x4_shl23_add(f32x4 bits, int32_t add) {
  typedef uint32_t u32x4 __attribute__((vector_size(16)));
  u32x4 u = ((u32x4)bits << 23) + (u32x4){(uint32_t)add, (uint32_t)add, (uint32_t)add, (uint32_t)add};
  return (f32x4)u;
}
static inline f32x4 f32x4_sub_shl23_abs(int32_t sub, f32x4 bits) {
  typedef uint32_t u32x4 __attribute__((vector_size(16)));
  u32x4 u = (u32x4)bits, s = (u32x4)((m32x4)bits < 0); /* s all-ones where n < 0 */
  u32x4 a = (u ^ s) - s; /* |n| in unsigned arithmetic (INT32_MIN stays itself, as i32x4.abs) */
  return (f32x4)((u32x4){(uint32_t)sub, (uint32_t)sub, (uint32_t)sub, (uint32_t)sub} - (a << 23));
}
static inline f32x4 f32x4_and_mask(m32x4 m, f32x4 a) { return (f32x4)(m & (m32x4)a); }
static inline f64x2 f32x4_promote_lo(f32x4 v) { return (f64x2){v[0], v[1]}; }
static inline f64x2 f32x4_promote_hi(f32x4 v) { return (f64x2){v[2], v[3]}; }
static inline f32x4 f64x2_demote_pair(f64x2 lo, f64x2 hi) {
  return (f32x4){(float)lo[0], (float)lo[1], (float)hi[0], (float)hi[1]};
}

static inline f64x2 f64x2_splat(double a) { return (f64x2){a, a}; }
static inline f64x2 f64x2_add(f64x2 a, f64x2 b) { return a + b; }
static inline f64x2 f64x2_sub(f64x2 a, f64x2 b) { return a - b; }
static inline f64x2 f64x2_mul(f64x2 a, f64x2 b) { return a * b; }
static inline f64x2 f64x2_div(f64x2 a, f64x2 b) { return a / b; }
static inline f64x2 f64x2_abs(f64x2 a) { return (f64x2)((m64x2)a & (m64x2){INT64_MAX, INT64_MAX}); }
static inline f64x2 f64x2_neg(f64x2 a) { return -a; }
static inline m64x2 f64x2_lt(f64x2 a, f64x2 b) { return (m64x2)(a < b); }
static inline m64x2 f64x2_gt(f64x2 a, f64x2 b) { return (m64x2)(a > b); }
static inline f64x2 f64x2_select(m64x2 m, f64x2 a, f64x2 b) { return (f64x2)((m & (m64x2)a) | (~m & (m64x2)b)); }
static inline f64x2 f64x2_shl52_add(f64x2 bits, int64_t add) {
  /* shift as unsigned: the bits shifted out are meant to be dropped */
  typedef uint64_t u64x2 __attribute__((vector_size(16)));
  u64x2 u = ((u64x2)bits << 52) + (u64x2){(uint64_t)add, (uint64_t)add};
  return (f64x2)u;
}
static inline f32x4 f64x2_low_words(f64x2 lo, f64x2 hi) {
  typedef uint64_t u64x2 __attribute__((vector_size(16)));
  typedef uint32_t u32x4 __attribute__((vector_size(16)));
  u64x2 a = (u64x2)lo, b = (u64x2)hi;
  return (f32x4)(u32x4){(uint32_t)a[0], (uint32_t)a[1], (uint32_t)b[0], (uint32_t)b[1]};
}

#endif

/* clamp a into [lo, hi]; NaN lanes pass through unchanged */
static inline f64x2 f64x2_clamp(f64x2 a, double lo, double hi) {
#if defined(__wasm_simd128__)
  return wasm_f64x2_pmin(wasm_f64x2_pmax(a, f64x2_splat(lo)), f64x2_splat(hi)); /* one op each */
#else
  f64x2 l = f64x2_splat(lo), h = f64x2_splat(hi);
  a = f64x2_select(f64x2_lt(a, l), l, a);
  return f64x2_select(f64x2_gt(a, h), h, a);
#endif
}

#endif
