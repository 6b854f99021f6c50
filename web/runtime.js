// ffn-lab runtime: the one memoized wasm loader, heap helpers and tensor parsing/validation shared by every entry point.

/** Upper bound of wasm memory when the module does not declare one we can read (Emscripten's default MAXIMUM_MEMORY, 2 GiB). */
const DEFAULT_MAX_WASM_BYTES = 2 ** 31;

const INT32_MAX = 2 ** 31 - 1;

/** Throw a RangeError if a size passed to a kernel's int parameter does not fit in int32 (what: string or () => string). */
export function checkKernelDims(fnName, what, a, b = 0, c = 0) {
  if (a <= INT32_MAX && b <= INT32_MAX && c <= INT32_MAX) return;
  const v = a > INT32_MAX ? a : b > INT32_MAX ? b : c;
  throw new RangeError(`${fnName}: ${whatText(what)} has a dimension of ${v}, more than the kernels' limit ${INT32_MAX}`);
}

// The only module-level state: the memoized loading promise and, once resolved, the instance record.
let loading = null;
let inst = null;

/* ------------------------------------------------------------------ */
/* loading                                                             */
/* ------------------------------------------------------------------ */

function isNodeLike() {
  return typeof process !== 'undefined' && process.versions != null && process.versions.node != null;
}

/** Decode a base64 string (browser and Node 16+ both have atob). */
export function base64ToBytes(b64) {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function toUint8(bytes) {
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  if (typeof SharedArrayBuffer !== 'undefined' && bytes instanceof SharedArrayBuffer) return new Uint8Array(bytes);
  if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return null;
}

async function fetchBytes(url) {
  if (url.protocol === 'file:' && isNodeLike()) {
    // Node reads local files itself; the specifier is hidden from bundlers that target browsers.
    const spec = 'node:fs/promises';
    const fs = await import(/* webpackIgnore: true */ /* @vite-ignore */ spec);
    try {
      return new Uint8Array(await fs.readFile(url));
    } catch (e) {
      throw new Error(`ffn-lab: could not load the wasm module from ${url.href} (${e.code || e.message})`, { cause: e });
    }
  }
  if (typeof fetch !== 'function') throw new Error(`ffn-lab: cannot load ${url.href}: fetch is not available`);
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new Error(`ffn-lab: could not load the wasm module from ${url.href} (${e.message})`, { cause: e });
  }
  if (!res.ok) throw new Error(`ffn-lab: could not load the wasm module from ${url.href} (HTTP ${res.status})`);
  return new Uint8Array(await res.arrayBuffer());
}

async function resolveSource(src) {
  if (typeof WebAssembly === 'undefined') throw new Error('ffn-lab: WebAssembly is not available in this environment');
  if (src instanceof WebAssembly.Module) return { module: src, bytes: null };
  const u8 = toUint8(src);
  if (u8) return { module: null, bytes: u8 };
  let url;
  if (src instanceof URL) url = src;
  else if (typeof src === 'string') {
    if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(src) && !/^[a-zA-Z]:[\\/]/.test(src)) url = new URL(src);
    else if (typeof location !== 'undefined' && location.href) url = new URL(src, location.href);
    else if (isNodeLike()) {
      const spec = 'node:url';
      const path = 'node:path';
      const [{ pathToFileURL }, { resolve }] = await Promise.all([
        import(/* webpackIgnore: true */ /* @vite-ignore */ spec),
        import(/* webpackIgnore: true */ /* @vite-ignore */ path),
      ]);
      url = pathToFileURL(resolve(src));
    } else url = new URL(src);
  } else {
    throw new TypeError(
      `ready: opts.wasm must be a URL, a string, bytes (ArrayBuffer or typed array) or a WebAssembly.Module; got ${describe(src)}`,
    );
  }
  return { module: null, bytes: await fetchBytes(url) };
}

