// ffn.wasm (or ffn-relaxed.wasm, see helpers/wasm-under-test.js) at the C ABI: its imports, and every SIMD kernel
// against its scalar *_ref export on edge shapes, special values and bad sizes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RELAXED, ACTIVATIONS as ACTS, instantiateRaw, rawHeap } from '../helpers/wasm-under-test.js';
import { fusedInOrderMatmul, rng, ulpDistance as ulps } from '../helpers/numeric.js';

const { module, exports: k, growths } = await instantiateRaw();
const EINVAL = -1;

/* ---- heap helpers (views are re-created after every call: memory may grow) ---- */
const { alloc, put, get, f32, i32, free: freeAll, held } = rawHeap(k);

/* ---- data ---- */
const rand = rng(12345);
const randArray = (n, lo = -1, hi = 1) => Float32Array.from({ length: n }, () => lo + (hi - lo) * rand());
const SPECIALS = [
  NaN,
  Infinity,
  -Infinity,
  1e4,
  -1e4,
  1e30,
  -1e30,
  3.4e38,
  -3.4e38,
  0,
  -0,
  1e-40,
  -1e-40,
  1e-45,
  88,
  -88,
  104,
  -104,
  20,
  -20,
  5,
  -5,
  -0.752,
  1,
  -1,
  30,
  -30,
];
const SIZES = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 23, 24, 25, 33, 47, 48, 49, 64, 65];

const sameBits = (a, b) => (Number.isNaN(a) && Number.isNaN(b)) || Object.is(a, b);
function closeTo(a, b, tol, scale = 1) {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
  return Math.abs(a - b) <= tol * (scale + Math.abs(b));
}

test('imports are exactly env.emscripten_notify_memory_growth; the API is exported', () => {
  assert.deepEqual(WebAssembly.Module.imports(module), [
    { module: 'env', name: 'emscripten_notify_memory_growth', kind: 'function' },
  ]);
  const names = new Set(WebAssembly.Module.exports(module).map((e) => e.name));
  for (const n of [
    'memory',
    '_initialize',
    'malloc',
    'free',
    'matmul_forward',
    'matmul_ref',
    'act_forward',
    'act_ref',
    'act_grad',
    'act_grad_ref',
    'act_backward',
    'ffn_forward',
    'ffn_ref',
    'gated_ffn_forward',
    'gated_ffn_ref',
    'swiglu_backward',
    'swiglu_backward_ref',
    'ffn_memories',
    'ffn_memories_ref',
    'ffn_param_count',
    'llama_hidden_dim',
    'ffn_flops',
    'ffn_heap_in_use',
  ]) {
    assert.ok(names.has(n), `missing export ${n}`);
  }
});

test('malloc returns 0 for a request memory cannot meet, and the module stays usable', () => {
  const before = k.ffn_heap_in_use();
  assert.equal(k.malloc(0xf0000000), 0); // 3.75 GiB > the 2 GiB limit
  assert.equal(k.malloc(0x7fffffff), 0);
  const p = k.malloc(1024);
  assert.notEqual(p, 0);
  assert.ok(k.ffn_heap_in_use() >= before + 1024);
  k.free(p);
  assert.equal(k.ffn_heap_in_use(), before);
});

