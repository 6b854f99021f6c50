// Headless grading in one pass: tests, run (worker), compare every test, diagnose failures, build the report.
import * as defaultApi from '../ffn.js';
import { compareValue, toWire, fmtNum, fmtShape } from './compare.js';
import { resolveExercise, generateTests, validateValues } from './exercises/index.js';
import { diagnose } from './diagnose.js';
import { runLearnerCode, DEFAULT_TIMEOUT_MS, DEFAULT_LIMITS } from './runner.js';

const MAX_SOURCE_CHARS = 100000;

const TIMEOUT_ADVICE =
  'This usually means an infinite loop (a while whose condition never changes, a for loop whose counter never ' +
  'moves), recursion without a base case, or a loop over far more elements than the inputs hold.';

/* ---------------- stage 1: run ---------------- */

async function runStage(exercise, tests, source, options, timeout) {
  return runLearnerCode({
    source,
    exports: exercise.functionNames,
    // Separate copies per call: tests may share inputs, and learner code may mutate what it is given.
    calls: tests.map((t) => ({ fn: t.fn, args: structuredClone(t.args) })),
    timeout,
    limits: { ...DEFAULT_LIMITS, ...(options.limits || {}) },
    signal: options.signal,
    workerUrl: options.workerUrl,
    onProgress: options.onProgress,
  });
}

/* ---------------- stage 2: compare every test ---------------- */

/** The report's form of an error in learner code (runner.js has already bounded its fields). */
function learnerError(e) {
  return {
    name: String(e.name || 'Error'),
    message: String(e.message || ''),
    line: e.line ?? null,
    column: e.column ?? null,
  };
}

/**
 * One outcome per test from the run's results: its status, and for a returned value the comparison with the
 * expected spec (kept, with the value, as non-enumerable fields for the diagnosis stage).
 */
function compareStage(tests, run, tol) {
  return tests.map((t, i) => {
    const r = run.results[i];
    const o = { name: t.name, fn: t.fn, pass: false, status: 'not-run' };
    if (run.compileError) return o;
    if (!r) {
      if (run.status === 'timeout' && i === run.lastIndex) o.status = 'timeout';
      return o;
    }
    if (!r.ok) {
      o.status = r.refused ? 'refused' : 'error';
      o.error = learnerError(r.error || {});
      return o;
    }
    const c = compareValue(r.value, t.expected, tol);
    o.pass = c.pass;
    o.status = c.pass ? 'pass' : 'fail';
    if (c.maxError !== undefined) o.maxError = c.maxError;
    if (c.problem) o.problem = c.problem;
    if (c.mismatch) o.mismatch = { key: c.key ?? null, ...c.mismatch };
    Object.defineProperty(o, 'value', { value: r.value, enumerable: false });
    Object.defineProperty(o, 'comparison', { value: c, enumerable: false });
    return o;
  });
}

/* ---------------- stage 4: build the report ---------------- */

function locationText(e) {
  return e && e.line ? ` (line ${e.line}${e.column ? `, column ${e.column}` : ''})` : '';
}

/** One line for people about a test that did not pass. */
function testMessage(o, timeout) {
  if (o.status === 'timeout') return `stopped after ${timeout} ms`;
  if (o.error) return `${o.error.name}: ${o.error.message}${locationText(o.error)}`;
  if (o.problem) return o.problem;
  if (!o.mismatch) return '';
  const where = o.mismatch.index.length ? ` at ${fmtShape(o.mismatch.index)}` : '';
  const key = o.mismatch.key ? `${o.mismatch.key}: ` : '';
  return (
    `${key}first mismatch${where}: got ${fmtNum(o.mismatch.got)}, expected ${fmtNum(o.mismatch.expected)} ` +
    `(max error ${fmtNum(o.maxError)})`
  );
}

