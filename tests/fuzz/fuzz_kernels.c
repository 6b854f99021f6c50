/* libFuzzer harness: drives every FFN_API entry point of src/ffn.h with sizes and values taken from the input, under
 * ASan/UBSan. */
/*
 * Build and run: tests/fuzz/run.sh [seconds]. One input = a sequence of calls; each call picks a
 * family (matmul, activations, classic FFN, gated FFN, SwiGLU backward, memories, counts, packed
 * GEMM, gated packed GEMM, resident-layer FFNs, gemm_ex and gemm_ex_w; the training kernels: ffn_backward
 * and ffn_backward_saved, gated_ffn_backward, softmax_ce_backward, adamw_step / sgd_step / rank_one_update,
 * spd_factor and spd_solve, the memory lab's memory_work_size / memory_forward / memory_evaluate /
 * memory_train_step) and runs every entry point of that family, and its _ref twin, on the same drawn
 * sizes and data (the *_size functions size the packed and work buffers exactly):
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
 * counts against their formulas; ffn_heap_in_use() unchanged by every call. The training kernels: the
 * backwards against float64 gradients with the same propagated bounds; softmax_ce_backward against a float64
 * loss and dlogits (NaN rows NaN, in place = out of place); adamw_step, sgd_step and rank_one_update bit for
 * bit against their _ref twins and the documented float formula; spd_factor FFN_OK with A = L L^T on SPD
 * input and FFN_ENOTPD on a diagonal entry <= 0, NaN or +inf, spd_solve by its residual; the memory lab's
 * forward against float64, memory_evaluate and memory_train_step bit for bit against the public kernels
 * their contracts compose (a non-finite loss leaves P, M, Vm alone). A family byte's low 5 bits pick the
 * family (0..10 as in inputs made before the training families were added).
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

/* ------------------------------------------------ SwiGLU and gated FFN backwards */

static void other_kernel(void); /* in the packed-GEMM section */

static int any_nan(const float *p, long n) {
  for (long i = 0; i < n; i++)
    if (isnan(p[i])) return 1;
  return 0;
}

/* n buffers of nf floats drawn from the input, and their copies: a refused call must leave every one unchanged */
static void canaries_n(In *in, float **b, float **c, int n, long nf) {
  for (int i = 0; i < n; i++) b[i] = fill(in, nf), c[i] = copyf(b[i], nf);
}
/* after refused calls (each caller checks their FFN_EINVAL): every buffer as it was, then freed */
static void expect_refused_n(const char *fn, float **b, float **c, int n, long nf) {
  char msg[160];
  snprintf(msg, sizeof msg, "%s: a buffer written (or an input modified) by a refused call", fn);
  for (int i = 0; i < n; i++) untouched(msg, b[i], nf, c[i]);
  free_bufs(b, n), free_bufs(c, n);
}

/* bound on |phi''| near x (radius r), for propagating an input error through phi'; infinite where phi' jumps */
static double lip2(double x, double r, int a) {
  switch (a) {
    case FFN_ACT_IDENTITY:
      return 0;
    case FFN_ACT_RELU:
      return fabs(x) > r ? 0 : INFINITY;
    case FFN_ACT_RELU2:
      return 2;
    case FFN_ACT_SIGMOID:
      return 0.1;
    case FFN_ACT_SILU:
      return 0.5;
    default:
      return 1; /* gelu 0.80, gelu_tanh 0.80, gelu_sigmoid 0.86 */
  }
}

/* phi'(x) with a bound: the propagated input error plus what check_grad_value allows the float32 derivative;
   none owed where x itself is not finite (the kernel's x may then be inf where the reference's is NaN or back) */
static TV grad_tv(TV x, int a) {
  TV s = {grad64(x.v, a), 0};
  double l = lip2(x.v, x.e, a);
  s.e = (l ? l * x.e : 0) + 1e-4 * fabs(s.v) + 1e-6;
  if (isinf((float)s.v) || !isfinite(x.v) || !isfinite(x.e)) s.e = INFINITY; /* x's float value may be NaN */
  return s;
}

/* product of two bounded values, plus one float32 rounding */
static TV mul_tv(TV a, TV b) {
  TV p = {a.v * b.v, 0};
  p.e = ovf(p.v, 0, fabs(a.v) * b.e + fabs(b.v) * a.e + a.e * b.e + U * fabs(p.v), 1);
  if (isinf(a.e) || isinf(b.e)) p.e = INFINITY;
  return p;
}

/* float64 gradients of Y = (act(X Wg) * (X Wu)) Wd with error bounds, given dY */
static void gated_bw_tv(TV *dX, TV *dWg, TV *dWu, TV *dWd, const float *dY, const float *X, const float *Wg,
                        const float *Wu, const float *Wd, long N, long d, long dff, int a) {
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
    TV A = act_tv(G[i], a), S = grad_tv(G[i], a);
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

typedef int (*gbfn)(float *, float *, float *, float *, const float *, const float *, const float *, const float *,
                    const float *, int, int, int, int, float *);
static int swiglu_k(float *dX, float *dWg, float *dWu, float *dWd, const float *dY, const float *X, const float *Wg,
                    const float *Wu, const float *Wd, int N, int d, int dff, int act, float *work) {
  (void)act;
  return swiglu_backward(dX, dWg, dWu, dWd, dY, X, Wg, Wu, Wd, N, d, dff, work);
}
static int swiglu_r(float *dX, float *dWg, float *dWu, float *dWd, const float *dY, const float *X, const float *Wg,
                    const float *Wu, const float *Wd, int N, int d, int dff, int act, float *work) {
  (void)act;
  return swiglu_backward_ref(dX, dWg, dWu, dWd, dY, X, Wg, Wu, Wd, N, d, dff, work);
}

/* a negative size or an unknown act: FFN_EINVAL from both, every buffer unchanged */
static void gated_bw_refused(In *in, gbfn *fns, const char **names, int N, int d, int dff, int a) {
  long nf = CANARY;
  if (N >= 0 && d >= 0 && dff >= 0) { /* unknown act: real buffers large enough for every operand */
    double n = N, dd = d, h = dff, big = fmax(fmax(n * dd, dd * h), 3 * n * h);
    if (refused(big, 0) || skip_empty_huge(n, dd, h)) return;
    nf = (long)fmax(big, CANARY);
  }
  float *b[10], *c[10];
  canaries_n(in, b, c, 10, nf);
  for (int f = 0; f < 2; f++) {
    int st = fns[f](b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], N, d, dff, a, b[9]);
    char msg[96];
    snprintf(msg, sizeof msg, "%s: invalid call not refused", names[f]);
    if (st != FFN_EINVAL) failmsg(msg);
  }
  expect_refused_n(names[0], b, c, 10, nf);
}

/* each of the kernel and its _ref twin run twice (garbage 0 and 1 in outputs and work; the kernel's second run on the
   other microkernel), checked against the float64 gradients */
static void gated_bw_run(float **ins, const long *insz, gbfn *fns, const char **names, int N, int d, int dff, int a,
                         int strict) {
  long Nh = (long)N * dff, outsz[4] = {insz[0], insz[2], insz[2], insz[2]};
  float *o1[4], *o2[4], *work = fbuf(3 * Nh);
  TV *R[4];
  for (int i = 0; i < 4; i++) o1[i] = fbuf(outsz[i]), o2[i] = fbuf(outsz[i]), R[i] = tv_alloc(outsz[i]);
  gated_bw_tv(R[0], R[1], R[2], R[3], ins[0], ins[1], ins[2], ins[3], ins[4], N, d, dff, a);
  static const char *onames[4] = {"dX", "dWg", "dWu", "dWd"};
  for (int f = 0; f < 2; f++) {
    for (int r = 0; r < 2; r++) {
      float **o = r ? o2 : o1;
      for (int i = 0; i < 4; i++) set_pattern(o[i], outsz[i], r);
      set_pattern(work, 3 * Nh, r);
      if (f == 0 && r == 1) other_kernel();
      if (fns[f](o[0], o[1], o[2], o[3], ins[0], ins[1], ins[2], ins[3], ins[4], N, d, dff, a, work) != FFN_OK)
        failmsg("gated backward: valid call not FFN_OK");
    }
    for (int i = 0; i < 4; i++) {
      char what[96];
      snprintf(what, sizeof what, "%s %s: depends on prior contents of outputs or work, or on the microkernel",
               names[f], onames[i]);
      same_floats(what, o1[i], o2[i], outsz[i] * 4);
      snprintf(what, sizeof what, "%s %s", names[f], onames[i]);
      for (long j = 0; j < outsz[i]; j++) check_tv(what, j, o1[i][j], R[i][j], strict);
    }
  }
  for (int i = 0; i < 4; i++) free(o1[i]), free(o2[i]), free(R[i]);
  free(work);
}

