// The packed GEMM (src/gemm.c), raw exports, each microkernel: vs the scalar C reference, float64, unfused forms.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import * as ref from '../helpers/ref.js';
import { rng, randTensor, fusedInOrderMatmul } from '../helpers/numeric.js';
import { RELAXED, ACTIVATIONS as ACTS, instantiateRaw, rawHeap } from '../helpers/wasm-under-test.js';

const U = 2 ** -24;
let ex;

before(async () => {
  ex = (await instantiateRaw()).exports;
});

/* heap helpers: every block freed by free() in its test's finally */
const heap = () => rawHeap(ex, { minBytes: 16, padBytes: 16 });

/** n uniform floats in [lo, hi) (helpers' randTensor, flat). */
const rand = (r, n, lo, hi) => randTensor(r, [n], lo, hi).data;

/** float64 A (M,K) @ B (K,N) + bias and its error scale sum_k |A_ik B_kj| + |bias_j|. */
function ref64(A, B, bias, M, K, N) {
  const C = ref.addBias(ref.matmul({ data: A, shape: [M, K] }, { data: B, shape: [K, N] }), bias).data;
  const absA = { data: A.map(Math.abs), shape: [M, K] },
    absB = { data: B.map(Math.abs), shape: [K, N] };
  const S = ref.addBias(ref.matmul(absA, absB), bias && bias.map(Math.abs)).data;
  return { C, S };
}

function assertEqualBits(a, b, msg) {
  assert.equal(a.length, b.length, `${msg}: length`);
  for (let i = 0; i < a.length; i++) {
    if (!(Object.is(a[i], b[i]) || (Number.isNaN(a[i]) && Number.isNaN(b[i])))) {
      assert.fail(`${msg}: [${i}] ${a[i]} !== ${b[i]}`);
    }
  }
}

/**
 * C (M,N) against the in-order sums of A (M,K) @ B (K,N) plus C0 (or nothing), added after the sum:
 * every lane of the GEMM sums k = 0..K-1 in order, so its bits equal R, the scalar matmul_ref's product
 * plus C0 (one rounding for each multiply and each add: wasm SIMD has no FMA). ffn-relaxed.wasm's
 * f32x4.relaxed_madd may be fused by the engine: there C must equal R or, as a whole, the same in-order
 * sums with fused multiply-adds (fusedInOrderMatmul: fma32, an exact float64 emulation).
 */
function assertInOrderBits(C, R, A, B, C0, M, K, N, msg) {
  if (!RELAXED) return assertEqualBits(C, R, msg);
  const same = (a, b) =>
    a.length === b.length && a.every((v, i) => Object.is(v, b[i]) || (Number.isNaN(v) && Number.isNaN(b[i])));
  if (same(C, R)) return;
  assertEqualBits(C, fusedInOrderMatmul(A, B, M, K, N, C0), `${msg} (neither unfused nor fused in-order sums)`);
}

test('the module under test is the build this run asked for', () => {
  assert.equal(ex.ffn_simd_level(), RELAXED ? 2 : 1);
});

function assertWithin(got, want, scale, K, msg) {
  const rtol = 2 * (K + 2) * U; // classic dot-product bound gamma_K on sum |a b|, plus the bias add
  for (let i = 0; i < want.length; i++) {
    const tol = rtol * scale[i] + 1e-30;
    if (!(Math.abs(got[i] - want[i]) <= tol)) assert.fail(`${msg}: [${i}] got ${got[i]}, want ${want[i]} (tol ${tol})`);
  }
}

/** C = act(A @ B + bias) through gemm_pack + gemm_forward. */
function gemm(h, A, B, bias, M, K, N, act) {
  const pB = h.put(B);
  const pBp = h.alloc(ex.gemm_packed_size(K, N));
  assert.equal(ex.gemm_pack(pBp, pB, K, N), 0);
  const pA = h.put(A);
  const pb = bias ? h.put(bias) : 0;
  const pC = h.alloc(M * N);
  const pW = h.alloc(ex.gemm_work_size(M, K));
  assert.equal(ex.gemm_forward(pC, pA, pBp, pb, M, K, N, ACTS.indexOf(act), pW), 0);
  return h.get(pC, M * N);
}

