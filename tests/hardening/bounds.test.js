// What crosses from the sandbox worker into the page (Node): cleanWire's bounds, hostile messages, learner overrides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { gradeExercise, exercises } from 'ffn-lab/sandbox';
import { cleanWire, checkLimits } from '../../web/sandbox/run/protocol.js';
import { isMessage } from '../../web/i18n/index.js';
import { DEFAULT_LIMITS, LIMIT_CEILINGS } from '../../web/sandbox/run/index.js';
import { hostileWorkerUrl, checkHostileReport } from '../helpers/hostile-worker.js';
import { sabotage, sabotagedGelu, checkSabotagedGeluReport } from '../helpers/sabotage.js';
import { assertPassed } from '../helpers/report.js';
import { makeRng } from '../../web/sandbox/grade/exercises/index.js';
import { timeCase, timeCaseAsync, shown } from '../helpers/timing.js';

const L = DEFAULT_LIMITS; // 200,000 numbers, depth 8, 32 keys
const num = (v) => ({ k: 'number', v });
const arr = (items) => ({ k: 'array', items });
const obj = (entries) => ({ k: 'object', entries });
const typed = (data, type = 'Float32Array') => ({ k: 'typed', type, data });
// length n, two items present (setting a far index makes a sparse array at once; setting length to
// 2^24 would have V8 allocate and clear 2^24 slots first)
const sparse = (n) => {
  const a = [num(1)];
  a[n - 1] = num(1);
  return arr(a);
};
const nest = (levels) => {
  let w = num(1);
  for (let i = 0; i < levels; i++) w = arr([w]);
  return w;
};

/** cleanWire(w) -> { out } or { refused: message }, and how long it took (ms). */
function clean(w, limits = L) {
  const t0 = performance.now();
  try {
    const out = cleanWire(w, limits);
    return { out, ms: performance.now() - t0 };
  } catch (e) {
    assert.ok(e instanceof Error, `cleanWire threw a non-Error: ${String(e)}`);
    return { refused: e.message, ms: performance.now() - t0 };
  }
}

/**
 * An independent reading of a cleaned value: well-formed, within the limits, owned by the page (data
 * copied, not the input's). Returns the count of numbers.
 */
function checkClean(out, limits, depth = 0) {
  assert.ok(depth <= limits.maxDepth + 1, 'too deep');
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  switch (out.k) {
    case 'number':
      assert.equal(typeof out.v, 'number');
      return 1;
    case 'bad':
      // a message of the page's (report.worker.bad, or the text as it came: report.raw), its English cut
      assert.ok(isMessage(out.what));
      assert.ok(String(out.what).length <= 201);
      return 0;
    case 'typed':
      assert.ok(out.data instanceof Float64Array);
      assert.equal(out.data.buffer.byteLength, out.data.length * 8);
      assert.ok(out.type.length <= 41);
      return out.data.length;
    case 'array': {
      assert.ok(Array.isArray(out.items));
      let n = 0;
      for (let i = 0; i < out.items.length; i++) {
        assert.ok(Object.hasOwn(out.items, i), 'a hole in a cleaned array');
        n += checkClean(out.items[i], limits, depth + 1);
      }
      return n;
    }
    case 'object': {
      const keys = Object.keys(out.entries);
      assert.ok(keys.length <= limits.maxKeys);
      let n = 0;
      for (const k of keys) {
        assert.ok(k.length <= 64);
        const d = Object.getOwnPropertyDescriptor(out.entries, k);
        assert.ok('value' in d, 'an accessor in a cleaned object');
        n += checkClean(d.value, limits, depth + 1);
      }
      return n;
    }
    default:
      assert.fail(`unknown kind ${out.k}`);
  }
}

