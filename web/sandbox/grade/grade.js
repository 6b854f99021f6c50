// Headless grading in one pass: tests, run (worker), compare every test, diagnose failures, build the report.
import * as defaultApi from '../../index.js'; // the wasm bytes inlined: nothing for a bundler or server to place
import { compareValue, toWire, fmtShapeBounded } from './compare.js';
import { resolveExercise, generateTests, validateValues } from './exercises/index.js';
import { diagnose } from './diagnose.js';
import { CAPS, clip, slicer, textBudget, say, num } from './report-bounds.js';
import { reportText } from './report-text.js';
import { isMessage, ordinal, numeral } from '../../i18n/index.js';
import {
  loadRunner,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_LIMITS,
  NO_START,
  FRAME_DIED,
  FRAME_REMOVED,
  WORKER_FAILED,
  WORKER_LOAD_FAILED,
} from '../run/index.js';

let runner = null; // run/runner.js, loaded with the first run; then called directly (an import() costs a task)
const runLearnerCode = async (options) => (runner ??= await loadRunner()).runLearnerCode(options);

const MAX_SOURCE_CHARS = 100000;

/* ---------------- stage 2: run (stage 1, the tests: generateTests in exercises/) ---------------- */

/*
 * Purity probes. After the tests, for one test of each function with array arguments, the worker calls the
 * function again: once per array argument with that argument's very object from the test's call (structured
 * cloning keeps the sharing inside one message) and fresh copies of the others, and once with fresh copies of
 * all (the control). A probe that differs from the control while the control matches the test's result means
 * the function changed that argument in place. The probes come after every test, so they never change a verdict.
 */
function purityProbes(exercise, tests, calls) {
  const probes = [];
  for (const fn of exercise.functionNames) {
    const j = tests.findIndex((t) => t.fn === fn && t.args.some((a) => a !== null && typeof a === 'object'));
    if (j < 0) continue;
    const fresh = () => structuredClone(tests[j].args);
    probes.push({ test: j, arg: -1, call: { fn, args: fresh() } });
    tests[j].args.forEach((a, k) => {
      if (a === null || typeof a !== 'object') return;
      const args = fresh();
      args[k] = calls[j].args[k];
      probes.push({ test: j, arg: k, call: { fn, args } });
    });
  }
  return probes;
}

async function runStage(exercise, tests, source, options, timeout) {
  // Separate copies per call: tests may share inputs, and learner code may mutate what it is given.
  const calls = tests.map((t) => ({ fn: t.fn, args: structuredClone(t.args) }));
  const probes = purityProbes(exercise, tests, calls);
  const run = await runLearnerCode({
    source,
    exports: exercise.functionNames,
    calls: [...calls, ...probes.map((p) => p.call)],
    timeout,
    limits: { ...DEFAULT_LIMITS, ...(options.limits || {}) },
    signal: options.signal,
    workerUrl: options.workerUrl,
    onProgress: options.onProgress && ((i) => i < tests.length && options.onProgress(i)),
  });
  const n = tests.length;
  const probeResults = run.results.slice(n);
  const results = run.results.slice(0, n);
  // A run stopped during the probes has run every test: for the verdict it is done.
  const finished = !run.compileError && results.every((r) => r !== null) && run.lastIndex >= n - 1;
  const status = finished && (run.status === 'timeout' || run.status === 'crashed') ? 'done' : run.status;
  return { ...run, status, results, probes: probes.map((p, i) => ({ ...p, result: probeResults[i] })) };
}

/** Whether two lists hold the same items, by `same` (numbers: Object.is), in a loop (no closure per item). */
function sameItems(x, y, same) {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (!same(x[i], y[i])) return false;
  return true;
}

/** Deep equality of two wire values (numbers by Object.is). */
function sameWire(x, y) {
  if (!x || !y || x.k !== y.k) return false;
  switch (x.k) {
    case 'number':
      return Object.is(x.v, y.v);
    case 'typed':
      return sameItems(x.data, y.data, Object.is);
    case 'array':
      return sameItems(x.items, y.items, sameWire);
    case 'object': {
      const kx = Object.keys(x.entries);
      return kx.length === Object.keys(y.entries).length && kx.every((k) => sameWire(x.entries[k], y.entries[k]));
    }
    default:
      return String(x.what) === String(y.what);
  }
}

