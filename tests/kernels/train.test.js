// The training kernels of src/train.c and src/backward.c at the C ABI: each SIMD kernel against its scalar *_ref
// twin on edge shapes and special values, every backward against float64 central differences, softmax
// cross-entropy, AdamW and the SPD solve against float64 JS references.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ACTIVATIONS as ACTS, instantiateRaw, rawHeap } from '../helpers/wasm-under-test.js';
import { rng } from '../helpers/numeric.js';
import { act as act64 } from '../helpers/ref.js';
import {
  EPS32,
  sameBits,
  assertAllClose,
  assertSameBits,
  ffn64,
  gated64,
  numericGrads,
  assertGradClose,
  awayFromKink,
  softmaxCe64,
  logitRows,
  randomSpd,
  solve64,
  ADAMW_OPTS,
  adamwGrads,
  adamw64,
  assertAdamwClose,
} from '../helpers/train-ref.js';

const { exports: k } = await instantiateRaw();
const EINVAL = -1;
const ENOTPD = -3;

const { alloc, put, get, f32, i32, free: freeAll } = rawHeap(k);
const rand = rng(2024);
const randArray = (n, lo = -1, hi = 1) => Float32Array.from({ length: n }, () => lo + (hi - lo) * rand());
const putI32 = (a) => {
  const p = alloc(a.length);
  i32(p, a.length).set(a);
  return p;
};
// Shapes (rows, d, dff): empty, below one 4-lane vector, tails, 4x8 tile multiples plus one, one past the
// small-product threshold of the GEMM (65 x 33 x 129).
const SHAPES = [
  [0, 3, 4],
  [1, 1, 1],
  [2, 3, 2],
  [3, 4, 9],
  [4, 8, 8],
  [5, 9, 33],
  [2, 0, 3],
  [2, 3, 0],
  [9, 5, 17],
  [65, 33, 129],
];

/* ---- classic FFN backward ---- */

/** ffn_backward and ffn_backward_ref on one shape: every output within float32 rounding of the other */
function ffnBackwardCase(act, [T, d, F], { special = false, bias = true } = {}) {
  const X = randArray(T * d, -2, 2);
  if (special && X.length > 2) X[1] = NaN;
  if (special && X.length > 4) X[3] = 1e3; // saturating pre-activations
  const W1 = randArray(d * F);
  const b1 = randArray(F);
  const W2 = randArray(F * d);
  const dY = randArray(T * d);
  const ins = [put(dY), put(X), put(W1), bias ? put(b1) : 0, put(W2)];
  const lens = [T * d, d * F, F, F * d, d];
  const outs = [lens.map(alloc), lens.map(alloc)];
  assert.equal(k.ffn_backward(...outs[0], ...ins, T, d, F, act, alloc(2 * T * F)), 0);
  assert.equal(k.ffn_backward_ref(...outs[1], ...ins, T, d, F, act, alloc(2 * T * F)), 0);
  const names = ['dX', 'dW1', 'db1', 'dW2', 'db2'];
  lens.forEach((len, o) => {
    assertAllClose(get(outs[0][o], len), get(outs[1][o], len), 2e-5, `${ACTS[act]} ${T},${d},${F} ${names[o]}`);
  });
  freeAll();
}

test('ffn_backward vs ffn_backward_ref, every activation, edge shapes, NaN and large inputs', () => {
  for (let act = 0; act < ACTS.length; act++) {
    for (const shape of SHAPES) ffnBackwardCase(act, shape);
    ffnBackwardCase(act, [5, 9, 33], { special: true });
    ffnBackwardCase(act, [3, 4, 5], { bias: false });
  }
});

