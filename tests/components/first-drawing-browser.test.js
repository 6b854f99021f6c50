// The first drawings of a page's elements, in Chromium: the exercises of the markup are not drawn in the task that
// defines <ffn-exercise> (one task each, later), yet a script reading or setting one's code gets it at once; an
// exercise a script connects is drawn at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedBrowser } from '../helpers/served-browser.js';

const served = servedBrowser();
const { skip } = served;

const N = 8;
const PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>first drawings</title>' +
  '<link rel="icon" href="data:,"></head><body>' +
  Array.from({ length: N }, (_, i) => `<ffn-exercise exercise="gelu" storage-key="fd-${i}"></ffn-exercise>`).join('') +
  '</body></html>';

test(
  "markup exercises: none drawn in the defining task, each later; a script's exercise drawn at once",
  { skip: skip || false, timeout: 120_000 },
  async () => {
    const page = await served.newPage();
    try {
      await page.route('**/tests/fixtures/first-drawing.html', (route) =>
        route.fulfill({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE }),
      );
      await page.goto(new URL('tests/fixtures/first-drawing.html', served.url).href);
      // define the element in one task and look, in that same task, at what it drew
      const inTask = await page.evaluate(async () => {
        const drawn = () =>
          [...document.querySelectorAll('ffn-exercise')].filter((e) => e.shadowRoot?.querySelector('section'));
        const mod = await import('/web/sandbox/element/index.js');
        const before = drawn().length;
        mod.defineFfnExercise();
        const after = drawn().length;
        // the last one, not yet drawn: its code (starter code) is there when asked for
        const last = document.querySelectorAll('ffn-exercise')[document.querySelectorAll('ffn-exercise').length - 1];
        const waiting = !last.shadowRoot.querySelector('textarea');
        const code = last.code;
        return { before, after, waiting, code, drawnNow: !!last.shadowRoot.querySelector('textarea') };
      });
      assert.equal(inTask.before, 0, 'nothing is drawn before the element is defined');
      assert.equal(inTask.after, 0, 'no exercise of the markup was drawn in the task that defined the element');
      assert.ok(inTask.waiting, 'the last exercise was still to be drawn');
      assert.match(inTask.code, /function gelu/, 'reading code draws the exercise and gives its starter code');
      assert.ok(inTask.drawnNow, 'the exercise whose code was read is drawn');
      // every exercise is drawn later, each with its editor
      await page.waitForFunction(
        (n) =>
          [...document.querySelectorAll('ffn-exercise')].filter((e) => e.shadowRoot.querySelector('textarea'))
            .length === n,
        N,
        { timeout: 60000 },
      );
      // an exercise a script connects is drawn in the same task, as before
      const scripted = await page.evaluate(() => {
        const el = document.createElement('ffn-exercise');
        el.setAttribute('exercise', 'gelu');
        document.body.append(el);
        return !!el.shadowRoot.querySelector('textarea');
      });
      assert.ok(scripted, "a script's exercise is drawn when it is connected");
    } finally {
      await page.close();
    }
  },
);
