// The { out } option of the elementwise activations and activationGrad: bit-identical to fresh results, in place,
// overlapping views, and bad options refused before anything is written.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import * as ffn from 'ffn-lab';
import { rng } from '../helpers/numeric.js';
import { assertHeapFlat } from '../helpers/heap.js';
// Only to get a view of the module's own wasm memory (no public function hands one out) and mapChunks' block
// size (the sizes below straddle its block boundaries): the same module
// instance that 'ffn-lab' loads, since both resolve to this package's web/runtime.js.
import { wasm } from '../../web/runtime.js';
import { MAP_CHUNK } from '../../web/heap.js';

before(() => ffn.ready());

const SIZES = [0, 1, 3, 4, 5, MAP_CHUNK - 1, MAP_CHUNK, MAP_CHUNK + 1, 2 * MAP_CHUNK + 7];

// Every elementwise entry point as (name, call(x, opts?)): the seven activations and activationGrad for each name.
const FORWARD = [
  ['relu', ffn.relu],
  ['relu2', ffn.relu2],
  ['sigmoid', ffn.sigmoid],
  ['silu', ffn.silu],
  ['gelu', ffn.gelu],
  ['geluTanh', ffn.geluTanh],
  ['geluSigmoid', ffn.geluSigmoid],
];
const CALLS = [
  ...FORWARD.map(([name, f]) => ({ label: name, fnName: name, call: (x, o) => (o === undefined ? f(x) : f(x, o)) })),
  ...ffn.activations.map((a) => ({
    label: `activationGrad('${a}')`,
    fnName: 'activationGrad',
    call: (x, o) => (o === undefined ? ffn.activationGrad(a, x) : ffn.activationGrad(a, x, o)),
  })),
];

/** n floats: specials first (NaN, infinities, signed zeros, large, tiny), then uniform in [-12, 12). */
function input(n, seed) {
  const specials = [NaN, Infinity, -Infinity, 0, -0, 1e4, -1e4, 1e-40, -0.752, 3];
  const r = rng(seed);
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) x[i] = i < specials.length ? specials[i] : (r() - 0.5) * 24;
  return x;
}

/** Bitwise equality of two Float32Arrays (NaN payloads and signed zeros included). */
function assertSameBits(got, want, msg) {
  assert.equal(got.length, want.length, `${msg}: length`);
  const g = new Uint32Array(got.buffer, got.byteOffset, got.length);
  const w = new Uint32Array(want.buffer, want.byteOffset, want.length);
  for (let i = 0; i < w.length; i++) {
    if (g[i] !== w[i])
      assert.fail(
        `${msg}: element ${i} is ${got[i]} (0x${g[i].toString(16)}), the fresh result is ${want[i]} ` +
          `(0x${w[i].toString(16)})`,
      );
  }
}

/** A Float32Array filled with a pattern no activation produces everywhere, to see every element written. */
function garbage(n) {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = -1234.5 - i;
  return a;
}

test(
  '{ out } gives bit-identical results to the fresh array, for every activation and ' +
    'activationGrad, sizes 0 to 2*MAP_CHUNK+7',
  () => {
    for (const n of SIZES) {
      const x = input(n, n + 1);
      const xCopy = x.slice();
      for (const c of CALLS) {
        const fresh = c.call(x);
        const out = garbage(n);
        const res = c.call(x, { out });
        assert.equal(res.data, out, `${c.label} n=${n}: returns out as its data`);
        assert.deepEqual(res.shape, [n]);
        assertSameBits(out, fresh.data, `${c.label} n=${n}`);
        // the shape is a fresh copy, x is untouched
        const t = { data: x, shape: [n] };
        const res2 = c.call(t, { out: garbage(n) });
        assert.notEqual(res2.shape, t.shape, `${c.label}: shape is a copy`);
        assert.deepEqual(res2.shape, t.shape);
      }
      assertSameBits(x, xCopy, `x unchanged (n=${n})`);
    }
  },
);

test('without opts, with {} or { out: undefined } the result is a fresh array as before', () => {
  const x = input(100, 5);
  for (const c of CALLS) {
    const want = c.call(x).data;
    for (const o of [undefined, null, {}, { out: undefined }]) {
      const y = c.call(x, o).data;
      assert.ok(
        y instanceof Float32Array && y !== x && y.buffer !== x.buffer,
        `${c.label} ${String(o)}: a fresh array`,
      );
      assertSameBits(y, want, `${c.label} opts ${JSON.stringify(o)}`);
    }
  }
});

