// Headless grading: generate hidden tests, run learner code in the worker, compare with the wasm reference on the page, diagnose known mistakes.
import * as defaultApi from '../ffn.js';
import { compareValue, specLike, specsAgree, fmtNum, fmtShape } from './compare.js';
import { getExercise, makeRng, hashSeed } from './exercises.js';
import { runLearnerCode, DEFAULT_TIMEOUT_MS, DEFAULT_LIMITS } from './runner.js';

export const MAX_SOURCE_CHARS = 100000;

const TIMEOUT_ADVICE =
  'This usually means an infinite loop (a while whose condition never changes, a for loop whose counter never moves), ' +
  'recursion without a base case, or a loop over far more elements than the inputs hold.';

function components(spec) {
  return spec.kind === 'object' ? Object.keys(spec.entries) : [null];
}

function part(spec, key) {
  return key === null ? spec : spec.entries[key];
}

function wirePart(w, key) {
  if (key === null) return w;
  return w && w.k === 'object' && Object.prototype.hasOwnProperty.call(w.entries, key) ? w.entries[key] : undefined;
}

/**
 * For each function with failing tests, find the known-wrong variant that explains the most failures
 * without being contradicted by a test the learner passed where the variant would have failed.
 */
export function diagnose(exercise, tests, outcomes, api) {
  const tol = exercise.tolerance;
  const found = [];
  const byFn = new Map();
  tests.forEach((t, i) => {
    if (!byFn.has(t.fn)) byFn.set(t.fn, []);
    byFn.get(t.fn).push(i);
  });
  for (const [fn, idxs] of byFn) {
    if (idxs.every((i) => outcomes[i].pass || !outcomes[i].value)) continue; // nothing to explain
    let best = null;
    for (const variant of exercise.variants.filter((v) => v.fn === fn)) {
      let explained = 0;
      let contradicted = false;
      const names = [];
      for (const i of idxs) {
        const o = outcomes[i];
        if (!o.value) continue; // threw, timed out or was refused: no evidence either way
        let vspec;
        try {
          vspec = specLike(variant.compute(tests[i].args, api), tests[i].expected);
        } catch {
          continue;
        }
        let anyVar = false;
        let anyOther = false;
        for (const key of components(tests[i].expected)) {
          const ref = part(tests[i].expected, key);
          const v = part(vspec, key);
          const got = wirePart(o.value, key);
          const refOk = got !== undefined && compareValue(got, ref, tol).pass;
          const varOk = got !== undefined && compareValue(got, v, tol).pass;
          const differs = !specsAgree(v, ref, tol);
          if (refOk) {
            if (differs && !variant.anyOf) contradicted = true;
          } else if (varOk) anyVar = true;
          else anyOther = true;
        }
        if (anyVar && !anyOther) {
          explained += 1;
          names.push(tests[i].name);
        }
        if (contradicted) break;
      }
      if (!contradicted && explained > 0 && (!best || explained > best.explained)) best = { variant, explained, names };
    }
    if (best && !found.some((d) => d.id === best.variant.id)) {
      found.push({ id: best.variant.id, fn, title: best.variant.title, message: best.variant.message, tests: best.names });
    }
  }
  return found;
}

function describeMismatch(r) {
  if (r.problem) return r.problem;
  if (!r.mismatch) return '';
  const where = r.mismatch.index.length ? ` at ${fmtShape(r.mismatch.index)}` : '';
  const key = r.key ? `${r.key}: ` : '';
  return `${key}first mismatch${where}: got ${fmtNum(r.mismatch.got)}, expected ${fmtNum(r.mismatch.expected)} (max error ${fmtNum(r.maxError)})`;
}

function locationText(e) {
  return e && e.line ? ` (line ${e.line}${e.column ? `, column ${e.column}` : ''})` : '';
}

/**
 * Grade learner `source` for exercise `id`. Resolves to a plain, JSON-safe report; never rejects on anything the learner wrote.
 * options: { timeout = 2000, seed = 1, signal, api, workerUrl, limits, onProgress }
 */
