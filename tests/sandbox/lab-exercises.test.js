// The memory lab's two built-in exercises: value-to-vocab and rank-one-edit pass checkExercise with their named
// mistakes, and their expected values agree with float64 computations written here (the definition of each answer).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from 'ffn-lab';
import { exercises, checkExercise, hiddenTests, gradeExercise } from 'ffn-lab/sandbox';

const byId = (id) => exercises.find((e) => e.id === id);

test('value-to-vocab and rank-one-edit are built-ins that pass checkExercise, with their named mistakes', async () => {
  const named = {
    'value-to-vocab': ['value-column', 'value-ascending'],
    'rank-one-edit': ['rank-one-no-inverse', 'rank-one-k-outer', 'rank-one-transposed'],
  };
  for (const [id, variants] of Object.entries(named)) {
    const ex = byId(id);
    assert.deepEqual(
      ex.variants.map((v) => v.id),
      variants,
    );
    const r = await checkExercise(ex, { seeds: [1, 2, 3] });
    assert.equal(r.ok, true, r.text);
  }
});

test("value-to-vocab's expected indices: the top k of U·W2[i,:], largest first, ties to the lower index", async () => {
  for (const seed of [1, 4]) {
    for (const t of await hiddenTests('value-to-vocab', { seed })) {
      const [W2, U, i, k] = t.args;
      const d = W2.shape[1];
      const scores = Array.from({ length: U.shape[0] }, (_, o) => {
        let s = 0;
        for (let j = 0; j < d; j++) s += W2.data[i * d + j] * U.data[o * d + j];
        return s;
      });
      const want = [];
      const left = new Set(scores.keys());
      for (let n = 0; n < k; n++) {
        let best = -1;
        for (const o of left) if (best < 0 || scores[o] > scores[best]) best = o;
        want.push(best);
        left.delete(best);
      }
      assert.deepEqual(Array.from(t.expected.data), want, t.name);
    }
  }
});

test("rank-one-edit's expected W2' maps k* to v* and moves W2 only along C⁻¹k*", async () => {
  for (const t of await hiddenTests('rank-one-edit', { seed: 1 })) {
    const [W2, C, kStar, vStar] = t.args;
    const [n, d] = W2.shape;
    const out = t.expected.data;
    for (let j = 0; j < d; j++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += kStar.data[i] * out[i * d + j];
      assert.ok(Math.abs(s - vStar.data[j]) < 1e-4 * (1 + Math.abs(vStar.data[j])), `${t.name}: k* W2' = v*`);
    }
    // C (W2' - W2) has every column parallel to k*: the update's rows lie along u = C^-1 k*
    for (let j = 0; j < d; j++) {
      const col = Array.from({ length: n }, (_, a) => {
        let s = 0;
        for (let b = 0; b < n; b++) s += C.data[a * n + b] * (out[b * d + j] - W2.data[b * d + j]);
        return s;
      });
      const ratio = col[0] / kStar.data[0];
      col.forEach((c, a) => assert.ok(Math.abs(c - ratio * kStar.data[a]) < 1e-3, `${t.name}: column ${j}`));
    }
  }
});

test("a learner's transposed update (u[j] r[i] for u[i] r[j]) is named as the update transposed", async () => {
  const { solution } = byId('rank-one-edit');
  const wrong = solution.replace('out[i * d + j] += (u[i] * r[j]) / ku', 'out[i * d + j] += (u[j] * r[i]) / ku');
  assert.notEqual(wrong, solution);
  await api.ready();
  const r = await gradeExercise('rank-one-edit', wrong);
  assert.equal(r.passed, false);
  assert.deepEqual(
    r.diagnoses.map((x) => x.id),
    ['rank-one-transposed'],
  );
});
