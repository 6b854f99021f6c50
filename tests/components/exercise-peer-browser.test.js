// <ffn-exercise> as a peer of the three widgets, in headless Chromium: ffn-ready, theme="light|dark", the shared
// --ffn-* custom properties, the author's heading number, and a badge that shows the latest run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exercises } from 'ffn-lab/sandbox';
import { servedBrowser } from '../helpers/served-browser.js';

const GELU = exercises.find((e) => e.id === 'gelu');
const served = servedBrowser();
const { skip } = served;

/** A page with `body`, the three widgets and the exercise registered; ffn-ready events counted per element id. */
async function open(body, { scheme = 'light' } = {}) {
  const p = await served.newPage();
  await p.emulateMedia({ colorScheme: scheme });
  await p.route('**/tests/fixtures/peer.html', (route) =>
    route.fulfill({
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title><link rel="icon" href="data:,">
      <script type="module">
        window.__ready = {};
        document.addEventListener('ffn-ready', (e) => {
          window.__ready[e.target.id] = (window.__ready[e.target.id] || 0) + 1;
        });
        await import('/web/components/index.js');
        await import('/web/sandbox/index.js');
      </script></head><body>${body}</body></html>`,
    }),
  );
  await p.goto(new URL('tests/fixtures/peer.html', served.url).href);
  return p;
}

const readyOf = (p, ids) =>
  p.waitForFunction((list) => list.every((id) => window.__ready[id] >= 1), ids, { timeout: 20000 });
const bg = (p, id) => p.locator(`#${id}`).evaluate((e) => getComputedStyle(e).backgroundColor);

test(
  '<ffn-exercise> fires ffn-ready once, when its kernels ' + 'are loaded, like the widgets',
  { skip: skip || false },
  async () => {
    const p = await open(
      '<ffn-exercise id="ex" exercise="gelu"></ffn-exercise>' +
        '<ffn-param-calculator id="calc"></ffn-param-calculator>',
    );
    await readyOf(p, ['ex', 'calc']);
    await p.waitForTimeout(300);
    assert.deepEqual(await p.evaluate(() => window.__ready), { ex: 1, calc: 1 });
    // bubbles, as the widgets' event does
    assert.equal(
      await p.evaluate(
        () =>
          new Promise((ok) => {
            const el = document.createElement('ffn-exercise');
            el.setAttribute('exercise', 'ffn');
            document.body.addEventListener('ffn-ready', (e) => ok(e.target === el && e.bubbles), { once: true });
            document.body.append(el);
          }),
      ),
      true,
    );
    await p.close();
  },
);

test(
  'theme="light|dark" overrides the reader\'s scheme the same way for ' + '<ffn-exercise> and the widgets',
  { skip: skip || false },
  async () => {
    for (const scheme of ['light', 'dark']) {
      const p = await open(
        `
      <ffn-exercise id="ex" exercise="gelu"></ffn-exercise><ffn-param-calculator id="calc"></ffn-param-calculator>
      <ffn-exercise id="exl" exercise="gelu" theme="light"></ffn-exercise>
      <ffn-param-calculator id="calcl" theme="light"></ffn-param-calculator>
      <ffn-exercise id="exd" exercise="gelu" theme="dark"></ffn-exercise>
      <ffn-param-calculator id="calcd" theme="dark"></ffn-param-calculator>`,
        { scheme },
      );
      await readyOf(p, ['ex', 'calc', 'exl', 'calcl', 'exd', 'calcd']);
      const [d, l, dd] = [await bg(p, 'ex'), await bg(p, 'exl'), await bg(p, 'exd')];
      assert.equal(d, await bg(p, 'calc'), `${scheme}: default`);
      assert.equal(l, await bg(p, 'calcl'), `${scheme}: theme="light"`);
      assert.equal(dd, await bg(p, 'calcd'), `${scheme}: theme="dark"`);
      assert.equal(l, 'rgb(255, 255, 255)');
      assert.notEqual(dd, l);
      assert.equal(d, scheme === 'dark' ? dd : l);
      // the text follows: dark theme, light text
      const fg = await p.locator('#exd .prompt').evaluate((e) => getComputedStyle(e).color);
      assert.equal(fg, await p.locator('#calcd').evaluate((e) => getComputedStyle(e).color));
      await p.close();
    }
  },
);

test(
  'one set of --ffn-* custom properties themes all four elements; the retired ' + '--ffn-ex-* ones do nothing',
  { skip: skip || false },
  async () => {
    const p = await open(`
    <div id="themed" style="--ffn-accent: rgb(11, 110, 79); --ffn-bg: rgb(250, 240, 230); --ffn-font: Georgia, serif;
      --ffn-ex-accent: rgb(255, 0, 0); --ffn-ex-bg: rgb(255, 0, 0)">
      <ffn-exercise id="ex" exercise="gelu"></ffn-exercise>
      <ffn-memory-widget id="mem"></ffn-memory-widget>
      <ffn-activation-plot id="plot"></ffn-activation-plot>
      <ffn-param-calculator id="calc"></ffn-param-calculator>
    </div>`);
    await readyOf(p, ['ex', 'mem', 'plot', 'calc']);
    for (const id of ['ex', 'mem', 'plot', 'calc']) {
      assert.equal(await bg(p, id), 'rgb(250, 240, 230)', id);
      assert.match(await p.locator(`#${id}`).evaluate((e) => getComputedStyle(e).fontFamily), /^Georgia/, id);
    }
    const run = await p.locator('#ex button.run').evaluate((b) => getComputedStyle(b).backgroundColor);
    assert.equal(run, 'rgb(11, 110, 79)');
    await p.close();
  },
);

test(
  'the heading number comes from the author: none by default, number="…" ' + 'when given (and when changed)',
  { skip: skip || false },
  async () => {
    const p = await open(
      '<ffn-exercise id="a" exercise="gelu"></ffn-exercise>' +
        '<ffn-exercise id="b" exercise="gelu" number="4.2"></ffn-exercise>',
    );
    await readyOf(p, ['a', 'b']);
    assert.equal(await p.locator('#a h3').textContent(), GELU.title);
    assert.equal(await p.locator('#b h3').textContent(), `4.2. ${GELU.title}`);
    await p.locator('#a').evaluate((e) => e.setAttribute('number', '7'));
    assert.equal(await p.locator('#a h3').textContent(), `7. ${GELU.title}`);
    assert.equal(await p.locator('#a section').getAttribute('aria-label'), `Exercise: 7. ${GELU.title}`);
    await p.close();
  },
);

test(
  'the badge shows the latest run; "passed before" moves to the progress panel, and the solution needs no ' +
    'confirmation after a pass',
  { skip: skip || false },
  async () => {
    const p = await open('<ffn-exercise id="ex" exercise="gelu" storage-key="peer-test"></ffn-exercise>');
    await readyOf(p, ['ex']);
    const run = async (src) => {
      await p.locator('#ex textarea.code').fill(src);
      await p.locator('#ex').evaluate((e) => e.run());
      return p.locator('#ex .badge').textContent();
    };
    assert.equal(await run(GELU.solution), 'Passed');
    assert.equal(await run('function gelu(x) { return x }\nfunction geluTanh(x) { return x }'), 'Not passed');
    assert.match(await p.locator('#ex [part~="passed-before"]').textContent(), /^You passed this exercise on /);
    await p.reload();
    await readyOf(p, ['ex']);
    assert.equal(await p.locator('#ex .badge').textContent(), 'Not passed', 'the latest run, after a reload');
    assert.match(await p.locator('#ex [part~="passed-before"]').textContent(), /^You passed this exercise on /);
    await p.locator('#ex button[part~="solution-button"]').click();
    assert.equal(
      await p.locator('#ex .solution').isVisible(),
      true,
      'passed before: the solution shows without asking',
    );
    assert.equal(await run(GELU.solution), 'Passed');
    await p.close();
  },
);