test('in place: out === x (a Float32Array, or the data of a tensor x) equals the fresh result', () => {
  for (const n of [1, 5, MAP_CHUNK, 2 * MAP_CHUNK + 7]) {
    const x0 = input(n, 100 + n);
    for (const c of CALLS) {
      const want = c.call(x0).data;
      const a = x0.slice();
      const res = c.call(a, { out: a });
      assert.equal(res.data, a);
      assertSameBits(a, want, `${c.label} in place, n=${n}`);
      const b = x0.slice();
      const res2 = c.call({ data: b, shape: [1, n] }, { out: b });
      assert.equal(res2.data, b);
      assert.deepEqual(res2.shape, [1, n]);
      assertSameBits(b, want, `${c.label} in place on a tensor's data, n=${n}`);
    }
  }
});

test('out and x overlapping views of one buffer at different offsets (either way round) give the right answer', () => {
  for (const n of [5, MAP_CHUNK, MAP_CHUNK + 1, 2 * MAP_CHUNK + 7]) {
    const x0 = input(n, 200 + n);
    for (const c of CALLS) {
      const want = c.call(x0).data;
      // out starts one float after x: a block written to out would land on input not yet read
      const buf = new Float32Array(n + 1);
      buf.set(x0, 0);
      const x = buf.subarray(0, n);
      const out = buf.subarray(1, n + 1);
      assert.equal(c.call(x, { out }).data, out);
      assertSameBits(out, want, `${c.label} out = x shifted by +1, n=${n}`);
      assert.ok(Object.is(buf[0], x0[0]), 'the float before out is untouched');
      // out starts one float before x
      const buf2 = new Float32Array(n + 1);
      buf2.set(x0, 1);
      const out2 = buf2.subarray(0, n);
      c.call({ data: buf2.subarray(1, n + 1), shape: [n] }, { out: out2 });
      assertSameBits(out2, want, `${c.label} out = x shifted by -1, n=${n}`);
      assert.ok(Object.is(buf2[n], x0[n - 1]), 'the float after out is untouched');
      // same buffer, disjoint views
      const buf3 = new Float32Array(2 * n);
      buf3.set(x0, 0);
      c.call(buf3.subarray(0, n), { out: buf3.subarray(n) });
      assertSameBits(buf3.subarray(n), want, `${c.label} disjoint views of one buffer, n=${n}`);
      assertSameBits(buf3.subarray(0, n), x0, `${c.label} disjoint views: x untouched`);
    }
  }
});

test('x as a nested number array or a Float64Array works with { out }', () => {
  const rows = [
    [-3, -0.752, 0, 0.5],
    [1, 2.5, -1e4, 7],
    [NaN, -0, 12, -12],
  ];
  const flat = rows.flat();
  const f64 = Float64Array.from(flat, (v, i) => v + i / 3);
  for (const c of CALLS) {
    const out = garbage(12);
    const res = c.call(rows, { out });
    assert.equal(res.data, out);
    assert.deepEqual(res.shape, [3, 4]);
    assertSameBits(out, c.call(Float32Array.from(flat)).data, `${c.label} nested`);
    const out2 = garbage(12);
    const res2 = c.call(f64, { out: out2 });
    assert.equal(res2.data, out2);
    assert.deepEqual(res2.shape, [12]);
    assertSameBits(out2, c.call(Float32Array.from(f64)).data, `${c.label} Float64Array`);
    const out3 = garbage(12);
    c.call({ data: f64, shape: [2, 6] }, { out: out3 });
    assertSameBits(out3, c.call(Float32Array.from(f64)).data, `${c.label} tensor of Float64Array`);
  }
});

