/* ffn-lab C API: the exported kernels of ffn.wasm (float32, row-major, row-vector layout). */
#ifndef FFN_H
#define FFN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define FFN_API EMSCRIPTEN_KEEPALIVE
#else
#define FFN_API
#endif

/* Activation codes. The JS wrapper maps names to these numbers; keep them stable. */
enum ffn_act {
  FFN_ACT_IDENTITY = 0,
  FFN_ACT_RELU = 1,
  FFN_ACT_RELU2 = 2, /* squared ReLU */
  FFN_ACT_SIGMOID = 3,
  FFN_ACT_SILU = 4,
  FFN_ACT_GELU = 5, /* exact, x * Phi(x) through erfc */
  FFN_ACT_GELU_TANH = 6,
  FFN_ACT_GELU_SIGMOID = 7, /* x * sigmoid(1.702 x) */
  FFN_ACT_COUNT = 8
};

/* Status codes returned by kernels that validate their arguments. */
enum ffn_status {
  FFN_OK = 0,
  FFN_EINVAL = -1, /* a size is negative or an activation code is unknown */
  FFN_ENOMEM = -2, /* a kernel's own scratch allocation failed (gemm_ex and the products that run on it) */
  FFN_ENOTPD = -3  /* spd_factor: the matrix is not positive definite (a pivot <= 0 or not finite) */
};

/* ---- matmul (src/kernels.c) ---------------------------------------------------------------------------- */
/* A (M,K) @ B (K,N) -> C (M,N). C must not alias A or B. Large products run on the packed GEMM
   (gemm_ex): FFN_ENOMEM if its packing buffer cannot be allocated; the same holds for ffn_forward
   and gated_ffn_forward. */
FFN_API int matmul_forward(float *C, const float *A, const float *B, int M, int K, int N);

/* ---- activations (src/activations.c) ------------------------------------------------------------------- */
/* x (n) -> y (n) = phi(x). y may alias x. */
FFN_API int act_forward(float *y, const float *x, int n, int act);
/* x (n) -> g (n) = phi'(x). g may alias x. */
FFN_API int act_grad(float *g, const float *x, int n, int act);
/* dy (n), x (n) -> dx (n) = dy * phi'(x). dx may alias dy or x. */
FFN_API int act_backward(float *dx, const float *dy, const float *x, int n, int act);

/* ---- classic FFN (src/kernels.c) ----------------------------------------------------------------------- */
/* X (T,d) @ W1 (d,dff) + b1 (dff) -> H (T,dff); phi(H) @ W2 (dff,d) + b2 (d) -> Y (T,d).
   b1 and b2 may be NULL (no bias). work: T*dff floats, caller-owned. */
FFN_API int ffn_forward(float *Y, const float *X, const float *W1, const float *b1, const float *W2, const float *b2,
                        int T, int d, int dff, int act, float *work);

/* ---- gated FFN (src/kernels.c) ------------------------------------------------------------------------- */
/* X (T,d) @ Wg (d,dff) -> G; X @ Wu (d,dff) -> U; (phi(G) * U) (T,dff) @ Wd (dff,d) -> Y (T,d).
   No biases. work: 2*T*dff floats, caller-owned. */
FFN_API int gated_ffn_forward(float *Y, const float *X, const float *Wg, const float *Wu, const float *Wd, int T, int d,
                              int dff, int act, float *work);

/* ---- SwiGLU backward (src/backward.c) ------------------------------------------------------------------ */
/* dY (N,d), X (N,d), Wg (d,dff), Wu (d,dff), Wd (dff,d)
   -> dX (N,d), dWg (d,dff), dWu (d,dff), dWd (dff,d).
   Recomputes G, U, A = silu(G), H = A*U. work: 3*N*dff floats, caller-owned. */
FFN_API int swiglu_backward(float *dX, float *dWg, float *dWu, float *dWd, const float *dY, const float *X,
                            const float *Wg, const float *Wu, const float *Wd, int N, int d, int dff, float *work);

/* ---- training: FFN backwards (src/backward.c) ------------------------------------------------------------- */
/* Gradients are written, never accumulated. Every product runs on gemm_ex (transposes read in place):
   FFN_ENOMEM if a packing buffer cannot be allocated; FFN_EINVAL for a negative size or unknown act. */
/* dY (T,d), X (T,d), W1 (d,dff), b1 (dff) or NULL, W2 (dff,d) -> dX (T,d), dW1 (d,dff), db1 (dff), dW2 (dff,d),
   db2 (d) of Y = act(X W1 + b1) W2 + b2. Recomputes H = X W1 + b1 and A = act(H) into work (2*T*dff floats,
   caller-owned). dX, db1 and db2 may be NULL (not wanted). */
