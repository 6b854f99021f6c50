// Resident FFN layers: weights packed once into wasm memory, forward(X) on the packed SIMD GEMM with fused epilogues,
// dispose() to free.
import { wasm } from './runtime.js';
import { statusError, heapAlloc, outOption } from './heap.js';
import { parseTensor, fmtShape, describe, actCode, matrix, vector } from './args.js';

const FLOAT_BYTES = 4;
/** Per-layer input/output scratch kept between calls up to this size; larger calls use a per-call block. */
const KEEP_SCRATCH_BYTES = 4 * 2 ** 20;

function spec(fn, opts, required) {
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) {
    throw new TypeError(`${fn}: expected an object { ${required.join(', ')}, ... }; got ${describe(opts)}`);
  }
  return opts;
}

/** A 2-D weight (rows/cols null = free); why: the expected shape, said in the message. */
function weight(fn, name, v, rows, cols, why) {
  const t = parseTensor(fn, name, v);
  matrix(fn, name, t, rows, cols, () => `expected ${why}`);
  return t;
}

/** An optional bias of n elements (null when absent). */
function bias(fn, name, v, n, why) {
  if (v === null || v === undefined) return null;
  const t = parseTensor(fn, name, v);
  vector(fn, name, t, n, why);
  return t;
}

/**
 * Blocks the GEMM streams are 64-byte aligned (malloc only guarantees 8): no f32x4 load or store splits a cache line.
 */
const ALIGN = 64;

/**
 * malloc of `floats` floats, or a RangeError naming the layer and what needed the memory.
 * Returns the raw pointer (for free); aligned(p) is the 64-byte-aligned start of the usable block.
 */
function alloc(r, fn, what, floats) {
  return heapAlloc(r, fn, what, Math.max(16, Math.ceil((floats * FLOAT_BYTES) / 16) * 16) + ALIGN);
}

const aligned = (p) => ((p + ALIGN - 1) & -ALIGN) >>> 0;

/** The rows of X (..., dIn) and the result's shape (..., dOut); a RangeError for a wrong X or opts.out. */
function forwardShape(fwd, x, dIn, dOut, out) {
  const n = x.shape.length;
  if (n < 1 || x.shape[n - 1] !== dIn) {
    throw new RangeError(
      `${fwd}: X has shape ${fmtShape(x.shape)} but expected (..., ${dIn}) (the layer's input size)`,
    );
  }
  let rowsM = 1;
  for (let i = 0; i < n - 1; i++) rowsM *= x.shape[i];
  const outShape = [...x.shape.slice(0, -1), dOut];
  if (out !== undefined && out.length !== rowsM * dOut) {
    throw new RangeError(
      `${fwd}: opts.out has ${out.length} floats but the result ${fmtShape(outShape)} needs ${rowsM * dOut}`,
    );
  }
  return { rowsM, outShape };
}

/**
 * A layer's scratch block, kept between calls up to KEEP_SCRATCH_BYTES: take(need, what) -> { base, temporary } (a
 * temporary block is the caller's to free; what() names the call in an out-of-memory error), free().
 */
function layerScratch(r, fwd) {
  const ex = r.exports;
  let scratch = 0;
  let scratchFloats = 0;
  const free = () => {
    if (scratch) ex.free(scratch);
    scratch = 0;
    scratchFloats = 0;
  };
  const take = (need, what) => {
    if (need <= scratchFloats) return { base: scratch, temporary: false };
    if (need * FLOAT_BYTES > KEEP_SCRATCH_BYTES) return { base: alloc(r, fwd, what(), need), temporary: true };
    free(); // grow the kept scratch (free first: the old block is not needed any more)
    scratch = alloc(r, fwd, what(), need);
    scratchFloats = need;
    return { base: scratch, temporary: false };
  };
  return { take, free };
}

/**
 * The shared machinery of the three layer kinds: one block of packed weights, a scratch block reused
 * between calls, forward(X, { out }) with X (..., dIn) -> (..., dOut) (into a fresh array, or into
 * opts.out, a Float32Array of exactly the result's length), dispose().
 * pack(ex, base) writes the packed weights at base; run(ex, pY, pX, M, pWork) computes; workFloats(M).
 */