/** Bad options for x of shape [2,3] (6 floats), with the error each must raise. */
function badCases(fnName) {
  const heap = new Float32Array(wasm('test').memory.buffer, 1024, 6);
  return [
    { opts: 3, type: TypeError, re: new RegExp(`^${fnName}: opts must be an object \\{ out \\}; got number 3$`) },
    { opts: 'out', type: TypeError, re: new RegExp(`^${fnName}: opts must be an object .*; got the string "out"$`) },
    {
      opts: [new Float32Array(6)],
      type: TypeError,
      re: new RegExp(`^${fnName}: opts must be an object .*; got an array of length 1$`),
    },
    {
      opts: new Float32Array(6),
      type: TypeError,
      re: new RegExp(
        `^${fnName}: opts must be an object .*; got a Float32Array of length 6 \\(to write into an array, pass ` +
          `\\{ out: array \\}\\)$`,
      ),
    },
    {
      opts: { out: [0, 0, 0, 0, 0, 0] },
      type: TypeError,
      re: new RegExp(`^${fnName}: opts\\.out must be a Float32Array; got an array of length 6$`),
    },
    {
      opts: { out: new Float64Array(6) },
      type: TypeError,
      re: new RegExp(`^${fnName}: opts\\.out must be a Float32Array; got a Float64Array of length 6$`),
    },
    {
      opts: { out: new Int32Array(6) },
      type: TypeError,
      re: new RegExp(`^${fnName}: opts\\.out must be a Float32Array; got a Int32Array of length 6$`),
    },
    {
      opts: { out: null },
      type: TypeError,
      re: new RegExp(`^${fnName}: opts\\.out must be a Float32Array; got null$`),
    },
    {
      opts: { out: new Float32Array(5) },
      type: RangeError,
      re: new RegExp(`^${fnName}: opts\\.out has 5 floats but x \\[2,3\\] needs 6$`),
    },
    {
      opts: { out: new Float32Array(7) },
      type: RangeError,
      re: new RegExp(`^${fnName}: opts\\.out has 7 floats but x \\[2,3\\] needs 6$`),
    },
    {
      opts: { out: new Float32Array(0) },
      type: RangeError,
      re: new RegExp(`^${fnName}: opts\\.out has 0 floats but x \\[2,3\\] needs 6$`),
    },
    {
      opts: { out: heap },
      type: RangeError,
      re: new RegExp(
        `^${fnName}: opts\\.out is a view of ffn-lab's own wasm memory .*length 6.*; pass an ordinary Float32Array$`,
      ),
    },
  ];
}

test(
  'bad options throw the right error naming the function, opts.out and the sizes, and ' + 'leave out (and x) untouched',
  () => {
    const x = { data: Float32Array.from([-2, -1, 0, 1, 2, 3]), shape: [2, 3] };
    for (const c of CALLS) {
      for (const bc of badCases(c.fnName)) {
        const out =
          bc.opts && bc.opts.out instanceof Float32Array
            ? bc.opts.out
            : bc.opts instanceof Float32Array
              ? bc.opts
              : null;
        // (the heap view is only read: writing there would corrupt the module)
        if (out && out.buffer !== wasm('test').memory.buffer) out.set(garbage(out.length));
        const before = out && out.slice();
        assert.throws(
          () => c.call(x, bc.opts),
          (e) => e instanceof bc.type && bc.re.test(e.message),
          `${c.label} with ${JSON.stringify(bc.opts)}`,
        );
        if (out) assertSameBits(out, before, `${c.label}: out untouched after the error`);
        assertSameBits(x.data, Float32Array.from([-2, -1, 0, 1, 2, 3]), `${c.label}: x untouched`);
      }
      // a bad x with a good out: out untouched too
      const out = garbage(6);
      assert.throws(() => c.call([[1, 2], [3]], { out }), TypeError);
      assertSameBits(out, garbage(6), `${c.label}: out untouched after a bad x`);
    }
  },
);

test('1000 calls failing on their options keep the wasm heap flat, and the module works after them', () => {
  const x = { data: Float32Array.from([-2, -1, 0, 1, 2, 3]), shape: [2, 3] };
  const fails = [];
  for (const c of CALLS)
    for (const bc of badCases(c.fnName)) fails.push(() => assert.throws(() => c.call(x, bc.opts), bc.type));
  ffn.gelu(x, { out: new Float32Array(6) });
  assertHeapFlat(ffn, fails, { warm: 200, n: 1000 });
  const y = ffn.gelu(x, { out: new Float32Array(6) }).data;
  assertSameBits(y, ffn.gelu(x).data, 'gelu still right after the failures');
});
