// Replays fuzz inputs through fuzz_kernels.c inside the relaxed-SIMD build (linked as a reactor by run.sh), the code
// path browsers with relaxed SIMD run.
//   node --experimental-wasm-relaxed-simd relaxed_driver.mjs MODULE.wasm CORPUS_B64 COUNT SEED
// As wasm_driver.c: every input of CORPUS_B64 (one base64 input per line, '#' comments), then COUNT random
// inputs (1..256 bytes) from SEED. A failed check traps (abort); the input is then printed in base64 and the
// process exits 1. The last line printed is a summary.
import { readFileSync } from 'node:fs';

const [file, corpusFile, countArg, seedArg] = process.argv.slice(2);
if (!seedArg) {
  console.error('usage: relaxed_driver.mjs MODULE.wasm CORPUS_B64 COUNT SEED');
  process.exit(2);
}
let memory = null;
const text = (fd, s) => (fd === 1 ? process.stdout : process.stderr).write(s);
// the four WASI calls Emscripten's standalone libc makes here: stdio writes, close, seek, exit
const wasi = {
  fd_write(fd, iovs, iovsLen, nwritten) {
    const v = new DataView(memory.buffer);
    let n = 0;
    for (let i = 0; i < iovsLen; i++) {
      const p = v.getUint32(iovs + 8 * i, true),
        len = v.getUint32(iovs + 8 * i + 4, true);
      text(fd, Buffer.from(memory.buffer, p, len).toString('utf8'));
      n += len;
    }
    v.setUint32(nwritten, n, true);
    return 0;
  },
  fd_close: () => 0,
  fd_seek: () => 70, // ESPIPE: stdio streams do not seek
  proc_exit(code) {
    throw new Error(`proc_exit(${code})`);
  },
};
const { instance } = await WebAssembly.instantiate(readFileSync(file), {
  env: { emscripten_notify_memory_growth() {} },
  wasi_snapshot_preview1: wasi,
});
const ex = instance.exports;
memory = ex.memory;
ex._initialize();
if (ex.ffn_simd_level() !== 2)
  throw new Error(`${file} is not the relaxed-SIMD build (ffn_simd_level ${ex.ffn_simd_level()})`);

function runOne(bytes) {
  const p = ex.malloc(Math.max(1, bytes.length)) >>> 0;
  new Uint8Array(memory.buffer, p, bytes.length).set(bytes);
  try {
    ex.LLVMFuzzerTestOneInput(p, bytes.length);
  } catch (e) {
    console.error(`relaxed_driver: failing input (base64): ${Buffer.from(bytes).toString('base64')}`);
    console.error(`relaxed_driver: ${e.message}`);
    process.exit(1);
  }
  ex.free(p);
}

let corpus = 0;
for (const line of readFileSync(corpusFile, 'utf8').split('\n')) {
  if (!line || line.startsWith('#')) continue;
  runOne(Buffer.from(line, 'base64'));
  corpus++;
}
const count = Number(countArg);
let x = (BigInt(seedArg) * 0x9e3779b97f4a7c15n + 1n) & 0xffffffffffffffffn;
const next = () => {
  x ^= (x << 13n) & 0xffffffffffffffffn;
  x ^= x >> 7n;
  x ^= (x << 17n) & 0xffffffffffffffffn;
  return x;
};
for (let i = 0; i < count; i++) {
  const n = 1 + Number(next() % 256n);
  const buf = new Uint8Array(n);
  for (let j = 0; j < n; j++) buf[j] = Number((next() >> 24n) & 0xffn);
  runOne(buf);
}
console.log(
  `wasm relaxed-SIMD replay: ${corpus} corpus inputs and ${count} random inputs through the relaxed-SIMD kernels, ` +
    'no finding',
);