const EDGE = [0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 17, 33]; // MR=4 +-1, NR=8 +-1, tile multiples + 1, 0

/** The microkernels of src/ffn.h (enum ffn_gemm_kernel): every product test below runs on each. */
const KERNELS = ['splat', 'prebroadcast'];

/** test(name) once per microkernel, that kernel selected for its duration (the splat one again afterwards). */
function kernelTest(name, fn) {
  for (const [code, kernel] of KERNELS.entries()) {
    test(`${name} [${kernel}]`, () => {
      assert.equal(ex.gemm_select_kernel(code), code);
      try {
        fn();
      } finally {
        ex.gemm_select_kernel(0);
      }
    });
  }
}

test(
  'gemm_select_kernel selects either microkernel, only reports on any other code, and the selected one packs A ' +
    'its own way',
  () => {
    const h = heap();
    try {
      assert.equal(ex.gemm_select_kernel(-1), 0, 'the splat microkernel is the default');
      assert.equal(ex.gemm_select_kernel(1), 1);
      for (const other of [-1, 2, 99]) assert.equal(ex.gemm_select_kernel(other), 1, `code ${other} changed it`);
      // the scratch after a call holds the last packed A strip: 4 floats per k (rows 0..3), or each of them 4 times
      const [M, K, N] = [4, 3, 8];
      const A = Float32Array.from({ length: M * K }, (_, i) => i + 1),
        B = new Float32Array(K * N).fill(1);
      for (const [code, lanes] of [
        [0, 1],
        [1, 4],
      ]) {
        ex.gemm_select_kernel(code);
        const pW = h.alloc(ex.gemm_work_size(M, K));
        const pBp = h.alloc(ex.gemm_packed_size(K, N));
        ex.gemm_pack(pBp, h.put(B), K, N);
        assert.equal(ex.gemm_forward(h.alloc(M * N), h.put(A), pBp, 0, M, K, N, 0, pW), 0);
        const strip = h.get((pW + 63) & -64, 4 * K * lanes);
        // strip float i: row (i / lanes) % 4, k = i / (4 lanes)
        const at = (i) => (((i / lanes) | 0) % 4) * K + ((i / 4 / lanes) | 0);
        const want = new Float32Array(4 * K * lanes).map((_, i) => A[at(i)]);
        assertEqualBits(strip, want, `packed A strip, ${KERNELS[code]}`);
      }
    } finally {
      ex.gemm_select_kernel(0);
      h.free();
    }
  },
);

kernelTest('gemm_forward matches the scalar C reference bit for bit and float64 on every edge shape', () => {
  const r = rng(11);
  let checked = 0;
  for (const M of EDGE)
    for (const K of EDGE)
      for (const N of EDGE) {
        const h = heap();
        try {
          const A = rand(r, M * K),
            B = rand(r, K * N),
            bias = rand(r, N);
          const C = gemm(h, A, B, bias, M, K, N, 'identity');
          const { C: C64, S } = ref64(A, B, bias, M, K, N);
          assertWithin(C, C64, S, K, `${M}x${K}x${N}`);
          {
            // every lane sums k = 0..K-1 in order as matmul_ref does, then adds the bias: identical
            // rounding, also on the GEMV path (M = 1); see assertInOrderBits for the relaxed build
            const pR = h.alloc(M * N);
            assert.equal(ex.matmul_ref(pR, h.put(A), h.put(B), M, K, N), 0);
            const R = h.get(pR, M * N).map((v, i) => Math.fround(v + bias[i % N]));
            const B0 = new Float32Array(M * N).map((_, i) => bias[i % N]);
            assertInOrderBits(C, R, A, B, B0, M, K, N, `${M}x${K}x${N} vs matmul_ref`);
          }
          checked++;
        } finally {
          h.free();
        }
      }
  assert.equal(checked, EDGE.length ** 3);
});

