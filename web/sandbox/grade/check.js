// checkExercise: what an author runs before publishing: solution, variants and determinism over several seeds.
import * as defaultApi from '../../index.js'; // the wasm bytes inlined: nothing for a bundler or server to place
import {
  resolveExercise,
  generateTests,
  validateValues,
  ExerciseDefinitionError,
  translationsOf,
} from './exercises/index.js';
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

/* ---------------- the hidden-test rule, where the tests' arguments show it ---------------- */

const isTensor = (v) => v !== null && typeof v === 'object' && Array.isArray(v.shape) && v.data && 'length' in v.data;

/** A case's tensor shapes, and the sizes its parameters' declared shapes bind (problems where they disagree). */
function bind(spec, c) {
  const dims = new Map();
  const shapes = [];
  const issues = [];
  spec.params.forEach((p, k) => {
    if (!p.shape || k >= c.args.length) return;
    const arg = c.args[k];
    if (!isTensor(arg)) {
      issues.push(
        `${quote(c.name)}: ${p.name} is declared (${p.shape.join(', ')}) but is not a tensor { data, shape }`,
      );
      return;
    }
    const shape = Array.from(arg.shape);
    shapes[k] = shape;
    const dots = p.shape[0] === '...';
    const fixed = dots ? p.shape.slice(1) : p.shape;
    if (dots ? shape.length < fixed.length : shape.length !== fixed.length) {
      issues.push(`${quote(c.name)}: ${p.name} has shape [${shape}], declared (${p.shape.join(', ')})`);
      return;
    }
    fixed.forEach((dim, j) => {
      const size = shape[shape.length - fixed.length + j];
      const want = typeof dim === 'number' ? dim : dims.get(dim);
      if (want !== undefined && want !== size) {
        issues.push(
          `${quote(c.name)}: ${p.name} has shape [${shape}], but (${p.shape.join(', ')}) wants ${dim} = ${want}`,
        );
      } else if (typeof dim === 'string') dims.set(dim, size);
    });
  });
  return { dims, shapes, issues };
}

/**
 * The parts of the hidden-test rule (web/sandbox/AUTHORING.md) that the tests' arguments show: declared shapes
 * respected; a batched tensor as a single vector, as one row and as 3-D; every size once not a multiple of 4;
 * both ends of every range; every default left out and given; every boolean both ways.
 */
function coverageProblems(exercise, tests) {
  const problems = [];
  for (const fn of exercise.functionNames) {
    const spec = exercise.functions[fn];
    const cases = tests.filter((t) => t.fn === fn);
    const say = (message) => problems.push({ field: `coverage ${fn}`, message });
    const bound = cases.map((c) => bind(spec, c));
    const issue = bound.flatMap((b) => b.issues)[0];
    if (issue) say(issue);
    const value = (c, b, name) => {
      if (typeof name === 'number') return name;
      if (b.dims.has(name)) return b.dims.get(name);
      const k = spec.params.findIndex((q) => q.name === name);
      return k < c.args.length ? c.args[k] : spec.params[k].default;
    };
    spec.params.forEach((p, k) => {
      if (p.shape && p.shape[0] === '...') {
        const n = p.shape.length - 1;
        const shapes = bound.map((b) => b.shapes[k]).filter(Boolean);
        if (!shapes.some((s) => s.length === Math.max(n, 1))) {
          say(`${p.name} is never ${n ? 'a single vector (no leading dimensions)' : '1-D'}`);
        }
        if (n >= 1 && !shapes.some((s) => s.length > n && s.slice(0, s.length - n).every((v) => v === 1))) {
          say(`${p.name} never has a single row (one token)`);
        }
        if (!shapes.some((s) => s.length >= Math.max(n + 2, 3)))
          say(`${p.name} is never 3-D or more (a batch of sequences)`);
      }
      (p.range || []).forEach((end, e) => {
        if (!cases.some((c, i) => value(c, bound[i], p.name) === value(c, bound[i], end))) {
          say(`${p.name} = ${end} is never tested (the ${e ? 'upper' : 'lower'} end of its range)`);
        }
      });
      if (p.hasDefault) {
        if (!cases.some((c) => c.args.length <= k)) {
          say(`${p.name} is never left out, so its default (${JSON.stringify(p.default)}) is never used`);
        }
        if (!cases.some((c) => c.args.length > k)) say(`${p.name} is never given; only its default is tested`);
      }
      const values = cases.map((c, i) => value(c, bound[i], p.name));
      if (values.some((v) => typeof v === 'boolean')) {
        for (const b of [true, false]) if (!values.includes(b)) say(`${p.name} is never ${b}`);
      }
    });
    const sizes = new Map();
    for (const b of bound) for (const [dim, size] of b.dims) sizes.set(dim, [...(sizes.get(dim) || []), size]);
    for (const [dim, list] of sizes) {
      if (list.every((s) => s % 4 === 0)) say(`${dim} is always a multiple of 4: add a size that is not (loop tails)`);
    }
  }
  return problems;
}

