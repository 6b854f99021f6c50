// checkExercise: what an author runs before publishing: solution, variants and determinism over several seeds.
import * as defaultApi from '../ffn.js';
import { resolveExercise, generateTests, validateValues, ExerciseDefinitionError } from './exercises/index.js';
import { gradeExercise, gradeValues } from './grade.js';

/** Deep equality of generated data (typed arrays elementwise, NaN equal to NaN). */
function sameData(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== typeof b || !a || !b || typeof a !== 'object') return false;
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) {
    if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b) || a.constructor !== b.constructor || a.length !== b.length)
      return false;
    for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameData(a[k], b[k]));
}

/** A value a learner could have returned for an expected spec (the reference's answer). */
function specValue(spec) {
  switch (spec.kind) {
    case 'tensor':
      return { data: spec.data, shape: spec.shape };
    case 'integers':
      return Array.from(spec.data);
    case 'object':
      return Object.fromEntries(Object.entries(spec.entries).map(([k, s]) => [k, specValue(s)]));
    default:
      return spec.value;
  }
}

const quote = (s) => `"${String(s).slice(0, 80)}"`;

/**
 * Check an exercise (an id, a defined exercise or a definition, which is not registered) the way the built-ins
 * are checked. Resolves to { ok, exercise, seeds, tests, variants, problems: [{ field, seed, message }], text };
 * a structurally invalid definition throws its ExerciseDefinitionError instead.
 * options: { seeds = [1, 2, 3], api, ready, timeout = 10000 (ms for each run of the reference solution), workerUrl }
 */
export async function checkExercise(what, options = {}) {
  const exercise = resolveExercise(what);
  const { seeds = [1, 2, 3], api = defaultApi, timeout = 10000, workerUrl } = options;
  if (!Array.isArray(seeds) || !seeds.length || !seeds.every(Number.isInteger)) {
    throw new TypeError(
      `checkExercise: seeds must be a non-empty array of integers; got ${String(seeds).slice(0, 40)}`,
    );
  }
  await api.ready(options.ready);
  const problems = [];
  const add = (field, seed, message) => problems.push({ field, seed, message });
  const counts = [];
  const finish = () => {
    const ok = problems.length === 0;
    const verdict = ok ? 'ok' : `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
    const head = `checkExercise(${quote(exercise.id)}): ${verdict}`;
    const facts =
      `${seeds.length} seed${seeds.length === 1 ? '' : 's'} (${seeds.join(', ')}), ` +
      `${counts.length ? counts.join('/') : '?'} tests per seed, ${exercise.variants.length} variants`;
    const lines = problems.map((p) => `  - ${p.field}${p.seed !== null ? ` (seed ${p.seed})` : ''}: ${p.message}`);
    return {
      ok,
      exercise: exercise.id,
      seeds: seeds.slice(),
      tests: counts.slice(),
      variants: exercise.variants.length,
      problems,
      text: [`${head}: ${facts}`, ...lines].join('\n'),
    };
  };
  try {
    validateValues(exercise, api);
  } catch (e) {
    if (!(e instanceof ExerciseDefinitionError)) throw e;
    add(e.field, null, e.message);
    return finish();
  }
  for (const seed of seeds) {
    let tests;
    try {
      tests = generateTests(exercise, seed, api);
    } catch (e) {
      if (!(e instanceof ExerciseDefinitionError)) throw e;
      add(e.field, seed, e.message);
      continue;
    }
    counts.push(tests.length);
    const again = generateTests(exercise, seed, api);
    const differing = tests.filter(
      (t, i) => !again[i] || !sameData(t.args, again[i].args) || !sameData(t.expected, again[i].expected),
    );
    if (again.length !== tests.length || differing.length) {
      const which = differing.length ? `; first ${quote(differing[0].name)}` : '';
      add(
        'tests',
        seed,
        `not deterministic: two generations with this seed differ${which} (draw every random number from rng)`,
      );
    }

    const report = await gradeExercise(exercise, exercise.solution, { seed, api, timeout, workerUrl });
    if (!report.passed) {
      const failing = report.tests
        .filter((t) => !t.pass)
        .slice(0, 3)
        .map((t) => `${quote(t.name)}: ${t.message || t.status}`);
      add(
        'solution',
        seed,
        `the reference solution does not pass: ${report.summary}${failing.length ? ` ${failing.join('; ')}` : ''}`,
      );
    }

    exercise.variants.forEach((v, i) => {
      const field = `variants[${i}] (${quote(v.id)})`;
      const values = tests.map((t) => {
        if (t.fn !== v.fn) return specValue(t.expected);
        try {
          return v.compute(t.args, api);
        } catch {
          return specValue(t.expected); // no evidence on this test
        }
      });
      const { outcomes, diagnoses } = gradeValues(exercise, tests, values, api);
      if (outcomes.every((o) => o.pass)) {
        add(field, seed, 'passes every hidden test: add a test on which this mistake shows');
        return;
      }
      const ids = diagnoses.map((d) => d.id);
      if (ids.length !== 1 || ids[0] !== v.id) {
        add(field, seed, `fails, but is diagnosed as ${ids.length ? ids.join(' + ') : 'nothing'}, not as itself`);
      }
    });
  }
  return finish();
}
