// createMemoryModel: one step against a float64 reference, learning a fact set, determinism, errors, no leak.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ffn from 'ffn-lab';
import { syntheticFacts, referenceStep, referenceAdamW, curveHash } from '../helpers/memory-model.js';
import { rng } from '../helpers/rng.js';

await ffn.ready({ relaxed: false });

const SMALL = { n: 37, subjects: 13, relations: 3, objects: 9 };
const small = (o = {}) => ({
  facts: syntheticFacts(SMALL),
  nSubjects: 13,
  nRelations: 3,
  nObjects: 9,
  d: 12,
  dff: 20,
  ...o,
});
const params = (w) => Float64Array.from([...w.W1, ...w.b1, ...w.W2]);
const grads = (g) => Float64Array.from([...g.gW1, ...g.gb1, ...g.gW2]);

/** |a - b| <= tol(i) for every i, with the first failure named. */
function near(a, b, tol, what) {
  for (let i = 0; i < b.length; i++) {
    const t = tol(i);
    if (!(Math.abs(a[i] - b[i]) <= t)) assert.fail(`${what}[${i}]: ${a[i]} vs float64 ${b[i]} (tolerance ${t})`);
  }
}

test('one SGD step: loss and every gradient match float64 (gelu and relu)', () => {
  for (const activation of ['gelu', 'relu']) {
    const opts = small({ activation, seed: 3 });
    const m = ffn.createMemoryModel(opts);
    const w = m.copyWeights();
    const want = referenceStep(w, opts.facts, { d: 12, dff: 20, activation });
    const lr = 0.5;
    const res = m.trainSgd(1, { lr });
    assert.ok(Math.abs(res.loss - want.loss) <= 1e-5 * want.loss, `loss ${res.loss} vs ${want.loss}`);
    assert.equal(res.correct, want.correct);
    assert.equal(res.step, 1);
    const g = grads(want);
    const scale = g.reduce((a, v) => Math.max(a, Math.abs(v)), 0);
    const got = params(m.copyWeights());
    const p0 = params(w);
    const gotG = got.map((p, i) => (p0[i] - p) / lr);
    // the gradient recovered from p - lr g: float32 rounding of p (ulp(p)/lr) and of the sums (1e-5 of the scale)
    near(gotG, g, (i) => (2 * 2 ** -23 * Math.max(Math.abs(p0[i]), 1e-30)) / lr + 1e-5 * scale, `${activation} grad`);
    m.dispose();
  }
});

test('three AdamW steps with weight decay match float64 torch.optim.AdamW', () => {
  const optimizer = { lr: 0.01, beta1: 0.8, beta2: 0.99, eps: 1e-6, weightDecay: 0.1 };
  const opts = small({ activation: 'silu', seed: 5, optimizer });
  const m = ffn.createMemoryModel(opts);
  const w = m.copyWeights();
  const p = params(w);
  const mo = new Float64Array(p.length);
  const v = new Float64Array(p.length);
  let skipped = 0;
  let smallG = null;
  for (let t = 1; t <= 3; t++) {
    const cur = { ...w, W1: p.subarray(0, 240), b1: p.subarray(240, 260), W2: p.subarray(260) };
    const want = referenceStep(cur, opts.facts, { d: 12, dff: 20, activation: 'silu' });
    const res = m.train(1);
    assert.ok(Math.abs(res.loss - want.loss) <= 1e-5 * want.loss, `step ${t} loss ${res.loss} vs ${want.loss}`);
    const g = grads(want);
    const scale = g.reduce((a, x) => Math.max(a, Math.abs(x)), 0);
    // Adam divides each gradient by its own size: where a gradient is a cancellation near zero its float32 value
    // has no stable direction, so those entries (|g| < 1e-4 of the largest, at any step) are not compared
    smallG = smallG || new Uint8Array(p.length);
    g.forEach((x, i) => (smallG[i] |= Math.abs(x) < 1e-4 * scale));
    referenceAdamW(p, mo, v, g, t, optimizer);
  }
  const got = params(m.copyWeights());
  near(got, p, (i) => (smallG[i] ? Infinity : 1e-3 * optimizer.lr + 4 * 2 ** -24 * Math.abs(p[i])), 'AdamW weight');
  for (let i = 0; i < p.length; i++) if (smallG[i]) skipped++;
  assert.ok(skipped < p.length / 10, `${skipped} of ${p.length} entries had near-zero gradients`);
  m.dispose();
});

