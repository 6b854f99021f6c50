// The activation plot's first drawing, in Chromium: drawn in steps (frames, curves, each group of notes in tasks of
// their own), it ends as the plot a whole redraw draws at the same width, notes, cursor and readout included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedBrowser } from '../helpers/served-browser.js';

const served = servedBrowser();
const { skip } = served;

/** The plot's drawing and readout as text: its SVG's markup, and the text of the rest of its shadow root. */
const snapshot = (el) => {
  const root = el.shadowRoot;
  const svg = root.querySelector('svg.plot');
  const rest = [...root.children].filter((n) => n.localName !== 'style' && n.localName !== 'div');
  return {
    svg: svg?.outerHTML ?? '',
    notes: root.querySelectorAll('text.note').length,
    text: rest.map((n) => n.textContent).join('|'),
    table: root.querySelector('table')?.textContent ?? '',
  };
};

for (const [width, query] of [
  [1280, ''],
  [360, '?range=-3,2&x=0.5'],
]) {
  test(
    `activation plot at ${width} px${query ? ` (${query})` : ''}: its first drawing in steps is a whole redraw's`,
    {
      skip: skip || false,
      timeout: 60_000,
    },
    async () => {
      const page = await served.newPage();
      try {
        await page.setViewportSize({ width, height: 800 });
        // the first drawing, from the markup: read when ffn-ready fires (after its last step)
        await page.addInitScript(`window.__snap = ${snapshot};
        document.addEventListener('ffn-ready', (e) => { window.__first = window.__snap(e.target); }, { once: true });`);
        await page.goto(new URL(`web/embed/activation-plot.html${query}`, served.url).href);
        await page.waitForFunction(() => window.__first, null, { timeout: 45_000 });
        const first = await page.evaluate(() => window.__first);
        // a whole redraw at the same width: the curves written again (the same list) draw the plot anew, in one task
        const whole = await page.evaluate(() => {
          const el = document.querySelector('ffn-activation-plot');
          const before = el.shadowRoot.querySelector('svg.plot');
          el.curves = el.curves;
          return { anew: before !== el.shadowRoot.querySelector('svg.plot'), ...window.__snap(el) };
        });
        assert.ok(whole.anew, 'the plot was drawn anew');
        assert.ok(first.notes >= 2, `the first drawing has its notes (${first.notes})`);
        assert.match(first.table, /\d/, 'the first drawing filled the readout table');
        assert.equal(first.notes, whole.notes, 'as many notes');
        assert.equal(first.text, whole.text, 'the same page part');
        assert.equal(first.table, whole.table, 'the same readout');
        assert.equal(first.svg, whole.svg, 'the same drawing, element for element');
      } finally {
        await page.close();
      }
    },
  );
}
