// Resident layers in headless Chromium: createLinear/createFfn/createGatedFfn from the served package, results checked
// in Node against tests/helpers/ref.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedBrowser } from '../helpers/served-browser.js';
import * as ref from '../helpers/ref.js';
import { rng, randTensor } from '../helpers/numeric.js';

const served = servedBrowser();
const { skip } = served;

test(
  'browser: resident layers match the float64 reference; dispose ' + 'and errors behave as in Node',
  { skip: skip || false },
  async () => {
    const r = rng(41);
    const T = 70,
      d = 12,
      dff = 40;
    const plain = (shape, lo, hi) => ({ data: Array.from(randTensor(r, shape, lo, hi).data), shape });
    const inp = {
      X: plain([T, d], -2, 2),
      W1: plain([d, dff], -0.5, 0.5),
      b1: plain([dff], -0.3, 0.3),
      W2: plain([dff, d], -0.5, 0.5),
      b2: plain([d], -0.3, 0.3),
      Wu: plain([d, dff], -0.5, 0.5),
    };
    const page = await served.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    try {
      await page.goto(`${served.url}tests/bench/page.html`);
      const out = await page.evaluate(async (inp) => {
        const ffn = await import('/web/index.js');
        await ffn.ready();
        const heap0 = ffn.heapStats().heapInUse;
        const lin = ffn.createLinear({ W: inp.W1, b: inp.b1, activation: 'gelu' });
        const f = ffn.createFfn({ W1: inp.W1, b1: inp.b1, W2: inp.W2, b2: inp.b2 });
        const g = ffn.createGatedFfn({ Wg: inp.W1, Wu: inp.Wu, Wd: inp.W2 });
        const res = {
          lin: Array.from(lin.forward(inp.X).data),
          ffn: Array.from(f.forward(inp.X).data),
          gated: Array.from(g.forward(inp.X).data),
          one: Array.from(g.forward(inp.X.data.slice(0, inp.X.shape[1])).data),
        };
        try {
          lin.forward([1, 2, 3]);
        } catch (e) {
          res.badShape = `${e.name}: ${e.message}`;
        }
        for (const l of [lin, f, g]) l.dispose();
        lin.dispose();
        try {
          f.forward(inp.X);
        } catch (e) {
          res.disposed = `${e.name}: ${e.message}`;
        }
        res.heapBack = ffn.heapStats().heapInUse === heap0;
        return res;
      }, inp);
      assert.deepEqual(errors, []);
      const near = (got, want, msg) => {
        assert.equal(got.length, want.length, msg);
        for (let i = 0; i < want.length; i++)
          assert.ok(
            Math.abs(got[i] - want[i]) <= 2e-5 * (1 + Math.abs(want[i])),
            `${msg} [${i}] ${got[i]} vs ${want[i]}`,
          );
      };
      const H = ref.matmul(inp.X, inp.W1).data.map((v, i) => ref.act('gelu', v + inp.b1.data[i % dff]));
      near(out.lin, H, 'createLinear');
      near(out.ffn, ref.ffn(inp.X, inp.W1, inp.b1, inp.W2, inp.b2).data, 'createFfn');
      const gw = ref.swigluFfn(inp.X, inp.W1, inp.Wu, inp.W2).data;
      near(out.gated, gw, 'createGatedFfn');
      near(out.one, gw.slice(0, d), 'createGatedFfn one token');
      assert.equal(
        out.badShape,
        "RangeError: createLinear(...).forward: X has shape [3] but expected (..., 12) (the layer's input size)",
      );
      assert.equal(
        out.disposed,
        'Error: createFfn(...).forward: this layer was disposed; create a new one with createFfn()',
      );
      assert.equal(out.heapBack, true, 'dispose returns the heap to where it was');
    } finally {
      await page.close();
    }
  },
);
