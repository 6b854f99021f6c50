/* Worst float32 ulp error of the activation kernels over every float32 input, against libm references */
/* Build and run (5 to 10 min of one core per kernel, about 45 min for all six):
     cc -O2 -ffp-contract=off -std=c11 -Isrc src/fit/ulp_sweep.c src/activations.c -lm -o /tmp/ulp_sweep
     /tmp/ulp_sweep [name ...]      names: sigmoid silu gelu gelu_tanh gelu_sigmoid gelu_grad (default all)
   To compare with other coefficients (say main's), add a second build of the kernels with its entry points
   renamed and -DSWEEP_OLD: each input then runs through both and shares one reference:
     git show main:src/activations.c > /tmp/old_activations.c
     cc -O2 -ffp-contract=off -std=c11 -Isrc -Dact_forward=old_act_forward -Dact_grad=old_act_grad \
       -Dact_backward=old_act_backward -Dffn_gate_mul=old_ffn_gate_mul \
       -Dffn_swiglu_gate_grads=old_ffn_swiglu_gate_grads -c /tmp/old_activations.c -o /tmp/old.o
     cc -O2 -ffp-contract=off -std=c11 -Isrc -DSWEEP_OLD src/fit/ulp_sweep.c src/activations.c /tmp/old.o -lm ...
   It compiles the kernels through the portable path of src/simd.h, which computes the same bits as the wasm
   build (src/README.md "Numerics" says how that was checked). The error measure
   is the one of tests/kernels/accuracy.test.js: |y - r| in units of the float32 spacing at r, with an
   absolute floor of 2^-100 for |r| and the spacing never below 2^-149. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffn.h"

typedef long double ld;

/* double references (libm's exp, tanh and erfc are within a few double ulps: 1e-9 float32 ulps), and long
   double where double would cancel: GELU' near its root -0.7518 */
static double sigmoid_d(double x) { return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x)); }
static double cdf_d(double x) { return 0.5 * erfc(-x * 0.70710678118654752440); }
/* x with -inf taken as the limit of x times a vanishing factor */
static double times_d(double x, double f) { return isinf(x) && x < 0 ? -0.0 : x * f; }

static ld ref_sigmoid(double x) { return sigmoid_d(x); }
static ld ref_silu(double x) { return times_d(x, sigmoid_d(x)); }
static ld ref_gelu_sigmoid(double x) { return times_d(x, sigmoid_d(1.702 * x)); }
static ld ref_gelu(double x) { return times_d(x, cdf_d(x)); }
static ld ref_gelu_tanh(double x) {
  double u = 0.79788456080286535588 * (x + 0.044715 * x * x * x);
  double s = u > -1 ? 0.5 * (1.0 + tanh(u)) : exp(2 * u) / (1.0 + exp(2 * u));
  return times_d(x, s);
}
static ld ref_gelu_grad(double x) {
  if (isinf(x)) return x > 0 ? 1.0L : 0.0L;
  if (x > -1.2 && x < -0.3) { /* Phi(x) + x phi(x) cancels: long double */
    const ld pi = 3.14159265358979323846264338327950288L;
    ld xl = x;
    return 0.5L * erfcl(-xl / sqrtl(2.0L)) + xl * expl(-0.5L * xl * xl) / sqrtl(2.0L * pi);
  }
  return cdf_d(x) + x * exp(-0.5 * x * x) * 0.39894228040143267794;
}

static double ulp_error(float y, ld r) {
  if (isnan(r)) return isnan(y) ? 0 : INFINITY;
  if (isinf((float)r)) return y == (float)r ? 0 : INFINITY;
  if (!isfinite(y)) return INFINITY;
  ld a = fabsl(r) > 0x1p-100L ? fabsl(r) : 0x1p-100L;
  int e = ilogbl(a);
  if (e < -126) e = -126;
  return (double)(fabsl((ld)y - r) / ldexpl(1.0L, e - 23));
}

