// matmul, classic and gated FFNs, SwiGLU backward, key-value memories and counts through 'ffn-lab', against
// tests/helpers/ref.js.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import * as ffn from 'ffn-lab';
import * as ref from '../helpers/ref.js';
import { rng, randTensor, assertClose, absT } from '../helpers/numeric.js';

before(() => ffn.ready());

const U = 2 ** -24; // float32 unit roundoff

// Tolerance of a float32 computation made of dot products of length n: the classic bound
// |err| <= gamma_n * (|A| @ |B|) with gamma_n ~ n u. We allow 2 n u + 4 u on that scale.
const dotRtol = (n) => 2 * n * U + 4 * U;

function addAbs(t, bias) {
  if (!bias) return t;
  const b = bias.data;
  return { data: t.data.map((v, i) => v + Math.abs(b[i % b.length])), shape: t.shape };
}

/** Error scale of phi(X W1 + b1) W2 + b2: propagate |.| through both layers (phi has slope <= 1.13 on our ranges). */
function ffnErrScale(X, W1, b1, W2, b2, act) {
  const h = addAbs(ref.matmul(absT(X), absT(W1)), b1);
  const a = absT(ref.activation(act, ref.matmul(X, W1)));
  const s1 = ref.matmul({ data: h.data.map((v, i) => 1.2 * v + a.data[i]), shape: h.shape }, absT(W2));
  return addAbs(s1, b2);
}

const SHAPES = [
  // [batch dims, d, dff]
  [[1], 1, 1],
  [[1], 3, 5],
  [[2], 4, 4],
  [[3], 5, 7],
  [[4], 7, 13],
  [[2, 3], 8, 32],
  [[5], 9, 17],
  [[1], 16, 64],
  [[2, 2, 2], 6, 10],
  [[7], 33, 65],
];

test('matmul matches the float64 reference on edge shapes and batch dims', () => {
  const r = rng(1);
  const cases = [
    [[1], 1, 1],
    [[1], 1, 7],
    [[3], 2, 3],
    [[4], 4, 4],
    [[5], 5, 5],
    [[2, 3], 7, 9],
    [[17], 17, 17],
    [[1], 64, 3],
    [[33], 65, 31],
    [[2, 2], 3, 129],
  ];
  for (const [batch, K, N] of cases) {
    const A = randTensor(r, [...batch, K]);
    const B = randTensor(r, [K, N]);
    const C = ffn.matmul(A, B);
    assert.deepEqual(C.shape, [...batch, N]);
    assertClose(C, ref.matmul(A, B), {
      rtol: dotRtol(K),
      scale: ref.matmul(absT(A), absT(B)),
      msg: `matmul ${batch},${K},${N}`,
    });
  }
  // 1-D A: (k) @ (k, n) -> (n), and nested / flat inputs.
  const v = ffn.matmul(
    [1, 2, 3],
    [
      [1, 0],
      [0, 1],
      [1, 1],
    ],
  );
  assert.deepEqual(v.shape, [2]);
  assert.deepEqual(Array.from(v.data), [4, 5]);
  // Zero rows.
  const z = ffn.matmul({ data: [], shape: [0, 3] }, randTensor(r, [3, 2]));
  assert.deepEqual(z.shape, [0, 2]);
});

test('ffn matches the reference for every activation, batch dims, d not a multiple of 4, one token', () => {
  const r = rng(2);
  for (const [batch, d, dff] of SHAPES) {
    for (const act of ffn.activations) {
      const X = randTensor(r, [...batch, d], -2, 2);
      const W1 = randTensor(r, [d, dff], -0.7, 0.7);
      const b1 = randTensor(r, [dff], -0.5, 0.5);
      const W2 = randTensor(r, [dff, d], -0.7, 0.7);
      const b2 = randTensor(r, [d], -0.5, 0.5);
      const Y = ffn.ffn(X, W1, b1, W2, b2, { activation: act });
      assert.deepEqual(Y.shape, X.shape);
      const want = ref.ffn(X, W1, b1, W2, b2, { activation: act });
      assertClose(Y, want, {
        rtol: dotRtol(d + dff) + 8 * U,
        scale: ffnErrScale(X, W1, b1, W2, b2, act),
        msg: `ffn ${act} ${batch}x${d}x${dff}`,
      });
    }
  }
});