kernelTest('gemm_forward across row blocks, panel groups and the GEMV path (no bias)', () => {
  const r = rng(12);
  // K=1000 gives 128-row blocks (M=133 crosses one); N=70 and 131 cross the 64-column epilogue groups
  for (const [M, K, N] of [
    [133, 1000, 70],
    [1, 1000, 131],
    [6, 300, 131],
    [1, 4099, 9],
    [67, 64, 200],
  ]) {
    const h = heap();
    try {
      const A = rand(r, M * K),
        B = rand(r, K * N);
      const C = gemm(h, A, B, null, M, K, N, 'identity');
      const { C: C64, S } = ref64(A, B, null, M, K, N);
      assertWithin(C, C64, S, K, `${M}x${K}x${N}`);
    } finally {
      h.free();
    }
  }
});

kernelTest(
  'operands and scratch at every 4-byte offset within a cache line give the same bits ' +
    '(the GEMM aligns its scratch itself)',
  () => {
    const r = rng(19);
    const [M, K, N] = [9, 37, 19];
    const h = heap();
    try {
      const A = rand(r, M * K),
        B = rand(r, K * N),
        bias = rand(r, N);
      const pR = h.alloc(M * N);
      assert.equal(ex.matmul_ref(pR, h.put(A), h.put(B), M, K, N), 0);
      const R = h.get(pR, M * N).map((v, i) => Math.fround(v + bias[i % N]));
      const B0 = new Float32Array(M * N).map((_, i) => bias[i % N]);
      const ws = ex.gemm_work_size(M, K),
        ps = ex.gemm_packed_size(K, N);
      const blkFloats = M * K + ps + N + M * N + ws + 256;
      const blk = h.alloc(blkFloats);
      const pB = h.put(B);
      for (let o = 0; o < 16; o++) {
        // A, the packed B, the bias, C and the scratch each start o floats past a 64-byte line
        const base = ((blk + 63) & -64) + 4 * o;
        const at = (floats) => (floats + 15) & -16;
        const pA = base,
          pBp = pA + 4 * at(M * K + 16),
          pb = pBp + 4 * at(ps + 16),
          pC = pb + 4 * at(N + 16);
        const pW = pC + 4 * at(M * N + 16);
        assert.ok(pW + 4 * ws <= blk + 4 * blkFloats, 'test layout fits its block');
        new Float32Array(ex.memory.buffer, pA, M * K).set(A);
        assert.equal(ex.gemm_pack(pBp, pB, K, N), 0);
        new Float32Array(ex.memory.buffer, pb, N).set(bias);
        // a canary from the end of the gemm_work_size(M, K) floats of scratch to the end of the block: the
        // GEMM aligns its scratch inside those floats and must not write past them
        const tail = (blk + 4 * blkFloats - (pW + 4 * ws)) / 4;
        new Uint32Array(ex.memory.buffer, pW + 4 * ws, tail).fill(0x7fc0dead);
        assert.equal(ex.gemm_forward(pC, pA, pBp, pb, M, K, N, 0, pW), 0);
        assertInOrderBits(h.get(pC, M * N), R, A, B, B0, M, K, N, `offset ${o} floats`);
        const after = new Uint32Array(ex.memory.buffer, pW + 4 * ws, tail);
        assert.ok(
          after.every((v) => v === 0x7fc0dead),
          `offset ${o}: the GEMM wrote past its scratch`,
        );
      }
    } finally {
      h.free();
    }
  },
);

