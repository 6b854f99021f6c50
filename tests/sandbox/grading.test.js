// Grading against wrong learner code written by hand (issue 15): hidden tests that catch each class, right diagnoses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gradeExercise, checkExercise, getExercise, exercises } from 'ffn-lab/sandbox';
import { mutate } from '../helpers/sandbox-variants.js';
import { assertPassed } from '../helpers/report.js';

const solution = (id) => getExercise(id).solution;
/** Grade the reference solution with one edit (`from` must occur exactly once). */
const gradeEdit = (id, from, to) => gradeExercise(id, mutate(solution(id), from, to));

/** The reference solution with one function replaced by a learner's (the function's whole text). */
function withFunction(id, name, text) {
  const src = solution(id);
  const start = src.indexOf(`function ${name}(`);
  assert.ok(start >= 0, `${id} has ${name}`);
  let end = src.indexOf('\nfunction ', start + 1);
  if (end < 0) end = src.length;
  return `${src.slice(0, start)}${text}\n${src.slice(end)}`;
}

const failing = (r) => r.tests.filter((t) => !t.pass).map((t) => t.name);
const messages = (r) => r.diagnoses.map((d) => `${d.title.text}: ${d.message.text}`).join('\n');

// Wrong solutions used by more than one test, written as a learner would.
const NAIVE_SILU = () =>
  withFunction('swiglu', 'silu', 'function silu(z) {\n  return (z * Math.exp(z)) / (1 + Math.exp(z));\n}');
const NAIVE_SILU_SLOPE = () =>
  mutate(
    solution('swiglu-backward'),
    'return s * (1 + g * (1 - s));',
    'const e = Math.exp(-g);\n    return 1 / (1 + e) + (g * e) / ((1 + e) * (1 + e));',
  );

test('hidden tests catch naive formulas that overflow, forward and backward', async () => {
  // SiLU as z·eᶻ/(1 + eᶻ): NaN once z passes about 710.
  const swiglu = await gradeExercise('swiglu', NAIVE_SILU());
  assert.equal(swiglu.passed, false);
  assert.ok(
    failing(swiglu).every((n) => n.startsWith('swigluFfn')),
    failing(swiglu).join(),
  );

  // SiLU′ through exp(-z): NaN below about -710.
  const backSlope = await gradeExercise('swiglu-backward', NAIVE_SILU_SLOPE());
  assert.equal(backSlope.passed, false);

  // The backward pass's forward SiLU as g·eᵍ/(1 + eᵍ): NaN above about 710.
  const backForward = await gradeEdit(
    'swiglu-backward',
    'const A = map(G, (g) => g * sigmoid(g));',
    'const A = map(G, (g) => (g * Math.exp(g)) / (1 + Math.exp(g)));',
  );
  assert.equal(backForward.passed, false);

  // tanh written with exp(2u): NaN once u passes about 355 (a pre-activation of about 21).
  const ffn = await gradeExercise(
    'ffn',
    withFunction(
      'ffn',
      'geluTanhScalar',
      `function geluTanhScalar(z) {
  const u = Math.sqrt(2 / Math.PI) * (z + 0.044715 * z * z * z);
  const e = Math.exp(2 * u);
  return 0.5 * z * (1 + (e - 1) / (e + 1));
}`,
    ),
  );
  assert.equal(ffn.passed, false);
  assert.ok(
    failing(ffn).every((n) => n.startsWith('ffn:')),
    failing(ffn).join(),
  );

  // and the same tanh in the warm-up
  const gelu = await gradeExercise(
    'gelu',
    withFunction(
      'gelu',
      'geluTanh',
      `function geluTanh(x) {
  const c = Math.sqrt(2 / Math.PI);
  return map(x, (z) => {
    const e = Math.exp(2 * c * (z + 0.044715 * z ** 3));
    return 0.5 * z * (1 + (e - 1) / (e + 1));
  });
}`,
    ),
  );
  assert.equal(gelu.passed, false);
});