test('ffn defaults to gelu_tanh and accepts null biases', () => {
  const r = rng(3);
  const X = randTensor(r, [3, 6]);
  const W1 = randTensor(r, [6, 10]);
  const W2 = randTensor(r, [10, 6]);
  const b1 = randTensor(r, [10]);
  const b2 = randTensor(r, [6]);
  const scale = ffnErrScale(X, W1, b1, W2, b2, 'gelu_tanh');
  assertClose(ffn.ffn(X, W1, b1, W2, b2), ref.ffn(X, W1, b1, W2, b2, { activation: 'gelu_tanh' }), {
    rtol: 1e-5,
    scale,
  });
  // gelu_tanh and gelu differ enough to tell apart at this scale
  const exact = ref.ffn(X, W1, b1, W2, b2, { activation: 'gelu' });
  const tanh = ffn.ffn(X, W1, b1, W2, b2);
  assert.ok(tanh.data.some((v, i) => Math.abs(v - exact.data[i]) > 1e-6));
  assertClose(ffn.ffn(X, W1, null, W2, null), ref.ffn(X, W1, null, W2, null), { rtol: 1e-5, scale });
  // a single token given as a 1-D vector (d) keeps its 1-D shape
  const x1 = { data: X.data.slice(0, 6), shape: [6] };
  const y1 = ffn.ffn(x1, W1, b1, W2, b2);
  assert.deepEqual(y1.shape, [6]);
  assertClose(y1.data, ref.ffn({ data: x1.data, shape: [1, 6] }, W1, b1, W2, b2).data, { rtol: 1e-5, atol: 1e-6 });
  // zero tokens
  assert.deepEqual(ffn.ffn({ data: [], shape: [0, 6] }, W1, b1, W2, b2).shape, [0, 6]);
  assertClose(
    ffn.ffn(X, W1, undefined, W2, b2, { activation: 'relu' }),
    ref.ffn(X, W1, null, W2, b2, { activation: 'relu' }),
    {
      rtol: 1e-5,
      scale,
    },
  );
});

test('gatedFfn matches the reference for every activation; swigluFfn is the silu case', () => {
  const r = rng(4);
  for (const [batch, d, dff] of SHAPES) {
    const X = randTensor(r, [...batch, d], -2, 2);
    const Wg = randTensor(r, [d, dff], -0.7, 0.7);
    const Wu = randTensor(r, [d, dff], -0.7, 0.7);
    const Wd = randTensor(r, [dff, d], -0.7, 0.7);
    // scale: (|phi(G)| |U| + 1.2 |G|~ |U| + |phi(G)| |U|~) |Wd|, with |G|~ = |X||Wg| and |U|~ = |X||Wu|
    const Ga = ref.matmul(absT(X), absT(Wg));
    const Ua = ref.matmul(absT(X), absT(Wu));
    for (const act of ffn.activations) {
      const Y = ffn.gatedFfn(X, Wg, Wu, Wd, { activation: act });
      assert.deepEqual(Y.shape, X.shape);
      const phiG = absT(ref.activation(act, ref.matmul(X, Wg)));
      const h = {
        data: Ga.data.map((g, i) => (1.2 * g + phiG.data[i]) * Ua.data[i] + phiG.data[i] * Ua.data[i]),
        shape: Ga.shape,
      };
      const scale = ref.matmul(h, absT(Wd));
      assertClose(Y, ref.gatedFfn(X, Wg, Wu, Wd, { activation: act }), {
        rtol: dotRtol(d + dff) + 8 * U,
        scale,
        msg: `gatedFfn ${act} ${batch}x${d}x${dff}`,
      });
    }
    const s = ffn.swigluFfn(X, Wg, Wu, Wd);
    const g = ffn.gatedFfn(X, Wg, Wu, Wd);
    assert.deepEqual(Array.from(s.data), Array.from(g.data), 'swigluFfn == gatedFfn default (silu)');
  }
});

test('swigluBackward matches the analytic float64 gradients', () => {
  const r = rng(5);
  for (const [N, d, dff] of [
    [1, 1, 1],
    [1, 3, 5],
    [2, 4, 8],
    [3, 7, 11],
    [5, 16, 40],
    [4, 9, 24],
  ]) {
    const X = randTensor(r, [N, d], -1.5, 1.5);
    const dY = randTensor(r, [N, d]);
    const Wg = randTensor(r, [d, dff]);
    const Wu = randTensor(r, [d, dff]);
    const Wd = randTensor(r, [dff, d]);
    const got = ffn.swigluBackward(dY, X, Wg, Wu, Wd);
    const want = ref.swigluBackward(dY, X, Wg, Wu, Wd);
    // The same computation on absolute values bounds the float32 error.
    const sc = ref.swigluBackward(absT(dY), absT(X), absT(Wg), absT(Wu), absT(Wd));
    const rtol = 4 * (N + d + dff) * U + 16 * U;
    for (const k of ['dX', 'dWGate', 'dWUp', 'dWDown']) {
      assertClose(got[k], want[k], { rtol, scale: absT(sc[k]), atol: 1e-7, msg: `${k} ${N}x${d}x${dff}` });
    }
    assert.deepEqual(got.dX.shape, [N, d]);
    assert.deepEqual(got.dWGate.shape, [d, dff]);
    assert.deepEqual(got.dWUp.shape, [d, dff]);
    assert.deepEqual(got.dWDown.shape, [dff, d]);
  }
});

