// The memory lab's model: pure functions over a trainer of ffn-lab (createMemoryModel): read a fact's memories, a
// memory's value and triggers, and edit a fact (Meng et al.'s rank-one update, or fine-tuning). No DOM.
import { cholesky, choleskySolve } from '../../linalg.js';

export { cholesky, choleskySolve };

/** Dot product of a[ao..ao+n) and b[bo..bo+n), in float64. */
function dot(a, ao, b, bo, n) {
  let s = 0;
  for (let j = 0; j < n; j++) s += a[ao + j] * b[bo + j];
  return s;
}

/** Index of the largest value (the first one on a tie). */
export function argmax(v) {
  let best = 0;
  for (let i = 1; i < v.length; i++) if (v[i] > v[best]) best = i;
  return best;
}

/** softmax(v) in float64. */
export function softmax(v) {
  let m = -Infinity;
  for (const x of v) m = Math.max(m, x);
  const e = Float64Array.from(v, (x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

/** The k indices of the largest scores, largest first (the lower index first on a tie); keep(i) filters. */
export function topK(scores, k, keep = () => true) {
  const idx = [];
  for (let i = 0; i < scores.length; i++) if (keep(i)) idx.push(i);
  idx.sort((a, b) => scores[b] - scores[a] || a - b);
  return idx.slice(0, k);
}

/**
 * What the model has learnt, read once per state of its weights: copies of W1, b1, W2, U, the keys A (N, dff):
 * every fact's hidden activation, and the sizes. model: a trainer (createMemoryModel), triples: 3 N ids; keys: A
 * when computed already (by a worker's model of the same weights), else model.keys().
 */
export function readModel(model, triples, keys = null) {
  const w = model.copyWeights();
  const N = triples.length / 3;
  const dff = model.dff;
  const d = model.d;
  const A = keys ?? model.keys(); // every fact's keys in one call, (N, dff)
  if (A.length !== N * dff)
    throw new RangeError(`readModel: keys must hold N * dff = ${N * dff} floats; got ${A.length}`);
  const nObjects = w.U.length / d;
  return { ...w, A, N, d, dff, nObjects, triples };
}

/** Facts whose keys readModelSteps computes per step (about 10 ms at d_ff 512 on a loaded 2-vCPU machine). */
export const KEY_ROWS = 200;

/**
 * readModel in steps: returns a step that computes the keys of the next KEY_ROWS facts (model.keys(from, to), the
 * same bits as one call) and returns itself, or, after the last, readModel's result.
 */
export function readModelSteps(model, triples) {
  const N = triples.length / 3;
  const A = new Float32Array(N * model.dff);
  let f = 0;
  const step = () => {
    const to = Math.min(N, f + KEY_ROWS);
    A.set(model.keys(f, to), f * model.dff);
    f = to;
    return f < N ? step : readModel(model, triples, A);
  };
  return step;
}

/** Memory i's value W2[i,:] projected onto every object: U W2[i,:]^T (nObjects), float64. W2 (dff, d), U (nObj, d). */
export function projectValue(W2, U, i, d) {
  const n = U.length / d;
  const out = new Float64Array(n);
  for (let o = 0; o < n; o++) out[o] = dot(W2, i * d, U, o * d, d);
  return out;
}

/** Geva et al.'s reading of memory i: the k objects its value promotes most, largest first, with their scores. */
export function promotes(lab, i, k = 5) {
  const s = projectValue(lab.W2, lab.U, i, lab.d);
  return topK(s, k).map((o) => ({ object: o, score: s[o] }));
}

/** Memory i's top triggers: the k facts whose keys fire it most (activation > 0), largest first. */
export function triggers(lab, i, k = 5) {
  const a = new Float32Array(lab.N);
  for (let f = 0; f < lab.N; f++) a[f] = lab.A[f * lab.dff + i];
  return topK(a, k, (f) => a[f] > 0).map((f) => ({ fact: f, activation: a[f] }));
}

/**
 * Memory i across the facts (superposition): for how many it fires (activation > 0) and for how many of those it
 * raises the right object's logit (a_i (W2[i,:] . U[object]) > 0).
 */
export function memoryUse(lab, i) {
  const s = projectValue(lab.W2, lab.U, i, lab.d);
  let fires = 0;
  let helps = 0;
  for (let f = 0; f < lab.N; f++) {
    const a = lab.A[f * lab.dff + i];
    if (a > 0) {
      fires++;
      if (s[lab.triples[3 * f + 2]] > 0) helps++;
    }
  }
  return { fires, helps };
}

/** How many memories fire for each fact: their mean, and how many memories fire for no fact at all. */
export function firingStats(lab) {
  let total = 0;
  const used = new Uint8Array(lab.dff);
  for (let f = 0; f < lab.N; f++) {
    for (let i = 0; i < lab.dff; i++) {
      if (lab.A[f * lab.dff + i] > 0) {
        total++;
        used[i] = 1;
      }
    }
  }
  return { meanPerFact: total / lab.N, silent: lab.dff - used.reduce((a, b) => a + b, 0) };
}

/**
 * Fact f read through its memories. Its logit for its object o is the residual x . U[o] plus, for every memory i
 * that fires, a_i (W2[i,:] . U[o]): `memories` lists them strongest first (by activation) with that contribution;
 * `sum` adds them all in float64, to be compared with `logit`, the model's own.
 */
export function inspectFact(model, lab, f) {
  const { d, dff, W2, U, triples } = lab;
  const o = triples[3 * f + 2];
  const x = model.inputOf(f);
  const logits = model.logitsOf(f);
  const a = lab.A.subarray(f * dff, (f + 1) * dff);
  const memories = [];
  for (let i = 0; i < dff; i++) {
    if (a[i] === 0) continue;
    const value = dot(W2, i * d, U, o * d, d);
    memories.push({ memory: i, activation: a[i], value, contribution: a[i] * value });
  }
  memories.sort((p, q) => q.activation - p.activation || p.memory - q.memory);
  const residual = dot(x, 0, U, o * d, d);
  const sum = memories.reduce((s, m) => s + m.contribution, residual);
  const p = softmax(logits);
  const predicted = argmax(logits);
  return { fact: f, object: o, predicted, p: p[predicted], pObject: p[o], logit: logits[o], residual, sum, memories };
}

/** The time a step of keyCovarianceSteps or targetValueSteps may take before it yields (ms). */
export const STEP_MS = 10;

/** A generator's clock: due() is true, and starts the next slice, once sliceMs have passed since the last. */
function sliceClock(sliceMs) {
  let t0 = performance.now();
  return () => {
    const t = performance.now();
    if (t - t0 < sliceMs) return false;
    t0 = t;
    return true;
  };
}

/** A generator run to its end: its return value. */
export function finish(steps) {
  let r;
  do r = steps.next();
  while (!r.done);
  return r.value;
}

// ---- the edit ---------------------------------------------------------------------------------------------------

/**
 * The key covariance C = K^T K / N + lambda I (dff, dff), float64, of the stored facts' keys K = A (N, dff);
 * lambda = LAMBDA times C's mean diagonal (a ridge that keeps C positive definite when memories never fire).
 * ffn: ffn-lab (A^T A in wasm), else a float64 loop.
 */
export const LAMBDA = 0.01;
export function keyCovariance(lab, ffn = null) {
  return finish(keyCovarianceSteps(lab, ffn));
}

/** Rows of C a product of keyCovarianceSteps computes (the rows of a product do not depend on the others'). */
export const COV_ROWS = 32;

/**
 * keyCovariance in steps: it yields after about sliceMs (the page's task ends there), then returns C. With ffn, A
 * stays in wasm memory as a linear layer's W (createLinear) for the whole walk, each block of C's rows one forward
 * pass; the layer is disposed at the end, or when the caller gives the steps up with return().
 */
export function* keyCovarianceSteps(lab, ffn = null, sliceMs = STEP_MS) {
  const { A, N, dff } = lab;
  const C = new Float64Array(dff * dff);
  const due = sliceClock(sliceMs);
  const layer = typeof ffn?.createLinear === 'function' ? ffn.createLinear({ W: { data: A, shape: [N, dff] } }) : null;
  try {
    for (let i0 = 0; i0 < dff; i0 += COV_ROWS) {
      const i1 = Math.min(dff, i0 + COV_ROWS);
      if (layer) covRowsWasm(C, lab, layer, i0, i1);
      else covRows64(C, lab, i0, i1);
      if (due()) yield;
    }
  } finally {
    layer?.dispose();
  }
  let trace = 0;
  for (let i = 0; i < dff; i++) trace += C[i * dff + i];
  const lambda = LAMBDA * (trace / dff) + 1e-8;
  for (let i = 0; i < dff; i++) C[i * dff + i] += lambda;
  return C;
}

/** Rows i0..i1-1 of C = A^T A / N by the layer of W = A: the rows i0..i1-1 of A^T, forward. */
function covRowsWasm(C, { A, N, dff }, layer, i0, i1) {
  const AT = new Float32Array((i1 - i0) * N);
  for (let f = 0; f < N; f++) for (let i = i0; i < i1; i++) AT[(i - i0) * N + f] = A[f * dff + i];
  const P = layer.forward({ data: AT, shape: [i1 - i0, N] }).data;
  for (let i = 0; i < P.length; i++) C[i0 * dff + i] = P[i] / N;
}

/** Rows i0..i1-1 of C = A^T A / N in float64, the facts in order. */
function covRows64(C, { A, N, dff }, i0, i1) {
  for (let f = 0; f < N; f++) {
    const o = f * dff;
    for (let i = i0; i < i1; i++) {
      const ai = A[o + i];
      if (ai !== 0) for (let j = 0; j < dff; j++) C[i * dff + j] += (ai * A[o + j]) / N;
    }
  }
}

/**
 * Meng et al.'s closed form as its parts: u = C^-1 k*^T (solve(k*): C^-1 applied to a vector), r = v* - k* W2 and
 * alpha = 1 / (k* u), so that W2 + alpha u r^T maps k* to v* while disturbing the other keys least (in C's metric).
 */
export function rankOneParts(W2, solve, kStar, vStar, dff, d) {
  const u = solve(kStar);
  const r = Float64Array.from(vStar);
  for (let i = 0; i < dff; i++) if (kStar[i] !== 0) for (let j = 0; j < d; j++) r[j] -= kStar[i] * W2[i * d + j];
  let ku = 0;
  for (let i = 0; i < dff; i++) ku += kStar[i] * u[i];
  return { u, r, alpha: 1 / ku };
}

/** W2 + C^-1 k*^T (v* - k* W2) / (k* C^-1 k*^T), in float64 (a new Float64Array): the reference closed form. */
export function rankOneEdit(W2, C, kStar, vStar, dff, d) {
  const L = cholesky(C, dff);
  const { u, r, alpha } = rankOneParts(W2, (k) => choleskySolve(L, dff, k), kStar, vStar, dff, d);
  const out = Float64Array.from(W2);
  for (let i = 0; i < dff; i++) for (let j = 0; j < d; j++) out[i * d + j] += alpha * u[i] * r[j];
  return out;
}

/**
 * A target value v* for fact f's new object: from the value the FFN writes now, m = k* W2, gradient steps on
 * v (d) of the cross-entropy of (x + v) U^T toward newObject, until newObject has probability TARGET_P or more
 * (at most 200 steps of 1). x: the fact's input.
 */
export const TARGET_P = 0.9;
export function targetValue(lab, x, kStar, newObject) {
  return finish(targetValueSteps(lab, x, kStar, newObject));
}

/** targetValue in steps: it yields after each slice of about sliceMs (the page's task ends there), then returns. */
export function* targetValueSteps(lab, x, kStar, newObject, sliceMs = STEP_MS) {
  const { d, dff, W2, U, nObjects } = lab;
  const v = new Float64Array(d);
  for (let i = 0; i < dff; i++) if (kStar[i] !== 0) for (let j = 0; j < d; j++) v[j] += kStar[i] * W2[i * d + j];
  const logits = new Float64Array(nObjects);
  const h = new Float64Array(d);
  const due = sliceClock(sliceMs);
  for (let step = 0; step <= 200; step++) {
    for (let j = 0; j < d; j++) h[j] = x[j] + v[j];
    for (let o = 0; o < nObjects; o++) logits[o] = dot(h, 0, U, o * d, d);
    const p = softmax(logits);
    if (p[newObject] >= TARGET_P || step === 200) return { vStar: v, steps: step, p: p[newObject] };
    p[newObject] -= 1;
    for (let o = 0; o < nObjects; o++) if (p[o] !== 0) for (let j = 0; j < d; j++) v[j] -= p[o] * U[o * d + j];
    if (due()) yield;
  }
  return null; // not reached
}

/**
 * The solver of the key covariance's systems for one trained state: C = keyCovariance(lab) (once), then each
 * solve(k) = C^-1 k. With ffn-lab's spdSolve (src/train.c's Cholesky kernels) in float32, else a float64 Cholesky
 * factor here.
 */
export function covarianceSolver(lab, ffn = null) {
  return finish(covarianceSolverSteps(lab, ffn));
}

/** covarianceSolver in steps (keyCovarianceSteps', then one for the factor); returns the solver. */
export function* covarianceSolverSteps(lab, ffn = null) {
  const C = yield* keyCovarianceSteps(lab, ffn);
  const n = lab.dff;
  if (typeof ffn?.spdSolve === 'function') {
    const A = { data: Float32Array.from(C), shape: [n, n] };
    return (k) => ffn.spdSolve(A, { data: Float32Array.from(k), shape: [n] }).data;
  }
  yield;
  const L = cholesky(C, n);
  return (k) => choleskySolve(L, n, k);
}

/**
 * Meng et al.'s rank-one edit of fact f to newObject, written into the model's W2: k* = the fact's key (hidden
 * activation), C from the stored facts' keys (solve: covarianceSolver's, made once per trained state), v* from
 * targetValue (or `target`, its result already); the update by ffn-lab's rankOneUpdate kernel when given (ffn), else
 * here. Returns what it did.
 */
export function applyRankOne(model, lab, f, newObject, { solve, ffn = null, target = null } = {}) {
  const { d, dff } = lab;
  const kStar = lab.A.subarray(f * dff, (f + 1) * dff);
  target ??= targetValue(lab, model.inputOf(f), kStar, newObject);
  const { u, r, alpha } = rankOneParts(lab.W2, solve ?? covarianceSolver(lab, ffn), kStar, target.vStar, dff, d);
  if (typeof ffn?.rankOneUpdate === 'function') {
    const W2 = ffn.rankOneUpdate({ data: lab.W2, shape: [dff, d] }, Float32Array.from(u), Float32Array.from(r), alpha);
    model.setWeights({ W2: W2.data });
  } else {
    const W2 = model.weights().W2; // a view into wasm memory: written before any other call
    for (let i = 0; i < dff; i++) for (let j = 0; j < d; j++) W2[i * d + j] += alpha * u[i] * r[j];
  }
  return { targetSteps: target.steps, targetP: target.p };
}

/**
 * Fine-tuning on fact f alone: the trainer's SGD steps of rate lr (in wasm, whatever its activation) on that one fact
 * with newObject as its target (`trainSgd`'s targets), until it gives newObject (at most maxSteps, or a non-finite
 * loss). Returns the steps taken.
 */
export function fineTune(model, f, newObject, { lr = 0.1, maxSteps = 100 } = {}) {
  const opts = { batch: [f], targets: [newObject], lr };
  let steps = 0;
  while (steps < maxSteps && argmax(model.logitsOf(f)) !== newObject) {
    if (!model.trainSgd(1, opts).finite) break;
    steps++;
  }
  return { steps };
}

/**
 * What an edit of fact f to newObject did, from the predictions before and after: efficacy (f gives newObject),
 * specificity (of the other facts stored before, how many still give their object) and the subject's other facts.
 */
export function editOutcome(triples, f, newObject, before, after) {
  let kept = 0;
  let of = 0;
  const neighbours = [];
  const N = triples.length / 3;
  for (let g = 0; g < N; g++) {
    if (g === f) continue;
    const o = triples[3 * g + 2];
    if (before[g] === o) {
      of++;
      if (after[g] === o) kept++;
    }
    if (triples[3 * g] === triples[3 * f]) neighbours.push({ fact: g, before: before[g], after: after[g] });
  }
  return { flipped: after[f] === newObject, predicted: after[f], kept, of, neighbours };
}
