// Activations and their derivatives through the public API, against the float64 reference, finite differences and the
// seeds' figures.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import * as ffn from 'ffn-lab';
import * as ref from '../helpers/ref.js';
import { rng, ulp32 } from '../helpers/numeric.js';
import { ACTIVATIONS, instantiateRaw } from '../helpers/wasm-under-test.js';

before(() => ffn.ready());

const fnByName = {
  relu: ffn.relu,
  relu2: ffn.relu2,
  sigmoid: ffn.sigmoid,
  silu: ffn.silu,
  gelu: ffn.gelu,
  gelu_tanh: ffn.geluTanh,
  gelu_sigmoid: ffn.geluSigmoid,
};

// Inputs: a fine grid over [-12, 12], random points, both tails, tiny and subnormal values, signed zeros.
function sampleInputs() {
  const xs = [];
  for (let x = -12; x <= 12; x += 1 / 64) xs.push(x);
  const r = rng(7);
  for (let i = 0; i < 2000; i++) xs.push((r() - 0.5) * 40);
  xs.push(
    -1e4,
    -1000,
    -100,
    -88,
    -50,
    -30,
    -20,
    -17,
    -15,
    -14,
    -13.5,
    -10,
    -9.5,
    -7,
    -5.5,
    -5,
    -4,
    -3,
    -2.5,
    -1.278,
    -0.752,
  );
  xs.push(1e4, 1000, 100, 88, 50, 30, 20, 15, 10, 5, 3);
  xs.push(1e-3, -1e-3, 1e-8, -1e-8, 1e-30, -1e-30, 1e-40, -1e-40, 0, -0);
  return Float32Array.from(xs);
}

// Tolerances, in float32 terms:
// - forward: |y - ref| <= 4 ulp(ref) + 2^-126, i.e. a few ulps relative over the whole normal range
//   (both tails included) and an absolute floor at the underflow threshold.
// - derivatives: |g - ref| <= 16 ulp(ref) + 2^-22 (float32 accuracy on the O(1) scale of a slope; relative
//   accuracy cannot be asked of GELU's derivative near its zero at -0.752, which is a cancellation).
const FWD_ULPS = 4;
const GRAD_ULPS = 16;
const GRAD_ABS = 2 ** -22;
const FLOOR = 2 ** -126;

function check(name, got, x, expectedFn, ulps, abs) {
  let worst = 0;
  let worstAt = null;
  for (let i = 0; i < x.length; i++) {
    const e = expectedFn(x[i]);
    const g = got[i];
    if (Number.isNaN(e)) {
      assert.ok(Number.isNaN(g), `${name}(${x[i]}): expected NaN, got ${g}`);
      continue;
    }
    if (!Number.isFinite(e)) {
      assert.equal(g, e, `${name}(${x[i]})`);
      continue;
    }
    const err = Math.abs(g - e);
    const tol = ulps * ulp32(e) + abs;
    assert.ok(err <= tol, `${name}(${x[i]}) = ${g}, reference ${e}, error ${err} > ${tol}`);
    const inUlps = err / ulp32(e);
    if (Math.abs(e) >= FLOOR && inUlps > worst) {
      worst = inUlps;
      worstAt = x[i];
    }
  }
  return { worst, worstAt };
}

test('each activation matches the float64 reference within 4 float32 ulps over the whole range', () => {
  const x = sampleInputs();
  for (const [name, f] of Object.entries(fnByName)) {
    const y = f(x);
    assert.ok(y.data instanceof Float32Array);
    assert.deepEqual(y.shape, [x.length]);
    check(name, y.data, x, (v) => ref.act(name, v), FWD_ULPS, FLOOR);
  }
});

test('exact GELU keeps relative accuracy in the negative tail (computed through erfc)', () => {
  const x = Float32Array.from([-3, -4, -5, -5.5, -6, -7, -8, -9, -10, -11, -12, -13]);
  const y = ffn.gelu(x).data;
  for (let i = 0; i < x.length; i++) {
    const e = ref.gelu([x[i]]).data[0];
    assert.ok(y[i] < 0, `gelu(${x[i]}) should be negative, got ${y[i]}`);
    const rel = Math.abs(y[i] - e) / Math.abs(e);
    assert.ok(rel < 4 * 2 ** -23, `gelu(${x[i]}) relative error ${rel}`);
  }
});

test('activationGrad of every activation matches the float64 reference derivative', () => {
  const x = sampleInputs();
  for (const name of ffn.activations) {
    const g = ffn.activationGrad(name, x);
    assert.deepEqual(g.shape, [x.length]);
    check(`${name}'`, g.data, x, (v) => ref.actGrad(name, v), GRAD_ULPS, GRAD_ABS);
  }
});

