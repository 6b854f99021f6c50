// Test helper: synthetic fact sets for createMemoryModel and a float64 reference of its model, loss and gradients
// (no Node imports: the bench page loads it too).
import { act, actGrad } from './ref.js';
import { rng } from './rng.js';

/**
 * n distinct (subject, relation) pairs, each with a random object: Int32Array of n flat triples. With
 * objects >= 1 every object id below `objects` is used when n >= objects (the first facts take them in turn).
 */
export function syntheticFacts({ n, subjects, relations, objects, seed = 7 }) {
  if (n > subjects * relations) throw new RangeError('syntheticFacts: more facts than (subject, relation) pairs');
  const r = rng(seed);
  const pick = (k) => Math.floor(r() * k);
  const seen = new Set();
  const out = new Int32Array(3 * n);
  for (let i = 0; i < n;) {
    const s = pick(subjects);
    const q = pick(relations);
    if (seen.has(s * relations + q)) continue;
    seen.add(s * relations + q);
    out.set([s, q, i < objects ? i : pick(objects)], 3 * i);
    i++;
  }
  return out;
}

/**
 * One full-batch step of the memory model in float64: w = { W1 (d*dff), b1 (dff), W2 (dff*d), E_subject,
 * E_relation, U } (flat, row-major), facts flat triples. Returns { loss, correct, gW1, gb1, gW2 } (Float64Array).
 */
export function referenceStep(w, facts, { d, dff, activation }) {
  const N = facts.length / 3;
  const V = w.U.length / d;
  const g = { gW1: new Float64Array(d * dff), gb1: new Float64Array(dff), gW2: new Float64Array(dff * d) };
  let loss = 0;
  let correct = 0;
  for (let i = 0; i < N; i++) {
    const [s, q, o] = [facts[3 * i], facts[3 * i + 1], facts[3 * i + 2]];
    const x = Array.from({ length: d }, (_, k) => w.E_subject[s * d + k] + w.E_relation[q * d + k]);
    const H = new Float64Array(dff);
    for (let j = 0; j < dff; j++) {
      let h = w.b1[j];
      for (let k = 0; k < d; k++) h += x[k] * w.W1[k * dff + j];
      H[j] = h;
    }
    const A = H.map((h) => act(activation, h));
    const y = x.slice();
    for (let j = 0; j < dff; j++) for (let k = 0; k < d; k++) y[k] += A[j] * w.W2[j * d + k];
    const z = new Float64Array(V);
    for (let v = 0; v < V; v++) for (let k = 0; k < d; k++) z[v] += y[k] * w.U[v * d + k];
    const max = Math.max(...z);
    const sum = z.reduce((a, zz) => a + Math.exp(zz - max), 0);
    loss += max + Math.log(sum) - z[o];
    if (z.indexOf(max) === o) correct++;
    const dz = z.map((zz, v) => (Math.exp(zz - max) / sum - (v === o ? 1 : 0)) / N);
    const dy = new Float64Array(d);
    for (let v = 0; v < V; v++) for (let k = 0; k < d; k++) dy[k] += dz[v] * w.U[v * d + k];
    for (let j = 0; j < dff; j++) {
      let dA = 0;
      for (let k = 0; k < d; k++) {
        g.gW2[j * d + k] += A[j] * dy[k];
        dA += dy[k] * w.W2[j * d + k];
      }
      const dH = dA * actGrad(activation, H[j]);
      g.gb1[j] += dH;
      for (let k = 0; k < d; k++) g.gW1[k * dff + j] += x[k] * dH;
    }
  }
  return { loss: loss / N, correct, ...g };
}

/** torch.optim.AdamW in float64 over the flat p, m, v with gradient gr at step t (1-based); in place. */
export function referenceAdamW(p, m, v, gr, t, { lr, beta1, beta2, eps, weightDecay }) {
  for (let i = 0; i < p.length; i++) {
    p[i] *= 1 - lr * weightDecay;
    m[i] = beta1 * m[i] + (1 - beta1) * gr[i];
    v[i] = beta2 * v[i] + (1 - beta2) * gr[i] * gr[i];
    p[i] -= (lr * (m[i] / (1 - beta1 ** t))) / (Math.sqrt(v[i] / (1 - beta2 ** t)) + eps);
  }
}

/** FNV-1a over the float32 bits of a loss curve: one number to compare runs (and engines) bit for bit. */
export function curveHash(losses) {
  const bits = new Uint32Array(Float32Array.from(losses).buffer);
  let h = 2166136261;
  for (const b of bits) for (let k = 0; k < 32; k += 8) h = Math.imul(h ^ ((b >>> k) & 255), 16777619) >>> 0;
  return h.toString(16);
}