test('the trainer stores every fact of a small set (100 % accuracy)', () => {
  const facts = syntheticFacts({ n: 120, subjects: 40, relations: 4, objects: 30, seed: 11 });
  const m = ffn.createMemoryModel({ facts, nSubjects: 40, nRelations: 4, nObjects: 30, d: 32, dff: 64 });
  let res;
  for (let i = 0; i < 20 && m.evaluate().accuracy < 1; i++) res = m.train(10);
  const ev = m.evaluate();
  assert.equal(ev.accuracy, 1, `accuracy ${ev.accuracy} after ${res && res.step} steps`);
  assert.equal(ev.correct, 120);
  ev.predictions.forEach((o, i) => assert.equal(o, facts[3 * i + 2], `prediction of fact ${i}`));
  m.dispose();
});

test('one seed gives the same loss curve bit for bit; another seed another curve', () => {
  const curve = (seed, batch) => {
    const m = ffn.createMemoryModel(small({ seed }));
    const losses = [];
    for (let i = 0; i < 25; i++) losses.push(m.train(1, batch ? { batch } : undefined).loss);
    m.dispose();
    return curveHash(losses);
  };
  assert.equal(curve(9), curve(9));
  assert.notEqual(curve(9), curve(10));
  const batch = Int32Array.from([3, 1, 4, 1, 5, 9, 2, 6]);
  assert.equal(curve(9, batch), curve(9, batch));
});

test("the start is the seed's mulberry32 draws as documented: unit rows, W1 and W2 in +-1/sqrt(fan_in), b1 0", () => {
  for (const seed of [1, 77]) {
    const m = ffn.createMemoryModel(small({ seed }));
    try {
      const next = rng(seed);
      const { d, dff } = small();
      const f32 = (n, f) => Float32Array.from({ length: n }, f);
      const unit = (rows) => {
        const x = f32(rows * d, () => -1 + 2 * next());
        for (let i = 0; i < rows * d; i += d) {
          let ss = 0;
          for (let j = i; j < i + d; j++) ss += x[j] * x[j];
          for (let j = i; j < i + d; j++) x[j] *= 1 / Math.sqrt(ss);
        }
        return x;
      };
      const want = { E_subject: unit(13), E_relation: unit(3), U: unit(9) };
      want.W1 = f32(d * dff, () => -1 / Math.sqrt(d) + (2 / Math.sqrt(d)) * next());
      want.b1 = new Float32Array(dff);
      want.W2 = f32(dff * d, () => -1 / Math.sqrt(dff) + (2 / Math.sqrt(dff)) * next());
      const got = m.copyWeights();
      for (const [k, w] of Object.entries(want)) assert.deepEqual(got[k], w, `seed ${seed}: ${k}`);
    } finally {
      m.dispose();
    }
  }
});

test('warmUp writes the scratch in budgeted calls, true once done, and changes no result', () => {
  const big = { n: 400, subjects: 97, relations: 5, objects: 61 };
  const opts = { facts: syntheticFacts(big), nSubjects: 97, nRelations: 5, nObjects: 61, d: 64, dff: 256 };
  const [a, b] = [ffn.createMemoryModel(opts), ffn.createMemoryModel(opts)];
  try {
    a.train(1); // scratch holding a step's leftovers: warmUp overwrites it, and the steps after do not care
    b.train(1);
    let calls = 0;
    while (!a.warmUp(0)) calls++;
    assert.ok(calls >= 1, `several budgeted calls for a scratch of this size (${calls + 1})`);
    assert.equal(a.warmUp(), true);
    const ra = a.train(3);
    const rb = b.train(3);
    assert.deepEqual(ra, rb);
    const [wa, wb] = [a.copyWeights(), b.copyWeights()];
    for (const k of ['W1', 'b1', 'W2']) assert.deepEqual(wa[k], wb[k], k);
  } finally {
    a.dispose();
    b.dispose();
  }
  assert.throws(() => a.warmUp(), /memoryModel\.warmUp: this model was disposed/);
});