test('hidden tests check each rounding step of the LLaMA rule on its own', async () => {
  const width = (body) =>
    gradeExercise(
      'swiglu',
      withFunction(
        'swiglu',
        'llamaHiddenDim',
        `function llamaHiddenDim(d, multipleOf = 256, ffnDimMultiplier = null) {\n${body}\n}`,
      ),
    );
  // the first int(...) skipped before the multiplier
  const noFirstInt = await width(`  let hidden = (2 * (4 * d)) / 3;
  hidden = Math.trunc(ffnDimMultiplier != null ? ffnDimMultiplier * hidden : hidden);
  return multipleOf * Math.ceil(hidden / multipleOf);`);
  assert.equal(noFirstInt.passed, false);
  // the multiplier's own int(...) skipped
  const noSecondInt = await width(`  let hidden = Math.trunc((2 * (4 * d)) / 3);
  if (ffnDimMultiplier != null) hidden = ffnDimMultiplier * hidden;
  return multipleOf * Math.ceil(hidden / multipleOf);`);
  assert.equal(noSecondInt.passed, false);
  // "round up" that always adds a multiple, even when the width is one already
  const pastMultiple = await width(`  let hidden = Math.trunc((2 * (4 * d)) / 3);
  if (ffnDimMultiplier != null) hidden = Math.trunc(ffnDimMultiplier * hidden);
  return multipleOf * (Math.floor(hidden / multipleOf) + 1);`);
  assert.equal(pastMultiple.passed, false);
  for (const r of [noFirstInt, noSecondInt, pastMultiple]) {
    assert.ok(
      failing(r).every((n) => n.startsWith('llamaHiddenDim')),
      failing(r).join(),
    );
  }
});

test('hidden tests cover boundary arguments: k = 0 in ffnMemories', async () => {
  // Ascending order with ties by the higher index, then the last k reversed: right for every k but 0.
  const r = await gradeEdit(
    'memories',
    'const order = range(coef.data.length).sort((i, j) => coef.data[j] - coef.data[i]);\n' +
      '  const top = order.slice(0, k);',
    'const order = range(coef.data.length).sort((i, j) => coef.data[i] - coef.data[j] || j - i);\n' +
      '  const top = order.slice(-k).reverse();',
  );
  assert.equal(r.passed, false);
  assert.deepEqual(failing(r).length, 1);
  assert.match(failing(r)[0], /k = 0/);
});

test('a variant is named only when it explains every failing test: the gqa-budget misdiagnosis is gone', async () => {
  const forgotWO = await gradeEdit('gqa-budget', 'const attention = q + kv + o;', 'const attention = q + kv;');
  const kvAsOne = await gradeEdit(
    'gqa-budget',
    'const kv = 2 * d * nKvHeads * dHead;',
    'const kv = d * nKvHeads * dHead;',
  );
  for (const r of [forgotWO, kvAsOne]) {
    assert.equal(r.passed, false);
    assert.ok(!r.diagnoses.some((d) => d.id === 'gqa-d-for-heads'), messages(r));
    assert.ok(!r.diagnoses.some((d) => /used d for the attention width/.test(d.message.text)), messages(r));
    // what is said instead points at the wrong field
    assert.match(messages(r), /attention/);
    assert.match(messages(r), /ffn is right/);
  }
  // a real d-for-heads mistake is still named, with every failing test explained
  const dForHeads = await gradeExercise(
    'gqa-budget',
    solution('gqa-budget')
      .replace('const q = d * nHeads * dHead;', 'const q = d * d;')
      .replace('const o = nHeads * dHead * d;', 'const o = d * d;')
      .replace('const kv = 2 * d * nKvHeads * dHead;', 'const kv = 2 * d * (d / nHeads) * nKvHeads;'),
  );
  assert.deepEqual(
    dForHeads.diagnoses.map((d) => d.id),
    ['gqa-d-for-heads'],
  );
  assert.equal(dForHeads.diagnoses[0].explained, dForHeads.diagnoses[0].failing);
});

