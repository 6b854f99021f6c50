// How a child Node runs relaxed SIMD: no flag from Node 21 on (where the flag is gone),
// --experimental-wasm-relaxed-simd on Node 20.
import { spawnSync } from 'node:child_process';

// runtime.js's own feature test, run in a child with the given node flags
const runtime = JSON.stringify(new URL('../../web/runtime.js', import.meta.url).href);
const probe = `import { relaxedSimdSupported } from ${runtime}; process.exit(relaxedSimdSupported() ? 0 : 1)`;
const runs = (args) =>
  spawnSync(process.execPath, [...args, '--input-type=module', '-e', probe], { stdio: 'ignore' }).status === 0;

/** True when this Node runs relaxed SIMD without a flag (then ready() loads ffn-relaxed.wasm by default). */
export const relaxedByDefault = runs([]);

/** The node flags under which a child runs relaxed SIMD, or null where no flag makes it. */
const FLAG = '--experimental-wasm-relaxed-simd';
export const relaxedNodeArgs = relaxedByDefault ? [] : runs([FLAG]) ? [FLAG] : null;
