// ffn-lab public API (the `ffn-lab/url` entry: ready() loads ffn.wasm by URL); web/index.js re-exports it with inlined
// bytes.
import { ready as loadRuntime, wasm } from './runtime.js';
import { withHeap, mapChunks, outOption, heapStats as runtimeHeapStats } from './heap.js';
import {
  parseTensor,
  makeTensor,
  fmtShape,
  describe,
  checkKernelDims,
  ACT_NAMES,
  actCode,
  matrix,
  vector,
} from './args.js';
import { ACT_CODES } from './codes.js';
export * from './layers.js';
export { createMemoryModel, MEMORY_LIMITS, rankOneUpdate, spdSolve } from './train.js';

/** Every activation name accepted by activationGrad, ffn and gatedFfn. */
export const activations = ACT_NAMES;

/**
 * Load and instantiate the wasm module once (memoized). opts.wasm: URL, string, bytes or WebAssembly.Module;
 * opts.relaxed: 'auto' (default), true or false, which build to load when opts.wasm is absent.
 */
export function ready(opts) {
  return loadRuntime(opts);
}

/**
 * Which build ready() loaded: simd 'relaxed' (ffn-relaxed.wasm: the GEMM uses f32x4.relaxed_madd, fused or not
 * as the engine chooses) or 'simd128' (ffn.wasm); gemmKernel 'prebroadcast' (JavaScriptCore, Node 20 on ffn.wasm)
 * or 'splat' (runtime.js's gemmKernelFor).
 */
export function wasmInfo() {
  const r = wasm('wasmInfo');
  return { simd: r.simd, gemmKernel: r.gemmKernel };
}

/** Heap diagnostics (for leak checks): { heapInUse, memoryBytes, maxMemoryBytes, growths }. */
export function heapStats() {
  return runtimeHeapStats();
}

/** tensor(data, shape?) -> { data: Float32Array (fresh copy), shape }. */
export function tensor(data, shape) {
  return makeTensor(data, shape);
}

/* ---------------- helpers ---------------- */

function options(fnName, opts) {
  if (opts === undefined || opts === null) return {};
  if (typeof opts !== 'object' || Array.isArray(opts)) {
    throw new TypeError(`${fnName}: options must be an object; got ${describe(opts)}`);
  }
  return opts;
}

function bool(fnName, name, v, dflt) {
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') throw new TypeError(`${fnName}: ${name} must be true or false; got ${describe(v)}`);
  return v;
}

function posInt(fnName, name, v) {
  if (typeof v !== 'number') throw new TypeError(`${fnName}: ${name} must be a positive integer; got ${describe(v)}`);
  if (!Number.isSafeInteger(v) || v <= 0)
    throw new RangeError(`${fnName}: ${name} must be a positive integer; got ${v}`);
  return v;
}

function atLeast1D(fnName, argName, t, what = '(..., d)') {
  if (t.shape.length < 1) {
    throw new RangeError(
      `${fnName}: ${argName} has shape ${fmtShape(t.shape)} but expected ${what} with at least one dimension`,
    );
  }
}

function lastDim(t) {
  return t.shape[t.shape.length - 1];
}

function rows(t) {
  let n = 1;
  for (let i = 0; i < t.shape.length - 1; i++) n *= t.shape[i];
  return n;
}

/** A first-layer weight (d, d_ff): 2-D, its first size d, the last dimension of the input xName. Returns d_ff. */
function inWeight(fnName, argName, t, d, xName) {
  if (t.shape.length !== 2)
    throw new RangeError(`${fnName}: ${argName} has shape ${fmtShape(t.shape)} but expected 2 dimensions [${d},d_ff]`);
  if (t.shape[0] !== d)
    throw new RangeError(`${fnName}: ${argName} has shape ${fmtShape(t.shape)} but ${xName}'s last dimension is ${d}`);
  return t.shape[1];
}

function optionalTensor(fnName, argName, x) {
  return x === null || x === undefined ? null : parseTensor(fnName, argName, x);
}

