// Resident layers through 'ffn-lab' (createLinear, createFfn, createGatedFfn): float64 references, shapes, errors,
// dispose and heap hygiene.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import * as ffn from 'ffn-lab';
import * as ref from '../helpers/ref.js';
import { rng, randTensor, absT as abs } from '../helpers/numeric.js';
// a view of wasm memory, to check that forward refuses one as opts.out: the same module instance that
// 'ffn-lab' loads, since both resolve to this package's web/runtime.js
import { wasm } from '../../web/runtime.js';

before(() => ffn.ready());

const U = 2 ** -24;

function assertNear(got, want, scale, rtol, msg) {
  assert.deepEqual(got.shape, want.shape, `${msg}: shape`);
  assert.ok(got.data instanceof Float32Array, `${msg}: Float32Array result`);
  for (let i = 0; i < want.data.length; i++) {
    const tol = rtol * scale[i] + 1e-30;
    if (!(Math.abs(got.data[i] - want.data[i]) <= tol))
      assert.fail(`${msg} [${i}]: ${got.data[i]} vs ${want.data[i]} (tol ${tol})`);
  }
}

test('createLinear: act(X W + b) against float64, for every activation and several X ranks', () => {
  const r = rng(21);
  for (const [xs, K, N] of [
    [[3, 5, 9], 9, 17],
    [[7], 7, 1],
    [[1, 33], 33, 70],
    [[0, 4], 4, 6],
    [[2, 2, 2, 8], 8, 8],
  ]) {
    const W = randTensor(r, [K, N]);
    const b = randTensor(r, [N]);
    const X = randTensor(r, xs);
    for (const act of ffn.activations) {
      const layer = ffn.createLinear({ W, b, activation: act });
      try {
        assert.equal(layer.dIn, K);
        assert.equal(layer.dOut, N);
        const Y = layer.forward(X);
        const H = ref.addBias(ref.matmul(X, W), b);
        const S = ref.addBias(ref.matmul(abs(X), abs(W)), abs(b)).data;
        const want = ref.activation(act, H);
        const slope = H.data.map((h) => (act === 'relu2' ? 2 * Math.abs(h) + 1 : 1.2));
        assertNear(
          Y,
          want,
          S.map((s, i) => s * slope[i] + Math.abs(want.data[i])),
          2 * (K + 8) * U,
          `linear ${act} ${xs}`,
        );
      } finally {
        layer.dispose();
      }
    }
  }
});

test('createLinear accepts nested arrays, 1-D inputs and a null bias; results are fresh copies', () => {
  const layer = ffn.createLinear({
    W: [
      [1, 2, 3],
      [4, 5, 6],
    ],
  });
  try {
    const y = layer.forward([1, -1]);
    assert.deepEqual(y.shape, [3]);
    assert.deepEqual(Array.from(y.data), [-3, -3, -3]);
    const y2 = layer.forward([
      [1, 0],
      [0, 1],
    ]);
    assert.deepEqual(y2.shape, [2, 3]);
    assert.deepEqual(Array.from(y2.data), [1, 2, 3, 4, 5, 6]);
    y2.data[0] = 99;
    assert.deepEqual(Array.from(layer.forward([[1, 0]]).data), [1, 2, 3]);
    assert.deepEqual(Array.from(y.data), [-3, -3, -3], 'earlier result untouched by later calls');
  } finally {
    layer.dispose();
  }
  const relu = ffn.createLinear({ W: [[1, -1]], b: null, activation: 'relu' });
  assert.deepEqual(Array.from(relu.forward([2]).data), [2, 0]);
  relu.dispose();
});