test('cleanWire: each limit holds at the bound and refuses one past it, by the size the value declares', () => {
  const ok = (w, limits) => {
    const r = clean(w, limits);
    assert.ok(r.out, `refused: ${r.refused}`);
    return r.out;
  };
  const no = (w, re, limits) => {
    const r = clean(w, limits);
    assert.ok(r.refused, 'accepted');
    assert.match(r.refused, re);
    return r;
  };
  // numbers: as items, as a typed array, and both together
  ok(arr(Array.from({ length: L.maxNumbers }, (_, i) => num(i))));
  no(arr(Array.from({ length: L.maxNumbers + 1 }, (_, i) => num(i))), /more than 200000/);
  assert.equal(ok(typed(new Float64Array(L.maxNumbers))).data.length, L.maxNumbers);
  no(typed(new Float64Array(L.maxNumbers + 1)), /more than 200000 numbers/);
  no(arr([typed(new Float64Array(L.maxNumbers)), num(1)]), /more than 200000 numbers/);
  // declared lengths: refused before a single item is read, however large
  // (a time over the bound is measured again on the same value, up to three attempts: tests/helpers/timing.js)
  const quick = (w, r, what) => {
    const { seen } = timeCase(100, r.ms, () => clean(w).ms);
    assert.ok(Math.min(...seen) <= 100, `${what} took ${shown(seen)}`);
  };
  for (const n of [L.maxNumbers + 1, 2 ** 24, 2 ** 30, 2 ** 32 - 1]) {
    const w = sparse(n);
    quick(w, no(w, new RegExp(`array of ${n} items`)), `${n} declared items`);
  }
  // within the declared bound, a hole is refused where it is (never walked past)
  const holey = [];
  holey[L.maxNumbers - 1] = num(1);
  quick(arr(holey), no(arr(holey), /malformed/), 'a hole at 199,999');
  // typed arrays: a Float64Array whose buffer holds exactly its numbers, nothing else
  no(typed(new Float64Array(new ArrayBuffer(2 ** 26), 0, 4)), /array of 4 numbers with a buffer of 67108864 bytes/);
  no(typed(new Float64Array(new ArrayBuffer(40), 8, 4)), /buffer of 40 bytes/);
  no(typed(new Float64Array(new SharedArrayBuffer(32))), /shared memory/);
  no(typed(new Float32Array(4)), /malformed/);
  no(typed(new BigInt64Array(4)), /malformed/);
  no(typed(new DataView(new ArrayBuffer(8))), /malformed/);
  no(typed(Object.setPrototypeOf({ length: 1e9 }, Float64Array.prototype)), /malformed/);
  const input = new Float64Array([1, 2, 3]);
  const copy = ok(typed(input)).data;
  assert.notEqual(copy, input, "the page keeps a view on the message's buffer");
  assert.deepEqual([...copy], [1, 2, 3]);
  // depth: the page allows one level more than the worker's maxDepth, never more
  ok(nest(L.maxDepth + 1));
  no(nest(L.maxDepth + 2), /nested deeper than 8/);
  const deep = nest(100_000);
  quick(deep, no(deep, /nested deeper/), '100,000 levels');
  // keys: count and length
  const keys = (n, len = 1) => {
    const entries = Array.from({ length: n }, (_, i) => [String(i).padStart(len, 'k'), num(i)]);
    return obj(Object.fromEntries(entries));
  };
  ok(keys(L.maxKeys));
  no(keys(L.maxKeys + 1), /33 keys, more than 32/);
  ok(keys(1, 64));
  no(keys(1, 65), /key longer than 64/);
  // parts: containers count too (an array of 150,000 arrays of two empty arrays is 450,001 parts)
  no(arr(Array.from({ length: 150_000 }, () => arr([arr([]), arr([])]))), /too many parts/);
  // texts are cut where they come in
  const long = 'x'.repeat(1e7);
  assert.equal(String(ok({ k: 'bad', what: { key: 'raw', params: { text: long }, text: long } }).what).length, 201);
  assert.equal(ok(typed(new Float64Array(1), 'y'.repeat(1e7))).type.length, 41);
  // limits passed in are checked against ceilings
  assert.deepEqual(checkLimits({ maxNumbers: 10 }), { ...L, maxNumbers: 10 });
  const badLimits = [{ maxNumbers: LIMIT_CEILINGS.maxNumbers + 1 }, { maxDepth: -1 }, { maxKeys: 1.5 }];
  for (const bad of [...badLimits, { maxNumbers: '9' }, { maxDepth: Infinity }]) {
    const said = /^limits\.max\w+ must be a whole number from 0 to \d+; got /;
    const clear = (e) => e instanceof RangeError && said.test(e.message);
    assert.throws(() => checkLimits(bad), clear, JSON.stringify(bad));
  }
});

