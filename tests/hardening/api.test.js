// Property test of the JS API: random shapes and random garbage; every call returns a result matching the float64
// reference or throws a RangeError/TypeError naming the argument, and leaves the module working with the heap
// unchanged.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import * as ffn from 'ffn-lab';
import * as ref from '../helpers/ref.js';
import { rng } from '../helpers/numeric.js';

before(() => ffn.ready());

const ACTS = ffn.activations; // the API's names, in its order (tests/core/ffn.test.js checks the list)
const ELEMENTWISE = {
  relu: 'relu',
  relu2: 'relu2',
  sigmoid: 'sigmoid',
  silu: 'silu',
  gelu: 'gelu',
  geluTanh: 'gelu_tanh',
  geluSigmoid: 'gelu_sigmoid',
};
const SPECIALS = [NaN, Infinity, -Infinity, 0, -0, 1e-40, -1e-45, 1e4, -1e4, 30, -30, 3e38, -88.7];

/* ------------------------------------------------------------ generators */

function gen(seed) {
  const r = rng(seed);
  const int = (n) => Math.floor(r() * n);
  const pick = (a) => a[int(a.length)];
  const dim = () => (r() < 0.85 ? int(7) : 7 + int(12)); // 0..6 mostly, then up to 18
  // values: a 1/32 grid in [-2, 2]; some calls sprinkle specials (NaN, +-Inf, denormals, +-1e4)
  const values = (n, specials) => {
    const d = new Float32Array(n);
    for (let i = 0; i < n; i++) d[i] = specials && r() < 0.15 ? pick(SPECIALS) : (int(129) - 64) / 32;
    return d;
  };
  return { r, int, pick, dim, values };
}

function nest(data, shape) {
  if (shape.length === 0) return data[0];
  const [n, ...rest] = shape;
  const size = rest.reduce((a, b) => a * b, 1);
  const item = (_, i) => (rest.length ? nest(data.slice(i * size, (i + 1) * size), rest) : data[i]);
  return Array.from({ length: n }, item);
}

/** One of the accepted representations of a float32 tensor (all carry exactly the same values). */
function represent(g, data, shape) {
  // a nested array cannot carry the sizes after a 0 ([] is shape [0]), so those shapes go as {data, shape}
  const kinds = ['tensor', 'tensorArray'];
  if (shape.slice(0, -1).every((s) => s > 0)) kinds.push('nested');
  if (shape.length === 1) kinds.push('f32', 'array', 'f64');
  if (shape.length >= 1 && shape.every((s) => s > 0)) kinds.push('nestedLeafF32');
  switch (g.pick(kinds)) {
    case 'tensor':
      return { data: Float32Array.from(data), shape: shape.slice() };
    case 'tensorArray':
      return { data: Array.from(data), shape: shape.slice() };
    case 'nested':
      return shape.length ? nest(Array.from(data), shape) : { data: Float32Array.from(data), shape: [] };
    case 'f32':
      return Float32Array.from(data);
    case 'array':
      return Array.from(data);
    case 'f64':
      return Float64Array.from(data);
    default: {
      // nested arrays whose innermost rows are Float32Arrays
      const last = shape[shape.length - 1];
      const rows = data.length / last;
      const leaves = Array.from({ length: rows }, (_, i) => Float32Array.from(data.subarray(i * last, (i + 1) * last)));
      return shape.length === 1 ? leaves[0] : nest(leaves, shape.slice(0, -1));
    }
  }
}

/** A random valid tensor argument: { value (as passed), t (canonical {data, shape} for the reference) }. */
function tensorArg(g, shape, specials) {
  const data = g.values(
    shape.reduce((a, b) => a * b, 1),
    specials,
  );
  return { value: represent(g, data, shape), t: { data, shape } };
}