test('ffn_backward_saved vs its _ref; dX optional, and needs W1', () => {
  for (let act = 0; act < ACTS.length; act++) {
    for (const [T, d, F] of SHAPES) {
      const H = randArray(T * F, -3, 3);
      const A = Float32Array.from(H, (h) => act64(ACTS[act], h));
      const [X, W2, W1, dY] = [randArray(T * d), randArray(F * d), randArray(d * F), randArray(T * d)];
      const res = [0, 1].map(() => {
        const outs = [alloc(T * d), alloc(d * F), alloc(F), alloc(F * d)];
        return { outs, A: put(A) };
      });
      const ins = [put(dY), put(X), put(H)];
      const call = (fn, r) => k[fn](...r.outs, ...ins, r.A, put(W2), T, d, F, act, put(W1));
      assert.equal(call('ffn_backward_saved', res[0]), 0);
      assert.equal(call('ffn_backward_saved_ref', res[1]), 0);
      const lens = [T * d, d * F, F, F * d];
      lens.forEach((len, o) => {
        assertAllClose(
          get(res[0].outs[o], len),
          get(res[1].outs[o], len),
          2e-5,
          `saved ${ACTS[act]} ${T},${d},${F} ${o}`,
        );
      });
      assertAllClose(get(res[0].A, T * F), get(res[1].A, T * F), 2e-5, 'dH in A');
      freeAll();
    }
  }
  // the agreed 13-argument call (no W1): dX must be NULL
  const s = alloc(64);
  f32(s, 64).fill(0.5);
  assert.equal(k.ffn_backward_saved(0, s, s + 32, s + 64, s, s, s, alloc(4), s, 2, 2, 2, 1), 0);
  assert.equal(k.ffn_backward_saved(s, s, 0, s, s, s, s, alloc(4), s, 2, 2, 2, 1), EINVAL);
  assert.equal(k.ffn_backward_saved_ref(s, s, 0, s, s, s, s, alloc(4), s, 2, 2, 2, 1), EINVAL);
  freeAll();
});

test('gated_ffn_backward vs gated_ffn_backward_ref, every activation; swiglu_backward is its SiLU case', () => {
  for (let act = 0; act < ACTS.length; act++) {
    for (const [N, d, F] of SHAPES) {
      const X = randArray(N * d, -2, 2);
      if (N * d > 3 && act % 2) X[2] = NaN;
      const ins = [put(randArray(N * d)), put(X), put(randArray(d * F)), put(randArray(d * F)), put(randArray(F * d))];
      const lens = [N * d, d * F, d * F, F * d];
      const outs = [lens.map(alloc), lens.map(alloc), lens.map(alloc)];
      assert.equal(k.gated_ffn_backward(...outs[0], ...ins, N, d, F, act, alloc(3 * N * F)), 0);
      assert.equal(k.gated_ffn_backward_ref(...outs[1], ...ins, N, d, F, act, alloc(3 * N * F)), 0);
      lens.forEach((len, o) => {
        const label = `gated ${ACTS[act]} ${N},${d},${F} out ${o}`;
        assertAllClose(get(outs[0][o], len), get(outs[1][o], len), 2e-5, label);
      });
      if (ACTS[act] === 'silu') {
        assert.equal(k.swiglu_backward(...outs[2], ...ins, N, d, F, alloc(3 * N * F)), 0);
        lens.forEach((len, o) => assertSameBits(get(outs[2][o], len), get(outs[0][o], len), `swiglu ${o}`));
      }
      freeAll();
    }
  }
});

/* ---- float64 central differences ---- */