test('cleanWire: prototype keys stay plain, getters are read once (or refuse the value), odd objects refused', () => {
  const entries = JSON.parse('{"__proto__": {"k": "number", "v": 1}, "constructor": {"k": "number", "v": 2}}');
  const out = cleanWire(obj(entries), L);
  assert.deepEqual(Object.keys(out.entries), ['__proto__', 'constructor']);
  assert.equal(Object.getPrototypeOf(out.entries), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(out.entries, '__proto__').value.v, 1);
  assert.equal({}.v, undefined, 'Object.prototype was changed');
  // a getter that answers differently on each read: read once, so what is checked is what is kept
  let reads = 0;
  const shifty = {
    get k() {
      reads += 1;
      return reads === 1 ? 'number' : 'array';
    },
    get v() {
      reads += 1;
      return 7;
    },
  };
  assert.deepEqual(cleanWire(shifty, L), { k: 'number', v: 7 });
  assert.equal(reads, 2);
  // a getter that throws: refused with the page's own words
  const malformed = { message: 'it is malformed' };
  assert.throws(
    () =>
      cleanWire(
        {
          k: 'array',
          get items() {
            throw new Error('from a getter');
          },
        },
        L,
      ),
    malformed,
  );
  assert.throws(
    () =>
      cleanWire(
        new Proxy(
          {},
          {
            getPrototypeOf() {
              throw new Error('trap');
            },
          },
        ),
        L,
      ),
    malformed,
  );
  const odd = [null, undefined, 7, 'number', [], new Map(), new Date(0), Object.create(Array.prototype), num(1n)];
  const shapes = [{ k: 'typed', type: 'x', data: [1, 2] }, obj(null), obj([]), obj(new Map()), arr({ length: 3 })];
  for (const w of [...odd, ...shapes]) {
    assert.throws(() => cleanWire(w, L), /malformed/, String(w && w.k));
  }
  // extreme numbers are numbers
  for (const v of [NaN, Infinity, -Infinity, -0, 5e-324, Number.MAX_VALUE]) {
    assert.ok(Object.is(cleanWire(num(v), L).v, v));
  }
});

/*
 * Generated hostile values: the wire format's own shapes with hostile sizes and contents (declared
 * lengths up to 2^32 - 1, holes, deep and wide nesting, long keys and texts, prototype keys, getters,
 * typed arrays on oversized, offset or shared buffers, garbage where a field belongs). The present
 * size stays small, so any time taken beyond a few milliseconds is time spent on a declared size.
 */
const LONG = 'x'.repeat(1e6);
const LONG_KEY = 'z'.repeat(1e5);
const ROOMY = new ArrayBuffer(2 ** 16); // views on it have a buffer larger than their length
const SHARED = new SharedArrayBuffer(1024);
function hostile(rng, depth = 0, budget = { parts: 200 }) {
  const pick = (list) => list[Math.floor(rng.next() * list.length)];
  budget.parts -= 1;
  const size = () => pick([0, 1, 2, 3, 31, 32, 33, 199_999, 200_000, 200_001, 2 ** 24, 2 ** 30, 2 ** 32 - 1]);
  const kinds = ['number', 'number', 'bad', 'typed', 'array', 'array', 'object', 'object', 'garbage', 'getter'];
  const kind = depth > 12 || budget.parts <= 0 ? 'number' : pick(kinds);
  switch (kind) {
    case 'number':
      return num(pick([0, -0, 1.5, NaN, Infinity, -Infinity, 5e-324, Number.MAX_VALUE, '1', null, 1n]));
    case 'bad':
      return {
        k: 'bad',
        what: pick([
          'short',
          LONG,
          42,
          null,
          {
            toString() {
              throw new Error('x');
            },
          },
        ]),
      };
    case 'typed': {
      const n = pick([0, 1, 4, 64]);
      const data = pick([
        () => new Float64Array(n),
        () => new Float64Array(ROOMY, 0, n),
        () => new Float64Array(ROOMY, 8, n),
        () => new Float64Array(SHARED, 0, n),
        () => new Float32Array(n),
        () => Array.from({ length: n }, () => 1),
        () => ({ length: 2 ** 32 - 1 }),
      ])();
      return { k: 'typed', type: pick(['Float32Array', LONG, 7]), data };
    }
    case 'array': {
      const present = Math.floor(rng.next() * 4);
      const items = Array.from({ length: present }, () => hostile(rng, depth + 1, budget));
      const declared = pick([present, present, size()]);
      if (declared > present) items[declared - 1] = num(1); // declared length, holes in between
      return arr(items);
    }
    case 'object': {
      const entries = {};
      const n = pick([0, 1, 3, 32, 33]);
      for (let i = 0; i < n; i++) {
        const key = pick(['__proto__', 'constructor', 'toString', `k${i}`, 'z'.repeat(64), 'z'.repeat(65), LONG_KEY]);
        const value = hostile(rng, depth + 1, budget);
        Object.defineProperty(entries, key, { value, enumerable: true, configurable: true, writable: true });
      }
      return obj(pick([entries, entries, null, [], 'x']));
    }
    case 'getter': {
      const inner = hostile(rng, depth + 1, budget);
      return pick([
        {
          get k() {
            throw new Error('getter');
          },
        },
        Object.defineProperties(
          {},
          {
            k: { get: () => inner.k, enumerable: true },
            v: { get: () => inner.v, enumerable: true },
            items: { get: () => inner.items, enumerable: true },
          },
        ),
      ]);
    }
    default:
      return pick([null, undefined, 0, 'x', [], [num(1)], new Map(), new Date(0), { k: 'nope' }, Object.create(null)]);
  }
}