/* swiglu_backward (gated = 0) or gated_ffn_backward with a drawn act (1), and their _ref twins */
static void do_gated_bw(In *in, int gated) {
  int N = draw_size(in), d = draw_size(in), dff = draw_size(in), a = gated ? draw_act(in) : FFN_ACT_SILU;
  snprintf(ctx, sizeof ctx, "%s N=%d d=%d dff=%d act=%d", gated ? "gated_ffn_backward" : "swiglu_backward", N, d, dff,
           a);
  gbfn fns[2] = {gated ? gated_ffn_backward : swiglu_k, gated ? gated_ffn_backward_ref : swiglu_r};
  const char *names[2] = {gated ? "gated_ffn_backward" : "swiglu_backward",
                          gated ? "gated_ffn_backward_ref" : "swiglu_backward_ref"};
  if (N < 0 || d < 0 || dff < 0 || invalid_act(a)) {
    gated_bw_refused(in, fns, names, N, d, dff, a);
    return;
  }
  double n = N, dd = d, h = dff;
  if (refused(fmax(fmax(n * dd, dd * h), 3 * n * h), 8 * n * dd * h) || skip_empty_huge(n, dd, h)) return;
  long Nd = (long)N * d, dh = (long)d * dff;
  long insz[5] = {Nd, Nd, dh, dh, dh};
  float *ins[5], *ins0[5];
  for (int i = 0; i < 5; i++) ins[i] = fill(in, insz[i]), ins0[i] = copyf(ins[i], insz[i]);
  int strict = !gated || (!any_nan(ins[1], Nd) && !any_nan(ins[2], dh)); /* act'(NaN) is unspecified */
  for (int i = 0; i < 5; i++) strict &= !any_inf(ins[i], insz[i]);
  gated_bw_run(ins, insz, fns, names, N, d, dff, a, strict);
  for (int i = 0; i < 5; i++) untouched("gated backward: an input was modified", ins[i], insz[i], ins0[i]);
  for (int i = 0; i < 5; i++) free(ins[i]), free(ins0[i]);
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
  int level = ffn_simd_level(); /* 0 native, 1 ffn.wasm, 2 ffn-relaxed.wasm: which one, the build decides */
  if (level < 0 || level > 2) fail("ffn_simd_level", 0, level, 0, 2);
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

/* gemm_ex_w on exactly gemm_ex_work_size floats of scratch, twice (garbage 0 and 1 in C and work, the second run on
   the other microkernel): the bits of gemm_ex (C1) */
static void gemm_ex_w_check(const float *C1, const float *Cin, const float *A, int tA, const float *B, int tB, int M,
                            int K, int N, int acc) {
  double m = M, k = K, n = N;
  long nw = size_of(gemm_ex_work_size(M, K, N), "gemm_ex_work_size", 0,
                    8.0 * (k + 8) * (n + 8) + 64.0 * (m + 8) * (k + 8) + 8192);
  long MN = (long)M * N;
  float *C = fbuf(MN), *work = fbuf(nw);
  for (int r = 0; r < 2; r++) {
    if (acc)
      memcpy(C, Cin, (size_t)MN * 4);
    else
      set_pattern(C, MN, r);
    set_pattern(work, nw, r);
    other_kernel();
    if (gemm_ex_w(C, A, tA, B, tB, M, K, N, acc, work) != FFN_OK) failmsg("gemm_ex_w: valid call not FFN_OK");
    same_floats("gemm_ex_w: differs from gemm_ex, or depends on prior contents of C or work", C, C1, MN * 4);
  }
  free(C), free(work);
}

/* gemm_ex: op(A) @ op(B) (+ C when accumulating), transposes read in place; then gemm_ex_w */
static void do_gemm_ex(In *in) {
  int M = draw_size(in), K = draw_size(in), N = draw_size(in);
  uint8_t flags = u8(in);
  int tA = flags & 1, tB = (flags >> 1) & 1, acc = (flags >> 2) & 1;
  snprintf(ctx, sizeof ctx, "gemm_ex M=%d K=%d N=%d transA=%d transB=%d accumulate=%d", M, K, N, tA, tB, acc);
  if (M < 0 || K < 0 || N < 0) {
    float *b[5];
    canaries(in, b, 4); /* b[3]: gemm_ex_w's work */
    expect_refused("gemm_ex", gemm_ex(b[0], b[1], tA, b[2], tB, M, K, N, acc), b[0], b[4]);
    if (bad_size_result(gemm_ex_work_size(M, K, N))) failmsg("gemm_ex_work_size: negative size not -1");
    expect_refused("gemm_ex_w", gemm_ex_w(b[0], b[1], tA, b[2], tB, M, K, N, acc, b[3]), b[0], b[4]);
    free_bufs(b, 5);
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
  gemm_ex_w_check(C1, Cin, A, tA, B, tB, M, K, N, acc);
  untouched("gemm_ex: A modified", A, MK, A0);
  untouched("gemm_ex: B modified", B, KN, B0);
  free(A); free(B); free(Cin); free(A0); free(B0); free(Ap); free(Bq); free(R); free(C1); free(C2);
}

/* ------------------------------------------------------ training: FFN backwards */

/* o (c,r) = a (r,c) transposed, with its bounds oe (when both given) */
static void transp(float *o, double *oe, const float *a, const double *ae, long r, long c) {
  for (long i = 0; i < r; i++)
    for (long j = 0; j < c; j++) {
      o[j * r + i] = a[i * c + j];
      if (oe && ae) oe[j * r + i] = ae[i * c + j];
    }
}

/* s (n) = column sums of M (rows,n) held as floats with bounds Me (NULL: exact) */
static void colsum_tv(TV *s, const float *M, const double *Me, long rows, long n) {
  for (long j = 0; j < n; j++) {
    double v = 0, a = 0, e = 0;
    for (long r = 0; r < rows; r++) {
      v += M[r * n + j];
      a += fabs(M[r * n + j]);
      e += Me ? Me[r * n + j] : 0;
    }
    s[j].v = v;
    s[j].e = ovf(v, a, e + gamma_(rows) * a, rows);
  }
}

static double *dalloc(long n) { return (double *)calloc((size_t)(n ? n : 1), sizeof(double)); }

/* the backward from H (T,dff, bounded) and A (floats with bounds Ae): dW2 = A^T dY, dH = (dY W2^T) phi'(H) (also
   returned as floats dHf with bounds dHe), db1 = colsum dH, dW1 = X^T dH, dX = dH W1^T */
static void bw_core(TV *dX, TV *dW1, TV *db1, TV *dW2, float *dHf, double *dHe, const float *dY, const float *X,
                    const TV *H, const float *A, const double *Ae, const float *W2, const float *W1, long T, long d,
                    long dff, int a) {
  long Th = T * dff, dh = d * dff;
  float *AT = fbuf(Th), *W2T = fbuf(dh), *XT = fbuf(T * d), *W1T = fbuf(dh);
  double *AeT = dalloc(Th);
  TV *dA = tv_alloc(Th);
  transp(AT, AeT, A, Ae, T, dff);
  mm_tv(dW2, AT, AeT, dY, NULL, dff, T, d);
  transp(W2T, NULL, W2, NULL, dff, d);
  mm_tv(dA, dY, NULL, W2T, NULL, T, d, dff);
  for (long i = 0; i < Th; i++) {
    TV p = mul_tv(dA[i], grad_tv(H[i], a));
    dHf[i] = to_f(p.v, p.e, &dHe[i]);
  }
  colsum_tv(db1, dHf, dHe, T, dff);
  transp(XT, NULL, X, NULL, T, d);
  mm_tv(dW1, XT, NULL, dHf, dHe, d, T, dff);
  if (W1) transp(W1T, NULL, W1, NULL, d, dff); /* W1 NULL: ffn_backward_saved without dX */
  if (dX) mm_tv(dX, dHf, dHe, W1T, NULL, T, dff, d);
  free(AT), free(W2T), free(XT), free(W1T), free(AeT), free(dA);
}

/* H = X W1 + b1 and A = act(H) in float64 with bounds, A rounded to floats (Af, Ae) for the next stage */
static void fwd_ha(TV *H, float *Af, double *Ae, const float *X, const float *W1, const float *b1, long T, long d,
                   long dff, int a) {
  mm_tv(H, X, NULL, W1, NULL, T, d, dff);
  for (long i = 0; i < T * dff; i++) {
    if (b1) {
      double b = b1[i % dff];
      H[i].e = ovf(H[i].v + b, 0, H[i].e + gamma_(1) * (fabs(H[i].v) + fabs(b)), 1);
      H[i].v += b;
    }
    TV t = act_tv(H[i], a);
    Af[i] = to_f(t.v, t.e, &Ae[i]);
  }
}

/* ffn_backward (saved = 0) or ffn_backward_saved (1), or their _ref twins (f = 1), on io = {dX, dW1, db1, dW2,
   db2, dY, X, W1, b1, W2, H, A, work} */
static int call_ffn_bw(int f, int saved, float **io, int T, int d, int dff, int a) {
  if (saved)
    return (f ? ffn_backward_saved_ref : ffn_backward_saved)(io[0], io[1], io[2], io[3], io[5], io[6], io[10], io[11],
                                                             io[9], T, d, dff, a, io[7]);
  return (f ? ffn_backward_ref : ffn_backward)(io[0], io[1], io[2], io[3], io[4], io[5], io[6], io[7], io[8], io[9], T,
                                               d, dff, a, io[12]);
}

/* sizes negative, act unknown, or dX wanted from ffn_backward_saved without W1: FFN_EINVAL, nothing written */
static void ffn_bw_refused(In *in, int T, int d, int dff, int a, int saved, uint8_t fl) {
  long nf = CANARY;
  if (T >= 0 && d >= 0 && dff >= 0) { /* real buffers large enough for every operand */
    double t = T, dd = d, h = dff, big = fmax(fmax(t * dd, dd * h), 2 * t * h);
    if (refused(big, 0) || skip_empty_huge(t, dd, h)) return;
    nf = (long)fmax(big, CANARY);
  }
  float *b[13], *c[13];
  canaries_n(in, b, c, 13, nf);
  float *io[13];
  for (int i = 0; i < 13; i++) io[i] = b[i];
  if (!(fl >> 3 & 1)) io[2] = io[4] = NULL;
  if (saved && !(fl >> 4 & 1)) io[7] = NULL;
  for (int f = 0; f < 2; f++)
    if (call_ffn_bw(f, saved, io, T, d, dff, a) != FFN_EINVAL) failmsg("ffn_backward: invalid call not refused");
  expect_refused_n(saved ? "ffn_backward_saved" : "ffn_backward", b, c, 13, nf);
}

/* float64 references of the five gradients R and of dH (which ffn_backward_saved leaves in A) */
static void ffn_bw_refs(TV **R, float *dHf, double *dHe, float **io, int saved, long T, long d, long dff, int a) {
  long Th = T * dff;
  TV *H = tv_alloc(Th);
  float *Af = fbuf(Th);
  double *Ae = dalloc(Th);
  if (saved)
    for (long i = 0; i < Th; i++) H[i].v = io[10][i], Af[i] = io[11][i];
  else
    fwd_ha(H, Af, Ae, io[6], io[7], io[8], T, d, dff, a);
  bw_core(io[0] ? R[0] : NULL, R[1], R[2], R[3], dHf, dHe, io[5], io[6], H, Af, Ae, io[9], io[7], T, d, dff, a);
  colsum_tv(R[4], io[5], NULL, T, d);
  free(H), free(Af), free(Ae);
}

/* the outputs of ffn_bw_run's two runs (r) against each other and the float64 references */
static void ffn_bw_check(const char *fn, float **o1, float **o2, float **Aout, TV **R, const float *dHf,
                         const double *dHe, const long *sz, int strict) {
  static const char *on[5] = {"dX", "dW1", "db1", "dW2", "db2"};
  char what[96];
  for (int i = 0; i < 5; i++) {
    if (!o1[i]) continue;
    snprintf(what, sizeof what, "%s %s: depends on prior contents of outputs or work, or on the microkernel", fn,
             on[i]);
    same_floats(what, o1[i], o2[i], sz[i] * 4);
    snprintf(what, sizeof what, "%s %s", fn, on[i]);
    for (long j = 0; j < sz[i]; j++) check_tv(what, j, o1[i][j], R[i][j], strict);
  }
  if (!Aout[0]) return;
  same_floats("ffn_backward_saved: dH left in A depends on prior contents or microkernel", Aout[0], Aout[1],
              sz[10] * 4);
  for (long j = 0; j < sz[10]; j++) {
    TV t = {dHf[j], dHe[j]};
    check_tv("ffn_backward_saved dH (in A)", j, Aout[0][j], t, strict);
  }
}

/* ffn_backward or ffn_backward_saved, kernel and _ref, each run twice (garbage 0 and 1 in outputs and work; the
   kernel's second run on the other microkernel), against the float64 references */
static void ffn_bw_run(In *in, int T, int d, int dff, int a, uint8_t fl) {
  int saved = fl & 1, use_b1 = fl >> 1 & 1, want_dX = fl >> 2 & 1, want_db = fl >> 3 & 1, give_W1 = fl >> 4 & 1;
  long Td = (long)T * d, dh = (long)d * dff, Th = (long)T * dff;
  long sz[13] = {Td, dh, dff, dh, d, Td, Td, dh, dff, dh, Th, Th, 2 * Th};
  int need[13] = {want_dX, 1,     want_db, 1,     want_db && !saved, 1, 1, !saved || give_W1, !saved && use_b1,
                  1,       saved, saved,   !saved};
  float *io[13] = {0}, *in0[13] = {0}, *o1[5] = {0}, *o2[5] = {0}, *Aout[2] = {0};
  for (int i = 5; i < 12; i++)
    if (need[i]) io[i] = fill(in, sz[i]), in0[i] = copyf(io[i], sz[i]);
  for (int i = 0; i < 5; i++)
    if (need[i]) o1[i] = fbuf(sz[i]), o2[i] = fbuf(sz[i]), io[i] = o1[i];
  if (saved) Aout[0] = fbuf(Th), Aout[1] = fbuf(Th);
  float *work = need[12] ? fbuf(sz[12]) : NULL, *dHf = fbuf(Th);
  double *dHe = dalloc(Th);
  TV *R[5];
  for (int i = 0; i < 5; i++) R[i] = tv_alloc(sz[i]);
  ffn_bw_refs(R, dHf, dHe, io, saved, T, d, dff, a);
  int strict =
      saved ? !any_nan(io[10], Th) : !any_nan(io[6], Td) && !any_nan(io[7], dh) && !(io[8] && any_nan(io[8], dff));
  for (int i = 5; i < 12; i++) strict &= !(io[i] && any_inf(io[i], sz[i]));
  const char *fn = saved ? "ffn_backward_saved" : "ffn_backward";
  for (int f = 0; f < 2; f++) {
    for (int r = 0; r < 2; r++) {
      for (int i = 0; i < 5; i++)
        if ((io[i] = r ? o2[i] : o1[i])) set_pattern(io[i], sz[i], r);
      if (saved) memcpy(io[11], in0[11], (size_t)Th * 4);
      if ((io[12] = work)) set_pattern(work, sz[12], r);
      if (f == 0 && r == 1) other_kernel();
      if (call_ffn_bw(f, saved, io, T, d, dff, a) != FFN_OK) failmsg("ffn_backward: valid call not FFN_OK");
      if (saved) memcpy(Aout[r], io[11], (size_t)Th * 4);
    }
    ffn_bw_check(f ? (saved ? "ffn_backward_saved_ref" : "ffn_backward_ref") : fn, o1, o2, Aout, R, dHf, dHe, sz,
                 strict);
    for (int i = 5; i < 11; i++)
      if (io[i]) untouched("ffn_backward: an input was modified", io[i], sz[i], in0[i]);
  }
  for (int i = 5; i < 12; i++) free(io[i]), free(in0[i]);
  for (int i = 0; i < 5; i++) free(o1[i]), free(o2[i]), free(R[i]);
  free(Aout[0]), free(Aout[1]), free(work), free(dHf), free(dHe);
}

static void do_ffn_bw(In *in) {
  int T = draw_size(in), d = draw_size(in), dff = draw_size(in), a = draw_act(in);
  uint8_t fl = u8(in);
  int saved = fl & 1, want_dX = fl >> 2 & 1, give_W1 = fl >> 4 & 1;
  snprintf(ctx, sizeof ctx, "%s T=%d d=%d dff=%d act=%d flags=%d", saved ? "ffn_backward_saved" : "ffn_backward", T, d,
           dff, a, fl & 31);
  if (T < 0 || d < 0 || dff < 0 || invalid_act(a) || (saved && want_dX && !give_W1 && d && dff)) {
    ffn_bw_refused(in, T, d, dff, a, saved, fl);
    return;
  }
  double t = T, dd = d, h = dff;
  if (refused(fmax(fmax(t * dd, dd * h), 2 * t * h), 6 * t * dd * h) || skip_empty_huge(t, dd, h)) return;
  ffn_bw_run(in, T, d, dff, a, fl);
}

/* ------------------------------------------ training: loss, optimizers, rank-one update, Cholesky */

/* targets (N) in [0,V); bad: one of them out of range */
static int32_t *draw_targets(In *in, long N, int V, int bad) {
  int32_t *t = (int32_t *)malloc((size_t)N * 4 + 1);
  for (long i = 0; i < N; i++) t[i] = V > 0 ? (int32_t)(rnd(in) % (uint64_t)V) : 0;
  static const int32_t OUT[] = {-1, INT_MIN, INT_MAX, 0 /* V */, 1 /* V + 1 */};
  if (bad && N > 0) {
    int32_t o = OUT[rnd(in) % LEN(OUT)];
    t[rnd(in) % (uint64_t)N] = o == 0 ? V : o == 1 ? V + (V < INT_MAX) : o;
  }
  return t;
}

/* softmax cross-entropy in float64: loss, correct, dlogits (N,V) with bounds. The kernel's e^z (z = x - max, rounded
   to float) is within (8 + |z|) ulps; rho bounds the relative error of a row's sum */
static TV softmax_ce_tv(TV *D, int32_t *correct, const float *x, const int32_t *t, long N, long V) {
  double total = 0, e_total = 0;
  *correct = 0;
  for (long i = 0; i < N; i++) {
    const float *r = x + i * V;
    long arg = 0;
    int nan = 0;
    for (long j = 0; j < V; j++) nan |= isnan(r[j]), arg = r[j] > r[arg] ? j : arg;
    double mx = r[arg], sum = 0, rho = 0;
    if (nan || !isfinite(mx)) {
      for (long j = 0; j < V; j++) D[i * V + j] = (TV){NAN, 0};
      total = NAN;
      continue;
    }
    *correct += arg == t[i];
    for (long j = 0; j < V; j++) sum += exp(r[j] - mx), rho += exp(r[j] - mx) * (8 + fabs(r[j] - mx)) * U;
    rho /= sum;
    double row = mx + log(sum) - r[t[i]];
    total += row;
    e_total += rho + 4e-16 * (fabs(mx) + fabs(r[t[i]]) + fabs(log(sum)) + fabs(total));
    for (long j = 0; j < V; j++) {
      double p = exp(r[j] - mx) / sum, w = (p - (j == t[i])) / N;
      D[i * V + j] = (TV){w, p * (8 + fabs(r[j] - mx) + 8) * U / N + rho * p / N + 3 * U * fabs(w) + 2e-38};
    }
  }
  TV loss = {N ? total / N : NAN, N ? e_total / N : 0};
  loss.e += U * fabs(loss.v) + 1e-37;
  if (isinf(loss.v)) loss.e = 0; /* a -inf target logit: +inf exactly */
  return loss;
}

typedef int (*cefn)(float *, float *, int32_t *, const float *, const int32_t *, int, int);

/* N < 0, V < 1 or a target out of range: FFN_EINVAL, nothing written (targets are read only when N, V are valid) */
static void softmax_ce_refused(In *in, cefn *fns, int N, int V) {
  int sizes_ok = N >= 0 && V >= 1;
  if (sizes_ok && refused((double)N * V, 0)) return;
  long nf = sizes_ok ? (long)N * V : CANARY;
  float *b[2], *c[2];
  canaries_n(in, b, c, 2, nf);
  int32_t *t = draw_targets(in, sizes_ok ? N : 0, V, 1), cor = -7;
  float loss = 1234.5f;
  for (int f = 0; f < 2; f++)
    if (fns[f](b[0], &loss, &cor, b[1], t, N, V) != FFN_EINVAL)
      failmsg("softmax_ce_backward: invalid call not refused");
  if (loss != 1234.5f || cor != -7) failmsg("softmax_ce_backward: loss or correct written for a refused call");
  expect_refused_n("softmax_ce_backward", b, c, 2, nf);
  free(t);
}

/* softmax_ce_backward and its _ref twin: twice each (garbage in the outputs), once in place (dlogits = logits) */
static void do_softmax_ce(In *in) {
  int N = draw_size(in), V = draw_size(in);
  uint8_t fl = u8(in);
  int want_d = fl >> 3 & 1, want_c = fl >> 4 & 1;
  snprintf(ctx, sizeof ctx, "softmax_ce_backward N=%d V=%d dlogits=%d correct=%d bad=%d", N, V, want_d, want_c,
           (fl & 7) == 0);
  cefn fns[2] = {softmax_ce_backward, softmax_ce_backward_ref};
  const char *names[2] = {"softmax_ce_backward", "softmax_ce_backward_ref"};
  if (N < 0 || V < 1 || ((fl & 7) == 0 && N > 0)) {
    softmax_ce_refused(in, fns, N, V);
    return;
  }
  double nv = (double)N * V;
  if (refused(nv, 4 * nv)) return;
  long n = (long)N * V;
  float *x = fill(in, n), *x0 = copyf(x, n), *d[3] = {fbuf(n), fbuf(n), fbuf(n)};
  int32_t *t = draw_targets(in, N, V, 0), cref, cor[3];
  TV *D = tv_alloc(n), L = softmax_ce_tv(D, &cref, x, t, N, V);
  for (int f = 0; f < 2; f++) {
    float loss[3];
    for (int r = 0; r < 3; r++) { /* r = 2: in place */
      if (r < 2)
        set_pattern(d[r], n, r);
      else
        memcpy(d[2], x, (size_t)n * 4);
      loss[r] = r ? 1234.5f : NAN, cor[r] = r ? 0x5555 : -1;
      int st = fns[f](want_d || r == 2 ? d[r] : NULL, &loss[r], want_c ? &cor[r] : NULL, r == 2 ? d[2] : x, t, N, V);
      if (st != FFN_OK) failmsg("softmax_ce_backward: valid call not FFN_OK");
    }
    same_floats("softmax_ce_backward: loss depends on prior contents", &loss[0], &loss[1], 4);
    if (want_d) same_floats("softmax_ce_backward: dlogits depend on prior contents", d[0], d[1], n * 4);
    same_floats("softmax_ce_backward: in place differs from out of place", d[2], d[0], want_d ? n * 4 : 0);
    same_floats("softmax_ce_backward: loss in place differs", &loss[2], &loss[0], 4);
    if (want_c && (cor[0] != cref || cor[1] != cref)) fail("softmax_ce_backward correct", 0, cor[0], cref, 0);
    if (isinf(L.v) && loss[0] != L.v) fail(names[f], 0, loss[0], L.v, 0);
    check_tv(names[f], -1, loss[0], L, 1);
    for (long i = 0; i < n; i++) check_tv(names[f], i, d[2][i], D[i], 1);
    untouched("softmax_ce_backward: logits modified", x, n, x0);
  }
  free(x), free(x0), free(d[0]), free(d[1]), free(d[2]), free(t), free(D);
}

/* a hyperparameter: mostly the usual value, else any value the generators make */
static float draw_hyper(In *in, float usual) {
  uint8_t b = u8(in);
  return b < 160 ? usual : draw_value(in, b % V_MODES);
}

static int draw_step(In *in) {
  static const int S[] = {0, -1, INT_MIN, INT_MAX, 1000000, 10000, 2};
  uint8_t b = u8(in);
  return b < 200 ? 1 + b % 50 : S[b % LEN(S)];
}

/* adamw_step against adamw_step_ref, bit for bit (NaN matches NaN); g unchanged; n < 0 or t < 1 refused */
static void optim_adamw(In *in, int n) {
  float lr = draw_hyper(in, 1e-3f), b1 = draw_hyper(in, 0.9f), b2 = draw_hyper(in, 0.999f);
  float eps = draw_hyper(in, 1e-8f), wd = draw_hyper(in, 0.01f);
  int t = draw_step(in);
  snprintf(ctx, sizeof ctx, "adamw_step n=%d lr=%.9g beta1=%.9g beta2=%.9g eps=%.9g wd=%.9g t=%d", n, lr, b1, b2, eps,
           wd, t);
  if (n > CAP_FLOATS) return;
  if (n < 0 || t < 1) {
    long nf = n < 0 ? CANARY : n;
    float *b[4], *c[4];
    canaries_n(in, b, c, 4, nf);
    for (int f = 0; f < 2; f++)
      if ((f ? adamw_step_ref : adamw_step)(b[0], b[1], b[2], b[3], n, lr, b1, b2, eps, wd, t) != FFN_EINVAL)
        failmsg("adamw_step: invalid call not refused");
    expect_refused_n("adamw_step", b, c, 4, nf);
    return;
  }
  float *s[4], *r[4];
  for (int i = 0; i < 4; i++) s[i] = fill(in, n), r[i] = copyf(s[i], n);
  if (adamw_step(s[0], s[1], s[2], s[3], n, lr, b1, b2, eps, wd, t) != FFN_OK) failmsg("adamw_step: not FFN_OK");
  if (adamw_step_ref(r[0], r[1], r[2], r[3], n, lr, b1, b2, eps, wd, t) != FFN_OK) failmsg("adamw_step_ref: not OK");
  same_floats("adamw_step and adamw_step_ref differ in p", s[0], r[0], (long)n * 4);
  same_floats("adamw_step and adamw_step_ref differ in m", s[1], r[1], (long)n * 4);
  same_floats("adamw_step and adamw_step_ref differ in v", s[2], r[2], (long)n * 4);
  untouched("adamw_step: g modified", s[3], n, r[3]);
  free_bufs(s, 4), free_bufs(r, 4);
}

/* sgd_step (kernel and _ref) against p + (-lr) g computed here in float, bit for bit */
static void optim_sgd(In *in, int n) {
  float lr = draw_hyper(in, 0.1f);
  snprintf(ctx, sizeof ctx, "sgd_step n=%d lr=%.9g", n, lr);
  if (n > CAP_FLOATS) return;
  if (n < 0) {
    float *b[2], *c[2];
    canaries_n(in, b, c, 2, CANARY);
    for (int f = 0; f < 2; f++)
      if ((f ? sgd_step_ref : sgd_step)(b[0], b[1], n, lr) != FFN_EINVAL) failmsg("sgd_step: negative n not refused");
    expect_refused_n("sgd_step", b, c, 2, CANARY);
    return;
  }
  float *p = fill(in, n), *g = fill(in, n), *g0 = copyf(g, n), *want = fbuf(n), *q[2] = {copyf(p, n), copyf(p, n)};
  for (long i = 0; i < n; i++) want[i] = p[i] + -lr * g[i];
  for (int f = 0; f < 2; f++) {
    if ((f ? sgd_step_ref : sgd_step)(q[f], g, n, lr) != FFN_OK) failmsg("sgd_step: valid call not FFN_OK");
    same_floats(f ? "sgd_step_ref: not p + (-lr) g" : "sgd_step: not p + (-lr) g", q[f], want, (long)n * 4);
    untouched("sgd_step: g modified", g, n, g0);
  }
  free(p), free(g), free(g0), free(want), free(q[0]), free(q[1]);
}

/* rank_one_update (kernel and _ref) against W + (alpha u_i) v_j computed here in float, bit for bit */
static void optim_rank_one(In *in) {
  int M = draw_size(in), N = draw_size(in);
  float alpha = draw_hyper(in, 1.0f);
  snprintf(ctx, sizeof ctx, "rank_one_update M=%d N=%d alpha=%.9g", M, N, alpha);
  if (M < 0 || N < 0) {
    float *b[3], *c[3];
    canaries_n(in, b, c, 3, CANARY);
    for (int f = 0; f < 2; f++)
      if ((f ? rank_one_update_ref : rank_one_update)(b[0], b[1], b[2], M, N, alpha) != FFN_EINVAL)
        failmsg("rank_one_update: negative size not refused");
    expect_refused_n("rank_one_update", b, c, 3, CANARY);
    return;
  }
  double m = M, nn = N;
  if (refused(fmax(m * nn, fmax(m, nn)), m * nn) || skip_empty_huge(m, nn, 0)) return;
  long MN = (long)M * N;
  float *W = fill(in, MN), *u = fill(in, M), *v = fill(in, N), *u0 = copyf(u, M), *v0 = copyf(v, N), *want = fbuf(MN);
  float *q[2] = {copyf(W, MN), copyf(W, MN)};
  for (long i = 0; i < M; i++)
    for (long j = 0; j < N; j++) want[i * N + j] = W[i * N + j] + (alpha * u[i]) * v[j];
  for (int f = 0; f < 2; f++) {
    if ((f ? rank_one_update_ref : rank_one_update)(q[f], u, v, M, N, alpha) != FFN_OK)
      failmsg("rank_one_update: valid call not FFN_OK");
    same_floats(f ? "rank_one_update_ref: not W + (alpha u) v" : "rank_one_update: not W + (alpha u) v", q[f], want,
                MN * 4);
    untouched("rank_one_update: u modified", u, M, u0);
    untouched("rank_one_update: v modified", v, N, v0);
  }
  free(W), free(u), free(v), free(u0), free(v0), free(want), free(q[0]), free(q[1]);
}

static void do_optim(In *in) {
  int n = draw_size(in);
  uint8_t which = u8(in) % 3;
  if (which == 0)
    optim_adamw(in, n);
  else if (which == 1)
    optim_sgd(in, n);
  else
    optim_rank_one(in);
}

/* A (n,n) with its upper triangle NaN (only the lower one is read). spd: finite entries, each diagonal entry
   3/2 of its row's off-diagonal sum plus |A_ii| + 1 (SPD by Gershgorin, well conditioned; an entry beyond
   FLT_MAX is +inf, which must give FFN_ENOTPD); else one diagonal entry <= 0 or NaN (FFN_ENOTPD in any rounding) */
static float *draw_spd(In *in, long n, int spd) {
  static const float BAD[] = {0.f, -0.f, -1.f, NAN, -INFINITY, -1e-45f, -FLT_MAX, -1e4f};
  float *A = fill(in, n * n);
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++) {
      if (j > i)
        A[i * n + j] = from_bits(0x7fc5a5a5u);
      else if (spd && !isfinite(A[i * n + j]))
        A[i * n + j] = 1.0f;
    }
  if (!spd) {
    if (n) A[(long)(rnd(in) % (uint64_t)n) * (n + 1)] = BAD[rnd(in) % LEN(BAD)];
    return A;
  }
  for (long i = 0; i < n; i++) {
    double s = 0;
    for (long j = 0; j < n; j++) s += j == i ? 0 : fabs(j < i ? A[i * n + j] : A[j * n + i]);
    A[i * n + i] = (float)(1.5 * s + fabs(A[i * n + i]) + 1);
  }
  return A;
}

/* L (n,n) lower with A = L L^T: upper part zero, |A - L L^T| <= 4u |L| |L^T| entrywise on the lower triangle (plus
   what entries of L underflowing to denormals may lose) */
static void check_chol(const char *fn, const float *L, const float *A, long n) {
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++) {
      if (j > i) {
        if (L[i * n + j] != 0) fail("spd_factor: upper part not zero", i * n + j, L[i * n + j], 0, 0);
        continue;
      }
      double s = 0, a = 0, m = 0;
      for (long k = 0; k <= j; k++) s += (double)L[i * n + k] * L[j * n + k];
      for (long k = 0; k <= j; k++) a += fabs((double)L[i * n + k] * L[j * n + k]);
      for (long k = 0; k <= j; k++) m += (fabs(L[i * n + k]) + fabs(L[j * n + k])) * 1.5e-45; /* L underflowing */
      double tol = 4 * U * a + m + 1e-37;
      if (!(fabs(s - A[i * n + j]) <= tol)) fail(fn, i * n + j, s, A[i * n + j], tol);
    }
}