FFN_API int ffn_backward(float *dX, float *dW1, float *db1, float *dW2, float *db2, const float *dY, const float *X,
                         const float *W1, const float *b1, const float *W2, int T, int d, int dff, int act,
                         float *work);
/* The same backward from a forward that saved H = X W1 + b1 (T,dff) and A = act(H) (T,dff): dY (T,d), X (T,d),
   W2 (dff,d) -> dW1 (d,dff), db1 (dff), dW2 (dff,d), and dX (T,d) = dH W1^T, which needs W1 (d,dff): W1 comes
   last so that the 13-argument call (W1 = NULL) stays valid; dX must then be NULL (else FFN_EINVAL, unless d
   or dff is 0).
   A is overwritten with dH = (dY W2^T) * act'(H). db1 and dX may be NULL. No db2: it is the column sum of dY. */
FFN_API int ffn_backward_saved(float *dX, float *dW1, float *db1, float *dW2, const float *dY, const float *X,
                               const float *H, float *A, const float *W2, int T, int d, int dff, int act,
                               const float *W1);
/* dY (N,d), X (N,d), Wg (d,dff), Wu (d,dff), Wd (dff,d) -> dX (N,d), dWg (d,dff), dWu (d,dff), dWd (dff,d) of
   Y = (act(X Wg) * X Wu) Wd, for every activation. Recomputes G, U, H = act(G)*U into work (3*N*dff floats). */
FFN_API int gated_ffn_backward(float *dX, float *dWg, float *dWu, float *dWd, const float *dY, const float *X,
                               const float *Wg, const float *Wu, const float *Wd, int N, int d, int dff, int act,
                               float *work);

/* ---- training: loss, optimizers, rank-one edit, SPD solve (src/train.c) ---------------------------------- */
/* logits (N,V), targets (N) in [0,V) -> *loss = mean over rows of -log softmax(logits)[target] (log-sum-exp with
   the row max: stable for any finite logits), *correct = rows whose argmax (first max) is the target (may be
   NULL), dlogits (N,V) = (softmax - onehot(target)) / N (may be NULL: loss only; may alias logits). A NaN (or
   +inf) in a row makes the loss and that row's dlogits NaN, and the row is not correct. N = 0: loss NaN.
   FFN_EINVAL (nothing written) if N < 0, V < 1 or a target is outside [0,V). */
FFN_API int softmax_ce_backward(float *dlogits, float *loss, int32_t *correct, const float *logits,
                                const int32_t *targets, int N, int V);
/* One AdamW step (torch.optim.AdamW, t = step number >= 1) over p, m, v, g (n each), in place:
   p *= 1 - lr*wd; m += (1-beta1) (g - m); v = beta2 v + (1-beta2) g g;
   p -= (lr / (1-beta1^t)) m / (sqrt(v) / sqrt(1-beta2^t) + eps), the scalar factors in double rounded to float.
   FFN_EINVAL if n < 0 or t < 1. */
FFN_API int adamw_step(float *p, float *m, float *v, const float *g, int n, float lr, float beta1, float beta2,
                       float eps, float weight_decay, int t);
/* p (n) -= lr g (n). */
FFN_API int sgd_step(float *p, const float *g, int n, float lr);
/* W (M,N) += alpha u (M) v (N)^T, each entry as W + (alpha u_i) v_j. */
FFN_API int rank_one_update(float *W, const float *u, const float *v, int M, int N, float alpha);
/* A (n,n) symmetric positive definite (its lower triangle is read) -> L (n,n) lower Cholesky factor, A = L L^T,
   upper part zero; sums in double. FFN_ENOTPD if a pivot is <= 0 or not finite (L is then unspecified).
   L may alias A. */
FFN_API int spd_factor(float *L, const float *A, int n);
/* L (n,n) from spd_factor, B (n,nrhs) -> X (n,nrhs) solving L L^T X = B, in double (n*nrhs doubles of scratch:
   FFN_ENOMEM if they cannot be allocated). X may alias B. */
FFN_API int spd_solve(float *X, const float *L, const float *B, int n, int nrhs);

/* ---- the memory lab's model (src/memory.c, for web/train.js) ----------------------------------------------- */
/* Scratch floats of memory_train_step / memory_forward / memory_evaluate for batches of up to B facts. */
FFN_API double memory_work_size(int B, int d, int dff, int V);
/* One AdamW (optimizer 0) or SGD (1) step of x = X[rows], h = x + act(x W1 + b1) W2, logits = h U^T, softmax
   cross-entropy over B facts; P = [W1 (d,dff) | b1 (dff) | W2 (dff,d)], G, M, Vm alike; stats = {loss, correct}.
   A non-finite loss stops before the update. The full contract is in src/memory.c. */