test('createFfn and createGatedFfn match the float64 FFN references (and the core API) across token blocks', () => {
  const r = rng(22);
  for (const [T, d, dff] of [
    [1, 16, 64],
    [5, 9, 33],
    [70, 12, 40],
    [130, 8, 20],
  ]) {
    const X = randTensor(r, [T, d]);
    const W1 = randTensor(r, [d, dff], -0.5, 0.5),
      b1 = randTensor(r, [dff]),
      W2 = randTensor(r, [dff, d], -0.5, 0.5),
      b2 = randTensor(r, [d]);
    const Wu = randTensor(r, [d, dff], -0.5, 0.5);
    const tol = 4 * (d + dff) * U;
    for (const act of ['gelu_tanh', 'relu', 'gelu', 'silu', 'relu2', 'identity']) {
      const f = ffn.createFfn({ W1, b1, W2, b2, activation: act });
      const g = ffn.createGatedFfn({ Wg: W1, Wu, Wd: W2, activation: act });
      try {
        const want = ref.ffn(X, W1, b1, W2, b2, { activation: act });
        // scale: |X||W1| + |b1| through a slope-1.2 activation (relu2: 2|h|+1), then |W2|, + |b2|
        const H = ref.addBias(ref.matmul(X, W1), b1).data;
        const Hs = ref
          .addBias(ref.matmul(abs(X), abs(W1)), abs(b1))
          .data.map((s, i) => (act === 'relu2' ? 2 * Math.abs(H[i]) + 1 : 1.2) * s + Math.abs(ref.act(act, H[i])));
        const S = ref.addBias(ref.matmul({ data: Hs, shape: [T, dff] }, abs(W2)), abs(b2)).data;
        assertNear(f.forward(X), want, S, tol, `ffn ${act} ${T},${d},${dff}`);
        const core = ffn.ffn(X, W1, b1, W2, b2, { activation: act });
        assertNear(f.forward(X), core, S, tol, `ffn vs core ${act}`);
        const gw = ref.gatedFfn(X, W1, Wu, W2, { activation: act });
        const G = ref.matmul(X, W1).data,
          Uu = ref.matmul(X, Wu).data;
        const Gs = ref.matmul(abs(X), abs(W1)).data,
          Us = ref.matmul(abs(X), abs(Wu)).data;
        const Hg = Gs.map((gs, i) => {
          const a = Math.abs(ref.act(act, G[i]));
          const sl = act === 'relu2' ? 2 * Math.abs(G[i]) + 1 : 1.2;
          return sl * gs * Math.abs(Uu[i]) + a * Us[i] + a * Math.abs(Uu[i]);
        });
        const Sg = ref.matmul({ data: Hg, shape: [T, dff] }, abs(W2)).data;
        assertNear(g.forward(X), gw, Sg, tol, `gated ${act} ${T},${d},${dff}`);
      } finally {
        f.dispose();
        g.dispose();
      }
    }
  }
});

test('defaults: createFfn uses gelu_tanh, createGatedFfn uses silu, createLinear identity', () => {
  const r = rng(23);
  const W1 = randTensor(r, [4, 8], -2, 2),
    W2 = randTensor(r, [8, 4], -2, 2),
    Wu = randTensor(r, [4, 8], -2, 2);
  const X = randTensor(r, [3, 4], -2, 2);
  const f = ffn.createFfn({ W1, W2 }),
    g = ffn.createGatedFfn({ Wg: W1, Wu, Wd: W2 }),
    l = ffn.createLinear({ W: W1 });
  try {
    assert.equal(f.activation, 'gelu_tanh');
    assert.equal(g.activation, 'silu');
    assert.equal(l.activation, 'identity');
    const near = (a, b) => a.data.every((v, i) => Math.abs(v - b.data[i]) <= 1e-5 * (1 + Math.abs(b.data[i])));
    assert.ok(near(f.forward(X), ref.ffn(X, W1, null, W2, null, { activation: 'gelu_tanh' })));
    assert.ok(near(g.forward(X), ref.swigluFfn(X, W1, Wu, W2)));
    assert.ok(near(l.forward(X), ref.matmul(X, W1)));
  } finally {
    (f.dispose(), g.dispose(), l.dispose());
  }
});

