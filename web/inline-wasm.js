// The wasm builds inlined in JavaScript as base64 (build.sh writes ffn-wasm-inline.js, ffn-relaxed-wasm-inline.js).
import { base64ToBytes } from './runtime.js';

/** The bytes of the build `relaxed` names, from its inlined copy: only that copy is imported. */
export async function inlinedWasm(relaxed) {
  const inline = relaxed ? await import('./ffn-relaxed-wasm-inline.js') : await import('./ffn-wasm-inline.js');
  return base64ToBytes(inline.default);
}