test('act_forward / act_grad vs act_ref / act_grad_ref, act_backward == dy * act_grad', () => {
  const report = [];
  for (let act = 0; act < ACTS.length; act++) {
    let worstF = 0;
    let worstG = 0;
    for (const n0 of SIZES) {
      const n = n0 === 65 ? n0 + SPECIALS.length : n0;
      const x = randArray(n, -12, 12);
      for (let i = 0; i < n; i++) if (rand() < 0.25) x[i] = SPECIALS[Math.floor(rand() * SPECIALS.length)];
      if (n0 === 65) x.set(SPECIALS, n0);
      const dy = randArray(n, -2, 2);
      const px = put(x);
      const pdy = put(dy);
      const py = alloc(n);
      const pr = alloc(n);
      const pdx = alloc(n);
      assert.equal(k.act_forward(py, px, n, act), 0);
      assert.equal(k.act_ref(pr, px, n, act), 0);
      let y = get(py, n);
      let r = get(pr, n);
      for (let i = 0; i < n; i++) {
        const u = ulps(y[i], r[i]);
        worstF = Math.max(worstF, u);
        assert.ok(u <= 2, `${ACTS[act]}(${x[i]}): simd ${y[i]} ref ${r[i]} (${u} ulp)`);
        if (Number.isNaN(x[i])) assert.ok(Number.isNaN(y[i]), `${ACTS[act]}(NaN) = ${y[i]}`);
      }
      assert.equal(k.act_grad(py, px, n, act), 0);
      assert.equal(k.act_grad_ref(pr, px, n, act), 0);
      y = get(py, n);
      r = get(pr, n);
      for (let i = 0; i < n; i++) {
        const u = Math.abs(y[i] - r[i]) < 1e-30 ? 0 : ulps(y[i], r[i]); // tiny floor at zero crossings
        worstG = Math.max(worstG, u);
        assert.ok(u <= 4, `${ACTS[act]}'(${x[i]}): simd ${y[i]} ref ${r[i]} (${u} ulp)`);
      }
      assert.equal(k.act_backward(pdx, pdy, px, n, act), 0);
      const dx = get(pdx, n);
      for (let i = 0; i < n; i++) {
        assert.ok(sameBits(dx[i], Math.fround(dy[i] * y[i])), `${ACTS[act]} backward at ${x[i]}`);
      }
      // aliasing: y = x in place
      assert.equal(k.act_forward(px, px, n, act), 0);
      assert.equal(k.act_forward(py, pr, 0, act), 0);
      freeAll();
    }
    report.push(`${ACTS[act]} ${worstF}/${worstG}`);
  }
  console.log(`SIMD vs ref, max ulp forward/grad: ${report.join(', ')}`);
});

test('activation limits: +-inf, +-1e4, NaN, signed zero', () => {
  const x = [-Infinity, Infinity, -1e4, 1e4, NaN, -0];
  const px = put(x);
  const py = alloc(x.length);
  const run = (fn, act) => {
    k[fn](py, px, x.length, act);
    return get(py, x.length);
  };
  let y = run('act_forward', 3);
  assert.deepEqual([...y.slice(0, 4)], [0, 1, 0, 1]);
  for (const act of [4, 5, 6, 7]) {
    y = run('act_forward', act);
    assert.ok(Object.is(y[0], -0), `${ACTS[act]}(-inf) = ${y[0]}, expected -0`);
    assert.equal(y[1], Infinity);
    assert.ok(y[2] === 0 && y[3] === 1e4 && Number.isNaN(y[4]), `${ACTS[act]}: ${y}`);
    y = run('act_grad', act);
    assert.ok(y[0] === 0 && y[1] === 1 && y[2] === 0 && y[3] === 1 && Number.isNaN(y[4]), `${ACTS[act]}': ${y}`);
  }
  y = run('act_forward', 1); // relu
  assert.ok(Object.is(y[5], 0) && Number.isNaN(y[4]) && y[1] === Infinity);
  y = run('act_grad', 1); // relu'(0) = 0, relu'(-0) = 0
  assert.deepEqual([...y.slice(0, 4), y[5]], [0, 1, 0, 1, 0]);
  y = run('act_grad', 2); // relu2' = 2 relu
  assert.deepEqual([...y.slice(0, 4)], [0, Infinity, 0, 2e4]);
  freeAll();
});

/**
 * A (M,K) @ B (K,N) on the heap by matmul_forward (into a buffer of 7s: every output must be written) and by
 * matmul_ref, both returning 0: { c, r }, their outputs. The heap is freed by the caller.
 */
