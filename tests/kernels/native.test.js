// Builds the C kernels natively with ASan/UBSan (the portable SIMD path of src/simd.h) and runs the drivers
// tests/native/test_kernels.c and test_gemm.c.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { onPath } from '../helpers/tools.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const buildDir = path.join(root, 'tests/native/build');
// every kernel source (swiglu_backward runs on the packed GEMM of gemm.c)
const sources = readdirSync(path.join(root, 'src'))
  .filter((f) => f.endsWith('.c'))
  .map((f) => path.join(root, 'src', f));

// the default compiler, plus clang when it is a different one (its vector extensions differ slightly)
const compilers = ['cc', 'gcc', 'clang'].filter(onPath);
const chosen = compilers.length
  ? [...new Set([compilers[0], compilers.includes('clang') ? 'clang' : compilers[0]])]
  : [];

const sanitize = ['-fsanitize=address,undefined', '-fno-sanitize-recover=all'];
const flags = ['-std=c11', '-O1', '-g', '-Wall', '-Wextra', '-Werror', `-I${path.join(root, 'src')}`];

if (chosen.length === 0) {
  test('native kernels under ASan/UBSan', { skip: 'no C compiler (cc, gcc or clang) on PATH' }, () => {});
}

// each driver is linked with the same sanitized objects of src/ (compiled once per compiler)
const drivers = ['test_kernels', 'test_gemm'];

for (const cc of chosen) {
  test(`native kernels vs references under ASan/UBSan (${cc})`, () => {
    const objDir = path.join(buildDir, `obj_${cc}`);
    mkdirSync(objDir, { recursive: true });
    const objs = sources.map((src) => {
      const obj = path.join(objDir, `${path.basename(src, '.c')}.o`);
      execFileSync(cc, [...flags, ...sanitize, '-c', src, '-o', obj], { stdio: ['ignore', 'pipe', 'pipe'] });
      return obj;
    });
    for (const drv of drivers) {
      const exe = path.join(buildDir, `${drv}_${cc}`);
      execFileSync(cc, [...flags, ...sanitize, ...objs, path.join(root, `tests/native/${drv}.c`), '-lm', '-o', exe], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const run = spawnSync(exe, [], {
        encoding: 'utf8',
        env: { ...process.env, ASAN_OPTIONS: 'detect_leaks=1', UBSAN_OPTIONS: 'print_stacktrace=1' },
      });
      const out = `${run.stdout}\n${run.stderr}`;
      assert.equal(run.status, 0, `${drv} (${cc}) failed:\n${out.slice(-4000)}`);
      assert.match(run.stdout, /\d+ checks, 0 failures/, `${drv} (${cc})`);
    }
  });
}
