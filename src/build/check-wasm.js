// build.sh: checks a built module: its only import is env.emscripten_notify_memory_growth, it exports the whole API,
// and malloc returns 0 (not a trap) for a request that cannot be met. Usage: node build/check-wasm.js FILE EXPORTS.
import { readFileSync } from 'node:fs';
const [file, exportList] = process.argv.slice(2);
const mod = new WebAssembly.Module(readFileSync(file));
const imports = WebAssembly.Module.imports(mod);
console.log(`build.sh: ${file.split('/').pop()} imports:`, JSON.stringify(imports));
const allowed = imports.every((i) => i.module === 'env' && i.name === 'emscripten_notify_memory_growth');
if (!allowed) {
  console.error('build.sh: unexpected import(s); only env.emscripten_notify_memory_growth is allowed');
  process.exit(1);
}
const have = new Set(WebAssembly.Module.exports(mod).map((e) => e.name));
const missing = [...exportList.split(',').map((s) => s.slice(1)), '_initialize', 'memory'].filter((n) => !have.has(n));
if (missing.length) {
  console.error('build.sh: missing exports:', missing.join(', '));
  process.exit(1);
}
let grew = 0;
const inst = new WebAssembly.Instance(mod, {
  env: {
    emscripten_notify_memory_growth: () => {
      grew++;
    },
  },
});
const e = inst.exports;
e._initialize();
const p = e.malloc(16);
const huge = e.malloc(0xf0000000); // 3.75 GiB > the 2 GiB limit
if (p === 0 || huge !== 0) {
  console.error(`build.sh: malloc check failed (small ${p}, huge ${huge})`);
  process.exit(1);
}
e.free(p);
console.log(`build.sh: exports ok; malloc(3.75 GiB) returned 0, module still usable; SIMD level ${e.ffn_simd_level()}`);
