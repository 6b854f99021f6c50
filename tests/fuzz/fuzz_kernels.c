/* libFuzzer harness: drives every FFN_API entry point of src/ffn.h with sizes and values taken from the input, under
 * ASan/UBSan. */
/*
 * Build and run: tests/fuzz/run.sh [seconds]. One input = a sequence of calls; each call picks a
 * family (matmul, activations, classic FFN, gated FFN, SwiGLU backward, memories, counts, packed
 * GEMM, gated packed GEMM, resident-layer FFNs, gemm_ex) and runs every entry point of that family
 * on the same drawn sizes and data (the *_size functions size the packed and work buffers exactly):
 *   - sizes: mostly 0..9, then 10..69, SIMD tile edges, negative sizes (the kernel must return
 *     FFN_EINVAL and touch nothing), and huge sizes; a request whose buffers or work exceed the
 *     harness cap is refused here, as the JS layer refuses what does not fit in wasm memory
 *     (huge sizes reach the kernels only as negative ones; see skip_empty_huge);
 *   - values: a grid in [-4,4], specials (NaN, +-Inf, +-0, denormals, FLT_MAX, +-1e4), raw bit
 *     patterns, denormal mixes, large magnitudes;
 *   - activation codes 0..7 plus unknown codes (must be FFN_EINVAL); k of ffn_memories in and out of [0,dff].
 * Every buffer is its own exact-size malloc, so ASan sees any SIMD tail overrun. Checks beyond the
 * sanitizers: return codes; inputs unchanged; outputs identical whatever garbage the output and
 * work buffers held before (no read of uninitialised memory, no accumulation into C) and whichever GEMM
 * microkernel runs (the family byte's high bit picks the first call's, the second call runs the other); in-place
 * activations equal out-of-place ones; float64 references with a rigorous rounding-error bound
 * (gamma_K * sum|terms| propagated through each stage); NaN in -> NaN out; finite in -> no NaN
 * from the activations; top-k indices distinct, in range and ordered (ties by lower index); the
 * counts against their formulas; ffn_heap_in_use() unchanged by every call.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffn.h"

#define CAP_FLOATS (1 << 18) /* largest buffer handed to a kernel (1 MiB) */
#define CAP_FLOPS (1 << 21)  /* largest multiply-add count per call, to keep inputs fast */
#define CANARY 64            /* size of the buffers handed over with invalid arguments */
#define U (1.0 / 16777216.0) /* float32 unit roundoff 2^-24 */

/* ------------------------------------------------------------------ input */

typedef struct {
  const uint8_t *p;
  size_t n;
  uint64_t rng;
} In;

static uint8_t u8(In *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}

static uint64_t rnd(In *in) { /* xorshift64*, seeded from the input, fills large buffers */
  uint64_t x = in->rng;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  in->rng = x;
  return x * 0x2545F4914F6CDD1DULL;
}

static const int TILES[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129};
static const int HUGE_SIZES[] = {INT_MAX, INT_MAX - 1, INT_MAX - 3, 1 << 30, 1 << 20, 65536, 65537, 60000, 46341};
static const int NEG_SIZES[] = {-1, -2, -3, -4, -7, INT_MIN, INT_MIN + 1, -65536};
#define LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int draw_size(In *in) {
  uint8_t b = u8(in);
  if (b < 150) return b % 10;
  if (b < 200) return 10 + u8(in) % 60;
  if (b < 232) return TILES[u8(in) % LEN(TILES)];
  if (b < 244) return NEG_SIZES[u8(in) % LEN(NEG_SIZES)];
  return HUGE_SIZES[u8(in) % LEN(HUGE_SIZES)];
}

static int draw_act(In *in) {
  static const int BAD[] = {FFN_ACT_COUNT, 9, 100, 255, -1, INT_MIN, INT_MAX};
  uint8_t b = u8(in);
  if (b < 232) return b % FFN_ACT_COUNT;
  return BAD[b % LEN(BAD)];
}

enum { V_GRID, V_SPECIAL_MIX, V_RAW, V_DENORMAL_MIX, V_LARGE, V_MODES };

static const float SPECIAL[] = {0.f,    -0.f,    1.f,      -1.f,     NAN,     -NAN,   INFINITY, -INFINITY,
                                1e-45f, -1e-45f, 1e-40f,   -1e-40f,  FLT_MIN, FLT_MAX, -FLT_MAX, 1e4f,
                                -1e4f,  88.7f,   -88.7f,   1e20f,    -1e20f,  0.5f,   -0.752f,  -5.f,
                                9.f,    -9.f,    30.f,     -30.f,    -1.278f, 1e-20f, 3e38f,    -104.f};

static float from_bits(uint32_t b) {
  float f;
  memcpy(&f, &b, 4);
  return f;
}

static float draw_value(In *in, int mode) {
  uint64_t r = rnd(in);
  float grid = (float)((int)(r % 513) - 256) / 64.0f; /* exact multiples of 1/64 in [-4,4] */
  switch (mode) {
    case V_GRID: return grid;
    case V_SPECIAL_MIX: return ((r >> 40) & 7) == 0 ? SPECIAL[(r >> 20) % LEN(SPECIAL)] : grid;
    case V_RAW: return from_bits((uint32_t)(r >> 32));
    case V_DENORMAL_MIX: return ((r >> 40) & 1) ? from_bits((uint32_t)(r >> 32) & 0x807fffffu) : grid;
    default: return grid * (float)(1 << ((r >> 40) % 14)); /* up to +-32768 */
  }
}

/* ---------------------------------------------------------------- helpers */

static char ctx[256]; /* what the current call is, for the failure message */

/* the wasm replay driver (wasm_driver.c) overrides this to print the failing input */
__attribute__((weak)) void fuzz_report_input(void) {}

static void fail(const char *what, long i, double got, double want, double tol) {
  fprintf(stderr, "fuzz_kernels: %s at %ld: got %.9g, expected %.9g (tolerance %.3g) [%s]\n", what, i, got, want,
          tol, ctx);
  fuzz_report_input();
  abort();
}

static void failmsg(const char *what) {
  fprintf(stderr, "fuzz_kernels: %s [%s]\n", what, ctx);
  fuzz_report_input();
  abort();
}

static float *fbuf(long n) { /* exact size, never NULL (malloc(0) under ASan is a valid zero-byte block) */
  float *p = (float *)malloc((size_t)n * sizeof(float));
  if (!p && n) failmsg("out of memory in harness");
  if (!p) p = (float *)malloc(1);
  return p;
}

static float *fill(In *in, long n) {
  float *p = fbuf(n);
  int mode = u8(in) % V_MODES;
  for (long i = 0; i < n; i++) p[i] = draw_value(in, mode);
  return p;
}

static float *copyf(const float *src, long n) {
  float *p = fbuf(n);
  if (n) memcpy(p, src, (size_t)n * sizeof(float));
  return p;
}

static void set_pattern(float *p, long n, int which) {
  float v = which ? 1234.5f : from_bits(0x7fc5a5a5u);
  for (long i = 0; i < n; i++) p[i] = v;
}

static void same_bits(const char *what, const void *a, const void *b, long nbytes) {
  if (nbytes && memcmp(a, b, (size_t)nbytes)) failmsg(what);
}

/* float results of two runs: identical bits, except that any NaN matches any NaN (wasm leaves the
   sign and payload of a computed NaN open, and V8's two compilers may differ in which one they keep) */
static void same_floats(const char *what, const float *a, const float *b, long nbytes) {
  long n = nbytes / 4;
  for (long i = 0; i < n; i++) {
    if (isnan(a[i]) && isnan(b[i])) continue;
    if (memcmp(&a[i], &b[i], 4)) fail(what, i, a[i], b[i], 0);
  }
}

static void untouched(const char *what, const float *p, long n, const float *orig) {
  same_bits(what, p, orig, n * (long)sizeof(float));
}

/* the buffers handed over with invalid arguments: n of CANARY floats drawn from the input (bufs[0] the
   output), then a copy of bufs[0] in bufs[n] */
static void canaries(In *in, float **bufs, int n) {
  for (int i = 0; i < n; i++) bufs[i] = fill(in, CANARY);
  bufs[n] = copyf(bufs[0], CANARY);
}
static void free_bufs(float **bufs, int n) {
  for (int i = 0; i < n; i++) free(bufs[i]);
}

/* a call with a negative size: status st must be FFN_EINVAL and out (CANARY floats) equal orig */
static void expect_refused(const char *fn, int st, const float *out, const float *orig) {
  char msg[160];
  if (st != FFN_EINVAL) {
    snprintf(msg, sizeof msg, "%s: negative size not refused", fn);
    failmsg(msg);
  }
  snprintf(msg, sizeof msg, "%s: output written for a refused call", fn);
  untouched(msg, out, CANARY, orig);
}

static int any_inf(const float *p, long n) {
  for (long i = 0; i < n; i++)
    if (isinf(p[i])) return 1;
  return 0;
}

static double gamma_(long n) { return (n + 2) * U / (1 - (n + 2) * U); }

/* value with a bound on the float32 computation's error */
typedef struct {
  double v, e;
} TV;

/* a bound becomes infinite (no check) where float32 could overflow in this stage; each stage also
   adds the absolute error an underflow to denormals can cause (2^-149 per rounding) */
static double ovf(double v, double s, double e, long ops) {
  if (!(fabs(v) + s + e <= 1e36)) return INFINITY;
  return e + (ops + 1) * 1.5e-45;
}

