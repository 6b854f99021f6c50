// The benchmark body, shared by Node (run.js) and the headless-Chromium page: ffn-lab vs XNNPACK (tfjs-wasm), the
// SIMD peak and streaming anchors, interleaved, medians, every timed result checked against float64.

import * as ref from '../helpers/ref.js';
import { ACT_CODES } from '../../web/codes.js';
import { ulp32 } from '../helpers/ulps.js';
import { rng } from '../helpers/rng.js';
import {
  activationGraphs,
  ortSession,
  ortGemmSection,
  interleaved,
  accuracy,
  ortFlavour,
  median,
  pairedRatio,
} from './ort.js';
import { peakLoad, peakLoadLines, hostVerdict, spread } from './peak.js';

const now = () => performance.now();

/** Uniform floats in [-1, 1) from the tests' seeded generator (helpers/rng.js). */
export function randomArray(n, seed) {
  const next = rng(seed);
  return Float32Array.from({ length: n }, () => 2 * next() - 1);
}

/**
 * Checks rows of Y (M,N) = act(X (M,K) @ W (K,N)) against a float64 recomputation.
 * Rows checked: first, last and up to `sample` more spread over M. Error bound: 2 (K+2) u sum|x w| + 8 u |y|.
 */
export function checkGemm(name, Y, X, W, M, K, N, sample) {
  const u = 2 ** -24;
  const rows = new Set([0, M - 1]);
  for (let s = 1; s <= sample && s < M; s++) rows.add(Math.floor((s * M) / (sample + 1)));
  let worst = 0;
  for (const i of rows) {
    if (i < 0) continue;
    const acc = new Float64Array(N);
    const abs = new Float64Array(N);
    for (let k = 0; k < K; k++) {
      const a = X[i * K + k];
      const w = W.subarray(k * N, k * N + N);
      for (let j = 0; j < N; j++) {
        const p = a * w[j];
        acc[j] += p;
        abs[j] += Math.abs(p);
      }
    }
    for (let j = 0; j < N; j++) {
      const err = Math.abs(Y[i * N + j] - acc[j]);
      const tol = 2 * (K + 2) * u * abs[j] + 8 * u * Math.abs(acc[j]);
      if (!(err <= tol))
        throw new Error(`bench: ${name} result wrong at [${i},${j}]: ${Y[i * N + j]} vs float64 ${acc[j]}`);
      worst = Math.max(worst, err / (abs[j] || 1));
    }
  }
  return worst;
}

/** Every 61st element of an activation result against float64 (tol ulps float32 ulps + 2^-126). */
function checkAct(name, y, x, ulps = 8) {
  const key = name.split(' ')[0] === 'tfjs' ? 'silu' : name.split(' ')[0];
  for (let i = 0; i < x.length; i += 61) {
    const want = ref.act(key, x[i]);
    if (!(Math.abs(y[i] - want) <= ulps * ulp32(want) + 2 ** -126))
      throw new Error(`bench: ${name}(${x[i]}) = ${y[i]}, float64 ${want}`);
  }
}

/**
 * gemm_forward on the raw exports with W packed once and X, Y, scratch resident in wasm memory
 * (64-byte aligned, as the layers do): { run() -> Y view, free() }.
 */
export function rawGemm(raw, W, X, M, K, N) {
  const blocks = [];
  const take = (floats) => {
    const p = raw.malloc(floats * 4 + 64) >>> 0;
    if (!p) throw new Error('bench: out of wasm memory for the raw GEMM');
    blocks.push(p);
    return ((p + 63) & -64) >>> 0;
  };
  const pW = take(raw.gemm_packed_size(K, N)),
    pX = take(M * K),
    pY = take(M * N),
    pS = take(raw.gemm_work_size(M, K));
  // W unpacked only while packing (as the layers do): not resident during the timing
  const tmp = raw.malloc(K * N * 4) >>> 0;
  if (!tmp) throw new Error('bench: out of wasm memory for the raw GEMM');
  new Float32Array(raw.memory.buffer, tmp, K * N).set(W);
  raw.gemm_pack(pW, tmp, K, N);
  raw.free(tmp);
  new Float32Array(raw.memory.buffer, pX, M * K).set(X);
  return {
    run() {
      if (raw.gemm_forward(pY, pX, pW, 0, M, K, N, 0, pS) !== 0) throw new Error('bench: gemm_forward failed');
      return new Float32Array(raw.memory.buffer, pY, M * N);
    },
    free: () => blocks.forEach((p) => raw.free(p)),
  };
}

const pad = (s, n) => String(s).padStart(n);
const padEnd = (s, n) => String(s).padEnd(n);

/** The chain count (8..14) at which a peak loop fnOf(chains)(iters, m) runs fastest: 8 flops per step and chain. */
export async function bestChains(fnOf) {
  let best = 0,
    bestCh = 12;
  for (const ch of [8, 10, 12, 14]) {
    const f = fnOf(ch);
    const [s] = await interleaved([() => f(200000, 0.999)], { batchMs: 10, reps: 5, warmMs: 5 });
    const rate = (ch * 8 * 200000) / s / 1e9;
    if (rate > best) ((best = rate), (bestCh = ch));
  }
  return bestCh;
}

/** The GEMM shapes M x K x N of the bench (the engines section runs those with M > 1). */
export const GEMM_SHAPES = [
  [1, 768, 3072],
  [1, 4096, 11008],
  [64, 768, 3072],
  [128, 768, 3072],
  [512, 768, 3072],
  [128, 3072, 768],
  [1024, 1024, 1024],
];

/** The GEMM microkernels of src/ffn.h (enum ffn_gemm_kernel), as wasmInfo() names them. */
export const GEMM_KERNELS = ['splat', 'prebroadcast'];

/**
 * run(), the same call on the other microkernel (the selection restored afterwards), and the names of both;
 * throws unless both give the same bits (they sum in the same order).
 */
