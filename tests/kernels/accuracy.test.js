// Activation accuracy of ffn.wasm in float32 ulps against an independent float64 JS reference; finite-difference checks
// of the derivatives and of swiglu_backward.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ref from '../helpers/ref.js';
import { ACTIVATIONS, instantiateRaw } from '../helpers/wasm-under-test.js';
import { rng, ulp32 } from '../helpers/numeric.js';

const { exports: k } = await instantiateRaw();

/* ---- float64 reference (independent of src/): erfc, Phi, phi and sigmoid from tests/helpers/ref.js ---- */

const { normCdf: Phi, normPdf: phi, sigmoidScalar: sigmoid } = ref;
const C = Math.sqrt(2 / Math.PI);
const A = 0.044715;
const K = 1.702;
/* 0.5 (1 + tanh u): the tanh itself where it has no cancellation, 1/(1 + e^{-2u}) in the lower tail */
const halfOnePlusTanh = (u) => (u > -1 ? 0.5 * (1 + Math.tanh(u)) : Math.exp(2 * u) / (1 + Math.exp(2 * u)));
const gu = (x) => C * (x + A * x * x * x);

/* x * (factor vanishing at -inf): 0 * -inf is taken as the limit -0 */
const times = (x, f) => (x === -Infinity ? -0 : x * f);
const REF = {
  identity: [(x) => x, () => 1],
  relu: [(x) => (x > 0 ? x : 0), (x) => (x > 0 ? 1 : 0)],
  relu2: [(x) => (x > 0 ? x * x : 0), (x) => (x > 0 ? 2 * x : 0)],
  sigmoid: [sigmoid, (x) => sigmoid(x) * sigmoid(-x)],
  silu: [(x) => times(x, sigmoid(x)), (x) => (Number.isFinite(x) ? sigmoid(x) * (1 + x * sigmoid(-x)) : x > 0 ? 1 : 0)],
  gelu: [(x) => times(x, Phi(x)), (x) => (Number.isFinite(x) ? Phi(x) + x * phi(x) : x > 0 ? 1 : 0)],
  gelu_tanh: [
    (x) => times(x, halfOnePlusTanh(gu(x))),
    (x) => {
      if (!Number.isFinite(x)) return x > 0 ? 1 : 0;
      const u = gu(x);
      const sech = 1 / Math.cosh(u);
      return halfOnePlusTanh(u) + 0.5 * x * sech * sech * C * (1 + 3 * A * x * x);
    },
  ],
  gelu_sigmoid: [
    (x) => times(x, sigmoid(K * x)),
    (x) => (Number.isFinite(x) ? sigmoid(K * x) + K * x * sigmoid(K * x) * sigmoid(-K * x) : x > 0 ? 1 : 0),
  ],
};
const ACTS = ACTIVATIONS; // index = activation code of src/ffn.h

/* error of float32 y against the float64 value r in units of the float32 spacing at r;
   near zero crossings an absolute floor of 2^-100 keeps the measure meaningful; values beyond the float32
   range must round to +-inf */
function ulpError(y, r) {
  if (Number.isNaN(r)) return Number.isNaN(y) ? 0 : Infinity;
  if (!Number.isFinite(Math.fround(r))) return y === Math.fround(r) ? 0 : Infinity; // beyond float32: +-inf
  if (!Number.isFinite(y)) return Infinity;
  return Math.abs(y - r) / ulp32(Math.max(Math.abs(r), 2 ** -100));
}

/* the sweep: every 1e-3 in [-20, 20], every 1e-2 in the deep negative tail [-140, -20] (x e^x and
   x e^(-1.702|x|) end in subnormals there), wide magnitudes, and the special values */
const sweep = [];
for (let i = -20000; i <= 20000; i++) sweep.push(i / 1000);
for (let i = -14000; i < -2000; i++) sweep.push(i / 100);
for (let e = -45; e <= 38; e += 0.25) sweep.push(10 ** e, -(10 ** e));
sweep.push(
  1e4,
  -1e4,
  Infinity,
  -Infinity,
  NaN,
  0,
  -0,
  1e-45,
  -1e-45,
  1.17549435e-38,
  -1.17549435e-38,
  3.4028234e38,
  -3.4028234e38,
  -0.7517916,
  -1.2784645,
  5.5,
  -5.5,
  -13.5,
  -14.5,
  -15,
);
const X = Float32Array.from(sweep);
const n = X.length;