test('activationGrad agrees with central finite differences of the float64 forward (every activation)', () => {
  // Central difference with h = 1e-5 on the float64 reference forward: truncation ~h^2 f''' and rounding
  // ~1e-16/h, both far below the float32 tolerance 1e-6 * (1 + |g|). Kinks (relu/relu2 at 0) are avoided.
  const r = rng(11);
  const xs = [];
  for (let i = 0; i < 300; i++) xs.push((r() - 0.5) * 16);
  xs.push(-0.752, -1.278, 0.5, -0.5, 2, -2, 6, -6);
  const x = Float32Array.from(xs.filter((v) => Math.abs(v) > 1e-3));
  const h = 1e-5;
  for (const name of ffn.activations) {
    const g = ffn.activationGrad(name, x).data;
    for (let i = 0; i < x.length; i++) {
      const xi = x[i];
      const fd = (ref.act(name, xi + h) - ref.act(name, xi - h)) / (2 * h);
      assert.ok(Math.abs(g[i] - fd) <= 1e-6 * (1 + Math.abs(fd)), `${name}'(${xi}) = ${g[i]}, finite difference ${fd}`);
    }
  }
});

test('activationGrad agrees with central finite differences of the wasm forward itself', () => {
  // Float32 forward, step h = 2^-8 on points where x +- h are exact: rounding noise ~ulp(f)/h ~ 1e-5
  // and truncation h^2 |f'''| / 6 ~ 1e-5, so 2e-4 * (1 + |g|) is a fair bound.
  const h = 2 ** -8;
  const xs = [];
  for (let x = -6; x <= 6; x += 0.125) if (Math.abs(x) > 0.1) xs.push(x);
  const x = Float32Array.from(xs);
  const xp = x.map((v) => v + h);
  const xm = x.map((v) => v - h);
  for (const [name, f] of Object.entries(fnByName)) {
    const g = ffn.activationGrad(name, x).data;
    const fp = f(xp).data;
    const fm = f(xm).data;
    for (let i = 0; i < x.length; i++) {
      const fd = (fp[i] - fm[i]) / (2 * h);
      const tol = 2e-4 * (1 + Math.abs(g[i])) + (name === 'relu2' ? 4e-5 * Math.abs(x[i]) : 0);
      assert.ok(Math.abs(g[i] - fd) <= tol, `${name}'(${x[i]}) = ${g[i]}, wasm finite difference ${fd}`);
    }
  }
});

test('PyTorch semantics at +-1e4, +-inf and NaN (no NaN from sigmoid/tanh overflow, NaN passes through)', () => {
  const x = [1e4, -1e4, Infinity, -Infinity, NaN];
  // Values of F.relu, F.gelu, F.gelu(approximate='tanh'), F.silu, torch.sigmoid at +-1e4 and NaN.
  // At -inf the smooth activations give their limit 0 (PyTorch's x*sigmoid(x) gives NaN there; see README).
  const expected = {
    relu: [1e4, 0, Infinity, 0, NaN],
    relu2: [1e8, 0, Infinity, 0, NaN],
    sigmoid: [1, 0, 1, 0, NaN],
    silu: [1e4, 0, Infinity, 0, NaN],
    gelu: [1e4, 0, Infinity, 0, NaN],
    gelu_tanh: [1e4, 0, Infinity, 0, NaN],
    gelu_sigmoid: [1e4, 0, Infinity, 0, NaN],
  };
  for (const [name, f] of Object.entries(fnByName)) {
    const y = Array.from(f(x).data);
    for (let i = 0; i < x.length; i++) {
      const e = expected[name][i];
      if (Number.isNaN(e)) assert.ok(Number.isNaN(y[i]), `${name}(${x[i]}) should be NaN, got ${y[i]}`);
      else assert.ok(y[i] === e, `${name}(${x[i]}) = ${y[i]}, expected ${e}`);
    }
  }
  const gExpected = {
    relu: [1, 0, 1, 0, NaN],
    relu2: [2e4, 0, Infinity, 0, NaN],
    sigmoid: [0, 0, 0, 0, NaN],
    silu: [1, 0, 1, 0, NaN],
    gelu: [1, 0, 1, 0, NaN],
    gelu_tanh: [1, 0, 1, 0, NaN],
    gelu_sigmoid: [1, 0, 1, 0, NaN],
    identity: [1, 1, 1, 1, NaN],
  };
  for (const name of ffn.activations) {
    const g = Array.from(ffn.activationGrad(name, x).data);
    for (let i = 0; i < x.length; i++) {
      const e = gExpected[name][i];
      if (Number.isNaN(e)) assert.ok(Number.isNaN(g[i]), `${name}'(${x[i]}) should be NaN, got ${g[i]}`);
      else assert.ok(g[i] === e, `${name}'(${x[i]}) = ${g[i]}, expected ${e}`);
    }
  }
  // A NaN stays in its own lane: neighbours of a NaN are unaffected.
  const y = ffn.gelu([1, NaN, 2, 3, 4]).data;
  assert.ok(Number.isNaN(y[1]));
  assert.ok(Math.abs(y[4] - 4 * ref.normCdf(4)) < 1e-6);
});