/* round a reference intermediate to float for the next stage; where float32 overflows, clamp (so
   the reference does not invent inf - inf = NaN) and make the bound infinite (nothing is owed) */
static float to_f(double v, double e, double *e_out) {
  float f = (float)v;
  *e_out = e + fabs(v - (double)f);
  if (isinf(f) && isfinite(v)) {
    f = v > 0 ? FLT_MAX : -FLT_MAX;
    *e_out = INFINITY;
  }
  if (isnan(v)) f = NAN;
  return f;
}

/* a result with a finite, non-overflowing reference and bound must be within it; NaN in the
   reference must be NaN in the result (only enforced by callers when no input is infinite) */
static void check_tv(const char *what, long i, float got, TV t, int nan_strict) {
  if (isnan(t.v)) {
    if (nan_strict && !isnan(got)) fail(what, i, got, t.v, 0);
    return;
  }
  if (!isfinite(t.v) || !isfinite(t.e) || fabs(t.v) + 2 * t.e > 1e37) return;
  double tol = 2 * t.e + 1e-37;
  if (!(fabs((double)got - t.v) <= tol)) fail(what, i, got, t.v, tol);
}

/* ----------------------------------------------------- float64 activations */

static double sig64(double x) { return x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x)); }
static double Phi64(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }
static const double GC = 0.7978845608028654; /* sqrt(2/pi) */

static double act64(double x, int a) {
  if (isnan(x)) return x;
  switch (a) {
    case FFN_ACT_IDENTITY: return x;
    case FFN_ACT_RELU: return x > 0 ? x : 0;
    case FFN_ACT_RELU2: return x > 0 ? x * x : 0;
    case FFN_ACT_SIGMOID: return sig64(x);
    case FFN_ACT_SILU: return x * sig64(x);
    case FFN_ACT_GELU: return x * Phi64(x);
    case FFN_ACT_GELU_TANH: return 0.5 * x * (1 + tanh(GC * (x + 0.044715 * x * x * x)));
    default: return x * sig64(1.702 * x);
  }
}

static double grad64(double x, int a) {
  if (isnan(x)) return x;
  double s, t, u;
  switch (a) {
    case FFN_ACT_IDENTITY: return 1;
    case FFN_ACT_RELU: return x > 0 ? 1 : 0;
    case FFN_ACT_RELU2: return x > 0 ? 2 * x : 0;
    case FFN_ACT_SIGMOID: s = sig64(x); return s * (1 - s);
    case FFN_ACT_SILU: s = sig64(x); return s * (1 + x * (1 - s));
    case FFN_ACT_GELU: return Phi64(x) + x * exp(-0.5 * x * x) / sqrt(2 * M_PI);
    case FFN_ACT_GELU_TANH:
      u = GC * (x + 0.044715 * x * x * x);
      t = tanh(u);
      return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * GC * (1 + 3 * 0.044715 * x * x);
    default: s = sig64(1.702 * x); return s + 1.702 * x * s * (1 - s);
  }
}

/* bound on |phi'| near x (radius r), for propagating an input error through phi */
static double lip(double x, double r, int a) {
  switch (a) {
    case FFN_ACT_RELU2: return 2 * (fabs(x) + r);
    case FFN_ACT_SIGMOID: return 0.25;
    case FFN_ACT_IDENTITY:
    case FFN_ACT_RELU: return 1;
    default: return 1.2; /* silu 1.0998, gelu 1.129, gelu_tanh 1.13, gelu_sigmoid 1.0998 */
  }
}

/* what a float32 activation may add: a few ulps relative, plus the absolute cancellation error of
   x * (something computed near 1) that tanh-GELU shares with PyTorch */
static TV act_tv(TV x, int a) {
  TV r;
  r.v = act64(x.v, a);
  r.e = ovf(r.v, 0, lip(x.v, x.e, a) * x.e + 2e-5 * fabs(r.v) + 2e-7 * fabs(x.v) + 1e-37, 1);
  return r;
}

/* ------------------------------------------------------------- matmul family */

/* C (M,N) = A (M,K) @ B (K,N) with error bounds; A, B given as floats with their own bounds */
static void mm_tv(TV *C, const float *A, const double *Ae, const float *B, const double *Be, long M, long K, long N) {
  double g = gamma_(K);
  for (long i = 0; i < M; i++)
    for (long j = 0; j < N; j++) {
      double v = 0, s = 0, e = 0;
      for (long k = 0; k < K; k++) {
        double a = A[i * K + k], b = B[k * N + j];
        v += a * b;
        s += fabs(a * b);
        if (Ae || Be) {
          double ae = Ae ? Ae[i * K + k] : 0, be = Be ? Be[k * N + j] : 0;
          e += fabs(a) * be + fabs(b) * ae + ae * be;
        }
      }
      C[i * N + j].v = v;
      C[i * N + j].e = ovf(v, s, g * s + e, K);
    }
}

static int refused(double floats_total_max, double flops) {
  return floats_total_max > CAP_FLOATS || flops > CAP_FLOPS;
}

/* A huge size whose buffers are all empty (M=INT_MAX, K=0, N=0) reaches the kernels only up to
   CAP_FLOATS: natively (-O1, coverage-instrumented) 2^31 empty row iterations take ~20 s, while the
   -O3 wasm build takes ~5 ms for the same call through the JS API (tests/hardening.test.js checks
   that). -DFFN_FUZZ_EMPTY_HUGE lets them through. */
static int skip_empty_huge(double a, double b, double c) {
#ifdef FFN_FUZZ_EMPTY_HUGE
  (void)a, (void)b, (void)c;
  return 0;
#else
  return a > CAP_FLOATS || b > CAP_FLOATS || c > CAP_FLOATS;
#endif
}

static void do_matmul(In *in) {
  int M = draw_size(in), K = draw_size(in), N = draw_size(in);
  snprintf(ctx, sizeof ctx, "matmul M=%d K=%d N=%d", M, K, N);
  typedef int (*mmfn)(float *, const float *, const float *, int, int, int);
  mmfn fns[2] = {matmul_forward, matmul_ref};
  const char *names[2] = {"matmul_forward", "matmul_ref"};
  if (M < 0 || K < 0 || N < 0) {
    float *b[4];
    canaries(in, b, 3);
    for (int f = 0; f < 2; f++) expect_refused("matmul", fns[f](b[0], b[1], b[2], M, K, N), b[0], b[3]);
    free_bufs(b, 4);
    return;
  }
  double m = M, k = K, n = N;
  if (refused(fmax(m * k, fmax(k * n, m * n)), m * k * n) || skip_empty_huge(m, k, n)) return;
  long MK = (long)M * K, KN = (long)K * N, MN = (long)M * N;
  float *A = fill(in, MK), *B = fill(in, KN), *A0 = copyf(A, MK), *B0 = copyf(B, KN);
  float *C1 = fbuf(MN), *C2 = fbuf(MN);
  TV *R = (TV *)malloc((size_t)(MN ? MN : 1) * sizeof(TV));
  mm_tv(R, A, NULL, B, NULL, M, K, N);
  int strict = !any_inf(A, MK) && !any_inf(B, KN);
  for (int f = 0; f < 2; f++) {
    set_pattern(C1, MN, 0);
    set_pattern(C2, MN, 1);
    if (fns[f](C1, A, B, M, K, N) != FFN_OK) failmsg("matmul: valid call not FFN_OK");
    if (fns[f](C2, A, B, M, K, N) != FFN_OK) failmsg("matmul: valid call not FFN_OK");
    untouched("matmul: A modified", A, MK, A0);
    untouched("matmul: B modified", B, KN, B0);
    same_floats("matmul: result depends on prior contents of C", C1, C2, MN * 4);
    for (long i = 0; i < MN; i++) check_tv(names[f], i, C1[i], R[i], strict);
  }
  free(A); free(B); free(A0); free(B0); free(C1); free(C2); free(R);
}

/* --------------------------------------------------------- activation family */

static void check_act_value(const char *what, long i, float x, float y, int a) {
  snprintf(ctx, sizeof ctx, "act=%d x=%.9g", a, x);
  if (isnan(x)) {
    if (!isnan(y)) fail(what, i, y, NAN, 0);
    return;
  }
  if (isfinite(x) && isnan(y)) fail(what, i, y, act64(x, a), 0);
  if (!isfinite(x)) return;
  double t = act64(x, a);
  float tf = (float)t;
  if (isinf(tf)) {
    if (y != tf) fail(what, i, y, t, 0);
    return;
  }
  TV tv = {t, 2e-5 * fabs(t) + 2e-7 * fabs(x) + 1e-37};
  check_tv(what, i, y, tv, 1);
}

static void check_grad_value(const char *what, long i, float x, float g, int a) {
  snprintf(ctx, sizeof ctx, "act=%d x=%.9g", a, x);
  if (isfinite(x) && isnan(g)) fail(what, i, g, grad64(x, a), 0);
  if (!isfinite(x) || ((a == FFN_ACT_RELU || a == FFN_ACT_RELU2) && x == 0)) return;
  double t = grad64(x, a);
  float tf = (float)t;
  if (isinf(tf)) {
    if (g != tf) fail(what, i, g, t, 0);
    return;
  }
  /* derivative formulas subtract terms of size ~|x|*phi'(x) parts; allow a relative 1e-4 and an absolute 1e-6 */
  TV tv = {t, 1e-4 * fabs(t) + 1e-6};
  check_tv(what, i, g, tv, 1);
}