test('swigluBackward passes a finite-difference gradient check (central difference, float64 accumulation)', () => {
  // L = sum(dY * swiglu(X)). Perturb each entry of X, Wg, Wu, Wd by +-h and difference the float64
  // reference forward (h = 1e-6: truncation ~1e-12, rounding ~1e-10). Compare the wasm gradients.
  const r = rng(6);
  const N = 3;
  const d = 5;
  const dff = 7;
  const X = randTensor(r, [N, d], -1.5, 1.5);
  const dY = randTensor(r, [N, d]);
  const W = { Wg: randTensor(r, [d, dff]), Wu: randTensor(r, [d, dff]), Wd: randTensor(r, [dff, d]) };
  const got = ffn.swigluBackward(dY, X, W.Wg, W.Wu, W.Wd);
  const loss = (args) => {
    const y = ref.swigluFfn(args.X, args.Wg, args.Wu, args.Wd).data;
    let s = 0;
    for (let i = 0; i < y.length; i++) s += y[i] * dY.data[i];
    return s;
  };
  const base = { X: { data: Float64Array.from(X.data), shape: X.shape } };
  for (const k of ['Wg', 'Wu', 'Wd']) base[k] = { data: Float64Array.from(W[k].data), shape: W[k].shape };
  const h = 1e-6;
  const map = { X: 'dX', Wg: 'dWGate', Wu: 'dWUp', Wd: 'dWDown' };
  for (const [name, gname] of Object.entries(map)) {
    const p = base[name].data;
    for (let i = 0; i < p.length; i++) {
      const keep = p[i];
      p[i] = keep + h;
      const lp = loss(base);
      p[i] = keep - h;
      const lm = loss(base);
      p[i] = keep;
      const fd = (lp - lm) / (2 * h);
      const g = got[gname].data[i];
      assert.ok(Math.abs(g - fd) <= 1e-5 * (1 + Math.abs(fd)), `${gname}[${i}] = ${g}, finite difference ${fd}`);
    }
  }
});

test('swigluBackward is consistent with finite differences of the wasm forward', () => {
  // Float32 forward, loss accumulated in float64, h = 2^-7: noise ~ (sum |dY y|) ulp / h and truncation
  // ~ h^2; a 2e-3 bound still catches any wrong gradient term (they are O(0.1..1)).
  const r = rng(9);
  const N = 2;
  const d = 4;
  const dff = 6;
  const X = randTensor(r, [N, d]);
  const dY = randTensor(r, [N, d]);
  const Wg = randTensor(r, [d, dff]);
  const Wu = randTensor(r, [d, dff]);
  const Wd = randTensor(r, [dff, d]);
  const got = ffn.swigluBackward(dY, X, Wg, Wu, Wd);
  const h = 2 ** -7;
  const loss = () => {
    const y = ffn.swigluFfn(X, Wg, Wu, Wd).data;
    let s = 0;
    for (let i = 0; i < y.length; i++) s += y[i] * dY.data[i];
    return s;
  };
  for (const [t, gname] of [
    [X, 'dX'],
    [Wg, 'dWGate'],
    [Wu, 'dWUp'],
    [Wd, 'dWDown'],
  ]) {
    for (let i = 0; i < t.data.length; i++) {
      const keep = t.data[i];
      t.data[i] = keep + h;
      const lp = loss();
      t.data[i] = keep - h;
      const lm = loss();
      t.data[i] = keep;
      const fd = (lp - lm) / (2 * h);
      assert.ok(
        Math.abs(got[gname].data[i] - fd) <= 2e-3 * (1 + Math.abs(fd)),
        `${gname}[${i}]: ${got[gname].data[i]} vs ${fd}`,
      );
    }
  }
});