export function bothKernels(raw, run) {
  const chosen = raw.gemm_select_kernel(-1),
    other = 1 - chosen;
  const otherRun = () => {
    raw.gemm_select_kernel(other);
    try {
      return run();
    } finally {
      raw.gemm_select_kernel(chosen);
    }
  };
  const a = new Uint32Array(Float32Array.from(run()).buffer),
    b = new Uint32Array(Float32Array.from(otherRun()).buffer);
  if (a.length !== b.length || a.some((v, i) => v !== b[i])) throw new Error('bench: the two microkernels differ');
  return { otherRun, chosen: GEMM_KERNELS[chosen], other: GEMM_KERNELS[other] };
}

/** v with two decimals, or three where two would round it onto the other side of limit (0.849 against 0.85). */
export function against(v, limit) {
  const two = v.toFixed(2);
  return v < limit !== Number(two) < limit ? v.toFixed(3) : two;
}

/** Batch length, rounds and warm-up of the timed comparisons. */
export function benchOpts(quick) {
  return quick ? { batchMs: 15, reps: 9, warmMs: 40 } : { batchMs: 25, reps: 21, warmMs: 100 };
}

/** The activation table's title and column heads. */
function logActHeader(log, n, opts) {
  log('');
  log(
    `activations, ${n} floats in [-6, 6), Melem/s (medians of ${opts.reps} interleaved rounds; ratios: medians ` +
      `of back-to-back rounds)`,
  );
  log(
    `${padEnd('activation', 13)}${pad('kernel', 7)}${pad('API', 7)}${pad('API out', 8)}${pad('ORT', 7)}  ` +
      `${padEnd('ORT graph (the faster one is the anchor)', 38)}${pad('API/ORT', 8)}${pad('out/ORT', 8)}` +
      `${pad('kern/ORT', 9)}${pad('copy', 6)}${pad('ceiling', 8)}   max ulps: ffn-lab API, ORT (max abs err)`,
  );
}

/** onnxruntime-web sessions of name's graphs, checked against float64, appended to cands: [{ how, s, acc, idx }]. */
async function ortCandidates(ortMod, graphs, name, x, n, cands) {
  const orts = [];
  for (const g of graphs ? graphs[name] : []) {
    const s = await ortSession(ortMod, g.model, [n]);
    const y = await s.run(x);
    const acc = accuracy(y, x, (v) => ref.act(name, v));
    // ORT's erf/tanh/logistic lose relative accuracy in the tails; a wrong op would be off by far more
    if (!(acc.maxAbs <= 1e-5)) throw new Error(`bench: onnxruntime-web ${g.how} off by ${acc.maxAbs} at ${acc.at}`);
    orts.push({ how: g.how, s, acc, idx: cands.length });
    cands.push({ fn: s.run.bind(null, x) });
  }
  return orts;
}

/** The row of one activation from the interleaved times m: rates, the ORT graphs fastest first, the ratios. */
function actRowOf(name, n, m, ours, orts) {
  const row = {
    name,
    kernelMelem: n / m[0] / 1e6,
    apiMelem: n / m[1] / 1e6,
    apiOutMelem: n / m[3] / 1e6,
    copyMelem: n / m[2] / 1e6,
    apiMaxUlp: ours.maxUlp,
    ort: [],
  };
  orts.forEach((o) =>
    row.ort.push({ how: o.how, melem: n / m[o.idx] / 1e6, maxUlp: o.acc.maxUlp, maxAbs: o.acc.maxAbs, idx: o.idx }),
  );
  row.ort.sort((a, b) => b.melem - a.melem);
  const best = row.ort[0];
  if (best) {
    row.ortMelem = best.melem;
    row.ortHow = best.how;
    row.apiVsOrt = pairedRatio(m, 1, best.idx);
    row.apiOutVsOrt = pairedRatio(m, 3, best.idx);
    row.kernelVsOrt = pairedRatio(m, 0, best.idx);
    // the API/ORT ratio a kernel taking no time at all would reach: ORT time / fresh-copy time
    row.ceiling = pairedRatio(m, 2, best.idx);
  }
  return row;
}

/** One activation's line, and a line for each slower ORT graph. */
function logActRow(log, row) {
  const best = row.ort[0];
  const f = (v) => (v == null ? '-' : v.toFixed(0));
  const rt = (v) => (v == null ? '-' : v.toFixed(2) + 'x');
  const ulpTxt = (o) => `${o.maxUlp > 1e6 ? o.maxUlp.toExponential(1) : o.maxUlp} (${o.maxAbs.toExponential(1)})`;
  log(
    `${padEnd(row.name, 13)}${pad(f(row.kernelMelem), 7)}${pad(f(row.apiMelem), 7)}${pad(f(row.apiOutMelem), 8)}` +
      `${pad(f(best && best.melem), 7)}  ${padEnd(best ? best.how : 'onnxruntime-web not loaded', 38)}` +
      `${pad(rt(row.apiVsOrt), 8)}${pad(rt(row.apiOutVsOrt), 8)}${pad(rt(row.kernelVsOrt), 9)}` +
      `${pad(f(row.copyMelem), 6)}${pad(rt(row.ceiling), 8)}   ${row.apiMaxUlp}, ${best ? ulpTxt(best) : '-'}`,
  );
  for (const o of row.ort.slice(1))
    log(
      `${' '.repeat(35)}${pad(f(o.melem), 7)}  ${padEnd(o.how, 38)}${' '.repeat(39)}   ` +
        `${' '.repeat(String(row.apiMaxUlp).length + 2)}${ulpTxt(o)}`,
    );
}

/**
 * One activation on x (also resident at px in wasm memory; the kernel writes py): the kernel alone, the API with a
 * fresh result and into { out }, a fresh copy of x, and onnxruntime-web's graphs, interleaved; every result checked.
 */
