// Page-side grading of hostile results (issue 18): texts cut where they are made; bounded report size and time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gradeExercise, defineExercise, exercises } from 'ffn-lab/sandbox';
import * as api from 'ffn-lab';
import { compareValue, keysProblem, toWire, expect as spec } from '../../web/sandbox/grade/compare.js';
import { reportRun, gradeValues } from '../../web/sandbox/grade/grade.js';
import { resolveExercise, generateTests, makeRng } from '../../web/sandbox/grade/exercises/index.js';
import { timeCase, timeCaseAsync, shown } from '../helpers/timing.js';

await api.ready();

// The bounds web/sandbox/grade/README.md states ("Bounds of a grading report"), written out here, not imported. A cap
// is the characters kept: a text cut short has one more, the final '…'.
const REPORT_JSON = 200_000; // JSON.stringify(report).length, whatever the learner wrote
const TEST_MESSAGE = 1_200;
const PROBLEM = 600;
const ERROR_NAME = 100;
const ERROR_MESSAGE = 1_000;
const DIAGNOSIS = 2_000;
const LOG_LINE = 2_000;
const LOGS = 20_000;
const TIMEOUT = 2_000; // gradeExercise's default

const FNS = Object.fromEntries(exercises.map((e) => [e.id, Object.keys(e.functions)]));
const everyFunction = (id, body) => FNS[id].map((f) => `function ${f}(x) {\n  ${body}\n}`).join('\n');

/** Every field of a report within its bound; returns the report's JSON length. */
function assertBounded(r, what) {
  const json = JSON.stringify(r);
  assert.ok(json.length < REPORT_JSON, `${what}: a report of ${json.length} JSON characters`);
  for (const t of r.tests) {
    if (t.message?.text)
      assert.ok(t.message?.text.length <= TEST_MESSAGE + 1, `${what}: a test message of ${t.message?.text.length}`);
    if (t.problem?.text)
      assert.ok(t.problem?.text.length <= PROBLEM + 1, `${what}: a problem of ${t.problem?.text.length}`);
    if (t.error) {
      assert.ok(t.error.name.length <= ERROR_NAME + 1, `${what}: an error name of ${t.error.name.length}`);
      assert.ok(t.error.message.length <= ERROR_MESSAGE + 1, `${what}: an error message of ${t.error.message.length}`);
    }
  }
  for (const d of r.diagnoses)
    assert.ok(d.message?.text.length <= DIAGNOSIS + 1, `${what}: a diagnosis of ${d.message?.text.length}`);
  assert.ok(r.summary?.text.length <= TEST_MESSAGE + 400, `${what}: a summary of ${r.summary?.text.length}`);
  let logChars = 0;
  for (const l of r.logs) {
    assert.ok(l.text.length <= LOG_LINE + 1, `${what}: a log line of ${l.text.length}`);
    logChars += l.text.length;
  }
  assert.ok(logChars <= LOGS, `${what}: ${logChars} characters of logs`);
  // Control characters and lone surrogates would be escaped as \uXXXX (six characters each).
  assert.doesNotMatch(json, /\\u00[01][0-9a-f]|\\ud[89a-f]/i, `${what}: an escaped control character or surrogate`);
  return json.length;
}

/**
 * gradeExercise on hostile source: resolves (never rejects) within its timeout plus 1 s, with a bounded report. A
 * grading over the bound is done again (each grading is a fresh run), up to three in all: tests/helpers/timing.js.
 */
async function gradeHostile(id, source, what) {
  const grade = async () => {
    const t0 = performance.now();
    const r = await gradeExercise(id, source, { timeout: TIMEOUT });
    return { r, ms: performance.now() - t0 };
  };
  const { r, ms } = await grade();
  assert.equal(r.passed, false, `${what}: passed`);
  assertBounded(r, what);
  const { seen } = await timeCaseAsync(TIMEOUT + 1000, ms, async () => (await grade()).ms);
  assert.ok(Math.min(...seen) <= TIMEOUT + 1000, `${what}: grading took ${shown(seen)}`);
  return r;
}