/**
 * kernel `name` (act_forward, act_grad, act_ref, act_grad_ref) with activation code act on xs (the sweep by default)
 */
function runKernel(name, act, xs = X) {
  const m = xs.length;
  const px = k.malloc(4 * m);
  const py = k.malloc(4 * m);
  new Float32Array(k.memory.buffer, px, m).set(xs);
  assert.equal(k[name](py, px, m, act), 0);
  const y = Float32Array.from(new Float32Array(k.memory.buffer, py, m));
  k.free(px);
  k.free(py);
  return y;
}

/**
 * worst ulp error (and where) of a kernel on xs against the float64 reference: forward (which = 0) or derivative (1)
 */
function measure(kernel, act, which, xs = X) {
  const f = REF[ACTS[act]][which];
  const y = runKernel(kernel, act, xs);
  let worst = 0;
  let at = 0;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    const r = Number.isNaN(x) ? NaN : f(x); // NaN passes through every function and derivative
    if (Number.isNaN(x)) assert.ok(Number.isNaN(y[i]), `${kernel} ${ACTS[act]}(NaN) = ${y[i]}`);
    const err = ulpError(y[i], r);
    if (err > worst) [worst, at] = [err, x];
  }
  return { worst, at, y };
}

// The reference is good to about 1e-11 relative (worst where series and fraction meet), 4 orders of
// magnitude below a float32 ulp (6e-8 relative), so the measured ulp errors are exact to ~1e-4 ulp.
test('sanity of the float64 reference itself (known values)', () => {
  const near = (a, b, tol) => assert.ok(Math.abs(a - b) <= tol * Math.abs(b), `${a} vs ${b}`);
  near(ref.erfc(0.5), 0.4795001221869535, 1e-15);
  near(ref.erfc(1), 0.15729920705028513, 1e-15);
  near(ref.erfc(2), 0.004677734981047266, 1e-12); // 1 - erf: cancellation costs a few digits here
  near(ref.erfc(2.5), 0.000406952017444959, 1e-11); // slowest point of the fraction: 2e-12
  near(ref.erfc(3), 2.209049699858544e-5, 1e-13);
  near(ref.erfc(5), 1.5374597944280349e-12, 1e-13);
  near(ref.erfc(10), 2.088487583762545e-45, 1e-13);
  near(1 - ref.erfc(1), 0.8427007929497149, 1e-15);
  // the series (below 2.5) and the continued fraction (from 2.5) agree where they meet
  near(ref.erfc(2.4999999999999996), ref.erfc(2.5), 1e-11);
  near(REF.gelu[0](-0.7517916), -0.16997120747, 1e-9); // GELU's minimum
});

test('activations: max error in float32 ulps vs float64 (SIMD act_forward/act_grad and the scalar refs)', () => {
  const lines = [];
  for (let act = 0; act < ACTS.length; act++) {
    const f = measure('act_forward', act, 0);
    const g = measure('act_grad', act, 1);
    const fr = measure('act_ref', act, 0);
    const gr = measure('act_grad_ref', act, 1);
    lines.push(
      `${ACTS[act].padEnd(12)} forward ${f.worst.toFixed(4)} (x=${f.at})` +
        `  grad ${g.worst.toFixed(4)} (x=${g.at})` +
        `  | ref forward ${fr.worst.toFixed(4)} grad ${gr.worst.toFixed(4)}`,
    );
    // the bound is "a few float32 ulps" (issue 2): over every float32 (src/fit/ulp_sweep.c, src/README.md
    // "Numerics") the f32x4 forward kernels measured at most 1.99 ulp for gelu_tanh (see its test below),
    // sigmoid 1.77, silu 1.73, gelu_sigmoid 1.81 (a rough error analysis allows up to ~2.5 in the worst
    // alignment), gelu 1.63 (see the gelu test below); the derivatives within 0.5 ulp (double lanes) except
    // gelu' at 1.00 (float polynomials; the root of GELU' at -0.7518 by its own expansion: 0.72 ulp at every
    // float in [-0.78, -0.72]); the references 0.5
    assert.ok(f.worst <= 2, `${ACTS[act]} forward off by ${f.worst} ulp at ${f.at}`);
    assert.ok(g.worst <= 2, `${ACTS[act]} grad off by ${g.worst} ulp at ${g.at}`);
    assert.ok(fr.worst <= 1 && gr.worst <= 2, `${ACTS[act]} ref off: ${fr.worst} / ${gr.worst}`);
  }
  console.log(`max ulp vs float64 over ${n} points:\n${lines.join('\n')}`);
});