/** Deep equality of two results from the worker (values by Object.is, errors by message). */
function sameResult(a, b) {
  if (!a || !b) return false;
  if (a.ok !== b.ok) return false;
  if (!a.ok) return String(a.error && a.error.message) === String(b.error && b.error.message);
  return sameWire(a.value, b.value);
}

/**
 * Notes (messages) for functions that changed an argument in place (one per argument, from the purity probes).
 * A result may hold 200,000 numbers: each test's control is compared once, and the event loop gets a turn
 * (`slice`) between comparisons.
 */
async function purityNotes(exercise, run, slice) {
  const notes = [];
  const deterministic = new Map(); // test index -> whether its control probe gave the test's result
  for (const p of run.probes || []) {
    if (p.arg < 0 || !p.result) continue;
    const original = run.results[p.test];
    if (!deterministic.has(p.test)) {
      await slice();
      const control = run.probes.find((q) => q.test === p.test && q.arg === -1);
      deterministic.set(p.test, !!(control && control.result) && sameResult(control.result, original));
    }
    if (!deterministic.get(p.test)) continue; // not deterministic: no claim
    await slice();
    if (sameResult(p.result, original)) continue;
    const fn = p.call.fn;
    const name = exercise.functions[fn].params[p.arg]?.name ?? say('argument', { n: p.arg + 1 });
    notes.push(say('impure', { fn, name }));
  }
  return notes;
}

/* ---------------- stage 3: compare every test (stage 4, diagnose: diagnose.js) ---------------- */

/**
 * The report's form of an error in learner code, as thrown: its name and English message (a message's English:
 * protocol.js made the worker's a message, report.toolkit, report.worker or report.raw), cut by `take` (default:
 * to their caps). What people read of it is the test's message, which says the message in their language.
 */
function learnerError(e, take = clip) {
  const pos = (v) => (Number.isSafeInteger(v) && v > 0 ? v : null);
  return {
    name: take(e.name, CAPS.errorName) || 'Error',
    message: take(isMessage(e.message) ? String(e.message) : e.message, CAPS.errorMessage),
    line: pos(e.line),
    column: pos(e.column),
  };
}

/** An error's message as a message: the one protocol.js made, or a text (hand-made results) cut to its cap. */
const errorMessage = (e) => (isMessage(e.message) ? e.message : clip(e.message, CAPS.errorMessage));

/**
 * One outcome per test from the run's results: its status, and for a returned value the comparison with the
 * expected spec (kept, with the value, as non-enumerable fields for the diagnosis stage). The event loop gets
 * a turn between tests (`slice`), so one task never compares more than about SLICE_MS worth of results.
 */
async function compareStage(tests, run, tol, slice) {
  const outcomes = [];
  for (let i = 0; i < tests.length; i++) {
    await slice();
    outcomes.push(compareOne(tests[i], run, i, tol));
  }
  return outcomes;
}

function compareOne(t, run, i, tol) {
  const r = run.results[i];
  const o = { id: t.id, name: t.name, fn: t.fn, pass: false, status: 'not-run' };
  if (run.compileError) return o;
  if (!r) {
    if (run.status === 'timeout' && i === run.lastIndex) o.status = 'timeout';
    return o;
  }
  if (!r.ok) {
    o.status = r.refused ? 'refused' : 'error';
    o.error = r.error || {}; // its message: why the page refused the result, or what the worker said (protocol.js)
    // the learner has not written this function: said by the page (in the reader's language), not the worker
    if (r.missing) o.missing = true;
    return o;
  }
  const c = compareValue(r.value, t.expected, tol);
  o.pass = c.pass;
  o.status = c.pass ? 'pass' : 'fail';
  if (c.maxError !== undefined) o.maxError = c.maxError;
  if (c.problem) o.problem = c.problem;
  if (c.mismatch) o.mismatch = { key: c.key ?? null, ...c.mismatch };
  // for the diagnosis stage only: buildReport leaves them (and `missing`) out of the report
  o.value = r.value;
  o.comparison = c;
  return o;
}

/* ---------------- stage 5: build the report ---------------- */

function locationText(e) {
  if (!e || !e.line) return '';
  return e.column ? say('atLineColumn', { line: e.line, column: e.column }) : say('atLine', { line: e.line });
}

/**
 * One line for people about a test that did not pass (`o` its outcome, `error` the report's form of its error,
 * `expected` the test's spec): a message, or ''.
 */