/* Garbage that no function may accept as a tensor. */
function garbageTensor(g) {
  const cyc = [1, 2];
  cyc[1] = cyc;
  let deep = [1];
  for (let i = 0; i < 40; i++) deep = [deep];
  const choices = [
    () => 'abc',
    () => 42,
    () => true,
    () => ({}),
    () => () => 1,
    () => Symbol('x'),
    () => 10n,
    () => null,
    () => undefined,
    () => [[1, 2], [3]],
    () => [[1, 2], 3],
    () => [1, [2]],
    () => [[1, '2']],
    () => [[1, null]],
    () => [[1, {}]],
    () => [1, undefined],
    () => new Array(3),
    () => cyc,
    () => deep,
    () => new BigInt64Array(4),
    () => new DataView(new ArrayBuffer(8)),
    () => ({ data: new Float32Array(2), shape: [-2] }),
    () => ({ data: new Float32Array(2), shape: [1.5] }),
    () => ({ data: new Float32Array(2), shape: [NaN] }),
    () => ({ data: new Float32Array(2), shape: 'abc' }),
    () => ({ data: new Float32Array(2), shape: [Infinity] }),
    () => ({ data: new Float32Array(2), shape: [3] }),
    () => ({ data: 'xy', shape: [2] }),
    () => ({ data: [1, 'a'], shape: [2] }),
    () => ({ shape: [2] }),
    () => ({ data: { length: 2, 0: 1, 1: 2 }, shape: [2] }),
    () => ({ data: new Float32Array(2), shape: ['2'] }),
    () => ({ data: [[1, 2], [3]], shape: [2, 2] }),
    () => new Map(),
    () => new Date(),
  ];
  return g.pick(choices)();
}

function garbageActivation(g) {
  return g.pick([
    'GELU',
    'gelu ',
    '',
    'constructor',
    '__proto__',
    'hasOwnProperty',
    'toString',
    'swiglu',
    'tanh',
    5,
    null,
    {},
    ['relu'],
    true,
    Symbol('relu'),
  ]);
}

function garbageOpts(g) {
  return g.pick(['relu', 5, true, [], [1], () => {}, Symbol('o')]);
}

function garbageK(g, dff) {
  return g.pick([
    -1,
    dff + 1,
    dff + 100,
    1.5,
    NaN,
    Infinity,
    -Infinity,
    '2',
    null,
    undefined,
    2n,
    new Number(1),
    [1],
    {},
    2 ** 31,
    -0.5,
  ]);
}

function garbageCount(g) {
  return g.pick([
    0,
    -1,
    1.5,
    NaN,
    Infinity,
    -Infinity,
    '4096',
    null,
    undefined,
    2 ** 53,
    1e300,
    [4],
    {},
    true,
    10n,
    -4096,
  ]);
}

/* ---------------------------------------------------------- comparisons */

const hasInf = (...ts) => ts.some((t) => t && t.data.some((v) => v === Infinity || v === -Infinity));

/** got (Float32Array) vs reference values with per-element tolerance; NaN in the reference must be NaN in got. */
function close(what, got, want, tol, strictNaN = true) {
  assert.equal(got.length, want.length, `${what}: length ${got.length}, expected ${want.length}`);
  for (let i = 0; i < got.length; i++) {
    const w = want[i];
    if (Number.isNaN(w)) {
      if (strictNaN) assert.ok(Number.isNaN(got[i]), `${what}[${i}]: got ${got[i]}, expected NaN`);
      continue;
    }
    const t = typeof tol === 'function' ? tol(i) : tol;
    // float32 may overflow where the float64 sums of |terms| pass 1e30: nothing owed there
    if (!Number.isFinite(w) || !(t < 1e30) || Math.abs(w) > 1e37) continue;
    assert.ok(Math.abs(got[i] - w) <= t, `${what}[${i}]: got ${got[i]}, expected ${w} (tolerance ${t})`);
  }
}

/* float64 magnitudes (sums of |terms|) bounding the float32 rounding error of the composite results */
// an intermediate past 1e30 may overflow float32 in the kernel: its magnitude becomes Infinity, so that
// every result depending on it goes unchecked (Infinity * 0 = NaN, also unchecked)
function absMat(A, B, M, K, N) {
  const C = new Float64Array(M * N);
  for (let i = 0; i < M; i++)
    for (let k = 0; k < K; k++) {
      const a = Math.abs(A[i * K + k]);
      for (let j = 0; j < N; j++) C[i * N + j] += a * Math.abs(B[k * N + j]);
    }
  for (let i = 0; i < C.length; i++) if (!(C[i] < 1e30)) C[i] = Infinity;
  return C;
}
const capped = (A) => A.map((v) => (v < 1e30 ? v : Infinity));
// |phi(h)| <= actBound(|h|); a hidden sum past 1e30 may have overflowed float32 (inf - inf = NaN): no bound then
const actBound = (name, h) =>
  !(h < 1e30) ? Infinity : name === 'relu2' ? h * h : name === 'sigmoid' ? 1 : h * 1.2 + 1e-30;