test('exact GELU keeps relative accuracy in the negative tail (through erfc)', () => {
  const xs = Float32Array.from([-5, -5.5, -6, -7, -8, -9, -10, -12, -13]);
  const px = k.malloc(4 * xs.length);
  const py = k.malloc(4 * xs.length);
  new Float32Array(k.memory.buffer, px, xs.length).set(xs);
  k.act_forward(py, px, xs.length, ACTS.indexOf('gelu'));
  const y = new Float32Array(k.memory.buffer, py, xs.length);
  xs.forEach((x, i) => {
    const r = REF.gelu[0](x);
    assert.ok(y[i] < 0 && Math.abs(y[i] - r) <= 1e-6 * Math.abs(r), `gelu(${x}) = ${y[i]}, expected ${r}`);
  });
  k.free(px);
  k.free(py);
});

test(
  'exact GELU forward (float32 lanes only): within 1.75 ulp at random floats in [-16, 16] and at every ' +
    'float near its worst points',
  () => {
    // every float32 was checked against libm's erfc (src/fit/ulp_sweep.c): max 1.63 ulp (x = -2.1940639), 0.94 for
    // x >= 0 (x = 0.33971569)
    const xs = [];
    const next = rng(987654321);
    for (let i = 0; i < 1 << 18; i++) xs.push(next() * 32 - 16);
    for (const c of [-2.1940639, 0.33971569, -1.386201, -12.880443]) {
      // every float within 2^-11 relative of each
      const f = new Float32Array([c]);
      const bits = new Int32Array(f.buffer);
      const start = bits[0];
      for (let d = -2048; d <= 2048; d++) {
        bits[0] = start + d;
        xs.push(f[0]);
      }
    }
    const { worst, at } = measure('act_forward', ACTS.indexOf('gelu'), 0, Float32Array.from(xs));
    assert.ok(worst <= 1.75, `gelu off by ${worst} ulp at ${at}`);
  },
);

test('negative tails keep relative accuracy down to subnormal results (no absolute floor)', () => {
  // ulpError above measures values below 2^-100 against an absolute floor; here every value, also a
  // subnormal one, is measured in its own float32 spacing (2^-149 at the bottom)
  const ranges = {
    sigmoid: [-105, -20, 1e-2],
    silu: [-110, -20, 1e-2],
    gelu: [-15, -5, 1e-3],
    gelu_tanh: [-11, -4, 1e-3],
    gelu_sigmoid: [-65, -10, 5e-3],
  };
  for (const [name, [lo, hi, step]] of Object.entries(ranges)) {
    const xs = Float32Array.from({ length: Math.round((hi - lo) / step) + 1 }, (_, i) => lo + i * step);
    const px = k.malloc(4 * xs.length);
    const py = k.malloc(4 * xs.length);
    new Float32Array(k.memory.buffer, px, xs.length).set(xs);
    k.act_forward(py, px, xs.length, ACTS.indexOf(name));
    const y = new Float32Array(k.memory.buffer, py, xs.length);
    let worst = 0;
    let at = 0;
    xs.forEach((x, i) => {
      const r = REF[name][0](x);
      const e = Math.abs(y[i] - r) / ulp32(r);
      if (e > worst) [worst, at] = [e, x];
    });
    k.free(px);
    k.free(py);
    assert.ok(worst <= 2, `${name} off by ${worst} ulp at ${at} in its negative tail`);
  }
});

test('gelu_tanh forward: every float near its worst points, and random x with -x, within 2 ulp', () => {
  // the kernel takes the argument 2u/ln2 signed, so x and -x share one reduction: both signs of every
  // magnitude are checked; the windows [-5.32, -5.08] and [-0.00196, -0.00193] hold the worst errors measured
  // over every float32 (1.894 ulp at -5.20967 in the tail, 1.987 at -0.00194751 where the denominator is
  // near 2; the positive side 1.541 at 0.66705); beyond |x| = 11 the result is x or -0
  const xs = [];
  const b = new Float32Array(1);
  const u = new Uint32Array(b.buffer);
  for (const [near, far] of [
    [-5.08, -5.32],
    [-0.00193, -0.00196],
  ]) {
    b[0] = near;
    const from = u[0];
    b[0] = far;
    const to = u[0]; // negative floats: the bit pattern grows with the magnitude
    for (let bits = from; bits <= to; bits++) {
      u[0] = bits;
      xs.push(b[0]);
    }
  }
  const next = rng(99);
  for (let i = 0; i < 1 << 17; i++) {
    const x = Math.fround(next() * 24 - 12);
    xs.push(x, -x);
  }
  const X32 = Float32Array.from(xs);
  const { worst, at } = measure('act_forward', ACTS.indexOf('gelu_tanh'), 0, X32);
  console.log(
    `gelu_tanh forward over ${X32.length} points (worst window and random +-x): ` +
      `max ${worst.toFixed(4)} ulp at x=${at}`,
  );
  assert.ok(X32.length > 700000, `only ${X32.length} points`);
  assert.ok(worst <= 2, `gelu_tanh forward off by ${worst} ulp at ${at}`);
});

