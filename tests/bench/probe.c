/* Benchmark anchors compiled beside the bench: the wasm SIMD mul+add peak and a streaming-read bandwidth probe. */
#include <stdlib.h>
#include <wasm_simd128.h>

#define KEEP __attribute__((used, visibility("default")))

KEEP void *probe_malloc(int n) { return malloc((size_t)n); }
KEEP void probe_free(void *p) { free(p); }

/* CH independent chains acc = acc * m + a (one f32x4 mul and one f32x4 add each, 8 flops per step);
   returns a value derived from every chain so nothing is dead. */
#define PEAK(CH)                                                                          \
  KEEP float peak##CH(int iters, float m) {                                               \
    v128_t acc[CH];                                                                       \
    v128_t vm = wasm_f32x4_splat(m), va = wasm_f32x4_splat(1.0f - m);                     \
    _Pragma("unroll") for (int c = 0; c < CH; c++) acc[c] = wasm_f32x4_splat(0.5f + 0.01f * c); \
    for (int i = 0; i < iters; i++) {                                                     \
      _Pragma("unroll") for (int c = 0; c < CH; c++) acc[c] = wasm_f32x4_add(wasm_f32x4_mul(acc[c], vm), va); \
    }                                                                                     \
    v128_t t = acc[0];                                                                    \
    _Pragma("unroll") for (int c = 1; c < CH; c++) t = wasm_f32x4_add(t, acc[c]);         \
    return wasm_f32x4_extract_lane(t, 0) + wasm_f32x4_extract_lane(t, 3);                 \
  }
PEAK(8)
PEAK(10)
PEAK(12)
PEAK(14)

/* Sum of n floats (n a multiple of 32) read once: eight f32x4 loads per step into eight accumulators
   (a light loop, so the read rate is the memory system's, not the adder's). */
KEEP float stream_sum(const float *p, int n) {
  v128_t s[8];
  _Pragma("unroll") for (int j = 0; j < 8; j++) s[j] = wasm_f32x4_splat(0.0f);
  for (int i = 0; i < n; i += 32, p += 32) {
    _Pragma("unroll") for (int j = 0; j < 8; j++) s[j] = wasm_f32x4_add(s[j], wasm_v128_load(p + 4 * j));
  }
  v128_t t = s[0];
  _Pragma("unroll") for (int j = 1; j < 8; j++) t = wasm_f32x4_add(t, s[j]);
  return wasm_f32x4_extract_lane(t, 0) + wasm_f32x4_extract_lane(t, 1) + wasm_f32x4_extract_lane(t, 2) +
         wasm_f32x4_extract_lane(t, 3);
}

/* The same read split into four streams a quarter of the buffer apart (as the GEMV reads four weight
   panels at once): more memory requests in flight. n a multiple of 128. */
KEEP float stream_sum4(const float *p, int n) {
  const float *q[4] = {p, p + n / 4, p + n / 2, p + 3 * (n / 4)};
  v128_t s[8];
  _Pragma("unroll") for (int j = 0; j < 8; j++) s[j] = wasm_f32x4_splat(0.0f);
  for (int i = 0; i < n / 4; i += 8) {
    _Pragma("unroll") for (int j = 0; j < 4; j++) {
      s[2 * j] = wasm_f32x4_add(s[2 * j], wasm_v128_load(q[j] + i));
      s[2 * j + 1] = wasm_f32x4_add(s[2 * j + 1], wasm_v128_load(q[j] + i + 4));
    }
  }
  v128_t t = s[0];
  _Pragma("unroll") for (int j = 1; j < 8; j++) t = wasm_f32x4_add(t, s[j]);
  return wasm_f32x4_extract_lane(t, 0) + wasm_f32x4_extract_lane(t, 1) + wasm_f32x4_extract_lane(t, 2) +
         wasm_f32x4_extract_lane(t, 3);
}