test('ffnMemories: coef, top (largest first, ties by lower index) and partial match the reference', () => {
  const r = rng(8);
  for (const [d, dff, k] of [
    [3, 5, 2],
    [8, 16, 4],
    [7, 13, 13],
    [5, 9, 0],
    [16, 64, 10],
  ]) {
    const x = randTensor(r, [d]);
    const W1 = randTensor(r, [d, dff]);
    const b1 = randTensor(r, [dff], -0.3, 0.3);
    const W2 = randTensor(r, [dff, d]);
    const got = ffn.ffnMemories(x, W1, b1, W2, k);
    const want = ref.ffnMemories(x, W1, b1, W2, k);
    assertClose(got.coef, want.coef, {
      rtol: dotRtol(d),
      scale: addAbs(ref.matmul({ data: absT(x).data, shape: [1, d] }, absT(W1)), b1).data,
      atol: 0,
    });
    assert.ok(got.top instanceof Int32Array);
    assert.equal(got.top.length, k);
    // The order must be the order of the returned coef (largest first, ties by index) ...
    const c = got.coef.data;
    const order = Array.from({ length: dff }, (_, i) => i).sort((i, j) => c[j] - c[i] || i - j);
    assert.deepEqual(Array.from(got.top), order.slice(0, k));
    // ... and the same as the float64 reference's where coefficients are well separated.
    // partial = sum over top of coef_i * W2[i,:]
    const p = new Float64Array(d);
    for (const i of got.top) for (let j = 0; j < d; j++) p[j] += c[i] * W2.data[i * d + j];
    assertClose(got.partial, { data: p, shape: [d] }, { rtol: 1e-5, atol: 1e-6 });
    assertClose(got.partial, want.partial, { rtol: 1e-4, atol: 1e-5 });
  }
});

test('ffnMemories breaks ties by the lower index and handles the three-fact example', () => {
  // Three memories with keys one-hot on dims 0..2; dims 3 and 4 never match. Each value writes a "fact".
  const d = 5;
  const dff = 4;
  const W1 = [
    [1, 0, 0, 0],
    [0, 1, 0, 0],
    [0, 0, 1, 0],
    [0, 0, 0, 0],
    [0, 0, 0, 0],
  ];
  const b1 = [-0.5, -0.5, -0.5, -0.5];
  const W2 = [
    [0, 0, 0, 1, 0],
    [0, 0, 0, 0, 1],
    [0, 0, 0, 1, 1],
    [9, 9, 9, 9, 9],
  ];
  const tokyo = ffn.ffnMemories([0, 1, 0, 0, 0], W1, b1, W2, 1);
  assert.deepEqual(Array.from(tokyo.coef.data), [0, 0.5, 0, 0]);
  assert.deepEqual(Array.from(tokyo.top), [1]);
  assert.deepEqual(Array.from(tokyo.partial.data), [0, 0, 0, 0, 0.5]);
  const the = ffn.ffnMemories([0, 0, 0, 1, 1], W1, b1, W2, 2);
  assert.deepEqual(Array.from(the.coef.data), [0, 0, 0, 0]);
  assert.deepEqual(Array.from(the.top), [0, 1], 'all zero: lowest indices first');
  assert.deepEqual(Array.from(the.partial.data), [0, 0, 0, 0, 0]);
  const tie = ffn.ffnMemories([1, 0, 1, 0, 0], W1, null, W2, 3);
  assert.deepEqual(Array.from(tie.top), [0, 2, 1]);
  assert.deepEqual(Array.from(tie.partial.data), [0, 0, 0, 2, 1]);
  const all = ffn.ffnMemories([2, 1, 3, 0, 0], W1, null, W2, 4);
  assert.deepEqual(Array.from(all.top), [2, 0, 1, 3]);
  // k = dFF: partial is the whole FFN output without b2
  const full = ref.ffn([[2, 1, 3, 0, 0]], W1, null, W2, null, { activation: 'relu' }).data;
  assert.deepEqual(Array.from(all.partial.data), Array.from(full));
});

