/* Benchmark anchor for relaxed SIMD: the f32x4.relaxed_madd peak (built by run.js with clang-16 -mrelaxed-simd). */

typedef float f32x4 __attribute__((vector_size(16)));

/* CH independent chains acc = relaxed_madd(acc, m, a) (8 flops per step each), as probe.c's peakCH with
   its mul+add fused into one instruction; returns a value derived from every chain. */
#define FPEAK(CH)                                                                          \
  __attribute__((export_name("madd_peak" #CH))) float madd_peak##CH(int iters, float m) {  \
    f32x4 acc[CH];                                                                         \
    f32x4 vm = {m, m, m, m}, va = {1.0f - m, 1.0f - m, 1.0f - m, 1.0f - m};                 \
    _Pragma("unroll") for (int c = 0; c < CH; c++) acc[c] = (f32x4){0.5f + 0.01f * c, 0.5f, 0.5f, 0.5f}; \
    for (int i = 0; i < iters; i++) {                                                      \
      _Pragma("unroll") for (int c = 0; c < CH; c++) acc[c] = __builtin_wasm_relaxed_madd_f32x4(acc[c], vm, va); \
    }                                                                                      \
    f32x4 t = acc[0];                                                                      \
    _Pragma("unroll") for (int c = 1; c < CH; c++) t += acc[c];                            \
    return t[0] + t[3];                                                                    \
  }
FPEAK(8)
FPEAK(10)
FPEAK(12)
FPEAK(14)