/** Read the maximum of the module's own memory from its binary (memory section, id 5), or null. */
function declaredMaxBytes(bytes) {
  try {
    if (!bytes || bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) return null;
    let p = 8;
    const leb = () => {
      let result = 0, shift = 0, b;
      do {
        b = bytes[p++];
        result += (b & 0x7f) * 2 ** shift;
        shift += 7;
      } while (b & 0x80);
      return result;
    };
    while (p < bytes.length) {
      const id = bytes[p++];
      const size = leb();
      const end = p + size;
      if (id === 5) {
        const count = leb();
        if (count < 1) return null;
        const flags = leb();
        leb(); // minimum pages
        if (flags & 1) return leb() * 65536;
        return null;
      }
      p = end;
    }
  } catch {
    /* fall through */
  }
  return null;
}

async function load(src) {
  const { module, bytes } = await resolveSource(src);
  const record = {
    exports: null, memory: null, maxBytes: DEFAULT_MAX_WASM_BYTES, growths: 0, simd: 'simd128', gemmKernel: 'splat',
  };
  const imports = {
    env: {
      // The heap moved: every Float32Array view is stale. We never keep views, so we only count the event.
      emscripten_notify_memory_growth() {
        record.growths++;
      },
    },
  };
  let instance;
  try {
    if (module) instance = await WebAssembly.instantiate(module, imports);
    else instance = (await WebAssembly.instantiate(bytes, imports)).instance;
  } catch (e) {
    const hint = e instanceof WebAssembly.CompileError ? ' (this engine may lack 128-bit wasm SIMD, or relaxed SIMD for ffn-relaxed.wasm)' : '';
    throw new Error(`ffn-lab: could not instantiate the wasm module${hint}: ${e.message}`, { cause: e });
  }
  const ex = instance.exports;
  if (!(ex.memory instanceof WebAssembly.Memory)) throw new Error('ffn-lab: the wasm module exports no memory');
  if (typeof ex.malloc !== 'function' || typeof ex.free !== 'function') {
    throw new Error('ffn-lab: the wasm module does not export malloc/free');
  }
  if (typeof ex._initialize === 'function') ex._initialize();
  record.exports = ex;
  record.memory = ex.memory;
  record.simd = typeof ex.ffn_simd_level === 'function' && ex.ffn_simd_level() === 2 ? 'relaxed' : 'simd128';
  if (typeof ex.gemm_select_kernel === 'function') {
    const kernel = isJavaScriptCore() ? 'prebroadcast' : 'splat';
    record.gemmKernel = GEMM_KERNELS[ex.gemm_select_kernel(GEMM_KERNELS.indexOf(kernel))];
  }
  const declared = declaredMaxBytes(bytes);
  if (declared != null) record.maxBytes = declared;
  return record;
}

/** The GEMM microkernels (src/ffn.h enum ffn_gemm_kernel) by the names wasmInfo() reports. */
const GEMM_KERNELS = ['splat', 'prebroadcast'];

/**
 * True in JavaScriptCore (Safari, every browser on iOS, Bun), whose Error objects carry own `line` and `column`
 * numbers (V8's and SpiderMonkey's do not). Its wasm compiler turns the GEMM's v128.load32_splat at an address
 * offset into a scalar load, a move and a shuffle, so the loader selects the pre-broadcast microkernel there; V8
 * and SpiderMonkey run the splat one as fast or faster (tests/bench/README.md). No timing: about a microsecond.
 */
export function isJavaScriptCore() {
  try {
    const e = new Error();
    return typeof e.line === 'number' && typeof e.column === 'number';
  } catch {
    return false;
  }
}

/**
 * A 37-byte module whose one function is f32x4.relaxed_madd (0xfd 0x105): it validates only where the
 * engine runs relaxed SIMD (Chrome 114+, Node 21+; Node 20 behind --experimental-wasm-relaxed-simd).
 */
const RELAXED_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1
  0x01, 0x08, 0x01, 0x60, 0x03, 0x7b, 0x7b, 0x7b, 0x01, 0x7b, // type: (v128 v128 v128) -> v128
  0x03, 0x02, 0x01, 0x00, // one function of that type
  0x0a, 0x0d, 0x01, 0x0b, 0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0xfd, 0x85, 0x02, 0x0b, // body
]);

