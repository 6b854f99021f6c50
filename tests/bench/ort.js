// onnxruntime-web anchors for the bench (Node and the Chromium page): tiny ONNX models written here with a hand-made
// protobuf encoder, sessions on the wasm EP (1 thread, SIMD), timed as a user calls session.run.

/* ---- a minimal protobuf writer: varints, length-delimited fields, fixed32 floats ---- */

/** One protobuf message being written: small pieces as byte lists, large payloads (initializers) kept as
    Uint8Array parts, so a 180 MB weight is never copied into a JS array. */
class Pb {
  constructor() {
    this.parts = [];
    this.cur = [];
    this.length = 0;
  }
  push(b) {
    this.cur.push(b);
    this.length++;
  }
  flush() {
    if (this.cur.length) (this.parts.push(Uint8Array.from(this.cur)), (this.cur = []));
  }
  varint(v) {
    // v: a non-negative integer below 2^53 (every value the models here need)
    let n = v;
    while (n >= 128) {
      this.push((n % 128) | 128);
      n = Math.floor(n / 128);
    }
    this.push(n);
    return this;
  }
  key(field, wire) {
    return this.varint(field * 8 + wire);
  }
  int(field, v) {
    return this.key(field, 0).varint(v);
  }
  bytesField(field, u8) {
    this.key(field, 2).varint(u8.length);
    if (u8.length < 256) for (let i = 0; i < u8.length; i++) this.push(u8[i]);
    else (this.flush(), this.parts.push(u8), (this.length += u8.length));
    return this;
  }
  string(field, s) {
    return this.bytesField(field, new TextEncoder().encode(s));
  }
  msg(field, pb) {
    pb.flush();
    this.key(field, 2).varint(pb.length);
    this.flush();
    this.parts.push(...pb.parts);
    this.length += pb.length;
    return this;
  }
  float(field, v) {
    this.key(field, 5);
    for (const b of new Uint8Array(new Float32Array([v]).buffer)) this.push(b);
    return this;
  }
  done() {
    this.flush();
    const out = new Uint8Array(this.length);
    let o = 0;
    for (const p of this.parts) (out.set(p, o), (o += p.length));
    return out;
  }
}

/* ONNX field numbers (onnx.proto3): ModelProto ir_version 1, producer_name 2, graph 7, opset_import 8;
   OperatorSetIdProto domain 1, version 2; GraphProto node 1, name 2, initializer 5, input 11, output 12;
   NodeProto input 1, output 2, name 3, op_type 4, attribute 5, domain 7; AttributeProto name 1, f 2, i 3,
   s 4, type 20 (FLOAT 1, INT 2, STRING 3); ValueInfoProto name 1, type 2; TypeProto tensor_type 1;
   TypeProto.Tensor elem_type 1 (FLOAT 1), shape 2; TensorShapeProto dim 1; Dimension dim_value 1;
   TensorProto dims 1, data_type 2, name 8, raw_data 9. */
const FLOAT = 1;

function valueInfo(name, shape) {
  const sh = new Pb();
  for (const d of shape) sh.msg(1, new Pb().int(1, d));
  const tt = new Pb().int(1, FLOAT).msg(2, sh);
  return new Pb().string(1, name).msg(2, new Pb().msg(1, tt));
}

/** A string attribute (STRING) or a number attribute (FLOAT): all the models here need. */
function attribute(name, v) {
  const a = new Pb().string(1, name);
  if (typeof v === 'string') return a.bytesField(4, new TextEncoder().encode(v)).int(20, 3);
  return a.float(2, v).int(20, 1);
}

/**
 * An ONNX model (bytes). nodes: [{ op, domain?, inputs, outputs, attrs? }]; inputs/outputs: [[name, shape]];
 * initializers: [[name, shape, Float32Array]]; opsets: { '': 20, 'com.microsoft': 1 }.
 */