/* X (n,r) solving L L^T X = B: |B - L L^T X| <= 8u |L| |L^T| |X| entrywise; a column of B with a NaN (and no inf)
   gives a column of NaN */
static void check_solve(const char *fn, const float *X, const float *L, const float *B, long n, long r) {
  double *M = dalloc(n * n), *Ma = dalloc(n * n);
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++)
      for (long k = 0; k <= (i < j ? i : j); k++) {
        M[i * n + j] += (double)L[i * n + k] * L[j * n + k];
        Ma[i * n + j] += fabs((double)L[i * n + k] * L[j * n + k]);
      }
  for (long c = 0; c < r; c++) {
    int inf = 0, nan = 0;
    for (long i = 0; i < n; i++) inf |= isinf(B[i * r + c]), nan |= isnan(B[i * r + c]);
    for (long i = 0; i < n && nan && !inf; i++)
      if (!isnan(X[i * r + c])) fail("spd_solve: NaN in a column of B, not in X's", i * r + c, X[i * r + c], NAN, 0);
    for (long i = 0; i < n && !nan && !inf; i++) {
      double s = B[i * r + c], a = 0, m = 0; /* m: what X's underflow (2^-149 each) may leave */
      for (long j = 0; j < n; j++) s -= M[i * n + j] * X[j * r + c], a += Ma[i * n + j] * fabs(X[j * r + c]);
      for (long j = 0; j < n; j++) m += Ma[i * n + j] * 1.5e-45;
      double tol = 8 * U * a + m + 1e-37;
      if (isfinite(a) && a < 1e300 && !(fabs(s) <= tol)) fail(fn, i * r + c, s, 0, tol);
    }
  }
  free(M), free(Ma);
}