test('indices are reported as indices: "2nd strongest: got memory 4, expected memory 1"', async () => {
  // A boolean comparator (a classic sort mistake): the order it gives is not the ranking.
  const r = await gradeEdit(
    'memories',
    'sort((i, j) => coef.data[j] - coef.data[i])',
    'sort((i, j) => coef.data[j] > coef.data[i])',
  );
  assert.equal(r.passed, false);
  const top = r.tests.filter((t) => !t.pass && t.mismatch && t.mismatch.key === 'top');
  assert.ok(top.length > 0, r.tests.map((t) => t.message?.text).join('\n'));
  for (const t of top) {
    assert.match(t.message.text, /^top: (1st|2nd|3rd|\d+th) strongest: got memory \d+, expected memory \d+/);
    assert.doesNotMatch(t.message.text, /max error/);
  }
});

test('wrong keys: the report lists what came back and suggests the expected spelling', async () => {
  const r = await gradeEdit(
    'swiglu-backward',
    'return { dX, dWGate, dWUp, dWDown };',
    'return { dX, dW_gate: dWGate, dW_up: dWUp, dW_down: dWDown };',
  );
  assert.equal(r.passed, false);
  for (const t of r.tests) {
    assert.match(t.message.text, /expected keys dX, dWGate, dWUp, dWDown; got dX, dW_gate, dW_up, dW_down/);
    assert.match(t.message.text, /dW_gate → dWGate/);
    assert.match(t.message.text, /dW_down → dWDown/);
  }
  assert.match(messages(r), /dW_gate → dWGate/);
});

test('with no variant matching, the report gives a direction from what the failing tests share', async () => {
  // a default argument left out of the signature
  let r = await gradeEdit(
    'ffn',
    'function ffnParamCount(d, dFF, bias = true, gated = false) {',
    'function ffnParamCount(d, dFF, bias, gated) {',
  );
  assert.match(messages(r), /only when bias is left out/);
  assert.match(messages(r), /bias = true/);
  // biases miscounted: only the tests with bias true fail (given or by default)
  r = await gradeEdit('ffn', '(gated ? 2 * dFF : dFF) + d', '(gated ? 2 * dFF : dFF)');
  assert.match(messages(r), /only when bias is true/);
  // a forward pass that handles one or two dimensions only
  r = await gradeExercise(
    'ffn',
    withFunction(
      'ffn',
      'ffn',
      `function ffn(X, W1, b1, W2, b2) {
  const rows = X.shape.length === 1 ? [X] : range(X.shape[0]).map((i) => row(X, i));
  const out = rows.map((x) => add(matmul(map(add(matmul(x, W1), b1), geluTanhScalar), W2), b2));
  return X.shape.length === 1 ? out[0] : tensor(out.map((o) => toArray(o)));
}`,
    ),
  );
  assert.ok(failing(r).length > 0 && failing(r).every((n) => /batch/.test(n)), failing(r).join());
  assert.match(messages(r), /only when X is 3-D/);
  // tanh through exp(-2u): wrong only for large negative inputs
  r = await gradeExercise(
    'gelu',
    withFunction(
      'gelu',
      'geluTanh',
      `function geluTanh(x) {
  const c = Math.sqrt(2 / Math.PI);
  return map(x, (z) => {
    const e = Math.exp(-2 * c * (z + 0.044715 * z ** 3));
    return 0.5 * z * (1 + (1 - e) / (1 + e));
  });
}`,
    ),
  );
  assert.match(messages(r), /only for inputs (at or )?below -\d/);
  assert.match(messages(r), /overflow/);
  // SiLU through eᶻ in the SwiGLU forward: NaN where the expected values are finite
  r = await gradeExercise('swiglu', NAIVE_SILU());
  assert.match(messages(r), /NaN or Infinity where the expected values are finite/);
  assert.match(messages(r), /overflow/);
  // the same for the backward pass's SiLU′, and only some fields are wrong
  r = await gradeExercise('swiglu-backward', NAIVE_SILU_SLOPE());
  assert.match(messages(r), /NaN or Infinity/);
  assert.match(messages(r), /dWUp and dWDown are right/);
});