static void do_act(In *in) {
  int n = draw_size(in), a = draw_act(in);
  snprintf(ctx, sizeof ctx, "activation n=%d act=%d", n, a);
  typedef int (*actfn)(float *, const float *, int, int);
  actfn fns[4] = {act_forward, act_ref, act_grad, act_grad_ref};
  const char *names[4] = {"act_forward", "act_ref", "act_grad", "act_grad_ref"};
  if (n < 0 || n > CAP_FLOATS || a < 0 || a >= FFN_ACT_COUNT) {
    if (n > CAP_FLOATS && a >= 0 && a < FFN_ACT_COUNT) return; /* too big: the JS layer refuses */
    float *y = fill(in, CANARY), *x = fill(in, CANARY), *dy = fill(in, CANARY), *y0 = copyf(y, CANARY);
    int nn = n > CANARY ? CANARY : n; /* unknown code with a valid size: buffers really hold n */
    for (int f = 0; f < 4; f++) {
      if (fns[f](y, x, nn, a) != FFN_EINVAL) failmsg("activation: invalid size or code not refused");
      untouched("activation: output written for a refused call", y, CANARY, y0);
    }
    if (act_backward(y, dy, x, nn, a) != FFN_EINVAL) failmsg("act_backward: invalid size or code not refused");
    untouched("act_backward: output written for a refused call", y, CANARY, y0);
    free(y); free(x); free(dy); free(y0);
    return;
  }
  float *x = fill(in, n), *x0 = copyf(x, n), *dy = fill(in, n), *dy0 = copyf(dy, n);
  float *y1 = fbuf(n), *y2 = fbuf(n), *ip = fbuf(n);
  for (int f = 0; f < 4; f++) {
    set_pattern(y1, n, 0);
    set_pattern(y2, n, 1);
    if (fns[f](y1, x, n, a) != FFN_OK || fns[f](y2, x, n, a) != FFN_OK) failmsg("activation: valid call not FFN_OK");
    untouched("activation: x modified", x, n, x0);
    same_floats("activation: result depends on prior contents of y", y1, y2, (long)n * 4);
    if (n) memcpy(ip, x, (size_t)n * 4);
    if (fns[f](ip, ip, n, a) != FFN_OK) failmsg("activation: in-place call not FFN_OK");
    same_floats("activation: in-place result differs from out-of-place", ip, y1, (long)n * 4);
    for (long i = 0; i < n; i++) {
      if (f < 2) check_act_value(names[f], i, x[i], y1[i], a);
      else check_grad_value(names[f], i, x[i], y1[i], a);
    }
  }
  /* act_backward: dx = dy * phi'(x), out of place and aliased with dy and with x */
  set_pattern(y1, n, 0);
  set_pattern(y2, n, 1);
  if (act_backward(y1, dy, x, n, a) != FFN_OK || act_backward(y2, dy, x, n, a) != FFN_OK)
    failmsg("act_backward: valid call not FFN_OK");
  untouched("act_backward: x modified", x, n, x0);
  untouched("act_backward: dy modified", dy, n, dy0);
  same_floats("act_backward: result depends on prior contents of dx", y1, y2, (long)n * 4);
  if (n) memcpy(ip, dy, (size_t)n * 4);
  if (act_backward(ip, ip, x, n, a) != FFN_OK) failmsg("act_backward: dx==dy call not FFN_OK");
  same_floats("act_backward: dx aliasing dy differs", ip, y1, (long)n * 4);
  if (n) memcpy(ip, x, (size_t)n * 4);
  if (act_backward(ip, dy, ip, n, a) != FFN_OK) failmsg("act_backward: dx==x call not FFN_OK");
  same_floats("act_backward: dx aliasing x differs", ip, y1, (long)n * 4);
  for (long i = 0; i < n; i++) {
    snprintf(ctx, sizeof ctx, "act_backward n=%d act=%d x=%.9g dy=%.9g", n, a, x[i], dy[i]);
    if (isnan(dy[i]) && !isnan(y1[i])) fail("act_backward NaN dy", i, y1[i], NAN, 0);
    if (!isfinite(x[i]) || !isfinite(dy[i]) || ((a == FFN_ACT_RELU || a == FFN_ACT_RELU2) && x[i] == 0)) continue;
    double g = grad64(x[i], a);
    if (isinf((float)g)) continue; /* phi'(x) itself overflows float32: no order of operations is owed */
    TV tv = {dy[i] * g, fabs(dy[i]) * (1e-4 * fabs(g) + 1e-6) + 1e-37};
    if (isinf((float)tv.v)) continue;
    check_tv("act_backward", i, y1[i], tv, 1);
  }
  free(x); free(x0); free(dy); free(dy0); free(y1); free(y2); free(ip);
}

/* ------------------------------------------------------------ classic FFN */

static TV *tv_alloc(long n) { return (TV *)calloc((size_t)(n ? n : 1), sizeof(TV)); }

/* Y (T,d) = phi(X W1 + b1) W2 + b2 in float64 with error bounds */
static void ffn_tv(TV *Y, const float *X, const float *W1, const float *b1, const float *W2, const float *b2,
                   long T, long d, long dff, int a) {
  TV *H = tv_alloc(T * dff);
  mm_tv(H, X, NULL, W1, NULL, T, d, dff);
  float *Af = fbuf(T * dff);
  double *Ae = (double *)calloc((size_t)(T * dff ? T * dff : 1), sizeof(double));
  for (long i = 0; i < T * dff; i++) {
    if (b1) {
      double b = b1[i % dff];
      H[i].e += gamma_(1) * (fabs(H[i].v) + fabs(b));
      H[i].v += b;
    }
    TV t = act_tv(H[i], a);
    Af[i] = to_f(t.v, t.e, &Ae[i]); /* carry the value rounded, charge the rounding to the bound */
  }
  mm_tv(Y, Af, Ae, W2, NULL, T, dff, d);
  for (long i = 0; i < T * d; i++)
    if (b2) {
      double b = b2[i % d];
      Y[i].e += gamma_(1) * (fabs(Y[i].v) + fabs(b));
      Y[i].v += b;
    }
  free(H); free(Af); free(Ae);
}

static int invalid_act(int a) { return a < 0 || a >= FFN_ACT_COUNT; }

static void do_ffn(In *in) {
  int T = draw_size(in), d = draw_size(in), dff = draw_size(in), a = draw_act(in);
  uint8_t flags = u8(in);
  int use_b1 = flags & 1, use_b2 = (flags >> 1) & 1;
  snprintf(ctx, sizeof ctx, "ffn T=%d d=%d dff=%d act=%d b1=%d b2=%d", T, d, dff, a, use_b1, use_b2);
  typedef int (*ffnfn)(float *, const float *, const float *, const float *, const float *, const float *, int,
                       int, int, int, float *);
  ffnfn fns[2] = {ffn_forward, ffn_ref};
  const char *names[2] = {"ffn_forward", "ffn_ref"};
  if (T < 0 || d < 0 || dff < 0) {
    float *bufs[8];
    canaries(in, bufs, 7);
    for (int f = 0; f < 2; f++)
      expect_refused("ffn", fns[f](bufs[0], bufs[1], bufs[2], use_b1 ? bufs[3] : NULL, bufs[4], use_b2 ? bufs[5] : NULL,
                                   T, d, dff, a, bufs[6]),
                     bufs[0], bufs[7]);
    free_bufs(bufs, 8);
    return;
  }
  double t = T, dd = d, h = dff;
  double biggest = fmax(fmax(t * dd, dd * h), t * h);
  if (use_b1) biggest = fmax(biggest, h);
  if (use_b2) biggest = fmax(biggest, dd);
  if (refused(biggest, 2 * t * dd * h) || skip_empty_huge(t, dd, h)) return;
  long Td = (long)T * d, dh = (long)d * dff, Th = (long)T * dff;
  float *X = fill(in, Td), *W1 = fill(in, dh), *W2 = fill(in, dh);
  float *b1 = use_b1 ? fill(in, dff) : NULL, *b2 = use_b2 ? fill(in, d) : NULL;
  float *X0 = copyf(X, Td), *W10 = copyf(W1, dh), *W20 = copyf(W2, dh);
  float *b10 = b1 ? copyf(b1, dff) : NULL, *b20 = b2 ? copyf(b2, d) : NULL;
  float *Y1 = fbuf(Td), *Y2 = fbuf(Td), *work = fbuf(Th);
  if (invalid_act(a)) {
    float *Yc = fbuf(Td);
    set_pattern(Y1, Td, 0);
    memcpy(Yc, Y1, (size_t)Td * 4);
    for (int f = 0; f < 2; f++) {
      if (fns[f](Y1, X, W1, b1, W2, b2, T, d, dff, a, work) != FFN_EINVAL)
        failmsg("ffn: unknown activation not refused");
      untouched("ffn: output written for an unknown activation", Y1, Td, Yc);
    }
    free(Yc);
  } else {
    TV *R = tv_alloc(Td);
    ffn_tv(R, X, W1, b1, W2, b2, T, d, dff, a);
    int strict = !any_inf(X, Td) && !any_inf(W1, dh) && !any_inf(W2, dh) && !(b1 && any_inf(b1, dff)) &&
                 !(b2 && any_inf(b2, d));
    for (int f = 0; f < 2; f++) {
      set_pattern(Y1, Td, 0);
      set_pattern(work, Th, 0);
      if (fns[f](Y1, X, W1, b1, W2, b2, T, d, dff, a, work) != FFN_OK) failmsg("ffn: valid call not FFN_OK");
      set_pattern(Y2, Td, 1);
      set_pattern(work, Th, 1);
      if (fns[f](Y2, X, W1, b1, W2, b2, T, d, dff, a, work) != FFN_OK) failmsg("ffn: valid call not FFN_OK");
      same_floats("ffn: result depends on prior contents of Y or work", Y1, Y2, Td * 4);
      for (long i = 0; i < Td; i++) check_tv(names[f], i, Y1[i], R[i], strict);
    }
    free(R);
  }
  untouched("ffn: X modified", X, Td, X0);
  untouched("ffn: W1 modified", W1, dh, W10);
  untouched("ffn: W2 modified", W2, dh, W20);
  if (b1) untouched("ffn: b1 modified", b1, dff, b10);
  if (b2) untouched("ffn: b2 modified", b2, d, b20);
  free(X); free(W1); free(W2); free(b1); free(b2); free(X0); free(W10); free(W20); free(b10); free(b20);
  free(Y1); free(Y2); free(work);
}

