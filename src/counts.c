/* Closed-form counts (parameters, LLaMA hidden width, FLOPs) and what the module reports of itself (heap, SIMD). */
#include <math.h>

#include "ffn.h"

#ifdef __EMSCRIPTEN__
#include <malloc.h>
#endif

/* a size argument is valid when it is a finite non-negative integer (exact as a double) */
static int bad_size(double v) { return !(v >= 0.0) || v > 9007199254740992.0 || v != floor(v); }

/* d, dff -> parameters of one FFN layer: 2 d dff (+ dff + d biases) ungated,
   3 d dff (+ 2 dff + d biases) gated. Returns FFN_EINVAL (-1) for a bad size. */
FFN_API double ffn_param_count(double d, double dff, int bias, int gated) {
  if (bad_size(d) || bad_size(dff)) return FFN_EINVAL;
  double w = (gated ? 3.0 : 2.0) * d * dff;
  double b = bias ? (gated ? 2.0 : 1.0) * dff + d : 0.0;
  return w + b;
}

/* d, multiple_of, multiplier -> int(2*(4d)/3), then int(multiplier * that) if multiplier > 0,
   rounded up to a multiple of multiple_of (>= 1). multiplier <= 0 means none.
   Returns FFN_EINVAL (-1) for a bad size or a NaN/infinite multiplier. */
FFN_API double llama_hidden_dim(double d, double multiple_of, double ffn_dim_multiplier) {
  if (bad_size(d) || bad_size(multiple_of) || multiple_of < 1.0 || !isfinite(ffn_dim_multiplier)) return FFN_EINVAL;
  double h = floor(2.0 * (4.0 * d) / 3.0); /* Python's int() truncates; the value is >= 0 */
  if (ffn_dim_multiplier > 0.0) h = floor(ffn_dim_multiplier * h);
  return multiple_of * floor((h + multiple_of - 1.0) / multiple_of);
}

/* d, dff -> forward FLOPs per token, 2 per weight: 4 d dff ungated, 6 d dff gated.
   Returns FFN_EINVAL (-1) for a bad size. */
FFN_API double ffn_flops(double d, double dff, int gated) {
  if (bad_size(d) || bad_size(dff)) return FFN_EINVAL;
  return (gated ? 6.0 : 4.0) * d * dff;
}

/* bytes currently handed out by malloc (emscripten's dlmalloc); 0 in native builds */
FFN_API double ffn_heap_in_use(void) {
#ifdef __EMSCRIPTEN__
  struct mallinfo mi = mallinfo();
  return (double)(unsigned)mi.uordblks;
#else
  return 0.0;
#endif
}

/* the SIMD this file was compiled for, as every kernel file is: 0 none (native), 1 128-bit wasm SIMD,
   2 also relaxed SIMD */
FFN_API int ffn_simd_level(void) {
#if defined(__wasm_relaxed_simd__)
  return 2;
#elif defined(__wasm_simd128__)
  return 1;
#else
  return 0;
#endif
}
