// The GEMM microkernel ready() selects: the same in every fresh Node process, by a stated rule; the same bits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { instantiateRaw, rawHeap, ACTIVATIONS } from '../helpers/wasm-under-test.js';
import { rng, randTensor } from '../helpers/numeric.js';
import * as ref from '../helpers/ref.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const V8_MAJOR = parseInt(process.versions.v8, 10);

/**
 * The rule, stated here on its own: in Node (V8), 'prebroadcast' on ffn.wasm before V8 12 (Node 20's V8 11.3 ran it
 * about 1.1x faster), 'splat' on ffn-relaxed.wasm and from V8 12 on (Chromium 156's V8 ran splat as fast or faster).
 */
const expected = (build) => (build === 'simd128' && V8_MAJOR < 12 ? 'prebroadcast' : 'splat');

/** wasmInfo() after ready({ relaxed }) in a fresh Node process (flags: extra node flags). */
function freshLoad(relaxed, flags = []) {
  const code =
    "import * as ffn from 'ffn-lab'; await ffn.ready({ relaxed: " +
    relaxed +
    ' }); console.log(JSON.stringify(ffn.wasmInfo()));';
  return new Promise((done, fail) => {
    execFile(process.execPath, [...flags, '--input-type=module', '-e', code], { cwd: ROOT }, (err, stdout, stderr) => {
      if (err) return fail(new Error(`node ${flags.join(' ')} failed: ${err.message}\n${stderr}`));
      done(JSON.parse(stdout.trim().split('\n').pop()));
    });
  });
}

test('ready() selects the same GEMM microkernel in every fresh Node process, by the rule for its build', async () => {
  const relaxedFlags = V8_MAJOR < 12 ? ['--experimental-wasm-relaxed-simd'] : [];
  for (const [relaxed, flags, build] of [
    [false, [], 'simd128'],
    [true, relaxedFlags, 'relaxed'],
  ]) {
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push(await freshLoad(relaxed, flags));
    for (const info of seen) {
      assert.equal(info.simd, build);
      assert.equal(info.gemmKernel, expected(build), `load ${seen.indexOf(info) + 1} of ${build}`);
    }
  }
});

/** Both microkernels' results of run() (the selection restored to splat afterwards). */
function onBoth(ex, run) {
  try {
    return [0, 1].map((code) => {
      assert.equal(ex.gemm_select_kernel(code), code);
      return run();
    });
  } finally {
    ex.gemm_select_kernel(0);
  }
}

/** n floats in [-2, 2) with, when wild, NaN, +-Infinity, +-3e38, -0 and a subnormal at fixed places. */
function values(r, n, wild) {
  const a = randTensor(r, [n], -2, 2).data;
  if (wild) [NaN, Infinity, -Infinity, 3e38, -3e38, -0, 1e-40].forEach((v, i) => i * 5 < n && (a[i * 5] = v));
  return a;
}

function sameBits(a, b, msg) {
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length),
    y = new Uint32Array(b.buffer, b.byteOffset, b.length);
  assert.equal(a.length, b.length, msg);
  // NaN payloads may differ between engines' arithmetic; a NaN must stay a NaN
  const i = x.findIndex((v, j) => v !== y[j] && !(Number.isNaN(a[j]) && Number.isNaN(b[j])));
  assert.equal(i, -1, i < 0 ? msg : `${msg}: [${i}] ${a[i]} vs ${b[i]}`);
}

const SHAPES = [
  [2, 1, 1],
  [3, 5, 7],
  [4, 8, 8],
  [5, 9, 9],
  [7, 3, 17],
  [9, 16, 33],
  [17, 13, 65],
  [33, 1537, 9], // K over the 768 block: two K blocks, the second added into C
];

test('both microkernels give the same bits on edge shapes, NaN and +-large included, and float64 sums', async () => {
  const ex = (await instantiateRaw()).exports;
  const r = rng(28);
  for (const [M, K, N] of SHAPES) {
    for (const wild of [false, true]) {
      const h = rawHeap(ex, { minBytes: 16, padBytes: 64 });
      try {
        const A = values(r, M * K, wild),
          B = values(r, K * N, wild),
          bias = values(r, N, false),
          C0 = values(r, M * N, false);
        const pA = h.put(A),
          pB = h.put(B),
          pb = h.put(bias),
          pW = h.alloc(ex.gemm_work_size(M, K)),
          pC = h.alloc(M * N);
        const pBp = h.alloc(ex.gemm_packed_size(K, N));
        ex.gemm_pack(pBp, pB, K, N);
        const tag = `${M}x${K}x${N}${wild ? ' wild' : ''}`;
        const gelu = ACTIVATIONS.indexOf('gelu');
        const fwd = onBoth(ex, () => (ex.gemm_forward(pC, pA, pBp, pb, M, K, N, gelu, pW), h.get(pC, M * N)));
        sameBits(fwd[0], fwd[1], `gemm_forward ${tag}`);
        for (const [tA, tB, acc] of [
          [1, 0, 0],
          [0, 1, 1],
          [1, 1, 1],
        ]) {
          const ex2 = onBoth(ex, () => {
            h.f32(pC, M * N).set(C0);
            assert.equal(ex.gemm_ex(pC, pA, tA, pB, tB, M, K, N, acc), 0);
            return h.get(pC, M * N);
          });
          sameBits(ex2[0], ex2[1], `gemm_ex transA ${tA} transB ${tB} accumulate ${acc} ${tag}`);
        }
        const pG = h.alloc(ex.gemm_gated_packed_size(K, N));
        ex.gemm_gated_pack(pG, pB, pB, K, N);
        const silu = ACTIVATIONS.indexOf('silu');
        const gated = onBoth(ex, () => (ex.gemm_gated_forward(pC, pA, pG, M, K, N, silu, pW), h.get(pC, M * N)));
        sameBits(gated[0], gated[1], `gemm_gated_forward ${tag}`);
        if (!wild) {
          // not vacuous: the plain product (no bias, no activation) against float64 sums
          const got = onBoth(ex, () => (ex.gemm_forward(pC, pA, pBp, 0, M, K, N, 0, pW), h.get(pC, M * N)))[1];
          const want = ref.matmul({ data: A, shape: [M, K] }, { data: B, shape: [K, N] }).data;
          want.forEach((w, i) => assert.ok(Math.abs(got[i] - w) <= 1e-5 * K * 4, `${tag} [${i}] ${got[i]} vs ${w}`));
        }
      } finally {
        h.free();
      }
    }
  }
});