/* -------------------------------------------------------------- gated FFN */

static void gated_tv(TV *Y, const float *X, const float *Wg, const float *Wu, const float *Wd, long T, long d,
                     long dff, int a) {
  TV *G = tv_alloc(T * dff), *Uu = tv_alloc(T * dff);
  mm_tv(G, X, NULL, Wg, NULL, T, d, dff);
  mm_tv(Uu, X, NULL, Wu, NULL, T, d, dff);
  float *Pf = fbuf(T * dff);
  double *Pe = (double *)calloc((size_t)(T * dff ? T * dff : 1), sizeof(double));
  for (long i = 0; i < T * dff; i++) {
    TV A = act_tv(G[i], a), P;
    P.v = A.v * Uu[i].v;
    P.e = ovf(P.v, 0, fabs(A.v) * Uu[i].e + fabs(Uu[i].v) * A.e + A.e * Uu[i].e + U * fabs(P.v), 1);
    Pf[i] = to_f(P.v, P.e, &Pe[i]);
  }
  mm_tv(Y, Pf, Pe, Wd, NULL, T, dff, d);
  free(G); free(Uu); free(Pf); free(Pe);
}

static void do_gated(In *in) {
  int T = draw_size(in), d = draw_size(in), dff = draw_size(in), a = draw_act(in);
  snprintf(ctx, sizeof ctx, "gated T=%d d=%d dff=%d act=%d", T, d, dff, a);
  typedef int (*gfn)(float *, const float *, const float *, const float *, const float *, int, int, int, int,
                     float *);
  gfn fns[2] = {gated_ffn_forward, gated_ffn_ref};
  const char *names[2] = {"gated_ffn_forward", "gated_ffn_ref"};
  if (T < 0 || d < 0 || dff < 0) {
    float *bufs[7];
    canaries(in, bufs, 6);
    for (int f = 0; f < 2; f++)
      expect_refused("gated_ffn", fns[f](bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], T, d, dff, a, bufs[5]), bufs[0],
                     bufs[6]);
    free_bufs(bufs, 7);
    return;
  }
  double t = T, dd = d, h = dff;
  if (refused(fmax(fmax(t * dd, dd * h), 2 * t * h), 3 * t * dd * h) || skip_empty_huge(t, dd, h)) return;
  long Td = (long)T * d, dh = (long)d * dff, Th = (long)T * dff;
  float *X = fill(in, Td), *Wg = fill(in, dh), *Wu = fill(in, dh), *Wd = fill(in, dh);
  float *X0 = copyf(X, Td), *Wg0 = copyf(Wg, dh), *Wu0 = copyf(Wu, dh), *Wd0 = copyf(Wd, dh);
  float *Y1 = fbuf(Td), *Y2 = fbuf(Td), *work = fbuf(2 * Th);
  if (invalid_act(a)) {
    float *Yc = fbuf(Td);
    set_pattern(Y1, Td, 0);
    memcpy(Yc, Y1, (size_t)Td * 4);
    for (int f = 0; f < 2; f++) {
      if (fns[f](Y1, X, Wg, Wu, Wd, T, d, dff, a, work) != FFN_EINVAL)
        failmsg("gated_ffn: unknown activation not refused");
      untouched("gated_ffn: output written for an unknown activation", Y1, Td, Yc);
    }
    free(Yc);
  } else {
    TV *R = tv_alloc(Td);
    gated_tv(R, X, Wg, Wu, Wd, T, d, dff, a);
    int strict = !any_inf(X, Td) && !any_inf(Wg, dh) && !any_inf(Wu, dh) && !any_inf(Wd, dh);
    for (int f = 0; f < 2; f++) {
      set_pattern(Y1, Td, 0);
      set_pattern(work, 2 * Th, 0);
      if (fns[f](Y1, X, Wg, Wu, Wd, T, d, dff, a, work) != FFN_OK) failmsg("gated_ffn: valid call not FFN_OK");
      set_pattern(Y2, Td, 1);
      set_pattern(work, 2 * Th, 1);
      if (fns[f](Y2, X, Wg, Wu, Wd, T, d, dff, a, work) != FFN_OK) failmsg("gated_ffn: valid call not FFN_OK");
      same_floats("gated_ffn: result depends on prior contents of Y or work", Y1, Y2, Td * 4);
      for (long i = 0; i < Td; i++) check_tv(names[f], i, Y1[i], R[i], strict);
    }
    free(R);
  }
  untouched("gated_ffn: X modified", X, Td, X0);
  untouched("gated_ffn: Wg modified", Wg, dh, Wg0);
  untouched("gated_ffn: Wu modified", Wu, dh, Wu0);
  untouched("gated_ffn: Wd modified", Wd, dh, Wd0);
  free(X); free(Wg); free(Wu); free(Wd); free(X0); free(Wg0); free(Wu0); free(Wd0);
  free(Y1); free(Y2); free(work);
}

/* --------------------------------------------------------- SwiGLU backward */

/* float64 gradients of Y = (silu(X Wg) * (X Wu)) Wd with error bounds, given dY */
static void swiglu_bw_tv(TV *dX, TV *dWg, TV *dWu, TV *dWd, const float *dY, const float *X, const float *Wg,
                         const float *Wu, const float *Wd, long N, long d, long dff) {
  long Nh = N * dff;
  TV *G = tv_alloc(Nh), *Uu = tv_alloc(Nh), *dH = tv_alloc(Nh);
  mm_tv(G, X, NULL, Wg, NULL, N, d, dff);
  mm_tv(Uu, X, NULL, Wu, NULL, N, d, dff);
  /* dH = dY (N,d) @ Wd^T (d,dff) */
  float *WdT = fbuf((long)d * dff);
  for (long j = 0; j < dff; j++)
    for (long k = 0; k < d; k++) WdT[k * dff + j] = Wd[j * d + k];
  mm_tv(dH, dY, NULL, WdT, NULL, N, d, dff);
  float *Hf = fbuf(Nh), *dGf = fbuf(Nh), *dUf = fbuf(Nh);
  double *He = calloc((size_t)(Nh ? Nh : 1), 8), *dGe = calloc((size_t)(Nh ? Nh : 1), 8),
         *dUe = calloc((size_t)(Nh ? Nh : 1), 8);
  for (long i = 0; i < Nh; i++) {
    TV A = act_tv(G[i], FFN_ACT_SILU);
    TV S; /* silu'(G): |silu''| <= 0.5 */
    S.v = grad64(G[i].v, FFN_ACT_SILU);
    S.e = 0.5 * G[i].e + 1e-4 * fabs(S.v) + 1e-6;
    TV H = {A.v * Uu[i].v, fabs(A.v) * Uu[i].e + fabs(Uu[i].v) * A.e + A.e * Uu[i].e + U * fabs(A.v * Uu[i].v)};
    TV dU = {dH[i].v * A.v, fabs(dH[i].v) * A.e + fabs(A.v) * dH[i].e + A.e * dH[i].e + U * fabs(dH[i].v * A.v)};
    TV dA = {dH[i].v * Uu[i].v,
             fabs(dH[i].v) * Uu[i].e + fabs(Uu[i].v) * dH[i].e + Uu[i].e * dH[i].e + U * fabs(dH[i].v * Uu[i].v)};
    H.e = ovf(H.v, 0, H.e, 1);
    dU.e = ovf(dU.v, 0, dU.e, 1);
    dA.e = ovf(dA.v, 0, dA.e, 1); /* dG may be formed as (dH*U)*silu'(G): dA itself must fit */
    TV dG = {dA.v * S.v, fabs(dA.v) * S.e + fabs(S.v) * dA.e + dA.e * S.e + U * fabs(dA.v * S.v)};
    if (isinf(dA.e)) dG.e = INFINITY;
    dG.e = ovf(dG.v, 0, dG.e, 1);
    Hf[i] = to_f(H.v, H.e, &He[i]);
    dUf[i] = to_f(dU.v, dU.e, &dUe[i]);
    dGf[i] = to_f(dG.v, dG.e, &dGe[i]);
  }
  /* transposes for the weight gradients */
  float *XT = fbuf(N * d), *HT = fbuf(Nh), *WgT = fbuf(d * dff), *WuT = fbuf(d * dff);
  double *HTe = calloc((size_t)(Nh ? Nh : 1), 8);
  for (long n = 0; n < N; n++)
    for (long k = 0; k < d; k++) XT[k * N + n] = X[n * d + k];
  for (long n = 0; n < N; n++)
    for (long j = 0; j < dff; j++) {
      HT[j * N + n] = Hf[n * dff + j];
      HTe[j * N + n] = He[n * dff + j];
    }
  for (long k = 0; k < d; k++)
    for (long j = 0; j < dff; j++) {
      WgT[j * d + k] = Wg[k * dff + j];
      WuT[j * d + k] = Wu[k * dff + j];
    }
  mm_tv(dWd, HT, HTe, dY, NULL, dff, N, d); /* H^T (dff,N) @ dY (N,d) */
  mm_tv(dWg, XT, NULL, dGf, dGe, d, N, dff); /* X^T (d,N) @ dG (N,dff) */
  mm_tv(dWu, XT, NULL, dUf, dUe, d, N, dff);
  TV *a1 = tv_alloc(N * d), *a2 = tv_alloc(N * d);
  mm_tv(a1, dGf, dGe, WgT, NULL, N, dff, d); /* dG (N,dff) @ Wg^T (dff,d) */
  mm_tv(a2, dUf, dUe, WuT, NULL, N, dff, d);
  for (long i = 0; i < N * d; i++) {
    dX[i].v = a1[i].v + a2[i].v;
    dX[i].e =
        ovf(dX[i].v, fabs(a1[i].v) + fabs(a2[i].v), a1[i].e + a2[i].e + gamma_(1) * (fabs(a1[i].v) + fabs(a2[i].v)), 1);
  }
  free(G); free(Uu); free(dH); free(WdT); free(Hf); free(dGf); free(dUf); free(He); free(dGe); free(dUe);
  free(XT); free(HT); free(WgT); free(WuT); free(HTe); free(a1); free(a2);
}