/** Where the reference solution's exp, tanh and erf must be driven: beyond this, naive forms overflow. */
export const OVERFLOW_LIMIT = 700;
const TRANSCENDENTAL = /(?<![\w$.])(?<!function\s+)(Math\.exp|Math\.expm1|Math\.tanh|Math\.sinh|Math\.cosh|erf)\s*\(/g;

/** A translation's test ids and words that name nothing the exercise has (a typo is otherwise silent). */
function translationProblems(exercise, tests) {
  const ids = new Set(tests.map((t) => t.id));
  const words = new Set();
  const collect = (kind) => {
    if (kind.kind === 'object') Object.values(kind.entries).forEach(collect);
    for (const w of [kind.item, kind.order]) if (typeof w === 'string') words.add(w);
  };
  for (const f of Object.values(exercise.functions)) collect(f.returns);
  const problems = [];
  for (const [lang, t] of Object.entries(translationsOf(exercise))) {
    const unknown = Object.keys(t.tests || {}).filter((id) => !ids.has(id));
    if (unknown.length) {
      problems.push({
        field: `translations.${lang}.tests`,
        message: `${unknown.length} id(s) no test has, first ${quote(unknown[0])}`,
      });
    }
    const stray = Object.keys(t.words || {}).filter((w) => !words.has(w));
    if (stray.length) {
      problems.push({
        field: `translations.${lang}.words`,
        message: `${quote(stray[0])} is no return kind's item or order`,
      });
    }
  }
  return problems;
}

/** The solution with each exp, tanh or erf call returning NaN when |argument| > limit (null if it has none). */
function probeSolution(source, limit) {
  if (!source.match(TRANSCENDENTAL)) return null;
  const wrap = source.replace(TRANSCENDENTAL, (m, name) => `__ffnProbe(${name})(`);
  return `const __ffnProbe = (f) => (z) => (Math.abs(z) > ${limit} ? NaN : f(z));\n${wrap}`;
}

/** The verdict: { ok, exercise, seeds, tests, variants, problems, text }, `text` a line each. */
function summary(exercise, seeds, counts, problems) {
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
}

/** Two generations with one seed give the same inputs and expected values. */
function checkDeterminism(exercise, seed, tests, api, add) {
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
}

/** The reference solution, run in the worker like a learner's code, passes every test. */
async function checkSolution(exercise, seed, run, add) {
  const report = await run(exercise.solution);
  if (report.passed) return;
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

/** Which functions reach exp, tanh or erf at all, and whether a test drives them beyond OVERFLOW_LIMIT. */
async function checkOverflow(exercise, seed, run, add) {
  if (probeSolution(exercise.solution, 0) === null) return;
  const failedFns = (r) => new Set(r.tests.filter((t) => !t.pass).map((t) => t.fn));
  const users = failedFns(await run(probeSolution(exercise.solution, -1)));
  const driven = failedFns(await run(probeSolution(exercise.solution, OVERFLOW_LIMIT)));
  for (const fn of exercise.functionNames) {
    if (users.has(fn) && !driven.has(fn)) {
      add(
        `coverage ${fn}`,
        seed,
        `no test drives exp, tanh or erf in the reference solution beyond ±${OVERFLOW_LIMIT}, ` +
          'where naive forms overflow: add inputs that reach |z| in the hundreds or thousands',
      );
    }
  }
}

/** Every variant fails at least one test and is diagnosed as itself (through compare, diagnose and report). */
async function checkVariants(exercise, seed, tests, api, add) {
  for (const [i, v] of exercise.variants.entries()) {
    const field = `variants[${i}] (${quote(v.id)})`;
    const values = tests.map((t) => {
      if (t.fn !== v.fn) return specValue(t.expected);
      try {
        return v.compute(t.args, api);
      } catch {
        return specValue(t.expected); // no evidence on this test
      }
    });
    const { outcomes, diagnoses } = await gradeValues(exercise, tests, values, api);
    if (outcomes.every((o) => o.pass)) {
      add(field, seed, 'passes every hidden test: add a test on which this mistake shows');
      continue;
    }
    const ids = diagnoses.map((d) => d.id);
    if (ids.length !== 1 || ids[0] !== v.id) {
      add(field, seed, `fails, but is diagnosed as ${ids.length ? ids.join(' + ') : 'nothing'}, not as itself`);
    }
  }
}

/** Every check of one seed; the count of its tests goes to `counts`. */
async function checkSeed(exercise, seed, { api, timeout, workerUrl }, add, counts) {
  let tests;
  try {
    tests = generateTests(exercise, seed, api);
  } catch (e) {
    if (!(e instanceof ExerciseDefinitionError)) throw e;
    add(e.field, seed, e.message);
    return;
  }
  counts.push(tests.length);
  const run = (source) => gradeExercise(exercise, source, { seed, api, timeout, workerUrl });
  checkDeterminism(exercise, seed, tests, api, add);
  await checkSolution(exercise, seed, run, add);
  for (const p of coverageProblems(exercise, tests)) add(p.field, seed, p.message);
  for (const p of translationProblems(exercise, tests)) add(p.field, seed, p.message);
  await checkOverflow(exercise, seed, run, add);
  await checkVariants(exercise, seed, tests, api, add);
}

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
  try {
    validateValues(exercise, api);
  } catch (e) {
    if (!(e instanceof ExerciseDefinitionError)) throw e;
    add(e.field, null, e.message);
    return summary(exercise, seeds, counts, problems);
  }
  for (const seed of seeds) await checkSeed(exercise, seed, { api, timeout, workerUrl }, add, counts);
  return summary(exercise, seeds, counts, problems);
}
