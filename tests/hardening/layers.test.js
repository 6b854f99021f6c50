// Resident layers and memory limits under stress: growth while layers are alive, disposed layers, a 60000 x 60000
// request refused before allocating, empty giant shapes, and a short soak.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as ffn from 'ffn-lab';
import * as ref from '../helpers/ref.js';
import { rng, randTensor } from '../helpers/numeric.js';

before(() => ffn.ready());

const heap = () => ffn.heapStats();

function assertCloseTo(what, got, want, scale) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < got.length; i++) {
    const tol = 1e-5 * (1 + scale);
    assert.ok(
      Math.abs(got[i] - want[i]) <= tol,
      `${what}[${i}]: got ${got[i]}, expected ${want[i]} (tolerance ${tol})`,
    );
  }
}

function bitsEqual(a, b) {
  return (
    a.length === b.length &&
    Buffer.compare(
      Buffer.from(a.buffer, a.byteOffset, a.byteLength),
      Buffer.from(b.buffer, b.byteOffset, b.byteLength),
    ) === 0
  );
}

function makeLayers(r, d, f) {
  const lin = { W: randTensor(r, [d, f]), b: randTensor(r, [f]), activation: 'gelu' };
  const cf = {
    W1: randTensor(r, [d, f]),
    b1: randTensor(r, [f]),
    W2: randTensor(r, [f, d]),
    b2: randTensor(r, [d]),
    activation: 'relu2',
  };
  const gf = { Wg: randTensor(r, [d, f]), Wu: randTensor(r, [d, f]), Wd: randTensor(r, [f, d]), activation: 'silu' };
  return [
    {
      name: 'createLinear',
      layer: ffn.createLinear(lin),
      want: (X) => ref.activation('gelu', ref.addBias(ref.matmul(X, lin.W), lin.b)),
    },
    {
      name: 'createFfn',
      layer: ffn.createFfn(cf),
      want: (X) => ref.ffn(X, cf.W1, cf.b1, cf.W2, cf.b2, { activation: 'relu2' }),
    },
    {
      name: 'createGatedFfn',
      layer: ffn.createGatedFfn(gf),
      want: (X) => ref.gatedFfn(X, gf.Wg, gf.Wu, gf.Wd, { activation: 'silu' }),
    },
  ];
}

function scaleOf(t) {
  let m = 0;
  for (const v of t.data) m = Math.max(m, Math.abs(v));
  return m;
}

test(
  'memory growth while resident layers are alive: their results stay right, before and after, also for a ' +
    'forward that grows memory itself',
  () => {
    const r = rng(606);
    const h0 = heap();
    const layers = makeLayers(r, 24, 72);
    const X = randTensor(r, [5, 24]);
    const first = layers.map(({ name, layer, want }) => {
      const y = layer.forward(X);
      const w = want(X);
      assertCloseTo(`${name} before growth`, y.data, w.data, scaleOf(w));
      return y.data;
    });
    // a forward whose own temporary block grows memory
    const rowsBig = Math.ceil(heap().memoryBytes / 4 / 24) + 4096;
    const XB = { data: new Float32Array(rowsBig * 24).map((_, i) => ((i * 7919) % 61) / 30 - 1), shape: [rowsBig, 24] };
    XB.data.set(X.data, (rowsBig - 5) * 24); // last rows = X: their outputs must equal the small call's
    for (const [i, { name, layer }] of layers.entries()) {
      const before = heap().memoryBytes;
      const y = layer.forward(XB);
      if (i === 0) assert.ok(heap().memoryBytes > before, `${name}: the big forward did not grow memory`);
      assert.deepEqual(y.shape, [rowsBig, name === 'createLinear' ? 72 : 24]);
      const tail = y.data.subarray(y.data.length - 5 * (name === 'createLinear' ? 72 : 24));
      const w = layers[i].want(X);
      assertCloseTo(`${name} rows after its own growth`, tail, w.data, scaleOf(w));
      assert.ok(bitsEqual(layer.forward(X).data, first[i]), `${name}: small result changed after its own growth`);
    }
    // then growth from another call: blocks do not fit in the current memory
    const grow = heap();
    // rows of a (rows, 1) @ (1, 4096) product larger than memory
    const big = Math.ceil(grow.memoryBytes / 4 / 4096) + 1024;
    const C = ffn.matmul(
      { data: new Float32Array(big).fill(1), shape: [big, 1] },
      { data: new Float32Array(4096).fill(2), shape: [1, 4096] },
    );
    assert.equal(C.data[C.data.length - 1], 2);
    const grown = heap();
    assert.ok(
      grown.memoryBytes > grow.memoryBytes && grown.growths > grow.growths,
      `memory did not grow (${grow.memoryBytes} -> ${grown.memoryBytes})`,
    );
    layers.forEach(({ name, layer }, i) => {
      assert.ok(bitsEqual(layer.forward(X).data, first[i]), `${name}: result changed after memory growth`);
    });
    // a layer made after growth is right too
    const late = makeLayers(r, 9, 13);
    const X9 = randTensor(r, [3, 9]);
    for (const { name, layer, want } of late) {
      const w = want(X9);
      assertCloseTo(`${name} created after growth`, layer.forward(X9).data, w.data, scaleOf(w));
      layer.dispose();
    }
    for (const { layer } of layers) layer.dispose();
    assert.equal(heap().heapInUse, h0.heapInUse, 'disposing every layer returns the heap to where it was');
  },
);