function makeLayer(kind, { dIn, dOut, floats, pack, run, workFloats, info }) {
  const r = wasm(kind);
  const ex = r.exports;
  let weights = alloc(r, kind, `the packed weights (${dIn} -> ${dOut})`, floats);
  try {
    pack(ex, aligned(weights));
  } catch (e) {
    ex.free(weights);
    throw e;
  }
  let disposed = false;
  const fwd = `${kind}(...).forward`;
  const scratch = layerScratch(r, fwd);
  const gone = () => new Error(`${fwd}: this layer was disposed; create a new one with ${kind}()`);

  function forward(X, opts) {
    if (disposed) throw gone();
    const out = outOption(fwd, r, opts);
    const x = parseTensor(fwd, 'X', X);
    // parsing X may run caller code (getters) that disposes this layer: check again
    if (disposed) throw gone();
    const { rowsM, outShape } = forwardShape(fwd, x, dIn, dOut, out);
    const inF = Math.ceil((rowsM * dIn) / 16) * 16; // whole 64-byte lines: Y and the work block stay aligned
    const outF = Math.ceil((rowsM * dOut) / 16) * 16;
    const what = () => `X ${fmtShape(x.shape)} -> ${fmtShape(outShape)}`;
    const { base, temporary } = scratch.take(inF + outF + workFloats(rowsM), what);
    try {
      const pX = aligned(base);
      const pY = pX + inF * FLOAT_BYTES;
      const pW = pY + outF * FLOAT_BYTES;
      new Float32Array(r.memory.buffer, pX, rowsM * dIn).set(x.data);
      const status = run(ex, pY, pX, rowsM, pW, aligned(weights));
      if (status !== 0) throw statusError(fwd, status, () => `X ${fmtShape(x.shape)}`, r.memory.buffer.byteLength);
      const y = new Float32Array(r.memory.buffer, pY, rowsM * dOut);
      if (out === undefined) return { data: y.slice(), shape: outShape };
      out.set(y);
      return { data: out, shape: outShape };
    } finally {
      if (temporary) ex.free(base);
    }
  }

  function dispose() {
    if (disposed) return;
    disposed = true;
    ex.free(weights);
    weights = 0;
    scratch.free();
  }

  const layer = { forward, dispose };
  Object.defineProperty(layer, 'disposed', { get: () => disposed, enumerable: true });
  for (const [k, v] of Object.entries(info)) Object.defineProperty(layer, k, { value: v, enumerable: true });
  return Object.freeze(layer);
}

/** Copy a Float32Array into wasm memory at p (a fresh view: memory may have grown). */
function put(r, p, data) {
  new Float32Array(r.memory.buffer, p, data.length).set(data);
}

/**
 * A resident linear layer Y = act(X W + b): W (dIn, dOut) packed once, b (dOut) or null,
 * activation (default 'identity'). forward(X) takes X (..., dIn) and returns (..., dOut).
 */
export function createLinear(opts) {
  const fn = 'createLinear';
  const r = wasm(fn);
  const o = spec(fn, opts, ['W', 'b', 'activation']);
  const act = o.activation === undefined ? 'identity' : o.activation;
  const code = actCode(fn, act);
  const w = weight(fn, 'W', o.W, null, null, '2 dimensions [d_in,d_out]');
  const [K, N] = w.shape;
  const b = bias(fn, 'b', o.b, N, "d_out, W's second dimension");
  const wf = r.exports.gemm_packed_size(K, N);
  const bf = b ? Math.ceil(N / 4) * 4 : 0;
  return makeLayer(fn, {
    dIn: K,
    dOut: N,
    floats: wf + bf,
    info: { dIn: K, dOut: N, activation: act },
    pack(ex, base) {
      const tmp = alloc(r, fn, `W ${fmtShape(w.shape)}`, K * N);
      try {
        put(r, tmp, w.data);
        ex.gemm_pack(base, tmp, K, N);
      } finally {
        ex.free(tmp);
      }
      if (b) put(r, base + wf * FLOAT_BYTES, b.data);
    },
    workFloats: (M) => r.exports.gemm_work_size(M, K),
    run: (ex, pY, pX, M, pW, base) => ex.gemm_forward(pY, pX, base, b ? base + wf * FLOAT_BYTES : 0, M, K, N, code, pW),
  });
}

/**
 * A resident classic FFN Y = act(X W1 + b1) W2 + b2: W1 (d, dFF), W2 (dFF, d), biases (or null),
 * activation (default 'gelu_tanh', as GPT-2). forward(X) takes X (..., d) and returns (..., d).
 */