kernelTest(
  'the fused bias + activation epilogue equals the unfused act_forward(A @ B + b) for every activation',
  () => {
    const r = rng(13);
    for (const act of ACTS)
      for (const [M, K, N] of [
        [1, 9, 13],
        [5, 17, 70],
        [8, 8, 8],
        [13, 33, 9],
        [2, 3, 131],
        [6, 1100, 20],
      ]) {
        const h = heap();
        try {
          const A = rand(r, M * K, -2, 2),
            B = rand(r, K * N, -2, 2),
            bias = rand(r, N);
          const lin = gemm(h, A, B, bias, M, K, N, 'identity');
          const fused = gemm(h, A, B, bias, M, K, N, act);
          const p = h.put(lin);
          assert.equal(ex.act_forward(p, p, lin.length, ACTS.indexOf(act)), 0);
          assertEqualBits(fused, h.get(p, lin.length), `${act} ${M}x${K}x${N}`);
          // and close to float64 act(A B + b): slope of every activation here is <= 2 |h| + 1.2
          const { C: C64, S } = ref64(A, B, bias, M, K, N);
          for (let i = 0; i < C64.length; i++) {
            const want = ref.act(act, C64[i]);
            const slope = act === 'relu2' ? 2 * Math.abs(C64[i]) + 1 : 1.2;
            const tol = slope * 2 * (K + 2) * U * S[i] + 8 * U * Math.abs(want) + 1e-30;
            if (!(Math.abs(fused[i] - want) <= tol))
              assert.fail(`${act} ${M}x${K}x${N} [${i}]: ${fused[i]} vs ${want}`);
          }
        } finally {
          h.free();
        }
      }
  },
);

kernelTest('gemm_gated_forward computes act(A Wg) * (A Wu) in one pass, equal to the unfused composition', () => {
  const r = rng(14);
  for (const act of ACTS)
    for (const [M, K, N] of [
      [1, 7, 5],
      [1, 33, 70],
      [2, 9, 3],
      [5, 17, 33],
      [9, 8, 64],
      [4, 1, 1],
      [6, 16, 100],
    ]) {
      const h = heap();
      try {
        const A = rand(r, M * K),
          G = rand(r, K * N),
          Uw = rand(r, K * N);
        const pP = h.alloc(ex.gemm_gated_packed_size(K, N));
        assert.equal(ex.gemm_gated_pack(pP, h.put(G), h.put(Uw), K, N), 0);
        const pH = h.alloc(M * N);
        const pA = h.put(A),
          work = h.alloc(ex.gemm_work_size(M, K));
        assert.equal(ex.gemm_gated_forward(pH, pA, pP, M, K, N, ACTS.indexOf(act), work), 0);
        const H = h.get(pH, M * N);
        const g = gemm(h, A, G, null, M, K, N, 'identity');
        const u = gemm(h, A, Uw, null, M, K, N, 'identity');
        const pg = h.put(g);
        ex.act_forward(pg, pg, g.length, ACTS.indexOf(act));
        const want = h.get(pg, g.length).map((v, i) => Math.fround(v * u[i]));
        assertEqualBits(H, want, `${act} ${M}x${K}x${N}`);
      } finally {
        h.free();
      }
    }
});

kernelTest('NaN propagates through its row; +-1e4 inputs give no spurious NaN', () => {
  const h = heap();
  try {
    const M = 5,
      K = 9,
      N = 11;
    const r = rng(15);
    const A = rand(r, M * K),
      B = rand(r, K * N);
    A[2 * K + 4] = NaN;
    for (const act of ACTS) {
      const C = gemm(h, A, B, null, M, K, N, act);
      for (let i = 0; i < M; i++)
        for (let j = 0; j < N; j++) {
          assert.equal(Number.isNaN(C[i * N + j]), i === 2, `${act} [${i},${j}] = ${C[i * N + j]}`);
        }
    }
    const big = new Float32Array(M * K).map((_, i) => (i % 2 ? 1e4 : -1e4));
    const eye = new Float32Array(K * N).map((_, i) => (Math.floor(i / N) === i % N ? 1 : 0));
    for (const act of ACTS) {
      const C = gemm(h, big, eye, null, M, K, N, act);
      for (let i = 0; i < M; i++)
        for (let j = 0; j < N; j++) {
          const h0 = j < K ? big[i * K + j] : 0;
          const want = ref.act(act, h0);
          const got = C[i * N + j];
          assert.ok(!Number.isNaN(got), `${act} [${i},${j}] is NaN`);
          assert.ok(Math.abs(got - want) <= 4 * U * Math.abs(want) + 1e-30, `${act}(${h0}) = ${got}, want ${want}`);
        }
    }
  } finally {
    h.free();
  }
});

