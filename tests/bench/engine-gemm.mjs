// The GEMM against this engine's peak loop, both microkernels (run in jsc, gjs or node by engines.js): one JSON line.
// Usage: <engine> engine-gemm.mjs <probe.wasm path> [quick]   (jsc: jsc -m engine-gemm.mjs -- <args>)
import { engineShims } from '../engines/shims.mjs';

const { print, args, readBytes } = await engineShims();
try {
  // after the shims: gjs has no performance.now until they run
  const { interleaved, pairedRatio } = await import('./ort.js');
  const core = await import('./core.js');
  const { randomArray, checkGemm, rawGemm, bestChains, benchOpts, bothKernels, GEMM_SHAPES } = core;
  const ffn = await import('../../web/index.js');
  const { wasm, gemmKernelFor } = await import('../../web/runtime.js');
  const [probePath, mode] = args;
  const quick = mode === 'quick';
  // the load-time choice's cost: its first call (inside ready() it is the first), then warm calls
  const c0 = performance.now();
  gemmKernelFor('simd128');
  const firstChooseUs = (performance.now() - c0) * 1e3;
  const t0 = performance.now();
  await ffn.ready();
  const readyMs = performance.now() - t0;
  const n = 1000, t1 = performance.now();
  for (let i = 0; i < n; i++) gemmKernelFor('simd128');
  const chooseUs = ((performance.now() - t1) / n) * 1e3;
  const raw = wasm('bench').exports;
  const imports = { env: { emscripten_notify_memory_growth() {} } };
  const { instance } = await WebAssembly.instantiate(readBytes(probePath), imports);
  const probe = instance.exports;
  probe._initialize?.();
  const opts = benchOpts(quick);
  const peakCh = await bestChains((ch) => probe[`peak${ch}`]);
  const peakIters = 100000, peakFlops = peakCh * 8 * peakIters;
  const peakFn = () => probe[`peak${peakCh}`](peakIters, 0.999);
  const rows = [], peakRates = [];
  let names = null;
  for (const [M, K, N] of GEMM_SHAPES.filter(([M]) => M > 1)) {
    const W = randomArray(K * N, 7 + K + N), X = randomArray(M * K, 3 + M);
    const layer = ffn.createLinear({ W: { data: W, shape: [K, N] } });
    const kern = rawGemm(raw, W, X, M, K, N);
    try {
      const xs = { data: X, shape: [M, K] }, outArr = new Float32Array(M * N);
      const fresh = () => layer.forward(xs).data;
      const out = () => layer.forward(xs, { out: outArr }).data;
      checkGemm('kernel', kern.run(), X, W, M, K, N, 3);
      checkGemm('forward(X, { out })', out(), X, W, M, K, N, 3);
      checkGemm('forward(X)', fresh(), X, W, M, K, N, 3);
      const k = bothKernels(raw, kern.run), o = bothKernels(raw, out);
      names = { selected: k.chosen, other: k.other };
      // one interleaved run: the selected kernel alone, the other one alone, both through forward(X, { out }),
      // forward(X) with a fresh array, and the peak loop, every candidate in every round
      const m = await interleaved([kern.run, k.otherRun, out, o.otherRun, fresh, peakFn], opts);
      const flops = 2 * M * K * N;
      const of = (i) => (flops * pairedRatio(m, i, 5)) / peakFlops;
      const rates = m.rounds[5].map((t) => peakFlops / t / 1e9);
      peakRates.push(...rates);
      rows.push({
        M, K, N, gflops: flops / m[0] / 1e9, peak: peakFlops / m[5] / 1e9, peakRounds: rates,
        kernel: of(0), otherKernel: of(1), out: of(2), otherOut: of(3), fresh: of(4),
        selectedVsOther: pairedRatio(m, 0, 1), // the other kernel's time / the selected one's, round by round
      });
      checkGemm('kernel (after timing)', kern.run(), X, W, M, K, N, 1);
    } finally {
      kern.free();
      layer.dispose();
    }
  }
  const build = ffn.wasmInfo().simd;
  const result = { build, kernels: names, readyMs, firstChooseUs, chooseUs, peakCh, rows, peakRates, quick };
  print('ENGINE-BENCH ' + JSON.stringify(result));
} catch (e) {
  print('ENGINE-BENCH-ERROR ' + String(e && e.stack ? `${e.message}\n${e.stack}` : e));
}