// A 199,990-dimension shape: 0 and then 1e20s, so that it holds no numbers and stays within every wire limit.
// The shape as a Float64Array crosses the wire as one typed array: the page-side stages are what costs.
const HUGE_SHAPE =
  'const s = new Float64Array(199990).fill(1e20); s[0] = 0;\n  return { data: new Float64Array(0), shape: s }';
const HUGE_SHAPE_ARRAY = 'return { data: [], shape: [0, ...Array(199989).fill(1e20)] }';

test(
  "the issue's example: a 199,990-size shape from every function gives a bounded report in the timeout + 1 s, " +
    'saying what came back',
  { timeout: 300_000 },
  async () => {
    for (const { id } of exercises) {
      const r = await gradeHostile(id, everyFunction(id, HUGE_SHAPE), `${id}, 199,990-dimension shape`);
      // Tensor results say which shape came back, capped; others say that an object came back.
      const shaped = r.tests.filter((t) => /^returned shape/.test(t.message?.text || ''));
      if (['gelu', 'ffn', 'swiglu'].includes(id)) assert.ok(shaped.length > 0, id);
      for (const t of shaped) {
        assert.match(
          t.message?.text,
          /^returned shape \[0,1e\+20,1e\+20,1e\+20,1e\+20,1e\+20,1e\+20,1e\+20,… \(199,990 sizes\)\], expected \[/,
        );
      }
    }
    // The same shape as a plain array (the issue's own form): its cost on the wire is runner.js's; the text is ours.
    const r = await gradeExercise('gelu', everyFunction('gelu', HUGE_SHAPE_ARRAY), { timeout: TIMEOUT });
    assertBounded(r, 'gelu, 199,990-dimension plain-array shape');
    const t = r.tests.find((q) => q.status === 'fail');
    if (t)
      assert.match(
        t.message?.text,
        /^returned shape \[0,1e\+20,1e\+20,1e\+20,1e\+20,1e\+20,1e\+20,1e\+20,… \(199,990 sizes\)\], expected \[/,
      );
  },
);

test(
  'maximal and hostile results (200,000 numbers, 32 wide keys, control characters, lone surrogates, long logs) ' +
    'give bounded reports in the timeout + 1 s',
  { timeout: 600_000 },
  async () => {
    const bodies = {
      'a nested array of 199,999 numbers': 'return [new Float64Array(199999).fill(1e300)]',
      'a flat Float64Array of 199,999 NaN': 'return new Float64Array(199999).fill(NaN)',
      '32 keys of 62 characters, each a 6,000-dimension shape':
        'const o = {};\n  for (let i = 0; i < 32; i++) { const s = new Float64Array(6000).fill(1e20); s[0] = 0; ' +
        'o["k" + "x".repeat(59) + String(i).padStart(2, "0")] = { data: new Float64Array(0), shape: s } }\n  return o',
      'an error of 100,000 control characters': 'throw new Error("\\u0001".repeat(1e5))',
      'an error of 100,000 quotes named with 10,000 backslashes':
        'const e = new Error("\\"".repeat(1e5)); e.name = "\\\\".repeat(1e4); throw e',
      'an error of lone surrogates': 'throw new Error("\\ud800".repeat(1e5))',
      '300 log lines of control characters':
        'for (let i = 0; i < 300; i++) console.log("\\u0001".repeat(3000));\n  return 1',
    };
    const sizes = {};
    for (const { id } of exercises) {
      for (const [what, body] of Object.entries(bodies)) {
        const r = await gradeHostile(id, everyFunction(id, body), `${id}, ${what}`);
        sizes[what] = Math.max(sizes[what] || 0, JSON.stringify(r).length);
      }
    }
    console.log('largest report per attack (JSON characters):', sizes);
  },
);

/* ---------------- property test: the comparison and its messages ---------------- */

const rng = makeRng; // the hidden tests' seeded source: here it only picks which hostile values to make

const EXTREMES = [NaN, Infinity, -Infinity, -0, 0, 5e-324, Number.MAX_VALUE, -1e308, 2 ** 53 + 1, 1e21, 0.1, -1];
const LONG_TEXTS = () => [
  'x'.repeat(1e6),
  '\u0000\u0001\u001f'.repeat(3e4),
  '\ud800'.repeat(5e4),
  '"\\'.repeat(5e4),
  '😀'.repeat(4e4),
];
const PROTO_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'data', 'shape'];

const num = (v) => ({ k: 'number', v });
const own = (entries) => {
  // entries defined, not assigned, as runner.js does: "__proto__" is a key like any other
  const o = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true });
  return o;
};