function ffnMag(X, W1, b1, W2, b2, T, d, dff, act) {
  const H = absMat(X, W1, T, d, dff);
  for (let i = 0; i < H.length; i++) H[i] = actBound(act, H[i] + (b1 ? Math.abs(b1[i % dff]) : 0));
  const Y = absMat(capped(H), W2, T, dff, d);
  for (let i = 0; i < Y.length; i++) Y[i] += b2 ? Math.abs(b2[i % d]) : 0;
  return Y;
}

const tolOf = (mag, n) => (i) => 4e-6 * (n + 4) * mag[i] + 1e-6;

/* -------------------------------------------------------------- the calls */

// One builder per kind of call, (g, { kind, specials, bad }) -> { fn, argName (the garbaged one, or null), run(),
// check(result) }. With garbage, exactly one argument, the one bad(names) picks, is replaced by a value that must
// be refused; without, bad() is null.

function elementwiseCall(g, { kind, specials, bad }) {
  const rank = g.int(4);
  const shape = Array.from({ length: rank }, g.dim);
  const x = tensorArg(g, shape, specials);
  const fnName = kind === 'grad' ? 'activationGrad' : g.pick(Object.keys(ELEMENTWISE));
  const act = kind === 'grad' ? g.pick(ACTS) : ELEMENTWISE[fnName];
  const which = bad(kind === 'grad' ? ['x', 'name'] : ['x']);
  const xv = which === 'x' ? garbageTensor(g) : x.value;
  const name = which === 'name' ? garbageActivation(g) : act;
  return {
    fn: fnName,
    argName: which,
    run: () => (kind === 'grad' ? ffn.activationGrad(name, xv) : ffn[fnName](xv)),
    check(res) {
      assert.deepEqual(res.shape, shape.length ? shape : [], `${fnName}: shape`);
      assert.ok(res.data instanceof Float32Array);
      const want = (kind === 'grad' ? ref.activationGrad(act, x.t) : ref.activation(act, x.t)).data;
      const tol =
        kind === 'grad'
          ? (i) => 1e-4 * Math.abs(want[i]) + 1e-5
          : (i) =>
              2e-5 * Math.abs(want[i]) + 1e-6 * Math.max(1, Math.abs(x.t.data[i])) * (act === 'gelu_tanh' ? 1 : 1e-3);
      close(fnName, res.data, want, tol, kind !== 'grad');
    },
  };
}

function matmulCall(g, { specials, bad }) {
  const batch = Array.from({ length: g.int(3) }, g.dim);
  const K = g.dim(),
    N = g.dim();
  const A = tensorArg(g, [...batch, K], specials),
    B = tensorArg(g, [K, N], specials);
  const which = bad(['A', 'B']);
  let av = A.value,
    bv = B.value;
  if (which === 'A') av = g.r() < 0.7 ? garbageTensor(g) : tensorArg(g, [...batch, K + 1 + g.int(3)]).value;
  if (which === 'B') {
    bv = g.r() < 0.7 ? garbageTensor(g) : tensorArg(g, g.pick([[K + 1, N], [N + K + 1], [K, N, 1]])).value;
  }
  return {
    fn: 'matmul',
    argName: which,
    run: () => ffn.matmul(av, bv),
    check(res) {
      assert.deepEqual(res.shape, [...batch, N]);
      const M = A.t.data.length / (K || 1);
      const rows = K ? M : batch.reduce((a, b) => a * b, 1);
      const want = ref.matmul({ data: A.t.data, shape: [rows, K] }, B.t).data;
      close('matmul', res.data, want, tolOf(absMat(A.t.data, B.t.data, rows, K, N), K), !hasInf(A.t, B.t));
    },
  };
}

