// ffn-relaxed.wasm in Node: the kernel and API test files run again in a Node with relaxed SIMD, where ready() picks that build and the raw-export tests load it (FFN_LAB_TEST_WASM=relaxed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// every test file that runs the GEMM or the activations, on the raw exports or through the API
const FILES = [
  'gemm.test.js',
  'kernels.test.js',
  'kernels-accuracy.test.js',
  'core-activations.test.js',
  'core-ffn.test.js',
  'core-out.test.js',
  'core-heap.test.js',
  'core-errors.test.js',
  'layers.test.js',
  'hardening-layers.test.js',
];

test('the kernel and API tests pass on ffn-relaxed.wasm (Node with --experimental-wasm-relaxed-simd)', async () => {
  const env = { ...process.env, FFN_LAB_TEST_WASM: 'relaxed' };
  delete env.NODE_TEST_CONTEXT; // a test runner of its own, not a child reporting to this one
  const args = ['--experimental-wasm-relaxed-simd', '--test', '--test-concurrency=1', '--test-reporter=tap', ...FILES.map((f) => `tests/${f}`)];
  const { code, stdout } = await new Promise((done) => {
    execFile(process.execPath, args, { cwd: ROOT, env, timeout: 300000, maxBuffer: 64 << 20 }, (err, out) => done({ code: err ? err.code : 0, stdout: out }));
  });
  const count = (k) => Number((stdout.match(new RegExp(`^# ${k} (\\d+)$`, 'm')) || [])[1]);
  const failed = stdout.split('\n').filter((l) => /^\s*not ok /.test(l));
  assert.deepEqual(failed, [], `failures on ffn-relaxed.wasm:\n${stdout.slice(-4000)}`);
  assert.equal(code, 0);
  assert.equal(count('fail'), 0);
  assert.ok(count('pass') >= 80, `only ${count('pass')} tests ran`);
});

test('in that Node, ready() loads ffn-relaxed.wasm, whose layer results agree with ffn.wasm within float32 rounding', async () => {
  const code = `
    import * as ffn from 'ffn-lab';
    await ffn.ready();
    const K = 300, r = (i) => Math.sin(i * 12.9898) * 0.5;
    const X = { data: Float32Array.from({ length: 8 * K }, (_, i) => r(i)), shape: [8, K] };
    const W = { data: Float32Array.from({ length: K * 200 }, (_, i) => r(i + 7)), shape: [K, 200] };
    console.log(JSON.stringify({ simd: ffn.wasmInfo().simd, y: Array.from(ffn.createLinear({ W }).forward(X).data) }));`;
  const run = (flags) => new Promise((done, fail) => {
    execFile(process.execPath, [...flags, '--input-type=module', '-e', code], { cwd: ROOT, timeout: 20000, maxBuffer: 16 << 20 }, (err, out, errOut) => (err ? fail(new Error(errOut)) : done(JSON.parse(out))));
  });
  const [plain, relaxed] = await Promise.all([run([]), run(['--experimental-wasm-relaxed-simd'])]);
  assert.equal(plain.simd, 'simd128');
  assert.equal(relaxed.simd, 'relaxed');
  assert.equal(relaxed.y.length, 8 * 200);
  // both are within float32 rounding of the same sums: K = 300 terms of magnitude at most 0.25
  const K = 300;
  for (let i = 0; i < plain.y.length; i++) {
    assert.ok(Math.abs(plain.y[i] - relaxed.y[i]) <= 2 * 2 * (K + 2) * 2 ** -24 * 0.25 * K, `[${i}] ${plain.y[i]} vs ${relaxed.y[i]}`);
  }
});
