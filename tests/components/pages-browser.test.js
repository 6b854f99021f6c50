// The page's first second: ffn-lab's own pages (web/index.html, web/embed/*.html) as web/serve.js serves them, in
// Chromium: the code they transfer until every element is ready, the depth of their request chain, a wasm compile
// that overlaps the module loads, and an element below the fold that never delays one above it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { servedBrowser } from '../helpers/served-browser.js';
import { PAGES, loadPage } from '../bench/pages.js';
import { collectShownText, findEnglish } from '../helpers/english.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const served = servedBrowser();
const skip = served.skip || false;

// The goal (issue 17): ffn-lab's code, wasm included, at most 120 KB compressed, here with brotli (what CDNs and most
// static hosts serve), in kB of 1000 bytes; gzip is printed beside it (tests/bench/pages.js measures both).
// gzip too: a host that does not serve brotli (GitHub Pages) sends gzip. The course page: the code of its element
// kinds above the memory lab (which boot.js defines later, near the viewport or at idle) and the one wasm module,
// the lab's trainer kernels in it: 135 kB brotli, 155 kB gzip (measured 130.6 and 149.1).
const BUDGET_KB = (name) => (name === 'course' ? { br: 135, gz: 155 } : { br: 120, gz: 120 });
const CHAIN_MAX = 3;

/** Hold back every response whose URL matches `re` by `ms` while `body` runs in the browser's context. */
async function withDelayed(re, ms, body) {
  const held = (url) => re.test(new URL(url).pathname);
  const handler = (route) => setTimeout(() => route.continue().catch(() => {}), ms);
  await served.context.route(held, handler);
  try {
    return await body();
  } finally {
    await served.context.unroute(held, handler);
  }
}

for (const spec of PAGES.filter((p) => !p.path.includes('#'))) {
  // a page opened at an anchor loads the same
  test(
    `${spec.name}: code to ready within ${BUDGET_KB(spec.name).br} kB brotli, no chain deeper than 3, ` +
      'a streaming compile',
    { skip },
    async () => {
      const l = await loadPage(served.context, served.url, ROOT, spec);
      await l.page.close();
      const figures =
        `brotli ${l.br} B, gzip ${l.gz} B, chain ${l.depth} (deepest ${l.deepest}), ` +
        `wasm compiled by ${l.compileHow}`;
      assert.ok(l.br > 20000 && l.gz > l.br, `the wasm and the elements' code were counted: ${figures}`);
      assert.ok(l.br <= BUDGET_KB(spec.name).br * 1000, `brotli: ${figures}`);
      assert.ok(l.gz <= BUDGET_KB(spec.name).gz * 1000, `gzip: ${figures}`);
      assert.ok(l.depth <= CHAIN_MAX, `chain: ${figures}`);
      // web/serve.js sends application/wasm: the bytes are compiled as they arrive, not after the last one
      assert.equal(l.compileHow, 'compileStreaming', figures);
    },
  );
}

test("course page: the wasm compile starts while the elements' modules are still loading", { skip }, async () => {
  // every module but the page's first (dist/boot.js) held back: a compile that waits for the modules starts after
  const late = /^\/web\/(?!dist\/boot\.js$).*\.js$/;
  const l = await withDelayed(late, 600, () => loadPage(served.context, served.url, ROOT, PAGES[0]));
  await l.page.close();
  assert.ok(
    Number.isFinite(l.compileStart) && l.compileStart < l.lastModule,
    `compile started at ${l.compileStart} ms, the last module arrived at ${l.lastModule} ms (${l.compileHow})`,
  );
});

test(
  'course page: the activation plot is ready before the code of the elements below it has arrived',
  { skip },
  async () => {
    const below = /(ffn-exercise|memory-widget)\.js$|^\/web\/sandbox\//;
    const page = await served.newPage();
    try {
      await page.addInitScript(() => {
        window.__ready = 0;
        document.addEventListener(
          'ffn-ready',
          (e) => {
            window.__ready++;
            if (e.target.id !== 'plot') return;
            window.__plotReady = {
              at: performance.now(),
              exercise: !!customElements.get('ffn-exercise'),
              memory: !!customElements.get('ffn-memory-widget'),
            };
          },
          true,
        );
      });
      const seen = await withDelayed(below, 4000, async () => {
        await page.goto(new URL('web/', served.url).href);
        await page.waitForFunction(() => window.__plotReady, null, { timeout: 30000 });
        const plot = await page.evaluate(() => window.__plotReady);
        // the elements below still get ready once their code arrives
        const all = 'ffn-activation-plot, ffn-exercise, ffn-param-calculator, ffn-memory-widget, ffn-memory-lab';
        await page.waitForFunction((s) => window.__ready === document.querySelectorAll(s).length, all, {
          timeout: 30000,
        });
        return plot;
      });
      assert.deepEqual(
        { exercise: seen.exercise, memory: seen.memory },
        { exercise: false, memory: false },
        `the plot was ready at ${Math.round(seen.at)} ms, and had waited for the code of the elements below it`,
      );
    } finally {
      await page.close();
    }
  },
);

// French (web/i18n/fr.js, web/sandbox/grade/exercises/fr.js) loads on first use: never by a page in English, and by a
// page in French before its elements are ready, which are hidden until then (no English shown on the way).
const FRENCH = /Lancer les tests|Voir la solution/;
const ALL = 'ffn-activation-plot, ffn-exercise, ffn-param-calculator, ffn-memory-widget';