/** The run's overall status and message. */
function runSummary(run, tests, timeout) {
  if (run.compileError) {
    const e = run.compileError;
    const err = learnerError(e);
    const what =
      e.phase === 'top-level'
        ? 'Your code threw while it was being set up'
        : err.name === 'SyntaxError'
          ? 'Your code has a syntax error'
          : 'Your code could not run';
    return { status: 'error', error: err, message: `${what}: ${err.message}${locationText(err)}` };
  }
  if (run.status === 'timeout') {
    const t = tests[run.lastIndex];
    return {
      status: 'timeout',
      message:
        `Your code ran for more than ${timeout} ms${t ? ` on the test "${t.name}"` : ''} and was stopped. ` +
        TIMEOUT_ADVICE,
    };
  }
  if (run.status === 'aborted') return { status: 'aborted', message: 'The run was stopped.' };
  if (run.status === 'crashed') {
    return {
      status: 'crashed',
      message:
        `The sandbox stopped unexpectedly (${run.crash}). ` +
        'If your code allocates very large arrays, make them smaller.',
    };
  }
  return { status: 'done', message: '' };
}

function buildReport(base, tests, outcomes, summary, { logs = [], ms = 0, diagnoses = [], timeout }) {
  const list = outcomes || tests.map((t) => ({ name: t.name, fn: t.fn, pass: false, status: 'not-run' }));
  const passedCount = list.filter((o) => o.pass).length;
  const passed = summary.status === 'done' && passedCount === list.length;
  let text;
  if (passed) text = `All ${list.length} tests passed.`;
  else if (summary.status !== 'done') text = summary.message;
  else text = `${passedCount} of ${list.length} tests passed.`;
  return {
    ...base,
    passed,
    passedCount,
    status: summary.status,
    summary: text,
    error: summary.error ?? null,
    tests: list.map((o) => {
      const out = { ...o };
      if (!o.pass && o.status !== 'not-run') out.message = testMessage(o, timeout);
      return out;
    }),
    diagnoses,
    logs: logs.map((l) => ({ level: String(l.level), text: String(l.text) })),
    durationMs: ms,
  };
}

/* ---------------- the pass ---------------- */

/**
 * Grade learner `source` for an exercise (an id, a defined exercise or a definition). Resolves to a plain,
 * JSON-safe report; never rejects on anything the learner wrote.
 * options: { timeout = 2000, seed = 1, signal, api, workerUrl, limits, onProgress }
 */
export async function gradeExercise(id, source, options = {}) {
  const exercise = resolveExercise(id);
  if (typeof source !== 'string') {
    throw new TypeError(
      `gradeExercise: source must be a string of JavaScript; got ${source === null ? 'null' : typeof source}`,
    );
  }
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
  if (!(Number.isFinite(timeout) && timeout > 0)) {
    throw new RangeError(`gradeExercise: timeout must be a positive number of milliseconds; got ${timeout}`);
  }
  const api = options.api ?? defaultApi;
  await api.ready(options.ready);
  validateValues(exercise, api); // a definition's value checks, once (throws naming the field)
  const seed = options.seed ?? 1;
  const tests = generateTests(exercise, seed, api);
  const base = {
    exercise: exercise.id,
    title: exercise.title,
    seed,
    tolerance: { ...exercise.tolerance },
    timeoutMs: timeout,
    total: tests.length,
  };
  if (source.length > MAX_SOURCE_CHARS) {
    const refused = {
      status: 'refused',
      message: `Your code is ${source.length} characters long; the limit is ${MAX_SOURCE_CHARS}.`,
    };
    return buildReport(base, tests, null, refused, { timeout });
  }
  const run = await runStage(exercise, tests, source, options, timeout);
  const outcomes = compareStage(tests, run, exercise.tolerance);
  const diagnoses = run.compileError ? [] : diagnose(exercise, tests, outcomes, api);
  return buildReport(base, tests, outcomes, runSummary(run, tests, timeout), {
    logs: run.logs || [],
    ms: run.ms,
    diagnoses,
    timeout,
  });
}

/**
 * Grade values computed on the page as if a learner had returned them (one per test, in order): the compare,
 * diagnose and report stages without a worker. checkExercise uses it to see how each variant is diagnosed.
 */
export function gradeValues(exercise, tests, values, api) {
  const run = { status: 'done', compileError: null, results: values.map((v) => ({ ok: true, value: toWire(v) })) };
  const outcomes = compareStage(tests, run, exercise.tolerance);
  const diagnoses = diagnose(exercise, tests, outcomes, api);
  return { outcomes, diagnoses };
}