static void do_swiglu_bw(In *in) {
  int N = draw_size(in), d = draw_size(in), dff = draw_size(in);
  snprintf(ctx, sizeof ctx, "swiglu_backward N=%d d=%d dff=%d", N, d, dff);
  typedef int (*bfn)(float *, float *, float *, float *, const float *, const float *, const float *,
                     const float *, const float *, int, int, int, float *);
  bfn fns[2] = {swiglu_backward, swiglu_backward_ref};
  const char *names[2] = {"swiglu_backward", "swiglu_backward_ref"};
  if (N < 0 || d < 0 || dff < 0) {
    float *b[11];
    canaries(in, b, 10); /* b[10]: the original dX */
    float *o3 = copyf(b[3], CANARY);
    for (int f = 0; f < 2; f++) {
      expect_refused(names[f], fns[f](b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], N, d, dff, b[9]), b[0],
                     b[10]);
      untouched("swiglu_backward: dWd written for a refused call", b[3], CANARY, o3);
    }
    free_bufs(b, 11);
    free(o3);
    return;
  }
  double n = N, dd = d, h = dff;
  if (refused(fmax(fmax(n * dd, dd * h), 3 * n * h), 8 * n * dd * h) || skip_empty_huge(n, dd, h)) return;
  long Nd = (long)N * d, dh = (long)d * dff, Nh = (long)N * dff;
  float *dY = fill(in, Nd), *X = fill(in, Nd), *Wg = fill(in, dh), *Wu = fill(in, dh), *Wd = fill(in, dh);
  float *ins[5] = {dY, X, Wg, Wu, Wd};
  long insz[5] = {Nd, Nd, dh, dh, dh};
  float *ins0[5];
  for (int i = 0; i < 5; i++) ins0[i] = copyf(ins[i], insz[i]);
  long outsz[4] = {Nd, dh, dh, dh};
  float *o1[4], *o2[4];
  for (int i = 0; i < 4; i++) {
    o1[i] = fbuf(outsz[i]);
    o2[i] = fbuf(outsz[i]);
  }
  float *work = fbuf(3 * Nh);
  TV *R[4];
  for (int i = 0; i < 4; i++) R[i] = tv_alloc(outsz[i]);
  swiglu_bw_tv(R[0], R[1], R[2], R[3], dY, X, Wg, Wu, Wd, N, d, dff);
  int strict = 1;
  for (int i = 0; i < 5; i++) strict &= !any_inf(ins[i], insz[i]);
  static const char *onames[4] = {"dX", "dWg", "dWu", "dWd"};
  for (int f = 0; f < 2; f++) {
    for (int i = 0; i < 4; i++) {
      set_pattern(o1[i], outsz[i], 0);
      set_pattern(o2[i], outsz[i], 1);
    }
    set_pattern(work, 3 * Nh, 0);
    if (fns[f](o1[0], o1[1], o1[2], o1[3], dY, X, Wg, Wu, Wd, N, d, dff, work) != FFN_OK)
      failmsg("swiglu_backward: valid call not FFN_OK");
    set_pattern(work, 3 * Nh, 1);
    if (fns[f](o2[0], o2[1], o2[2], o2[3], dY, X, Wg, Wu, Wd, N, d, dff, work) != FFN_OK)
      failmsg("swiglu_backward: valid call not FFN_OK");
    for (int i = 0; i < 4; i++) {
      same_floats("swiglu_backward: result depends on prior contents of outputs or work", o1[i], o2[i], outsz[i] * 4);
      char what[64];
      snprintf(what, sizeof what, "%s %s", names[f], onames[i]);
      for (long j = 0; j < outsz[i]; j++) check_tv(what, j, o1[i][j], R[i][j], strict);
    }
    for (int i = 0; i < 5; i++) untouched("swiglu_backward: an input was modified", ins[i], insz[i], ins0[i]);
  }
  for (int i = 0; i < 5; i++) {
    free(ins[i]);
    free(ins0[i]);
  }
  for (int i = 0; i < 4; i++) {
    free(o1[i]);
    free(o2[i]);
    free(R[i]);
  }
  free(work);
}

/* ---------------------------------------------------------------- memories */

