// Grading against wrong learner code written by hand (issue 15): hidden tests that catch each class, right diagnoses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gradeExercise, checkExercise, getExercise, exercises } from 'ffn-lab/sandbox';

const solution = (id) => getExercise(id).solution;

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
const messages = (r) => r.diagnoses.map((d) => `${d.title}: ${d.message}`).join('\n');

test('hidden tests catch naive formulas that overflow, forward and backward', async () => {
  // SiLU as z·eᶻ/(1 + eᶻ): NaN once z passes about 710.
  const swiglu = await gradeExercise(
    'swiglu',
    withFunction(
      'swiglu',
      'silu',
      `function silu(z) {
  return (z * Math.exp(z)) / (1 + Math.exp(z));
}`,
    ),
  );
  assert.equal(swiglu.passed, false);
  assert.ok(
    failing(swiglu).every((n) => n.startsWith('swigluFfn')),
    failing(swiglu).join(),
  );

  // SiLU′ through exp(-z): NaN below about -710.
  const backSlope = await gradeExercise(
    'swiglu-backward',
    solution('swiglu-backward').replace(
      'return s * (1 + g * (1 - s));',
      'const e = Math.exp(-g);\n    return 1 / (1 + e) + (g * e) / ((1 + e) * (1 + e));',
    ),
  );
  assert.equal(backSlope.passed, false);

  // The backward pass's forward SiLU as g·eᵍ/(1 + eᵍ): NaN above about 710.
  const backForward = await gradeExercise(
    'swiglu-backward',
    solution('swiglu-backward').replace(
      'const A = map(G, (g) => g * sigmoid(g));',
      'const A = map(G, (g) => (g * Math.exp(g)) / (1 + Math.exp(g)));',
    ),
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
  const r = await gradeExercise(
    'memories',
    solution('memories').replace(
      'const order = range(coef.data.length).sort((i, j) => coef.data[j] - coef.data[i]);\n' +
        '  const top = order.slice(0, k);',
      'const order = range(coef.data.length).sort((i, j) => coef.data[i] - coef.data[j] || j - i);\n' +
        '  const top = order.slice(-k).reverse();',
    ),
  );
  assert.equal(r.passed, false);
  assert.deepEqual(failing(r).length, 1);
  assert.match(failing(r)[0], /k = 0/);
});

test('checkExercise checks the hidden-test rule: the six meet it, and a gap is reported by name', async () => {
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
