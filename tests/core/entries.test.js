// The two entries ('ffn-lab' inline bytes, 'ffn-lab/url') and every ready() source, each in a fresh Node process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import * as ffn from 'ffn-lab';
import * as ffnUrl from 'ffn-lab/url';
import { relaxedByDefault, relaxedNodeArgs } from '../helpers/relaxed-node.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Run an ES-module snippet in a fresh process (node flags nodeArgs) from the package root (so 'ffn-lab' resolves by
 * name).
 */
function runModule(code, nodeArgs = []) {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      [...nodeArgs, '--input-type=module', '-e', code],
      { cwd: ROOT, timeout: 20000 },
      (err, stdout, stderr) => {
        if (err) fail(new Error(`child failed: ${err.message}\n${stderr}`));
        else done(stdout.trim());
      },
    );
  });
}

// gelu(1) = Phi(1) = 0.8413447460685429 (known value). The SIMD kernels are accurate to a few float32 ulps
// (issue 2), not correctly rounded: this value lies 0.04 ulp from a rounding tie, so the check allows 2 ulps.
const GELU1 = 0.8413447460685429;
const ULP1 = 2 ** -24; // float32 spacing in [0.5, 1)
const nearGelu1 = (y) => assert.ok(Math.abs(y - GELU1) <= 2 * ULP1, `gelu(1) = ${y}, expected ${GELU1} within 2 ulp`);
const probe = `const y = ffn.gelu([1]).data[0]; console.log(JSON.stringify({ y }));`;

const cases = {
  'ffn-lab default (inlined bytes)': `import * as ffn from 'ffn-lab'; await ffn.ready(); ${probe}`,
  'ffn-lab/url default (new URL("./ffn.wasm", import.meta.url), read with node:fs)':
    `import * as ffn from 'ffn-lab/url'; ` + `await ffn.ready(); ${probe}`,
  'opts.wasm = Uint8Array':
    `import * as ffn from 'ffn-lab'; import { readFileSync } from 'node:fs'; ` +
    `await ffn.ready({ wasm: new Uint8Array(readFileSync('web/ffn.wasm')) }); ${probe}`,
  'opts.wasm = ArrayBuffer':
    `import * as ffn from 'ffn-lab/url'; import { readFileSync } from 'node:fs'; ` +
    `const b = readFileSync('web/ffn.wasm'); ` +
    `await ffn.ready({ wasm: b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) }); ${probe}`,
  'opts.wasm = WebAssembly.Module':
    `import * as ffn from 'ffn-lab'; import { readFileSync } from 'node:fs'; ` +
    `await ffn.ready({ wasm: new WebAssembly.Module(readFileSync('web/ffn.wasm')) }); ${probe}`,
  'opts.wasm = file: URL':
    `import * as ffn from 'ffn-lab/url'; import { pathToFileURL } from 'node:url'; ` +
    `await ffn.ready({ wasm: pathToFileURL('web/ffn.wasm') }); ${probe}`,
  'opts.wasm = URL string':
    `import * as ffn from 'ffn-lab/url'; import { pathToFileURL } from 'node:url'; ` +
    `await ffn.ready({ wasm: pathToFileURL('web/ffn.wasm').href }); ${probe}`,
  'opts.wasm = relative path string':
    `import * as ffn from 'ffn-lab'; ` + `await ffn.ready({ wasm: './web/ffn.wasm' }); ${probe}`,
  'ffn-lab/ffn.wasm subpath resolves':
    `import * as ffn from 'ffn-lab/url'; ` +
    `await ffn.ready({ wasm: new URL(import.meta.resolve('ffn-lab/ffn.wasm')) }); ${probe}`,
  'one ready() serves both entries (one shared instance)':
    `import * as a from 'ffn-lab'; import * as ffn from 'ffn-lab/url'; ` + `await a.ready(); ${probe}`,
};

for (const [name, code] of Object.entries(cases)) {
  test(`ready(): ${name}`, async () => {
    const out = JSON.parse(await runModule(code));
    nearGelu1(out.y);
  });
}

test('ready(): opts.wasm = http URL (fetch in Node), and an HTTP 404 is a clear error', async () => {
  const { startServer } = await import('../../web/serve.js');
  const srv = await startServer({ root: ROOT, port: 0 });
  try {
    const out = await runModule(`
      import * as ffn from 'ffn-lab/url';
      let msg = '';
      try { await ffn.ready({ wasm: '${srv.url}web/missing.wasm' }); } catch (e) { msg = e.message; }
      await ffn.ready({ wasm: new URL('${srv.url}web/ffn.wasm') });
      const y = ffn.gelu([1]).data[0];
      console.log(JSON.stringify({ msg, y }));`);
    const r = JSON.parse(out);
    assert.match(
      r.msg,
      /could not load the wasm module from http:\/\/127\.0\.0\.1:\d+\/web\/missing\.wasm \(HTTP 404\)/,
    );
    nearGelu1(r.y);
  } finally {
    await srv.close();
  }
});

// Node 20 runs relaxed SIMD only with --experimental-wasm-relaxed-simd (Node 21 and later always): the build
// picked in both directions
const R = relaxedNodeArgs ?? [];
const plain = relaxedByDefault ? 'relaxed' : 'simd128';
const info =
  'console.log(JSON.stringify({ simd: ffn.wasmInfo().simd, y: ffn.gelu([1]).data[0], ' +
  'm: Array.from(ffn.matmul([[1, 2]], [[3], [4]]).data) }));';