test('bad sizes and activation codes return FFN_EINVAL without touching memory', () => {
  assert.equal(ex.gemm_forward(0, 0, 0, 0, -1, 2, 2, 0, 0), -1);
  assert.equal(ex.gemm_forward(0, 0, 0, 0, 2, 2, 2, 8, 0), -1);
  assert.equal(ex.gemm_forward(0, 0, 0, 0, 2, 2, 2, -1, 0), -1);
  assert.equal(ex.gemm_gated_forward(0, 0, 0, 2, -2, 2, 0, 0), -1);
  assert.equal(ex.gemm_pack(0, 0, 2, -1), -1);
  assert.equal(ex.gemm_gated_pack(0, 0, 0, -1, 2), -1);
  assert.equal(ex.gemm_packed_size(-1, 3), -1);
  assert.equal(ex.gemm_work_size(3, -1), -1);
  assert.equal(ex.ffn_packed_work_size(-1, 3, 3), -1);
  assert.equal(ex.ffn_packed_forward(0, 0, 0, 0, 0, 0, 2, 2, 2, 99, 0), -1);
  assert.equal(ex.gated_packed_forward(0, 0, 0, 0, 2, 2, -3, 4, 0), -1);
  assert.equal(ex.gemm_forward(0, 0, 0, 0, 0, 5, 5, 0, 0), 0, 'M = 0 is a valid empty product');
});

kernelTest('ffn_packed_forward and gated_packed_forward match ffn_ref / gated_ffn_ref across token blocks', () => {
  const r = rng(16);
  for (const [T, d, dff] of [
    [1, 8, 32],
    [3, 5, 7],
    [65, 16, 40],
    [130, 9, 33],
    [0, 4, 4],
  ]) {
    const h = heap();
    try {
      const X = rand(r, T * d),
        W1 = rand(r, d * dff, -0.5, 0.5),
        b1 = rand(r, dff);
      const W2 = rand(r, dff * d, -0.5, 0.5),
        b2 = rand(r, d);
      const Wu = rand(r, d * dff, -0.5, 0.5);
      for (const act of ['gelu_tanh', 'relu', 'silu', 'gelu']) {
        const code = ACTS.indexOf(act);
        const p1 = h.alloc(ex.gemm_packed_size(d, dff)),
          p2 = h.alloc(ex.gemm_packed_size(dff, d));
        ex.gemm_pack(p1, h.put(W1), d, dff);
        ex.gemm_pack(p2, h.put(W2), dff, d);
        const pX = h.put(X),
          pY = h.alloc(T * d),
          pR = h.alloc(T * d);
        const pb1 = h.put(b1),
          pb2 = h.put(b2),
          work = h.alloc(ex.ffn_packed_work_size(T, d, dff));
        assert.equal(ex.ffn_packed_forward(pY, pX, p1, pb1, p2, pb2, T, d, dff, code, work), 0);
        const [rW1, rb1, rW2, rb2] = [h.put(W1), h.put(b1), h.put(W2), h.put(b2)];
        assert.equal(ex.ffn_ref(pR, pX, rW1, rb1, rW2, rb2, T, d, dff, code, h.alloc(T * dff)), 0);
        const Y = h.get(pY, T * d),
          R = h.get(pR, T * d);
        const tX = { data: X, shape: [T, d] },
          tW1 = { data: W1, shape: [d, dff] },
          tW2 = { data: W2, shape: [dff, d] };
        const want = ref.ffn(tX, tW1, b1, tW2, b2, { activation: act }).data;
        for (let i = 0; i < T * d; i++) {
          const tol = 1e-5 * (1 + Math.abs(want[i])) * Math.sqrt(dff);
          assert.ok(Math.abs(Y[i] - want[i]) <= tol, `ffn ${act} ${T},${d},${dff} [${i}] ${Y[i]} vs ${want[i]}`);
          assert.ok(Math.abs(Y[i] - R[i]) <= tol, `ffn vs ffn_ref ${act} [${i}]`);
        }
        const pgu = h.alloc(ex.gemm_gated_packed_size(d, dff));
        ex.gemm_gated_pack(pgu, h.put(W1), h.put(Wu), d, dff);
        const gatedWork = h.alloc(ex.ffn_packed_work_size(T, d, dff));
        assert.equal(ex.gated_packed_forward(pY, pX, pgu, p2, T, d, dff, code, gatedWork), 0);
        const [gWg, gWu, gWd] = [h.put(W1), h.put(Wu), h.put(W2)];
        assert.equal(ex.gated_ffn_ref(pR, pX, gWg, gWu, gWd, T, d, dff, code, h.alloc(2 * T * dff)), 0);
        const G = h.get(pY, T * d),
          GR = h.get(pR, T * d);
        const tWu = { data: Wu, shape: [d, dff] };
        const gw = ref.gatedFfn(tX, tW1, tWu, tW2, { activation: act }).data;
        for (let i = 0; i < T * d; i++) {
          const tol = 1e-5 * (1 + Math.abs(gw[i])) * Math.sqrt(dff);
          assert.ok(Math.abs(G[i] - gw[i]) <= tol, `gated ${act} ${T},${d},${dff} [${i}] ${G[i]} vs ${gw[i]}`);
          assert.ok(Math.abs(G[i] - GR[i]) <= tol, `gated vs gated_ffn_ref ${act} [${i}]`);
        }
      }
    } finally {
      h.free();
    }
  }
});