async function actMeasure({ name, ffn, raw, x, px, py, n, graphs, ortMod, opts }) {
  const api = { gelu: ffn.gelu, gelu_tanh: ffn.geluTanh, silu: ffn.silu, gelu_sigmoid: ffn.geluSigmoid };
  const kern = () => raw.act_forward(py, px, n, ACT_CODES[name]);
  const viaApi = () => api[name](x);
  // the same call writing into one Float32Array reused across calls (no fresh result to allocate and touch)
  const outBuf = new Float32Array(n);
  const viaApiOut = () => api[name](x, { out: outBuf });
  // what any API returning a fresh array pays at least: a fresh copy of x (allocation, page faults, one pass)
  const freshCopy = () => x.slice();
  const yApi = viaApi().data;
  checkAct(name, yApi, x);
  if (viaApiOut().data !== outBuf) throw new Error(`bench: ${name}(x, { out }) did not return out`);
  checkAct(`${name} (API out)`, outBuf, x);
  kern();
  checkAct(`${name} (kernel)`, new Float32Array(raw.memory.buffer, py, n), x);
  const ours = accuracy(yApi, x, (v) => ref.act(name, v));
  const cands = [{ fn: kern }, { fn: viaApi }, { fn: freshCopy }, { fn: viaApiOut }];
  const orts = await ortCandidates(ortMod, graphs, name, x, n, cands);
  const m = await interleaved(
    cands.map((c) => c.fn),
    opts,
    { awaitEach: true },
  );
  checkAct(`${name} (after timing)`, viaApi().data, x);
  checkAct(`${name} (API out, after timing)`, outBuf, x);
  checkAct(`${name} (kernel, after timing)`, new Float32Array(raw.memory.buffer, py, n), x);
  const row = actRowOf(name, n, m, ours, orts);
  for (const o of orts) await o.s.release();
  return row;
}

/** What the activation table's columns mean. */
function logActNotes(log, ortMod) {
  log(
    `(kernel: act_forward from one wasm buffer into another, x already in wasm memory; API: ffn.gelu(x) etc. on ` +
      `a Float32Array, result a fresh tensor; ORT: onnxruntime-web ${ortMod ? ortMod.env.versions.web : '-'} wasm ` +
      `EP, ${ortMod ? ortFlavour(ortMod) : '-'}, numThreads ${ortMod ? ortMod.env.wasm.numThreads : '-'}, SIMD,`,
  );
  log(
    " session.run({ x: new ort.Tensor('float32', x, [n]) }) and its output's .data read; its Sigmoid + Mul graph " +
      "is fused by ORT's QuickGeluFusion into QuickGelu(alpha=1);",
  );
  log(
    ' API out: ffn.gelu(x, { out }) etc., the same call writing into one Float32Array reused across calls (no ' +
      'fresh result); out/ORT its ratio to ORT;',
  );
  log(
    ' copy: x.slice(), a fresh copy of x, the least any call returning a new array pays (allocation, page ' +
      'faults, one pass);',
  );
  log(' ceiling: ORT time / copy time, the API/ORT ratio a kernel taking no time would reach;');
  log(
    ' max ulps: float32 steps from the float64 value (tests/helpers/ref.js) rounded to float32, over every 7th input ' +
      '(ffn-lab also checked within 8 ulps);',
  );
  log(
    " ORT's huge counts come from the negative tails, where its GELUs return 0 or the wrong sign: gelu(-5.54) = " +
      '0 (float64 -8.3e-8),',
  );
  log(' tanh GELU(-4.95) = +3.0e-7 (float64 -3.2e-7); in parentheses its max absolute error)');
}

/** tfjs-wasm's x*sigmoid(x) on the resident tensor xt, checked, in Melem/s. */
async function tfjsSiluRate(tf, xt, x, n, opts) {
  const tfSilu = () => {
    const y = tf.tidy(() => tf.mul(xt, tf.sigmoid(xt)));
    const out = y.dataSync();
    y.dispose();
    return out;
  };
  checkAct('tfjs silu', tfSilu(), x, 64);
  const [st] = await interleaved([tfSilu], opts);
  return n / st / 1e6;
}

/* ---- activations: Melem/s on 1M floats, the kernel alone, the public API (copies included; a fresh result,
   or { out } into one reused array) and onnxruntime-web's session.run (input from a Float32Array, output read),
   interleaved ---- */
export async function runActivationSection({
  ffn,
  raw,
  tf,
  ort: ortMod = null,
  opts,
  log = console.log,
  results = { act: [] },
}) {
  const n = 1 << 20;
  const x = randomArray(n, 21).map((v) => v * 6);
  // the kernel reads x from one wasm buffer and writes another: timed directly (x stays unchanged)
  const px = raw.malloc(n * 4) >>> 0;
  const py = raw.malloc(n * 4) >>> 0;
  new Float32Array(raw.memory.buffer, px, n).set(x);
  const graphs = ortMod ? activationGraphs(n) : null;
  const xt = tf.tensor1d(x);
  logActHeader(log, n, opts);
  for (const name of ['gelu', 'gelu_tanh', 'silu', 'gelu_sigmoid']) {
    const row = await actMeasure({ name, ffn, raw, x, px, py, n, graphs, ortMod, opts });
    logActRow(log, row);
    results.act.push(row);
  }
  const siluRate = await tfjsSiluRate(tf, xt, x, n, opts);
  logActNotes(log, ortMod);
  log(`(tfjs-wasm x*sigmoid(x) on a resident tensor, measured here: ${siluRate.toFixed(0)} Melem/s)`);
  results.act.push({ name: 'tfjs_silu', apiMelem: siluRate });
  xt.dispose();
  raw.free(px);
  raw.free(py);
  return results.act;
}

/** The peak mul+add loop: the chain count with the best rate (8..14 chains), chosen once, and its flops per call. */
async function peakLoop(probe) {
  probe._initialize?.();
  const ch = await bestChains((c) => probe[`peak${c}`]);
  const iters = 100000;
  return { ch, iters, fn: () => probe[`peak${ch}`](iters, 0.999), flops: ch * 8 * iters };
}