/** A hostile wire value: legal (what runner.js lets through) when `legal`, else anything a bug could hand over. */
function hostileWire(r, legal, depth = 0) {
  const long = LONG_TEXTS();
  // Large parts only at the top, so that a value stays within the wire's 200,000 numbers.
  const big = (list) => (depth === 0 ? r.pick(list) : r.pick(list.slice(0, 2)));
  const sizes = () => {
    const n = big([0, 1, 9, 4096, 199990]);
    const s = new Float64Array(n).fill(r.pick([1, 1e20, 2 ** 53]));
    if (n) s[0] = 0;
    return r.next() < 0.5 ? { k: 'typed', type: 'Float64Array', data: s } : { k: 'array', items: Array.from(s, num) };
  };
  const kinds = [
    () => num(r.pick(EXTREMES)),
    () => ({
      k: 'typed',
      type: legal ? 'F'.repeat(40) : r.pick(long),
      data: new Float64Array(big([0, 1, 8, 199999])).fill(r.pick(EXTREMES)),
    }),
    () => ({ k: 'bad', what: legal ? '\u0001'.repeat(200) : r.pick(long) }),
    () => ({
      k: 'object',
      entries: own([
        ['data', { k: 'typed', type: 'Float64Array', data: new Float64Array(0) }],
        ['shape', sizes()],
      ]),
    }),
    () => ({
      k: 'object',
      entries: own([
        ['data', { k: 'array', items: Array.from({ length: big([6, 8, 199999]) }, () => num(r.pick(EXTREMES))) }],
        ['shape', { k: 'array', items: [num(r.pick([2, 6, 8, 1.5, -1, NaN]))] }],
      ]),
    }),
    () => ({
      k: 'object',
      entries: own(
        Array.from({ length: 32 }, (_, i) => [
          `${r.pick(PROTO_KEYS)}${'_'.repeat(40)}${i}`.slice(0, 64),
          depth < 3 ? hostileWire(r, legal, depth + 1) : num(1),
        ]),
      ),
    }),
    () => ({
      k: 'object',
      entries: own(PROTO_KEYS.map((k) => [k, depth < 3 ? hostileWire(r, legal, depth + 1) : num(2)])),
    }),
    () => ({
      k: 'array',
      items: Array.from({ length: r.pick([1, 2, 8]) }, () => (depth < 8 ? hostileWire(r, legal, depth + 1) : num(3))),
    }),
    () => {
      let v = num(1); // nested 9 deep (the wire's limit), one item per level
      for (let i = 0; i < 9; i++) v = { k: 'array', items: [v] };
      return v;
    },
  ];
  const illegal = [
    () => ({ k: 'array', items: new Array(2 ** 32 - 1) }), // declared, never filled
    () => ({ k: 'array', items: Object.assign(new Array(1e9), { 0: num(1) }) }),
    () => ({ k: 'typed', type: 'Float64Array', data: { length: 2 ** 32 - 1 } }),
    () => ({
      k: 'object',
      entries: own([
        ['data', { k: 'array', items: new Array(2 ** 31) }],
        ['shape', { k: 'array', items: new Array(2 ** 31) }],
      ]),
    }),
    () => ({
      k: 'object',
      entries: {
        get data() {
          throw new Error('x'.repeat(1e6));
        },
        shape: num(1),
      },
    }),
    () => ({
      k: 'object',
      entries: own(Array.from({ length: 10000 }, (_, i) => [r.pick(long).slice(0, 200) + i, num(i)])),
    }),
    () => ({ k: 'object', entries: null }),
    () =>
      new Proxy(
        {},
        {
          get() {
            throw new Error('trap');
          },
          ownKeys() {
            throw new Error('trap');
          },
        },
      ),
    () => {
      const a = { k: 'array', items: [] };
      a.items.push(a, a); // a cycle
      return a;
    },
    () => {
      let v = num(1); // nested 10,000 deep
      for (let i = 0; i < 10000; i++) v = { k: 'array', items: [v] };
      return v;
    },
    () => ({ k: 'number', v: '1' }),
    () => ({ k: r.pick(long) }),
    () => undefined,
  ];
  const list = legal || r.next() < 0.5 ? kinds : illegal;
  return list[r.int(0, list.length - 1)]();
}

