// ffn-lab heap: allocation with clear errors, one kernel call on a per-call heap block, elementwise kernels in chunks.
import { STATUS } from './codes.js';
import { describe, whatText } from './args.js';
import { wasm } from './runtime.js';

/** Heap diagnostics: bytes handed out by malloc, current memory size, the ceiling and how often memory grew. */
export function heapStats() {
  const r = wasm('heapStats');
  return {
    heapInUse: typeof r.exports.ffn_heap_in_use === 'function' ? r.exports.ffn_heap_in_use() : NaN,
    memoryBytes: r.memory.buffer.byteLength,
    maxMemoryBytes: r.maxBytes,
    growths: r.growths,
  };
}

export function fmtBytes(n) {
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(1)} GiB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}

/**
 * The error for a non-zero kernel status: ENOMEM (a kernel's own scratch allocation failed) is a
 * RangeError saying wasm memory ran out; anything else is an Error with the status.
 */
export function statusError(fnName, status, what, heapBytes) {
  if (status === STATUS.ENOMEM) {
    return new RangeError(
      `${fnName}: out of wasm memory: the kernel could not allocate its scratch space for ${whatText(what)}` +
        (heapBytes != null ? ` (heap is ${fmtBytes(heapBytes)})` : ''),
    );
  }
  return new Error(`${fnName}: kernel failed with status ${status} for ${whatText(what)}`);
}

/**
 * malloc(bytes) >>> 0 for fnName, or a RangeError saying what needed the memory: more than wasm memory
 * can ever hold, or more than it can hold now (malloc returned 0).
 */
export function heapAlloc(r, fnName, what, bytes) {
  if (!(bytes <= r.maxBytes - 65536)) {
    throw new RangeError(
      `${fnName}: ${whatText(what)} needs ${fmtBytes(bytes)} of wasm memory, ` +
        `more than wasm memory can ever hold (${fmtBytes(r.maxBytes)})`,
    );
  }
  const p = r.exports.malloc(bytes) >>> 0;
  if (p === 0) {
    throw new RangeError(
      `${fnName}: out of wasm memory: ${whatText(what)} needs ${fmtBytes(bytes)} ` +
        `(heap is ${fmtBytes(r.memory.buffer.byteLength)})`,
    );
  }
  return p;
}

/**
 * Run one kernel call on a fresh heap block.
 * fnName: public function name (for messages). what: a short description of the shapes involved, or a
 * function returning it (called only when an error is thrown, so the hot path builds no strings).
 * bufs: [{ len, data?, kind? ('f32' default, 'i32'), out? }]: each buffer gets `len` elements; `data` is copied in.
 * compute(ptrs, ex): calls the kernel, returns its status (0 ok) or any value.
 * Returns the list of copied-out typed arrays (fresh), one per buffer with `out: true`.
 */
export function withHeap(fnName, what, bufs, compute) {
  const r = wasm(fnName);
  const nb = bufs.length;
  let total = 0;
  for (let i = 0; i < nb; i++) total += Math.ceil(bufs[i].len / 4) * 16;
  if (total < 16) total = 16;

  const ex = r.exports;
  const base = heapAlloc(r, fnName, what, total);
  try {
    const ptrs = new Array(nb);
    // One view of the current buffer, made after malloc and never kept across a call that can grow memory.
    const mem = r.memory;
    const buf0 = mem.buffer;
    let heap = new Float32Array(buf0);
    let off = base;
    for (let i = 0; i < nb; i++) {
      const b = bufs[i];
      ptrs[i] = off;
      const d = b.data;
      if (d) {
        if (b.kind === 'i32') new Int32Array(buf0, off, b.len).set(d);
        else if (d.length === b.len) heap.set(d, off >>> 2);
        else throw new Error(`${fnName}: internal error: buffer ${i} has ${d.length} elements, expected ${b.len}`);
      }
      off += Math.ceil(b.len / 4) * 16; // 16-byte aligned blocks (sizes may exceed 2^32 before the check above)
    }
    const status = compute(ptrs, ex);
    if (typeof status === 'number' && status !== 0) {
      throw statusError(fnName, status, what, r.memory.buffer.byteLength);
    }
    let buf = buf0;
    if (mem.buffer !== buf0) {
      buf = mem.buffer;
      heap = new Float32Array(buf);
    }
    const outs = [];
    for (let i = 0; i < nb; i++) {
      const b = bufs[i];
      if (!b.out) continue;
      const q = ptrs[i] >>> 2;
      if (b.kind === 'i32') outs.push(new Int32Array(buf, ptrs[i], b.len).slice());
      else outs.push(heap.slice(q, q + b.len));
    }
    return outs;
  } finally {
    ex.free(base);
  }
}