/** True when this engine runs relaxed SIMD (feature detection by validating RELAXED_PROBE). */
export function relaxedSimdSupported() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(RELAXED_PROBE);
  } catch {
    return false;
  }
}

/**
 * Instantiate the wasm module once. Later calls return the same promise whatever their options, except
 * that an explicit opts.relaxed (true or false) the loaded build does not match rejects.
 * `fallback(relaxed)` returns (or resolves to) the source to use when opts.wasm is absent: the
 * relaxed-SIMD build when `relaxed` is true. opts.relaxed: 'auto' (default: relaxed where the engine
 * runs it, falling back to the 128-bit SIMD build if the relaxed one cannot be loaded), true (required:
 * an Error where it cannot be had) or false (always the 128-bit SIMD build).
 */
export function ready(opts, fallback) {
  if (opts != null && typeof opts !== 'object') throw new TypeError(`ready: opts must be an object; got ${describe(opts)}`);
  const relaxedOpt = opts && opts.relaxed !== undefined ? opts.relaxed : 'auto';
  if (relaxedOpt !== 'auto' && relaxedOpt !== true && relaxedOpt !== false) {
    throw new TypeError(`ready: opts.relaxed must be 'auto', true or false; got ${describe(relaxedOpt)}`);
  }
  if (loading) {
    if (relaxedOpt === 'auto') return loading;
    // an explicit choice must match what an earlier ready() loaded (or is loading)
    return loading.then(() => {
      if ((inst.simd === 'relaxed') !== relaxedOpt) {
        const loaded = inst.simd === 'relaxed' ? 'ffn-relaxed.wasm' : 'ffn.wasm';
        throw new Error(`ready: opts.relaxed is ${relaxedOpt} but an earlier ready() already loaded ${loaded}; pass the same choice to the first ready() call`);
      }
    });
  }
  const wasm = opts && opts.wasm != null ? opts.wasm : null;
  if (wasm != null && relaxedOpt !== 'auto') {
    throw new TypeError('ready: pass either opts.wasm (that module is used as given) or opts.relaxed (which build to load), not both');
  }
  let relaxed = false;
  if (wasm == null && relaxedOpt !== false) {
    relaxed = relaxedSimdSupported();
    if (relaxedOpt === true && !relaxed) {
      return Promise.reject(new Error('ready: opts.relaxed is true but this engine does not run relaxed SIMD (Node 20 needs --experimental-wasm-relaxed-simd); use relaxed: \'auto\' or false'));
    }
  }
  const built = async (r) => load(await (fallback ? fallback(r) : defaultUrl(r)));
  const p = (async () => {
    if (wasm != null) inst = await load(wasm);
    else if (relaxed && relaxedOpt === 'auto') {
      inst = await built(true).catch((e) => {
        // a host that serves only ffn.wasm (or an engine that validates but cannot compile it) still works
        if (typeof console !== 'undefined') console.warn(`ffn-lab: could not load the relaxed-SIMD build, using ffn.wasm instead (${e.message})`);
        return built(false);
      });
    } else inst = await built(relaxed);
  })();
  loading = p.then(
    () => undefined,
    (e) => {
      // A failed load may be retried (for example with another opts.wasm).
      loading = null;
      throw e;
    },
  );
  return loading;
}

/** The built module next to this file (literal URLs, so bundlers see and copy both files). */
function defaultUrl(relaxed) {
  return relaxed ? new URL('./ffn-relaxed.wasm', import.meta.url) : new URL('./ffn.wasm', import.meta.url);
}

/** The instance record; throws a clear Error naming the caller before ready(). */
export function wasm(fnName) {
  if (inst === null) {
    throw new Error(`ffn-lab: call await ready() first (${fnName} was called before the wasm module was loaded)`);
  }
  return inst;
}

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