function testMessage(o, error, expected, timeout) {
  if (o.status === 'timeout') return say('stoppedAfter', { ms: numeral(timeout) });
  if (error) {
    const message = o.missing ? say('missingFn', { fn: o.fn }) : errorMessage(o.error);
    // "Refused" is the sandbox's word (the page's refusals, and the worker's)
    const name = o.status === 'refused' && error.name === 'Refused' ? say('refusedName') : error.name;
    return say('threw', { name, message, where: locationText(error) });
  }
  if (o.problem) return o.problem;
  if (!o.mismatch) return '';
  const m = o.mismatch;
  const keyed = (text) => (m.key ? say('keyed', { key: clip(m.key, CAPS.key), problem: text }) : text);
  const spec = m.key && expected.kind === 'object' ? expected.entries[m.key] : expected;
  const got = num(m.got);
  const want = num(m.expected);
  if (spec.kind === 'integers' && spec.shape.length === 1) {
    // Indices as indices: "2nd strongest: got memory 4, expected memory 1 (memory 4 belongs 3rd)".
    const item = spec.item ? `${clip(spec.item, CAPS.key)} ` : '';
    const at = Number.isInteger(m.got) ? Array.prototype.indexOf.call(spec.data, m.got) : -1;
    const where = at >= 0 ? say('belongs', { item, v: got, at: ordinal(at + 1) }) : say('notThere', { item, v: got });
    const order = spec.order ? clip(spec.order, CAPS.key) : say('entry');
    return keyed(say('indexMismatch', { at: ordinal(m.flatIndex + 1), order, item, got, expected: want, where }));
  }
  if (spec.kind === 'integer') {
    const gap = Math.abs(m.got - m.expected);
    const off = Number.isFinite(gap) ? say(m.got < m.expected ? 'short' : 'over', { n: num(gap) }) : '';
    return keyed(say('integerMismatch', { got, expected: want, off }));
  }
  const params = { got, expected: want, error: num(o.maxError) };
  if (!m.index.length) return keyed(say('mismatch', params));
  return keyed(say('mismatchAt', { ...params, at: fmtShapeBounded(m.index) }));
}

// The sandbox's own reasons for a crash, said in the reader's language (others are shown as they come).
const CRASHES = new Map([
  [FRAME_DIED, say('crash.died')],
  [FRAME_REMOVED, say('crash.removed')],
  [NO_START, say('crash.noStart')],
  [WORKER_LOAD_FAILED, say('crash.loadFailed')],
  [WORKER_FAILED, say('crash.failed')],
]);

/** The run's overall status and message. */
function runSummary(run, tests, timeout) {
  if (run.compileError) {
    const e = run.compileError;
    const err = learnerError(e);
    const what = e.phase === 'top-level' ? 'setupThrew' : err.name === 'SyntaxError' ? 'syntaxError' : 'couldNotRun';
    return { status: 'error', error: err, message: say(what, { message: errorMessage(e), where: locationText(err) }) };
  }
  if (run.status === 'timeout') {
    const t = tests[run.lastIndex];
    const ms = numeral(timeout);
    return { status: 'timeout', message: t ? say('timeoutOn', { ms, name: t.name }) : say('timeout', { ms }) };
  }
  if (run.status === 'aborted') return { status: 'aborted', message: say('aborted') };
  if (run.status === 'setup') {
    // setup: what the sandbox said (a message of report.site, frame-host.js, or its text as report.raw)
    return { status: 'setup', message: say('setup', { message: run.setup }), setup: run.setup };
  }
  if (run.status === 'crashed') {
    const why = CRASHES.get(run.crash) ?? clip(run.crash, CAPS.errorMessage);
    return { status: 'crashed', message: say('crashed', { why }) };
  }
  return { status: 'done', message: '' };
}

/** Console lines, each at most CAPS.log characters and CAPS.logs in all (runner.js bounds them too). */
function boundedLogs(logs) {
  const out = [];
  let left = CAPS.logs;
  for (const entry of logs) {
    if (left <= 0 || out.length === 200) break;
    const l = entry && typeof entry === 'object' ? entry : {};
    // A line cut to what is left of the total keeps room for its '…'; counted as runner.js counts them.
    const text = clip(l.text, left < CAPS.log ? left - 1 : CAPS.log);
    left -= text.length;
    out.push({ level: ['log', 'info', 'warn', 'error', 'debug'].includes(l.level) ? l.level : 'log', text });
  }
  return out;
}