function matmulBoth(A, B, M, K, N) {
  const pa = put(A);
  const pb = put(B);
  const pc = alloc(M * N);
  const pr = alloc(M * N);
  f32(pc, M * N).fill(7);
  assert.equal(k.matmul_forward(pc, pa, pb, M, K, N), 0);
  assert.equal(k.matmul_ref(pr, pa, pb, M, K, N), 0);
  return { c: get(pc, M * N), r: get(pr, M * N) };
}

test('matmul_forward equals matmul_ref bit for bit (same summation order), incl. NaN/inf', () => {
  for (const M of [0, 1, 3, 4, 5]) {
    for (const K of [0, 1, 3, 4, 8, 17]) {
      for (const N of [0, 1, 3, 4, 5, 8, 9, 33]) {
        const A = randArray(M * K);
        const B = randArray(K * N);
        if (M * K > 1 && (M + K + N) % 2) A[1] = SPECIALS[(M + N) % SPECIALS.length];
        const { c, r } = matmulBoth(A, B, M, K, N);
        for (let i = 0; i < M * N; i++) {
          assert.ok(sameBits(c[i], r[i]), `matmul ${M}x${K}x${N}[${i}]: ${c[i]} vs ${r[i]}`);
        }
        freeAll();
      }
    }
  }
});

test(
  'large products go to the packed GEMM (M >= 4 and M*K*N >= 2^18): matmul_forward still equals matmul_ref ' +
    'bit for bit (or its fused in-order sum in ffn-relaxed.wasm), K blocks included, on both sides of the threshold',
  () => {
    // [M, K, N]: just under / at / over the threshold, M = 3 (never GEMM), tails in every dimension, K over one K
    // block (384 with the prebroadcast microkernel, 768 with splat: the later blocks resume the sums in C)
    const shapes = [
      [4, 255, 257],
      [4, 256, 256],
      [3, 1000, 100],
      [5, 300, 177],
      [9, 64, 513],
      [13, 768, 33],
      [6, 385, 120],
      [6, 769, 70],
      [5, 1500, 41],
    ];
    for (const [M, K, N] of shapes) {
      const A = randArray(M * K);
      const B = randArray(K * N);
      A[K + 2] = NaN;
      B[3 * N + 1] = 1e30; // a NaN row and an overflowing column take the same path as in the reference
      const { c, r: byRef } = matmulBoth(A, B, M, K, N);
      let r = byRef;
      // ffn-relaxed.wasm's GEMM may fuse its multiply-adds: then the whole product is the same in-order sums
      // with fused steps (the plain loop below the threshold never fuses)
      if (RELAXED && M >= 4 && M * K * N >= 2 ** 18 && !c.every((v, i) => sameBits(v, r[i]))) {
        r = fusedInOrderMatmul(A, B, M, K, N);
      }
      for (let i = 0; i < M; i++) {
        for (let j = 0; j < N; j++) {
          const got = c[i * N + j],
            want = r[i * N + j];
          const at = `matmul ${M}x${K}x${N}[${i},${j}]`;
          assert.ok(sameBits(got, want), `${at}: ${got} vs ${want}`);
          if (!Number.isFinite(want)) continue;
          let exact = 0,
            mag = 0;
          for (let q = 0; q < K; q++) {
            exact += A[i * K + q] * B[q * N + j];
            mag += Math.abs(A[i * K + q] * B[q * N + j]);
          }
          assert.ok(Math.abs(got - exact) <= 2 * (K + 2) * 2 ** -24 * mag, `${at}: ${got} vs float64 ${exact}`);
        }
      }
      freeAll();
    }
  },
);

/** Runs a kernel and its reference on the same arguments into bufs [py, pr, w1, w2] (outputs, scratch): both return 0
 * and agree within 1e-5 (the activation differs by an ulp or two from act_ref); label names the case. */