function ffnCall(g, { specials, bad }) {
  const batch = Array.from({ length: g.int(3) }, g.dim);
  const d = g.dim(),
    dff = g.dim();
  const act = g.pick(ACTS);
  const X = tensorArg(g, [...batch, d], specials);
  const W1 = tensorArg(g, [d, dff], specials),
    W2 = tensorArg(g, [dff, d], specials);
  const b1 = g.r() < 0.8 ? tensorArg(g, [dff], specials) : null,
    b2 = g.r() < 0.8 ? tensorArg(g, [d], specials) : null;
  const which = bad(['X', 'W1', 'b1', 'W2', 'b2', 'activation', 'options']);
  const args = [
    X.value,
    W1.value,
    b1 ? b1.value : g.pick([null, undefined]),
    W2.value,
    b2 ? b2.value : g.pick([null, undefined]),
  ];
  let opts = { activation: act };
  const idx = { X: 0, W1: 1, b1: 2, W2: 3, b2: 4 }[which];
  if (idx !== undefined) {
    const wrongShape = { X: [...batch, d + 1], W1: [d + 1, dff], b1: [dff + 1], W2: [dff, d + 1], b2: [d + 2] }[which];
    args[idx] =
      g.r() < 0.6 && !(idx === 2 || idx === 4)
        ? garbageTensor(g)
        : g.r() < 0.5
          ? tensorArg(g, wrongShape).value
          : garbageTensor(g);
    if ((idx === 2 || idx === 4) && (args[idx] === null || args[idx] === undefined)) {
      args[idx] = tensorArg(g, wrongShape).value;
    }
  }
  if (which === 'activation') opts = { activation: garbageActivation(g) };
  if (which === 'options') opts = garbageOpts(g);
  return {
    fn: 'ffn',
    argName: which,
    debug: () => JSON.stringify({ act, X: X.t, W1: W1.t, b1: b1 && b1.t, W2: W2.t, b2: b2 && b2.t }),
    run: () => ffn.ffn(...args, opts),
    check(res) {
      assert.deepEqual(res.shape, [...batch, d]);
      const T = X.t.data.length / (d || 1) || batch.reduce((a, b) => a * b, 1);
      const X2 = { data: X.t.data, shape: [T, d] };
      const want = ref.ffn(X2, W1.t, b1 && b1.t, W2.t, b2 && b2.t, { activation: act }).data;
      const mag = ffnMag(X.t.data, W1.t.data, b1 && b1.t.data, W2.t.data, b2 && b2.t.data, T, d, dff, act);
      close('ffn', res.data, want, tolOf(mag, d + dff), !hasInf(X.t, W1.t, W2.t, b1 && b1.t, b2 && b2.t));
    },
  };
}