test('reset(seed) gives the curve of a fresh model; snapshot/restore is bit-exact', () => {
  const a = ffn.createMemoryModel(small({ seed: 4 }));
  const b = ffn.createMemoryModel(small({ seed: 2 }));
  b.train(5);
  b.reset(4);
  assert.equal(b.step, 0);
  const la = [a.train(3).loss, a.train(1).loss];
  const lb = [b.train(3).loss, b.train(1).loss];
  assert.deepEqual(lb, la);
  const token = a.snapshot();
  const before = a.copyWeights();
  const next = a.train(2).loss;
  assert.notDeepEqual(a.copyWeights().W2, before.W2);
  a.restore(token);
  assert.equal(a.step, 4);
  for (const k of ['W1', 'b1', 'W2']) assert.deepEqual(a.copyWeights()[k], before[k], k);
  assert.equal(a.train(2).loss, next, 'moments restored too: the same next steps');
  assert.throws(() => a.restore(b.snapshot()), /memoryModel\.restore: token must be a snapshot\(\) of this model/);
  a.dispose();
  b.dispose();
});

test('inspection: inputOf, hidden, logitsOf, keys agree with the float64 forward', () => {
  const opts = small({ seed: 8 });
  const m = ffn.createMemoryModel(opts);
  m.train(4);
  const w = m.copyWeights();
  const d = 12;
  const dff = 20;
  const [s, q, o] = opts.facts.slice(15, 18);
  const x = Array.from({ length: d }, (_, k) => w.E_subject[s * d + k] + w.E_relation[q * d + k]);
  near(m.inputOf(5), x, () => 1e-7, 'inputOf');
  const A = Array.from({ length: dff }, (_, j) =>
    Math.max(
      0,
      x.reduce((a, xk, k) => a + xk * w.W1[k * dff + j], w.b1[j]),
    ),
  );
  near(m.hidden(5), A, () => 1e-5, 'hidden(5)');
  near(m.hidden(x), A, () => 1e-5, 'hidden(x)');
  near(m.keys().subarray(5 * dff, 6 * dff), A, () => 1e-5, 'keys() row 5');
  const y = x.map((xk, k) => A.reduce((a, aj, j) => a + aj * w.W2[j * d + k], xk));
  const z = Array.from({ length: 9 }, (_, v) => y.reduce((a, yk, k) => a + yk * w.U[v * d + k], 0));
  near(m.logitsOf(5), z, () => 1e-5, 'logitsOf(5)');
  assert.equal(m.evaluate().predictions[5], z.indexOf(Math.max(...z)));
  const views = m.weights();
  assert.equal(views.W1.buffer, views.W2.buffer, 'weights() are views of one wasm memory');
  assert.equal(o >= 0, true);
  m.dispose();
});

test('keys(from, to): the rows of facts from..to-1, the float64 forward and the bits of keys()', () => {
  const opts = small({ seed: 8 });
  const m = ffn.createMemoryModel(opts);
  m.train(3);
  const w = m.copyWeights();
  const [d, dff, N] = [12, 20, SMALL.n];
  const row = (f) => {
    const [s, q] = opts.facts.slice(3 * f, 3 * f + 2);
    const x = Array.from({ length: d }, (_, k) => w.E_subject[s * d + k] + w.E_relation[q * d + k]);
    return Array.from({ length: dff }, (_, j) =>
      Math.max(
        0,
        x.reduce((a, xk, k) => a + xk * w.W1[k * dff + j], w.b1[j]),
      ),
    );
  };
  near(m.keys(7, 9).subarray(dff), row(8), () => 1e-5, 'keys(7, 9) row 8');
  near(m.keys(N - 1), row(N - 1), () => 1e-5, 'keys(N - 1), the last row');
  const all = new Uint32Array(m.keys().buffer);
  for (const [a, b] of [
    [0, 1],
    [3, 11],
    [5, N],
    [0, N],
  ]) {
    assert.deepEqual(new Uint32Array(m.keys(a, b).buffer), all.slice(a * dff, b * dff), `keys(${a}, ${b})`);
  }
  assert.equal(m.keys(4, 4).length, 0);
  assert.throws(() => m.keys(5, 3), { name: 'RangeError', message: /to must be an integer from 5 to 37; got 3/ });
  assert.throws(() => m.keys(-1), { name: 'RangeError', message: /from must be an integer from 0 to 37/ });
  assert.throws(() => m.keys('2'), { name: 'TypeError', message: /from must be/ });
  near(m.keys(5, 6), row(5), () => 1e-5, 'still usable');
  m.dispose();
});

