// createMemoryModel in headless Chromium: the same loss curve, bit for bit, as in Node (both on ffn.wasm, relaxed:
// false), the facts stored, errors named, the heap back to its start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ffn from 'ffn-lab';
import { servedBrowser } from '../helpers/served-browser.js';
import { syntheticFacts, curveHash } from '../helpers/memory-model.js';

const served = servedBrowser();

/** Runs in Node and, as source, in the page: 60 full-batch steps, then 10 on a batch, then SGD; the curve. */
function trainCurve(ffn, spec) {
  const heap0 = ffn.heapStats().heapInUse;
  const m = ffn.createMemoryModel({ ...spec, facts: Int32Array.from(spec.facts) });
  const losses = [];
  for (let i = 0; i < 60; i++) losses.push(m.train(1).loss);
  const ev = m.evaluate();
  for (let i = 0; i < 10; i++) losses.push(m.train(1, { batch: [5, 3, 8, 1, 40, 2] }).loss);
  losses.push(m.trainSgd(2, { lr: 0.05 }).loss);
  let error = null;
  try {
    m.train(1, { batch: [0, 1.5] });
  } catch (e) {
    error = `${e.name}: ${e.message}`;
  }
  m.dispose();
  return { losses, accuracy: ev.accuracy, error, heapBack: ffn.heapStats().heapInUse === heap0 };
}

test(
  'browser: the loss curve is bit-identical to Node with ready({ relaxed: false })',
  { skip: served.skip || false },
  async () => {
    const facts = Array.from(syntheticFacts({ n: 90, subjects: 30, relations: 3, objects: 25, seed: 5 }));
    const spec = { facts, nSubjects: 30, nRelations: 3, nObjects: 25, d: 32, dff: 64, activation: 'gelu', seed: 21 };
    await ffn.ready({ relaxed: false });
    const node = trainCurve(ffn, spec);
    const page = await served.newPage();
    try {
      await page.goto(`${served.url}tests/bench/page.html`);
      const src = trainCurve.toString();
      const web = await page.evaluate(
        async ({ src, spec }) => {
          const ffn = await import('/web/index.js');
          await ffn.ready({ relaxed: false });
          const info = ffn.wasmInfo();
          return { ...new Function(`return (${src})`)()(ffn, spec), simd: info.simd };
        },
        { src, spec },
      );
      assert.equal(web.simd, 'simd128');
      assert.equal(node.accuracy, 1, 'the facts are stored');
      assert.equal(curveHash(web.losses), curveHash(node.losses), 'the same loss bits in Chromium and Node');
      assert.deepEqual(web.losses, node.losses);
      assert.match(
        web.error,
        /^RangeError: memoryModel\.train: opts\.batch\[1\] must be an integer from 0 to 89; got 1\.5/,
      );
      assert.equal(web.heapBack, true);
      assert.equal(node.heapBack, true);
    } finally {
      await page.close();
    }
  },
);