function gatedCall(g, { kind, specials, bad }) {
  const batch = kind === 'backward' ? [g.dim()] : Array.from({ length: g.int(3) }, g.dim);
  const d = g.dim(),
    dff = g.dim();
  const act = kind === 'gated' ? g.pick(ACTS) : 'silu';
  // the backward's float64 reference has no special-value semantics to compare
  const sp = kind === 'backward' ? false : specials;
  const X = tensorArg(g, [...batch, d], sp),
    Wg = tensorArg(g, [d, dff], sp),
    Wu = tensorArg(g, [d, dff], sp);
  const Wd = tensorArg(g, [dff, d], sp);
  const dY = tensorArg(g, [...batch, d], sp);
  const names =
    kind === 'backward'
      ? ['dY', 'X', 'Wg', 'Wu', 'Wd']
      : kind === 'gated'
        ? ['X', 'Wg', 'Wu', 'Wd', 'activation', 'options']
        : ['X', 'Wg', 'Wu', 'Wd'];
  const which = bad(names);
  const vals = { dY: dY.value, X: X.value, Wg: Wg.value, Wu: Wu.value, Wd: Wd.value };
  if (which in vals) {
    const wrongShape = {
      dY: [...batch, d + 1],
      X: [...batch, d + 1],
      Wg: [d + 1, dff],
      Wu: [d, dff + 1],
      Wd: [dff + 1, d],
    }[which];
    vals[which] = g.r() < 0.5 ? garbageTensor(g) : tensorArg(g, wrongShape).value;
  }
  let opts = { activation: act };
  if (which === 'activation') opts = { activation: garbageActivation(g) };
  if (which === 'options') opts = garbageOpts(g);
  const fnName = kind === 'gated' ? 'gatedFfn' : kind === 'swiglu' ? 'swigluFfn' : 'swigluBackward';
  const T = batch.reduce((a, b) => a * b, 1);
  const X2 = { data: X.t.data, shape: [T, d] };
  return {
    fn: fnName,
    argName: which,
    debug: () => JSON.stringify({ act, X: X.t, Wg: Wg.t, Wu: Wu.t, Wd: Wd.t }),
    run: () =>
      kind === 'gated'
        ? ffn.gatedFfn(vals.X, vals.Wg, vals.Wu, vals.Wd, opts)
        : kind === 'swiglu'
          ? ffn.swigluFfn(vals.X, vals.Wg, vals.Wu, vals.Wd)
          : ffn.swigluBackward(vals.dY, vals.X, vals.Wg, vals.Wu, vals.Wd),
    check(res) {
      const strict = !hasInf(X.t, Wg.t, Wu.t, Wd.t);
      const G = absMat(X.t.data, Wg.t.data, T, d, dff),
        U = absMat(X.t.data, Wu.t.data, T, d, dff);
      if (kind !== 'backward') {
        assert.deepEqual(res.shape, [...batch, d]);
        const want = ref.gatedFfn(X2, Wg.t, Wu.t, Wd.t, { activation: act }).data;
        const P = capped(G.map((gv, i) => (actBound(act, gv) + 1e-30) * U[i] * 1.01 + gv * U[i] * 1.2));
        close(fnName, res.data, want, tolOf(absMat(P, Wd.t.data, T, dff, d), d + dff), strict);
        return;
      }
      const want = ref.swigluBackward({ data: dY.t.data, shape: [T, d] }, X2, Wg.t, Wu.t, Wd.t);
      const WdT = new Float64Array(d * dff);
      for (let j = 0; j < dff; j++) for (let k = 0; k < d; k++) WdT[k * dff + j] = Wd.t.data[j * d + k];
      const dH = absMat(dY.t.data, WdT, T, d, dff);
      const dU = capped(dH.map((v, i) => v * (G[i] + 1e-30)));
      const dG = capped(dH.map((v, i) => v * U[i] * (1.1 + 0.5 * G[i])));
      const tr = (A, R, C) => {
        const o = new Float64Array(R * C);
        for (let i = 0; i < R; i++) for (let j = 0; j < C; j++) o[j * R + i] = A[i * C + j];
        return o;
      };
      const WgT = tr(Wg.t.data, d, dff),
        WuT = tr(Wu.t.data, d, dff),
        XT = tr(X.t.data, T, d);
      const dXm = absMat(dG, WgT, T, dff, d).map((v, i, a) => v + absMat(dU, WuT, T, dff, d)[i]);
      const H = capped(G.map((v, i) => (v + 1e-30) * U[i]));
      const n = T + d + dff;
      assert.deepEqual(res.dX.shape, [...batch, d]);
      assert.deepEqual(res.dWGate.shape, [d, dff]);
      assert.deepEqual(res.dWUp.shape, [d, dff]);
      assert.deepEqual(res.dWDown.shape, [dff, d]);
      close('swigluBackward dX', res.dX.data, want.dX.data, tolOf(dXm, n));
      close('swigluBackward dWGate', res.dWGate.data, want.dWGate.data, tolOf(absMat(XT, dG, d, T, dff), n));
      close('swigluBackward dWUp', res.dWUp.data, want.dWUp.data, tolOf(absMat(XT, dU, d, T, dff), n));
      const dWDownMag = absMat(tr(H, T, dff), dY.t.data, dff, T, d);
      close('swigluBackward dWDown', res.dWDown.data, want.dWDown.data, tolOf(dWDownMag, n));
    },
  };
}