test('ffn_backward and ffn_backward_saved against float64 central differences, all 8 activations', () => {
  const [T, d, F] = [3, 4, 5];
  for (let act = 0; act < ACTS.length; act++) {
    const name = ACTS[act];
    const [X, W1, b1] = awayFromKink(randArray, T, d, F);
    const W2 = randArray(F * d);
    const b2 = randArray(d);
    const dY = randArray(T * d);
    const params = [X, W1, b1, W2, b2].map((a) => Float64Array.from(a));
    const num = numericGrads((...p) => ffn64(name, ...p, T, d, F), params, dY);
    const lens = [T * d, d * F, F, F * d, d];
    const outs = lens.map(alloc);
    const inputs = [put(dY), put(X), put(W1), put(b1), put(W2)];
    assert.equal(k.ffn_backward(...outs, ...inputs, T, d, F, act, alloc(2 * T * F)), 0);
    ['dX', 'dW1', 'db1', 'dW2', 'db2'].forEach((n, o) =>
      assertGradClose(get(outs[o], lens[o]), num[o], `ffn_backward ${name} ${n}`),
    );
    // the saved variant from H, A computed here in float64 and rounded
    const H = new Float32Array(T * F);
    for (let t = 0; t < T; t++)
      for (let j = 0; j < F; j++) {
        let h = b1[j];
        for (let c = 0; c < d; c++) h += X[t * d + c] * W1[c * F + j];
        H[t * F + j] = h;
      }
    const A = Float32Array.from(H, (h) => act64(name, h));
    const s = [alloc(T * d), alloc(d * F), alloc(F), alloc(F * d)];
    assert.equal(k.ffn_backward_saved(...s, put(dY), put(X), put(H), put(A), put(W2), T, d, F, act, put(W1)), 0);
    ['dX', 'dW1', 'db1', 'dW2'].forEach((n, o) =>
      assertGradClose(get(s[o], lens[o]), num[o], `ffn_backward_saved ${name} ${n}`),
    );
    freeAll();
  }
});

test('gated_ffn_backward against float64 central differences, all 8 activations', () => {
  const [N, d, F] = [3, 4, 5];
  for (let act = 0; act < ACTS.length; act++) {
    const name = ACTS[act];
    const [X, Wg] = awayFromKink(randArray, N, d, F, false); // the gate's pre-activations X Wg
    const [Wu, Wd, dY] = [randArray(d * F), randArray(F * d), randArray(N * d)];
    const num = numericGrads(
      (...p) => gated64(name, ...p, N, d, F),
      [X, Wg, Wu, Wd].map((a) => Float64Array.from(a)),
      dY,
    );
    const lens = [N * d, d * F, d * F, F * d];
    const outs = lens.map(alloc);
    const ins = [put(dY), put(X), put(Wg), put(Wu), put(Wd)];
    assert.equal(k.gated_ffn_backward(...outs, ...ins, N, d, F, act, alloc(3 * N * F)), 0);
    ['dX', 'dWg', 'dWu', 'dWd'].forEach((n, o) =>
      assertGradClose(get(outs[o], lens[o]), num[o], `gated_ffn_backward ${name} ${n}`),
    );
    freeAll();
  }
});

/* ---- softmax cross-entropy ---- */

test('softmax_ce_backward vs a float64 reference: loss, correct count, dlogits; +-1e4, NaN, +-inf', () => {
  for (const kind of ['plain', 'large', 'special']) {
    for (const [N, V] of [
      [1, 1],
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 5],
      [5, 8],
      [3, 9],
      [9, 33],
      [33, 479],
    ]) {
      const L = logitRows(randArray, rand, N, V, kind);
      const targets = Int32Array.from({ length: N }, () => Math.floor(rand() * V));
      const ref = softmaxCe64(L, targets, N, V);
      for (const fn of ['softmax_ce_backward', 'softmax_ce_backward_ref']) {
        const [d, loss, corr] = [alloc(N * V), alloc(1), alloc(1)];
        assert.equal(k[fn](d, loss, corr, put(L), putI32(targets), N, V), 0);
        const label = `${fn} ${kind} ${N}x${V}`;
        // loss: the mean of float64-accurate row terms rounded once; a few float32 ulps of the largest term
        const got = get(loss, 1)[0];
        if (Number.isNaN(ref.loss)) assert.ok(Number.isNaN(got), `${label} loss ${got}`);
        else
          assert.ok(Math.abs(got - ref.loss) <= 1e-6 * (Math.abs(ref.loss) + 1), `${label} loss ${got} vs ${ref.loss}`);
        assert.equal(i32(corr, 1)[0], ref.correct, `${label} correct`);
        // dlogits: exp to a few ulps (1e-6 relative); exps below e^-87 may be flushed (absolute 2e-38)
        const g = get(d, N * V);
        for (let i = 0; i < N * V; i++) {
          const e = ref.d[i];
          if (Number.isNaN(e)) assert.ok(Number.isNaN(g[i]), `${label} d[${i}] ${g[i]} should be NaN`);
          else assert.ok(Math.abs(g[i] - e) <= 1e-6 * Math.abs(e) + 2e-38, `${label} d[${i}]: ${g[i]} vs ${e}`);
        }
      }
      freeAll();
    }
  }
});