const TOL = { atol: 1e-5, rtol: 1e-5 };
const SPECS = [
  spec.tensor({ data: new Float32Array(8), shape: [8] }),
  spec.tensor({ data: new Float32Array(6).fill(1), shape: [2, 3] }),
  { ...spec.integers([3, 1, 4, 0, 2]), item: 'memory', order: 'strongest' },
  spec.integer(4722432),
  spec.number(0.8076923076923077),
  spec.object({ dX: spec.tensor({ data: new Float32Array(4), shape: [2, 2] }), top: spec.integers([1, 0]) }),
];

test(
  'property: compareValue on 600 generated hostile values returns a bounded result quickly, never throws',
  { timeout: 300_000 },
  () => {
    let slowest = 0;
    // Each case from its own seed, so that a slow one is timed again on a value made afresh (compare.js reads a
    // value once and keeps the reading): tests/helpers/timing.js.
    const make = (i) => {
      const r = rng(18_000 + i);
      return [hostileWire(r, false), r.pick(SPECS)];
    };
    const timed = (i) => {
      const [w, s] = make(i);
      const t0 = performance.now();
      const c = compareValue(w, s, TOL);
      return { c, ms: performance.now() - t0 };
    };
    for (let i = 0; i < 600; i++) {
      const { c, ms: first } = timed(i);
      const { ms, seen } = timeCase(500, first, () => timed(i).ms);
      slowest = Math.max(slowest, ms);
      assert.equal(typeof c.pass, 'boolean', `case ${i}`);
      // a problem is a message (its pieces cut where made) or a text; the report cuts its English to PROBLEM
      const problem = String(c.problem ?? '');
      assert.ok(problem.length <= PROBLEM + 1, `case ${i}: a problem of ${problem.length}`);
      const { parts, ...head } = c;
      assert.ok(JSON.stringify(head).length < 2 * PROBLEM + 400, `case ${i}: ${JSON.stringify(head).length}`);
      assert.ok(ms <= 500, `case ${i} took ${shown(seen)}`);
    }
    console.log(`slowest compareValue: ${slowest.toFixed(1)} ms`);
    // The messages still say what came back: a capped shape, a capped key list.
    const huge = compareValue(hostileShape(199990), SPECS[0], TOL);
    assert.equal(
      String(huge.problem),
      'returned shape [0,1e+20,1e+20,1e+20,1e+20,1e+20,1e+20,1e+20,… (199,990 sizes)], expected [8]',
    );
  },
);

function hostileShape(n) {
  const s = new Float64Array(n).fill(1e20);
  s[0] = 0;
  return {
    k: 'object',
    entries: {
      data: { k: 'typed', type: 'Float64Array', data: new Float64Array(0) },
      shape: { k: 'typed', type: 'Float64Array', data: s },
    },
  };
}

test('property: key-rename suggestions with many or long keys are bounded, quick, and still find the spelling', () => {
  const expected = ['dX', 'dWGate', 'dWUp', 'dWDown'];
  const many = Array.from({ length: 20000 }, (_, i) => `${'k'.repeat(1000)}${i}`);
  for (const got of [
    many,
    [...many, 'dW_gate'],
    ['dw_gate', ...many],
    Array.from({ length: 32 }, (_, i) => `dX${'_'.repeat(60)}${i}`),
  ]) {
    const t0 = performance.now();
    const p = keysProblem(expected, got);
    assert.ok(performance.now() - t0 < 500, 'keysProblem took long');
    assert.ok(p.length <= PROBLEM + 1, `a keys problem of ${p.length}`);
  }
  assert.match(
    keysProblem(expected, ['dx', 'dw_gate', 'dwUp', 'dWDown']),
    /rename dx → dX, dw_gate → dWGate, dwUp → dWUp/,
  );
  assert.match(keysProblem(expected, ['dw_gate', ...many]), /rename dw_gate → dWGate/);
});