function memoriesCall(g, { specials, bad }) {
  const d = g.dim(),
    dff = g.dim();
  const k = g.int(dff + 1);
  const x = tensorArg(g, g.r() < 0.8 ? [d] : [1, d], specials);
  const W1 = tensorArg(g, [d, dff], specials),
    W2 = tensorArg(g, [dff, d], specials);
  const b1 = g.r() < 0.7 ? tensorArg(g, [dff], specials) : null;
  const which = bad(['x', 'W1', 'b1', 'W2', 'k']);
  const vals = { x: x.value, W1: W1.value, b1: b1 ? b1.value : null, W2: W2.value, k };
  if (which === 'k') vals.k = garbageK(g, dff);
  else if (which) {
    const wrongShape = { x: [d + 1], W1: [d + 1, dff], b1: [dff + 1], W2: [dff + 1, d] }[which];
    vals[which] = g.r() < 0.5 ? tensorArg(g, wrongShape).value : garbageTensor(g);
    if (which === 'b1' && vals.b1 == null) vals.b1 = tensorArg(g, wrongShape).value;
  }
  return {
    fn: 'ffnMemories',
    argName: which,
    run: () => ffn.ffnMemories(vals.x, vals.W1, vals.b1, vals.W2, vals.k),
    check(res) {
      const want = ref.ffnMemories({ data: x.t.data, shape: [d] }, W1.t, b1 && b1.t, W2.t, k);
      const mag = absMat(x.t.data, W1.t.data, 1, d, dff).map((v, j) => v + (b1 ? Math.abs(b1.t.data[j]) : 0));
      const strict = !hasInf(x.t, W1.t, b1 && b1.t);
      close('ffnMemories coef', res.coef.data, want.coef.data, tolOf(mag, d), strict);
      const c = res.coef.data,
        top = res.top;
      assert.ok(top instanceof Int32Array && top.length === k, 'top: Int32Array of length k');
      const seen = new Set();
      for (const i of top) {
        assert.ok(Number.isInteger(i) && i >= 0 && i < dff && !seen.has(i), `top: bad or repeated index ${i}`);
        seen.add(i);
      }
      if (!c.some(Number.isNaN)) {
        for (let i = 0; i + 1 < k; i++) {
          const a = c[top[i]],
            b = c[top[i + 1]];
          assert.ok(a > b || (a === b && top[i] < top[i + 1]), `top not largest first (ties by lower index) at ${i}`);
        }
        const last = top[k - 1];
        if (k) {
          for (let j = 0; j < dff; j++) {
            if (!seen.has(j)) assert.ok(c[j] < c[last] || (c[j] === c[last] && j > last), `memory ${j} left out`);
          }
        }
      }
      const p = new Float64Array(d),
        pm = new Float64Array(d);
      for (const i of top) {
        for (let j = 0; j < d; j++) {
          p[j] += c[i] * W2.t.data[i * d + j];
          pm[j] += Math.abs(c[i] * W2.t.data[i * d + j]);
        }
      }
      close('ffnMemories partial', res.partial.data, p, tolOf(pm, k), strict && !hasInf(W2.t));
    },
  };
}