/** Streaming read rate in GB/s over 180 MB: the better of one stream and four streams. */
async function streamRate(probe, quick) {
  const bytes = 180 * 2 ** 20;
  const sp = probe.probe_malloc(bytes) >>> 0;
  if (!sp) throw new Error('bench: probe could not allocate the streaming buffer');
  new Float32Array(probe.memory.buffer, sp, bytes / 4).fill(1);
  const m = await interleaved([() => probe.stream_sum(sp, bytes / 4), () => probe.stream_sum4(sp, bytes / 4)], {
    batchMs: 1,
    reps: quick ? 5 : 9,
    warmMs: 1,
  });
  probe.probe_free(sp);
  return bytes / Math.min(...m) / 1e9;
}

/** Relaxed SIMD: the f32x4.relaxed_madd peak (best of 8..14 chains), timed against the mul+add peak. */
async function maddPeak(maddProbe, peak, opts, quick) {
  const ch = await bestChains((c) => maddProbe[`madd_peak${c}`]);
  const m = await interleaved([peak.fn, () => maddProbe[`madd_peak${ch}`](peak.iters, 0.999)], {
    ...opts,
    reps: quick ? 5 : 9,
  });
  return {
    ch,
    gflops: (ch * 8 * peak.iters) / m[1] / 1e9,
    mulAdd: peak.flops / m[0] / 1e9,
    vsMulAdd: pairedRatio(m, 1, 0) * (ch / peak.ch),
  };
}

/**
 * M > 1: forward(X, { out }) into one reused result array, and the same GEMM on the raw exports with X and Y left in
 * wasm memory (no JS copies) on both microkernels, each in its own interleaved run against the peak (so the
 * comparison with XNNPACK is not disturbed): shows how much of the gap to the peak is the kernel and how much the
 * API's copies. Disposes the layer. Returns the three of-peak ratios, the peak's rates and the two kernels.
 */
async function gemmBeyondApi({ raw, layer, xs, X, W, M, K, N, peak, o, sample }) {
  const ofPeak = (m, i, j) => (2 * M * K * N * pairedRatio(m, i, j)) / peak.flops;
  const peakRates = (m, i) => m.rounds[i].map((t) => peak.flops / t / 1e9);
  const outArr = new Float32Array(M * N);
  const oursOut = () => layer.forward(xs, { out: outArr }).data;
  checkGemm('ffn-lab into out', oursOut(), X, W, M, K, N, sample);
  const mo = await interleaved([oursOut, peak.fn], o);
  const rates = peakRates(mo, 1);
  checkGemm('ffn-lab into out (after timing)', oursOut(), X, W, M, K, N, 1);
  layer.dispose();
  const kern = rawGemm(raw, W, X, M, K, N);
  try {
    checkGemm('ffn-lab kernel', kern.run(), X, W, M, K, N, sample);
    // the microkernel ready() did not select, on the same data (reported: shows the selection is right here)
    const kernels = bothKernels(raw, kern.run);
    const mk = await interleaved([kern.run, kernels.otherRun, peak.fn], o);
    rates.push(...peakRates(mk, 2));
    return { outPeak: ofPeak(mo, 0, 1), kernPeak: ofPeak(mk, 0, 2), otherPeak: ofPeak(mk, 1, 2), rates, kernels };
  } finally {
    kern.free();
  }
}

/** One GEMM shape: createLinear(...).forward vs XNNPACK tf.matMul, copies in and out included, and the peak. */
async function gemmRow({ ffn, raw, tf, M, K, N, peak, opts, sample }) {
  const W = randomArray(K * N, 7 + K + N);
  const X = randomArray(M * K, 3 + M);
  const layer = ffn.createLinear({ W: { data: W, shape: [K, N] } });
  const wt = tf.tensor2d(W, [K, N]);
  const xs = { data: X, shape: [M, K] };
  const ours = () => layer.forward(xs).data;
  const xnn = () => {
    const xt = tf.tensor2d(X, [M, K]);
    const yt = tf.matMul(xt, wt);
    const out = yt.dataSync();
    xt.dispose();
    yt.dispose();
    return out;
  };
  const e1 = checkGemm('ffn-lab', ours(), X, W, M, K, N, sample);
  const e2 = checkGemm('XNNPACK', xnn(), X, W, M, K, N, sample);
  const big = K * N > 2e7;
  const o = big ? { ...opts, batchMs: opts.batchMs * 2, reps: Math.max(3, opts.reps - 4) } : opts;
  const m3 = await interleaved([ours, xnn, peak.fn], o);
  const [s1, s2, sp] = m3;
  const rowPeaks = m3.rounds[2].map((t) => peak.flops / t / 1e9);
  const ratio = pairedRatio(m3, 0, 1); // XNNPACK time / ffn-lab time, round by round
  const ofPeak = (2 * M * K * N * pairedRatio(m3, 0, 2)) / peak.flops; // ffn-lab rate / peak rate, round by round
  // the timed functions' last results are checked again (the same call as timed)
  checkGemm('ffn-lab (after timing)', ours(), X, W, M, K, N, 1);
  let beyond = { outPeak: null, kernPeak: null, otherPeak: null, kernels: null };
  if (M > 1) {
    beyond = await gemmBeyondApi({ raw, layer, xs, X, W, M, K, N, peak, o, sample });
    rowPeaks.push(...beyond.rates);
  }
  const { outPeak, kernPeak, otherPeak } = beyond;
  const flops = 2 * M * K * N;
  const [g1, g2, pk] = [flops / s1 / 1e9, flops / s2 / 1e9, peak.flops / sp / 1e9];
  const [peakSpread, maxRelErr] = [spread(rowPeaks), Math.max(e1, e2)];
  layer.dispose(); // already disposed for M > 1 (before the kernel-alone run): dispose() is idempotent
  wt.dispose();
  const row = { M, K, N, g1, g2, s1, pk, ratio, ofPeak, outPeak, kernPeak, otherPeak, peakSpread, maxRelErr };
  return { row, rowPeaks, kernels: beyond.kernels };
}