/* spd_solve or spd_solve_ref (f) with the factor L: twice (garbage in X), once in place (X = B) */
static void spd_solve_part(In *in, int f, const float *L, long n, long r) {
  float *B = fill(in, n * r), *B0 = copyf(B, n * r), *X[2] = {fbuf(n * r), fbuf(n * r)}, *Xa = copyf(B, n * r);
  int (*sol)(float *, const float *, const float *, int, int) = f ? spd_solve_ref : spd_solve;
  for (int q = 0; q < 2; q++) {
    set_pattern(X[q], n * r, q);
    if (sol(X[q], L, B, (int)n, (int)r) != FFN_OK) failmsg("spd_solve: valid call not FFN_OK");
  }
  if (sol(Xa, L, Xa, (int)n, (int)r) != FFN_OK) failmsg("spd_solve: in-place call not FFN_OK");
  same_floats("spd_solve: result depends on prior contents of X", X[0], X[1], n * r * 4);
  same_floats("spd_solve: in place (X = B) differs", Xa, X[0], n * r * 4);
  untouched("spd_solve: B modified", B, n * r, B0);
  check_solve(f ? "spd_solve_ref" : "spd_solve", X[0], L, B, n, r);
  free(B), free(B0), free(X[0]), free(X[1]), free(Xa);
}