kernelTest(
  'gemm_ex: transposed operands read in place and accumulation, bit-equal to matmul_ref on explicit ' + 'transposes',
  () => {
    const r = rng(17);
    const T = (a, rows, cols) => {
      const t = new Float32Array(a.length);
      for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) t[j * rows + i] = a[i * cols + j];
      return t;
    };
    const SH = [0, 1, 3, 4, 5, 8, 9, 17];
    for (const M of SH)
      for (const K of SH)
        for (const N of SH)
          for (const tA of [0, 1])
            for (const tB of [0, 1])
              for (const accumulate of [0, 1]) {
                if (accumulate && (M + K + N) % 3) continue; // a third of the shapes also accumulate
                const h = heap();
                try {
                  const A = rand(r, M * K),
                    B = rand(r, K * N),
                    C0 = rand(r, M * N);
                  const As = tA ? T(A, M, K) : A; // stored (K,M) when transposed
                  const Bs = tB ? T(B, K, N) : B; // stored (N,K)
                  const pC = h.put(C0);
                  assert.equal(ex.gemm_ex(pC, h.put(As), tA, h.put(Bs), tB, M, K, N, accumulate), 0);
                  const C = h.get(pC, M * N);
                  const pR = h.alloc(M * N);
                  ex.matmul_ref(pR, h.put(A), h.put(B), M, K, N);
                  const R = h.get(pR, M * N).map((v, i) => (accumulate ? Math.fround(C0[i] + v) : v));
                  const what = `gemm_ex ${M}x${K}x${N} tA=${tA} tB=${tB} acc=${accumulate}`;
                  assertInOrderBits(C, R, A, B, accumulate ? C0 : null, M, K, N, what);
                } finally {
                  h.free();
                }
              }
    assert.equal(ex.gemm_ex(0, 0, 0, 0, 0, 2, -1, 2, 0), -1);
    // K beyond one K block (blocks of at most 768 accumulate into C): against float64
    for (const [M, K, N, tA, tB] of [
      [9, 1300, 11, 1, 0],
      [5, 777, 17, 0, 1],
    ]) {
      const h = heap();
      try {
        const A = rand(r, M * K),
          B = rand(r, K * N),
          C0 = rand(r, M * N);
        const pC = h.put(C0);
        assert.equal(ex.gemm_ex(pC, h.put(tA ? T(A, M, K) : A), tA, h.put(tB ? T(B, K, N) : B), tB, M, K, N, 1), 0);
        const { C: C64, S } = ref64(A, B, null, M, K, N);
        const got = h.get(pC, M * N).map((v, i) => v - C0[i]);
        assertWithin(
          got,
          C64,
          S.map((s, i) => s + 2 * Math.abs(C0[i])),
          K,
          `gemm_ex K-blocked ${M}x${K}x${N}`,
        );
      } finally {
        h.free();
      }
    }
  },
);