/** The anchor lines: the peak (median over the shapes it was timed with), streaming, the relaxed madd peak. */
function logAnchors(log, { peak, peaks, peakCh, streamGBs, madd }) {
  log(
    `anchors: wasm SIMD mul+add peak ${peak.toFixed(1)} GFLOPS (${peakCh} independent f32x4 mul+add chains, the ` +
      `best of 8..14; timed inside each GEMM comparison, median over shapes ` +
      `${Math.min(...peaks).toFixed(1)}..${Math.max(...peaks).toFixed(1)}); streaming read of 180 MB ` +
      `${streamGBs.toFixed(1)} GB/s (best of one and four read streams)`,
  );
  log(
    madd
      ? `         relaxed-SIMD madd peak ${madd.gflops.toFixed(1)} GFLOPS against mul+add ` +
          `${madd.mulAdd.toFixed(1)} timed with it, ${madd.vsMulAdd.toFixed(2)}x (${madd.ch} f32x4.relaxed_madd ` +
          `chains, the best of 8..14; one interleaved run before the GEMMs; the GEMM rows' share of it is their ` +
          `of-peak divided by this ratio)`
      : '         relaxed-SIMD madd peak: not measured (this engine does not run relaxed SIMD)',
  );
}

// right-aligned columns of the GEMM table: [title, width]
const gemmColumns = (other) => [
  ['ffn-lab GFLOPS', 16],
  ['XNNPACK GFLOPS', 16],
  ['ratio', 7],
  ['of peak: kernel', 17],
  ['out', 6],
  ['fresh', 7],
  [`(${other})`, 16],
  ['peak spread', 13],
];

/** The GEMM table, one line per shape, each row also pushed to results.gemm. */
function logGemmTable(log, { rowsOut, kernels, madd, streamGBs, results }) {
  const other = kernels ? kernels.other : 'other';
  const cols = gemmColumns(other);
  const row = (cells) => cells.map((c, i) => pad(c, cols[i][1])).join('');
  log(`GEMM  ${padEnd('M x K x N', 17)}${row(cols.map((c) => c[0]))}`);
  log('(ffn-lab: createLinear().forward(X), copies in/out and a fresh result array, vs tf.matMul + dataSync;');
  log(' ratios and of-peak: medians of back-to-back rounds; of peak, the targets: kernel, gemm_forward alone');
  log(' with X, Y in wasm memory, and out, forward(X, { out }) into a reused array; reported, not a target:');
  log(` fresh, forward(X) as timed against XNNPACK; (${other}): the kernel alone on the microkernel ready()`);
  log(` did not select (${kernels ? kernels.chosen : '-'} selected);`);
  log(" peak spread: (max - min) / median of the peak loop's rounds in the row's comparisons)");
  const f2 = (v) => (v == null ? '-' : v.toFixed(2));
  for (const w of rowsOut) {
    const { M, K, N, g1, g2, s1, ratio, ofPeak, outPeak, kernPeak, otherPeak, peakSpread } = w;
    const inMadd = (v) => (v / madd.vsMulAdd).toFixed(2);
    const relaxed = madd && results.build === 'relaxed' && M > 1;
    const ofMadd = relaxed ? `  (of the madd peak: kernel ${inMadd(kernPeak)}, out ${inMadd(outPeak)})` : '';
    const gbs = ((K * N * 4) / s1 / 1e9).toFixed(1);
    const gemv = M === 1 ? `  (${gbs} GB/s of weights; stream ${streamGBs.toFixed(1)})` : '';
    const cells = [g1.toFixed(1), g2.toFixed(1), ratio.toFixed(2) + 'x', f2(kernPeak), f2(outPeak), ofPeak.toFixed(2)];
    cells.push(f2(otherPeak), (100 * peakSpread).toFixed(0) + ' %');
    log(`      ${padEnd(`${M} x ${K} x ${N}`, 17)}${row(cells)}${gemv}${ofMadd}`);
    results.gemm.push({
      M,
      K,
      N,
      ffnlab: g1,
      xnnpack: g2,
      ratio,
      peak: w.pk,
      ofPeak,
      outOfPeak: outPeak,
      kernelOfPeak: kernPeak,
      otherKernelOfPeak: otherPeak,
      peakSpread,
      maxRelErr: w.maxRelErr,
    });
  }
}

/** Anchors, then every GEMM shape against XNNPACK with the peak timed inside each comparison; logs the table. */
async function gemmSection({ ffn, raw, tf, probe, maddProbe, opts, quick, sample, log, results }) {
  const peak = await peakLoop(probe);
  const streamGBs = await streamRate(probe, quick);
  const madd = maddProbe ? await maddPeak(maddProbe, peak, opts, quick) : null;
  const build =
    ffn.wasmInfo().simd === 'relaxed'
      ? 'ffn-relaxed.wasm (relaxed SIMD: the GEMM multiply-adds are f32x4.relaxed_madd)'
      : 'ffn.wasm (128-bit SIMD)';
  results.build = ffn.wasmInfo().simd;
  log(`# ffn-lab benchmark ${quick ? '(--quick) ' : ''}${results.env}`);
  log(`ffn-lab build: ${build}`);
  const rowsOut = [];
  const peaks = [];
  const peakRates = []; // the peak loop's rate in every round of the GEMM comparisons, in the order they ran
  let kernels = null;
  for (const [M, K, N] of GEMM_SHAPES) {
    const r = await gemmRow({ ffn, raw, tf, M, K, N, peak, opts, sample });
    if (r.kernels) kernels = r.kernels;
    peaks.push(r.row.pk);
    peakRates.push(...r.rowPeaks);
    rowsOut.push(r.row);
  }
  results.peak = median(peaks);
  results.streamGBs = streamGBs;
  logAnchors(log, { peak: results.peak, peaks, peakCh: peak.ch, streamGBs, madd });
  results.madd = madd;
  log('');
  logGemmTable(log, { rowsOut, kernels, madd, streamGBs, results });
  results.kernels = kernels && { selected: kernels.chosen, other: kernels.other };
  results.peakLoad = peakLoad(peakRates);
  log('');
  peakLoadLines(results.peakLoad).forEach((l) => log(l));
}