test('softmax_ce_backward: in place, loss only, N = 0, and out-of-range targets -> EINVAL writing nothing', () => {
  const [N, V] = [5, 13];
  const L = logitRows(randArray, rand, N, V, 'special');
  const t = putI32(Int32Array.from({ length: N }, (_, i) => (i * 5) % V));
  const [d, loss, corr] = [alloc(N * V), alloc(1), alloc(1)];
  assert.equal(k.softmax_ce_backward(d, loss, corr, put(L), t, N, V), 0);
  const inPlace = put(L);
  const loss2 = alloc(1);
  assert.equal(k.softmax_ce_backward(inPlace, loss2, 0, inPlace, t, N, V), 0);
  assertSameBits(get(inPlace, N * V), get(d, N * V), 'aliased dlogits');
  assertSameBits(get(loss2, 1), get(loss, 1), 'aliased loss');
  assert.equal(k.softmax_ce_backward(0, loss2, 0, put(L), t, N, V), 0);
  assertSameBits(get(loss2, 1), get(loss, 1), 'loss only');
  for (const fn of ['softmax_ce_backward', 'softmax_ce_backward_ref']) {
    assert.equal(k[fn](d, loss, corr, put(L), t, 0, V), 0);
    assert.ok(Number.isNaN(get(loss, 1)[0]), 'N = 0: NaN loss');
    assert.equal(i32(corr, 1)[0], 0);
    for (const bad of [-1, V, 1 << 30]) {
      const tb = putI32([0, 1, bad, 2, 3]);
      f32(d, N * V).fill(7);
      f32(loss, 1)[0] = 7;
      assert.equal(k[fn](d, loss, corr, put(L), tb, N, V), EINVAL, `${fn} target ${bad}`);
      assert.ok(get(d, N * V).every((v) => v === 7) && get(loss, 1)[0] === 7, 'nothing written');
    }
    assert.equal(k[fn](d, loss, corr, put(L), t, -1, V), EINVAL);
    assert.equal(k[fn](d, loss, corr, put(L), t, N, 0), EINVAL);
  }
  freeAll();
});

/* ---- optimizers ---- */

const OPT_SIZES = [0, 1, 2, 3, 4, 5, 7, 8, 9, 33, 257];
const SPECIAL_G = [NaN, Infinity, -Infinity, 1e30, -1e30, 3.4e38, 1e-40, 0, -0, 1e4, -1e4];

