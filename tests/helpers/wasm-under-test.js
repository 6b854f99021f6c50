// Which build the raw-export tests load: ffn.wasm, or ffn-relaxed.wasm when tests/relaxed.test.js runs them (FFN_LAB_TEST_WASM=relaxed).
export const RELAXED = process.env.FFN_LAB_TEST_WASM === 'relaxed';

/** The package's own module, found through its exports map ("./ffn.wasm", "./ffn-relaxed.wasm"). */
export const wasmUrl = new URL(import.meta.resolve(RELAXED ? 'ffn-lab/ffn-relaxed.wasm' : 'ffn-lab/ffn.wasm'));
