// What a harness needs alike in jsc, gjs and node: print, the command line, file bytes; in gjs also atob and more.

/**
 * Fills what gjs embeds without (atob, performance.now, WebAssembly.instantiate: Firefox has all three) and
 * returns { print, args, readBytes(path) -> Uint8Array } for the engine this runs in.
 */
export async function engineShims() {
  const print = typeof globalThis.print === 'function' ? globalThis.print : (s) => console.log(s);
  const gjs = Array.isArray(globalThis.ARGV); // gjs's command line (neither jsc nor node has it)
  const GLib = gjs ? (await import('gi://GLib')).default : null;
  if (typeof atob !== 'function') {
    globalThis.atob = (s) => Array.from(GLib.base64_decode(s), (c) => String.fromCharCode(c)).join('');
  }
  if (typeof performance === 'undefined' || typeof performance.now !== 'function') {
    const t0 = GLib.get_monotonic_time();
    globalThis.performance = { now: () => (GLib.get_monotonic_time() - t0) / 1e3 };
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
  if (typeof process !== 'undefined' && process.versions?.node) {
    const { readFileSync } = await import('node:fs');
    return { print, args: process.argv.slice(2), readBytes: (p) => new Uint8Array(readFileSync(p)) };
  }
  if (gjs) return { print, args: [...globalThis.ARGV], readBytes: (p) => GLib.file_get_contents(p)[1] };
  // jsc: readFile(path, 'binary') and the arguments after `--`
  const readBytes = (p) => new Uint8Array(globalThis.readFile(p, 'binary'));
  return { print, args: [...(globalThis.arguments ?? [])], readBytes };
}