export function onnxModel({ nodes, inputs, outputs, initializers = [], opsets = { '': 20 } }) {
  const g = new Pb();
  nodes.forEach((nd, i) => {
    const p = new Pb();
    for (const s of nd.inputs) p.string(1, s);
    for (const s of nd.outputs) p.string(2, s);
    p.string(3, `n${i}`).string(4, nd.op);
    for (const [k, v] of Object.entries(nd.attrs || {})) p.msg(5, attribute(k, v));
    if (nd.domain) p.string(7, nd.domain);
    g.msg(1, p);
  });
  g.string(2, 'bench');
  for (const [name, shape, data] of initializers) {
    const t = new Pb();
    for (const d of shape) t.int(1, d);
    t.int(2, FLOAT)
      .string(8, name)
      .bytesField(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    g.msg(5, t);
  }
  for (const [name, shape] of inputs) g.msg(11, valueInfo(name, shape));
  for (const [name, shape] of outputs) g.msg(12, valueInfo(name, shape));
  const m = new Pb().int(1, 9).string(2, 'ffn-lab bench');
  m.msg(7, g);
  for (const [domain, version] of Object.entries(opsets)) {
    const o = new Pb();
    if (domain) o.string(1, domain);
    m.msg(8, o.int(2, version));
  }
  return m.done();
}

/* ---- the activation models: one input x (n), one output y ---- */

const MS = 'com.microsoft';

/** The ORT graphs timed for each activation; `how` says what ORT runs. */
export function activationGraphs(n) {
  const io = { inputs: [['x', [n]]], outputs: [['y', [n]]] };
  const one = (op, domain, attrs, how) => ({
    how,
    model: onnxModel({
      ...io,
      nodes: [{ op, domain, inputs: ['x'], outputs: ['y'], attrs }],
      opsets: domain ? { '': 20, [MS]: 1 } : { '': 20 },
    }),
  });
  return {
    gelu: [one('Gelu', '', {}, 'Gelu (opset 20)'), one('Gelu', MS, {}, 'com.microsoft Gelu')],
    gelu_tanh: [
      one('Gelu', '', { approximate: 'tanh' }, "Gelu approximate='tanh' (opset 20)"),
      one('FastGelu', MS, {}, 'com.microsoft FastGelu'),
    ],
    silu: [
      {
        how: 'Sigmoid + Mul (opset 20)',
        model: onnxModel({
          ...io,
          nodes: [
            { op: 'Sigmoid', inputs: ['x'], outputs: ['s'] },
            { op: 'Mul', inputs: ['x', 's'], outputs: ['y'] },
          ],
        }),
      },
      one('QuickGelu', MS, { alpha: 1.0 }, 'com.microsoft QuickGelu alpha=1'),
    ],
    gelu_sigmoid: [one('QuickGelu', MS, { alpha: 1.702 }, 'com.microsoft QuickGelu alpha=1.702')],
  };
}

/** A MatMul model x (M, K) @ W (K, N), W an initializer (resident in the session). */
export function matmulModel(M, K, N, W) {
  return onnxModel({
    inputs: [['x', [M, K]]],
    outputs: [['y', [M, N]]],
    initializers: [['W', [K, N], W]],
    nodes: [{ op: 'MatMul', inputs: ['x', 'W'], outputs: ['y'] }],
  });
}

/* ---- sessions and timing ---- */

/** Set ORT's wasm flags for the bench: one thread (no worker), SIMD, no proxy worker. */
export function configureOrt(ort, wasmPaths) {
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.wasm.proxy = false;
  if (wasmPaths) ort.env.wasm.wasmPaths = wasmPaths;
  ort.env.logLevel = 'warning';
}

const SESSION_OPTS = { executionProviders: ['wasm'], graphOptimizationLevel: 'all', logSeverityLevel: 2 };

/** session + a runner `run(x) -> Float32Array` (input tensor from a Float32Array, output read), as a user calls it. */
export async function ortSession(ort, model, inShape) {
  const session = await ort.InferenceSession.create(model, SESSION_OPTS);
  const [inName] = session.inputNames;
  const [outName] = session.outputNames;
  const run = async (x) => {
    const out = await session.run({ [inName]: new ort.Tensor('float32', x, inShape) });
    return out[outName].data;
  };
  return { session, run, release: () => session.release() };
}

const now = () => performance.now();
export function median(a) {
  const s = [...a].sort((x, y) => x - y);
  const n = s.length;
  return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : NaN;
}

/**
 * Runs each candidate in batches: calibrates a batch to >= batchMs after warm-up, then `reps` rounds, the
 * candidates' order flipped every round. With awaitEach, every call is awaited (candidates that may be async;
 * ours too, so both pay the same per-call await); otherwise the batch runs as a plain loop, timed inside, and
 * only the batches are awaited. Returns medians (seconds per call) with .rounds (per-round seconds per call)
 * for paired ratios.
 */
export async function interleaved(fns, { batchMs, reps, warmMs }, { awaitEach = false } = {}) {
  // ms taken by k calls of f, timed around the calls only
  const batch = awaitEach
    ? async (f, k) => {
        const t0 = now();
        for (let j = 0; j < k; j++) await f();
        return now() - t0;
      }
    : (f, k) => {
        const t0 = now();
        for (let j = 0; j < k; j++) f();
        return now() - t0;
      };
  const calls = [];
  for (const f of fns) {
    // warm-up in batches of 1, 2, 4, ... calls (a coarse timer reads a single sub-microsecond call as 0)
    let n = 0;
    let ms = 0;
    for (let k = 1; n < 2 || ms < warmMs; k *= 2) ((ms += await batch(f, k)), (n += k));
    calls.push(Math.max(1, Math.ceil(batchMs / Math.max(ms / n, 1e-4))));
  }
  const times = fns.map(() => []);
  for (let r = 0; r < reps; r++) {
    const order = fns.map((_, i) => i);
    if (r % 2) order.reverse();
    for (const i of order) times[i].push((await batch(fns[i], calls[i])) / 1e3 / calls[i]);
  }
  const meds = times.map(median);
  meds.rounds = times;
  return meds;
}

/** Median over rounds of t[b] / t[a]: how many times faster a is than b, timed back to back. */
export function pairedRatio(meds, a, b) {
  const t = meds.rounds;
  return median(t[a].map((ta, r) => t[b][r] / ta));
}

/** float32 ulps between float32 y and the float64 value w (w rounded to float32 first); 0 when both are NaN. */
export function ulpsF32(y, w) {
  if (Number.isNaN(y) || Number.isNaN(w)) return Number.isNaN(y) && Number.isNaN(w) ? 0 : Infinity;
  const f = new Float32Array([y, w]);
  const i = new Int32Array(f.buffer);
  const key = (v) => (v < 0 ? -2147483648 - v : v);
  return Math.abs(key(i[0]) - key(i[1]));
}

/** Max float32 ulps of y against ref(x) (float64) over every `step`-th element; also the max absolute error. */
export function accuracy(y, x, ref, step = 7) {
  let maxUlp = 0,
    maxAbs = 0,
    at = 0;
  for (let i = 0; i < x.length; i += step) {
    const w = ref(x[i]);
    const u = ulpsF32(y[i], w);
    if (u > maxUlp) ((maxUlp = u), (at = x[i]));
    maxAbs = Math.max(maxAbs, Math.abs(y[i] - w));
  }
  return { maxUlp, maxAbs, at };
}

/** Which ORT wasm binary the page or process fetched (browser: resource timing; else the configured path). */
export function ortFlavour(ort) {
  if (typeof performance !== 'undefined' && performance.getEntriesByType) {
    const w = performance
      .getEntriesByType('resource')
      .map((e) => e.name)
      .filter((s) => /ort-wasm[^/]*\.wasm/.test(s));
    if (w.length) return w.map((s) => s.split('/').pop()).join(', ');
  }
  const p = ort.env.wasm.wasmPaths;
  if (p && typeof p === 'object' && p.wasm) return String(p.wasm).split('/').pop();
  return 'ort-wasm-simd-threaded.wasm';
}

/**
 * createLinear(...).forward against onnxruntime-web MatMul (W an initializer, resident in the session; X a
 * Float32Array input, Y read), interleaved on the GEMM shapes; every result checked with checkGemm.
 */
export async function ortGemmSection({ ffn, ort, shapes, opts, randomArray, checkGemm, log }) {
  const rows = [];
  log('');
  log(
    `GEMM anchor 2: onnxruntime-web ${ort.env.versions.web} MatMul (wasm EP, ${ortFlavour(ort)}, 1 thread, W an ` +
      `initializer), session.run with X in and Y read`,
  );
  log('GEMM  M x K x N      ffn-lab GFLOPS  ORT GFLOPS  ratio');
  for (const [M, K, N] of shapes) {
    const W = randomArray(K * N, 7 + K + N);
    const X = randomArray(M * K, 3 + M);
    const layer = ffn.createLinear({ W: { data: W, shape: [K, N] } });
    const s = await ortSession(ort, matmulModel(M, K, N, W), [M, K]);
    const xs = { data: X, shape: [M, K] };
    const ours = () => layer.forward(xs).data;
    const theirs = s.run.bind(null, X);
    checkGemm('ffn-lab', ours(), X, W, M, K, N, 2);
    checkGemm('onnxruntime-web MatMul', await theirs(), X, W, M, K, N, 2);
    const big = K * N > 2e7;
    const o = big ? { ...opts, batchMs: opts.batchMs * 2, reps: Math.max(3, opts.reps - 4) } : opts;
    const m = await interleaved([ours, theirs], o, { awaitEach: true });
    const flops = 2 * M * K * N;
    const r = { M, K, N, ffnlab: flops / m[0] / 1e9, ort: flops / m[1] / 1e9, ratio: pairedRatio(m, 0, 1) };
    rows.push(r);
    const pad = (v, w) => String(v).padStart(w);
    log(
      `      ${`${M} x ${K} x ${N}`.padEnd(17)}${pad(r.ffnlab.toFixed(1), 10)}${pad(r.ort.toFixed(1), 12)}` +
        `${pad(r.ratio.toFixed(2) + 'x', 7)}`,
    );
    await s.release();
    layer.dispose();
  }
  return rows;
}