static void spd_refused(In *in, int n, int r) {
  float *b[3], *c[3];
  canaries_n(in, b, c, 3, CANARY);
  for (int f = 0; f < 2; f++) {
    if (n < 0 && (f ? spd_factor_ref : spd_factor)(b[0], b[1], n) != FFN_EINVAL)
      failmsg("spd_factor: negative n not refused");
    if ((f ? spd_solve_ref : spd_solve)(b[0], b[1], b[2], n, r) != FFN_EINVAL)
      failmsg("spd_solve: negative size not refused");
  }
  expect_refused_n("spd_factor/spd_solve", b, c, 3, CANARY);
}

/* spd_factor and spd_factor_ref on SPD matrices (FFN_OK, A = L L^T; then spd_solve) and on ones with a diagonal
   entry <= 0, NaN or +inf (FFN_ENOTPD, nothing written past L); twice (garbage in L) and in place (L = A) */
static void do_spd(In *in) {
  int n = draw_size(in), r = draw_size(in), spd = (u8(in) & 3) != 0;
  snprintf(ctx, sizeof ctx, "spd_factor/spd_solve n=%d nrhs=%d spd=%d", n, r, spd);
  if (n < 0 || r < 0) {
    spd_refused(in, n, r);
    return;
  }
  double nn = n, rr = r;
  if (refused(fmax(nn * nn, nn * rr), nn * nn * (nn + rr)) || skip_empty_huge(nn, rr, 0)) return;
  long N2 = (long)n * n;
  float *A = draw_spd(in, n, spd), *A0 = copyf(A, N2), *L[2] = {fbuf(N2), fbuf(N2)}, *Al = fbuf(N2);
  int want = spd || !n ? FFN_OK : FFN_ENOTPD;
  for (long i = 0; i < n; i++) want = isinf(A[i * (n + 1)]) ? FFN_ENOTPD : want;
  for (int f = 0; f < 2; f++) {
    int (*fac)(float *, const float *, int) = f ? spd_factor_ref : spd_factor;
    for (int q = 0; q < 2; q++) {
      set_pattern(L[q], N2, q);
      if (fac(L[q], A, n) != want) fail(f ? "spd_factor_ref status" : "spd_factor status", q, fac(L[q], A, n), want, 0);
    }
    memcpy(Al, A, (size_t)N2 * 4);
    if (fac(Al, Al, n) != want) failmsg("spd_factor: in place (L = A) status differs");
    untouched("spd_factor: A modified", A, N2, A0);
    if (want != FFN_OK) continue;
    same_floats("spd_factor: result depends on prior contents of L", L[0], L[1], N2 * 4);
    same_floats("spd_factor: in place (L = A) differs", Al, L[0], N2 * 4);
    check_chol(f ? "spd_factor_ref: A != L L^T" : "spd_factor: A != L L^T", L[0], A, n);
    spd_solve_part(in, f, L[0], n, r);
  }
  free(A), free(A0), free(L[0]), free(L[1]), free(Al);
}

