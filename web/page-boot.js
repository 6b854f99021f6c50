// The first module of ffn-lab's own pages (web/index.html, web/embed/*.html): starts loading and compiling the kernels.
// In web/dist/ (build.sh) this file holds runtime.js, and the elements' bundles import the runtime from it: one
// runtime, one load, started as soon as this small module has run, while the elements' own code is on its way.
import { ready } from './runtime.js';
import { inlinedWasm } from './inline-wasm.js';

export * from './runtime.js';

const isWasm = (b) => b.length >= 4 && b[0] === 0 && b[1] === 0x61 && b[2] === 0x73 && b[3] === 0x6d;

/**
 * The build `relaxed` names, as runtime.js's ready() takes it: a WebAssembly.Module compiled while it downloads
 * where the server sends application/wasm, else its bytes; the copy inlined in JavaScript only where the file
 * cannot be had (not served, or a server that answers with something else).
 */
async function kernels(relaxed) {
  const url = relaxed ? new URL('./ffn-relaxed.wasm', import.meta.url) : new URL('./ffn.wasm', import.meta.url);
  try {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const type = res.headers.get('content-type') || '';
    const streams = /^application\/wasm\b/i.test(type) && typeof WebAssembly.compileStreaming === 'function';
    if (streams) return await WebAssembly.compileStreaming(res);
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (isWasm(bytes)) return bytes;
  } catch (e) {
    if (e instanceof WebAssembly.CompileError) throw e; // the engine cannot run this build: ready() tries the other
  }
  return inlinedWasm(relaxed);
}

ready(undefined, kernels).catch(() => {}); // an element whose kernels cannot load says so itself, in its own words