kernelTest(
  'swiglu_backward (on gemm_ex): gradients match float64, central finite differences and the scalar ' + 'reference',
  () => {
    const r = rng(18);
    for (const [N, d, dff] of [
      [1, 4, 8],
      [3, 5, 7],
      [9, 16, 33],
      [130, 12, 20],
      [0, 3, 4],
    ]) {
      const h = heap();
      try {
        const X = rand(r, N * d),
          dY = rand(r, N * d),
          Wg = rand(r, d * dff),
          Wu = rand(r, d * dff);
        const Wd = rand(r, dff * d);
        const p = [h.alloc(N * d), h.alloc(d * dff), h.alloc(d * dff), h.alloc(dff * d)];
        const q = [h.alloc(N * d), h.alloc(d * dff), h.alloc(d * dff), h.alloc(dff * d)];
        const ins = [h.put(dY), h.put(X), h.put(Wg), h.put(Wu), h.put(Wd)];
        assert.equal(ex.swiglu_backward(...p, ...ins, N, d, dff, h.alloc(3 * N * dff)), 0);
        assert.equal(ex.swiglu_backward_ref(...q, ...ins, N, d, dff, h.alloc(3 * N * dff)), 0);
        const got = p.map((ptr, i) => h.get(ptr, [N * d, d * dff, d * dff, dff * d][i]));
        const refC = q.map((ptr, i) => h.get(ptr, [N * d, d * dff, d * dff, dff * d][i]));
        const t = (a, s) => ({ data: a, shape: s });
        const want = ref.swigluBackward(t(dY, [N, d]), t(X, [N, d]), t(Wg, [d, dff]), t(Wu, [d, dff]), t(Wd, [dff, d]));
        const names = ['dX', 'dWGate', 'dWUp', 'dWDown'];
        names.forEach((nm, i) => {
          const w = want[nm].data;
          let scale = 0;
          for (const v of w) scale = Math.max(scale, Math.abs(v));
          for (let j = 0; j < w.length; j++) {
            const tol = 64 * (d + dff + N) * U * (scale + 1);
            assert.ok(Math.abs(got[i][j] - w[j]) <= tol, `${nm} ${N},${d},${dff} [${j}]: ${got[i][j]} vs ${w[j]}`);
            assert.ok(Math.abs(got[i][j] - refC[i][j]) <= tol, `${nm} vs swiglu_backward_ref [${j}]`);
          }
        });
        if (N > 0 && N < 10) {
          // central differences of L = sum(dY * swigluFfn(X)) in float64, for a few entries of X and Wg
          const L = (Xa, Wga) => {
            const Y = ref.swigluFfn(t(Xa, [N, d]), t(Wga, [d, dff]), t(Wu, [d, dff]), t(Wd, [dff, d])).data;
            let s = 0;
            for (let j = 0; j < Y.length; j++) s += dY[j] * Y[j];
            return s;
          };
          const eps = 1e-5;
          for (const j of [0, Math.floor((N * d) / 2), N * d - 1]) {
            const Xp = Float64Array.from(X),
              Xm = Float64Array.from(X);
            ((Xp[j] += eps), (Xm[j] -= eps));
            const fd = (L(Xp, Wg) - L(Xm, Wg)) / (2 * eps);
            assert.ok(Math.abs(got[0][j] - fd) <= 1e-4 * (1 + Math.abs(fd)), `dX[${j}] ${got[0][j]} vs FD ${fd}`);
          }
          for (const j of [0, d * dff - 1]) {
            const Wp = Float64Array.from(Wg),
              Wm = Float64Array.from(Wg);
            ((Wp[j] += eps), (Wm[j] -= eps));
            const fd = (L(X, Wp) - L(X, Wm)) / (2 * eps);
            assert.ok(Math.abs(got[1][j] - fd) <= 1e-4 * (1 + Math.abs(fd)), `dWg[${j}] ${got[1][j]} vs FD ${fd}`);
          }
        }
      } finally {
        h.free();
      }
    }
  },
);
