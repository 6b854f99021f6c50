// ffn-lab runtime: the one memoized wasm loader (ready) and the instance record every entry point shares (wasm).
import { GEMM_KERNELS } from './codes.js';
import { describe } from './args.js';

/**
 * Upper bound of wasm memory when the module does not declare one we can read (Emscripten's default MAXIMUM_MEMORY, 2
 * GiB).
 */
const DEFAULT_MAX_WASM_BYTES = 2 ** 31;

// The only module-level state: the memoized loading promise and, once resolved, the instance record.
let loading = null;
let inst = null;

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
      throw new Error(`ffn-lab: could not load the wasm module from ${url.href} (${e.code || e.message})`, {
        cause: e,
      });
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
      `ready: opts.wasm must be a URL, a string, bytes (ArrayBuffer or typed array) or a WebAssembly.Module; got ` +
        `${describe(src)}`,
    );
  }
  return { module: null, bytes: await fetchBytes(url) };
}

/** Read the maximum of the module's own memory from its binary (memory section, id 5), or null. */
function declaredMaxBytes(bytes) {
  try {
    if (!bytes || bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d)
      return null;
    let p = 8;
    const leb = () => {
      let result = 0,
        shift = 0,
        b;
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
    exports: null,
    memory: null,
    maxBytes: DEFAULT_MAX_WASM_BYTES,
    growths: 0,
    simd: 'simd128',
    gemmKernel: 'splat',
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
    const hint =
      e instanceof WebAssembly.CompileError
        ? ' (this engine may lack 128-bit wasm SIMD, or relaxed SIMD for ffn-relaxed.wasm)'
        : '';
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
    const kernel = gemmKernelFor(record.simd);
    record.gemmKernel = GEMM_KERNELS[ex.gemm_select_kernel(GEMM_KERNELS.indexOf(kernel))];
  }
  const declared = declaredMaxBytes(bytes);
  if (declared != null) record.maxBytes = declared;
  return record;
}

/**
 * The GEMM microkernel for this engine and build (simd: 'simd128' or 'relaxed'), by rule, no timing: 'prebroadcast'
 * in JavaScriptCore, and in V8 before 12 (Node 20 and older, which report process.versions.v8) on ffn.wasm;
 * 'splat' everywhere else. Measured (tests/bench/README.md, the two GEMM microkernels): prebroadcast 1.18-1.20x
 * faster in JavaScriptCore and about 1.1x in Node 20's V8 11.3 on ffn.wasm; splat as fast or faster in SpiderMonkey
 * 102, in Chromium 156 (either build) and in Node 20 on ffn-relaxed.wasm. A timing probe at load would time V8's
 * baseline (Liftoff) code, not the optimized code a GEMM runs later, and could flip between loads.
 */
export function gemmKernelFor(simd) {
  if (isJavaScriptCore()) return 'prebroadcast';
  const v8 = typeof process !== 'undefined' && process.versions != null ? process.versions.v8 : undefined;
  return simd === 'simd128' && typeof v8 === 'string' && parseInt(v8, 10) < 12 ? 'prebroadcast' : 'splat';
}

/**
 * True in JavaScriptCore (Safari, every browser on iOS, Bun), whose Error objects carry own `line` and `column`
 * numbers (V8's and SpiderMonkey's do not). Its wasm compiler turns the GEMM's v128.load32_splat at an address
 * offset into a scalar load, a move and a shuffle, so gemmKernelFor selects the pre-broadcast microkernel there.
 * No timing: about a microsecond.
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
// prettier-ignore
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
  if (opts != null && typeof opts !== 'object')
    throw new TypeError(`ready: opts must be an object; got ${describe(opts)}`);
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
        throw new Error(
          `ready: opts.relaxed is ${relaxedOpt} but an earlier ready() already loaded ${loaded}; pass the same ` +
            `choice to the first ready() call`,
        );
      }
    });
  }
  const wasm = opts && opts.wasm != null ? opts.wasm : null;
  if (wasm != null && relaxedOpt !== 'auto') {
    throw new TypeError(
      'ready: pass either opts.wasm (that module is used as given) or opts.relaxed (which build to load), not both',
    );
  }
  let relaxed = false;
  if (wasm == null && relaxedOpt !== false) {
    relaxed = relaxedSimdSupported();
    if (relaxedOpt === true && !relaxed) {
      return Promise.reject(
        new Error(
          'ready: opts.relaxed is true but this engine does not run relaxed SIMD (Node 20 needs ' +
            "--experimental-wasm-relaxed-simd); use relaxed: 'auto' or false",
        ),
      );
    }
  }
  const built = async (r) => load(await (fallback ? fallback(r) : defaultUrl(r)));
  const p = (async () => {
    if (wasm != null) inst = await load(wasm);
    else if (relaxed && relaxedOpt === 'auto') {
      inst = await built(true).catch((e) => {
        // a host that serves only ffn.wasm (or an engine that validates but cannot compile it) still works
        if (typeof console !== 'undefined')
          console.warn(`ffn-lab: could not load the relaxed-SIMD build, using ffn.wasm instead (${e.message})`);
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
