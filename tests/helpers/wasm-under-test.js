// The raw-export harness: which build the tests load (ffn.wasm, or ffn-relaxed.wasm when tests/kernels/relaxed.test.js
// runs them with FFN_LAB_TEST_WASM=relaxed), a fresh instance of it, heap helpers over its exports, the activation
// codes.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

export const RELAXED = process.env.FFN_LAB_TEST_WASM === 'relaxed';

/** The package's own module, found through its exports map ("./ffn.wasm", "./ffn-relaxed.wasm"). */
export const wasmUrl = new URL(import.meta.resolve(RELAXED ? 'ffn-lab/ffn-relaxed.wasm' : 'ffn-lab/ffn.wasm'));

/** The activations by their code in src/ffn.h (index = code), as the raw exports take them. */
export const ACTIVATIONS = ['identity', 'relu', 'relu2', 'sigmoid', 'silu', 'gelu', 'gelu_tanh', 'gelu_sigmoid'];

/**
 * A fresh, initialized instance of the build under test (or of the .wasm at url), loaded as our own loader does
 * (its one import, emscripten_notify_memory_growth, counted): { module, exports, growths() }.
 */
export async function instantiateRaw(url = wasmUrl) {
  const module = await WebAssembly.compile(await readFile(url));
  let growths = 0;
  const env = {
    emscripten_notify_memory_growth: () => {
      growths++;
    },
  };
  const instance = await WebAssembly.instantiate(module, { env });
  instance.exports._initialize();
  return { module, exports: instance.exports, growths: () => growths };
}

/**
 * Float32 blocks on a raw instance's heap (views made anew on every access: memory may grow). alloc(n) takes
 * max(minBytes, 4 n + padBytes) bytes; free() frees every block allocated so far; held() counts those not freed.
 */
export function rawHeap(ex, { minBytes = 4, padBytes = 0 } = {}) {
  const ptrs = [];
  const heap = {
    alloc(n) {
      const p = ex.malloc(Math.max(minBytes, 4 * n + padBytes));
      assert.notEqual(p, 0, 'malloc failed');
      ptrs.push(p);
      return p;
    },
    f32: (p, n) => new Float32Array(ex.memory.buffer, p, n),
    i32: (p, n) => new Int32Array(ex.memory.buffer, p, n),
    put(data) {
      const p = heap.alloc(data.length);
      heap.f32(p, data.length).set(data);
      return p;
    },
    get: (p, n) => heap.f32(p, n).slice(),
    free() {
      while (ptrs.length) ex.free(ptrs.pop());
    },
    held: () => ptrs.length,
  };
  return heap;
}
