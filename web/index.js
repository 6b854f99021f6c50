// ffn-lab default entry: the public API of ./ffn.js, with ready() loading wasm bytes inlined in ./ffn-wasm-inline.js
// (or ./ffn-relaxed-wasm-inline.js).
import { ready as loadRuntime, base64ToBytes } from './runtime.js';

export * from './ffn.js';

/**
 * Load the wasm module once (memoized). Without opts.wasm the inlined bytes are used, so this entry needs
 * no bundler configuration and no server route for the .wasm files; only the build this engine runs is
 * imported (the relaxed-SIMD one where it can, see opts.relaxed).
 */
export function ready(opts) {
  return loadRuntime(opts, async (relaxed) =>
    base64ToBytes(
      (relaxed ? await import('./ffn-relaxed-wasm-inline.js') : await import('./ffn-wasm-inline.js')).default,
    ),
  );
}