/* ---------------- property test: diagnosis and report on hostile results ---------------- */

const hostileErrors = (r) => ({
  name: r.pick(['E'.repeat(1e5), '\u0000'.repeat(5e3), 'TypeError']),
  message: r.pick(LONG_TEXTS()),
  line: r.pick([3, -1, 2 ** 60, 1.5, NaN]),
  column: null,
});

test(
  'property: diagnosis and report of generated hostile results: bounded reports, each within 1 s, no rejection',
  { timeout: 600_000 },
  async () => {
    let slowest = 0;
    for (const [e, ex] of exercises.entries()) {
      const exercise = resolveExercise(ex.id);
      const tests = generateTests(exercise, 1, api);
      // Each round from its own seed, so that a slow one is graded again on results made afresh (compare.js reads
      // a value once and keeps the reading): tests/helpers/timing.js.
      const makeRun = (round) => {
        const r = rng(1818 * 100 + e * 10 + round);
        const legal = round < 4;
        const results = tests.map(() => {
          const p = r.next();
          if (p < 0.15) return { ok: false, error: hostileErrors(r) };
          if (p < 0.2) return null;
          return { ok: true, value: hostileWire(r, legal) };
        });
        const run = {
          status: r.pick(['done', 'done', 'timeout', 'crashed']),
          crash: r.pick(LONG_TEXTS()),
          compileError: null,
          lastIndex: r.int(0, tests.length - 1),
          results,
          logs: Array.from({ length: 300 }, () => ({
            level: r.pick(['log', 'evil', null]),
            text: r.pick(LONG_TEXTS()),
          })),
          ms: 1,
        };
        return run;
      };
      const report = async (round) => {
        const run = makeRun(round);
        const t0 = performance.now();
        const rep = await reportRun(exercise, tests, run, { api });
        return { rep, ms: performance.now() - t0 };
      };
      for (let round = 0; round < 8; round++) {
        const { rep, ms: first } = await report(round);
        const { ms, seen } = await timeCaseAsync(1000, first, async () => (await report(round)).ms);
        slowest = Math.max(slowest, ms);
        assertBounded(rep, `${ex.id}, round ${round}`);
        assert.ok(ms <= 1000, `${ex.id}, round ${round}: ${shown(seen)}`);
      }
    }
    console.log(`slowest report: ${slowest.toFixed(0)} ms`);
  },
);

test('a compile error of control characters, and a sandbox crash message, are cut and shown as symbols', async () => {
  const exercise = resolveExercise('gelu');
  const tests = generateTests(exercise, 1, api);
  const compiled = await reportRun(
    exercise,
    tests,
    {
      status: 'done',
      compileError: { name: 'SyntaxError', message: '\u0007'.repeat(1e5), line: 1, column: 1 },
      results: tests.map(() => null),
      logs: [],
    },
    { api },
  );
  assertBounded(compiled, 'compile error');
  assert.match(compiled.summary?.text, /^Your code has a syntax error: ␇␇␇/);
  const crashed = await reportRun(
    exercise,
    tests,
    { status: 'crashed', crash: 'x'.repeat(1e6), compileError: null, results: tests.map(() => null), logs: [] },
    { api },
  );
  assertBounded(crashed, 'crash');
});

/* ---------------- an author's exercise with many or large tests ---------------- */

const relu = (z) => (z > 0 ? z : 0);
const SWEEP = 199_000; // inputs in one test, within the wire's 200,000 numbers per result