function sameAsRef(label, fwd, ref, args, n, [py, pr, w1, w2]) {
  assert.equal(k[fwd](py, ...args, w1), 0);
  assert.equal(k[ref](pr, ...args, w2), 0);
  const y = get(py, n);
  const r = get(pr, n);
  for (let i = 0; i < n; i++) assert.ok(closeTo(y[i], r[i], 1e-5), `${label}[${i}]: ${y[i]} vs ${r[i]}`);
}

/**
 * One FFN case on the heap: X in [-2, 2], W1, W2, W3 in [-w, w], biases in [-1, 1]; ffn_forward (with its biases,
 * and also without if noBias) and gated_ffn_forward against their references (sameAsRef); the heap freed after.
 */
function ffnCaseSameAsRef(act, [T, d, F], w, { noBias = false } = {}) {
  const X = put(randArray(T * d, -2, 2));
  const W1 = put(randArray(d * F, -w, w));
  const W2 = put(randArray(F * d, -w, w));
  const W3 = put(randArray(d * F, -w, w));
  const b1 = put(randArray(F));
  const b2 = put(randArray(d));
  const bufs = [alloc(T * d), alloc(T * d), alloc(2 * T * F), alloc(2 * T * F)]; // outputs, scratch
  const at = `${ACTS[act]} ${T},${d},${F}`;
  sameAsRef(`ffn ${at}`, 'ffn_forward', 'ffn_ref', [X, W1, b1, W2, b2, T, d, F, act], T * d, bufs);
  if (noBias) {
    sameAsRef(`ffn (no bias) ${at}`, 'ffn_forward', 'ffn_ref', [X, W1, 0, W2, 0, T, d, F, act], T * d, bufs);
  }
  sameAsRef(`gated ${at}`, 'gated_ffn_forward', 'gated_ffn_ref', [X, W1, W3, W2, T, d, F, act], T * d, bufs);
  freeAll();
}

const PACKED = 'ffn_forward and gated_ffn_forward on the packed GEMM (large shapes, biases, every activation)';
test(`${PACKED} vs their references`, () => {
  for (let act = 0; act < ACTS.length; act++) ffnCaseSameAsRef(act, act % 2 ? [5, 130, 700] : [8, 67, 520], 0.2);
});

test('ffn_forward and gated_ffn_forward vs their references, every activation', () => {
  const shapes = [
    [0, 3, 4],
    [1, 1, 1],
    [2, 4, 8],
    [3, 5, 17],
    [1, 9, 0],
    [4, 16, 33],
  ];
  for (let act = 0; act < ACTS.length; act++) {
    for (const shape of shapes) ffnCaseSameAsRef(act, shape, 1, { noBias: true });
  }
});

test('swiglu_backward vs swiglu_backward_ref on edge shapes', () => {
  for (const [N, d, F] of [
    [0, 2, 3],
    [1, 1, 1],
    [2, 3, 4],
    [3, 4, 5],
    [5, 9, 17],
    [2, 0, 3],
    [2, 3, 0],
  ]) {
    const X = randArray(N * d, -2, 2);
    const dY = randArray(N * d);
    const Wg = randArray(d * F);
    const Wu = randArray(d * F);
    const Wd = randArray(F * d);
    const ins = [put(dY), put(X), put(Wg), put(Wu), put(Wd)];
    const lens = [N * d, d * F, d * F, F * d];
    const outs = [lens.map(alloc), lens.map(alloc)];
    const work = [alloc(3 * N * F), alloc(3 * N * F)];
    assert.equal(k.swiglu_backward(...outs[0], ...ins, N, d, F, work[0]), 0);
    assert.equal(k.swiglu_backward_ref(...outs[1], ...ins, N, d, F, work[1]), 0);
    lens.forEach((len, o) => {
      const a = get(outs[0][o], len);
      const b = get(outs[1][o], len);
      for (let i = 0; i < len; i++) {
        assert.ok(closeTo(a[i], b[i], 1e-5), `swiglu_backward ${N},${d},${F} out ${o}[${i}]: ${a[i]} vs ${b[i]}`);
      }
    });
    freeAll();
  }
});

