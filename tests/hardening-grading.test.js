// Page-side grading of hostile results (issue 18): texts cut where they are made; bounded report size and time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareValue, keysProblem, expect as spec } from '../web/sandbox/compare.js';
import { makeRng } from '../web/sandbox/exercises/index.js';

// The bounds web/sandbox/README.md states ("Bounds of a grading report"), written out here, not imported. A cap is
// the characters kept: a text cut short has one more, the final '…'.
const PROBLEM = 600;

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
    const r = rng(18);
    let slowest = 0;
    for (let i = 0; i < 600; i++) {
      const w = hostileWire(r, false);
      const s = r.pick(SPECS);
      const t0 = performance.now();
      const c = compareValue(w, s, TOL);
      const ms = performance.now() - t0;
      slowest = Math.max(slowest, ms);
      assert.equal(typeof c.pass, 'boolean', `case ${i}`);
      if (c.problem) assert.ok(c.problem.length <= PROBLEM + 1, `case ${i}: a problem of ${c.problem.length}`);
      const { parts, ...head } = c;
      assert.ok(JSON.stringify(head).length < 2 * PROBLEM + 400, `case ${i}: ${JSON.stringify(head).length}`);
      assert.ok(ms < 500, `case ${i} took ${ms.toFixed(0)} ms`);
    }
    console.log(`slowest compareValue: ${slowest.toFixed(1)} ms`);
    // The messages still say what came back: a capped shape, a capped key list.
    const huge = compareValue(hostileShape(199990), SPECS[0], TOL);
    assert.equal(
      huge.problem,
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