test('derivatives agree with central differences of the float64 forward', () => {
  const xs = [];
  for (let i = -800; i <= 800; i++) xs.push(i / 100 + 0.003);
  const X32 = Float32Array.from(xs);
  const px = k.malloc(4 * xs.length);
  const pg = k.malloc(4 * xs.length);
  new Float32Array(k.memory.buffer, px, xs.length).set(X32);
  for (let act = 0; act < ACTS.length; act++) {
    k.act_grad(pg, px, xs.length, act);
    const g = new Float32Array(k.memory.buffer, pg, xs.length);
    const f = REF[ACTS[act]][0];
    for (let i = 0; i < xs.length; i++) {
      const x = X32[i];
      const h = 1e-5 * Math.max(1, Math.abs(x));
      const fd = (f(x + h) - f(x - h)) / (2 * h);
      const why = `${ACTS[act]}'(${x}) = ${g[i]}, central difference ${fd}`;
      assert.ok(Math.abs(g[i] - fd) <= 1e-6 + 1e-6 * Math.abs(fd), why);
    }
  }
  k.free(px);
  k.free(pg);
});

test('swiglu_backward agrees with central differences of a float64 SwiGLU loss', () => {
  const [N, d, F] = [3, 5, 7];
  let s = 7;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  const mk = (len) => Float32Array.from({ length: len }, rnd);
  const X = mk(N * d);
  const Wg = mk(d * F);
  const Wu = mk(d * F);
  const Wd = mk(F * d);
  const R = mk(N * d);
  const silu = REF.silu[0];
  // L = sum(Y * R), Y = (silu(X Wg) * (X Wu)) Wd, in float64
  const loss = (X_, Wg_, Wu_, Wd_) => {
    let L = 0;
    for (let r = 0; r < N; r++) {
      const H = new Float64Array(F);
      for (let j = 0; j < F; j++) {
        let g = 0;
        let u = 0;
        for (let c = 0; c < d; c++) {
          g += X_[r * d + c] * Wg_[c * F + j];
          u += X_[r * d + c] * Wu_[c * F + j];
        }
        H[j] = silu(g) * u;
      }
      for (let c = 0; c < d; c++) {
        let y = 0;
        for (let j = 0; j < F; j++) y += H[j] * Wd_[j * d + c];
        L += y * R[r * d + c];
      }
    }
    return L;
  };
  const put = (a) => {
    const p = k.malloc(4 * a.length);
    new Float32Array(k.memory.buffer, p, a.length).set(a);
    return p;
  };
  const ins = [put(R), put(X), put(Wg), put(Wu), put(Wd)];
  const outs = [N * d, d * F, d * F, F * d].map((len) => k.malloc(4 * len));
  const work = k.malloc(4 * 3 * N * F);
  assert.equal(k.swiglu_backward(...outs, ...ins, N, d, F, work), 0);
  const lens = [N * d, d * F, d * F, F * d];
  const grads = outs.map((p, i) => Float32Array.from(new Float32Array(k.memory.buffer, p, lens[i])));
  const params = [X, Wg, Wu, Wd].map((a) => Float64Array.from(a));
  const names = ['dX', 'dWg', 'dWu', 'dWd'];
  params.forEach((P, which) => {
    for (let i = 0; i < P.length; i++) {
      const keep = P[i];
      const h = 1e-6;
      P[i] = keep + h;
      const up = loss(...params);
      P[i] = keep - h;
      const down = loss(...params);
      P[i] = keep;
      const fd = (up - down) / (2 * h);
      const why = `${names[which]}[${i}] = ${grads[which][i]}, central difference ${fd}`;
      assert.ok(Math.abs(grads[which][i] - fd) <= 1e-4 * (1 + Math.abs(fd)), why);
    }
  });
  [...ins, ...outs, work].forEach((p) => k.free(p));
});