test('bad specs and inputs throw clear errors naming the function, argument and shapes', () => {
  const W = { data: new Float32Array(6), shape: [2, 3] };
  assert.throws(() => ffn.createLinear(), { name: 'TypeError', message: /createLinear: expected an object/ });
  assert.throws(() => ffn.createLinear({}), { name: 'TypeError', message: /createLinear: W is missing/ });
  assert.throws(() => ffn.createLinear({ W: [1, 2, 3] }), {
    name: 'RangeError',
    message: /createLinear: W has shape \[3\] but expected 2 dimensions/,
  });
  assert.throws(() => ffn.createLinear({ W, b: [1, 2] }), {
    name: 'RangeError',
    message: /createLinear: b has shape \[2\] but expected \[3\]/,
  });
  assert.throws(() => ffn.createLinear({ W, activation: 'tanh' }), {
    name: 'RangeError',
    message: /createLinear: unknown activation 'tanh'/,
  });
  assert.throws(() => ffn.createLinear({ W, activation: 3 }), {
    name: 'TypeError',
    message: /createLinear: activation must be one of/,
  });
  assert.throws(() => ffn.createLinear({ W: [[1, 2], [3]] }), {
    name: 'TypeError',
    message: /createLinear: W is ragged/,
  });
  assert.throws(() => ffn.createFfn({ W1: W, W2: W }), {
    name: 'RangeError',
    message: /createFfn: W2 has shape \[2,3\] but expected \[3,2\]/,
  });
  assert.throws(
    () =>
      ffn.createFfn({
        W1: W,
        W2: [
          [1, 2, 3],
          [4, 5, 6],
          [7, 8, 9],
        ].map((r) => r.slice(0, 2)),
        b2: [1],
      }),
    {
      name: 'RangeError',
      message: /createFfn: b2 has shape \[1\] but expected \[2\]/,
    },
  );
  assert.throws(() => ffn.createGatedFfn({ Wg: W, Wu: { data: new Float32Array(6), shape: [3, 2] }, Wd: W }), {
    name: 'RangeError',
    message: /createGatedFfn: Wu has shape \[3,2\] but expected \[2,3\]/,
  });
  const layer = ffn.createLinear({ W });
  try {
    assert.throws(() => layer.forward({ data: new Float32Array(6), shape: [2, 3] }), {
      name: 'RangeError',
      message: /createLinear\(\.\.\.\)\.forward: X has shape \[2,3\] but expected \(\.\.\., 2\)/,
    });
    assert.throws(() => layer.forward('x'), { name: 'TypeError', message: /forward: X must be/ });
    assert.throws(() => layer.forward([[1, 2], [3]]), { name: 'TypeError', message: /forward: X is ragged/ });
    assert.deepEqual(Array.from(layer.forward([0, 0]).data), [0, 0, 0], 'still usable after errors');
  } finally {
    layer.dispose();
  }
});

test(
  'forward(X, { out }) writes the same bits into the given array (reused, in place over X for square layers); a ' +
    'bad out is refused and the layer stays usable',
  () => {
    const r = rng(77);
    const W = randTensor(r, [24, 40]);
    const b = randTensor(r, [40]);
    const W1 = randTensor(r, [24, 64]);
    const W2 = randTensor(r, [64, 24]);
    const lin = ffn.createLinear({ W, b, activation: 'gelu' });
    const mlp = ffn.createFfn({ W1, b1: null, W2, b2: null });
    const gated = ffn.createGatedFfn({ Wg: W1, Wu: randTensor(r, [24, 64]), Wd: W2 });
    const h0 = ffn.heapStats().heapInUse;
    try {
      const out = new Float32Array(5 * 3 * 40).fill(NaN);
      for (let round = 0; round < 3; round++) {
        const X = randTensor(r, [5, 3, 24]);
        const fresh = lin.forward(X);
        const got = lin.forward(X, { out });
        assert.equal(got.data, out, 'the result is the given array');
        assert.deepEqual(got.shape, [5, 3, 40]);
        assert.deepEqual(Array.from(got.data), Array.from(fresh.data));
      }
      for (const layer of [mlp, gated]) {
        const X = randTensor(r, [7, 24]);
        const want = layer.forward(X);
        const xdata = Float32Array.from(X.data);
        // in place: X is copied in before Y is written
        const got = layer.forward({ data: xdata, shape: [7, 24] }, { out: xdata });
        assert.equal(got.data, xdata);
        assert.deepEqual(Array.from(xdata), Array.from(want.data));
      }
      const X = randTensor(r, [2, 24]);
      assert.throws(
        () => lin.forward(X, { out: new Float64Array(80) }),
        (e) =>
          e instanceof TypeError &&
          /^createLinear\(\.\.\.\)\.forward: opts\.out must be a Float32Array; got /.test(e.message),
      );
      assert.throws(() => lin.forward(X, { out: [] }), TypeError);
      assert.throws(
        () => lin.forward(X, 'out'),
        (e) => e instanceof TypeError && /opts must be an object/.test(e.message),
      );
      // an array passed where { out } belongs is refused, not silently ignored
      assert.throws(
        () => lin.forward(X, new Float32Array(80)),
        (e) =>
          e instanceof TypeError && /opts must be an object \{ out \}; got .*pass \{ out: array \}/.test(e.message),
      );
      assert.throws(
        () => lin.forward(X, [0]),
        (e) => e instanceof TypeError && /opts must be an object/.test(e.message),
      );
      const heapView = new Float32Array(wasm('test').memory.buffer, 1024, 80);
      const heapBefore = Float32Array.from(heapView);
      assert.throws(
        () => lin.forward(X, { out: heapView }),
        (e) => e instanceof RangeError && /opts\.out is a view of ffn-lab's own wasm memory/.test(e.message),
      );
      assert.deepEqual(Array.from(heapView), Array.from(heapBefore), 'the heap view is untouched');
      assert.throws(
        () => lin.forward(X, { out: new Float32Array(79) }),
        (e) =>
          e instanceof RangeError &&
          e.message === 'createLinear(...).forward: opts.out has 79 floats but the result [2,40] needs 80',
      );
      assert.deepEqual(Array.from(lin.forward(X, { out: new Float32Array(80) }).data), Array.from(lin.forward(X).data));
      assert.equal(lin.forward(X, {}).data.length, 80);
      assert.equal(lin.forward(X, null).data.length, 80);
    } finally {
      lin.dispose();
      mlp.dispose();
      gated.dispose();
    }
    assert.ok(ffn.heapStats().heapInUse <= h0, 'no memory left behind');
  },
);