function layerCall(g, { specials, bad }) {
  // a resident layer created, used once and disposed; garbage in its options or in forward's X
  const type = g.pick(['createLinear', 'createFfn', 'createGatedFfn']);
  const batch = Array.from({ length: g.int(3) }, g.dim);
  const d = g.dim(),
    f = g.dim();
  const act = g.pick(ACTS);
  const T = batch.reduce((a, b) => a * b, 1);
  const dIn = d,
    dOut = type === 'createLinear' ? f : d;
  const X = tensorArg(g, [...batch, dIn], specials);
  const W = {},
    canon = {};
  const put = (name, shape) => {
    const t = tensorArg(g, shape, specials);
    W[name] = t.value;
    canon[name] = t.t;
  };
  if (type === 'createLinear') {
    put('W', [d, f]);
    if (g.r() < 0.7) put('b', [f]);
  } else if (type === 'createFfn') {
    put('W1', [d, f]);
    if (g.r() < 0.7) put('b1', [f]);
    put('W2', [f, d]);
    if (g.r() < 0.7) put('b2', [d]);
  } else {
    put('Wg', [d, f]);
    put('Wu', [d, f]);
    put('Wd', [f, d]);
  }
  const weightNames = Object.keys(W);
  const which = bad([...weightNames, 'activation', 'options', 'X']);
  let opts = { ...W, activation: act };
  let xv = X.value;
  if (which === 'activation') opts.activation = garbageActivation(g);
  else if (which === 'options') opts = g.pick(['W', 5, null, undefined, [W], true]);
  else if (which === 'X') xv = g.r() < 0.5 ? garbageTensor(g) : tensorArg(g, [...batch, dIn + 1]).value;
  // the first weight defines the layer's sizes: only garbage can be wrong for it; the others also by shape
  else if (which) {
    opts[which] =
      g.r() < 0.5 || ['W', 'W1', 'Wg'].includes(which)
        ? garbageTensor(g)
        : tensorArg(g, [canon[which].shape[0] + 1, ...canon[which].shape.slice(1)]).value;
  }
  if (which && which !== 'X' && opts && opts[which] == null && which !== 'options' && which !== 'activation') {
    opts[which] = 'not a tensor';
  }
  const fnName = which === 'X' ? `${type}(...).forward` : type;
  return {
    fn: fnName,
    argName: which,
    run: () => {
      const L = ffn[type](opts);
      try {
        return L.forward(xv);
      } finally {
        L.dispose();
      }
    },
    check(res) {
      assert.deepEqual(res.shape, [...batch, dOut]);
      const X2 = { data: X.t.data, shape: [T, dIn] };
      let want, mag;
      if (type === 'createLinear') {
        const lin = ref.matmul(X2, canon.W);
        const b = canon.b;
        const pre = { data: lin.data.map((v, i) => v + (b ? b.data[i % f] : 0)), shape: lin.shape };
        want = ref.activation(act, pre).data;
        mag = absMat(X.t.data, canon.W.data, T, d, f).map(
          (v, i) => actBound(act, v + (b ? Math.abs(b.data[i % f]) : 0)) + (act === 'relu2' ? 0 : v),
        );
      } else if (type === 'createFfn') {
        want = ref.ffn(X2, canon.W1, canon.b1, canon.W2, canon.b2, { activation: act }).data;
        const { W1, b1, W2, b2 } = canon;
        mag = ffnMag(X.t.data, W1.data, b1 && b1.data, W2.data, b2 && b2.data, T, d, f, act);
      } else {
        want = ref.gatedFfn(X2, canon.Wg, canon.Wu, canon.Wd, { activation: act }).data;
        const G = absMat(X.t.data, canon.Wg.data, T, d, f),
          U = absMat(X.t.data, canon.Wu.data, T, d, f);
        const P = capped(G.map((gv, i) => (actBound(act, gv) + 1e-30) * U[i] * 1.01 + gv * U[i] * 1.2));
        mag = absMat(P, canon.Wd.data, T, f, d);
      }
      close(type, res.data, want, tolOf(mag, d + f), !hasInf(X.t, ...Object.values(canon)));
    },
  };
}

// counts, flops, llama: plain numbers against the reference formulas, all three from the same two random sizes
function countSizes(g) {
  return { d: 1 + g.int(g.pick([16, 5000, 2 ** 20])), dFF: 1 + g.int(g.pick([16, 20000, 2 ** 22])) };
}

function countsCall(g, { bad }) {
  const { d, dFF } = countSizes(g);
  const o = { bias: g.r() < 0.5, gated: g.r() < 0.5 };
  const which = bad(['d', 'dFF', 'bias', 'gated', 'options']);
  const a = { d, dFF },
    opts = { ...o };
  if (which === 'd' || which === 'dFF') a[which] = garbageCount(g);
  if (which === 'bias' || which === 'gated') opts[which] = g.pick(['yes', 1, 0, null, {}]);
  return {
    fn: 'ffnParamCount',
    argName: which,
    run: () => ffn.ffnParamCount(a.d, a.dFF, which === 'options' ? garbageOpts(g) : opts),
    check: (res) => assert.equal(res, ref.ffnParamCount(d, dFF, o)),
  };
}

function flopsCall(g, { bad }) {
  const { d, dFF } = countSizes(g);
  const gated = g.r() < 0.5;
  const which = bad(['d', 'dFF', 'gated']);
  const a = { d, dFF, gated };
  if (which === 'gated') a.gated = g.pick(['yes', 1, null, {}]);
  else if (which) a[which] = garbageCount(g);
  return {
    fn: 'ffnFlops',
    argName: which,
    run: () => ffn.ffnFlops(a.d, a.dFF, { gated: a.gated }),
    check: (res) => assert.equal(res, ref.ffnFlops(d, dFF, { gated })),
  };
}