FFN_API int memory_train_step(float *stats, float *P, float *G, float *M, float *Vm, const float *X,
                              const int32_t *targets, const int32_t *rows, const float *Utp, const float *Up, int N,
                              int B, int d, int dff, int V, int act, int optimizer, float lr, float beta1, float beta2,
                              float eps, float weight_decay, int t, float *work);
/* The forward on B facts -> A (B,dff) = act(x W1 + b1), logits (B,V) (either may be NULL). */
FFN_API int memory_forward(float *A, float *logits, const float *P, const float *X, const int32_t *rows,
                           const float *Utp, int B, int d, int dff, int V, int act, float *work);
/* All N facts: pred (N) = argmax of the logits (-1 for a row with NaN), stats = {loss, correct}. */
FFN_API int memory_evaluate(int32_t *pred, float *stats, const float *P, const float *X, const int32_t *targets,
                            const float *Utp, int N, int d, int dff, int V, int act, float *work);

/* ---- key-value memories (src/kernels.c) ---------------------------------------------------------------- */
/* x (d) @ W1 (d,dff) + b1 (dff) -> coef (dff) = relu(.);
   top (k) = indices of the k largest coef, largest first, ties by lower index;
   partial (d) = sum over i in top of coef_i * W2[i,:] with W2 (dff,d). b1 may be NULL.
   Requires 0 <= k <= dff. */
FFN_API int ffn_memories(float *coef, int32_t *top, float *partial, const float *x, const float *W1, const float *b1,
                         const float *W2, int d, int dff, int k);

/* ---- counts (src/counts.c; doubles: exact integers up to 2^53) ----------------------------------------- */
/* 2 d dff (+ dff + d) ungated; 3 d dff (+ 2 dff + d) gated. */
FFN_API double ffn_param_count(double d, double dff, int bias, int gated);
/* int(2*(4d)/3), times multiplier and int again if multiplier > 0, rounded up to multiple_of. */
FFN_API double llama_hidden_dim(double d, double multiple_of, double ffn_dim_multiplier);
/* forward FLOPs per token: 2 per weight, 4 d dff ungated, 6 d dff gated. */
FFN_API double ffn_flops(double d, double dff, int gated);

/* ---- the module itself (src/counts.c) ------------------------------------------------------------------ */
/* Bytes currently handed out by malloc (for leak tests). */
FFN_API double ffn_heap_in_use(void);
/* The SIMD the kernels were built for: 0 none (native), 1 128-bit wasm SIMD (ffn.wasm), 2 also relaxed
   SIMD (ffn-relaxed.wasm, fused multiply-add in the GEMM). */
FFN_API int ffn_simd_level(void);

/* ---- fast kernels: packed GEMM (src/gemm.c) and resident layers (src/layers.c) ------------------------ */
/* Weights are packed once into 8-column panels (gemm_pack) and stay in wasm memory; each call packs
   its A rows into a caller-owned scratch buffer (work). Sizes are in floats; negative sizes -> -1. */
FFN_API double gemm_packed_size(int K, int N);
/* B (K,N) -> Bp (gemm_packed_size(K,N) floats). */
FFN_API int gemm_pack(float *Bp, const float *B, int K, int N);
FFN_API double gemm_gated_packed_size(int K, int N);
/* Wg (K,N), Wu (K,N) -> Bp (gemm_gated_packed_size(K,N) floats), gate and up columns interleaved. */
FFN_API int gemm_gated_pack(float *Bp, const float *Wg, const float *Wu, int K, int N);
/* The microkernel every packed product runs: FFN_GEMM_SPLAT broadcasts each A value inside the loop
   (v128.load32_splat); FFN_GEMM_PREBROADCAST has the packing write each A value four times and loads whole
   vectors (JavaScriptCore compiles it better). Both sum in the same order: results are bit-identical. */
enum ffn_gemm_kernel { FFN_GEMM_SPLAT = 0, FFN_GEMM_PREBROADCAST = 1 };
/* Selects kernel when it is an ffn_gemm_kernel (any other value only asks); returns the one in use. */
FFN_API int gemm_select_kernel(int kernel);
/* Scratch floats for gemm_forward / gemm_gated_forward with A (M,K), enough for either microkernel. */
FFN_API double gemm_work_size(int M, int K);
/* A (M,K) @ B (K,N) + bias (N) -> act -> C (M,N); B packed; bias may be NULL; C must not alias A. */
FFN_API int gemm_forward(float *C, const float *A, const float *Bp, const float *bias, int M, int K, int N, int act,
                         float *work);