test('a non-finite loss stops training, reports finite:false, and the model stays usable', () => {
  const m = ffn.createMemoryModel(small({ optimizer: { lr: 1e30 } }));
  const res = m.train(10);
  assert.equal(res.finite, false);
  assert.ok(Number.isNaN(res.loss) || !Number.isFinite(res.loss));
  assert.ok(res.step < 10, `stopped at step ${res.step}`);
  const w = m.copyWeights();
  assert.ok([...w.W1, ...w.b1, ...w.W2].every(Number.isFinite), 'no update from the non-finite step');
  m.reset();
  const again = m.train(1);
  assert.equal(again.finite, true);
  m.dispose();
});

test('bad arguments: TypeError/RangeError naming the argument; nothing leaks', () => {
  const heap0 = ffn.heapStats().heapInUse;
  const f = syntheticFacts(SMALL);
  const bad = (o, re, type = RangeError) =>
    assert.throws(() => ffn.createMemoryModel(small(o)), { name: type.name, message: re });
  bad({ facts: [0, 0, 1.5] }, /facts\[2\] \(the object of fact 0\) must be an integer id >= 0; got 1.5/);
  bad({ facts: [0, 0, 9] }, /facts\[2\] \(the object of fact 0\) is 9 but must be below nObjects = 9/);
  bad({ facts: [0, 'a', 1] }, /facts\[1\] must be an integer id; got the string "a"/, TypeError);
  bad({ facts: [0, 0] }, /facts must hold \(subject, relation, object\) triples; got 2 ids/);
  bad({ facts: { subjects: [0], relations: [0, 1], objects: [0] } }, /one length; got 1, 2 and 1/);
  bad({ facts: new Int32Array(3 * 4097) }, /facts must hold from 1 to 4096 facts; got 4097/);
  bad({ d: 513 }, /createMemoryModel: d must be an integer from 1 to 512; got 513/);
  bad({ dff: 4097 }, /createMemoryModel: dff must be an integer from 1 to 4096; got 4097/);
  bad({ nObjects: 4097 }, /nObjects must be an integer from 1 to 4096; got 4097/);
  bad({ activation: 'tanh' }, /unknown activation 'tanh'/);
  for (const lr of [0, -1, NaN, Infinity]) bad({ optimizer: { lr } }, /optimizer\.lr must be a finite number > 0/);
  bad({ optimizer: { lr: '0.1' } }, /optimizer\.lr must be a finite number > 0; got the string/, TypeError);
  bad({ optimizer: { beta2: 1 } }, /optimizer\.beta2 must be a finite number >= 0 and < 1; got 1/);
  const m = ffn.createMemoryModel(small());
  const rangeErr = (fn, re) => assert.throws(fn, { name: 'RangeError', message: re });
  rangeErr(() => m.train(0), /memoryModel\.train: steps must be an integer from 1 to 1000000; got 0/);
  rangeErr(() => m.train(1, { batch: [0, 37] }), /opts\.batch\[1\] must be an integer from 0 to 36; got 37/);
  rangeErr(() => m.train(1, { batch: [] }), /opts\.batch must hold from 1 to 37 fact indices; got 0/);
  rangeErr(() => m.trainSgd(1, { lr: -0.1 }), /memoryModel\.trainSgd: opts\.lr must be a finite number > 0/);
  rangeErr(() => m.hidden(37), /memoryModel\.hidden: factIndex must be an integer from 0 to 36; got 37/);
  rangeErr(() => m.hidden(new Float32Array(11)), /memoryModel\.hidden: x must hold d = 12 numbers; got 11/);
  rangeErr(() => m.setWeights({ b1: new Float32Array(19) }), /weights\.b1 must hold 20 numbers; got 19/);
  rangeErr(() => m.setWeights({ b1: new Float32Array(20).fill(NaN) }), /weights\.b1\[0\] must be finite; got NaN/);
  rangeErr(() => m.warmUp(-1), /memoryModel\.warmUp: budgetMs must be a finite number >= 0; got -1/);
  assert.throws(() => m.warmUp('5'), { name: 'TypeError', message: /budgetMs must be a finite number >= 0; got the/ });
  assert.equal(m.train(2).finite, true, 'still usable after the refusals');
  m.dispose();
  assert.throws(() => m.train(1), /memoryModel\.train: this model was disposed/);
  assert.equal(f.length, 111);
  assert.equal(ffn.heapStats().heapInUse, heap0);
});

