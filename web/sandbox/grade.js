// Headless grading: generate hidden tests, run learner code in the worker, compare with the wasm reference on the page, diagnose known mistakes.
import * as defaultApi from '../ffn.js';
import { compareValue, specLike, specsAgree, fmtNum, fmtShape, sameShape, wireToTensor } from './compare.js';
import { getExercise, makeRng, hashSeed } from './exercises.js';
import { runLearnerCode, DEFAULT_TIMEOUT_MS, DEFAULT_LIMITS } from './runner.js';

const MAX_SOURCE_CHARS = 100000;

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
    } else if (!best) {
      const g = genericDiagnosis(fn, idxs.filter((i) => !outcomes[i].pass && outcomes[i].value), tests, outcomes, tol);
      if (g) found.push(g);
    }
  }
  return found;
}

/* Shape-agnostic mistakes, tried only when no catalog variant explains a function's failures. */

function tensorPairs(test, outcome, tol) {
  // [got, expected] tensor pairs of a failing test: the output itself or each object field.
  const pairs = [];
  for (const key of components(test.expected)) {
    const exp = part(test.expected, key);
    if (exp.kind !== 'tensor') continue;
    const got = wireToTensor(wirePart(outcome.value, key));
    if (!got.problem && !compareValue(wirePart(outcome.value, key), exp, tol).pass) pairs.push([got, exp, key]);
  }
  return pairs;
}

function genericDiagnosis(fn, failing, tests, outcomes, tol) {
  const close = (g, e) => Math.abs(g - e) <= tol.atol + tol.rtol * Math.abs(e);
  const all = failing.flatMap((i) => tensorPairs(tests[i], outcomes[i], tol).map((p) => [...p, tests[i].name]));
  if (!all.length) return null;
  const field = (p) => (p[2] ? `${p[2]} ` : '');
  // Each check says, per failing output, 'yes', 'no' or null (no evidence); it is reported when it
  // explains at least one output and at least as many as it fails to explain.
  const decide = (check) => {
    const verdicts = all.map((p) => check(p));
    const yes = all.filter((p, i) => verdicts[i] === 'yes');
    const no = verdicts.filter((v) => v === 'no').length;
    return yes.length > 0 && yes.length >= no ? yes : null;
  };
  const transposed = decide(([g, e]) => {
    if (e.shape.length !== 2 || e.shape[0] === e.shape[1]) return null;
    if (g.shape.length !== 2 || g.shape[0] !== e.shape[1] || g.shape[1] !== e.shape[0]) return 'no';
    const [r, c] = e.shape;
    for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) if (!close(g.data[j * r + i], e.data[i * c + j])) return 'no';
    return 'yes';
  });
  if (transposed) {
    const p = transposed[0];
    return { id: 'generic-transposed', fn, title: 'Output transposed', message: `Your ${field(p)}output holds the right numbers in transposed layout: shape [${p[0].shape}] instead of [${p[1].shape}]. Check the order of the factors in your last matmul.`, tests: [...new Set(transposed.map((q) => q[3]))] };
  }
  let factor = null;
  const scaled = decide(([g, e]) => {
    if (!sameShape(g.shape, e.shape)) return 'no';
    let num = 0;
    let den = 0;
    for (let i = 0; i < e.data.length; i++) {
      if (!Number.isFinite(e.data[i]) || !Number.isFinite(g.data[i])) continue;
      num += g.data[i] * e.data[i];
      den += e.data[i] * e.data[i];
    }
    if (!(den > 0)) return null;
    const c = num / den;
    if (Math.abs(c - 1) < 1e-3 || c === 0) return 'no';
    for (let i = 0; i < e.data.length; i++) {
      if (Number.isFinite(e.data[i]) && !close(g.data[i], c * e.data[i])) return 'no';
    }
    if (factor === null) factor = c;
    return Math.abs(c - factor) <= 1e-4 * Math.abs(factor) ? 'yes' : 'no';
  });
  if (scaled) {
    const c = Number(factor.toPrecision(4));
    const what = c === -1 ? 'the negatives of the expected values' : `${c} times the expected values`;
    return { id: 'generic-scaled', fn, title: 'Off by a constant factor', message: `Your ${field(scaled[0])}values are ${what}. Look for a missing or extra constant factor (or sign).`, tests: [...new Set(scaled.map((q) => q[3]))] };
  }
  return null;
}

function describeMismatch(r) {
  if (r.problem) return r.problem;
  if (!r.mismatch) return '';
  const where = r.mismatch.index.length ? ` at ${fmtShape(r.mismatch.index)}` : '';
  const key = r.key ? `${r.key}: ` : '';
  return `${key}first mismatch${where}: got ${fmtNum(r.mismatch.got)}, expected ${fmtNum(r.mismatch.expected)} (max error ${fmtNum(r.maxError)})`;
}

/** The report's form of an error in learner code (runner.js has already bounded its fields). */
function learnerError(e) {
  return { name: String(e.name || 'Error'), message: String(e.message || ''), line: e.line ?? null, column: e.column ?? null };
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
      o.error = learnerError(r.error || {});
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
    const err = learnerError(e);
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