test('cleanWire property: 3,000 hostile values each give a checked, bounded value or a refusal within 100 ms', () => {
  const rng = makeRng(18);
  let accepted = 0;
  let slowest = 0;
  for (let i = 0; i < 3000; i++) {
    const w = hostile(rng);
    const r = clean(w);
    // cleanWire keeps nothing between calls: a slow value is timed again on itself (tests/helpers/timing.js)
    const { ms, seen } = timeCase(100, r.ms, () => clean(w).ms);
    slowest = Math.max(slowest, ms);
    assert.ok(ms <= 100, `value ${i} took ${shown(seen)}`);
    if (r.out) {
      accepted += 1;
      assert.ok(checkClean(r.out, L) <= L.maxNumbers);
    } else {
      assert.match(r.refused, /^it (is|has|holds) /);
      assert.ok(r.refused.length < 200, r.refused);
    }
  }
  assert.ok(accepted > 100 && accepted < 2900, `${accepted} of 3000 accepted: the generator no longer covers both`);
  if (process.env.FFN_BOUNDS_DEBUG) console.log({ accepted, slowest });
});

// Hostile messages: 2^32 - 1 declared items, a 1 MiB buffer behind 4 numbers, deep, wide, long texts, stray
// indices, 2^32 - 1 log lines.
test('Node grader: a stand-in worker sending hostile messages: within timeout + 1 s, all refused/failed', async () => {
  const timeout = 2000;
  for (const { id } of exercises) {
    // every built-in: tensors, objects of tensors, indices, numbers
    const grade = async () => {
      const t0 = performance.now();
      const r = await gradeExercise(id, 'function f() {}', { workerUrl: hostileWorkerUrl(), timeout });
      return { r, ms: performance.now() - t0 };
    };
    const { r, ms: first } = await grade();
    // each grading is a fresh run: one over the bound is done again, up to three in all (tests/helpers/timing.js)
    const { ms, seen } = await timeCaseAsync(timeout + 1000, first, async () => (await grade()).ms);
    assert.ok(ms <= timeout + 1000, `${id}: the grader took ${shown(seen)}`);
    checkHostileReport(r, (t, name) => {
      assert.ok(t.message.text.length < 4000, `${name}: a message of ${t.message.text.length} characters`);
      assert.ok(JSON.stringify(t.message).length < 9000, `${name}: a message of ${JSON.stringify(t.message).length}`);
    });
    // forged log entries (null, a string, an unknown level, holes) are read as plain "log" lines, cut
    assert.deepEqual(r.logs.slice(0, 3), Array(3).fill({ level: 'log', text: '' }));
    assert.equal(r.logs[3].level, 'warn');
    assert.equal(r.logs[3].text.length, 2001);
  }
});

const GELU = exercises.find((e) => e.id === 'gelu').solution;

// Overrides of the built-ins the worker once used (push, typed-array constructors) no longer shape what it sends.
test('Node grader: overrides cannot make the worker send declared sizes; each run within timeout + 1 s', async () => {
  const timeout = 2000;
  const attacks = [
    'Array.prototype.push = function (x) { this[0] = x; this.length = 2 ** 32 - 1; return this.length };',
    'Array.prototype.push = function (x) { this[0] = x; this.length = 2 ** 30; return this.length };',
    'globalThis.Float64Array = function () { return new Float32Array(new ArrayBuffer(2 ** 26), 0, 4) };',
    'const F = Float64Array; globalThis.Float64Array = function (n) { return new F(new ArrayBuffer(2 ** 26), 0, n) };',
  ];
  for (const a of attacks) {
    const fns = 'function gelu(x) { return [1, 2] }\nfunction geluTanh(x) { return new Float32Array(x.data.length) }';
    const grade = async () => {
      const t0 = performance.now();
      const r = await gradeExercise('gelu', `${a}\n${fns}`, { timeout });
      return { r, ms: performance.now() - t0 };
    };
    const { r, ms: first } = await grade();
    const { ms, seen } = await timeCaseAsync(timeout + 1000, first, async () => (await grade()).ms);
    assert.ok(ms <= timeout + 1000, `${a}: ${shown(seen)}`);
    assert.equal(r.status, 'done', r.summary.text);
    assert.equal(r.passed, false);
    // the worker read the values with its own built-ins: what the page compares is what was returned
    for (const t of r.tests) {
      assert.ok(t.status === 'pass' || t.status === 'fail', `${a}: ${t.status} ${t.message?.text}`);
      if (t.fn === 'gelu') assert.match(t.message.text, /^returned shape \[2\], expected/, a);
    }
  }
});

