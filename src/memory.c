/* The memory lab's model (web/train.js): one fused training step and the forward, on resident buffers. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ffn.h"
#include "internal.h"

/* Where each block of the scratch starts (64-byte aligned, in this order). */
typedef struct {
  int32_t *tb;                  /* targets of the batch (B) */
  float *Xb, *H, *A, *Y, *L;    /* (B,d), (B,dff), (B,dff), (B,d), logits (B,V) */
  float *W1p, *W2p, *gemm_work; /* W1, W2 packed for gemm_forward, the GEMM's own scratch */
} layout;

static double work_floats(int B, int d, int dff, int V) {
  double w1 = gemm_work_size(B, d), w2 = gemm_work_size(B, dff), w3 = gemm_work_size(B, V);
  double w = w1 > w2 ? w1 : w2;
  if (w3 > w) w = w3;
  size_t bd = round16((size_t)B * d), bf = round16((size_t)B * dff);
  size_t sum = round16((size_t)B) + 2 * bd + 2 * bf + round16((size_t)B * V) +
               round16((size_t)gemm_packed_size(d, dff)) + round16((size_t)gemm_packed_size(dff, d));
  return (double)sum + w + 2 * ALIGN_SLACK;
}

static layout place(float *work, int B, int d, int dff, int V) {
  layout s;
  float *p = align64(work);
  size_t bd = round16((size_t)B * d), bf = round16((size_t)B * dff);
  s.tb = (int32_t *)p, p += round16((size_t)B);
  s.Xb = p, p += bd;
  s.H = p, p += bf;
  s.A = p, p += bf;
  s.Y = p, p += bd;
  s.L = p, p += round16((size_t)B * V);
  s.W1p = p, p += round16((size_t)gemm_packed_size(d, dff));
  s.W2p = p, p += round16((size_t)gemm_packed_size(dff, d));
  s.gemm_work = align64(p);
  return s;
}

/* Scratch floats of memory_train_step / memory_forward / memory_evaluate for batches of up to B facts.
   Negative sizes -> -1. */
FFN_API double memory_work_size(int B, int d, int dff, int V) {
  if (B < 0 || d < 0 || dff < 0 || V < 0) return -1;
  return work_floats(B, d, dff, V);
}

/* rows (B) of X (N,d) -> s.Xb (B,d), of targets (N) -> s.tb (B); rows NULL: the first B facts in place.
   Then the forward: H = Xb W1 + b1 (B,dff), A = act(H), Y = Xb + A W2 (B,d), logits L = Y Ut (B,V). */
static const float *forward(layout *s, const float *P, const float *X, const int32_t *targets, const int32_t *rows,
                            const float *Utp, int B, int d, int dff, int V, int act) {
  const float *W1 = P, *b1 = P + (size_t)d * dff, *W2 = b1 + dff, *Xb = X;
  if (rows) {
    for (int i = 0; i < B; i++) {
      memcpy(s->Xb + (size_t)i * d, X + (size_t)rows[i] * d, (size_t)d * sizeof(float));
      if (targets) s->tb[i] = targets[rows[i]];
    }
    Xb = s->Xb;
  } else if (targets)
    memcpy(s->tb, targets, (size_t)B * sizeof(int32_t));
  gemm_pack(s->W1p, W1, d, dff);
  gemm_pack(s->W2p, W2, dff, d);
  gemm_forward(s->H, Xb, s->W1p, b1, B, d, dff, FFN_ACT_IDENTITY, s->gemm_work);
  act_forward(s->A, s->H, B * dff, act);
  gemm_forward(s->Y, s->A, s->W2p, NULL, B, dff, d, FFN_ACT_IDENTITY, s->gemm_work);
  for (size_t i = 0; i < (size_t)B * d; i++) s->Y[i] += Xb[i];
  gemm_forward(s->L, s->Y, Utp, NULL, B, d, V, FFN_ACT_IDENTITY, s->gemm_work);
  return Xb;
}

static int bad_sizes(int N, int B, int d, int dff, int V, int act) {
  return N < 0 || B < 0 || B > N || d <= 0 || dff <= 0 || V <= 0 || bad_act(act);
}

