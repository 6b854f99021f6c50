// Page-side grading in headless Chromium (issues 18, 28): hostile results never block the main thread over 50 ms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedBrowser } from '../helpers/served-browser.js';
import { installStretch } from '../helpers/stretch.js';
import { ATTEMPTS } from '../helpers/timing.js';
import { exercises } from 'ffn-lab/sandbox';

const LONG_TASK_MS = 50; // the longest the page's main thread may be blocked while grading
const REPORT_JSON = 200_000;
const TIMEOUT = 2000;

let page;
const served = servedBrowser(async () => {
  page = await served.newPage();
  await page.goto(new URL('tests/fixtures/sandbox.html', served.url).href);
  await page.waitForFunction(() => window.__ready === true);
  // Every main-thread task over 50 ms (Chromium's long tasks), and a heartbeat's longest gap, from now on.
  await page.evaluate(() => {
    window.__long = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__long.push(Math.round(e.duration));
    }).observe({ type: 'longtask' });
    window.__gap = 0;
    let last = performance.now();
    const beat = () => {
      const now = performance.now();
      window.__gap = Math.max(window.__gap, now - last);
      last = now;
      setTimeout(beat, 10);
    };
    beat();
    window.__measure = async (work) => {
      await new Promise((ok) => setTimeout(ok, 100)); // the page settles
      window.__long.length = 0;
      window.__gap = 0;
      const t0 = performance.now();
      const out = await work();
      const ms = performance.now() - t0;
      await new Promise((ok) => setTimeout(ok, 100)); // long tasks are reported after they end
      const long = window.__long.slice();
      return { ...out, ms, long, gap: window.__gap, stretch: await window.__stretch() };
    };
  });
  await installStretch(page);
});
const { skip } = served;

const FNS = Object.fromEntries(exercises.map((e) => [e.id, Object.keys(e.functions)]));
const everyFunction = (id, body) => FNS[id].map((f) => `function ${f}(x) {\n  ${body}\n}`).join('\n');

// Results whose cost is on the page's side of the wire: typed arrays cross it as one block each.
const ATTACKS = {
  "the issue's 199,990-dimension shape":
    'const s = new Float64Array(199990).fill(1e20); s[0] = 0;\n  return { data: new Float64Array(0), shape: s }',
  'a nested array of 199,999 numbers': 'return [new Float64Array(199999).fill(1e300)]',
  '32 keys of 62 characters, each a 6,000-dimension shape':
    'const o = {};\n  for (let i = 0; i < 32; i++) { const s = new Float64Array(6000).fill(1e20); s[0] = 0; ' +
    'o["k" + "x".repeat(59) + String(i).padStart(2, "0")] = { data: new Float64Array(0), shape: s } }\n  return o',
  'an error of 100,000 control characters': 'throw new Error("\\u0001".repeat(1e5))',
};

test(
  'browser: grading hostile results never blocks the main thread over 50 ms; bounded reports in the timeout + 1 s',
  { skip: skip || false, timeout: 600_000 },
  async () => {
    const worst = { long: 0, gap: 0, size: 0, ms: 0, again: [] }; // again: the cases run more than once
    for (const { id } of exercises) {
      for (const [what, body] of Object.entries(ATTACKS)) {
        const label = `${id}, ${what}`;
        const grade = () =>
          page.evaluate(
            ([i, s, timeout]) =>
              window.__measure(async () => {
                const rep = await window.__grade(i, s, { timeout });
                return { size: JSON.stringify(rep).length, passed: rep.passed };
              }),
            [id, everyFunction(id, body), TIMEOUT],
          );
        // A task is timed by the wall clock: on a machine shared with other work a task (or a garbage collection)
        // may stretch past the bound now and then, or for minutes. Grading work that blocks does it every time
        // (before this change: 500 to 1,500 ms, every run). So the bound is scaled by the stretch the page measures
        // right after each run (at most 2.5: tests/helpers/stretch.js), and a case fails when it is over on three
        // runs in a row; the same for the grading's own time (timeout + 1 s).
        const over = (q) => Math.max(0, ...q.long) > LONG_TASK_MS * q.stretch || q.ms > TIMEOUT + 1000;
        const said = (q) =>
          `${Math.max(0, ...q.long)} ms (bound ${(LONG_TASK_MS * q.stretch).toFixed(0)} ms, ` +
          `grading ${q.ms.toFixed(0)} ms)`;
        let r = await grade();
        const seen = [said(r)];
        while (over(r) && seen.length < ATTEMPTS) {
          r = await grade();
          seen.push(said(r));
        }
        assert.equal(r.passed, false, label);
        assert.ok(r.size < REPORT_JSON, `${label}: a report of ${r.size} JSON characters`);
        assert.ok(r.ms <= TIMEOUT + 1000, `${label}: grading took over the timeout + 1 s in three runs: ${seen}`);
        const longest = Math.max(0, ...r.long);
        assert.ok(!over(r), `${label}: the longest tasks of three runs: ${seen.join(', ')}`);
        worst.long = Math.max(worst.long, longest);
        worst.gap = Math.max(worst.gap, r.gap);
        worst.size = Math.max(worst.size, r.size);
        worst.ms = Math.max(worst.ms, r.ms);
        if (seen.length > 1) worst.again.push(`${label}: ${seen.join(', ')}`);
      }
    }
    console.log(
      `worst: long task ${worst.long} ms, heartbeat gap ${worst.gap.toFixed(0)} ms, ` +
        `report ${worst.size} JSON characters, grading ${worst.ms.toFixed(0)} ms; over the bound at first: ` +
        (worst.again.join('; ') || 'none'),
    );
  },
);

test(
  "browser: the element grades and shows the issue's example without blocking the page, and says what came back",
  { skip: skip || false, timeout: 120_000 },
  async () => {
    const source = everyFunction('gelu', ATTACKS["the issue's 199,990-dimension shape"]);
    await page.locator('#ex-gelu textarea.code').fill(source);
    const show = () =>
      page.evaluate(() =>
        window.__measure(async () => {
          const el = document.querySelector('#ex-gelu');
          await el.run(); // what Ctrl+Enter and the Run button call
          await new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0))); // rendered
          const text = el.shadowRoot.textContent;
          return { shown: text.length, sizes: /199,990 sizes/.test(text) };
        }),
      );
    const over = (q) => Math.max(0, ...q.long) > LONG_TASK_MS * q.stretch;
    let r = await show();
    const seen = [`${Math.max(0, ...r.long)} ms (bound ${(LONG_TASK_MS * r.stretch).toFixed(0)} ms)`];
    while (over(r) && seen.length < ATTEMPTS) {
      r = await show(); // as above: blocking on three runs in a row fails
      seen.push(`${Math.max(0, ...r.long)} ms (bound ${(LONG_TASK_MS * r.stretch).toFixed(0)} ms)`);
    }
    assert.ok(!over(r), `the longest tasks of three runs: ${seen.join(', ')}`);
    assert.ok(r.shown < 100_000, `the element shows ${r.shown} characters`);
    assert.ok(r.sizes, 'the element says how many sizes the shape had');
  },
);
