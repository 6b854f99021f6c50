// Short libFuzzer run (about 90 s with the builds) of tests/fuzz/fuzz_kernels.c over every ffn.h entry point, native
// ASan+UBSan, then replayed on the wasm SIMD and relaxed-SIMD builds; the long run is tests/fuzz/run.sh [seconds].
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { relaxedNodeArgs } from '../helpers/relaxed-node.js';
import { onPath } from '../helpers/tools.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
// 32 s of fuzzing: the training families made the builds and the wasm replays about 10 s longer
const FUZZ_SECONDS = Number(process.env.FFN_FUZZ_SECONDS || 32);
const fuzzRt = '/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a';

function missing() {
  const cc = onPath('clang-14');
  if (cc && readdirSync(path.dirname(fuzzRt)).includes(path.basename(fuzzRt))) return null;
  const why = 'clang-14 with libFuzzer is missing (apt-get install clang-14 libclang-rt-14-dev)';
  if (process.env.CI) throw new Error(`fuzzing required in CI but ${why}`);
  return why;
}

let skip;
try {
  skip = missing();
} catch (e) {
  skip = null;
  test('fuzz toolchain present', () => {
    throw e;
  });
}

test(
  `libFuzzer: every ffn.h entry point for ${FUZZ_SECONDS} s under ASan+UBSan, past findings replayed, corpus ` +
    `replayed on the wasm SIMD and relaxed-SIMD builds`,
  { skip: skip || false, timeout: (FUZZ_SECONDS + 240) * 1000 },
  () => {
    const out = mkdtempSync(path.join(tmpdir(), 'ffn-fuzz-'));
    let passed = false;
    try {
      const run = spawnSync('bash', [path.join(root, 'tests/fuzz/run.sh'), String(FUZZ_SECONDS)], {
        encoding: 'utf8',
        env: { ...process.env, FFN_FUZZ_OUT: out },
        maxBuffer: 16 * 2 ** 20,
      });
      const text = `${run.stdout}\n${run.stderr}`;
      assert.equal(
        run.status,
        0,
        `fuzzing found a problem (crash input kept in ${out}/artifacts):\n${text.slice(-6000)}`,
      );
      const m = /fuzz: .* (\d+) inputs, (\d+) coverage edges/.exec(run.stdout);
      assert.ok(m, `no summary line in:\n${text.slice(-2000)}`);
      // the harness must really have run: hundreds of inputs at least (917 in 40 s once, with three other test
      // suites on the same 2 cores) and coverage of all kernel families, which load does not change
      assert.ok(Number(m[1]) > 300, `only ${m[1]} inputs ran`);
      assert.ok(Number(m[2]) > 800, `only ${m[2]} coverage edges`);
      // every entry point of ffn.h called by the run (libFuzzer's list of covered functions, checked by run.sh)
      const api = readFileSync(path.join(root, 'src/ffn.h'), 'utf8').match(/^FFN_API /gm).length;
      assert.match(run.stdout, new RegExp(`fuzz: all ${api} entry points of ffn\\.h reached`), run.stdout);
      // and the same harness on the shipped wasm SIMD build (emcc is there whenever the package builds)
      if (onPath('emcc')) {
        const w = /wasm SIMD build: (\d+) corpus inputs and (\d+) random inputs, no finding/.exec(run.stdout);
        assert.ok(w && Number(w[1]) > 500 && Number(w[2]) >= 500, `no wasm replay summary in:\n${run.stdout}`);
      }
      // and on the relaxed-SIMD build (clang-16 and wasm-ld-16 are there whenever the package builds)
      if (onPath('clang-16') && onPath('wasm-ld-16') && relaxedNodeArgs) {
        const w = /relaxed-SIMD build: (\d+) corpus inputs and (\d+) random inputs, no finding/.exec(run.stdout);
        assert.ok(w && Number(w[1]) > 500 && Number(w[2]) >= 500, `no relaxed-SIMD replay summary in:\n${run.stdout}`);
      }
      passed = true;
    } finally {
      if (passed) rmSync(out, { recursive: true, force: true }); // a failing run keeps its artifacts
    }
  },
);
