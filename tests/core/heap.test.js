// Wasm heap discipline through 'ffn-lab': 10,000 mixed calls keep the heap flat, growth mid-sequence keeps results
// right, out-of-memory is a clean RangeError.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import * as ffn from 'ffn-lab';
import * as ref from '../helpers/ref.js';
import { rng, randTensor, assertClose, absT } from '../helpers/numeric.js';
import { assertHeapFlat } from '../helpers/heap.js';

before(() => ffn.ready());

test('10,000 mixed calls (including failing ones) keep the wasm heap flat', () => {
  const r = rng(21);
  const X = randTensor(r, [3, 6]);
  const W1 = randTensor(r, [6, 10]);
  const b1 = randTensor(r, [10]);
  const W2 = randTensor(r, [10, 6]);
  const b2 = randTensor(r, [6]);
  const Wu = randTensor(r, [6, 10]);
  const x1 = randTensor(r, [6]);
  const expectedY = ffn.ffn(X, W1, b1, W2, b2).data;
  assertClose({ data: expectedY, shape: [3, 6] }, ref.ffn(X, W1, b1, W2, b2), {
    rtol: 1e-5,
    atol: 1e-6,
    msg: 'before the run',
  });
  const calls = [
    () => ffn.gelu(X),
    () => ffn.activationGrad('silu', X),
    () => ffn.matmul(X, W1),
    () => ffn.ffn(X, W1, b1, W2, b2, { activation: 'relu' }),
    () => ffn.gatedFfn(X, W1, Wu, W2, { activation: 'gelu' }),
    () => ffn.swigluBackward(X, X, W1, Wu, W2),
    () => ffn.ffnMemories(x1, W1, b1, W2, 3),
    () => ffn.ffnParamCount(6, 10),
    () => assert.throws(() => ffn.ffn(X, W2, b1, W2, b2), RangeError),
    () => assert.throws(() => ffn.matmul([[1, 2], [3]], W1), TypeError),
    () =>
      assert.throws(
        () =>
          ffn.matmul(
            { data: new Float32Array(40000), shape: [40000, 1] },
            { data: new Float32Array(40000), shape: [1, 40000] },
          ),
        RangeError,
      ),
  ];
  assertHeapFlat(ffn, calls, { warm: 1100, n: 10000 });
  assert.deepEqual(Array.from(ffn.ffn(X, W1, b1, W2, b2).data), Array.from(expectedY), 'results unchanged');
});

test('a sequence that grows wasm memory mid-way keeps results correct', () => {
  const r = rng(22);
  const d = 8;
  const dff = 16;
  const W1 = randTensor(r, [d, dff]);
  const b1 = randTensor(r, [dff]);
  const W2 = randTensor(r, [dff, d]);
  const b2 = randTensor(r, [d]);
  const small = randTensor(r, [4, d]);
  const smallY = ffn.ffn(small, W1, b1, W2, b2);
  assertClose(smallY, ref.ffn(small, W1, b1, W2, b2), { rtol: 1e-5, atol: 1e-6, msg: 'before growth' });
  const s0 = ffn.heapStats();
  // ~26 MB in one call (X, Y, and the T x dff work buffer) on a 16 MiB start: memory must grow inside this call.
  const T = Math.ceil((2 * s0.memoryBytes) / (4 * (2 * d + dff))) + 1;
  const X = randTensor(r, [T, d], -2, 2);
  const Y = ffn.ffn(X, W1, b1, W2, b2);
  const s1 = ffn.heapStats();
  assert.ok(s1.memoryBytes > s0.memoryBytes, `memory grew (${s0.memoryBytes} -> ${s1.memoryBytes})`);
  assert.ok(s1.growths > s0.growths, 'emscripten_notify_memory_growth was called');
  assert.equal(s1.heapInUse, 0);
  // check a spread of rows against the float64 reference (the whole reference would take too long)
  const rows = [0, 1, 2, Math.floor(T / 3), Math.floor(T / 2), T - 2, T - 1];
  for (const i of rows) {
    const xi = { data: X.data.subarray(i * d, (i + 1) * d), shape: [1, d] };
    const want = ref.ffn(xi, W1, b1, W2, b2);
    assertClose({ data: Y.data.subarray(i * d, (i + 1) * d), shape: [1, d] }, want, {
      rtol: 1e-5,
      atol: 1e-6,
      msg: `row ${i}`,
    });
  }
  // calls after growth still agree with the ones before it (fresh views on the new buffer)
  assert.deepEqual(Array.from(ffn.ffn(small, W1, b1, W2, b2).data), Array.from(smallY.data));
  // a large elementwise call after growth
  const big = randTensor(r, [3_000_000], -8, 8);
  const g = ffn.gelu(big).data;
  for (const i of [0, 1, 12345, 2_999_999]) {
    const e = ref.gelu([big.data[i]]).data[0];
    assert.ok(Math.abs(g[i] - e) <= 1e-6 * Math.max(1, Math.abs(e)), `gelu at ${i}`);
  }
  assert.equal(ffn.heapStats().heapInUse, 0);
});

test(
  'a request that fits the ceiling but not the heap fails with a RangeError (malloc returned ' +
    '0), and the module recovers',
  () => {
    // (23170, 0) @ (0, 23170): no input data, a 2,147,395,600-byte output: under the 2 GiB ceiling, but the
    // heap already holds the static data and stack, so memory cannot grow that far and malloc returns 0.
    const s0 = ffn.heapStats();
    const n = 23170;
    assert.throws(
      () => ffn.matmul({ data: [], shape: [n, 0] }, { data: [], shape: [0, n] }),
      (e) =>
        e instanceof RangeError && /^matmul: out of wasm memory/.test(e.message) && e.message.includes(`[${n},${n}]`),
    );
    const s1 = ffn.heapStats();
    assert.equal(s1.heapInUse, s0.heapInUse);
    const r = rng(23);
    const A = randTensor(r, [5, 7]);
    const B = randTensor(r, [7, 3]);
    assertClose(ffn.matmul(A, B), ref.matmul(A, B), { rtol: 1e-6, scale: ref.matmul(absT(A), absT(B)) });
  },
);
