// ffn-lab default entry: the public API of ./ffn.js, with ready() loading the wasm bytes inlined in ./ffn-wasm-inline.js.
import wasmBase64 from './ffn-wasm-inline.js';
import { ready as loadRuntime, base64ToBytes } from './runtime.js';

export * from './ffn.js';

/**
 * Load the wasm module once (memoized). Without opts.wasm the inlined bytes are used, so this entry needs
 * no bundler configuration and no server route for the .wasm file.
 */
export function ready(opts) {
  return loadRuntime(opts, () => base64ToBytes(wasmBase64));
}