/* ---------------- activations ---------------- */

function elementwise(fnName, x, code, grad, opts) {
  const r = wasm(fnName);
  const out = outOption(fnName, r, opts);
  const t = parseTensor(fnName, 'x', x);
  if (out !== undefined && out.length !== t.data.length) {
    throw new RangeError(
      `${fnName}: opts.out has ${out.length} floats but x ${fmtShape(t.shape)} needs ${t.data.length}`,
    );
  }
  const what = () => `x ${fmtShape(t.shape)}`;
  const kernel = grad ? 'act_grad' : 'act_forward';
  const y = mapChunks(fnName, what, t.data, (p, m, ex) => ex[kernel](p, p, m, code), out);
  return { data: y, shape: t.shape.slice() };
}

// Each activation takes x (any shape) and optional opts { out }: out, a Float32Array of exactly x's element
// count (it may be x's own array: in place), receives the result and is returned as its data; without it
// the result is a fresh Float32Array.

/** max(0, x) elementwise. @param {object} [opts] { out: Float32Array } to write into (may be x itself). */
export const relu = (x, opts) => elementwise('relu', x, ACT_CODES.relu, false, opts);
/** max(0, x)^2 elementwise (squared ReLU). @param {object} [opts] { out: Float32Array } to write into. */
export const relu2 = (x, opts) => elementwise('relu2', x, ACT_CODES.relu2, false, opts);
/** 1 / (1 + exp(-x)) elementwise. @param {object} [opts] { out: Float32Array } to write into. */
export const sigmoid = (x, opts) => elementwise('sigmoid', x, ACT_CODES.sigmoid, false, opts);
/** x * sigmoid(x) elementwise. @param {object} [opts] { out: Float32Array } to write into. */
export const silu = (x, opts) => elementwise('silu', x, ACT_CODES.silu, false, opts);
/** Exact GELU x * Phi(x) elementwise. @param {object} [opts] { out: Float32Array } to write into. */
export const gelu = (x, opts) => elementwise('gelu', x, ACT_CODES.gelu, false, opts);
/** Tanh-approximated GELU elementwise. @param {object} [opts] { out: Float32Array } to write into. */
export const geluTanh = (x, opts) => elementwise('geluTanh', x, ACT_CODES.gelu_tanh, false, opts);
/**
 * Sigmoid-approximated GELU x * sigmoid(1.702 x) elementwise. @param {object} [opts] { out: Float32Array } to write
 * into.
 */
export const geluSigmoid = (x, opts) => elementwise('geluSigmoid', x, ACT_CODES.gelu_sigmoid, false, opts);

/** phi'(x) elementwise for the named activation. @param {object} [opts] { out: Float32Array } to write into. */
export function activationGrad(name, x, opts) {
  wasm('activationGrad');
  const code = actCode('activationGrad', name, 'name');
  return elementwise('activationGrad', x, code, true, opts);
}

/* ---------------- matmul ---------------- */

/** A (..., k) @ B (k, n) -> (..., n). */
export function matmul(A, B) {
  const fn = 'matmul';
  wasm(fn);
  const a = parseTensor(fn, 'A', A);
  const b = parseTensor(fn, 'B', B);
  atLeast1D(fn, 'A', a, '(..., k)');
  const K = lastDim(a);
  if (b.shape.length !== 2)
    throw new RangeError(`${fn}: B has shape ${fmtShape(b.shape)} but expected 2 dimensions [${K},n]`);
  if (b.shape[0] !== K) throw new RangeError(`${fn}: B has shape ${fmtShape(b.shape)} but A's last dimension is ${K}`);
  const M = rows(a);
  const N = b.shape[1];
  const outShape = a.shape.slice();
  outShape[outShape.length - 1] = N;
  checkKernelDims(fn, () => `A ${fmtShape(a.shape)} @ B ${fmtShape(b.shape)}`, M, K, N);
  const [C] = withHeap(
    fn,
    () => `A ${fmtShape(a.shape)} @ B ${fmtShape(b.shape)} -> ${fmtShape(outShape)}`,
    [
      { len: M * N, out: true },
      { len: M * K, data: a.data },
      { len: K * N, data: b.data },
    ],
    ([pC, pA, pB], ex) => ex.matmul_forward(pC, pA, pB, M, K, N),
  );
  return { data: C, shape: outShape };
}