/* ------------------------------------------------------------------ */
/* heap helpers                                                        */
/* ------------------------------------------------------------------ */

export function fmtBytes(n) {
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(1)} GiB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}

/** Activation codes of the C ABI (src/ffn.h enum ffn_act), shared by web/ffn.js and web/layers.js. */
export const ACT_CODES = Object.freeze({
  identity: 0,
  relu: 1,
  relu2: 2,
  sigmoid: 3,
  silu: 4,
  gelu: 5,
  gelu_tanh: 6,
  gelu_sigmoid: 7,
});

/** Every activation name, in the order error messages list them (web/ffn.js exports it as `activations`). */
export const ACTIVATIONS = Object.freeze(['relu', 'relu2', 'sigmoid', 'silu', 'gelu', 'gelu_tanh', 'gelu_sigmoid', 'identity']);

/** The C code of an activation name; a TypeError (not a string) or RangeError (unknown name) naming fnName and argName. */
export function actCode(fnName, name, argName = 'activation') {
  if (typeof name !== 'string') {
    throw new TypeError(`${fnName}: ${argName} must be one of ${ACTIVATIONS.map((a) => `'${a}'`).join(', ')}; got ${describe(name)}`);
  }
  if (!Object.prototype.hasOwnProperty.call(ACT_CODES, name)) {
    throw new RangeError(`${fnName}: unknown ${argName} '${name}'; expected one of ${ACTIVATIONS.map((a) => `'${a}'`).join(', ')}`);
  }
  return ACT_CODES[name];
}

/** src/ffn.h's status for a kernel whose own scratch allocation failed (0 is FFN_OK, -1 FFN_EINVAL). */
const FFN_ENOMEM = -2;

/** `what` may be a string or a function returning one (built only when a message needs it). */
function whatText(what) {
  return typeof what === 'function' ? what() : what;
}

/**
 * The error for a non-zero kernel status: FFN_ENOMEM (a kernel's own scratch allocation failed) is a
 * RangeError saying wasm memory ran out; anything else is an Error with the status.
 */
export function statusError(fnName, status, what, heapBytes) {
  if (status === FFN_ENOMEM) {
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
      `${fnName}: ${whatText(what)} needs ${fmtBytes(bytes)} of wasm memory, more than wasm memory can ever hold (${fmtBytes(r.maxBytes)})`,
    );
  }
  const p = r.exports.malloc(bytes) >>> 0;
  if (p === 0) {
    throw new RangeError(
      `${fnName}: out of wasm memory: ${whatText(what)} needs ${fmtBytes(bytes)} (heap is ${fmtBytes(r.memory.buffer.byteLength)})`,
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
  if (!(out instanceof Float32Array)) throw new TypeError(`${fnName}: opts.out must be a Float32Array; got ${describe(out)}`);
  // a view of the heap: it can overlap the call's scratch or other data, and memory growth detaches it
  if (out.buffer === r.memory.buffer) {
    throw new RangeError(`${fnName}: opts.out is a view of ffn-lab's own wasm memory (a Float32Array of length ${out.length}), which holds the call's scratch and data and which growth detaches; pass an ordinary Float32Array`);
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
      throw new RangeError(`${fnName}: cannot allocate the ${fmtBytes(4 * n)} result for ${whatText(what)} (${e.message})`, { cause: e });
    }
  } else if (n > 0 && overlapsShifted(out, src)) {
    try {
      src = src.slice();
    } catch (e) {
      throw new RangeError(`${fnName}: cannot allocate a ${fmtBytes(4 * n)} copy of ${whatText(what)}, which overlaps opts.out (${e.message})`, { cause: e });
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
      if (mem.buffer !== buf) (buf = mem.buffer), (heap = new Float32Array(buf, base, m));
      out.set(heap, i);
    }
    return out;
  } finally {
    ex.free(base);
  }
}

/** True when typed arrays a and b view the same buffer, their byte ranges intersect and they start at different bytes. */
function overlapsShifted(a, b) {
  if (a.buffer !== b.buffer || a.byteOffset === b.byteOffset) return false;
  return a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength;
}

