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

const kernelsReady = ready(undefined, kernels).catch(() => {}); // an element that cannot load them says so itself

// Elements far down a page, whose code the page does not need to show what is above them: each defined (its module
// imported, the same file a page would load with a script) when one comes within two screens of the viewport, or once
// the page's other elements are ready and the browser is idle, whichever comes first.
const LATER = { 'ffn-memory-lab': () => import('./components/memory-lab/index.js') };

// every ffn-ready from the start: an element may be ready before the document is parsed
const readyOnes = new WeakSet();
document.addEventListener('ffn-ready', (e) => readyOnes.add(e.target), true);

/** Resolves once every ffn-* element of the page not in LATER has fired ffn-ready (at most 15 s after the call). */
function othersReady() {
  const waiting = [...document.querySelectorAll('*')].filter(
    (el) => el.localName.startsWith('ffn-') && !(el.localName in LATER) && !readyOnes.has(el),
  );
  return new Promise((resolve) => {
    const left = new Set(waiting);
    const check = (e) => {
      left.delete(e?.target);
      if (left.size) return;
      document.removeEventListener('ffn-ready', check, true);
      resolve();
    };
    document.addEventListener('ffn-ready', check, true);
    check();
    setTimeout(resolve, 15000); // an element that cannot get ready does not hold the rest back for ever
  });
}

/** Import the module of each element kind of LATER found in the page, near the viewport or at idle. */
function defineLater() {
  const kinds = Object.keys(LATER).filter((k) => !customElements.get(k) && document.querySelector(k));
  if (!kinds.length) return;
  const once = new Map(kinds.map((k) => [k, () => once.delete(k) && LATER[k]().catch(() => {})]));
  const near =
    typeof IntersectionObserver === 'function' &&
    new IntersectionObserver(
      (entries) => entries.filter((e) => e.isIntersecting).forEach((e) => once.get(e.target.localName)?.()),
      { rootMargin: '200% 0px' },
    );
  if (near) kinds.forEach((k) => document.querySelectorAll(k).forEach((el) => near.observe(el)));
  const all = () => {
    for (const f of [...once.values()]) f();
    if (near) near.disconnect();
  };
  Promise.all([othersReady(), kernelsReady]).then(() => {
    if (typeof requestIdleCallback === 'function') requestIdleCallback(all, { timeout: 3000 });
    else setTimeout(all, 200);
  });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', defineLater, { once: true });
else defineLater();
