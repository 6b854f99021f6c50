// Runs the battery (./battery.mjs) in a non-Node JavaScript engine (jsc, gjs) and prints one JSON line for tests/engines.test.js.
const print = typeof globalThis.print === 'function' ? globalThis.print : (s) => console.log(s);
try {
  // gjs (SpiderMonkey) embeds no atob and no async WebAssembly API: shims for this harness only (Firefox has both)
  if (typeof atob !== 'function') {
    const GLib = (await import('gi://GLib')).default;
    globalThis.atob = (s) => Array.from(GLib.base64_decode(s), (c) => String.fromCharCode(c)).join('');
  }
  try {
    await WebAssembly.instantiate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
  } catch {
    const Wasm = WebAssembly;
    Wasm.instantiate = async (src, imports) => {
      if (src instanceof Wasm.Module) return new Wasm.Instance(src, imports);
      const module = new Wasm.Module(src);
      return { module, instance: new Wasm.Instance(module, imports) };
    };
  }
  const ffn = await import('../../web/index.js');
  const { relaxedSimdSupported } = await import('../../web/runtime.js');
  const relaxed = relaxedSimdSupported();
  await ffn.ready({ relaxed: false }); // the same bits in every engine (relaxed SIMD may fuse the GEMM's multiply-adds)
  const { battery } = await import('./battery.mjs');
  print('ENGINE-RESULT ' + JSON.stringify({ relaxed, build: ffn.wasmInfo().simd, results: battery(ffn) }));
} catch (e) {
  print('ENGINE-ERROR ' + String(e && e.stack ? `${e.message}\n${e.stack}` : e));
}