test('ffn_memories vs ffn_memories_ref: ties by lower index, NaN first, k = 0 .. dff', () => {
  for (const [d, F] of [
    [0, 0],
    [1, 1],
    [3, 4],
    [4, 5],
    [5, 9],
    [8, 33],
  ]) {
    for (let kk = 0; kk <= F; kk++) {
      const x = Float32Array.from({ length: d }, () => Math.floor(rand() * 3));
      const W1 = Float32Array.from({ length: d * F }, () => Math.floor(rand() * 5) - 2); // many ties
      const b1 = Float32Array.from({ length: F }, () => Math.floor(rand() * 3) - 1);
      if (F > 4 && kk % 3 === 1) b1[3] = NaN;
      const W2 = randArray(F * d);
      const ins = [put(x), put(W1), kk % 2 ? put(b1) : 0, put(W2)];
      const res = [0, 1].map(() => [alloc(F), alloc(kk), alloc(d)]);
      assert.equal(k.ffn_memories(...res[0], ...ins, d, F, kk), 0);
      assert.equal(k.ffn_memories_ref(...res[1], ...ins, d, F, kk), 0);
      const [c0, c1] = res.map(([c]) => get(c, F));
      const [t0, t1] = res.map(([, t]) => Array.from(i32(t, kk)));
      const [p0, p1] = res.map(([, , p]) => get(p, d));
      for (let i = 0; i < F; i++) assert.ok(sameBits(c0[i], c1[i]));
      assert.deepEqual(t0, t1, `top d=${d} dff=${F} k=${kk}`);
      for (let i = 1; i < kk; i++) {
        const [a, b] = [c0[t0[i - 1]], c0[t0[i]]];
        assert.ok(Number.isNaN(a) || a > b || (a === b && t0[i - 1] < t0[i]), `order at ${i}: ${t0}`);
      }
      for (let i = 0; i < d; i++) assert.ok(sameBits(p0[i], p1[i]), `partial ${d},${F},${kk}`);
      freeAll();
    }
  }
});

test('bad sizes, unknown activations and k out of range return EINVAL and touch nothing', () => {
  const s = alloc(64);
  f32(s, 64).fill(7);
  const bad = [
    [-1, 2, 2],
    [2, -1, 2],
    [2, 2, -1],
  ];
  for (const [a, b, c] of bad) {
    assert.equal(k.matmul_forward(s, s, s, a, b, c), EINVAL);
    assert.equal(k.matmul_ref(s, s, s, a, b, c), EINVAL);
    assert.equal(k.ffn_forward(s, s, s, s, s, s, a, b, c, 1, s), EINVAL);
    assert.equal(k.ffn_ref(s, s, s, s, s, s, a, b, c, 1, s), EINVAL);
    assert.equal(k.gated_ffn_forward(s, s, s, s, s, a, b, c, 4, s), EINVAL);
    assert.equal(k.gated_ffn_ref(s, s, s, s, s, a, b, c, 4, s), EINVAL);
    assert.equal(k.swiglu_backward(s, s, s, s, s, s, s, s, s, a, b, c, s), EINVAL);
    assert.equal(k.swiglu_backward_ref(s, s, s, s, s, s, s, s, s, a, b, c, s), EINVAL);
  }
  for (const act of [-1, 8, 1000]) {
    for (const fn of ['act_forward', 'act_ref', 'act_grad', 'act_grad_ref']) assert.equal(k[fn](s, s, 4, act), EINVAL);
    assert.equal(k.act_backward(s, s, s, 4, act), EINVAL);
    assert.equal(k.ffn_forward(s, s, s, s, s, s, 1, 2, 2, act, s), EINVAL);
    assert.equal(k.ffn_ref(s, s, s, s, s, s, 1, 2, 2, act, s), EINVAL);
    assert.equal(k.gated_ffn_forward(s, s, s, s, s, 1, 2, 2, act, s), EINVAL);
    assert.equal(k.gated_ffn_ref(s, s, s, s, s, 1, 2, 2, act, s), EINVAL);
  }
  for (const fn of ['act_forward', 'act_ref', 'act_grad', 'act_grad_ref']) assert.equal(k[fn](s, s, -4, 1), EINVAL);
  assert.equal(k.act_backward(s, s, s, -1, 1), EINVAL);
  for (const [d, F, kk] of [
    [-1, 4, 1],
    [4, -1, 0],
    [4, 4, -1],
    [4, 4, 5],
    [0, 0, 1],
  ]) {
    assert.equal(k.ffn_memories(s, s, s, s, s, s, s, d, F, kk), EINVAL, `memories ${d},${F},${kk}`);
    assert.equal(k.ffn_memories_ref(s, s, s, s, s, s, s, d, F, kk), EINVAL);
  }
  assert.ok(
    f32(s, 64).every((v) => v === 7),
    'an EINVAL call wrote to memory',
  );
  // zero sizes are valid; K = 0 gives zeros; dff = 0 gives the output bias
  assert.equal(k.matmul_forward(s, s, s, 2, 0, 3), 0);
  assert.deepEqual([...f32(s, 7)], [0, 0, 0, 0, 0, 0, 7]);
  f32(s, 64).fill(7);
  const b2 = put([1.5, -2]);
  assert.equal(k.ffn_forward(s, s, s, s, s, b2, 1, 2, 0, 6, s), 0);
  assert.deepEqual([...f32(s, 3)], [1.5, -2, 7]);
  freeAll();
});