static void do_memories(In *in) {
  int d = draw_size(in), dff = draw_size(in);
  uint8_t kb = u8(in), flags = u8(in);
  int use_b1 = flags & 1;
  int k;
  if (kb < 200) k = dff > 0 ? (int)(kb % ((long)dff + 1)) : 0; /* in range */
  else if (kb < 215) k = dff;
  else if (kb < 230) k = dff > INT_MAX - 4 ? INT_MIN : dff + 1 + (kb & 3); /* one past and beyond */
  else if (kb < 245) k = -1 - (kb & 7);
  else k = kb & 1 ? INT_MAX : INT_MIN;
  snprintf(ctx, sizeof ctx, "memories d=%d dff=%d k=%d b1=%d", d, dff, k, use_b1);
  typedef int (*memfn)(float *, int32_t *, float *, const float *, const float *, const float *, const float *,
                       int, int, int);
  memfn fns[2] = {ffn_memories, ffn_memories_ref};
  const char *names[2] = {"ffn_memories", "ffn_memories_ref"};
  int bad = d < 0 || dff < 0 || k < 0 || k > dff;
  double dd = d, h = dff;
  /* k * dff: ffn_memories_ref selects by k passes over coef (a reference, not for huge k) */
  if (!bad && refused(fmax(dd * h, fmax(dd, h)), dd * h + (double)k * dd + (double)k * h)) return;
  if (bad && (d < 0 || dff < 0 || (dd * h <= CAP_FLOATS && dd <= CAP_FLOATS && h <= CAP_FLOATS))) {
    /* refused: with canaries for negative sizes, with real buffers for a k out of range */
    int neg = d < 0 || dff < 0;
    long nd = neg ? CANARY : d, nh = neg ? CANARY : dff, ndh = neg ? CANARY : (long)d * dff;
    float *coef = fill(in, nh), *partial = fill(in, nd), *x = fill(in, nd), *W1 = fill(in, ndh),
          *b1 = fill(in, nh), *W2 = fill(in, ndh);
    int32_t *top = (int32_t *)malloc(CANARY * 4);
    for (int i = 0; i < CANARY; i++) top[i] = -7;
    float *coef0 = copyf(coef, nh), *partial0 = copyf(partial, nd);
    for (int f = 0; f < 2; f++) {
      if (fns[f](coef, top, partial, x, W1, use_b1 ? b1 : NULL, W2, d, dff, k) != FFN_EINVAL)
        failmsg("ffn_memories: invalid size or k not refused");
      untouched("ffn_memories: coef written for a refused call", coef, nh, coef0);
      untouched("ffn_memories: partial written for a refused call", partial, nd, partial0);
      for (int i = 0; i < CANARY; i++)
        if (top[i] != -7) failmsg("ffn_memories: top written for a refused call");
    }
    free(coef); free(partial); free(x); free(W1); free(b1); free(W2); free(top); free(coef0); free(partial0);
    return;
  }
  if (bad) return;
  long dh = (long)d * dff;
  float *x = fill(in, d), *W1 = fill(in, dh), *b1 = use_b1 ? fill(in, dff) : NULL, *W2 = fill(in, dh);
  float *x0 = copyf(x, d), *W10 = copyf(W1, dh), *b10 = b1 ? copyf(b1, dff) : NULL, *W20 = copyf(W2, dh);
  float *coef[2] = {fbuf(dff), fbuf(dff)}, *partial[2] = {fbuf(d), fbuf(d)};
  int32_t *top[2] = {(int32_t *)malloc((size_t)k * 4 + 1), (int32_t *)malloc((size_t)k * 4 + 1)};
  TV *C = tv_alloc(dff);
  mm_tv(C, x, NULL, W1, NULL, 1, d, dff);
  int strict = !any_inf(x, d) && !any_inf(W1, dh) && !(b1 && any_inf(b1, dff));
  int strict_w2 = strict && !any_inf(W2, dh);
  for (long j = 0; j < dff; j++) {
    if (b1) {
      C[j].e += gamma_(1) * (fabs(C[j].v) + fabs(b1[j]));
      C[j].v += b1[j];
    }
    C[j] = act_tv(C[j], FFN_ACT_RELU);
  }
  char *seen = (char *)calloc((size_t)dff + 1, 1);
  float *coef_first = fbuf(dff);
  int32_t *top_first = (int32_t *)malloc((size_t)k * 4 + 1);
  for (int f = 0; f < 2; f++) {
    for (int r = 0; r < 2; r++) {
      set_pattern(coef[r], dff, r);
      set_pattern(partial[r], d, r);
      for (int i = 0; i < k; i++) top[r][i] = r ? 0x55555555 : -1;
      if (fns[f](coef[r], top[r], partial[r], x, W1, b1, W2, d, dff, k) != FFN_OK)
        failmsg("ffn_memories: valid call not FFN_OK");
    }
    same_floats("ffn_memories: coef depends on prior contents", coef[0], coef[1], (long)dff * 4);
    same_bits("ffn_memories: top depends on prior contents", top[0], top[1], (long)k * 4);
    same_floats("ffn_memories: partial depends on prior contents", partial[0], partial[1], (long)d * 4);
    const float *cf = coef[0];
    const int32_t *tp = top[0];
    int has_nan = 0;
    for (long j = 0; j < dff; j++) {
      check_tv(names[f], j, cf[j], C[j], strict);
      if (isnan(cf[j])) has_nan = 1;
      else if (cf[j] < 0) fail("ffn_memories negative coef", j, cf[j], 0, 0);
    }
    memset(seen, 0, (size_t)dff + 1);
    for (int i = 0; i < k; i++) {
      if (tp[i] < 0 || tp[i] >= dff) fail("ffn_memories top index out of range", i, tp[i], 0, 0);
      if (seen[tp[i]]) fail("ffn_memories duplicate top index", i, tp[i], 0, 0);
      seen[tp[i]] = 1;
    }
    if (!has_nan) {
      for (int i = 0; i + 1 < k; i++) {
        float a = cf[tp[i]], b = cf[tp[i + 1]];
        if (a < b || (a == b && tp[i] > tp[i + 1]))
          fail("ffn_memories top not largest-first, ties by lower index", i, tp[i], tp[i + 1], 0);
      }
      if (k > 0) {
        float last = cf[tp[k - 1]];
        for (long j = 0; j < dff; j++)
          if (!seen[j] && (cf[j] > last || (cf[j] == last && j < tp[k - 1])))
            fail("ffn_memories a larger coefficient left out of top", j, cf[j], last, 0);
      }
    }
    /* partial = sum over the returned top of coef_i * W2[i,:] (using the returned coef) */
    for (long c = 0; c < d; c++) {
      double v = 0, s = 0;
      for (int i = 0; i < k; i++) {
        double t = (double)cf[tp[i]] * W2[(long)tp[i] * d + c];
        v += t;
        s += fabs(t);
      }
      TV tv = {v, ovf(v, s, gamma_(k) * s, k)}; /* a product past FLT_MAX: nothing owed */
      check_tv("ffn_memories partial", c, partial[0][c], tv, strict_w2);
    }
    if (f == 0) {
      memcpy(coef_first, cf, (size_t)dff * 4);
      memcpy(top_first, tp, (size_t)k * 4);
    } else if (dff && !memcmp(coef_first, cf, (size_t)dff * 4) && !has_nan) {
      same_bits("ffn_memories and ffn_memories_ref disagree on top for identical coef", top_first, tp, (long)k * 4);
    }
  }
  untouched("ffn_memories: x modified", x, d, x0);
  untouched("ffn_memories: W1 modified", W1, dh, W10);
  untouched("ffn_memories: W2 modified", W2, dh, W20);
  if (b1) untouched("ffn_memories: b1 modified", b1, dff, b10);
  free(x); free(W1); free(b1); free(W2); free(x0); free(W10); free(b10); free(W20);
  free(coef[0]); free(coef[1]); free(partial[0]); free(partial[1]); free(top[0]); free(top[1]);
  free(C); free(seen); free(coef_first); free(top_first);
}

/* ------------------------------------------------------------------ counts */

/* what the JS layer lets through: non-negative integers (up to 2^31 here, so int64 math is exact) */
static double draw_count(In *in) {
  uint8_t b = u8(in);
  if (b < 100) return b % 20;
  if (b < 200) return (double)(rnd(in) % 100000);
  if (b < 240) return (double)(rnd(in) % 2147483648ULL);
  static const double S[] = {4096, 8192, 768, 3072, 5120, 2147483647.0, 1, 0};
  return S[b % 8];
}

static void do_counts(In *in) {
  double d = draw_count(in), dff = draw_count(in);
  int bias = u8(in) & 1, gated = u8(in) & 1;
  snprintf(ctx, sizeof ctx, "counts d=%.17g dff=%.17g bias=%d gated=%d", d, dff, bias, gated);
  __int128 D = (__int128)d, H = (__int128)dff; /* exact, then rounded once to double */
  __int128 want = gated ? 3 * D * H + (bias ? 2 * H + D : 0) : 2 * D * H + (bias ? H + D : 0);
  double got = ffn_param_count(d, dff, bias, gated);
  /* exact below 2^53; beyond, a few double roundings are allowed */
  double tol = (double)want < 9007199254740992.0 ? 0 : fabs((double)want) * 8e-16;
  if (!(fabs(got - (double)want) <= tol)) fail("ffn_param_count", 0, got, (double)want, tol);
  __int128 fw = (gated ? 6 : 4) * D * H;
  got = ffn_flops(d, dff, gated);
  tol = (double)fw < 9007199254740992.0 ? 0 : fabs((double)fw) * 8e-16;
  if (!(fabs(got - (double)fw) <= tol)) fail("ffn_flops", 0, got, (double)fw, tol);

  /* llama_hidden_dim: d up to 2^31, multiple_of 1..65536, multiplier none or k/16 in (0, 16) */
  uint8_t mb = u8(in);
  double m = mb < 128 ? (double)(1u << (mb % 17)) : (double)(1 + rnd(in) % 65536);
  uint8_t xb = u8(in);
  double mult = xb < 100 ? 0 : xb < 120 ? 1.3 : (double)(1 + xb % 255) / 16.0;
  long long h = (long long)(2 * (4 * d) / 3); /* as Python's int(2 * (4 * d) / 3) */
  if (mult > 0) h = (long long)((double)h * mult);
  long long M = (long long)m;
  long long lw = M * ((h + M - 1) / M);
  got = llama_hidden_dim(d, m, mult);
  if (got != (double)lw) fail("llama_hidden_dim", (long)d, got, (double)lw, 0);
}

/* ------------------------------------------------ packed GEMM and resident layers */

static long size_of(double v, const char *what, double at_least, double at_most) {
  if (!(v >= at_least && v <= at_most) || v != floor(v)) fail(what, 0, v, at_least, at_most);
  return (long)v;
}

static int bad_size_result(double v) { return v != -1; }

/* The packed-GEMM families call twice: the second call runs the other microkernel (the same bits are required). */
static void other_kernel(void) {
  int k = gemm_select_kernel(-1), o = k == FFN_GEMM_SPLAT ? FFN_GEMM_PREBROADCAST : FFN_GEMM_SPLAT;
  if (gemm_select_kernel(o) != o) failmsg("gemm_select_kernel did not select the other microkernel");
}