/* ------------------------------------------------------------------ */
/* tensors                                                             */
/* ------------------------------------------------------------------ */

export function fmtShape(shape) {
  return `[${shape.join(',')}]`;
}

export function describe(v) {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (Array.isArray(v)) return `an array of length ${v.length}`;
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name} of length ${v.length}`;
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '...' : v)}`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `${typeof v} ${String(v)}`;
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'symbol') return 'a symbol';
  return v.constructor && v.constructor.name ? `an object (${v.constructor.name})` : 'an object';
}

function product(shape) {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

/** Validate a shape: an array of non-negative integers. */
function checkShape(fnName, argName, shape) {
  if (!Array.isArray(shape)) {
    throw new TypeError(`${fnName}: ${argName} shape must be an array of sizes; got ${describe(shape)}`);
  }
  for (let i = 0; i < shape.length; i++) {
    const s = shape[i];
    if (typeof s !== 'number') {
      throw new TypeError(`${fnName}: ${argName} shape ${JSON.stringify(shape)} has a non-numeric size at position ${i} (got ${describe(s)})`);
    }
    if (!Number.isInteger(s) || s < 0) {
      throw new RangeError(
        `${fnName}: ${argName} shape ${fmtShape(shape)} has an invalid size ${s} at position ${i} (sizes must be non-negative integers)`,
      );
    }
  }
  return shape.slice();
}

/** Require a 2-D weight with given first and second sizes (null = free); why() builds the message only on error. */
export function matrix(fnName, argName, t, first, second, why) {
  const ok = t.shape.length === 2 && (first == null || t.shape[0] === first) && (second == null || t.shape[1] === second);
  if (!ok) {
    const exp = `[${first == null ? '?' : first},${second == null ? '?' : second}]`;
    throw new RangeError(`${fnName}: ${argName} has shape ${fmtShape(t.shape)} but ${why ? why() : `expected ${exp}`}`);
  }
}

/** Require a 1-D tensor of n elements; why (a string) is added in parentheses. */
export function vector(fnName, argName, t, n, why) {
  if (t.shape.length !== 1 || t.shape[0] !== n) {
    throw new RangeError(`${fnName}: ${argName} has shape ${fmtShape(t.shape)} but expected [${n}]${why ? ` (${why})` : ''}`);
  }
}

function isNumericTyped(v) {
  return ArrayBuffer.isView(v) && !(v instanceof DataView) && !(typeof BigInt64Array !== 'undefined' && (v instanceof BigInt64Array || v instanceof BigUint64Array));
}

function isArrayLike(v) {
  return Array.isArray(v) || isNumericTyped(v);
}

function flatNumbers(fnName, argName, arr, out, offset) {
  // arr is an Array or typed array of numbers; writes into out from offset.
  if (arr instanceof Float32Array || (isNumericTyped(arr))) {
    out.set(arr, offset);
    return;
  }
  for (let i = 0; i < arr.length; i++) {
    const v = arr[i];
    if (typeof v !== 'number') {
      throw new TypeError(`${fnName}: ${argName} entry ${i} is not a number (got ${describe(v)})`);
    }
    out[offset + i] = v;
  }
}

/** Infer the shape of a nested rectangular array and flatten it; ragged -> TypeError naming where. */
const MAX_DIMS = 32;

function parseNested(fnName, argName, x) {
  const shape = [];
  let cur = x;
  while (Array.isArray(cur) || (shape.length > 0 && isNumericTyped(cur))) {
    if (shape.length >= MAX_DIMS) {
      throw new TypeError(`${fnName}: ${argName} is nested more than ${MAX_DIMS} levels deep (or contains itself)`);
    }
    shape.push(cur.length);
    if (cur.length === 0 || isNumericTyped(cur)) break;
    cur = cur[0];
  }
  const depth = shape.length;
  const data = new Float32Array(product(shape));
  let pos = 0;
  const walk = (node, level, path) => {
    if (!isArrayLike(node)) {
      throw new TypeError(
        `${fnName}: ${argName} is ragged: ${argName}${path} is ${describe(node)} but an array of length ${shape[level]} was expected (shape ${fmtShape(shape)})`,
      );
    }
    if (node.length !== shape[level]) {
      throw new TypeError(
        `${fnName}: ${argName} is ragged: ${argName}${path} has length ${node.length} but ${argName}${'[0]'.repeat(level)} has length ${shape[level]}`,
      );
    }
    if (level === depth - 1) {
      if (isNumericTyped(node)) {
        data.set(node, pos);
        pos += node.length;
        return;
      }
      for (let i = 0; i < node.length; i++) {
        const v = node[i];
        if (typeof v !== 'number') {
          if (isArrayLike(v)) {
            throw new TypeError(
              `${fnName}: ${argName} is ragged: ${argName}${path}[${i}] is an array but ${argName}${'[0]'.repeat(level + 1)} is a number`,
            );
          }
          throw new TypeError(`${fnName}: ${argName}${path}[${i}] is not a number (got ${describe(v)})`);
        }
        data[pos++] = v;
      }
      return;
    }
    for (let i = 0; i < node.length; i++) walk(node[i], level + 1, `${path}[${i}]`);
  };
  walk(x, 0, '');
  return { data, shape };
}

/**
 * Parse any accepted array argument into { data: Float32Array, shape: number[] }.
 * data may share memory with the caller's Float32Array (it is only read).
 */
export function parseTensor(fnName, argName, x) {
  if (x == null) {
    throw new TypeError(`${fnName}: ${argName} is ${x === null ? 'null' : 'missing'}; expected a tensor {data, shape}, a nested number array or a typed array`);
  }
  if (isNumericTyped(x)) {
    return { data: x instanceof Float32Array ? x : Float32Array.from(x), shape: [x.length] };
  }
  if (Array.isArray(x)) return parseNested(fnName, argName, x);
  if (typeof x === 'object' && 'data' in x && 'shape' in x) {
    const shape = checkShape(fnName, argName, x.shape);
    const n = product(shape);
    const d = x.data;
    let data;
    if (d instanceof Float32Array) data = d;
    else if (isNumericTyped(d)) data = Float32Array.from(d);
    else if (Array.isArray(d)) {
      if (d.length > 0 && Array.isArray(d[0])) {
        const t = parseNested(fnName, argName, d);
        data = t.data;
      } else {
        data = new Float32Array(d.length);
        flatNumbers(fnName, argName, d, data, 0);
      }
    } else {
      throw new TypeError(`${fnName}: ${argName}.data must be a typed array or a number array; got ${describe(d)}`);
    }
    if (data.length !== n) {
      throw new RangeError(
        `${fnName}: ${argName} has shape ${fmtShape(shape)} (${n} elements) but its data has ${data.length} elements`,
      );
    }
    return { data, shape };
  }
  throw new TypeError(
    `${fnName}: ${argName} must be a tensor {data, shape}, a nested number array or a typed array; got ${describe(x)}`,
  );
}

/** Build a fresh tensor (the public ffn.tensor). */
export function makeTensor(data, shape) {
  const fresh = (t) => (t.data === data || (data && t.data === data.data) ? Float32Array.from(t.data) : t.data);
  if (shape === undefined) {
    const t = parseTensor('tensor', 'data', data);
    return { data: fresh(t), shape: t.shape };
  }
  const sh = checkShape('tensor', 'shape', shape);
  const t = parseTensor('tensor', 'data', data);
  const n = product(sh);
  if (t.data.length !== n) {
    throw new RangeError(
      `tensor: shape ${fmtShape(sh)} needs ${n} elements but data ${t.shape.length > 1 ? `has shape ${fmtShape(t.shape)} (${t.data.length} elements)` : `has ${t.data.length} elements`}`,
    );
  }
  return { data: fresh(t), shape: sh };
}

