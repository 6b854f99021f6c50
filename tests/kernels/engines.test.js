// The public API in JavaScriptCore (jsc, Safari's) and SpiderMonkey (gjs, Firefox's): bit-identical to V8 on ffn.wasm.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import * as ffn from 'ffn-lab';
import { battery, GRID, EDGES } from '../engines/battery.mjs';
import { onPath, skipUnless } from '../helpers/tools.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const RUN = join(HERE, '..', 'engines', 'run.mjs');

const ENGINES = [
  {
    name: 'JavaScriptCore',
    cmd: 'jsc',
    args: ['-m', RUN],
    pkg: 'libjavascriptcoregtk-4.0-bin',
    gemmKernel: 'prebroadcast',
  },
  { name: 'SpiderMonkey', cmd: 'gjs', args: ['-m', RUN], pkg: 'gjs', gemmKernel: 'splat' },
];

/**
 * Why an engine's test cannot run here, or false (node:test skips on null too); with CI set, a missing engine is an
 * error.
 */
const skipReason = ({ cmd, pkg }) =>
  skipUnless(onPath(cmd), `${cmd} is missing (install Debian's ${pkg})`, 'engine tests') ?? false;

function runEngine({ cmd, args }) {
  return new Promise((done, fail) => {
    execFile(cmd, args, { timeout: 60000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const line = stdout.split('\n').find((l) => l.startsWith('ENGINE-'));
      if (!line)
        return fail(
          new Error(
            `${cmd} printed no result (${err?.message ?? 'exit 0'})\n${stdout.slice(
              0,
              2000,
            )}\n${stderr.slice(0, 2000)}`,
          ),
        );
      if (line.startsWith('ENGINE-ERROR'))
        return fail(new Error(`${cmd}: ${stdout.slice(stdout.indexOf('ENGINE-ERROR'))}`));
      done(JSON.parse(line.slice('ENGINE-RESULT '.length)));
    });
  });
}

/** Equal, or the first place where they differ. */
function same(got, want, where) {
  if (Array.isArray(want)) {
    assert.ok(Array.isArray(got), `${where}: not an array`);
    assert.equal(got.length, want.length, `${where}: length`);
    const i = want.findIndex((v, j) => !Object.is(v, got[j]) && JSON.stringify(v) !== JSON.stringify(got[j]));
    assert.equal(i, -1, i === -1 ? '' : `${where}[${i}]: ${JSON.stringify(got[i])}, V8 ${JSON.stringify(want[i])}`);
    return;
  }
  if (want && typeof want === 'object') {
    assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), `${where}: keys`);
    for (const k of Object.keys(want)) same(got[k], want[k], `${where}.${k}`);
    return;
  }
  assert.equal(got, want, where);
}

let v8;
async function inV8() {
  if (!v8) {
    await ffn.ready({ relaxed: false });
    v8 = battery(ffn);
  }
  return v8;
}

test(
  'the battery is not vacuous in V8: refusals are RangeError/TypeError naming the function, the heap ' +
    'stays flat, known values hold',
  async () => {
    const r = await inV8();
    // ffn.wasm in V8: prebroadcast before V8 12 (Node 20), splat later (gemm-select.test.js states the rule)
    const v8Kernel = parseInt(process.versions.v8, 10) < 12 ? 'prebroadcast' : 'splat';
    assert.equal(ffn.wasmInfo().gemmKernel, v8Kernel, `V8 ${process.versions.v8} runs the ${v8Kernel} microkernel`);
    assert.equal(r.heapFlat, true);
    for (const e of r.errors) {
      assert.ok(e !== 'no error', 'a bad call was not refused');
      assert.ok(e.name === 'RangeError' || e.name === 'TypeError', e.name);
    }
    assert.equal(r.counts[0], 4722432); // GPT-2 FFN parameters per layer
    assert.equal(r.counts[2], 11008); // LLaMA-7B hidden size
    const at = (v) => GRID + EDGES.findIndex((e) => Object.is(e, v));
    const g = r.gelu[at(-0.752)]; // GELU's minimum, about -0.170 at -0.752
    assert.ok(Math.abs(g + 0.16997) < 1e-4, String(g));
    assert.equal(r.gelu[at(NaN)], 'NaN'); // NaN passes through
    assert.equal(r.sigmoid[at(-1e4)], 0); // no overflow to NaN at -1e4
    assert.equal(r.sigmoid[at(1e4)], 1);
    assert.equal(r.silu[at(-1e4)], '-0'); // -1e4 * sigmoid(-1e4) = -1e4 * 0
  },
);

for (const engine of ENGINES) {
  const title =
    `${engine.name} (${engine.cmd}): ready() selects the ${engine.gemmKernel} GEMM microkernel; every call ` +
    'bit-identical to V8 on ffn.wasm, the same refusals, the heap flat';
  test(title, { skip: skipReason(engine) }, async () => {
    const [got, want] = await Promise.all([runEngine(engine), inV8()]);
    assert.equal(got.build, 'simd128');
    assert.equal(got.gemmKernel, engine.gemmKernel);
    same(got.results, want, engine.cmd);
    assert.equal(got.results.heapFlat, true);
  });
}
