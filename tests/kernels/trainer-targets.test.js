// createMemoryModel's opts.targets: steps on chosen facts toward other objects than the data's (the memory lab's
// fine-tuning), against the float64 reference step on those facts with those objects; its refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ffn from 'ffn-lab';
import { syntheticFacts, referenceStep } from '../helpers/memory-model.js';

await ffn.ready({ relaxed: false });

const D = 12;
const DFF = 20;
const FACTS = syntheticFacts({ n: 37, subjects: 13, relations: 3, objects: 9 });
const small = (o = {}) => ({ facts: FACTS, nSubjects: 13, nRelations: 3, nObjects: 9, d: D, dff: DFF, ...o });
const params = (w) => Float64Array.from([...w.W1, ...w.b1, ...w.W2]);
const grads = (g) => Float64Array.from([...g.gW1, ...g.gb1, ...g.gW2]);

/** The triples of facts `batch` (indices into FACTS) with the objects `targets` in place of theirs. */
function retargeted(batch, targets) {
  const out = new Int32Array(3 * batch.length);
  batch.forEach((f, k) => out.set([FACTS[3 * f], FACTS[3 * f + 1], targets[k]], 3 * k));
  return out;
}

test('one SGD step with targets is the float64 step on those facts with those objects (every activation)', () => {
  const batch = [4, 30, 11];
  const targets = [2, 8, FACTS[3 * 11 + 2]]; // two facts retargeted, one kept as the data has it
  assert.notEqual(targets[0], FACTS[3 * 4 + 2]);
  for (const activation of ['relu', 'gelu', 'gelu_tanh', 'silu', 'gelu_sigmoid', 'identity']) {
    const m = ffn.createMemoryModel(small({ activation, seed: 11 }));
    m.train(5); // off the initial weights, so that every memory has a gradient
    const w = m.copyWeights();
    const want = referenceStep(w, retargeted(batch, targets), { d: D, dff: DFF, activation });
    const lr = 0.25;
    const res = m.trainSgd(1, { batch: Int32Array.from(batch), targets, lr });
    assert.ok(Math.abs(res.loss - want.loss) <= 1e-5 * want.loss, `${activation}: loss ${res.loss} vs ${want.loss}`);
    assert.equal(res.correct, want.correct, `${activation}: correct`);
    const g = grads(want);
    const scale = g.reduce((a, v) => Math.max(a, Math.abs(v)), 0);
    const p0 = params(w);
    const got = params(m.copyWeights()).map((p, i) => (p0[i] - p) / lr);
    for (let i = 0; i < g.length; i++) {
      const tol = (2 * 2 ** -23 * Math.max(Math.abs(p0[i]), 1e-30)) / lr + 1e-5 * scale;
      if (!(Math.abs(got[i] - g[i]) <= tol)) assert.fail(`${activation} grad[${i}]: ${got[i]} vs float64 ${g[i]}`);
    }
    m.dispose();
  }
});

test('targets for one call only: the next step without them teaches the data again; AdamW takes them too', () => {
  const a = ffn.createMemoryModel(small({ seed: 4 }));
  const b = ffn.createMemoryModel(small({ seed: 4 }));
  a.train(1, { batch: [0, 1], targets: [FACTS[2], FACTS[5]] }); // the data's own objects: the same as no targets
  b.train(1, { batch: [0, 1] });
  assert.deepEqual(a.copyWeights().W2, b.copyWeights().W2);
  const full = Array.from({ length: 37 }, (_, i) => FACTS[3 * i + 2]);
  full[3] = (full[3] + 1) % 9;
  const w = a.copyWeights();
  const want = referenceStep(w, retargeted([...full.keys()], full), { d: D, dff: DFF, activation: 'relu' });
  const res = a.trainSgd(1, { targets: full, lr: 0.1 }); // no batch: a target for every fact
  assert.ok(Math.abs(res.loss - want.loss) <= 1e-5 * want.loss);
  const plain = referenceStep(a.copyWeights(), FACTS, { d: D, dff: DFF, activation: 'relu' });
  assert.ok(Math.abs(a.trainSgd(1, { lr: 0.1 }).loss - plain.loss) <= 1e-5 * plain.loss, 'the data again');
  a.dispose();
  b.dispose();
});

test('fine-tuning one fact with targets flips it, for every activation', () => {
  for (const activation of ['relu', 'gelu', 'silu']) {
    const m = ffn.createMemoryModel(small({ activation, seed: 2 }));
    m.train(60);
    const f = 7;
    const to = (FACTS[3 * f + 2] + 4) % 9;
    let steps = 0;
    const argmax = (v) => v.reduce((b, x, i) => (x > v[b] ? i : b), 0);
    while (argmax(m.logitsOf(f)) !== to && steps < 200) {
      m.trainSgd(1, { batch: [f], targets: [to], lr: 0.1 });
      steps++;
    }
    assert.equal(argmax(m.logitsOf(f)), to, `${activation}: not flipped in ${steps} steps`);
    m.dispose();
  }
});

test('bad targets: TypeError/RangeError naming opts.targets; nothing changes, nothing leaks', () => {
  const heap0 = ffn.heapStats().heapInUse;
  const m = ffn.createMemoryModel(small());
  const w = m.copyWeights();
  const err = (o, re, type = RangeError) => assert.throws(() => m.trainSgd(1, o), { name: type.name, message: re });
  const pre = /^memoryModel\.trainSgd: /;
  assert.throws(() => m.trainSgd(1, { targets: 3 }), { name: 'TypeError', message: pre });
  err({ targets: 3 }, /opts\.targets must be an array or typed array of object ids; got number 3/, TypeError);
  err({ batch: [1, 2], targets: [0] }, /opts\.targets must hold one object id per fact of opts\.batch, 2; got 1/);
  err({ targets: [0, 1] }, /opts\.targets must hold one object id per fact \(no opts\.batch: every fact\), 37; got 2/);
  err({ batch: [1], targets: [9] }, /opts\.targets\[0\] must be an integer from 0 to 8; got 9/);
  err({ batch: [1], targets: [-1] }, /opts\.targets\[0\] must be an integer from 0 to 8; got -1/);
  err({ batch: [1], targets: [NaN] }, /opts\.targets\[0\] must be an integer from 0 to 8; got NaN/);
  err(
    { batch: [1], targets: ['2'] },
    /opts\.targets\[0\] must be an integer from 0 to 8; got the string "2"/,
    TypeError,
  );
  err(
    { batch: [5, 6, 5], targets: [1, 2, 3] },
    /opts\.targets\[2\] is 3 but opts\.targets\[0\] is 1, for the same fact 5/,
  );
  assert.throws(() => m.train(1, { batch: [1], targets: [9] }), /^RangeError: memoryModel\.train: opts\.targets\[0\]/);
  assert.equal(m.step, 0);
  assert.deepEqual(m.copyWeights().W2, w.W2, 'a refused call changes nothing');
  assert.equal(m.trainSgd(1, { batch: [5, 6, 5], targets: [1, 2, 1] }).finite, true, 'one fact twice, one object');
  m.dispose();
  assert.equal(ffn.heapStats().heapInUse, heap0);
});