test('disposed layers refuse use with a clear error; double dispose is harmless; other layers unaffected', () => {
  const r = rng(77);
  const h0 = heap().heapInUse;
  const [a, b, c] = makeLayers(r, 6, 10);
  const X = randTensor(r, [2, 6]);
  const yb = b.layer.forward(X).data;
  const withAll = heap().heapInUse;
  assert.equal(a.layer.disposed, false);
  a.layer.dispose();
  assert.equal(a.layer.disposed, true);
  const afterOne = heap().heapInUse;
  assert.ok(afterOne < withAll, 'dispose freed the layer');
  assert.throws(
    () => a.layer.forward(X),
    (e) => e instanceof Error && /createLinear/.test(e.message) && /disposed/.test(e.message),
  );
  a.layer.dispose(); // again: no throw, no double free
  assert.equal(heap().heapInUse, afterOne, 'second dispose freed nothing more');
  assert.throws(() => a.layer.forward(X), /disposed/);
  // the freed block is reused by new allocations; the other layers must be untouched by that
  const d = ffn.createFfn({ W1: randTensor(r, [6, 10]), W2: randTensor(r, [10, 6]) });
  ffn.matmul(randTensor(r, [40, 6]), randTensor(r, [6, 40]));
  assert.ok(bitsEqual(b.layer.forward(X).data, yb), 'createFfn result changed after another layer was disposed');
  for (const L of [b.layer, c.layer, d]) {
    L.dispose();
    L.dispose();
    assert.throws(() => L.forward(X), /disposed/);
  }
  assert.equal(heap().heapInUse, h0);
  // disposal in any order, with garbage forward calls in between, leaks nothing
  const many = Array.from({ length: 30 }, (_, i) => makeLayers(r, 1 + (i % 7), 1 + ((i * 3) % 11))).flat();
  for (const { layer } of many) assert.throws(() => layer.forward('nope'), TypeError);
  for (let i = many.length - 1; i >= 0; i -= 2) many[i].layer.dispose();
  for (const { layer } of many) layer.dispose();
  assert.equal(heap().heapInUse, h0);
});

test(
  'a 60000 x 60000 request is refused before allocating (no memory growth), naming the ' +
    'function; the module still works',
  () => {
    const n = 60000;
    const col = { data: new Float32Array(n), shape: [n, 1] };
    const rowv = { data: new Float32Array(n), shape: [1, n] };
    const s0 = heap();
    const refusals = [
      ['matmul', () => ffn.matmul(col, rowv)],
      ['ffn', () => ffn.ffn(col, rowv, null, col, null)],
      ['gatedFfn', () => ffn.gatedFfn(col, rowv, rowv, col)],
      ['swigluBackward', () => ffn.swigluBackward(col, col, rowv, rowv, col)],
      [
        'createLinear(...).forward',
        () => {
          const L = ffn.createLinear({ W: rowv });
          try {
            L.forward(col);
          } finally {
            L.dispose();
          }
        },
      ],
    ];
    for (const [name, call] of refusals) {
      assert.throws(call, (e) => {
        assert.ok(e instanceof RangeError, `${name}: ${e.constructor.name}: ${e.message}`);
        assert.ok(e.message.startsWith(`${name}:`), e.message);
        assert.match(e.message, /wasm memory|GiB/, e.message);
        return true;
      });
      const s = heap();
      assert.equal(s.memoryBytes, s0.memoryBytes, `${name}: memory grew although the request was refused`);
      assert.equal(s.heapInUse, s0.heapInUse, `${name}: heap changed`);
    }
    // still works, exactly
    const y = ffn.matmul([[1, 2]], [[3], [4]]);
    assert.deepEqual(Array.from(y.data), [11]);
    const g = ffn.relu([-1, 0.5]);
    assert.deepEqual(Array.from(g.data), [0, 0.5]);
  },
);