/* ---------------- classic FFN ---------------- */

/** phi(X W1 + b1) W2 + b2 for X (..., d), W1 (d, dFF), b1 (dFF) or null, W2 (dFF, d), b2 (d) or null. */
export function ffn(X, W1, b1, W2, b2, opts) {
  const fn = 'ffn';
  wasm(fn);
  const o = options(fn, opts);
  const code = actCode(fn, o.activation === undefined ? 'gelu_tanh' : o.activation);
  const x = parseTensor(fn, 'X', X);
  atLeast1D(fn, 'X', x);
  const d = lastDim(x);
  const w1 = parseTensor(fn, 'W1', W1);
  const dff = inWeight(fn, 'W1', w1, d, 'X');
  const bb1 = optionalTensor(fn, 'b1', b1);
  if (bb1) vector(fn, 'b1', bb1, dff, "d_ff, W1's second dimension");
  const w2 = parseTensor(fn, 'W2', W2);
  matrix(fn, 'W2', w2, dff, d, () => `expected [${dff},${d}] (d_ff from W1, d from X)`);
  const bb2 = optionalTensor(fn, 'b2', b2);
  if (bb2) vector(fn, 'b2', bb2, d, "d, X's last dimension");
  const T = rows(x);
  checkKernelDims(fn, () => `X ${fmtShape(x.shape)}, W1 ${fmtShape(w1.shape)}`, T, d, dff);
  const bufs = [
    { len: T * d, out: true },
    { len: T * d, data: x.data },
    { len: d * dff, data: w1.data },
    { len: bb1 ? dff : 0, data: bb1 && bb1.data },
    { len: dff * d, data: w2.data },
    { len: bb2 ? d : 0, data: bb2 && bb2.data },
    { len: T * dff },
  ];
  const what = () => `X ${fmtShape(x.shape)}, W1 ${fmtShape(w1.shape)}, W2 ${fmtShape(w2.shape)}`;
  const [Y] = withHeap(fn, what, bufs, ([pY, pX, pW1, pb1, pW2, pb2, pWork], ex) =>
    ex.ffn_forward(pY, pX, pW1, bb1 ? pb1 : 0, pW2, bb2 ? pb2 : 0, T, d, dff, code, pWork),
  );
  return { data: Y, shape: x.shape.slice() };
}

/* ---------------- gated FFN ---------------- */

function gatedShapes(fn, X, Wg, Wu, Wd) {
  const x = parseTensor(fn, 'X', X);
  atLeast1D(fn, 'X', x);
  const d = lastDim(x);
  const wg = parseTensor(fn, 'Wg', Wg);
  const dff = inWeight(fn, 'Wg', wg, d, 'X');
  const wu = parseTensor(fn, 'Wu', Wu);
  matrix(fn, 'Wu', wu, d, dff, () => `expected ${fmtShape([d, dff])} (the shape of Wg)`);
  const wd = parseTensor(fn, 'Wd', Wd);
  matrix(fn, 'Wd', wd, dff, d, () => `expected ${fmtShape([dff, d])} (d_ff from Wg, d from X)`);
  const T = rows(x);
  checkKernelDims(fn, () => `X ${fmtShape(x.shape)}, Wg ${fmtShape(wg.shape)}`, T, d, dff);
  return { x, wg, wu, wd, d, dff, T };
}