/* C (M,N) = act(A (M,K) @ B (K,N) + bias) through gemm_pack + gemm_forward */
static void do_gemm(In *in) {
  int M = draw_size(in), K = draw_size(in), N = draw_size(in), a = draw_act(in);
  int use_bias = u8(in) & 1;
  snprintf(ctx, sizeof ctx, "gemm M=%d K=%d N=%d act=%d bias=%d", M, K, N, a, use_bias);
  if (M < 0 || K < 0 || N < 0) {
    if (bad_size_result(gemm_packed_size(K < 0 ? K : 1, N < 0 ? N : 1)) && (K < 0 || N < 0))
      failmsg("gemm_packed_size: negative size not -1");
    if (M < 0 || K < 0)
      if (bad_size_result(gemm_work_size(M, K))) failmsg("gemm_work_size: negative size not -1");
    float *bufs[6];
    canaries(in, bufs, 5);
    if (K < 0 || N < 0) expect_refused("gemm_pack", gemm_pack(bufs[0], bufs[1], K, N), bufs[0], bufs[5]);
    expect_refused("gemm_forward",
                   gemm_forward(bufs[0], bufs[1], bufs[2], use_bias ? bufs[3] : NULL, M, K, N, a, bufs[4]), bufs[0],
                   bufs[5]);
    free_bufs(bufs, 6);
    return;
  }
  double m = M, k = K, n = N;
  if (refused(fmax(m * k, fmax(k * n, m * n)), m * k * n) || skip_empty_huge(m, k, n)) return;
  long MK = (long)M * K, KN = (long)K * N, MN = (long)M * N;
  long np = size_of(gemm_packed_size(K, N), "gemm_packed_size", (double)KN, 8.0 * (k + 1) * (n + 8));
  long nw = size_of(gemm_work_size(M, K), "gemm_work_size", 0, 64.0 * (m + 8) * (k + 8) + 4096);
  if (np > 4 * CAP_FLOATS || nw > 4 * CAP_FLOATS) return;
  float *A = fill(in, MK), *B = fill(in, KN), *bias = use_bias ? fill(in, N) : NULL;
  float *A0 = copyf(A, MK), *B0 = copyf(B, KN), *bias0 = bias ? copyf(bias, N) : NULL;
  float *Bp = fbuf(np), *C1 = fbuf(MN), *C2 = fbuf(MN), *work = fbuf(nw);
  set_pattern(Bp, np, 0);
  if (gemm_pack(Bp, B, K, N) != FFN_OK) failmsg("gemm_pack: valid call not FFN_OK");
  untouched("gemm_pack: B modified", B, KN, B0);
  if (invalid_act(a)) {
    set_pattern(C1, MN, 0);
    memcpy(C2, C1, (size_t)MN * 4);
    if (gemm_forward(C1, A, Bp, bias, M, K, N, a, work) != FFN_EINVAL)
      failmsg("gemm_forward: unknown activation not refused");
    untouched("gemm_forward: output written for an unknown activation", C1, MN, C2);
  } else {
    TV *R = tv_alloc(MN);
    mm_tv(R, A, NULL, B, NULL, M, K, N);
    for (long i = 0; i < MN; i++) {
      if (bias) {
        double b = bias[i % N];
        R[i].e = ovf(R[i].v + b, 0, R[i].e + gamma_(1) * (fabs(R[i].v) + fabs(b)), 1);
        R[i].v += b;
      }
      R[i] = act_tv(R[i], a);
    }
    int strict = !any_inf(A, MK) && !any_inf(B, KN) && !(bias && any_inf(bias, N));
    set_pattern(C1, MN, 0);
    set_pattern(work, nw, 0);
    if (gemm_forward(C1, A, Bp, bias, M, K, N, a, work) != FFN_OK) failmsg("gemm_forward: valid call not FFN_OK");
    set_pattern(C2, MN, 1);
    set_pattern(work, nw, 1);
    other_kernel();
    if (gemm_forward(C2, A, Bp, bias, M, K, N, a, work) != FFN_OK) failmsg("gemm_forward: valid call not FFN_OK");
    same_floats("gemm_forward: result depends on prior contents of C or work, or on the microkernel", C1, C2, MN * 4);
    for (long i = 0; i < MN; i++) check_tv("gemm_forward", i, C1[i], R[i], strict);
    free(R);
  }
  untouched("gemm_forward: A modified", A, MK, A0);
  if (bias) untouched("gemm_forward: bias modified", bias, N, bias0);
  free(A); free(B); free(bias); free(A0); free(B0); free(bias0); free(Bp); free(C1); free(C2); free(work);
}

/* H (M,N) = act(A Wg) * (A Wu) through gemm_gated_pack + gemm_gated_forward */
static void do_gemm_gated(In *in) {
  int M = draw_size(in), K = draw_size(in), N = draw_size(in), a = draw_act(in);
  snprintf(ctx, sizeof ctx, "gemm_gated M=%d K=%d N=%d act=%d", M, K, N, a);
  if (M < 0 || K < 0 || N < 0) {
    if ((K < 0 || N < 0) && bad_size_result(gemm_gated_packed_size(K, N)))
      failmsg("gemm_gated_packed_size: negative size not -1");
    float *bufs[6];
    canaries(in, bufs, 5);
    if (K < 0 || N < 0)
      expect_refused("gemm_gated_pack", gemm_gated_pack(bufs[0], bufs[1], bufs[2], K, N), bufs[0], bufs[5]);
    expect_refused("gemm_gated_forward", gemm_gated_forward(bufs[0], bufs[1], bufs[2], M, K, N, a, bufs[4]), bufs[0],
                   bufs[5]);
    free_bufs(bufs, 6);
    return;
  }
  double m = M, k = K, n = N;
  if (refused(fmax(m * k, fmax(2 * k * n, m * n)), 2 * m * k * n) || skip_empty_huge(m, k, n)) return;
  long MK = (long)M * K, KN = (long)K * N, MN = (long)M * N;
  long np = size_of(gemm_gated_packed_size(K, N), "gemm_gated_packed_size", 2.0 * KN, 16.0 * (k + 1) * (n + 8));
  long nw = size_of(gemm_work_size(M, K), "gemm_work_size", 0, 64.0 * (m + 8) * (k + 8) + 4096);
  if (np > 4 * CAP_FLOATS || nw > 4 * CAP_FLOATS) return;
  float *A = fill(in, MK), *Wg = fill(in, KN), *Wu = fill(in, KN);
  float *A0 = copyf(A, MK), *Wg0 = copyf(Wg, KN), *Wu0 = copyf(Wu, KN);
  float *Bp = fbuf(np), *H1 = fbuf(MN), *H2 = fbuf(MN), *work = fbuf(nw);
  set_pattern(Bp, np, 1);
  if (gemm_gated_pack(Bp, Wg, Wu, K, N) != FFN_OK) failmsg("gemm_gated_pack: valid call not FFN_OK");
  untouched("gemm_gated_pack: Wg modified", Wg, KN, Wg0);
  untouched("gemm_gated_pack: Wu modified", Wu, KN, Wu0);
  if (invalid_act(a)) {
    set_pattern(H1, MN, 0);
    memcpy(H2, H1, (size_t)MN * 4);
    if (gemm_gated_forward(H1, A, Bp, M, K, N, a, work) != FFN_EINVAL)
      failmsg("gemm_gated_forward: unknown activation not refused");
    untouched("gemm_gated_forward: output written for an unknown activation", H1, MN, H2);
  } else {
    TV *G = tv_alloc(MN), *Uu = tv_alloc(MN);
    mm_tv(G, A, NULL, Wg, NULL, M, K, N);
    mm_tv(Uu, A, NULL, Wu, NULL, M, K, N);
    int strict = !any_inf(A, MK) && !any_inf(Wg, KN) && !any_inf(Wu, KN);
    set_pattern(H1, MN, 0);
    set_pattern(work, nw, 0);
    if (gemm_gated_forward(H1, A, Bp, M, K, N, a, work) != FFN_OK) failmsg("gemm_gated_forward: valid call not FFN_OK");
    set_pattern(H2, MN, 1);
    set_pattern(work, nw, 1);
    other_kernel();
    if (gemm_gated_forward(H2, A, Bp, M, K, N, a, work) != FFN_OK) failmsg("gemm_gated_forward: valid call not FFN_OK");
    same_floats("gemm_gated_forward: result depends on prior contents of H or work, or on the microkernel", H1, H2,
                MN * 4);
    for (long i = 0; i < MN; i++) {
      TV A_ = act_tv(G[i], a), P;
      P.v = A_.v * Uu[i].v;
      P.e = ovf(P.v, 0, fabs(A_.v) * Uu[i].e + fabs(Uu[i].v) * A_.e + A_.e * Uu[i].e + U * fabs(P.v), 1);
      check_tv("gemm_gated_forward", i, H1[i], P, strict);
    }
    free(G); free(Uu);
  }
  untouched("gemm_gated_forward: A modified", A, MK, A0);
  free(A); free(Wg); free(Wu); free(A0); free(Wg0); free(Wu0); free(Bp); free(H1); free(H2); free(work);
}