/* ---------------------------------------------------------------- the memory lab's model */

typedef struct {
  int N, B, d, dff, V, act, opt, t;
  float lr, b1, b2, eps, wd;
  float *P, *X, *Um, *Utp, *Up; /* P = [W1 | b1 | W2]; Um = U (V,d); Utp = U^T packed (d,V), Up = U packed (V,d) */
  int32_t *targets, *rows;      /* rows NULL: the first B = N facts */
  long n, nw;                   /* floats of P, of the scratch for B facts */
} Mem;

/* the B facts' inputs (B,d) and targets (B) */
static float *mem_gather(const Mem *m, int32_t *tb) {
  float *Xb = fbuf((long)m->B * m->d);
  for (long i = 0; i < m->B; i++) {
    long r = m->rows ? m->rows[i] : i;
    memcpy(Xb + i * m->d, m->X + r * m->d, (size_t)m->d * 4);
    if (tb) tb[i] = m->targets[r];
  }
  return Xb;
}

/* float64 references of A = act(x W1 + b1) (B,dff) and logits = (x + A W2) U^T (B,V) with bounds */
static void mem_forward_tv(TV *Ar, TV *Lr, const Mem *m) {
  long B = m->B, d = m->d, h = m->dff, V = m->V;
  float *Xb = mem_gather(m, NULL), *Af = fbuf(B * h), *Yf = fbuf(B * d), *Ut = fbuf(d * V);
  double *Ae = dalloc(B * h), *Ye = dalloc(B * d);
  TV *H = tv_alloc(B * h), *Y = tv_alloc(B * d);
  fwd_ha(H, Af, Ae, Xb, m->P, m->P + d * h, B, d, h, m->act);
  for (long i = 0; i < B * h; i++) Ar[i] = (TV){Af[i], Ae[i]};
  mm_tv(Y, Af, Ae, m->P + d * h + h, NULL, B, h, d);
  for (long i = 0; i < B * d; i++) {
    double v = Y[i].v + Xb[i];
    Yf[i] = to_f(v, ovf(v, 0, Y[i].e + gamma_(1) * (fabs(Y[i].v) + fabs(Xb[i])), 1), &Ye[i]);
  }
  transp(Ut, NULL, m->Um, NULL, V, d);
  mm_tv(Lr, Yf, Ye, Ut, NULL, B, d, V);
  free(Xb), free(Af), free(Yf), free(Ut), free(Ae), free(Ye), free(H), free(Y);
}