test('learner code that changes an input in place gets a note, whether or not it passes', async () => {
  const inPlace = await gradeExercise(
    'gelu',
    withFunction(
      'gelu',
      'gelu',
      `function gelu(x) {
  for (let i = 0; i < x.data.length; i++) x.data[i] = 0.5 * x.data[i] * (1 + erf(x.data[i] / Math.SQRT2));
  return x;
}`,
    ),
  );
  assertPassed(inPlace); // the values are right
  assert.equal(inPlace.notes.length, 1);
  assert.match(inPlace.notes[0].text, /gelu changes its argument x in place/);
  const after = await gradeEdit(
    'memories',
    'return { coef, top, partial };',
    'b1.data.fill(0);\n  return { coef, top, partial };',
  );
  assert.match(after.notes.map((n) => n.text).join('\n'), /ffnMemories changes its argument b1 in place/);
  const clean = await gradeExercise('memories', solution('memories'));
  assert.deepEqual(clean.notes, []);
});

test('checkExercise checks the hidden-test rule: the eight meet it, and a gap is reported by name', async () => {
  for (const ex of exercises) {
    const r = await checkExercise(ex, { seeds: [1, 5] });
    assert.deepEqual(
      r.problems.filter((p) => p.field.startsWith('coverage')),
      [],
      r.text,
    );
  }
  // ffnMemories without its k = 0 case, and gelu without the tests where exp or tanh would overflow
  const mem = getExercise('memories');
  const noZero = {
    ...definitionOf(mem),
    id: 'memories-no-zero',
    tests: (rng, api) => mem.tests(rng, api).filter((t) => t.args[4] !== 0),
  };
  let r = await checkExercise(noZero, { seeds: [1] });
  assert.ok(
    r.problems.some((p) => p.field === 'coverage ffnMemories' && /k = 0/.test(p.message)),
    r.text,
  );
  const gelu = getExercise('gelu');
  const small = {
    ...definitionOf(gelu),
    id: 'gelu-small',
    tests: (rng, api) => gelu.tests(rng, api).filter((t) => !/±|NaN|overflow|large/.test(t.name)),
  };
  r = await checkExercise(small, { seeds: [1] });
  assert.ok(
    r.problems.some((p) => p.field === 'coverage gelu' && /beyond ±700/.test(p.message)),
    r.text,
  );
  const ffn = getExercise('ffn');
  const noDefault = {
    ...definitionOf(ffn),
    id: 'ffn-no-default',
    tests: (rng, api) => ffn.tests(rng, api).filter((t) => t.fn !== 'ffnParamCount' || t.args.length === 4),
  };
  r = await checkExercise(noDefault, { seeds: [1] });
  assert.ok(
    r.problems.some((p) => p.field === 'coverage ffnParamCount' && /bias is never left out/.test(p.message)),
    r.text,
  );
});

/** A definition (plain object) rebuilt from a defined exercise, to vary it. */
function definitionOf(ex) {
  const functions = Object.fromEntries(Object.entries(ex.functions).map(([name, f]) => [name, { ...f.declared }]));
  return {
    id: ex.id,
    title: ex.title,
    level: ex.level,
    prompt: ex.prompt,
    functions,
    starter: ex.starter,
    solution: ex.solution,
    hints: [...ex.hints],
    examples: [...ex.examples],
    tolerance: ex.tolerance,
    tests: ex.tests,
    reference: { ...ex.reference },
    variants: ex.variants.map((v) => ({ ...v })),
  };
}