/** (phi(X Wg) * (X Wu)) Wd for X (..., d), Wg and Wu (d, dFF), Wd (dFF, d); no biases. */
export function gatedFfn(X, Wg, Wu, Wd, opts) {
  const fn = 'gatedFfn';
  wasm(fn);
  const o = options(fn, opts);
  const code = actCode(fn, o.activation === undefined ? 'silu' : o.activation);
  return gatedImpl(fn, code, X, Wg, Wu, Wd);
}

function gatedImpl(fn, code, X, Wg, Wu, Wd) {
  const { x, wg, wu, wd, d, dff, T } = gatedShapes(fn, X, Wg, Wu, Wd);
  const bufs = [
    { len: T * d, out: true },
    { len: T * d, data: x.data },
    { len: d * dff, data: wg.data },
    { len: d * dff, data: wu.data },
    { len: dff * d, data: wd.data },
    { len: 2 * T * dff },
  ];
  const what = () => `X ${fmtShape(x.shape)}, Wg ${fmtShape(wg.shape)}, Wd ${fmtShape(wd.shape)}`;
  const [Y] = withHeap(fn, what, bufs, ([pY, pX, pG, pU, pD, pWork], ex) =>
    ex.gated_ffn_forward(pY, pX, pG, pU, pD, T, d, dff, code, pWork),
  );
  return { data: Y, shape: x.shape.slice() };
}

/** SwiGLU FFN: gatedFfn with activation 'silu'. */
export function swigluFfn(X, Wg, Wu, Wd) {
  const fn = 'swigluFfn';
  wasm(fn);
  return gatedImpl(fn, ACT_CODES.silu, X, Wg, Wu, Wd);
}

/** Gradients of a SwiGLU FFN: dY, X (N, d) -> { dX, dWGate, dWUp, dWDown }. */
export function swigluBackward(dY, X, Wg, Wu, Wd) {
  const fn = 'swigluBackward';
  wasm(fn);
  const { x, wg, wu, wd, d, dff, T } = gatedShapes(fn, X, Wg, Wu, Wd);
  const dy = parseTensor(fn, 'dY', dY);
  if (dy.shape.length !== x.shape.length || dy.shape.some((s, i) => s !== x.shape[i])) {
    throw new RangeError(
      `${fn}: dY has shape ${fmtShape(dy.shape)} but expected ${fmtShape(x.shape)} (the shape of X)`,
    );
  }
  const bufs = [
    { len: T * d, out: true },
    { len: d * dff, out: true },
    { len: d * dff, out: true },
    { len: dff * d, out: true },
    { len: T * d, data: dy.data },
    { len: T * d, data: x.data },
    { len: d * dff, data: wg.data },
    { len: d * dff, data: wu.data },
    { len: dff * d, data: wd.data },
    { len: 3 * T * dff },
  ];
  const what = () => `X ${fmtShape(x.shape)}, Wg ${fmtShape(wg.shape)}, Wd ${fmtShape(wd.shape)}`;
  const [gX, gG, gU, gD] = withHeap(fn, what, bufs, ([pdX, pdG, pdU, pdD, pdY, pX, pG, pU, pD, pWork], ex) =>
    ex.swiglu_backward(pdX, pdG, pdU, pdD, pdY, pX, pG, pU, pD, T, d, dff, pWork),
  );
  return {
    dX: { data: gX, shape: x.shape.slice() },
    dWGate: { data: gG, shape: [d, dff] },
    dWUp: { data: gU, shape: [d, dff] },
    dWDown: { data: gD, shape: [dff, d] },
  };
}

/* ---------------- key-value memories ---------------- */