test('adamw_step, sgd_step and rank_one_update vs their _ref twins, bit for bit, with special values', () => {
  for (const n of OPT_SIZES) {
    const g = randArray(n);
    for (let i = 0; i < n; i += 3) g[i] = SPECIAL_G[(i / 3) % SPECIAL_G.length];
    const init = [randArray(n), randArray(n, -0.1, 0.1), randArray(n, 0, 0.01)];
    const sides = ['adamw_step', 'adamw_step_ref'].map((fn) => {
      const [p, m, v] = init.map(put);
      const gp = put(g);
      for (let t = 1; t <= 3; t++) assert.equal(k[fn](p, m, v, gp, n, 0.03, 0.9, 0.999, 1e-8, 0.01, t), 0);
      return [p, m, v].map((q) => get(q, n));
    });
    sides[0].forEach((a, o) => assertSameBits(a, sides[1][o], `adamw n=${n} buffer ${o}`));
    const sgd = ['sgd_step', 'sgd_step_ref'].map((fn) => {
      const p = put(init[0]);
      assert.equal(k[fn](p, put(g), n, 0.05), 0);
      return get(p, n);
    });
    assertSameBits(sgd[0], sgd[1], `sgd n=${n}`);
    // an independent float32 emulation: p + (-lr) g rounded at each operation
    const lr = Math.fround(0.05);
    sgd[0].forEach((v, i) =>
      assert.ok(sameBits(v, Math.fround(init[0][i] + Math.fround(-lr * g[i]))), `sgd n=${n} [${i}]`),
    );
    freeAll();
  }
  for (const [M, N] of [
    [0, 3],
    [3, 0],
    [1, 1],
    [2, 3],
    [3, 5],
    [5, 9],
    [9, 33],
    [33, 17],
  ]) {
    const W = randArray(M * N);
    const u = randArray(M);
    const v = randArray(N);
    if (N > 2) v[2] = NaN;
    const alpha = Math.fround(-0.7);
    const out = ['rank_one_update', 'rank_one_update_ref'].map((fn) => {
      const w = put(W);
      assert.equal(k[fn](w, put(u), put(v), M, N, alpha), 0);
      return get(w, M * N);
    });
    assertSameBits(out[0], out[1], `rank_one ${M}x${N}`);
    for (let i = 0; i < M; i++)
      for (let j = 0; j < N; j++) {
        const e = Math.fround(W[i * N + j] + Math.fround(Math.fround(alpha * u[i]) * v[j]));
        assert.ok(sameBits(out[0][i * N + j], e), `rank_one ${M}x${N} [${i},${j}]`);
      }
    freeAll();
  }
});

test('adamw_step over 100 steps matches a float64 AdamW within float32 rounding', () => {
  const n = 37;
  const opts = ADAMW_OPTS.map(Math.fround);
  const grads = adamwGrads(randArray, n, 100);
  const p0 = randArray(n);
  const [p, m, v] = [put(p0), put(new Float32Array(n)), put(new Float32Array(n))];
  grads.forEach((g, t) => assert.equal(k.adamw_step(p, m, v, put(g), n, ...opts, t + 1), 0));
  assertAdamwClose(get(p, n), get(m, n), get(v, n), adamw64(p0, grads, opts), 'adamw_step');
  freeAll();
});

/* ---- SPD factor and solve ---- */

test('spd_factor and spd_solve (and their _ref twins) vs a float64 solve on random SPD matrices', () => {
  for (const n of [1, 2, 3, 5, 9, 33, 257]) {
    const A = randomSpd(randArray, n);
    for (const r of n > 33 ? [1, 5] : [1, 3, 8]) {
      const B = randArray(n * r);
      const X64 = solve64(A, B, n, r);
      const big = X64.reduce((a, v) => Math.max(a, Math.abs(v)), 0);
      for (const [factor, solve] of [
        ['spd_factor', 'spd_solve'],
        ['spd_factor_ref', 'spd_solve_ref'],
      ]) {
        const L = alloc(n * n);
        assert.equal(k[factor](L, put(A), n), 0);
        const Lv = get(L, n * n);
        // lower triangular, positive diagonal, L L^T = A within float32 rounding (A's entries are O(1))
        for (let i = 0; i < n; i++) {
          assert.ok(Lv[i * n + i] > 0, `${factor} n=${n} diag ${i}`);
          for (let j = i + 1; j < n; j++) assert.equal(Lv[i * n + j], 0, `${factor} upper [${i},${j}]`);
          for (let j = 0; j <= i; j++) {
            let s = 0;
            for (let c = 0; c <= j; c++) s += Lv[i * n + c] * Lv[j * n + c];
            assert.ok(Math.abs(s - A[i * n + j]) <= 8 * EPS32 * (1 + n / 8), `${factor} n=${n} LL^T [${i},${j}]`);
          }
        }
        // X within the float32 perturbation of A and B times the condition number (< 5): 1e-5 of the largest
        const Bp = put(B);
        assert.equal(k[solve](Bp, L, Bp, n, r), 0, `${solve} in place`);
        const X = get(Bp, n * r);
        for (let i = 0; i < n * r; i++) {
          assert.ok(Math.abs(X[i] - X64[i]) <= 1e-5 * big, `${solve} n=${n} r=${r} [${i}]: ${X[i]} vs ${X64[i]}`);
        }
      }
      freeAll();
    }
  }
  // L may alias A
  const A = randomSpd(randArray, 9);
  const [L1, L2] = [alloc(81), put(A)];
  assert.equal(k.spd_factor(L1, put(A), 9), 0);
  assert.equal(k.spd_factor(L2, L2, 9), 0);
  assertSameBits(get(L2, 81), get(L1, 81), 'spd_factor in place');
  assert.equal(k.spd_factor(alloc(1), 0, 0), 0);
  assert.equal(k.spd_solve(alloc(1), 0, 0, 0, 3), 0);
  freeAll();
});