/** SwiGLU weights and input of the layer benches: T=128 d=768 d_ff=2048, weights scaled by 1/sqrt(fan-in). */
function swigluData() {
  const T = 128,
    d = 768,
    dff = 2048;
  const Wg = randomArray(d * dff, 11),
    Wu = randomArray(d * dff, 12),
    Wd = randomArray(dff * d, 13);
  const sc = 1 / Math.sqrt(d);
  for (const A of [Wg, Wu]) for (let i = 0; i < A.length; i++) A[i] *= sc;
  for (let i = 0; i < Wd.length; i++) Wd[i] /= Math.sqrt(dff);
  const X = randomArray(T * d, 14);
  return { T, d, dff, Wg, Wu, Wd, X };
}

/** A SwiGLU forward result Y against float64 on the sampled rows 0, 37 and T - 1. */
function checkSwigluForward(nm, Y, { T, d, dff, Wg, Wu, Wd, X }) {
  for (const i of [0, 37, T - 1]) {
    const x = X.subarray(i * d, i * d + d);
    const h = new Float64Array(dff);
    for (let j = 0; j < dff; j++) {
      let g = 0,
        u = 0;
      for (let k = 0; k < d; k++) ((g += x[k] * Wg[k * dff + j]), (u += x[k] * Wu[k * dff + j]));
      h[j] = (g / (1 + Math.exp(-g))) * u;
    }
    for (let c = 0; c < d; c++) {
      let y = 0,
        s = 0;
      for (let j = 0; j < dff; j++) ((y += h[j] * Wd[j * d + c]), (s += Math.abs(h[j] * Wd[j * d + c])));
      if (!(Math.abs(Y[i * d + c] - y) <= 1e-4 * s + 1e-6))
        throw new Error(`bench: SwiGLU ${nm} wrong at [${i},${c}]: ${Y[i * d + c]} vs ${y}`);
    }
  }
}

/** Fused SwiGLU layer forward vs the same three matmuls + elementwise with XNNPACK. */
async function swigluForward({ layer, tf, tw, data, opts, log, results }) {
  const { T, d, dff, X } = data;
  const ours = () => layer.forward({ data: X, shape: [T, d] }).data;
  // (dataSync outside tf.tidy: inside it, tfjs 4.22 takes seconds per call)
  const xnn = () => {
    const y = tf.tidy(() => {
      const x = tf.tensor2d(X, [T, d]);
      const g = tf.matMul(x, tw.g);
      const h = tf.mul(tf.mul(g, tf.sigmoid(g)), tf.matMul(x, tw.u));
      return tf.matMul(h, tw.d);
    });
    const out = y.dataSync();
    y.dispose();
    return out;
  };
  // check both against float64 on sampled rows
  checkSwigluForward('ffn-lab', ours(), data);
  checkSwigluForward('XNNPACK', xnn(), data);
  const mf = await interleaved([ours, xnn], opts);
  const [s1, s2] = mf;
  const fwdRatio = pairedRatio(mf, 0, 1);
  const flops = 6 * T * d * dff;
  log('');
  log(
    `SwiGLU layer forward T=${T} d=${d} d_ff=${dff}: ffn-lab createGatedFfn ${(s1 * 1e3).toFixed(2)} ms ` +
      `(${(flops / s1 / 1e9).toFixed(1)} GFLOPS), XNNPACK 3 matMul + sigmoid/mul ${(s2 * 1e3).toFixed(2)} ms: ` +
      `${fwdRatio.toFixed(2)}x`,
  );
  results.layers.push({ name: 'swiglu_forward', ffnlabMs: s1 * 1e3, xnnpackMs: s2 * 1e3, speedup: fwdRatio });
}

/** The SwiGLU backward with tfjs-wasm ops: [dX, dWg, dWu, dWd] as typed arrays. */
function tfjsSwigluBackward(tf, tw, { T, d, X }, dY) {
  const ts = tf.tidy(() => {
    const x = tf.tensor2d(X, [T, d]);
    const dy = tf.tensor2d(dY, [T, d]);
    const g = tf.matMul(x, tw.g);
    const u = tf.matMul(x, tw.u);
    const sg = tf.sigmoid(g);
    const a = tf.mul(g, sg);
    const h = tf.mul(a, u);
    const dWd = tf.matMul(h, dy, true, false);
    const dh = tf.matMul(dy, tw.d, false, true);
    const da = tf.mul(sg, tf.add(1, tf.mul(g, tf.sub(1, sg))));
    const dg = tf.mul(tf.mul(dh, u), da);
    const du = tf.mul(dh, a);
    const dWg = tf.matMul(x, dg, true, false);
    const dWu = tf.matMul(x, du, true, false);
    const dX = tf.add(tf.matMul(dg, tw.g, false, true), tf.matMul(du, tw.u, false, true));
    return [dX, dWg, dWu, dWd];
  });
  const out = ts.map((t) => t.dataSync());
  ts.forEach((t) => t.dispose());
  return out;
}

/** ffn-lab's and tfjs's gradients agree with each other on every gradient; dX agrees with float64 on row 5. */
function checkSwigluBackward(ob, xb, { d, dff, Wg, Wu, Wd, X }, dY) {
  const pairs = [
    [ob.dX.data, xb[0]],
    [ob.dWGate.data, xb[1]],
    [ob.dWUp.data, xb[2]],
    [ob.dWDown.data, xb[3]],
  ];
  for (const [a, b] of pairs) {
    let m = 0,
      sc2 = 0;
    for (let i = 0; i < a.length; i++)
      ((m = Math.max(m, Math.abs(a[i] - b[i]))), (sc2 = Math.max(sc2, Math.abs(b[i]))));
    if (!(m <= 1e-3 * sc2)) throw new Error(`bench: swigluBackward disagrees with tfjs (max diff ${m}, scale ${sc2})`);
  }
  const i = 5;
  const x = X.subarray(i * d, i * d + d),
    dy = dY.subarray(i * d, i * d + d);
  const dX = new Float64Array(d);
  let s = 0;
  for (let j = 0; j < dff; j++) {
    let g = 0,
      u = 0,
      dh = 0;
    for (let k = 0; k < d; k++) ((g += x[k] * Wg[k * dff + j]), (u += x[k] * Wu[k * dff + j]));
    for (let c = 0; c < d; c++) dh += dy[c] * Wd[j * d + c];
    const sg = 1 / (1 + Math.exp(-g));
    const dg = dh * u * sg * (1 + g * (1 - sg)),
      du = dh * g * sg;
    for (let k = 0; k < d; k++) {
      const v = dg * Wg[k * dff + j] + du * Wu[k * dff + j];
      dX[k] += v;
      s = Math.max(s, Math.abs(v));
    }
  }
  for (let k = 0; k < d; k++)
    if (!(Math.abs(ob.dX.data[i * d + k] - dX[k]) <= 1e-4 * s * Math.sqrt(dff)))
      throw new Error(`bench: swigluBackward dX wrong at [${i},${k}]`);
}