test('activations keep any shape (scalar, nested, batch) and return fresh arrays', () => {
  const nested = [
    [
      [-1, 0, 1],
      [2, -2, 0.5],
    ],
  ];
  const y = ffn.silu(nested);
  assert.deepEqual(y.shape, [1, 2, 3]);
  const want = ref.silu(nested).data;
  for (let i = 0; i < 6; i++) assert.ok(Math.abs(y.data[i] - want[i]) <= 4 * ulp32(want[i]) + FLOOR);
  const s = ffn.relu({ data: [-3], shape: [] });
  assert.deepEqual(s.shape, []);
  assert.equal(s.data[0], 0);
  const input = new Float32Array([1, -1]);
  const out = ffn.relu(input);
  assert.notEqual(out.data, input);
  assert.deepEqual(Array.from(input), [1, -1], 'input must not be modified');
  assert.equal(ffn.gelu([]).data.length, 0);
});

/* ---------------- the seeds' figures, found by sweeping through the API ---------------- */

function sweep(f, lo, hi, step) {
  const n = Math.round((hi - lo) / step) + 1;
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) x[i] = lo + i * step;
  return { x, y: f(x).data };
}

test('GELU minimum is about -0.170 at x = -0.752; SiLU minimum about -0.278 at x = -1.278', () => {
  for (const [f, xmin, ymin, name] of [
    [ffn.gelu, -0.752, -0.17, 'gelu'],
    [ffn.silu, -1.278, -0.278, 'silu'],
  ]) {
    const { x, y } = sweep(f, -4, 1, 1e-4);
    let at = 0;
    for (let i = 1; i < y.length; i++) if (y[i] < y[at]) at = i;
    assert.ok(Math.abs(x[at] - xmin) < 1e-3, `${name} minimum at ${x[at]}, expected about ${xmin}`);
    assert.ok(Math.abs(y[at] - ymin) < 1e-3, `${name} minimum ${y[at]}, expected about ${ymin}`);
  }
});

test('GELU derivative is never below about -0.13 and is zero at the minimum', () => {
  const { x, y } = sweep((v) => ffn.activationGrad('gelu', v), -8, 8, 1e-3);
  let lo = Infinity;
  for (const v of y) lo = Math.min(lo, v);
  assert.ok(lo < -0.12 && lo > -0.14, `min gelu' = ${lo}`);
  const i = x.findIndex((v) => v >= -0.752);
  assert.ok(Math.abs(y[i]) < 2e-3, `gelu'(-0.752) = ${y[i]}`);
});

test('max |gelu - geluTanh| is about 4.7e-4 and max |gelu - geluSigmoid| about 2e-2', () => {
  const a = sweep(ffn.gelu, -8, 8, 1e-3).y;
  const b = sweep(ffn.geluTanh, -8, 8, 1e-3).y;
  const c = sweep(ffn.geluSigmoid, -8, 8, 1e-3).y;
  let dt = 0;
  let ds = 0;
  for (let i = 0; i < a.length; i++) {
    dt = Math.max(dt, Math.abs(a[i] - b[i]));
    ds = Math.max(ds, Math.abs(a[i] - c[i]));
  }
  assert.ok(dt > 4.6e-4 && dt < 4.8e-4, `max |gelu - geluTanh| = ${dt}`);
  assert.ok(ds > 1.9e-2 && ds < 2.1e-2, `max |gelu - geluSigmoid| = ${ds}`);
});

