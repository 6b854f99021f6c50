// ffn-relaxed.wasm in Node: the kernel and API test files run again in a Node with relaxed SIMD, where ready() picks
// that build and the raw-export tests load it (FFN_LAB_TEST_WASM=relaxed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { fma32, rng } from '../helpers/numeric.js';
import { relaxedNodeArgs } from '../helpers/relaxed-node.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// the test files that run the kernels on the raw exports or through the API in Node (the browser tests
// load ffn-relaxed.wasm anyway: Chromium runs relaxed SIMD)
const skip = relaxedNodeArgs ? false : 'this Node cannot run relaxed SIMD';
const FILES = [
  'kernels/gemm.test.js',
  'kernels/kernels.test.js',
  'kernels/train.test.js',
  'kernels/accuracy.test.js',
  'core/activations.test.js',
  'core/ffn.test.js',
  'core/out.test.js',
  'core/heap.test.js',
  'core/errors.test.js',
  'core/layers.test.js',
  'hardening/layers.test.js',
  'hardening/api.test.js',
  'core/enomem.test.js',
  'sandbox/sandbox.test.js',
];

test('the kernel and API tests pass on ffn-relaxed.wasm (in a Node running relaxed SIMD)', { skip }, async () => {
  const env = { ...process.env, FFN_LAB_TEST_WASM: 'relaxed' };
  delete env.NODE_TEST_CONTEXT; // a test runner of its own, not a child reporting to this one
  const args = [
    ...relaxedNodeArgs,
    '--test',
    '--test-concurrency=1',
    '--test-reporter=tap',
    ...FILES.map((f) => `tests/${f}`),
  ];
  const { code, stdout } = await new Promise((done) => {
    const opts = { cwd: ROOT, env, timeout: 300000, maxBuffer: 64 << 20 };
    execFile(process.execPath, args, opts, (err, out) => done({ code: err ? err.code : 0, stdout: out }));
  });
  const count = (k) => Number((stdout.match(new RegExp(`^# ${k} (\\d+)$`, 'm')) || [])[1]);
  const failed = stdout.split('\n').filter((l) => /^\s*not ok /.test(l));
  assert.deepEqual(failed, [], `failures on ffn-relaxed.wasm:\n${stdout.slice(-4000)}`);
  assert.equal(code, 0);
  assert.equal(count('fail'), 0);
  assert.ok(count('pass') >= 80, `only ${count('pass')} tests ran`);
});

test(
  'in that Node, ready() loads ffn-relaxed.wasm, whose layer results agree with ' + 'ffn.wasm within float32 rounding',
  { skip },
  async () => {
    const code = `
    import * as ffn from 'ffn-lab';
    await ffn.ready({ relaxed: process.argv.at(-1) === 'relaxed' });
    const K = 300, r = (i) => Math.sin(i * 12.9898) * 0.5;
    const X = { data: Float32Array.from({ length: 8 * K }, (_, i) => r(i)), shape: [8, K] };
    const W = { data: Float32Array.from({ length: K * 200 }, (_, i) => r(i + 7)), shape: [K, 200] };
    const y = Array.from(ffn.createLinear({ W }).forward(X).data);
    console.log(JSON.stringify({ simd: ffn.wasmInfo().simd, y }));`;
    // build: 'relaxed' (ready({ relaxed: true }) in a Node running relaxed SIMD) or 'plain' (relaxed: false)
    const run = (flags, build) =>
      new Promise((done, fail) => {
        const args = [...flags, '--input-type=module', '-e', code, '--', build];
        const opts = { cwd: ROOT, timeout: 20000, maxBuffer: 16 << 20 };
        execFile(process.execPath, args, opts, (err, out, errOut) => {
          if (err) fail(new Error(errOut));
          else done(JSON.parse(out));
        });
      });
    const [plain, relaxed] = await Promise.all([run([], 'plain'), run(relaxedNodeArgs, 'relaxed')]);
    assert.equal(plain.simd, 'simd128');
    assert.equal(relaxed.simd, 'relaxed');
    assert.equal(relaxed.y.length, 8 * 200);
    // both are within float32 rounding of the same sums: K = 300 terms of magnitude at most 0.25
    const K = 300;
    for (let i = 0; i < plain.y.length; i++) {
      const bound = 2 * 2 * (K + 2) * 2 ** -24 * 0.25 * K;
      assert.ok(Math.abs(plain.y[i] - relaxed.y[i]) <= bound, `[${i}] ${plain.y[i]} vs ${relaxed.y[i]}`);
    }
  },
);