/** SwiGLU backward vs the same products with tfjs-wasm ops. */
async function swigluBackward({ ffn, tf, tw, data, opts, quick, log, results }) {
  const { T, d, dff, Wg, Wu, Wd, X } = data;
  const dY = randomArray(T * d, 15);
  const t = (a, s) => ({ data: a, shape: s });
  const oursB = () =>
    ffn.swigluBackward(t(dY, [T, d]), t(X, [T, d]), t(Wg, [d, dff]), t(Wu, [d, dff]), t(Wd, [dff, d]));
  const xnnB = () => tfjsSwigluBackward(tf, tw, data, dY);
  checkSwigluBackward(oursB(), xnnB(), data, dY);
  // tfjs takes seconds per call
  const ob2 = await interleaved([oursB, xnnB], { ...opts, batchMs: 1, reps: quick ? 3 : 5 });
  const bflops = 2 * T * d * dff * 8; // 2 recomputed forward products + 6 backward products
  log(
    `SwiGLU backward N=${T} d=${d} d_ff=${dff}: ffn-lab swigluBackward ${(ob2[0] * 1e3).toFixed(1)} ms ` +
      `(${(bflops / ob2[0] / 1e9).toFixed(1)} GFLOPS, weights copied in per call), tfjs-wasm ops ` +
      `${(ob2[1] * 1e3).toFixed(1)} ms: ${pairedRatio(ob2, 0, 1).toFixed(2)}x`,
  );
  results.layers.push({
    name: 'swiglu_backward',
    ffnlabMs: ob2[0] * 1e3,
    xnnpackMs: ob2[1] * 1e3,
    speedup: pairedRatio(ob2, 0, 1),
  });
}

/** The SwiGLU layer, forward and backward, against XNNPACK / tfjs-wasm ops. */
async function swigluSection({ ffn, tf, opts, quick, log, results }) {
  const data = swigluData();
  const { d, dff, Wg, Wu, Wd } = data;
  const layer = ffn.createGatedFfn({
    Wg: { data: Wg, shape: [d, dff] },
    Wu: { data: Wu, shape: [d, dff] },
    Wd: { data: Wd, shape: [dff, d] },
  });
  const tw = { g: tf.tensor2d(Wg, [d, dff]), u: tf.tensor2d(Wu, [d, dff]), d: tf.tensor2d(Wd, [dff, d]) };
  await swigluForward({ layer, tf, tw, data, opts, log, results });
  await swigluBackward({ ffn, tf, tw, data, opts, quick, log, results });
  layer.dispose();
  (tw.g.dispose(), tw.u.dispose(), tw.d.dispose());
}

/** ffnMemories on the tiny inputs against the float64 reference: the same top keys, partial sums close. */
function checkTinyMemories(ffn, x1, W1, b1, W2) {
  const got = ffn.ffnMemories(x1, W1, b1, W2, 4);
  const want = ref.ffnMemories(x1, W1, b1, W2, 4);
  if (Array.from(got.top).join() !== Array.from(want.top).join())
    throw new Error('bench: ffnMemories top differs from float64');
  got.partial.data.forEach((v, j) => {
    if (!(Math.abs(v - want.partial.data[j]) <= 1e-5 * (1 + Math.abs(want.partial.data[j]))))
      throw new Error('bench: ffnMemories partial wrong');
  });
}

/** Tiny calls through the public API (copies included), in us per call. */
async function tinySection({ ffn, tf, opts, log, results }) {
  const W = randomArray(8 * 16, 31),
    X = randomArray(8, 32);
  const Wt = { data: W, shape: [8, 16] },
    Xt = { data: X, shape: [1, 8] };
  const layer = ffn.createLinear({ W: Wt });
  const wt = tf.tensor2d(W, [8, 16]);
  const d = 16,
    dff = 64;
  const W1 = { data: randomArray(d * dff, 33), shape: [d, dff] },
    b1 = { data: randomArray(dff, 34), shape: [dff] };
  const W2 = { data: randomArray(dff * d, 35), shape: [dff, d] },
    x1 = { data: randomArray(d, 36), shape: [d] };
  checkGemm('tiny matmul', ffn.matmul(Xt, Wt).data, X, W, 1, 8, 16, 0);
  checkGemm('tiny linear', layer.forward(Xt).data, X, W, 1, 8, 16, 0);
  checkTinyMemories(ffn, x1, W1, b1, W2);
  const tfjsMatMul = () => {
    const xt = tf.tensor2d(X, [1, 8]);
    const yt = tf.matMul(xt, wt);
    const out = yt.dataSync();
    xt.dispose();
    yt.dispose();
    return out;
  };
  const cands = [
    { name: 'ffn.matmul 1x8x16', fn: () => ffn.matmul(Xt, Wt) },
    { name: 'createLinear(8->16).forward, 1 row', fn: () => layer.forward(Xt) },
    { name: `ffn.ffnMemories d=${d} d_ff=${dff} k=4`, fn: () => ffn.ffnMemories(x1, W1, b1, W2, 4) },
    { name: 'tfjs-wasm matMul 1x8x16 + dataSync', fn: tfjsMatMul },
  ];
  const s = await interleaved(
    cands.map((c) => c.fn),
    { ...opts, batchMs: opts.batchMs / 2 },
  );
  log('');
  log('tiny calls (public API, copies included)   us per call');
  cands.forEach((c, i) => {
    log(`  ${padEnd(c.name, 42)}${pad((s[i] * 1e6).toFixed(2), 8)}`);
    results.tiny.push({ name: c.name, us: s[i] * 1e6 });
  });
  layer.dispose();
  wt.dispose();
}