test('counts: the seeds figures (GPT-2, attention, LLaMA widths, 16 d^2 FLOPs)', () => {
  assert.equal(ffn.ffnParamCount(768, 3072), 4722432);
  assert.equal(ffn.ffnParamCount(768, 3072), 2 * 768 * 3072 + 3072 + 768);
  const attention = 4 * 768 ** 2 + 4 * 768;
  assert.equal(attention, 2362368);
  assert.equal(ffn.ffnParamCount(768, 3072) / attention, 4722432 / 2362368);
  assert.ok(
    Math.abs(ffn.ffnParamCount(768, 3072) / (ffn.ffnParamCount(768, 3072) + attention) - 2 / 3) < 1e-3,
    'FFN about two thirds',
  );
  assert.ok(Math.abs((12 * ffn.ffnParamCount(768, 3072)) / 1e6 - 56.7) < 0.05, '12 layers hold about 56.7M');
  assert.equal(ffn.ffnParamCount(768, 3072, { bias: false }), 2 * 768 * 3072);
  assert.equal(ffn.ffnParamCount(4096, 11008, { bias: false, gated: true }), 3 * 4096 * 11008);
  assert.equal(ffn.ffnParamCount(10, 20, { gated: true }), 3 * 10 * 20 + 2 * 20 + 10);
  assert.equal(ffn.ffnParamCount(4096, 14336, { bias: false, gated: true }), 176160768);

  assert.equal(ffn.llamaHiddenDim(4096), 11008);
  assert.equal(ffn.llamaHiddenDim(8192, { ffnDimMultiplier: 1.3, multipleOf: 4096 }), 28672);
  assert.equal(ffn.llamaHiddenDim(4096, { ffnDimMultiplier: 1.3, multipleOf: 1024 }), 14336);
  assert.equal(ffn.llamaHiddenDim(4096, { ffnDimMultiplier: null }), 11008);
  assert.equal(ffn.llamaHiddenDim(768, { multipleOf: 1 }), 2048, "Shazeer's matched width");
  for (const d of [1, 2, 3, 64, 100, 768, 1000, 5120, 8192]) {
    for (const m of [1, 8, 64, 256]) {
      for (const f of [null, 0.5, 1.3, 2]) {
        assert.equal(
          ffn.llamaHiddenDim(d, { multipleOf: m, ffnDimMultiplier: f }),
          ref.llamaHiddenDim(d, { multipleOf: m, ffnDimMultiplier: f }),
          `llamaHiddenDim(${d}, ${m}, ${f})`,
        );
      }
    }
  }

  for (const d of [12, 768, 3072, 6144]) {
    assert.equal(ffn.ffnFlops(d, 4 * d), 16 * d * d, `16 d^2 at dff = 4d (d=${d})`);
    assert.equal(ffn.ffnFlops(d, (8 * d) / 3, { gated: true }), 16 * d * d, `16 d^2 at the 8/3 width (d=${d})`);
    assert.equal(ffn.ffnFlops(d, 4 * d), 2 * ffn.ffnParamCount(d, 4 * d, { bias: false }));
  }
  assert.equal(ffn.ffnFlops(12, 48), ffn.ffnFlops(12, 32, { gated: true }), 'matched budgets (the course text)');
  for (const [d, dff] of [
    [1, 1],
    [7, 13],
    [512, 2048],
  ]) {
    for (const bias of [true, false]) {
      for (const gated of [true, false]) {
        assert.equal(ffn.ffnParamCount(d, dff, { bias, gated }), ref.ffnParamCount(d, dff, { bias, gated }));
      }
    }
    assert.equal(ffn.ffnFlops(d, dff, { gated: true }), ref.ffnFlops(d, dff, { gated: true }));
  }
});

test('tensor() builds fresh float32 tensors from flat, nested and typed inputs', () => {
  const t = ffn.tensor([1, 2, 3, 4, 5, 6], [2, 3]);
  assert.deepEqual(t.shape, [2, 3]);
  assert.ok(t.data instanceof Float32Array);
  assert.deepEqual(Array.from(t.data), [1, 2, 3, 4, 5, 6]);
  const n = ffn.tensor([
    [1, 2],
    [3, 4],
  ]);
  assert.deepEqual(n.shape, [2, 2]);
  const src = new Float32Array([1, 2]);
  const c = ffn.tensor(src);
  assert.notEqual(c.data, src, 'fresh copy');
  const again = ffn.tensor(t);
  assert.notEqual(again.data, t.data, 'fresh copy of a tensor');
  assert.deepEqual(ffn.tensor(new Float64Array([0.1]), [1, 1]).data[0], Math.fround(0.1));
  assert.deepEqual(ffn.tensor([[1, 2, 3, 4]], [4]).shape, [4]);
  assert.deepEqual(ffn.tensor([7], []).shape, []);
  // every array argument accepts the three forms
  const W = [
    [1, 2],
    [3, 4],
  ];
  const a = ffn.matmul([1, 1], W).data;
  const b = ffn.matmul(new Float32Array([1, 1]), ffn.tensor(W)).data;
  const c2 = ffn.matmul({ data: [1, 1], shape: [1, 2] }, { data: new Float64Array([1, 2, 3, 4]), shape: [2, 2] }).data;
  assert.deepEqual(Array.from(a), [4, 6]);
  assert.deepEqual(Array.from(b), [4, 6]);
  assert.deepEqual(Array.from(c2), [4, 6]);
  assert.deepEqual(ffn.activations, [
    'relu',
    'relu2',
    'sigmoid',
    'silu',
    'gelu',
    'gelu_tanh',
    'gelu_sigmoid',
    'identity',
  ]);
});