test('giant shapes with no elements return at once, with the right shapes; sizes beyond int32 are refused', () => {
  const big = 2 ** 31 - 1;
  const e0 = new Float32Array(0);
  const t0 = performance.now();
  assert.deepEqual(ffn.matmul({ data: e0, shape: [big, 0] }, { data: e0, shape: [0, 0] }).shape, [big, 0]);
  assert.deepEqual(
    ffn.ffn({ data: e0, shape: [big, 0] }, { data: e0, shape: [0, 0] }, null, { data: e0, shape: [0, 0] }, null).shape,
    [big, 0],
  );
  assert.deepEqual(ffn.gelu({ data: e0, shape: [big, 0, big] }).shape, [big, 0, big]);
  const L = ffn.createLinear({ W: { data: e0, shape: [0, 0] } });
  assert.deepEqual(L.forward({ data: e0, shape: [big, 0] }).shape, [big, 0]);
  L.dispose();
  // liveness, not speed: 2^31 empty rows must not spin for seconds with the page frozen
  assert.ok(performance.now() - t0 < 3000, `empty giant shapes took ${performance.now() - t0} ms`);
  assert.throws(
    () => ffn.matmul({ data: e0, shape: [2 ** 31, 0] }, { data: e0, shape: [0, 3] }),
    (e) => e instanceof RangeError && /^matmul:/.test(e.message),
  );
  assert.throws(
    () =>
      ffn.ffn({ data: e0, shape: [2 ** 32, 0] }, { data: e0, shape: [0, 0] }, null, { data: e0, shape: [0, 0] }, null),
    RangeError,
  );
  assert.deepEqual(Array.from(ffn.relu([-2, 3]).data), [0, 3]);
});

test(
  'short soak: 30,000 mixed calls with layers created and disposed; wasm heap and memory ' +
    'flat, JS heap within 8 MiB',
  () => {
    const script = fileURLToPath(new URL('../soak/soak.js', import.meta.url));
    // the soak runs in a Node with this one's flags (tests/kernels/relaxed.test.js: the relaxed build)
    const run = spawnSync(
      process.execPath,
      [
        ...process.execArgv.filter((a) => a.startsWith('--experimental-wasm')),
        '--expose-gc',
        script,
        '--calls',
        '30000',
        '--json',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(run.status, 0, `soak failed:\n${run.stdout}\n${run.stderr}`);
    const res = JSON.parse(run.stdout.trim().split('\n').pop());
    assert.equal(res.build, ffn.wasmInfo().simd, 'the soak ran on the build this process loaded');
    assert.ok(res.ok, res.problems.join('; '));
    assert.ok(res.calls >= 30000 && res.layersCreated >= 30 && res.refusedCalls >= 800, JSON.stringify(res));
    assert.equal(res.wasmHeapInUse.end, res.wasmHeapInUse.start);
    assert.equal(res.wasmMemoryBytes.end, res.wasmMemoryBytes.start);
  },
);

test(
  'a layer disposed from inside its own forward (a getter on X) refuses instead of computing from freed ' +
    'weights, and leaks nothing',
  () => {
    const h0 = heap().heapInUse;
    const r = rng(5);
    for (const make of [
      () => ffn.createLinear({ W: randTensor(r, [3, 4]), b: randTensor(r, [4]) }),
      () => ffn.createFfn({ W1: randTensor(r, [3, 5]), W2: randTensor(r, [5, 3]) }),
      () => ffn.createGatedFfn({ Wg: randTensor(r, [3, 5]), Wu: randTensor(r, [3, 5]), Wd: randTensor(r, [5, 3]) }),
    ]) {
      const L = make();
      const X = {
        data: new Float32Array([1, 2, 3]),
        get shape() {
          L.dispose();
          return [1, 3];
        },
      };
      assert.throws(
        () => L.forward(X),
        (e) => /disposed/.test(e.message),
      );
      assert.equal(L.disposed, true);
      assert.equal(heap().heapInUse, h0, 'the forward allocated scratch for a disposed layer and kept it');
    }
  },
);