export function createFfn(opts) {
  const fn = 'createFfn';
  const r = wasm(fn);
  const o = spec(fn, opts, ['W1', 'b1', 'W2', 'b2', 'activation']);
  const act = o.activation === undefined ? 'gelu_tanh' : o.activation;
  const code = actCode(fn, act);
  const w1 = weight(fn, 'W1', o.W1, null, null, '2 dimensions [d,d_ff]');
  const [d, dff] = w1.shape;
  const b1 = bias(fn, 'b1', o.b1, dff, "d_ff, W1's second dimension");
  const w2 = weight(fn, 'W2', o.W2, dff, d, `[${dff},${d}] (the transpose of W1's shape)`);
  const b2 = bias(fn, 'b2', o.b2, d, "d, W1's first dimension");
  const f1 = r.exports.gemm_packed_size(d, dff);
  const f2 = r.exports.gemm_packed_size(dff, d);
  const o2 = f1;
  const ob1 = o2 + f2;
  const ob2 = ob1 + Math.ceil(dff / 4) * 4;
  const total = ob2 + Math.ceil(d / 4) * 4;
  return makeLayer(fn, {
    dIn: d,
    dOut: d,
    floats: total,
    info: { d, dFF: dff, activation: act },
    pack(ex, base) {
      const tmp = alloc(r, fn, `W1 ${fmtShape(w1.shape)}`, d * dff);
      try {
        put(r, tmp, w1.data);
        ex.gemm_pack(base, tmp, d, dff);
        put(r, tmp, w2.data);
        ex.gemm_pack(base + o2 * FLOAT_BYTES, tmp, dff, d);
      } finally {
        ex.free(tmp);
      }
      if (b1) put(r, base + ob1 * FLOAT_BYTES, b1.data);
      if (b2) put(r, base + ob2 * FLOAT_BYTES, b2.data);
    },
    workFloats: (M) => r.exports.ffn_packed_work_size(M, d, dff),
    run: (ex, pY, pX, M, pW, base) =>
      ex.ffn_packed_forward(
        pY,
        pX,
        base,
        b1 ? base + ob1 * FLOAT_BYTES : 0,
        base + o2 * FLOAT_BYTES,
        b2 ? base + ob2 * FLOAT_BYTES : 0,
        M,
        d,
        dff,
        code,
        pW,
      ),
  });
}

/**
 * A resident gated FFN Y = (act(X Wg) * (X Wu)) Wd: Wg, Wu (d, dFF), Wd (dFF, d), no biases,
 * activation (default 'silu': SwiGLU). Wg and Wu are packed interleaved so one pass computes both
 * and the gate product is fused. forward(X) takes X (..., d) and returns (..., d).
 */
export function createGatedFfn(opts) {
  const fn = 'createGatedFfn';
  const r = wasm(fn);
  const o = spec(fn, opts, ['Wg', 'Wu', 'Wd', 'activation']);
  const act = o.activation === undefined ? 'silu' : o.activation;
  const code = actCode(fn, act);
  const wg = weight(fn, 'Wg', o.Wg, null, null, '2 dimensions [d,d_ff]');
  const [d, dff] = wg.shape;
  const wu = weight(fn, 'Wu', o.Wu, d, dff, `${fmtShape([d, dff])} (the shape of Wg)`);
  const wd = weight(fn, 'Wd', o.Wd, dff, d, `${fmtShape([dff, d])} (the transpose of Wg's shape)`);
  const fgu = r.exports.gemm_gated_packed_size(d, dff);
  const fd = r.exports.gemm_packed_size(dff, d);
  return makeLayer(fn, {
    dIn: d,
    dOut: d,
    floats: fgu + fd,
    info: { d, dFF: dff, activation: act },
    pack(ex, base) {
      const tmp = alloc(r, fn, `Wg and Wu ${fmtShape(wg.shape)}`, 2 * d * dff);
      try {
        put(r, tmp, wg.data);
        put(r, tmp + d * dff * FLOAT_BYTES, wu.data);
        ex.gemm_gated_pack(base, tmp, tmp + d * dff * FLOAT_BYTES, d, dff);
        put(r, tmp, wd.data);
        ex.gemm_pack(base + fgu * FLOAT_BYTES, tmp, dff, d);
      } finally {
        ex.free(tmp);
      }
    },
    workFloats: (M) => r.exports.ffn_packed_work_size(M, d, dff),
    run: (ex, pY, pX, M, pW, base) =>
      ex.gated_packed_forward(pY, pX, base, base + fgu * FLOAT_BYTES, M, d, dff, code, pW),
  });
}