typedef struct {
  const char *name;
  int act, grad;
  ld (*ref)(double);
} fn_t;
static const fn_t fns[] = {
    {"sigmoid", FFN_ACT_SIGMOID, 0, ref_sigmoid},    {"silu", FFN_ACT_SILU, 0, ref_silu},
    {"gelu", FFN_ACT_GELU, 0, ref_gelu},             {"gelu_tanh", FFN_ACT_GELU_TANH, 0, ref_gelu_tanh},
    {"gelu_sigmoid", FFN_ACT_GELU_SIGMOID, 0, ref_gelu_sigmoid}, {"gelu_grad", FFN_ACT_GELU, 1, ref_gelu_grad},
};

#ifdef SWEEP_OLD /* a second build of the kernels (other coefficients), its entry points renamed old_* */
int old_act_forward(float *y, const float *x, int n, int act);
int old_act_grad(float *g, const float *x, int n, int act);
#endif

#define BLOCK 65536
int main(int argc, char **argv) {
  static float xs[BLOCK], ys[BLOCK], yo[BLOCK];
  for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
    const fn_t *fn = &fns[f];
    int want = argc < 2;
    for (int i = 1; i < argc; i++) want |= !strcmp(argv[i], fn->name);
    if (!want) continue;
    /* worst over x < 0 and x >= 0, and over |x| <= 16; counts above 1 and 1.5 ulp */
    double worst[2] = {0, 0}, worst16 = 0, oworst[2] = {0, 0}, oworst16 = 0;
    float at[2] = {0, 0}, at16 = 0, oat[2] = {0, 0}, oat16 = 0;
    uint64_t over1 = 0, over15 = 0, nan_bad = 0, changed = 0;
    for (uint64_t base = 0; base < (1ull << 32); base += BLOCK) {
      for (uint32_t i = 0; i < BLOCK; i++) {
        uint32_t b = (uint32_t)(base + i);
        memcpy(&xs[i], &b, 4);
      }
      if (fn->grad)
        act_grad(ys, xs, BLOCK, fn->act);
      else
        act_forward(ys, xs, BLOCK, fn->act);
#ifdef SWEEP_OLD
      if (fn->grad)
        old_act_grad(yo, xs, BLOCK, fn->act);
      else
        old_act_forward(yo, xs, BLOCK, fn->act);
#else
      memcpy(yo, ys, sizeof ys);
#endif
      for (uint32_t i = 0; i < BLOCK; i++) {
        float x = xs[i];
        if (isnan(x)) {
          nan_bad += !isnan(ys[i]);
          continue;
        }
        ld r = fn->ref(x);
        double e = ulp_error(ys[i], r);
        double eo = ys[i] == yo[i] ? e : ulp_error(yo[i], r);
        int s = signbit(x) ? 0 : 1;
        if (e > worst[s]) worst[s] = e, at[s] = x;
        if (fabsf(x) <= 16 && e > worst16) worst16 = e, at16 = x;
        if (eo > oworst[s]) oworst[s] = eo, oat[s] = x;
        if (fabsf(x) <= 16 && eo > oworst16) oworst16 = eo, oat16 = x;
        over1 += e > 1, over15 += e > 1.5;
        changed += memcmp(&ys[i], &yo[i], 4) != 0;
      }
    }
    printf("%-13s x<0: %.4f at %.9g  x>=0: %.4f at %.9g  |x|<=16: %.4f at %.9g  >1: %llu  >1.5: %llu  NaN bad: %llu\n",
           fn->name, worst[0], at[0], worst[1], at[1], worst16, at16, (unsigned long long)over1,
           (unsigned long long)over15, (unsigned long long)nan_bad);
#ifdef SWEEP_OLD
    printf("%-13s old x<0: %.4f at %.9g  x>=0: %.4f at %.9g  |x|<=16: %.4f at %.9g  outputs changed: %llu\n", "",
           oworst[0], oat[0], oworst[1], oat[1], oworst16, oat16, (unsigned long long)changed);
#else
    (void)oworst, (void)oat, (void)oworst16, (void)oat16, (void)changed;
#endif
    fflush(stdout);
  }
  return 0;
}