const sweep = defineExercise({
  id: 'hardening-relu-sweep',
  title: 'ReLU over a sweep',
  level: 'Test',
  prompt: '<p>Write <code>reluAll(x)</code>.</p>',
  functions: { reluAll: { params: ['x (n)'], returns: 'tensor' } },
  starter: 'function reluAll(x) {}',
  solution: 'function reluAll(x) { return map(x, (z) => Math.max(0, z)) }',
  hints: ['max(0, z)'],
  tests: (g) => [
    {
      name: 'a sweep of 199,000 inputs in [-2, 3]',
      fn: 'reluAll',
      args: [{ data: Float64Array.from({ length: SWEEP }, (_, i) => -2 + (5 * i) / (SWEEP - 1)), shape: [SWEEP] }],
    },
    {
      name: 'a sweep of 199,000 inputs in [-1, 1.5]',
      fn: 'reluAll',
      args: [{ data: Float64Array.from({ length: SWEEP }, (_, i) => -1 + (2.5 * i) / (SWEEP - 1)), shape: [SWEEP] }],
    },
    ...Array.from({ length: 198 }, (_, i) => ({
      name: `random vector ${i}`,
      fn: 'reluAll',
      args: [g.rand([7], -3, 3)],
    })),
  ],
  reference: { reluAll: ([x]) => ({ data: Float64Array.from(x.data, relu), shape: x.shape }) },
  variants: [
    {
      id: 'identity',
      fn: 'reluAll',
      title: 'No clamp',
      message: 'You returned x itself.',
      compute: ([x]) => ({ data: Float64Array.from(x.data), shape: x.shape }),
    },
  ],
});

test(
  "an author's exercise: a direction over 398,000 inputs (no stack overflow), and 200 failing tests' texts " +
    'within the report bound',
  { timeout: 300_000 },
  async () => {
    // Wrong for negative inputs only (-1 instead of 0): about 160,000 wrong inputs, more right ones.
    const r = await gradeHostile(sweep.id, 'function reluAll(x) { return map(x, (z) => (z < 0 ? -1 : z)) }', 'sweep');
    const d = r.diagnoses.find((q) => q.id === 'direction');
    assert.ok(d, JSON.stringify(r.diagnoses));
    assert.match(d.message?.text, /^It is wrong only for inputs at or below -7\.5\d*e-6 \(every larger x is right\)/);
    // 200 tests (the README's bound) that each throw 5,000 quotes, after 200 log lines of quotes: the tests' texts
    // share one budget, the logs another.
    const q = await gradeHostile(
      sweep.id,
      'for (let i = 0; i < 200; i++) console.log("\\"".repeat(2000));\n' +
        'function reluAll(x) { const e = new Error("\\"".repeat(5000)); e.name = "\\\\".repeat(200); throw e }',
      'quotes',
    );
    assert.equal(q.tests.length, 200);
    assert.ok(q.tests.every((t) => t.status === 'error' && t.message?.text.length > 0));
    console.log(`200 throwing tests: a report of ${JSON.stringify(q).length} JSON characters`);
  },
);

test(
  'grading page values (checkExercise) with sparse arrays, prototype keys and huge declared lengths is bounded',
  { timeout: 120_000 },
  async () => {
    const exercise = resolveExercise('swiglu-backward');
    const tests = generateTests(exercise, 1, api);
    const sparse = [];
    sparse.length = 2 ** 32 - 1;
    const proto = JSON.parse('{"__proto__": [1, 2], "constructor": 3, "dX": {"data": [1], "shape": [1]}}');
    const values = tests.map(
      (t, i) => [sparse, proto, { dX: sparse, dWGate: proto, dWUp: [[1, , 3]], dWDown: new Float32Array(5) }][i % 3],
    );
    const t0 = performance.now();
    const { outcomes, diagnoses } = await gradeValues(exercise, tests, values, api);
    assert.ok(performance.now() - t0 < 2000, `${(performance.now() - t0).toFixed(0)} ms`);
    assert.ok(outcomes.every((o) => !o.pass && (!o.problem || String(o.problem).length <= PROBLEM + 1)));
    for (const d of diagnoses) assert.ok(d.message?.text.length <= DIAGNOSIS + 1);
    assert.equal(toWire(sparse).k, 'bad');
    assert.deepEqual(Object.keys(toWire(proto).entries), ['__proto__', 'constructor', 'dX']);
  },
);