function sabotaged(body) {
  return `${sabotage({ functionMethods: false })}\n${body}`;
}

const SABOTAGED_GELU = sabotagedGelu({ functionMethods: true });

/** Run worker.js directly (as the page does) and collect every message it sends until 400 ms after `done`. */
async function directRun(source, calls) {
  const w = new Worker(new URL('../../web/sandbox/run/worker.js', import.meta.url), { stdout: true, stderr: true });
  const messages = [];
  const nonce = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
  try {
    await new Promise((resolve, reject) => {
      w.on('error', reject);
      w.on('message', (m) => {
        messages.push(m);
        const run = { type: 'run', nonce, source, exports: ['f'], calls, limits: DEFAULT_LIMITS };
        if (m.type === 'ready') w.postMessage(run);
        if (m.type === 'done') setTimeout(resolve, 400);
      });
      setTimeout(() => reject(new Error('no done within 10 s')), 10_000);
    });
  } finally {
    await w.terminate();
  }
  return { messages, nonce };
}

// Overriding every built-in the worker calls after learner code (Promise.prototype.then included) changes nothing:
// the right results pass, one done, no callback of the worker reaches learner code, no learner text as the sandbox's.
test('worker primordials: learner overrides of built-ins reach no worker callback, text or result', async () => {
  // through the grader: the sabotaged but correct solution passes, as it does untouched
  checkSabotagedGeluReport(await gradeExercise('gelu', SABOTAGED_GELU, { timeout: 5000 }));
  assertPassed(await gradeExercise('gelu', GELU));

  // message by message, straight from the worker: the same, and nothing after done
  const GETTER = `function f(x) {
  __restore();
  return { get data() { __sabotage(); return [x]; }, shape: [1] };
}`;
  const THROWS = 'function f(x) {\n  __restore();\n  __sabotage();\n  throw new Error("mine");\n}';
  const TOP = '__sabotage();\nfunction f(x) { return 1; }';
  const f = (body) => sabotaged(`function f(x) {\n  __restore();\n${body}\n  __sabotage();\n  return y;\n}`);
  const cases = [
    ['a plain result', f('  const y = [x, x + 1];'), [{ k: 'array', items: [num(3), num(4)] }]],
    ['a typed array', f('  const y = new Float32Array([x, 2]);'), [typed(new Float64Array([3, 2]))]],
    ['an object', f('  const y = { data: [x], shape: [1] };'), [obj({ data: arr([num(3)]), shape: arr([num(1)]) })]],
    ['a refused result', f('  const y = { a: { b: { c: { d: { e: { f: { g: { h: { i: [x] } } } } } } } } };'), null],
    ['a thrown error', sabotaged(THROWS), null],
    ['a value whose getter overrides everything', sabotaged(GETTER), null],
    ['overrides at the top level (no call restores them)', sabotaged(TOP), null],
  ];
  for (const [what, source, values] of cases) {
    const { messages, nonce } = await directRun(source, [{ fn: 'f', args: [3] }]);
    const text = JSON.stringify(messages, (k, v) => (v instanceof Float64Array ? Array.from(v) : v));
    assert.ok(!text.includes('PWNED'), `${what}: learner text reached a message: ${text.slice(0, 1500)}`);
    assert.ok(!text.includes('sandbox failed'), `${what}: ${text.slice(0, 1500)}`);
    const dones = messages.filter((m) => m.type === 'done');
    assert.equal(dones.length, 1, `${what}: ${dones.length} done messages`);
    assert.equal(messages.at(-1).type, 'done', `${what}: a message after done`);
    assert.ok(messages.every((m) => m.type === 'ready' || m.nonce === nonce));
    const results = messages.filter((m) => m.type === 'result');
    if (values) {
      assert.equal(dones[0].compileError, null, what);
      assert.deepEqual(
        results.map((m) => m.result),
        values.map((value) => ({ ok: true, value })),
        what,
      );
    }
    // the worker's texts are messages { key, params, text }: their English is `text`
    if (what === 'a refused result') assert.match(results[0].result.error.message.text, /nested deeper than 8 levels/);
    const error = results[0].result.error;
    if (what === 'a thrown error') assert.deepEqual([error.name, error.message.text], ['Error', 'mine']);
  }
});