/* memory_forward twice (garbage 0 and 1 in A, logits and work; the second on the other microkernel) against the
   float64 references; returns the logits */
static float *mem_forward_check(const Mem *m) {
  long BH = (long)m->B * m->dff, BV = (long)m->B * m->V;
  float *A[2] = {fbuf(BH), fbuf(BH)}, *L[2] = {fbuf(BV), fbuf(BV)}, *work = fbuf(m->nw);
  for (int r = 0; r < 2; r++) {
    set_pattern(A[r], BH, r), set_pattern(L[r], BV, r), set_pattern(work, m->nw, r);
    if (r) other_kernel();
    if (memory_forward(A[r], L[r], m->P, m->X, m->rows, m->Utp, m->B, m->d, m->dff, m->V, m->act, work) != FFN_OK)
      failmsg("memory_forward: valid call not FFN_OK");
  }
  same_floats("memory_forward: A depends on prior contents or the microkernel", A[0], A[1], BH * 4);
  same_floats("memory_forward: logits depend on prior contents or the microkernel", L[0], L[1], BV * 4);
  TV *Ar = tv_alloc(BH), *Lr = tv_alloc(BV);
  mem_forward_tv(Ar, Lr, m);
  int strict = !any_inf(m->P, m->n) && !any_inf(m->X, (long)m->N * m->d) && !any_inf(m->Um, (long)m->V * m->d);
  for (long i = 0; i < BH; i++) check_tv("memory_forward A", i, A[0][i], Ar[i], strict);
  for (long i = 0; i < BV; i++) check_tv("memory_forward logits", i, L[0][i], Lr[i], strict);
  free(A[0]), free(A[1]), free(L[1]), free(work), free(Ar), free(Lr);
  return L[0];
}

/* memory_evaluate twice (garbage in pred, stats and work; the second on the other microkernel): pred = the first
   argmax of memory_forward's logits for all N facts (-1 for a row with NaN), stats = {softmax_ce_backward's loss,
   facts with pred == target} */
static void mem_evaluate_check(const Mem *m) {
  long N = m->N, V = m->V;
  long nw = size_of(memory_work_size(m->N, m->d, m->dff, m->V), "memory_work_size", 0, 16.0 * CAP_FLOATS);
  float *L = fbuf(N * V), *work = fbuf(nw), stats[2][2], loss;
  int32_t *pred[2] = {(int32_t *)malloc((size_t)N * 4 + 1), (int32_t *)malloc((size_t)N * 4 + 1)}, cor = 0;
  if (memory_forward(NULL, L, m->P, m->X, NULL, m->Utp, m->N, m->d, m->dff, m->V, m->act, work) != FFN_OK)
    failmsg("memory_forward: valid call not FFN_OK");
  for (int r = 0; r < 2; r++) {
    set_pattern(work, nw, r), set_pattern(stats[r], 2, r);
    for (long i = 0; i < N; i++) pred[r][i] = r ? 0x5555 : -5;
    if (r) other_kernel();
    if (memory_evaluate(pred[r], stats[r], m->P, m->X, m->targets, m->Utp, m->N, m->d, m->dff, m->V, m->act, work))
      failmsg("memory_evaluate: valid call not FFN_OK");
  }
  same_bits("memory_evaluate: pred depends on prior contents or the microkernel", pred[0], pred[1], N * 4);
  same_floats("memory_evaluate: stats depend on prior contents or the microkernel", stats[0], stats[1], 8);
  for (long i = 0; i < N; i++) {
    long best = 0;
    for (long j = 0; j < V; j++) best = L[i * V + j] > L[i * V + best] ? j : best;
    for (long j = 0; j < V; j++) best = isnan(L[i * V + j]) ? -1 : best;
    if (pred[0][i] != best) fail("memory_evaluate pred", i, pred[0][i], best, 0);
    cor += best == m->targets[i];
  }
  softmax_ce_backward(NULL, &loss, NULL, L, m->targets, m->N, m->V);
  same_floats("memory_evaluate: loss is not softmax_ce_backward's on memory_forward's logits", stats[0], &loss, 4);
  if (stats[0][1] != cor) fail("memory_evaluate correct", 0, stats[0][1], cor, 0);
  free(L), free(work), free(pred[0]), free(pred[1]);
}

/* memory_train_step as its contract composes it from the public kernels (same microkernel): forward by gemm_pack,
   gemm_forward and act_forward; softmax_ce_backward; dY = dlogits U; ffn_backward_saved -> G; then sgd_step or
   adamw_step_ref on P, Mo, Vo when the loss is finite. Returns the loss; *cor the correct count */
static float mem_train_replica(float *G, float *P, float *Mo, float *Vo, const Mem *m, int32_t *cor) {
  long B = m->B, d = m->d, h = m->dff, V = m->V, n1 = d * h;
  int K = m->d > m->dff ? m->d : m->dff;
  K = K > m->V ? K : m->V;
  int32_t *tb = (int32_t *)malloc((size_t)B * 4 + 1);
  float *Xb = mem_gather(m, tb), *H = fbuf(B * h), *A = fbuf(B * h), *Y = fbuf(B * d), *L = fbuf(B * V), loss;
  float *W1p = fbuf((long)gemm_packed_size(m->d, m->dff)), *W2p = fbuf((long)gemm_packed_size(m->dff, m->d));
  float *gw = fbuf((long)gemm_work_size(m->B, K));
  gemm_pack(W1p, P, m->d, m->dff), gemm_pack(W2p, P + n1 + h, m->dff, m->d);
  gemm_forward(H, Xb, W1p, P + n1, m->B, m->d, m->dff, FFN_ACT_IDENTITY, gw);
  act_forward(A, H, m->B * m->dff, m->act);
  gemm_forward(Y, A, W2p, NULL, m->B, m->dff, m->d, FFN_ACT_IDENTITY, gw);
  for (long i = 0; i < B * d; i++) Y[i] += Xb[i];
  gemm_forward(L, Y, m->Utp, NULL, m->B, m->d, m->V, FFN_ACT_IDENTITY, gw);
  softmax_ce_backward(L, &loss, cor, L, tb, m->B, m->V);
  if (isfinite(loss)) {
    gemm_forward(Y, L, m->Up, NULL, m->B, m->V, m->d, FFN_ACT_IDENTITY, gw);
    ffn_backward_saved(NULL, G, G + n1, G + n1 + h, Y, Xb, H, A, P + n1 + h, m->B, m->d, m->dff, m->act, NULL);
    if (m->opt)
      sgd_step(P, G, (int)m->n, m->lr);
    else
      adamw_step_ref(P, Mo, Vo, G, (int)m->n, m->lr, m->b1, m->b2, m->eps, m->wd, m->t);
  }
  free(tb), free(Xb), free(H), free(A), free(Y), free(L), free(W1p), free(W2p), free(gw);
  return loss;
}

/* memory_train_step twice from the same state (garbage in G and work; the second on the other microkernel), against
   mem_train_replica bit for bit; a non-finite loss leaves P, M and Vm as they were */
static void mem_train_check(const Mem *m, const float *M0, const float *V0) {
  long n = m->n;
  float *s[2][4], stats[2][2], *q[4], loss; /* s[r] = {P, G, M, Vm} */
  int32_t cor;
  float *work = fbuf(m->nw);
  for (int r = 0; r < 2; r++) {
    s[r][0] = copyf(m->P, n), s[r][1] = fbuf(n), s[r][2] = copyf(M0, n), s[r][3] = copyf(V0, n);
    set_pattern(s[r][1], n, r), set_pattern(work, m->nw, r), set_pattern(stats[r], 2, r);
    if (r) other_kernel();
    if (memory_train_step(stats[r], s[r][0], s[r][1], s[r][2], s[r][3], m->X, m->targets, m->rows, m->Utp, m->Up, m->N,
                          m->B, m->d, m->dff, m->V, m->act, m->opt, m->lr, m->b1, m->b2, m->eps, m->wd, m->t,
                          work) != FFN_OK)
      failmsg("memory_train_step: valid call not FFN_OK");
  }
  same_floats("memory_train_step: stats depend on prior contents or the microkernel", stats[0], stats[1], 8);
  q[0] = copyf(m->P, n), q[1] = fbuf(n), q[2] = copyf(M0, n), q[3] = copyf(V0, n);
  loss = mem_train_replica(q[1], q[0], q[2], q[3], m, &cor);
  same_floats("memory_train_step: loss is not softmax_ce_backward's on the forward's logits", stats[0], &loss, 4);
  if (stats[0][1] != cor) fail("memory_train_step correct", 0, stats[0][1], cor, 0);
  static const char *nm[4] = {"P", "G", "M", "Vm"};
  for (int i = 0; i < 4; i++) {
    char what[128];
    if (i == 1 && !isfinite(loss)) continue; /* G: not specified then */
    snprintf(what, sizeof what, "memory_train_step %s: differs from the composed kernels (or between runs)", nm[i]);
    same_floats(what, s[0][i], q[i], n * 4), same_floats(what, s[1][i], q[i], n * 4);
  }
  for (int r = 0; r < 2; r++) free_bufs(s[r], 4);
  free_bufs(q, 4), free(work);
}