const builds = [
  ['ffn-lab, no flag', [], `import * as ffn from 'ffn-lab'; await ffn.ready(); ${info}`, plain],
  ['ffn-lab/url, no flag', [], `import * as ffn from 'ffn-lab/url'; await ffn.ready(); ${info}`, plain],
  [
    'ffn-lab with relaxed SIMD: ffn-relaxed.wasm',
    R,
    `import * as ffn from 'ffn-lab'; await ffn.ready(); ${info}`,
    'relaxed',
  ],
  [
    'ffn-lab/url with relaxed SIMD: ffn-relaxed.wasm',
    R,
    `import * as ffn from 'ffn-lab/url'; await ffn.ready(); ${info}`,
    'relaxed',
  ],
  [
    'ffn-lab with relaxed SIMD, relaxed: false: ffn.wasm',
    R,
    `import * as ffn from 'ffn-lab'; await ffn.ready({ relaxed: false }); ${info}`,
    'simd128',
  ],
  [
    'ffn-lab/url with relaxed SIMD, relaxed: true: ffn-relaxed.wasm',
    R,
    `import * as ffn from 'ffn-lab/url'; await ffn.ready({ relaxed: true }); ${info}`,
    'relaxed',
  ],
];
for (const [name, args, code, simd] of builds) {
  test(
    `ready() picks the build: ${name}`,
    { skip: relaxedNodeArgs ? false : 'this Node cannot run relaxed SIMD' },
    async () => {
      const r = JSON.parse(await runModule(code, args));
      assert.equal(r.simd, simd);
      nearGelu1(r.y);
      assert.deepEqual(r.m, [11]);
    },
  );
}

test(
  'an explicit opts.relaxed that the already loaded build does not match rejects; a matching one resolves',
  { skip: relaxedNodeArgs ? false : 'this Node cannot run relaxed SIMD' },
  async () => {
    const r = JSON.parse(
      await runModule(
        `
    import * as ffn from 'ffn-lab';
    await ffn.ready();
    let msg = '';
    try { await ffn.ready({ relaxed: false }); } catch (e) { msg = e.message; }
    await ffn.ready({ relaxed: true });
    await ffn.ready({ relaxed: 'auto' });
    console.log(JSON.stringify({ msg, simd: ffn.wasmInfo().simd }));`,
        relaxedNodeArgs,
      ),
    );
    assert.equal(r.simd, 'relaxed');
    assert.equal(
      r.msg,
      'ready: opts.relaxed is false but an earlier ready() already loaded ffn-relaxed.wasm; pass ' +
        'the same choice to the first ready() call',
    );
  },
);

test(
  'ready({ relaxed: true }) without relaxed SIMD rejects clearly and can be retried; bad relaxed options are ' +
    'TypeErrors',
  { skip: relaxedByDefault ? 'this Node always runs relaxed SIMD' : false },
  async () => {
    const r = JSON.parse(
      await runModule(`
    import * as ffn from 'ffn-lab';
    const msgs = [];
    try { await ffn.ready({ relaxed: true }); } catch (e) { msgs.push(e.message); }
    for (const opts of [{ relaxed: 'yes' }, { relaxed: 1 }, { wasm: new Uint8Array(8), relaxed: false }]) {
      try { await ffn.ready(opts); } catch (e) { msgs.push(e.name + ': ' + e.message); }
    }
    await ffn.ready();
    console.log(JSON.stringify({ msgs, simd: ffn.wasmInfo().simd }));`),
    );
    assert.equal(r.msgs.length, 4);
    assert.match(r.msgs[0], /^ready: opts\.relaxed is true but this engine does not run relaxed SIMD/);
    assert.equal(r.msgs[1], 'TypeError: ready: opts.relaxed must be \'auto\', true or false; got the string "yes"');
    assert.match(r.msgs[2], /^TypeError: ready: opts\.relaxed must be 'auto', true or false; got /);
    assert.match(r.msgs[3], /^TypeError: ready: pass either opts\.wasm .* or opts\.relaxed/);
    assert.equal(r.simd, 'simd128');
  },
);

test('a missing wasm file rejects with a clear error and ready() can be retried', async () => {
  const out = await runModule(`
    import * as ffn from 'ffn-lab/url';
    let msg = '';
    try { await ffn.ready({ wasm: './web/no-such.wasm' }); } catch (e) { msg = e.message; }
    await ffn.ready();
    console.log(JSON.stringify({ msg, y: ffn.relu([-1, 3]).data[1] }));`);
  const r = JSON.parse(out);
  assert.match(r.msg, /no-such\.wasm|ENOENT/);
  assert.equal(r.y, 3);
});

test('both entries export the same API; index re-exports ffn.js and only ready differs', async () => {
  const names = Object.keys(ffn).sort();
  assert.deepEqual(names, Object.keys(ffnUrl).sort());
  for (const n of names) {
    if (n === 'ready') assert.notEqual(ffn.ready, ffnUrl.ready);
    else assert.equal(ffn[n], ffnUrl[n], `${n} is the same binding`);
  }
  for (const n of [
    'ready',
    'tensor',
    'relu',
    'relu2',
    'sigmoid',
    'silu',
    'gelu',
    'geluTanh',
    'geluSigmoid',
    'activationGrad',
    'matmul',
    'ffn',
    'gatedFfn',
    'swigluFfn',
    'swigluBackward',
    'ffnMemories',
    'ffnParamCount',
    'llamaHiddenDim',
    'ffnFlops',
    'activations',
  ]) {
    assert.ok(n in ffn, `ffn-lab exports ${n}`);
  }
});

test('index.d.ts declares every exported name', () => {
  const dts = readFileSync(resolve(ROOT, 'web/index.d.ts'), 'utf8');
  for (const n of Object.keys(ffn)) {
    assert.match(dts, new RegExp(`export (function|const) ${n}\\b`), `index.d.ts declares ${n}`);
  }
});