/**
 * The optional { out } of a call that can write its result into the caller's array (the elementwise functions,
 * layer.forward): undefined (no opts or no out) or a Float32Array outside the module's wasm memory. The caller
 * checks its length once the result's shape is known. Runs before anything is written.
 */
export function outOption(fnName, r, opts) {
  if (opts === undefined || opts === null) return undefined;
  if (typeof opts !== 'object' || Array.isArray(opts) || ArrayBuffer.isView(opts)) {
    const hint = ArrayBuffer.isView(opts) ? ' (to write into an array, pass { out: array })' : '';
    throw new TypeError(`${fnName}: opts must be an object { out }; got ${describe(opts)}${hint}`);
  }
  const out = opts.out;
  if (out === undefined) return undefined;
  if (!(out instanceof Float32Array)) {
    throw new TypeError(`${fnName}: opts.out must be a Float32Array; got ${describe(out)}`);
  }
  // a view of the heap: it can overlap the call's scratch or other data, and memory growth detaches it
  if (out.buffer === r.memory.buffer) {
    throw new RangeError(
      `${fnName}: opts.out is a view of ffn-lab's own wasm memory (a Float32Array of length ${out.length}), ` +
        "which holds the call's scratch and data and which growth detaches; pass an ordinary Float32Array",
    );
  }
  return out;
}

/** Floats per block of mapChunks: 64 KiB, so a block's copy in, its kernel pass and its copy out stay in L1/L2. */
export const MAP_CHUNK = 16384;

/**
 * y = f(x) for an elementwise kernel, through one small heap block reused block by block (copy a block of x in,
 * run the kernel in place, copy it out into the result), so the copies never leave the cache and wasm memory
 * needs only MAP_CHUNK floats whatever n is. kernel(ptr, m, ex) runs in place on m floats and returns a status.
 * The result (a fresh Float32Array) is allocated before the heap block, so nothing is left behind if that fails.
 * dst (optional): a Float32Array of exactly src.length floats, outside wasm memory (the caller checks both), written
 * and returned instead of a fresh array. It may be src itself (each block is read before it is written back); if it
 * is another view of src's buffer whose bytes overlap src's at a different start, src is first copied, since a block
 * written to dst would overwrite input not yet read.
 */
export function mapChunks(fnName, what, src, kernel, dst) {
  const r = wasm(fnName);
  const n = src.length;
  let out = dst;
  if (out === undefined) {
    try {
      out = new Float32Array(n);
    } catch (e) {
      const msg = `${fnName}: cannot allocate the ${fmtBytes(4 * n)} result for ${whatText(what)} (${e.message})`;
      throw new RangeError(msg, { cause: e });
    }
  } else if (n > 0 && overlapsShifted(out, src)) {
    try {
      src = src.slice();
    } catch (e) {
      const msg = `${fnName}: cannot allocate a ${fmtBytes(4 * n)} copy of ${whatText(what)}, which overlaps opts.out`;
      throw new RangeError(`${msg} (${e.message})`, { cause: e });
    }
  }
  if (n === 0) return out;
  const c = n < MAP_CHUNK ? n : MAP_CHUNK;
  const ex = r.exports;
  const base = heapAlloc(r, fnName, what, Math.ceil(c / 4) * 16);
  try {
    const mem = r.memory;
    let buf = mem.buffer;
    let heap = new Float32Array(buf, base, c);
    for (let i = 0; i < n; i += c) {
      const m = n - i < c ? n - i : c;
      if (m < c) heap = new Float32Array(buf, base, m);
      heap.set(m === n ? src : src.subarray(i, i + m));
      const status = kernel(base, m, ex);
      if (status !== 0) throw statusError(fnName, status, what, mem.buffer.byteLength);
      // a kernel here never grows memory, but a view is never trusted across a call
      if (mem.buffer !== buf) {
        buf = mem.buffer;
        heap = new Float32Array(buf, base, m);
      }
      out.set(heap, i);
    }
    return out;
  } finally {
    ex.free(base);
  }
}

/** True when typed arrays a and b share a buffer, their byte ranges intersect and they start at different bytes. */
function overlapsShifted(a, b) {
  if (a.buffer !== b.buffer || a.byteOffset === b.byteOffset) return false;
  return a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength;
}