test(
  'large inputs (98,309 floats) match the reference, NaN passes through anywhere, ' + 'input untouched, heap flat',
  () => {
    const n = 3 * 32768 + 5;
    const r = rng(99);
    const x = new Float32Array(n);
    for (let i = 0; i < n; i++) x[i] = (r() - 0.5) * 24;
    for (const i of [0, 32767, 32768, 65535, 65536, n - 1]) x[i] = NaN;
    const copy = x.slice();
    const h0 = ffn.heapStats().heapInUse;
    const cases = [
      ['gelu', ffn.gelu({ data: x, shape: [1, n] }), (v) => ref.act('gelu', v), [1, n]],
      ['silu', ffn.silu(x), (v) => ref.act('silu', v), [n]],
      ["activationGrad('gelu_tanh')", ffn.activationGrad('gelu_tanh', x), (v) => ref.actGrad('gelu_tanh', v), [n]],
    ];
    for (const [name, y, f, shape] of cases) {
      assert.deepEqual(y.shape, shape, name);
      assert.ok(y.data instanceof Float32Array && y.data.length === n && y.data !== x, name);
      for (let i = 0; i < n; i++) {
        const e = f(x[i]);
        if (Number.isNaN(e)) {
          assert.ok(Number.isNaN(y.data[i]), `${name}[${i}] should be NaN`);
          continue;
        }
        const err = Math.abs(y.data[i] - e);
        if (!(err <= 16 * ulp32(e) + 1e-30)) assert.fail(`${name}[${i}] = ${y.data[i]}, expected ${e} (x = ${x[i]})`);
      }
    }
    assert.deepEqual(x, copy, 'input untouched');
    assert.equal(ffn.heapStats().heapInUse, h0);
  },
);

test(
  'activations through the API are bit-identical to one kernel pass over the whole ' +
    'array, across the 64 KiB blocks',
  async () => {
    // an independent instance of the same build (ffn.wasm, or ffn-relaxed.wasm under tests/kernels/relaxed.test.js),
    // run on the whole array in one act_forward/act_grad call
    const { exports: e } = await instantiateRaw();
    const whole = (fn, code, x) => {
      const p = e.malloc(4 * Math.max(x.length, 1)) >>> 0;
      new Float32Array(e.memory.buffer, p, x.length).set(x);
      assert.equal(e[fn](p, p, x.length, code), 0);
      const y = new Float32Array(e.memory.buffer, p, x.length).slice();
      e.free(p);
      return y;
    };
    const codes = Object.fromEntries(ACTIVATIONS.map((name, code) => [name, code]));
    const r = rng(31);
    const h0 = ffn.heapStats().heapInUse;
    for (const n of [0, 1, 3, 16383, 16384, 16385, 2 * 16384 + 7, 3 * 16384]) {
      const x = new Float32Array(n);
      for (let i = 0; i < n; i++) x[i] = (r() - 0.5) * 30;
      for (const i of [0, 16383, 16384, n - 1]) if (i >= 0 && i < n) x[i] = [NaN, -Infinity, 1e4, -0][i % 4];
      for (const [name, f] of Object.entries(fnByName)) {
        const got = new Uint32Array(f(x).data.buffer);
        const want = new Uint32Array(whole('act_forward', codes[name], x).buffer);
        assert.equal(got.length, n);
        for (let i = 0; i < n; i++) {
          if (got[i] !== want[i]) assert.fail(`${name}, n = ${n}: element ${i} differs (x = ${x[i]})`);
        }
        const gGot = new Uint32Array(ffn.activationGrad(name, x).data.buffer);
        const gWant = new Uint32Array(whole('act_grad', codes[name], x).buffer);
        for (let i = 0; i < n; i++) {
          if (gGot[i] !== gWant[i]) assert.fail(`activationGrad('${name}'), n = ${n}: element ${i} differs`);
        }
      }
    }
    assert.equal(ffn.heapStats().heapInUse, h0);
  },
);

test('a large activation call needs only one 64 KiB heap block: wasm memory does not grow with x', () => {
  const s0 = ffn.heapStats();
  const n = Math.ceil(s0.memoryBytes / 4) + 12345; // more floats than the whole wasm memory holds in bytes / 4
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) x[i] = ((i * 7919) % 2001) / 100 - 10;
  const y = ffn.silu(x).data;
  const s1 = ffn.heapStats();
  assert.equal(s1.memoryBytes, s0.memoryBytes, 'memory did not grow');
  assert.equal(s1.heapInUse, s0.heapInUse);
  for (const i of [0, 1, 16383, 16384, n >> 1, n - 1]) {
    const want = ref.act('silu', x[i]);
    assert.ok(Math.abs(y[i] - want) <= FWD_ULPS * ulp32(want) + FLOOR, `silu[${i}] = ${y[i]}, expected ${want}`);
  }
});
