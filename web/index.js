// ffn-lab default entry: the public API of ./ffn.js, with ready() loading wasm bytes inlined in ./ffn-wasm-inline.js
// (or ./ffn-relaxed-wasm-inline.js).
import { ready as loadRuntime } from './runtime.js';
import { inlinedWasm } from './inline-wasm.js';

export * from './ffn.js';

/**
 * Load the wasm module once (memoized). Without opts.wasm the inlined bytes are used, so this entry needs
 * no bundler configuration and no server route for the .wasm files; only the build this engine runs is
 * imported (the relaxed-SIMD one where it can, see opts.relaxed).
 */
export function ready(opts) {
  return loadRuntime(opts, inlinedWasm);
}