test('spd_factor: a matrix that is not positive definite -> FFN_ENOTPD', () => {
  // the last diagonal entry lowered by 50: only the last pivot (its Schur complement, below 3 - 50) fails
  const indefinite33 = randomSpd(randArray, 33).map((v, i) => (i === 33 * 33 - 1 ? v - 50 : v));
  const cases = [
    [[0], 1],
    [[-1], 1],
    [[NaN], 1],
    [[Infinity], 1],
    [[1, 2, 2, 1], 2], // eigenvalues 3 and -1
    [[1, 1, 1, 1], 2], // singular
    [[4, NaN, NaN, 4], 2],
    [indefinite33, 33],
  ];
  for (const [A, n] of cases) {
    for (const fn of ['spd_factor', 'spd_factor_ref']) {
      assert.equal(k[fn](alloc(n * n), put(Float32Array.from(A)), n), ENOTPD, `${fn} ${n} ${A.slice(0, 4)}`);
    }
  }
  const s = alloc(4);
  for (const fn of ['spd_factor', 'spd_factor_ref']) assert.equal(k[fn](s, s, -1), EINVAL);
  for (const fn of ['spd_solve', 'spd_solve_ref']) {
    assert.equal(k[fn](s, s, s, -1, 1), EINVAL);
    assert.equal(k[fn](s, s, s, 1, -1), EINVAL);
  }
  freeAll();
});

/* ---- sizes, activation codes, caller scratch ---- */

test('bad sizes and unknown activations -> EINVAL for every training kernel and twin', () => {
  const s = alloc(64);
  for (const sfx of ['', '_ref']) {
    for (const [a, b, c] of [
      [-1, 2, 2],
      [2, -1, 2],
      [2, 2, -1],
    ]) {
      assert.equal(k[`ffn_backward${sfx}`](s, s, s, s, s, s, s, s, s, s, a, b, c, 1, s), EINVAL);
      assert.equal(k[`ffn_backward_saved${sfx}`](0, s, s, s, s, s, s, s, s, a, b, c, 1, 0), EINVAL);
      assert.equal(k[`gated_ffn_backward${sfx}`](s, s, s, s, s, s, s, s, s, a, b, c, 1, s), EINVAL);
    }
    for (const act of [-1, 8, 1000]) {
      assert.equal(k[`ffn_backward${sfx}`](s, s, s, s, s, s, s, s, s, s, 1, 1, 1, act, s), EINVAL);
      assert.equal(k[`ffn_backward_saved${sfx}`](0, s, s, s, s, s, s, s, s, 1, 1, 1, act, 0), EINVAL);
      assert.equal(k[`gated_ffn_backward${sfx}`](s, s, s, s, s, s, s, s, s, 1, 1, 1, act, s), EINVAL);
    }
    assert.equal(k[`adamw_step${sfx}`](s, s, s, s, -1, 0.1, 0.9, 0.999, 1e-8, 0, 1), EINVAL);
    assert.equal(k[`adamw_step${sfx}`](s, s, s, s, 4, 0.1, 0.9, 0.999, 1e-8, 0, 0), EINVAL);
    assert.equal(k[`sgd_step${sfx}`](s, s, -1, 0.1), EINVAL);
    assert.equal(k[`rank_one_update${sfx}`](s, s, s, -1, 2, 1), EINVAL);
    assert.equal(k[`rank_one_update${sfx}`](s, s, s, 2, -1, 1), EINVAL);
  }
  freeAll();
});