export async function gradeExercise(id, source, options = {}) {
  const exercise = getExercise(id);
  if (typeof source !== 'string') throw new TypeError(`gradeExercise: source must be a string of JavaScript; got ${source === null ? 'null' : typeof source}`);
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
  if (!(Number.isFinite(timeout) && timeout > 0)) throw new RangeError(`gradeExercise: timeout must be a positive number of milliseconds; got ${timeout}`);
  const api = options.api ?? defaultApi;
  await api.ready(options.ready);
  const seed = options.seed ?? 1;
  const tests = exercise.tests(makeRng(hashSeed(exercise.id, seed)), api);
  const tol = exercise.tolerance;
  const base = {
    exercise: exercise.id,
    title: exercise.title,
    seed,
    tolerance: { ...tol },
    timeoutMs: timeout,
    total: tests.length,
  };

  if (source.length > MAX_SOURCE_CHARS) {
    return finishReport(base, tests, [], { status: 'refused', message: `Your code is ${source.length} characters long; the limit is ${MAX_SOURCE_CHARS}.` }, []);
  }

  const run = await runLearnerCode({
    source,
    exports: exercise.functions,
    // Separate copies per call: tests may share inputs, and learner code may mutate what it is given.
    calls: tests.map((t) => ({ fn: t.fn, args: structuredClone(t.args) })),
    timeout,
    limits: { ...DEFAULT_LIMITS, ...(options.limits || {}) },
    signal: options.signal,
    workerUrl: options.workerUrl,
    onProgress: options.onProgress,
  });

  const outcomes = tests.map((t, i) => {
    const r = run.results[i];
    const o = { name: t.name, fn: t.fn, pass: false, status: 'not-run' };
    if (run.compileError) return o;
    if (!r) {
      if (run.status === 'timeout' && i === run.lastIndex) {
        o.status = 'timeout';
        o.message = `stopped after ${timeout} ms`;
      }
      return o;
    }
    if (!r.ok) {
      o.status = r.refused ? 'refused' : 'error';
      const e = r.error || {};
      o.error = { name: String(e.name || 'Error'), message: String(e.message || ''), line: e.line ?? null, column: e.column ?? null };
      o.message = `${o.error.name}: ${o.error.message}${locationText(o.error)}`;
      return o;
    }
    const c = compareValue(r.value, t.expected, tol);
    o.pass = c.pass;
    o.status = c.pass ? 'pass' : 'fail';
    if (c.maxError !== undefined) o.maxError = c.maxError;
    if (c.problem) o.problem = c.problem;
    if (c.mismatch) o.mismatch = { key: c.key ?? null, ...c.mismatch };
    if (!c.pass) o.message = describeMismatch(c);
    Object.defineProperty(o, 'value', { value: r.value, enumerable: false }); // kept for diagnosis, not reported
    return o;
  });

  let runInfo;
  if (run.compileError) {
    const e = run.compileError;
    const err = { name: String(e.name || 'Error'), message: String(e.message || ''), line: e.line ?? null, column: e.column ?? null };
    const what = e.phase === 'top-level' ? 'Your code threw while it was being set up' : err.name === 'SyntaxError' ? 'Your code has a syntax error' : 'Your code could not run';
    runInfo = { status: 'error', error: err, message: `${what}: ${err.message}${locationText(err)}` };
  } else if (run.status === 'timeout') {
    const t = tests[run.lastIndex];
    runInfo = { status: 'timeout', message: `Your code ran for more than ${timeout} ms${t ? ` on the test "${t.name}"` : ''} and was stopped. ${TIMEOUT_ADVICE}` };
  } else if (run.status === 'aborted') {
    runInfo = { status: 'aborted', message: 'The run was stopped.' };
  } else if (run.status === 'crashed') {
    runInfo = { status: 'crashed', message: `The sandbox stopped unexpectedly (${run.crash}). If your code allocates very large arrays, make them smaller.` };
  } else {
    runInfo = { status: 'done', message: '' };
  }
  const diagnoses = run.compileError ? [] : diagnose(exercise, tests, outcomes, api);
  return finishReport(base, tests, outcomes, runInfo, run.logs || [], run.ms, diagnoses);
}

function finishReport(base, tests, outcomes, runInfo, logs, ms = 0, diagnoses = []) {
  const list = outcomes.length ? outcomes : tests.map((t) => ({ name: t.name, fn: t.fn, pass: false, status: 'not-run' }));
  const passedCount = list.filter((o) => o.pass).length;
  const passed = runInfo.status === 'done' && passedCount === list.length;
  let summary;
  if (passed) summary = `All ${list.length} tests passed.`;
  else if (runInfo.status !== 'done') summary = runInfo.message;
  else summary = `${passedCount} of ${list.length} tests passed.`;
  return {
    ...base,
    passed,
    passedCount,
    status: runInfo.status,
    summary,
    error: runInfo.error ?? null,
    tests: list.map((o) => ({ ...o })),
    diagnoses,
    logs: logs.map((l) => ({ level: String(l.level), text: String(l.text) })),
    durationMs: ms,
  };
}