test('dispose frees the weights; a disposed layer refuses forward with an Error; double dispose is harmless', () => {
  const before = ffn.heapStats().heapInUse;
  const layers = [
    ffn.createLinear({ W: [[1, 2]], b: [0, 1] }),
    ffn.createFfn({ W1: [[1, 2]], W2: [[1], [2]] }),
    ffn.createGatedFfn({ Wg: [[1, 2]], Wu: [[1, 1]], Wd: [[1], [2]] }),
  ];
  for (const l of layers) l.forward([[1]]);
  assert.ok(ffn.heapStats().heapInUse > before);
  for (const l of layers) {
    assert.equal(l.disposed, false);
    l.dispose();
    assert.equal(l.disposed, true);
    assert.throws(() => l.forward([[1]]), { name: 'Error', message: /forward: this layer was disposed/ });
    l.dispose();
  }
  assert.equal(ffn.heapStats().heapInUse, before);
});

test('heap stays flat over thousands of create/forward/dispose calls, and results survive memory growth', () => {
  const r = rng(24);
  const W = randTensor(r, [16, 24]);
  const X = randTensor(r, [5, 16]);
  const start = ffn.heapStats().heapInUse;
  const keep = ffn.createLinear({ W, activation: 'gelu' });
  const y0 = keep.forward(X);
  for (let i = 0; i < 2000; i++) {
    const l = ffn.createLinear({ W, b: null, activation: 'silu' });
    l.forward(X);
    if (i % 3 === 0) assert.throws(() => l.forward([1, 2, 3]));
    l.dispose();
    keep.forward(X);
  }
  const mid = ffn.heapStats().heapInUse;
  // a large call (beyond the kept scratch) forces a per-call block and likely memory growth
  const big = randTensor(r, [40000, 16]);
  const yb = keep.forward(big);
  assert.deepEqual(yb.shape, [40000, 24]);
  const rowWant = ref.activation('gelu', ref.matmul({ data: big.data.subarray(39999 * 16), shape: [1, 16] }, W)).data;
  for (let j = 0; j < 24; j++) assert.ok(Math.abs(yb.data[39999 * 24 + j] - rowWant[j]) < 1e-5);
  assert.deepEqual(Array.from(keep.forward(X).data), Array.from(y0.data), 'same result after growth');
  assert.equal(ffn.heapStats().heapInUse, mid, 'the large call freed its block');
  keep.dispose();
  assert.equal(ffn.heapStats().heapInUse, start);
});

test('a forward pass too large for wasm memory fails with a clear RangeError and the layer stays usable', () => {
  const layer = ffn.createLinear({ W: { data: new Float32Array(1024).fill(1), shape: [1, 1024] } });
  try {
    const X = { data: new Float32Array(2 ** 20), shape: [2 ** 20, 1] }; // Y would be 4 GiB
    const before = ffn.heapStats().heapInUse;
    assert.throws(() => layer.forward(X), {
      name: 'RangeError',
      message: /createLinear\(\.\.\.\)\.forward: X \[1048576,1\] -> \[1048576,1024\] needs 4\.0 GiB of wasm memory/,
    });
    assert.equal(ffn.heapStats().heapInUse, before);
    assert.deepEqual(Array.from(layer.forward([2]).data.slice(0, 3)), [2, 2, 2]);
  } finally {
    layer.dispose();
  }
});
