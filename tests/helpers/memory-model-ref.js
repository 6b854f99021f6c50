// Test helper: a plain-JS stand-in of ffn-lab's memory model (createMemoryModel's read API) for small sizes, written
// independently of the trainer: x = E_s[s] + E_r[r], h = x + relu(x W1 + b1) W2, logits = h U^T; full-batch Adam.
import { rng } from './rng.js';

/** n rows of d random unit vectors (Gaussian by Box-Muller, then normalized), as a Float32Array. */
function unitRows(next, n, d) {
  const out = new Float32Array(n * d);
  for (let r = 0; r < n; r++) {
    let norm = 0;
    const row = [];
    for (let j = 0; j < d; j++) {
      const g = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
      row.push(g);
      norm += g * g;
    }
    for (let j = 0; j < d; j++) out[r * d + j] = row[j] / Math.sqrt(norm);
  }
  return out;
}

/**
 * The stand-in: { triples (3 N ids), nSubjects, nRelations, nObjects, d, dff, seed, lr } -> an object with d, dff,
 * nFacts, step, inputOf, hidden, keys, logitsOf, weights (the arrays themselves), copyWeights, snapshot, restore,
 * evaluate, train(steps) (full-batch Adam, float64 arithmetic over float32 weights), trainSgd(steps, { batch,
 * targets, lr }).
 */
export function refMemoryModel({ triples, nSubjects, nRelations, nObjects, d, dff, seed = 1, lr = 0.03 }) {
  const next = rng(seed);
  const N = triples.length / 3;
  const w = {
    E_subject: unitRows(next, nSubjects, d),
    E_relation: unitRows(next, nRelations, d),
    U: unitRows(next, nObjects, d),
    W1: Float32Array.from({ length: d * dff }, () => (next() * 2 - 1) / Math.sqrt(d)),
    b1: new Float32Array(dff),
    W2: Float32Array.from({ length: dff * d }, () => (next() * 2 - 1) / Math.sqrt(dff)),
  };
  const learnt = ['W1', 'b1', 'W2'];
  const m = Object.fromEntries(learnt.map((k) => [k, new Float64Array(w[k].length)]));
  const v = Object.fromEntries(learnt.map((k) => [k, new Float64Array(w[k].length)]));
  let step = 0;
  const inputOf = (f) => {
    const x = new Float32Array(d);
    for (let j = 0; j < d; j++) x[j] = w.E_subject[triples[3 * f] * d + j] + w.E_relation[triples[3 * f + 1] * d + j];
    return x;
  };
  const pre = (x) => {
    const h = new Float64Array(dff);
    for (let i = 0; i < dff; i++) {
      h[i] = w.b1[i];
      for (let j = 0; j < d; j++) h[i] += x[j] * w.W1[j * dff + i];
    }
    return h;
  };
  const hidden = (f) => Float32Array.from(pre(inputOf(f)), (z) => Math.max(0, z));
  const forward = (f) => {
    const x = inputOf(f);
    const h = pre(x);
    const y = Float64Array.from(x);
    for (let i = 0; i < dff; i++) if (h[i] > 0) for (let j = 0; j < d; j++) y[j] += h[i] * w.W2[i * d + j];
    const logits = new Float64Array(nObjects);
    for (let o = 0; o < nObjects; o++) for (let j = 0; j < d; j++) logits[o] += y[j] * w.U[o * d + j];
    return { x, h, logits };
  };
  const argmax = (a) => a.reduce((b, x, i) => (x > a[b] ? i : b), 0);
  const evaluate = () => {
    const predictions = new Int32Array(N);
    let correct = 0;
    for (let f = 0; f < N; f++) {
      predictions[f] = argmax(forward(f).logits);
      if (predictions[f] === triples[3 * f + 2]) correct++;
    }
    return { correct, accuracy: correct / N, predictions };
  };
  // the mean loss's gradient over the facts `rows` (all by default), fact rows[k] toward targets[k] (its own object)
  const gradients = (rows = null, targets = null) => {
    const g = Object.fromEntries(learnt.map((k) => [k, new Float64Array(w[k].length)]));
    const B = rows ? rows.length : N;
    for (let b = 0; b < B; b++) {
      const f = rows ? rows[b] : b;
      const { x, h, logits } = forward(f);
      const mx = Math.max(...logits);
      const e = logits.map((z) => Math.exp(z - mx));
      const s = e.reduce((a, b) => a + b, 0);
      const dl = e.map((z) => z / s / B);
      dl[targets ? targets[b] : triples[3 * f + 2]] -= 1 / B;
      const gy = new Float64Array(d);
      for (let o = 0; o < nObjects; o++) for (let j = 0; j < d; j++) gy[j] += dl[o] * w.U[o * d + j];
      for (let i = 0; i < dff; i++) {
        if (!(h[i] > 0)) continue;
        let gh = 0;
        for (let j = 0; j < d; j++) {
          gh += w.W2[i * d + j] * gy[j];
          g.W2[i * d + j] += h[i] * gy[j];
        }
        g.b1[i] += gh;
        for (let j = 0; j < d; j++) g.W1[j * dff + i] += x[j] * gh;
      }
    }
    return g;
  };
  const train = (steps = 1) => {
    for (let s = 0; s < steps; s++) {
      const g = gradients();
      step++;
      for (const k of learnt) {
        for (let i = 0; i < w[k].length; i++) {
          m[k][i] = 0.9 * m[k][i] + 0.1 * g[k][i];
          v[k][i] = 0.999 * v[k][i] + 0.001 * g[k][i] ** 2;
          const mh = m[k][i] / (1 - 0.9 ** step);
          const vh = v[k][i] / (1 - 0.999 ** step);
          w[k][i] -= (lr * mh) / (Math.sqrt(vh) + 1e-8);
        }
      }
    }
    return { step, ...evaluate() };
  };
  // plain SGD steps on the facts `batch` (all by default) toward `targets` (their own objects by default)
  const trainSgd = (steps = 1, { batch = null, targets = null, lr: rate = lr } = {}) => {
    for (let s = 0; s < steps; s++) {
      const g = gradients(batch, targets);
      step++;
      for (const k of learnt) for (let i = 0; i < w[k].length; i++) w[k][i] -= rate * g[k][i];
    }
    return { step, finite: true };
  };
  const copy = () => Object.fromEntries(Object.entries(w).map(([k, a]) => [k, a.slice()]));
  return {
    d,
    dff,
    nFacts: N,
    get step() {
      return step;
    },
    inputOf,
    hidden,
    keys() {
      const A = new Float32Array(N * dff);
      for (let f = 0; f < N; f++) A.set(hidden(f), f * dff);
      return A;
    },
    logitsOf: (f) => Float32Array.from(forward(f).logits),
    weights: () => w,
    copyWeights: copy,
    snapshot: () => ({ w: copy(), step }),
    restore(token) {
      for (const k of learnt) w[k].set(token.w[k]);
      step = token.step;
    },
    evaluate,
    train,
    trainSgd,
  };
}