test('counts: parameters, LLaMA hidden sizes, FLOPs, validation', () => {
  assert.equal(k.ffn_param_count(768, 3072, 1, 0), 4722432); // GPT-2 FFN per layer
  assert.equal(k.ffn_param_count(4096, 11008, 0, 1), 3 * 4096 * 11008);
  assert.equal(k.ffn_param_count(10, 20, 1, 1), 3 * 200 + 2 * 20 + 10);
  assert.equal(k.llama_hidden_dim(4096, 256, 0), 11008);
  assert.equal(k.llama_hidden_dim(8192, 4096, 1.3), 28672);
  assert.equal(k.llama_hidden_dim(4096, 1024, 1.3), 14336);
  assert.equal(k.llama_hidden_dim(768, 1, 0), 2048);
  assert.equal(k.ffn_flops(768, 3072, 0), 16 * 768 * 768);
  assert.equal(k.ffn_flops(4096, 11008, 1), 6 * 4096 * 11008);
  for (const v of [-1, 1.5, NaN, Infinity]) {
    assert.equal(k.ffn_param_count(v, 4, 1, 0), EINVAL);
    assert.equal(k.ffn_flops(4, v, 0), EINVAL);
    assert.equal(k.llama_hidden_dim(v, 256, 0), EINVAL);
  }
  assert.equal(k.llama_hidden_dim(4096, 0, 0), EINVAL);
  assert.equal(k.llama_hidden_dim(4096, 256, NaN), EINVAL);
});

test('memory growth: emscripten_notify_memory_growth is called and kernels keep working', () => {
  assert.equal(held(), 0);
  const base = k.ffn_heap_in_use();
  const pages = k.memory.buffer.byteLength;
  const before = growths();
  const big = alloc(8 << 20); // 32 MiB: more than the initial 16 MiB
  assert.ok(k.memory.buffer.byteLength > pages && growths() > before, 'memory did not grow');
  f32(big, 8 << 20).fill(1);
  const x = randArray(1000, -8, 8);
  const px = put(x);
  const py = alloc(1000);
  const pr = alloc(1000);
  k.act_forward(py, px, 1000, 5);
  k.act_ref(pr, px, 1000, 5);
  const y = get(py, 1000);
  const r = get(pr, 1000);
  for (let i = 0; i < 1000; i++) assert.ok(ulps(y[i], r[i]) <= 2);
  freeAll();
  assert.equal(k.ffn_heap_in_use(), base, 'heap not back to its level');
});