function llamaCall(g, { bad }) {
  const { d } = countSizes(g);
  const o = {};
  if (g.r() < 0.5) o.multipleOf = g.pick([1, 2, 64, 256, 1024, 4096, 1 + g.int(5000)]);
  if (g.r() < 0.5) o.ffnDimMultiplier = g.pick([1.3, 1.5, 0.5, 2, 1 + g.int(100) / 37]);
  const which = bad(['d', 'multipleOf', 'ffnDimMultiplier']);
  const a = { d, opts: { ...o } };
  if (which === 'd') a.d = garbageCount(g);
  if (which === 'multipleOf') a.opts.multipleOf = g.pick([0, -256, 1.5, NaN, Infinity, '256', null, {}]);
  if (which === 'ffnDimMultiplier') a.opts.ffnDimMultiplier = g.pick([0, -1, NaN, Infinity, '1.3', {}, [1.3], true]);
  return {
    fn: 'llamaHiddenDim',
    argName: which,
    run: () => ffn.llamaHiddenDim(a.d, a.opts),
    check: (res) => assert.equal(res, ref.llamaHiddenDim(d, o)),
  };
}

/** The kinds of call, drawn uniformly (in this order: the seed's sequence of calls depends on it). */
const CALLS = {
  elementwise: elementwiseCall,
  grad: elementwiseCall,
  matmul: matmulCall,
  ffn: ffnCall,
  gated: gatedCall,
  swiglu: gatedCall,
  backward: gatedCall,
  memories: memoriesCall,
  counts: countsCall,
  llama: llamaCall,
  flops: flopsCall,
  layer: layerCall,
};

/** One random call of a random kind; with garbage, one of its arguments is garbage. */
function makeCall(g, garbage) {
  const kind = g.pick(Object.keys(CALLS));
  const specials = g.r() < 0.3;
  const bad = (names) => (garbage ? g.pick(names) : null);
  return CALLS[kind](g, { kind, specials, bad });
}

/** The module still computes right: a canary call after every refusal. */
function canary() {
  const r = ffn.gelu([[-1, 0, 2]]);
  assert.deepEqual(r.shape, [1, 3]);
  close('canary gelu', r.data, ref.gelu([-1, 0, 2]).data, 1e-6);
}

test(
  '5,000 random calls: correct results (float64 reference) or RangeError/TypeError naming function and ' +
    'argument; heap unchanged by each',
  () => {
    const g = gen(Number(process.env.FFN_HARDEN_SEED || 20260601));
    const heap = () => ffn.heapStats().heapInUse;
    const stats = { ok: 0, refused: 0, byFn: {} };
    const iters = Number(process.env.FFN_HARDEN_ITERS || 5000);
    for (let it = 0; it < iters; it++) {
      const garbage = g.r() < 0.45;
      const call = makeCall(g, garbage);
      const label = `call #${it}: ${call.fn}${call.argName ? ` with a bad ${call.argName}` : ''}`;
      const h0 = heap();
      let res, err;
      try {
        res = call.run();
      } catch (e) {
        err = e;
      }
      assert.equal(heap(), h0, `${label}: wasm heap in use changed (leak on ${err ? 'the error path' : 'success'})`);
      if (call.argName) {
        // garbage must be refused: by the right class, naming the function and the argument
        assert.ok(err, `${label}: accepted (returned ${res && JSON.stringify(res).slice(0, 120)})`);
        const threw = `${label}: threw ${err && err.constructor.name}: ${err && err.message}`;
        assert.ok(err instanceof RangeError || err instanceof TypeError, threw);
        const unnamed = `${label}: message does not start with the function name: ${err.message}`;
        assert.ok(err.message.startsWith(`${call.fn}:`), unnamed);
        const argWord = call.argName === 'options' ? /option|activation|object/ : new RegExp(`\\b${call.argName}\\b`);
        assert.match(err.message, argWord, `${label}: message does not name ${call.argName}: ${err.message}`);
        stats.refused++;
        canary();
      } else {
        assert.ok(!err, `${label}: valid call threw ${err && err.constructor.name}: ${err && err.message}`);
        try {
          call.check(res);
        } catch (e) {
          if (process.env.FFN_HARDEN_DEBUG) console.log(label, call.debug && call.debug());
          throw e;
        }
        stats.ok++;
      }
      stats.byFn[call.fn] = (stats.byFn[call.fn] || 0) + 1;
    }
    assert.ok(stats.ok > iters * 0.4 && stats.refused > iters * 0.3, JSON.stringify(stats));
    assert.ok(Object.keys(stats.byFn).length >= 15, `every function drawn: ${Object.keys(stats.byFn)}`);
  },
);