/** One token x (d): coef = relu(x W1 + b1), top = k largest coef indices, partial = sum of their coef_i * W2[i,:]. */
export function ffnMemories(x, W1, b1, W2, k) {
  const fn = 'ffnMemories';
  wasm(fn);
  const xt = parseTensor(fn, 'x', x);
  if (!(xt.shape.length === 1 || (xt.shape.length === 2 && xt.shape[0] === 1))) {
    throw new RangeError(`${fn}: x has shape ${fmtShape(xt.shape)} but expected one token [d] (or [1,d])`);
  }
  const d = lastDim(xt);
  const w1 = parseTensor(fn, 'W1', W1);
  const dff = inWeight(fn, 'W1', w1, d, 'x');
  const bb1 = optionalTensor(fn, 'b1', b1);
  if (bb1) vector(fn, 'b1', bb1, dff, "d_ff, W1's second dimension");
  const w2 = parseTensor(fn, 'W2', W2);
  matrix(fn, 'W2', w2, dff, d, () => `expected [${dff},${d}] (d_ff from W1, d from x)`);
  if (typeof k !== 'number')
    throw new TypeError(`${fn}: k must be an integer between 0 and d_ff = ${dff}; got ${describe(k)}`);
  if (!Number.isInteger(k) || k < 0 || k > dff) {
    throw new RangeError(`${fn}: k is ${k} but must be an integer between 0 and d_ff = ${dff}`);
  }
  const bufs = [
    { len: dff, out: true },
    { len: k, out: true, kind: 'i32' },
    { len: d, out: true },
    { len: d, data: xt.data },
    { len: d * dff, data: w1.data },
    { len: bb1 ? dff : 0, data: bb1 && bb1.data },
    { len: dff * d, data: w2.data },
  ];
  const what = () => `x ${fmtShape(xt.shape)}, W1 ${fmtShape(w1.shape)}, W2 ${fmtShape(w2.shape)}`;
  const [coef, top, partial] = withHeap(fn, what, bufs, ([pc, pt, pp, px, pW1, pb1, pW2], ex) =>
    ex.ffn_memories(pc, pt, pp, px, pW1, bb1 ? pb1 : 0, pW2, d, dff, k),
  );
  return { coef: { data: coef, shape: [dff] }, top, partial: { data: partial, shape: [d] } };
}

/* ---------------- counts ---------------- */

/** Parameters of one FFN: 2 d dFF (+ dFF + d) ungated, 3 d dFF (+ 2 dFF + d) gated. */
export function ffnParamCount(d, dFF, opts) {
  const fn = 'ffnParamCount';
  const r = wasm(fn);
  const o = options(fn, opts);
  posInt(fn, 'd', d);
  posInt(fn, 'dFF', dFF);
  const bias = bool(fn, 'bias', o.bias, true);
  const gated = bool(fn, 'gated', o.gated, false);
  return r.exports.ffn_param_count(d, dFF, bias ? 1 : 0, gated ? 1 : 0);
}

/** LLaMA's hidden width: int(2*4d/3), times the multiplier (int again) if given, rounded up to multipleOf. */
export function llamaHiddenDim(d, opts) {
  const fn = 'llamaHiddenDim';
  const r = wasm(fn);
  const o = options(fn, opts);
  posInt(fn, 'd', d);
  const multipleOf = o.multipleOf === undefined ? 256 : posInt(fn, 'multipleOf', o.multipleOf);
  const m = o.ffnDimMultiplier;
  if (m !== undefined && m !== null) {
    if (typeof m !== 'number')
      throw new TypeError(`${fn}: ffnDimMultiplier must be a positive number or null; got ${describe(m)}`);
    if (!(Number.isFinite(m) && m > 0))
      throw new RangeError(`${fn}: ffnDimMultiplier must be a positive finite number or null; got ${m}`);
  }
  return r.exports.llama_hidden_dim(d, multipleOf, m == null ? 0 : m);
}

/** Forward FLOPs per token: 4 d dFF ungated, 6 d dFF gated (2 per weight). */
export function ffnFlops(d, dFF, opts) {
  const fn = 'ffnFlops';
  const r = wasm(fn);
  const o = options(fn, opts);
  posInt(fn, 'd', d);
  posInt(fn, 'dFF', dFF);
  const gated = bool(fn, 'gated', o.gated, false);
  return r.exports.ffn_flops(d, dFF, gated ? 1 : 0);
}
