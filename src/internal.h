/* Internal declarations shared by the files of src/ (not exported): argument checks, helpers, cross-file calls. */
#ifndef FFN_INTERNAL_H
#define FFN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ffn.h"

/* ---- argument checks and pointer helpers (every file) ------------------------------------------------------ */

/* act is not an activation code of enum ffn_act */
static inline int bad_act(int act) { return act < 0 || act >= FFN_ACT_COUNT; }

/* N < 0, V < 1, or a class index targets[i] outside [0,V) (softmax_ce_backward and its reference) */
static inline int bad_targets(const int32_t *targets, int N, int V) {
  if (N < 0 || V < 1) return 1;
  for (int i = 0; i < N; i++)
    if (targets[i] < 0 || targets[i] >= V) return 1;
  return 0;
}

/* p + n, but p itself when n == 0 (p may then be NULL: NULL + 0 is undefined behaviour in C) */
static inline float *skip(float *p, size_t n) { return n ? p + n : p; }

static inline int imin(int a, int b) { return a < b ? a : b; }

/* Scratch blocks start on a 64-byte cache line (malloc gives only 8-byte alignment): no f32x4 load or store of a
   packed strip, panel or output tile then splits a line. ALIGN_SLACK floats cover the shift. */
#define ALIGN_SLACK 16
static inline float *align64(float *p) { return (float *)(((uintptr_t)p + 63) & ~(uintptr_t)63); }
static inline size_t round16(size_t n) { return (n + 15) & ~(size_t)15; }

/* ---- activations.c ----------------------------------------------------------------------------------------- */

/* g (n), u (n) -> h (n) = phi(g) * u, phi(g) rounded to float first; h may alias g or u. Unknown act: nothing. */
void ffn_gate_mul(float *h, const float *g, const float *u, size_t n, int act);
/* G (n), U (n), dH (n) -> G = dG = dH * U * phi'(G), U = dU = dH * phi(G), in place (the gated backward). */
void ffn_gated_gate_grads(float *G, float *U, const float *dH, size_t n, int act);

#endif