/* N < 0, B outside [0,N], d, dff or V < 1, an unknown act or optimizer, or rows NULL with B != N: FFN_EINVAL from
   every entry point that takes them, nothing written (memory_work_size: -1 for a negative size) */
static void mem_refused(In *in, const Mem *m, int use_rows) {
  float *b[9], *c[9];
  canaries_n(in, b, c, 9, CANARY);
  int32_t *ti = (int32_t *)calloc(CANARY, 4), *pred = (int32_t *)malloc(CANARY * 4);
  for (int i = 0; i < CANARY; i++) pred[i] = -7;
  int st = memory_train_step(b[0], b[1], b[2], b[3], b[4], b[5], ti, use_rows ? ti : NULL, b[6], b[7], m->N, m->B, m->d,
                             m->dff, m->V, m->act, m->opt, m->lr, m->b1, m->b2, m->eps, m->wd, m->t, b[8]);
  if (st != FFN_EINVAL) failmsg("memory_train_step: invalid call not refused");
  if (m->B < 0 || m->d < 1 || m->dff < 1 || m->V < 1 || invalid_act(m->act))
    if (memory_forward(b[0], b[1], b[2], b[3], ti, b[6], m->B, m->d, m->dff, m->V, m->act, b[8]) != FFN_EINVAL)
      failmsg("memory_forward: invalid call not refused");
  if (m->N < 0 || m->d < 1 || m->dff < 1 || m->V < 1 || invalid_act(m->act))
    if (memory_evaluate(pred, b[0], b[2], b[3], ti, b[6], m->N, m->d, m->dff, m->V, m->act, b[8]) != FFN_EINVAL)
      failmsg("memory_evaluate: invalid call not refused");
  for (int i = 0; i < CANARY; i++)
    if (pred[i] != -7) failmsg("memory_evaluate: pred written for a refused call");
  if ((m->B < 0 || m->d < 0 || m->dff < 0 || m->V < 0) && memory_work_size(m->B, m->d, m->dff, m->V) != -1)
    failmsg("memory_work_size: negative size not -1");
  expect_refused_n("memory_train_step/forward/evaluate", b, c, 9, CANARY);
  free(ti), free(pred);
}

/* P, X, U (V,d) and its packings, targets, rows from the input */
static void mem_setup(In *in, Mem *m, int use_rows) {
  long d = m->d, h = m->dff, V = m->V;
  m->n = 2 * d * h + h;
  m->P = fill(in, m->n), m->X = fill(in, (long)m->N * d), m->Um = fill(in, V * d);
  float *Ut = fbuf(d * V);
  transp(Ut, NULL, m->Um, NULL, V, d);
  m->Utp = fbuf((long)gemm_packed_size(m->d, m->V)), m->Up = fbuf((long)gemm_packed_size(m->V, m->d));
  gemm_pack(m->Utp, Ut, m->d, m->V), gemm_pack(m->Up, m->Um, m->V, m->d);
  free(Ut);
  m->targets = draw_targets(in, m->N, m->V, 0);
  m->rows = use_rows ? (int32_t *)malloc((size_t)m->B * 4 + 1) : NULL;
  for (long i = 0; use_rows && i < m->B; i++) m->rows[i] = (int32_t)(rnd(in) % (uint64_t)m->N);
  m->nw = size_of(memory_work_size(m->B, m->d, m->dff, m->V), "memory_work_size", 0, 16.0 * CAP_FLOATS);
}

/* the memory lab's model: memory_work_size, memory_forward, memory_evaluate, memory_train_step */
static void do_memory(In *in) {
  Mem m = {0};
  m.N = draw_size(in), m.d = draw_size(in), m.dff = draw_size(in), m.V = draw_size(in), m.act = draw_act(in);
  uint8_t fl = u8(in), bb = u8(in);
  int use_rows = fl & 1;
  m.opt = fl >> 1 & 1 ? 1 : (fl & 0x1c) == 0x1c ? 2 + (fl >> 5) : 0; /* 2..9: unknown optimizer */
  if (!use_rows) /* all the facts: B = N, else (rarely) B = N - 1, which must be refused */
    m.B = m.N > 0 && bb >= 240 ? m.N - 1 : m.N;
  else
    m.B = m.N <= 0 ? m.N : bb < 240 ? 1 + bb % m.N : m.N > INT_MAX - 4 ? -1 : m.N + 1 + (bb & 3);
  m.lr = draw_hyper(in, 1e-2f), m.b1 = draw_hyper(in, 0.9f), m.b2 = draw_hyper(in, 0.999f);
  m.eps = draw_hyper(in, 1e-8f), m.wd = draw_hyper(in, 0.01f), m.t = 1 + u8(in) % 50;
  snprintf(ctx, sizeof ctx, "memory N=%d B=%d d=%d dff=%d V=%d act=%d opt=%d rows=%d t=%d", m.N, m.B, m.d, m.dff, m.V,
           m.act, m.opt, use_rows, m.t);
  if (m.N < 0 || m.B < 0 || m.B > m.N || (!use_rows && m.B != m.N) || m.d < 1 || m.dff < 1 || m.V < 1 ||
      invalid_act(m.act) || m.opt > 1) {
    mem_refused(in, &m, use_rows);
    return;
  }
  double N = m.N, d = m.d, h = m.dff, V = m.V;
  double big = fmax(fmax(N * d, 2 * d * h + h), fmax(fmax(N * V, N * h), 8 * (V + 8) * (d + 8)));
  if (refused(big, N * (8 * d * h + 4 * d * V) + 2 * d * V)) return;
  mem_setup(in, &m, use_rows);
  float *M0 = fill(in, m.n), *V0 = fill(in, m.n), *P0 = copyf(m.P, m.n), *X0 = copyf(m.X, (long)m.N * m.d);
  free(mem_forward_check(&m));
  mem_evaluate_check(&m);
  mem_train_check(&m, M0, V0);
  untouched("memory: P modified by memory_forward or memory_evaluate", m.P, m.n, P0);
  untouched("memory: X modified", m.X, (long)m.N * m.d, X0);
  free(m.P), free(m.X), free(m.Um), free(m.Utp), free(m.Up), free(m.targets), free(m.rows);
  free(M0), free(V0), free(P0), free(X0);
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
    int fam = family & 31; /* 0..10 as before 2026-12-07 (then family % 11); 18..31 weigh the newer ones double */
    if (fam >= 18) fam = 11 + (fam - 18) % 7;
    switch (fam) {
      case 0: do_matmul(&in); break;
      case 1: do_act(&in); break;
      case 2: do_ffn(&in); break;
      case 3: do_gated(&in); break;
      case 4:
        do_gated_bw(&in, 0);
        break;
      case 5: do_memories(&in); break;
      case 6: do_counts(&in); break;
      case 7: do_gemm(&in); break;
      case 8: do_gemm_gated(&in); break;
      case 9: do_packed(&in); break;
      case 10:
      case 17:
        do_gemm_ex(&in);
        break;
      case 11:
        do_ffn_bw(&in);
        break;
      case 13:
        do_softmax_ce(&in);
        break;
      case 14:
        do_optim(&in);
        break;
      case 15:
        do_spd(&in);
        break;
      case 16:
        do_memory(&in);
        break;
      default:
        do_gated_bw(&in, 1);
        break;
    }
    if (ffn_heap_in_use() != before) failmsg("ffn_heap_in_use changed across a kernel call (leak)");
  }
  return 0;
}