/*
 * The report. Every text in it that comes from the learner's code or result is cut at its source (compare.js,
 * diagnose.js, report-bounds.js) and again here to its field's cap; the tests' texts together share a budget
 * of CAPS.tests JSON characters, after which each gets CAPS.floor: see web/sandbox/grade/README.md for the bounds.
 */
function buildReport(base, tests, outcomes, summary, { logs = [], ms = 0, diagnoses = [], notes = [], timeout }) {
  const list = outcomes || tests.map((t) => ({ id: t.id, name: t.name, fn: t.fn, pass: false, status: 'not-run' }));
  const take = textBudget();
  const passedCount = list.filter((o) => o.pass).length;
  const passed = summary.status === 'done' && passedCount === list.length;
  let text;
  if (passed) text = say('allPassed', { n: list.length });
  else if (summary.status !== 'done') text = summary.message;
  else text = say('somePassed', { k: passedCount, n: list.length });
  // Each text a message as plain data with its English ({ key, params, text }: report-text.js), for
  // <ffn-exercise> to show in the reader's language and other consumers to read in English.
  return {
    ...base,
    passed,
    passedCount,
    status: summary.status,
    summary: reportText(text, CAPS.message),
    ...(summary.setup ? { setup: reportText(summary.setup, CAPS.message) } : {}),
    error: summary.error ?? null,
    tests: list.map((o, i) => reportTest(o, tests[i].expected, take, timeout)),
    diagnoses,
    notes: notes.map((m) => reportText(m, CAPS.note)),
    logs: boundedLogs(logs),
    durationMs: ms,
  };
}

/** A test's entry in the report: its outcome without what only grading reads, and its texts cut by `take`. */
function reportTest(o, expected, take, timeout) {
  const { value, comparison, missing, ...out } = o;
  const error = o.error ? learnerError(o.error, take) : null;
  if (error) out.error = error;
  if (o.problem) out.problem = reportText(o.problem, CAPS.problem, take);
  if (!o.pass && o.status !== 'not-run') {
    const m = testMessage(o, error, expected, timeout);
    if (m) out.message = reportText(m, CAPS.message, take);
  }
  return out;
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
  const base = reportBase(exercise, tests, seed, timeout);
  if (source.length > MAX_SOURCE_CHARS) {
    const refused = {
      status: 'refused',
      message: say('tooLong', { n: numeral(source.length), max: numeral(MAX_SOURCE_CHARS) }),
    };
    return buildReport(base, tests, null, refused, { timeout });
  }
  const run = await runStage(exercise, tests, source, options, timeout);
  return reportRun(exercise, tests, run, { base, api, timeout });
}

function reportBase(exercise, tests, seed, timeout) {
  return {
    exercise: exercise.id,
    title: exercise.title,
    seed,
    tolerance: { ...exercise.tolerance },
    timeoutMs: timeout,
    total: tests.length,
  };
}

/**
 * Stages 3 to 5 on a finished run (what runner.js resolves to, with stage 2's `probes` or none): compare,
 * diagnose, report. gradeExercise ends with it; the hardening tests call it with results that no checked
 * wire would carry (sparse arrays, getters), so that these stages are bounded on their own.
 */
export async function reportRun(exercise, tests, run, { base, api = defaultApi, timeout = DEFAULT_TIMEOUT_MS } = {}) {
  const slice = slicer();
  const outcomes = await compareStage(tests, run, exercise.tolerance, slice);
  const diagnoses = run.compileError ? [] : await diagnose(exercise, tests, outcomes, api, slice);
  await slice();
  const notes = await purityNotes(exercise, run, slice);
  const summary = runSummary(run, tests, timeout);
  const head = base ?? reportBase(exercise, tests, null, timeout);
  const logs = Array.isArray(run.logs) ? run.logs : [];
  return buildReport(head, tests, outcomes, summary, { logs, ms: run.ms, diagnoses, notes, timeout });
}

/**
 * Grade values computed on the page as if a learner had returned them (one per test, in order): the compare
 * and diagnose stages without a worker. checkExercise uses it to see how each variant is diagnosed.
 */
export async function gradeValues(exercise, tests, values, api) {
  const run = { status: 'done', compileError: null, results: values.map((v) => ({ ok: true, value: toWire(v) })) };
  const slice = slicer();
  const outcomes = await compareStage(tests, run, exercise.tolerance, slice);
  const diagnoses = await diagnose(exercise, tests, outcomes, api, slice);
  return { outcomes, diagnoses };
}