/** The GEMM targets of issues 3 and 17 as measured in this run. */
function logGemmTargets(log, results) {
  const yes = (b) => (b ? 'met' : 'NOT met');
  const g = results.gemm;
  const minRatio = Math.min(...g.map((r) => r.ratio));
  const m64 = g.find((r) => r.M === 64);
  const big = g.filter((r) => r.M >= 128);
  const gemv = g.filter((r) => r.M === 1);
  log(`  GEMM >= 1.0x XNNPACK on every shape: min ${against(minRatio, 1)}x ${yes(minRatio >= 1)}`);
  log(`  GEMM >= 1.15x at M = 64: ${against(m64.ratio, 1.15)}x ${yes(m64.ratio >= 1.15)}`);
  const least = (key) => Math.min(...big.map((r) => r[key]));
  const inMadd = (key) => (least(key) / results.madd.vsMulAdd).toFixed(2);
  const maddNote =
    results.build === 'relaxed' && results.madd
      ? ` (ffn-relaxed.wasm, of the madd peak: kernel alone min ${inMadd('kernelOfPeak')}, ` +
        `out min ${inMadd('outOfPeak')})`
      : '';
  const [kMin, oMin] = [least('kernelOfPeak'), least('outOfPeak')];
  log(
    `  >= 0.85 of the mul+add peak for M >= 128: kernel alone min ${against(kMin, 0.85)} ${yes(kMin >= 0.85)}; ` +
      `forward(X, { out }) min ${against(oMin, 0.85)} ${yes(oMin >= 0.85)}${maddNote}`,
  );
  log(`  (reported, not a target: forward(X) with a fresh result array min ${least('ofPeak').toFixed(2)})`);
  log(
    `  GEMV >= 1.0x XNNPACK: ${gemv.map((r) => r.ratio.toFixed(2) + 'x').join(', ')} ` +
      `${yes(gemv.every((r) => r.ratio >= 1))}`,
  );
}

/** The layer, activation and tiny-call targets of issues 3 and 17 as measured in this run. */
function logOtherTargets(log, results) {
  const yes = (b) => (b ? 'met' : 'NOT met');
  const fwd = results.layers.find((l) => l.name === 'swiglu_forward');
  const bwd = results.layers.find((l) => l.name === 'swiglu_backward');
  const acts = results.act.filter((a) => ['gelu', 'gelu_tanh', 'silu'].includes(a.name));
  const tinyMax = Math.min(results.tiny[0].us, results.tiny[2].us);
  log(
    `  SwiGLU forward >= 1.1x: ${fwd.speedup.toFixed(2)}x ${yes(fwd.speedup >= 1.1)}; swigluBackward >= 3x tfjs ` +
      `ops: ${bwd.speedup.toFixed(2)}x ${yes(bwd.speedup >= 3)}`,
  );
  if (acts.every((a) => a.apiVsOrt != null)) {
    const ratios = (key) => acts.map((a) => `${a.name} ${a[key].toFixed(2)}x`).join(', ');
    log(
      `  activation kernels >= 2x onnxruntime-web measured here (its call copies in and out): ` +
        `${ratios('kernelVsOrt')} ${yes(acts.every((a) => a.kernelVsOrt >= 2))}`,
    );
    log(
      `  (reported, not a target: through the API into { out } ${ratios('apiOutVsOrt')}; with a fresh result ` +
        `${ratios('apiVsOrt')})`,
    );
  } else log('  activations >= 2x onnxruntime-web: not measured (onnxruntime-web not loaded)');
  log(
    `  tiny call under 1 us (ffn.matmul 1x8x16 or ffnMemories): ${tinyMax.toFixed(2)} us ${yes(tinyMax < 1)}; ` +
      `createLinear forward ${results.tiny[1].us.toFixed(2)} us`,
  );
  log(`  host: ${hostVerdict(results.peakLoad)}`);
}

/**
 * ffn: the ffn-lab module (ready); raw: its wasm exports (for kernel-only activation rates);
 * tf: tfjs-core with the wasm backend set (1 thread, SIMD); probe: instantiated probe.wasm exports;
 * ort: onnxruntime-web configured by ort.js's configureOrt (1 thread, SIMD), or null; maddProbe: the
 * instantiated probe-relaxed.wasm exports where the engine runs relaxed SIMD, else null.
 */
export async function runBench({
  ffn,
  raw,
  tf,
  probe,
  maddProbe = null,
  ort: ortMod = null,
  quick = false,
  log = console.log,
  env = '',
}) {
  const opts = benchOpts(quick);
  const sample = quick ? 3 : 6;
  const results = { env, quick, gemm: [], act: [], tiny: [], layers: [] };
  const t00 = now();
  await gemmSection({ ffn, raw, tf, probe, maddProbe, opts, quick, sample, log, results });
  await swigluSection({ ffn, tf, opts, quick, log, results });
  await runActivationSection({ ffn, raw, tf, ort: ortMod, opts, log, results });
  /* ---- a second GEMM anchor: onnxruntime-web MatMul (weight an initializer, resident) ---- */
  if (ortMod) {
    const shapes = GEMM_SHAPES;
    results.ortGemm = await ortGemmSection({ ffn, ort: ortMod, shapes, opts, randomArray, checkGemm, log });
  }
  await tinySection({ ffn, tf, opts, log, results });
  log('');
  log('targets (issues 3 and 17), this run:');
  logGemmTargets(log, results);
  logOtherTargets(log, results);
  log('');
  log(`bench time ${((now() - t00) / 1e3).toFixed(0)} s`);
  return results;
}