test('no leak over 10,000 create/step/dispose cycles; refused sizes leave nothing behind', () => {
  const facts = syntheticFacts({ n: 6, subjects: 3, relations: 2, objects: 4 });
  const o = { facts, d: 4, dff: 8 };
  ffn.createMemoryModel(o).dispose();
  const before = ffn.heapStats();
  for (let i = 0; i < 10000; i++) {
    const m = ffn.createMemoryModel({ ...o, seed: i });
    m.train(1, i % 2 ? { batch: [i % 6] } : undefined);
    if (i % 1000 === 0) m.evaluate();
    m.dispose();
  }
  const after = ffn.heapStats();
  assert.equal(after.heapInUse, before.heapInUse);
  assert.equal(after.growths, before.growths);
});

test('rankOneUpdate and spdSolve match float64; bad input named; the heap back to its start', () => {
  const heap0 = ffn.heapStats().heapInUse;
  const r = rng(17);
  const [M, N, n] = [7, 13, 9];
  const W = Float32Array.from({ length: M * N }, () => r() - 0.5);
  const u = Float32Array.from({ length: M }, () => r() - 0.5);
  const v = Float32Array.from({ length: N }, () => r() - 0.5);
  const out = ffn.rankOneUpdate({ data: W, shape: [M, N] }, u, v, 0.75);
  assert.deepEqual(out.shape, [M, N]);
  near(
    out.data,
    Array.from(W, (w, k) => w + 0.75 * u[Math.floor(k / N)] * v[k % N]),
    () => 3e-7,
    'W + a u v^T',
  );
  // A = R R^T + I (symmetric positive definite), B (n, 2): X against a float64 Gaussian elimination of A X = B
  const R = Array.from({ length: n * n }, () => r() - 0.5);
  const A = new Float32Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      A[i * n + j] = (i === j) + R.slice(i * n, i * n + n).reduce((s, x, k) => s + x * R[j * n + k], 0);
  const B = Float32Array.from({ length: 2 * n }, () => r() - 0.5);
  const X = ffn.spdSolve({ data: A, shape: [n, n] }, { data: B, shape: [n, 2] });
  const want = solve64(A, B, n, 2);
  near(X.data, want, (i) => 1e-5 * (1 + Math.abs(want[i])), 'spdSolve');
  assert.deepEqual(ffn.spdSolve({ data: A, shape: [n, n] }, B.subarray(0, n)).shape, [n]);
  const notPd = { data: Float32Array.from(A, (a, k) => (k === 0 ? -1 : a)), shape: [n, n] };
  assert.throws(() => ffn.spdSolve(notPd, B.subarray(0, n)), {
    name: 'RangeError',
    message: /spdSolve: A \[9,9\] is not positive definite/,
  });
  assert.throws(() => ffn.spdSolve({ data: A, shape: [n, n] }, new Float32Array(n + 1)), /B has shape \[10\]/);
  assert.throws(() => ffn.rankOneUpdate({ data: W, shape: [M, N] }, v, v), /rankOneUpdate: u has shape \[13\]/);
  assert.throws(() => ffn.rankOneUpdate({ data: W, shape: [M, N] }, u, v, NaN), /alpha must be a finite number/);
  assert.equal(ffn.heapStats().heapInUse, heap0);
});

/** A X = B (n x n, n x k) by Gaussian elimination with partial pivoting in float64. */
function solve64(A, B, n, k) {
  const a = Array.from({ length: n }, (_, i) => [
    ...Array.from(A.slice(i * n, i * n + n)),
    ...B.slice(i * k, i * k + k),
  ]);
  for (let c = 0; c < n; c++) {
    const p = a.reduce((best, row, i) => (i >= c && Math.abs(row[c]) > Math.abs(a[best][c]) ? i : best), c);
    [a[c], a[p]] = [a[p], a[c]];
    for (let i = 0; i < n; i++) {
      if (i === c) continue;
      const f = a[i][c] / a[c][c];
      for (let j = c; j < n + k; j++) a[i][j] -= f * a[c][j];
    }
  }
  return a.flatMap((row, i) => row.slice(n).map((x) => x / a[i][i]));
}