/* A (M,K) @ Wg (K,N) -> G, A @ Wu (K,N) -> U, H (M,N) = act(G) * U; Wg, Wu packed together. */
FFN_API int gemm_gated_forward(float *H, const float *A, const float *Bp, int M, int K, int N, int act, float *work);
/* Scratch floats for ffn_packed_forward / gated_packed_forward with T tokens. */
FFN_API double ffn_packed_work_size(int T, int d, int dff);
/* X (T,d) @ W1 (d,dff) + b1 -> act -> @ W2 (dff,d) + b2 -> Y (T,d); W1, W2 packed; b1, b2 may be NULL. */
FFN_API int ffn_packed_forward(float *Y, const float *X, const float *W1p, const float *b1, const float *W2p,
                               const float *b2, int T, int d, int dff, int act, float *work);
/* X (T,d) -> act(X Wg) * (X Wu) (T,dff) @ Wd (dff,d) -> Y (T,d); Wgu from gemm_gated_pack, Wd packed. */
FFN_API int gated_packed_forward(float *Y, const float *X, const float *Wgu, const float *Wdp, int T, int d, int dff,
                                 int act, float *work);
/* op(A) (M,K) @ op(B) (K,N) -> C (M,N), or C += it when accumulate. op(A) = A stored (M,K), or A^T
   with A stored (K,M) if transA; op(B) = B stored (K,N), or B^T with B stored (N,K) if transB.
   Packs op(B) per call into its own buffer; FFN_ENOMEM if that allocation fails. */
FFN_API int gemm_ex(float *C, const float *A, int transA, const float *B, int transB, int M, int K, int N,
                    int accumulate);
/* Scratch floats gemm_ex_w needs for these sizes (op(B) packed plus the A strips). Negative sizes -> -1. */
FFN_API double gemm_ex_work_size(int M, int K, int N);
/* gemm_ex on caller scratch work (gemm_ex_work_size(M,K,N) floats): allocates nothing (for resident trainers). */
FFN_API int gemm_ex_w(float *C, const float *A, int transA, const float *B, int transB, int M, int K, int N,
                      int accumulate, float *work);

/* ---- scalar references (src/ref.c) ---------------------------------------------------------------------- */
/* Plain C compiled without SIMD, each with the contract of the kernel named above it, against which the tests
   check that kernel. */
/* matmul_forward */
FFN_API int matmul_ref(float *C, const float *A, const float *B, int M, int K, int N);
/* act_forward */
FFN_API int act_ref(float *y, const float *x, int n, int act);
/* act_grad */
FFN_API int act_grad_ref(float *g, const float *x, int n, int act);
/* ffn_forward */
FFN_API int ffn_ref(float *Y, const float *X, const float *W1, const float *b1, const float *W2, const float *b2, int T,
                    int d, int dff, int act, float *work);
/* gated_ffn_forward */
FFN_API int gated_ffn_ref(float *Y, const float *X, const float *Wg, const float *Wu, const float *Wd, int T, int d,
                          int dff, int act, float *work);
/* swiglu_backward */
FFN_API int swiglu_backward_ref(float *dX, float *dWg, float *dWu, float *dWd, const float *dY, const float *X,
                                const float *Wg, const float *Wu, const float *Wd, int N, int d, int dff, float *work);
/* ffn_backward */
FFN_API int ffn_backward_ref(float *dX, float *dW1, float *db1, float *dW2, float *db2, const float *dY, const float *X,
                             const float *W1, const float *b1, const float *W2, int T, int d, int dff, int act,
                             float *work);
/* ffn_backward_saved */
FFN_API int ffn_backward_saved_ref(float *dX, float *dW1, float *db1, float *dW2, const float *dY, const float *X,
                                   const float *H, float *A, const float *W2, int T, int d, int dff, int act,
                                   const float *W1);
/* gated_ffn_backward */
FFN_API int gated_ffn_backward_ref(float *dX, float *dWg, float *dWu, float *dWd, const float *dY, const float *X,
                                   const float *Wg, const float *Wu, const float *Wd, int N, int d, int dff, int act,
                                   float *work);
/* softmax_ce_backward */
FFN_API int softmax_ce_backward_ref(float *dlogits, float *loss, int32_t *correct, const float *logits,
                                    const int32_t *targets, int N, int V);
/* adamw_step */
FFN_API int adamw_step_ref(float *p, float *m, float *v, const float *g, int n, float lr, float beta1, float beta2,
                           float eps, float weight_decay, int t);
/* sgd_step */
FFN_API int sgd_step_ref(float *p, const float *g, int n, float lr);
/* rank_one_update */
FFN_API int rank_one_update_ref(float *W, const float *u, const float *v, int M, int N, float alpha);
/* spd_factor */
FFN_API int spd_factor_ref(float *L, const float *A, int n);
/* spd_solve */
FFN_API int spd_solve_ref(float *X, const float *L, const float *B, int n, int nrhs);
/* ffn_memories */
FFN_API int ffn_memories_ref(float *coef, int32_t *top, float *partial, const float *x, const float *W1,
                             const float *b1, const float *W2, int d, int dff, int k);

#endif