test(
  'fma32 (the fused reference of the bit-level GEMM checks) rounds a*b + c once: against exact BigInt ' +
    'arithmetic, ties included',
  () => {
    // exact value of a double as a BigInt times 2^-400 (every float32 product and sum here fits)
    const SH = 400n;
    const dv = new DataView(new ArrayBuffer(8));
    const big = (x) => {
      if (x === 0) return 0n;
      dv.setFloat64(0, x);
      const hi = dv.getUint32(0),
        lo = dv.getUint32(4);
      const ex = (hi >>> 20) & 0x7ff;
      let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
      if (ex) mant |= 1n << 52n;
      const sh = BigInt((ex ? ex : 1) - 1075) + SH;
      const m = sh >= 0n ? mant << sh : mant >> -sh;
      return hi >>> 31 ? -m : m;
    };
    // the float32 nearest to v (ties to even), among the neighbours of its float64 rounding
    const f = new Float32Array(1),
      bits = new Int32Array(f.buffer);
    const nearest = (v) => {
      const r = Math.fround(Number(v) / 2 ** 400);
      let best = r,
        bestD = -1n;
      for (let d = -2; d <= 2; d++) {
        f[0] = r;
        bits[0] += d;
        const c = f[0];
        const dist = big(c) - v < 0n ? v - big(c) : big(c) - v;
        if (bestD < 0n || dist < bestD || (dist === bestD && (bits[0] & 1) === 0)) ((best = c), (bestD = dist));
      }
      return best;
    };
    const r = rng(5);
    let ties = 0;
    for (let t = 0; t < 20000; t++) {
      let a = Math.fround((r() - 0.5) * 4),
        b = Math.fround((r() - 0.5) * 4),
        c = Math.fround((r() - 0.5) * 8);
      if (t % 3 === 0) c = Math.fround(-Math.fround(a * b) + Math.fround((r() - 0.5) * 1e-6)); // cancellation
      if (t % 5 === 0) {
        // short mantissas: a*b + c often lands exactly between two floats (a tie fma32 must round to even)
        a = Math.fround(1 + Math.floor(r() * 4096) / 4096);
        b = Math.fround(1 + Math.floor(r() * 4096) / 4096);
        c = Math.fround((Math.floor(r() * 2 ** 20) / 2 ** 20) * 4);
      }
      if (t % 7 === 0) {
        // a*b = 2^-14 (1 - i^2 2^-46) onto c = 1024 + odd * 2^-13: the sum lies just below the midpoint to the
        // next (even) float; float64 rounds it onto the midpoint, and float32 ties-to-even would then go up
        const i = 1 + Math.floor(r() * 300);
        a = Math.fround(2 ** -7 * (1 + i * 2 ** -23));
        b = Math.fround(2 ** -7 * (1 - i * 2 ** -23));
        c = Math.fround(1024 + (2 * Math.floor(r() * 1000) + 1) * 2 ** -13);
      }
      const exact = (big(a) * big(b)) / (1n << SH) + big(c);
      const s = a * b + c; // float64, rounded
      if (Math.fround(s) !== nearest(exact)) ties++; // cases where rounding twice would be wrong
      assert.ok(Object.is(fma32(a, b, c), nearest(exact)), `fma32(${a}, ${b}, ${c})`);
    }
    assert.ok(ties > 0, 'the inputs include cases where rounding to float64 first gives the wrong float32');
  },
);

/** Count of f32x4.relaxed_madd opcodes (0xfd 0x85 0x02) in the code section (id 10) of a module. */
function relaxedMadds(bytes) {
  let p = 8,
    count = 0;
  const leb = () => {
    let v = 0,
      shift = 0,
      b;
    do {
      b = bytes[p++];
      v += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return v;
  };
  while (p < bytes.length) {
    const id = bytes[p++];
    const size = leb();
    if (id === 10) {
      for (let i = p; i + 2 < p + size; i++) {
        if (bytes[i] === 0xfd && bytes[i + 1] === 0x85 && bytes[i + 2] === 0x02) count++;
      }
    }
    p += size;
  }
  return count;
}

test('ffn-relaxed.wasm carries relaxed_madd in its code (so its GEMM can fuse) and ffn.wasm none', () => {
  const relaxed = readFileSync(fileURLToPath(import.meta.resolve('ffn-lab/ffn-relaxed.wasm')));
  const plain = readFileSync(fileURLToPath(import.meta.resolve('ffn-lab/ffn.wasm')));
  // one per multiply-add of the 4 x 8 microkernel and the GEMV, in each function they are inlined into
  assert.ok(relaxedMadds(relaxed) >= 24, `only ${relaxedMadds(relaxed)} relaxed_madd opcodes`);
  assert.equal(relaxedMadds(plain), 0);
});

test(
  'both builds compute the same activations and derivatives, bit for bit, on a ' + 'spread of float32 bit patterns',
  { skip },
  async () => {
    const harness = JSON.stringify(new URL('../helpers/wasm-under-test.js', import.meta.url).href);
    const code = `
    import { instantiateRaw } from ${harness};
    const load = async (spec) => (await instantiateRaw(new URL(import.meta.resolve(spec)))).exports;
    const [a, b] = [await load('ffn-lab/ffn.wasm'), await load('ffn-lab/ffn-relaxed.wasm')];
    const n = 1 << 20;
    const x = new Uint32Array(n);
    for (let i = 0; i < n; i++) x[i] = Math.imul(i, 4093) >>> 0; // 2^20 patterns spread over all 2^32
    const run = (e, fn, code) => {
      const px = e.malloc(4 * n) >>> 0, py = e.malloc(4 * n) >>> 0;
      new Uint32Array(e.memory.buffer, px, n).set(x);
      e[fn](py, px, n, code);
      const y = new Uint32Array(e.memory.buffer, py, n).slice();
      e.free(px); e.free(py);
      return y;
    };
    let compared = 0, differ = 0;
    for (let code = 0; code < 8; code++)
      for (const fn of ['act_forward', 'act_grad']) {
        const ya = run(a, fn, code), yb = run(b, fn, code);
        for (let i = 0; i < n; i++) (compared++, ya[i] !== yb[i] && differ++);
      }
    console.log(JSON.stringify({ compared, differ }));`;
    const out = await new Promise((done, fail) => {
      const args = [...relaxedNodeArgs, '--input-type=module', '-e', code];
      execFile(process.execPath, args, { cwd: ROOT, timeout: 60000 }, (err, o, e) => {
        if (err) fail(new Error(e));
        else done(JSON.parse(o));
      });
    });
    assert.equal(out.compared, 16 * 2 ** 20);
    assert.equal(out.differ, 0);
  },
);
