// Bounds on what crosses into the page, in headless Chromium: hostile worker messages keep every main-thread task under 100 ms (PerformanceObserver for long tasks); learner overrides of every built-in, Function.prototype's included, change no result.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { servedBrowser } from './helpers/served-browser.js';
import { hostileWorkerSource, PAYLOADS } from './helpers/hostile-worker.js';
import { sabotagedGelu } from './helpers/sabotage.js';

const TOOLKIT = readFileSync(new URL('../web/sandbox/toolkit.js', import.meta.url), 'utf8');
const LONG_TASK_MS = 100;

let page;
const served = servedBrowser(async () => {
  page = await served.newPage();
  // The stand-in worker and the toolkit next to it (frame-host.js fetches both, frame.html checks the import line).
  await page.route('**/tests/fixtures/hostile/worker.js', (r) => r.fulfill({ contentType: 'text/javascript', body: hostileWorkerSource({ browser: true }) }));
  await page.route('**/tests/fixtures/hostile/toolkit.js', (r) => r.fulfill({ contentType: 'text/javascript', body: TOOLKIT }));
  await page.goto(new URL('tests/fixtures/sandbox.html', served.url).href);
  await page.waitForFunction(() => window.__ready === true);
  await page.evaluate(() => {
    window.__long = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__long.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask' });
  });
});
const { skip } = served;

/** Run fn(arg) in the page; returns its value and the main thread's long tasks (> 50 ms) while it ran. */
async function timed(fn, arg) {
  return page.evaluate(async ({ src, arg }) => {
    const t0 = performance.now();
    let beat = t0;
    let worstGap = 0;
    const hb = setInterval(() => {
      const now = performance.now();
      worstGap = Math.max(worstGap, now - beat);
      beat = now;
    }, 10);
    const value = await (0, eval)(src)(arg); // eslint-disable-line no-eval
    clearInterval(hb);
    await new Promise((ok) => setTimeout(ok, 100)); // long-task entries are delivered after the task
    const t1 = performance.now();
    const long = window.__long.filter((e) => e.start >= t0 && e.start <= t1).map((e) => Math.round(e.duration));
    return { value, long, worstGap: Math.round(worstGap) };
  }, { src: fn.toString(), arg });
}

/*
 * A long task is wall time: on this shared 2-core machine the OS can deschedule the page's thread in the
 * middle of a 10 ms task and report 100 ms. So each case gets up to three attempts and must have one
 * with every task under 100 ms; work that really takes 100 ms (before the fix: seconds, for every
 * message of 2^30 or more declared items) fails all three.
 */
async function withoutLongTasks(what, fn, arg, check) {
  const seen = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    const { value, long, worstGap } = await timed(fn, arg);
    check(value);
    seen.push(`[${long.join(', ')}] (heartbeat gap ${worstGap} ms)`);
    if (process.env.FFN_BOUNDS_DEBUG) console.log(what, seen.at(-1));
    if (long.every((d) => d < LONG_TASK_MS)) return;
  }
  assert.fail(`${what}: main-thread tasks over ${LONG_TASK_MS} ms in all three attempts: ${seen.join('; ')}`);
}

test('browser: a stand-in worker sending hostile results (2^32 - 1 declared items, an 8 MiB buffer behind 4 numbers, deep, wide, long texts, 2^32 - 1 log lines) is refused with the page\'s main thread never blocked 100 ms', { skip: skip || false, timeout: 120_000 }, async () => {
  const check = (r) => {
    assert.equal(r.status, 'done', r.summary);
    assert.equal(r.passed, false);
    r.tests.forEach((t, i) => {
      const [name, , re] = PAYLOADS[i % PAYLOADS.length];
      if (re) {
        assert.equal(t.status, 'refused', `${name}: ${t.status} ${t.message}`);
        assert.match(t.message, re, name);
      } else assert.equal(t.status, 'fail', name);
    });
    assert.equal(r.logs.length, 200);
    assert.ok(JSON.stringify(r).length < 200_000);
  };
  for (const id of ['gelu', 'ffn']) {
    await withoutLongTasks(`grading ${id}`, (id) => window.__grade(id, 'function f() {}', { workerUrl: new URL('/tests/fixtures/hostile/worker.js', location.href), timeout: 3000 }), id, check);
  }
});

test('browser: learner code overriding every built-in the worker could use after it (Function.prototype call/apply/bind, Promise.prototype.then and setters on Object.prototype included) still passes with a correct solution, and no learner text reaches the report', { skip: skip || false }, async () => {
  const r = await page.evaluate((src) => window.__grade('gelu', src, { timeout: 5000 }), sabotagedGelu({ functionMethods: true }));
  assert.equal(r.passed, true, `${r.summary}\n${r.tests.filter((t) => !t.pass).map((t) => t.message).join('\n')}`);
  assert.ok(!JSON.stringify(r).includes('PWNED'));
  assert.ok(r.logs.length > 0 && r.logs.every((l) => l.text === 'grabbed 0 none'), JSON.stringify(r.logs));
});