test('gemm_ex_w on caller scratch gives gemm_ex bit for bit, every transpose, edge shapes', () => {
  for (const [M, K, N] of [
    [1, 1, 1],
    [2, 3, 5],
    [4, 8, 8],
    [5, 9, 33],
    [33, 17, 9],
    [65, 800, 9],
    [0, 3, 4],
    [3, 0, 4],
  ]) {
    for (const [ta, tb] of [
      [0, 0],
      [1, 0],
      [0, 1],
      [1, 1],
    ]) {
      const [A, B, C0] = [put(randArray(M * K)), put(randArray(K * N)), randArray(M * N)];
      const size = k.gemm_ex_work_size(M, K, N);
      assert.ok(size >= 0 && Number.isInteger(size));
      for (const acc of [0, 1]) {
        const [c1, c2] = [put(C0), put(C0)];
        assert.equal(k.gemm_ex(c1, A, ta, B, tb, M, K, N, acc), 0);
        assert.equal(k.gemm_ex_w(c2, A, ta, B, tb, M, K, N, acc, alloc(size)), 0);
        assertSameBits(get(c2, M * N), get(c1, M * N), `gemm_ex_w ${M},${K},${N} t${ta}${tb} acc ${acc}`);
      }
      freeAll();
    }
  }
  assert.equal(k.gemm_ex_work_size(-1, 2, 2), -1);
  assert.equal(k.gemm_ex_w(0, 0, 0, 0, 0, 2, -1, 2, 0, 0), EINVAL);
});

test('the training kernels free all they allocate (ffn_heap_in_use back to its value before the calls)', () => {
  const [T, d, F, V] = [65, 33, 129, 17];
  const [dX, dW1, dWu, db1, dW2, db2] = [T * d, d * F, d * F, F, F * d, d].map(alloc);
  const [dY, X, W1, Wu, b1, W2] = [T * d, T * d, d * F, d * F, F, F * d].map((n) => put(randArray(n)));
  const [work, H, A, logits, loss] = [alloc(3 * T * F), put(randArray(T * F)), alloc(T * F), alloc(T * V), alloc(1)];
  const targets = putI32(Int32Array.from({ length: T }, (_, i) => i % V));
  const [L, B] = [put(randomSpd(randArray, 40)), put(randArray(40 * 3))];
  const before = k.ffn_heap_in_use();
  assert.equal(k.ffn_backward(dX, dW1, db1, dW2, db2, dY, X, W1, b1, W2, T, d, F, 5, work), 0);
  assert.equal(k.ffn_backward_saved(dX, dW1, db1, dW2, dY, X, H, A, W2, T, d, F, 1, W1), 0);
  assert.equal(k.gated_ffn_backward(dX, dW1, dWu, dW2, dY, X, W1, Wu, W2, T, d, F, 6, work), 0);
  assert.equal(k.softmax_ce_backward(logits, loss, 0, logits, targets, T, V), 0);
  assert.equal(k.spd_factor(L, L, 40), 0);
  assert.equal(k.spd_solve(B, L, B, 40, 3), 0);
  assert.equal(k.ffn_heap_in_use(), before);
  freeAll();
});
