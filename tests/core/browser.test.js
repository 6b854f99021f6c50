// The core in headless Chromium: both entries load from a 127.0.0.1 page served by web/serve.js, results checked in
// Node against tests/helpers/ref.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedBrowser } from '../helpers/served-browser.js';
import * as ref from '../helpers/ref.js';
import { rng, randTensor } from '../helpers/numeric.js';

const served = servedBrowser();
const { skip } = served;

function makeInput() {
  const r = rng(31);
  const d = 5;
  const dff = 12;
  const t = (shape, lo, hi) => {
    const x = randTensor(r, shape, lo, hi);
    return { data: Array.from(x.data), shape };
  };
  return {
    X: t([2, 3, d], -2, 2),
    W1: t([d, dff], -0.6, 0.6),
    b1: t([dff], -0.3, 0.3),
    W2: t([dff, d], -0.6, 0.6),
    b2: t([d], -0.3, 0.3),
    Wu: t([d, dff], -0.6, 0.6),
    x: [-1e4, -5, -0.752, 0, 1, 1e4, NaN].map((v) => (Number.isNaN(v) ? 'NaN' : v)),
    activation: 'gelu',
  };
}

// Chromium (114 and later) runs relaxed SIMD, so the default is ffn-relaxed.wasm; relaxed: false loads ffn.wasm
const CASES = [
  ['inline', true],
  ['url', true],
  ['inline', false],
  ['url', false],
];
for (const [entry, relaxed] of CASES) {
  const name =
    `${entry === 'inline' ? '/web/index.js (inlined wasm)' : '/web/ffn.js (wasm by URL)'}` +
    `${relaxed ? ', default (relaxed SIMD)' : ', ready({ relaxed: false })'}`;
  test(
    `browser: ${name} computes an FFN forward pass matching the float64 reference`,
    { skip: skip || false },
    async () => {
      const page = await served.newPage();
      const consoleErrors = [];
      const pageErrors = [];
      const requests = [];
      const wasmTypes = [];
      page.on('console', (m) => {
        if (m.type() === 'error') consoleErrors.push(m.text());
      });
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      page.on('request', (req) => requests.push(req.url()));
      page.on('response', (res) => {
        if (res.url().endsWith('.wasm')) wasmTypes.push(res.headers()['content-type']);
      });
      const input = makeInput();
      await page.addInitScript((inp) => {
        inp.x = inp.x.map((v) => (v === 'NaN' ? NaN : v));
        window.__input = inp;
      }, input);
      try {
        await page.goto(`${served.url}tests/fixtures/core.html?entry=${entry}${relaxed ? '' : '&relaxed=false'}`);
        await page.waitForFunction(() => window.__result || window.__error, null, { timeout: 15000 });
        const { result, error } = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
        assert.equal(error, undefined, `page error: ${error}`);
        assert.equal(result.entry, entry);
        assert.equal(result.simd, relaxed ? 'relaxed' : 'simd128', 'the build ready() loaded');
        assert.match(result.beforeReady, /call await ready\(\) first/);
        assert.equal(result.badInput, "RangeError: ffn: W1 has shape [7,16] but X's last dimension is 8");
        assert.deepEqual(result.shape, [2, 3, 5]);
        assert.equal(result.params, 4722432);
        assert.equal(result.heap, 0);
        const y = ref.ffn(input.X, input.W1, input.b1, input.W2, input.b2, { activation: 'gelu' }).data;
        const s = ref.swigluFfn(input.X, input.W1, input.Wu, input.W2).data;
        for (let i = 0; i < y.length; i++) {
          assert.ok(Math.abs(result.y[i] - y[i]) < 2e-6 * (1 + Math.abs(y[i])), `ffn[${i}] ${result.y[i]} vs ${y[i]}`);
          assert.ok(
            Math.abs(result.s[i] - s[i]) < 2e-6 * (1 + Math.abs(s[i])),
            `swiglu[${i}] ${result.s[i]} vs ${s[i]}`,
          );
        }
        const xs = [-1e4, -5, -0.752, 0, 1, 1e4];
        for (let i = 0; i < xs.length; i++) {
          const e = ref.act('gelu', Math.fround(xs[i]));
          assert.ok(
            Math.abs(result.g[i] - e) <= 1e-6 * Math.max(Math.abs(e), 1e-30),
            `gelu(${xs[i]}) = ${result.g[i]} vs ${e}`,
          );
        }
        assert.ok(Number.isNaN(result.g[6]), 'NaN passes through');

        assert.deepEqual(consoleErrors, [], 'no console errors');
        assert.deepEqual(pageErrors, [], 'no uncaught page errors');
        const outside = requests.filter((u) => !u.startsWith(served.url) && !u.startsWith('data:'));
        assert.deepEqual(outside, [], 'no request outside 127.0.0.1');
        const wasmRequests = requests.filter((u) => u.endsWith('.wasm'));
        if (entry === 'inline') {
          assert.deepEqual(wasmRequests, [], 'the default entry needs no .wasm request');
          const inlineModules = requests.filter((u) => u.endsWith('wasm-inline.js'));
          assert.deepEqual(
            inlineModules,
            [`${served.url}web/${relaxed ? 'ffn-relaxed-wasm-inline.js' : 'ffn-wasm-inline.js'}`],
            'only the build this engine runs is imported',
          );
        } else {
          assert.deepEqual(wasmRequests, [`${served.url}web/${relaxed ? 'ffn-relaxed.wasm' : 'ffn.wasm'}`]);
          assert.deepEqual(wasmTypes, ['application/wasm']);
        }
      } finally {
        await page.close();
      }
    },
  );
}

for (const [entry, blocked] of [
  ['url', 'ffn-relaxed.wasm'],
  ['inline', 'ffn-relaxed-wasm-inline.js'],
]) {
  test(
    `browser: ${entry} entry on a host without ${blocked}: ready() falls back to ffn.wasm with a warning`,
    { skip: skip || false },
    async () => {
      const page = await served.newPage();
      const warnings = [];
      const pageErrors = [];
      page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      await page.route(`**/web/${blocked}`, (route) => route.fulfill({ status: 404, body: 'not here' }));
      await page.addInitScript((inp) => {
        inp.x = inp.x.map((v) => (v === 'NaN' ? NaN : v));
        window.__input = inp;
      }, makeInput());
      try {
        await page.goto(`${served.url}tests/fixtures/core.html?entry=${entry}`);
        await page.waitForFunction(() => window.__result || window.__error, null, { timeout: 15000 });
        const { result, error } = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
        assert.equal(error, undefined, `page error: ${error}`);
        assert.equal(result.simd, 'simd128');
        assert.equal(result.params, 4722432);
        assert.deepEqual(pageErrors, []);
        assert.equal(warnings.length, 1, warnings.join('\n'));
        assert.match(warnings[0], /^ffn-lab: could not load the relaxed-SIMD build, using ffn\.wasm instead/);
      } finally {
        await page.close();
      }
    },
  );
}

test('browser tests are skipped only outside CI when chromium is missing', () => {
  if (skip) assert.ok(!process.env.CI, 'CI must have chromium');
  else assert.equal(skip, null);
});