/** Open web/ (in `lang`), recording at each element's ffn-ready whether it is hidden and what it shows. */
async function openCourse(page, lang) {
  const url = new URL('web/', served.url).href;
  if (lang !== 'en') {
    await page.route(url, async (route) => {
      const r = await route.fetch();
      const body = (await r.text()).replace('<html lang="en">', `<html lang="${lang}">`);
      await route.fulfill({ response: r, body });
    });
  }
  await page.addInitScript(`window.__collect = ${collectShownText};`);
  await page.addInitScript((all) => {
    window.__seen = [];
    document.addEventListener(
      'ffn-ready',
      (e) => {
        const el = e.target;
        el.dataset.t = String(window.__seen.length);
        // what the element draws, not the page's own text inside it (its fallback before the element is defined)
        const light = el.textContent;
        const texts = window.__collect(`[data-t="${el.dataset.t}"]`).filter((t) => !light.includes(t));
        window.__seen.push({ name: el.localName, hidden: el.hasAttribute('ffn-strings-loading'), texts });
      },
      true,
    );
    // an exercise shown (not hidden for its strings) with its run button in English, at each ffn-ready and in any
    // frame until all are ready (the last ones may draw and be ready between two frames)
    window.__englishShown = 0;
    const look = () => {
      for (const el of document.querySelectorAll('ffn-exercise')) {
        const run = el.shadowRoot?.querySelector('button.run');
        if (run && run.textContent === 'Run tests' && !el.hasAttribute('ffn-strings-loading')) window.__englishShown++;
      }
    };
    document.addEventListener('ffn-ready', look, true);
    const frame = () => {
      look();
      if (!document.body || window.__seen.length < document.querySelectorAll(all).length) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }, ALL);
  await page.goto(url);
  const n = await page.evaluate((s) => document.querySelectorAll(s).length, ALL);
  await page.waitForFunction((k) => window.__seen.length === k, n, { timeout: 30000 });
  return page.evaluate(() => ({ seen: window.__seen, englishShown: window.__englishShown }));
}

/** The scripts a page loads, as promises of [url, text] (text null where the body could not be read). */
function scriptBodies(page) {
  const bodies = [];
  page.on('response', (r) => {
    if (!/\.js$/.test(new URL(r.url()).pathname)) return;
    bodies.push(
      r.text().then(
        (t) => [r.url(), t],
        () => [r.url(), null],
      ),
    );
  });
  return async () => {
    const all = await Promise.all(bodies);
    assert.deepEqual(
      all.filter(([, t]) => t === null).map(([u]) => u),
      [],
      'scripts whose body could not be read',
    );
    return all;
  };
}

test('course page in English: no French downloaded', { skip }, async () => {
  const page = await served.newPage();
  const scripts = scriptBodies(page);
  try {
    const { seen, englishShown } = await openCourse(page, 'en');
    await page.locator('#ex-gelu').scrollIntoViewIfNeeded(); // the grader is loaded near an exercise: not French
    await page.waitForTimeout(1500);
    const bodies = await scripts();
    const french = bodies.filter(([, t]) => FRENCH.test(t)).map(([u]) => u);
    assert.ok(bodies.length > 3 && seen.length >= 4, `${bodies.length} scripts, ${seen.length} elements`);
    assert.deepEqual(french, []);
    // the control of the French test's watcher: here it sees the English exercise shown
    assert.ok(englishShown > 0, 'the watcher never saw an exercise shown in English on the English page');
  } finally {
    await page.close();
  }
});

test('course page in French: each element ready in French, hidden until its strings came', { skip }, async () => {
  const page = await served.newPage();
  const scripts = scriptBodies(page);
  try {
    const { englishShown } = await openCourse(page, 'fr');
    // the memory lab, defined when it nears the viewport (or at idle): ready in French too
    await page.locator('#lab').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => window.__seen.some((s) => s.name === 'ffn-memory-lab'), null, { timeout: 30000 });
    const seen = await page.evaluate(() => window.__seen);
    // the control of the English test's check: the French strings are seen in the scripts this page loads
    assert.ok(
      (await scripts()).some(([, t]) => FRENCH.test(t)),
      'no script of the French page holds French',
    );
    assert.ok(seen.length >= 5, `${seen.length} elements`);
    // the memory lab's fact labels (Japan, The Valley) stay as its data gives them, in every language
    const labels = await page.$eval('ffn-memory-lab', (el) =>
      [...new Set(el.facts.flatMap((f) => [f.subject, f.object]))].sort((a, b) => b.length - a.length),
    );
    for (const s of seen) {
      assert.equal(s.hidden, false, `${s.name}: still hidden at ffn-ready`);
      assert.ok(s.texts.join(' ').length > 20, `${s.name} shows text: ${s.texts.join(' | ')}`);
      const texts = s.texts.map((t) => labels.reduce((r, l) => r.split(l).join(' '), t));
      // identifiers of the exercises (parameter and result names) are code in every language
      const found = findEnglish(texts).filter((f) => !/^word "(bias|gated|partial|hidden)" in/.test(f));
      assert.deepEqual(found, [], `${s.name}: English at ffn-ready`);
    }
    assert.ok(FRENCH.test(seen.find((s) => s.name === 'ffn-exercise').texts.join(' ')));
    assert.equal(englishShown, 0, 'an exercise was shown in English before its French arrived');
  } finally {
    await page.close();
  }
});