/* the resident layers' kernels: ffn_packed_forward and gated_packed_forward vs the float64 FFNs */
static void do_packed(In *in) {
  int T = draw_size(in), d = draw_size(in), dff = draw_size(in), a = draw_act(in);
  uint8_t flags = u8(in);
  int gated = flags & 1, use_b1 = (flags >> 1) & 1, use_b2 = (flags >> 2) & 1;
  snprintf(ctx, sizeof ctx, "packed %s T=%d d=%d dff=%d act=%d b1=%d b2=%d", gated ? "gated" : "ffn", T, d, dff, a,
           use_b1, use_b2);
  if (T < 0 || d < 0 || dff < 0) {
    if (bad_size_result(ffn_packed_work_size(T, d, dff))) failmsg("ffn_packed_work_size: negative size not -1");
    float *bufs[8];
    canaries(in, bufs, 7);
    int st = gated ? gated_packed_forward(bufs[0], bufs[1], bufs[2], bufs[3], T, d, dff, a, bufs[6])
                   : ffn_packed_forward(bufs[0], bufs[1], bufs[2], use_b1 ? bufs[3] : NULL, bufs[4],
                                        use_b2 ? bufs[5] : NULL, T, d, dff, a, bufs[6]);
    expect_refused("packed forward", st, bufs[0], bufs[7]);
    free_bufs(bufs, 8);
    return;
  }
  double t = T, dd = d, h = dff;
  if (refused(fmax(fmax(t * dd, 2 * dd * h), t * h), 3 * t * dd * h) || skip_empty_huge(t, dd, h)) return;
  long Td = (long)T * d, dh = (long)d * dff;
  long nw = size_of(ffn_packed_work_size(T, d, dff), "ffn_packed_work_size", 0, 64.0 * (t + 8) * (dd + h + 8) + 8192);
  long n1 = size_of(gated ? gemm_gated_packed_size(d, dff) : gemm_packed_size(d, dff), "packed size",
                    (gated ? 2.0 : 1.0) * dh, 16.0 * (dd + 1) * (h + 8));
  long n2 = size_of(gemm_packed_size(dff, d), "gemm_packed_size", (double)dh, 8.0 * (h + 1) * (dd + 8));
  if (nw > 4 * CAP_FLOATS || n1 > 4 * CAP_FLOATS || n2 > 4 * CAP_FLOATS) return;
  float *X = fill(in, Td), *W1 = fill(in, dh), *Wu = gated ? fill(in, dh) : NULL, *W2 = fill(in, dh);
  float *b1 = !gated && use_b1 ? fill(in, dff) : NULL, *b2 = !gated && use_b2 ? fill(in, d) : NULL;
  float *X0 = copyf(X, Td);
  float *P1 = fbuf(n1), *P2 = fbuf(n2), *Y1 = fbuf(Td), *Y2 = fbuf(Td), *work = fbuf(nw);
  if ((gated ? gemm_gated_pack(P1, W1, Wu, d, dff) : gemm_pack(P1, W1, d, dff)) != FFN_OK)
    failmsg("pack: valid call not FFN_OK");
  if (gemm_pack(P2, W2, dff, d) != FFN_OK) failmsg("gemm_pack: valid call not FFN_OK");
  if (invalid_act(a)) {
    set_pattern(Y1, Td, 0);
    memcpy(Y2, Y1, (size_t)Td * 4);
    int st = gated ? gated_packed_forward(Y1, X, P1, P2, T, d, dff, a, work)
                   : ffn_packed_forward(Y1, X, P1, b1, P2, b2, T, d, dff, a, work);
    if (st != FFN_EINVAL) failmsg("packed forward: unknown activation not refused");
    untouched("packed forward: output written for an unknown activation", Y1, Td, Y2);
  } else {
    TV *R = tv_alloc(Td);
    if (gated) gated_tv(R, X, W1, Wu, W2, T, d, dff, a);
    else ffn_tv(R, X, W1, b1, W2, b2, T, d, dff, a);
    int strict = !any_inf(X, Td) && !any_inf(W1, dh) && !any_inf(W2, dh) && !(Wu && any_inf(Wu, dh)) &&
                 !(b1 && any_inf(b1, dff)) && !(b2 && any_inf(b2, d));
    for (int r = 0; r < 2; r++) {
      float *Y = r ? Y2 : Y1;
      set_pattern(Y, Td, r);
      set_pattern(work, nw, r);
      if (r) other_kernel();
      int st = gated ? gated_packed_forward(Y, X, P1, P2, T, d, dff, a, work)
                     : ffn_packed_forward(Y, X, P1, b1, P2, b2, T, d, dff, a, work);
      if (st != FFN_OK) failmsg("packed forward: valid call not FFN_OK");
    }
    same_floats("packed forward: result depends on prior contents of Y or work, or on the microkernel", Y1, Y2, Td * 4);
    for (long i = 0; i < Td; i++)
      check_tv(gated ? "gated_packed_forward" : "ffn_packed_forward", i, Y1[i], R[i], strict);
    free(R);
  }
  untouched("packed forward: X modified", X, Td, X0);
  free(X); free(W1); free(Wu); free(W2); free(b1); free(b2);
  free(X0); free(P1); free(P2); free(Y1); free(Y2); free(work);
}

/* gemm_ex: op(A) @ op(B) (+ C when accumulating), transposes read in place */
static void do_gemm_ex(In *in) {
  int M = draw_size(in), K = draw_size(in), N = draw_size(in);
  uint8_t flags = u8(in);
  int tA = flags & 1, tB = (flags >> 1) & 1, acc = (flags >> 2) & 1;
  snprintf(ctx, sizeof ctx, "gemm_ex M=%d K=%d N=%d transA=%d transB=%d accumulate=%d", M, K, N, tA, tB, acc);
  if (M < 0 || K < 0 || N < 0) {
    float *b[4];
    canaries(in, b, 3);
    expect_refused("gemm_ex", gemm_ex(b[0], b[1], tA, b[2], tB, M, K, N, acc), b[0], b[3]);
    free_bufs(b, 4);
    return;
  }
  double m = M, k = K, n = N;
  if (refused(fmax(m * k, fmax(k * n, m * n)), m * k * n) || skip_empty_huge(m, k, n)) return;
  long MK = (long)M * K, KN = (long)K * N, MN = (long)M * N;
  float *A = fill(in, MK), *B = fill(in, KN), *Cin = fill(in, MN);
  float *A0 = copyf(A, MK), *B0 = copyf(B, KN);
  /* the plain (M,K) and (K,N) operands the transposed storage stands for */
  float *Ap = fbuf(MK), *Bq = fbuf(KN);
  for (long i = 0; i < M; i++)
    for (long j = 0; j < K; j++) Ap[i * K + j] = tA ? A[j * M + i] : A[i * K + j];
  for (long i = 0; i < K; i++)
    for (long j = 0; j < N; j++) Bq[i * N + j] = tB ? B[j * K + i] : B[i * N + j];
  TV *R = tv_alloc(MN);
  mm_tv(R, Ap, NULL, Bq, NULL, M, K, N);
  if (acc)
    for (long i = 0; i < MN; i++) {
      R[i].e = ovf(R[i].v + Cin[i], 0, R[i].e + gamma_(1) * (fabs(R[i].v) + fabs(Cin[i])), 1);
      R[i].v += Cin[i];
    }
  int strict = !any_inf(A, MK) && !any_inf(B, KN) && !(acc && any_inf(Cin, MN));
  float *C1 = fbuf(MN), *C2 = fbuf(MN);
  for (int r = 0; r < 2; r++) {
    float *C = r ? C2 : C1;
    if (acc) memcpy(C, Cin, (size_t)MN * 4);
    else set_pattern(C, MN, r);
    if (r) other_kernel();
    int st = gemm_ex(C, A, tA, B, tB, M, K, N, acc);
    if (st != FFN_OK) failmsg("gemm_ex: valid call not FFN_OK");
  }
  same_floats("gemm_ex: result depends on prior contents of C (not accumulating), on the microkernel or differs "
              "between runs", C1, C2, MN * 4);
  for (long i = 0; i < MN; i++) check_tv("gemm_ex", i, C1[i], R[i], strict);
  untouched("gemm_ex: A modified", A, MK, A0);
  untouched("gemm_ex: B modified", B, KN, B0);
  free(A); free(B); free(Cin); free(A0); free(B0); free(Ap); free(Bq); free(R); free(C1); free(C2);
}

/* ----------------------------------------------------------------- driver */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int checked_known;
  if (!checked_known) { /* the seeds' figures, once: the harness's own formulas are not the only oracle */
    checked_known = 1;
    if (ffn_param_count(768, 3072, 1, 0) != 4722432) failmsg("GPT-2 FFN params != 4,722,432");
    if (llama_hidden_dim(4096, 256, 0) != 11008) failmsg("LLaMA-7B hidden != 11008");
    if (llama_hidden_dim(8192, 4096, 1.3) != 28672) failmsg("llama_hidden_dim(8192, 4096, 1.3) != 28672");
    if (llama_hidden_dim(4096, 1024, 1.3) != 14336) failmsg("llama_hidden_dim(4096, 1024, 1.3) != 14336");
#if defined(__wasm__) /* the kernels are built with wasm SIMD (this file may not be) */
    if (ffn_simd_level() != 1 && ffn_simd_level() != 2) failmsg("ffn_simd_level() is not 1 or 2 in a wasm build");
#else
    if (ffn_simd_level() != 0) failmsg("ffn_simd_level() != 0 in a native build");
#endif
  }
  In in = {data, size, 0x9E3779B97F4A7C15ULL};
  for (int i = 0; i < 8 && i < (int)size; i++) in.rng = in.rng * 131 + data[size - 1 - i];
  if (!in.rng) in.rng = 1;
  for (int calls = 0; calls < 4 && in.n > 0; calls++) {
    double before = ffn_heap_in_use();
    if (!(before >= 0) || !isfinite(before)) failmsg("ffn_heap_in_use is not a finite non-negative number");
    uint8_t family = u8(&in);
    int k = family >> 7 ? FFN_GEMM_PREBROADCAST : FFN_GEMM_SPLAT; /* the GEMM families' first microkernel */
    if (gemm_select_kernel(k) != k || gemm_select_kernel(-1) != k) failmsg("gemm_select_kernel: selection not kept");
    switch (family % 11) {
      case 0: do_matmul(&in); break;
      case 1: do_act(&in); break;
      case 2: do_ffn(&in); break;
      case 3: do_gated(&in); break;
      case 4: do_swiglu_bw(&in); break;
      case 5: do_memories(&in); break;
      case 6: do_counts(&in); break;
      case 7: do_gemm(&in); break;
      case 8: do_gemm_gated(&in); break;
      case 9: do_packed(&in); break;
      default: do_gemm_ex(&in); break;
    }
    if (ffn_heap_in_use() != before) failmsg("ffn_heap_in_use changed across a kernel call (leak)");
  }
  return 0;
}