/* One training step of the memory-lab model on B facts (rows (B) indexes the N facts; NULL: all, B = N).
   P = [W1 (d,dff) | b1 (dff) | W2 (dff,d)] (n = 2 d dff + dff floats), G its gradient, M and Vm the Adam
   moments (same layout); X (N,d) the inputs e_s + e_r, targets (N) in [0,V); Utp = U^T (d,V) and Up = U (V,d)
   packed by gemm_pack. Forward as in forward(); softmax cross-entropy -> stats[0] = mean loss,
   stats[1] = correct (as a float); when the loss is finite: dlogits -> dY = dlogits U (B,d) ->
   ffn_backward_saved -> G, then adamw_step at step t (optimizer 0) or sgd_step (optimizer 1) on P.
   A non-finite loss leaves P, M, Vm untouched. work: memory_work_size(B,d,dff,V) floats. */
FFN_API int memory_train_step(float *stats, float *P, float *G, float *M, float *Vm, const float *X,
                              const int32_t *targets, const int32_t *rows, const float *Utp, const float *Up, int N,
                              int B, int d, int dff, int V, int act, int optimizer, float lr, float beta1, float beta2,
                              float eps, float weight_decay, int t, float *work) {
  if (bad_sizes(N, B, d, dff, V, act) || (!rows && B != N) || (optimizer != 0 && optimizer != 1)) return FFN_EINVAL;
  layout s = place(work, B, d, dff, V);
  const float *Xb = forward(&s, P, X, targets, rows, Utp, B, d, dff, V, act);
  float loss = 0;
  int32_t correct = 0;
  int st = softmax_ce_backward(s.L, &loss, &correct, s.L, s.tb, B, V); /* L <- dlogits */
  stats[0] = loss, stats[1] = (float)correct;
  if (st != FFN_OK || !isfinite(loss)) return st;
  gemm_forward(s.Y, s.L, Up, NULL, B, V, d, FFN_ACT_IDENTITY, s.gemm_work); /* Y <- dY = dlogits U */
  size_t n1 = (size_t)d * dff, n = 2 * n1 + (size_t)dff;
  st = ffn_backward_saved(NULL, G, G + n1, G + n1 + dff, s.Y, Xb, s.H, s.A, P + n1 + dff, B, d, dff, act, NULL);
  if (st != FFN_OK) return st;
  if (optimizer == 1) return sgd_step(P, G, (int)n, lr);
  return adamw_step(P, M, Vm, G, (int)n, lr, beta1, beta2, eps, weight_decay, t);
}

/* The forward on B facts (rows as above) -> A (B,dff) = act(X W1 + b1) and logits (B,V), each copied out
   when not NULL; P, X, Utp as in memory_train_step. work: memory_work_size(B,d,dff,V) floats. */
FFN_API int memory_forward(float *A, float *logits, const float *P, const float *X, const int32_t *rows,
                           const float *Utp, int B, int d, int dff, int V, int act, float *work) {
  if (bad_sizes(B, B, d, dff, V, act)) return FFN_EINVAL;
  layout s = place(work, B, d, dff, V);
  forward(&s, P, X, NULL, rows, Utp, B, d, dff, V, act);
  if (A) memcpy(A, s.A, (size_t)B * dff * sizeof(float));
  if (logits) memcpy(logits, s.L, (size_t)B * V * sizeof(float));
  return FFN_OK;
}

/* All N facts: the forward, pred (N) = argmax of each row's logits (first maximum; a row with a NaN: -1),
   stats[0] = mean cross-entropy loss, stats[1] = facts with pred == target. work as memory_forward with B = N. */
FFN_API int memory_evaluate(int32_t *pred, float *stats, const float *P, const float *X, const int32_t *targets,
                            const float *Utp, int N, int d, int dff, int V, int act, float *work) {
  if (bad_sizes(N, N, d, dff, V, act)) return FFN_EINVAL;
  layout s = place(work, N, d, dff, V);
  forward(&s, P, X, targets, NULL, Utp, N, d, dff, V, act);
  int32_t correct = 0;
  for (int i = 0; i < N; i++) {
    const float *l = s.L + (size_t)i * V;
    int best = 0;
    for (int j = 1; j < V; j++)
      if (l[j] > l[best]) best = j;
    for (int j = 0; j < V; j++)
      if (l[j] != l[j]) best = -1;
    pred[i] = best;
    correct += best == targets[i];
  }
  float loss = 0;
  int st = softmax_ce_backward(NULL, &loss, NULL, s.L, s.tb, N, V);
  stats[0] = loss, stats[1] = (float)correct;
  return st;
}
