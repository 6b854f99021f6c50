// Bounds on what crosses into the page, in Chromium: hostile results, progress and attributes; tasks stay under 100 ms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { servedBrowser } from '../helpers/served-browser.js';
import { installStretch } from '../helpers/stretch.js';
import { ATTEMPTS } from '../helpers/timing.js';
import { hostileWorkerSource, checkHostileReport } from '../helpers/hostile-worker.js';
import { sabotagedGelu, checkSabotagedGeluReport } from '../helpers/sabotage.js';
import { exercises } from 'ffn-lab/sandbox';

const TOOLKIT = readFileSync(new URL('../../web/sandbox/run/toolkit.js', import.meta.url), 'utf8');
const LONG_TASK_MS = 100;

let page;
const served = servedBrowser(async () => {
  page = await served.newPage();
  // The stand-in worker and the toolkit next to it (frame-host.js fetches both, frame.html checks the import line).
  const js = (body) => (r) => r.fulfill({ contentType: 'text/javascript', body });
  await page.route('**/tests/fixtures/hostile/worker.js', js(hostileWorkerSource({ browser: true })));
  await page.route('**/tests/fixtures/hostile/toolkit.js', js(TOOLKIT));
  await page.goto(new URL('tests/fixtures/sandbox.html', served.url).href);
  await page.waitForFunction(() => window.__ready === true);
  await page.evaluate(() => {
    window.__long = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__long.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask' });
  });
  await installStretch(page);
});
const { skip } = served;
const SLOW = { skip: skip || false, timeout: 120_000 };

/** Run fn(arg) in the page; returns its value and the main thread's long tasks (> 50 ms) while it ran. */
async function timed(fn, arg) {
  return page.evaluate(
    async ({ src, arg }) => {
      const t0 = performance.now();
      let beat = t0;
      let worstGap = 0;
      const hb = setInterval(() => {
        const now = performance.now();
        worstGap = Math.max(worstGap, now - beat);
        beat = now;
      }, 10);
      const value = await (0, eval)(`(${src})`)(arg); // eslint-disable-line no-eval
      clearInterval(hb);
      await new Promise((ok) => setTimeout(ok, 100)); // long-task entries are delivered after the task
      const t1 = performance.now();
      const long = window.__long.filter((e) => e.start >= t0 && e.start <= t1).map((e) => Math.round(e.duration));
      return { value, long, worstGap: Math.round(worstGap), stretch: await window.__stretch() };
    },
    { src: fn.toString(), arg },
  );
}

/*
 * A long task is wall time: on this shared 2-core machine the OS can deschedule the page's thread in the
 * middle of a 10 ms task and report 100 ms, now and then or for minutes. So the bound is scaled by the
 * stretch the page measures right after each attempt (at most 2.5: tests/helpers/stretch.js), and each
 * case gets up to three attempts and must have one with every task under its bound; work that really
 * blocks (before the fix: seconds, for every message of 2^30 or more declared items) fails all three.
 */
async function withoutLongTasks(what, fn, arg, check) {
  const seen = [];
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const { value, long, worstGap, stretch } = await timed(fn, arg);
    const bound = LONG_TASK_MS * stretch;
    seen.push(`[${long.join(', ')}] (bound ${bound.toFixed(0)} ms, heartbeat gap ${worstGap} ms)`);
    if (process.env.FFN_BOUNDS_DEBUG) console.log(what, seen.at(-1));
    check(value);
    if (long.every((d) => d < bound)) return;
  }
  assert.fail(`${what}: main-thread tasks over their bound in all three attempts: ${seen.join('; ')}`);
}

// Hostile results: 2^32 - 1 declared items, a 1 MiB buffer behind 4 numbers, deep, wide, long texts, 2^32 - 1 logs.
test('browser: hostile results from a stand-in worker are refused, no main-thread task of 100 ms', SLOW, async () => {
  for (const { id } of exercises) {
    // every built-in: tensors, objects of tensors, indices, numbers
    const grade = (id) => {
      const workerUrl = new URL('/tests/fixtures/hostile/worker.js', location.href);
      return window.__grade(id, 'function f() {}', { workerUrl, timeout: 3000 });
    };
    await withoutLongTasks(`grading ${id}`, grade, id, (r) => checkHostileReport(r));
  }
});

// Every built-in the worker could use after learner code, Function.prototype call/apply/bind, Promise.prototype.then
// and setters on Object.prototype included.
test('browser: a correct solution overriding built-ins still passes, no learner text in the report', SLOW, async () => {
  const src = sabotagedGelu({ functionMethods: true });
  checkSabotagedGeluReport(await page.evaluate((src) => window.__grade('gelu', src, { timeout: 5000 }), src));
});

const PROGRESS = (exercises) => JSON.stringify({ format: 'ffn-lab-sandbox-progress', version: 1, exercises });
const AT_BOUNDS = Array(5000).fill('x'.repeat(19)).join('\n'); // 5,000 lines, 99,999 characters: the largest code kept
const NEWLINES = '\n'.repeat(99_990); // within the 100,000-character limit, 20 times the line bound

/** One <ffn-exercise> element per built-in exercise, reading progress from `key`, appended to the page. */
function mountAll(key) {
  return import('/web/sandbox/index.js').then(({ exerciseIds }) => {
    document.getElementById('all')?.remove();
    const box = document.createElement('div');
    box.id = 'all';
    document.body.append(box);
    for (const id of exerciseIds) {
      const e = document.createElement('ffn-exercise');
      e.setAttribute('storage-key', key);
      e.setAttribute('exercise', id);
      box.append(e);
    }
    const lengths = () => [...box.children].map((e) => e.code.length);
    return new Promise((ok) => requestAnimationFrame(() => setTimeout(() => ok(lengths()), 50)));
  });
}

// Eight exercises whose saved code is 99,990 newlines, or 5,000 lines at the bounds; the gutter draws a constant number
// of rows, aligned with the code when it scrolls.
test('browser: eight exercises with huge saved code render with no main-thread task of 100 ms', SLOW, async () => {
  const ids = await page.evaluate(async () => (await import('/web/sandbox/index.js')).exerciseIds);
  const cases = [
    ['99,990 newlines', NEWLINES, false],
    ['5,000 lines at the bounds', AT_BOUNDS, true],
  ];
  for (const [what, code, kept] of cases) {
    const text = PROGRESS(Object.fromEntries(ids.map((id) => [id, { code, status: 'attempted' }])));
    await page.evaluate((text) => localStorage.setItem('ffn-lab:bounds-load', text), text);
    await withoutLongTasks(`eight exercises, ${what}`, mountAll, 'ffn-lab:bounds-load', (lengths) => {
      assert.deepEqual(
        lengths.map((n) => n === code.length),
        ids.map(() => kept),
        `${what}: code lengths ${lengths}`,
      );
    });
    const notice = await page.evaluate(() => {
      const root = document.querySelector('#all ffn-exercise').shadowRoot;
      return root.querySelector('.notice').textContent;
    });
    const said = 'Your saved progress for this exercise was not all loaded: code has more than 5,000 lines.';
    assert.equal(notice, kept ? '' : said);
  }
  // the gutter: a window of rows, whatever the line count, that follows the code as it scrolls
  const g = await page.evaluate(async () => {
    const host = document.querySelector('#all ffn-exercise');
    host.scrollIntoView();
    const ta = host.shadowRoot.querySelector('textarea.code');
    const gutter = host.shadowRoot.querySelector('.gutter');
    const frame = () => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 30)));
    await frame();
    const lh = parseFloat(getComputedStyle(ta).lineHeight);
    const out = { rows: [], offsets: [] };
    for (const line of [1, 2500, 4990]) {
      ta.scrollTop = (line - 1) * lh + lh / 3;
      await frame();
      out.rows.push(gutter.querySelectorAll('span').length);
      const span = [...gutter.querySelectorAll('span')].find((s) => s.textContent.trim() === String(line + 1));
      const padTop = parseFloat(getComputedStyle(ta).paddingTop) + parseFloat(getComputedStyle(ta).borderTopWidth);
      const expected = ta.getBoundingClientRect().top + padTop + line * lh - ta.scrollTop; // top of line + 1
      out.offsets.push(span ? Math.abs(span.getBoundingClientRect().top - expected) : null);
    }
    out.visibleRows = Math.ceil(ta.clientHeight / lh);
    return out;
  });
  for (const r of g.rows) assert.ok(r <= g.visibleRows + 2, `the gutter holds ${r} rows for ${g.visibleRows} visible`);
  for (const o of g.offsets) assert.ok(o !== null && o < 1.5, `a line number is ${o} px off its line`);
  await page.evaluate(() => {
    document.getElementById('all').remove();
    localStorage.removeItem('ffn-lab:bounds-load');
  });
});

// Hostile imports through the Import button: no main-thread task of 100 ms, no other exercise's saved progress lost.
test('browser: importing hostile progress through the Import button', SLOW, async () => {
  const key = 'ffn-lab:bounds-import';
  const saved = {
    ffn: { code: '// my ffn', status: 'passed', passedAt: '2026-12-01T10:00:00.000Z' },
    gelu: { code: '// my gelu', status: 'attempted' },
  };
  await page.evaluate(
    ({ key, text }) => {
      localStorage.setItem(key, text);
      const e = document.createElement('ffn-exercise');
      e.id = 'importer';
      e.setAttribute('storage-key', key);
      e.setAttribute('exercise', 'gelu');
      document.body.append(e);
    },
    { key, text: PROGRESS(saved) },
  );
  const pad = (text, n) => text.slice(0, -1) + ' '.repeat(n - text.length) + '}';
  const cases = [
    ['99,990 newlines for another exercise', PROGRESS({ ffn: { code: NEWLINES } }), /^Could not import: .*ffn: code/],
    [
      'an all-invalid entry for another exercise',
      PROGRESS({ ffn: { code: 5, status: 'x', hintsShown: -1 } }),
      /^Could not import: importJSON: no entry could be imported \(ffn: /,
    ],
    ['2,000,001 characters', pad(PROGRESS({ gelu: { code: 'x' } }), 2_000_001), /^Could not import: .*2,000,001 char/],
    ['a million brackets', '['.repeat(1e6), /^Could not import: .*nested deeper than 3 levels/],
    [
      'one valid and one invalid entry, padded to 2,000,000 characters',
      pad(PROGRESS({ gelu: { code: '// imported', status: 'attempted' }, ffn: { code: NEWLINES } }), 2_000_000),
      /^Imported progress for 1 exercise\. Skipped 1 \(left as saved\): ffn: code has more than 5,000 lines\./,
    ],
  ];
  for (const [what, text, re] of cases) {
    // The progress box stays closed while the text is put in (a learner pasting 2 MB into an open box makes
    // the browser lay it out; that is not the import).
    await withoutLongTasks(
      `import: ${what}`,
      (text) => {
        const root = document.getElementById('importer').shadowRoot;
        root.querySelector('details.progress').open = false;
        root.querySelector('textarea.progress-json').value = text;
        root.querySelector('button[part~="import-button"]').click();
        return root.querySelector('.progress [role="status"]:not(:empty)')?.textContent ?? '';
      },
      text,
      (message) => assert.match(message, re, what),
    );
    const stored = await page.evaluate((key) => JSON.parse(localStorage.getItem(key)).exercises, key);
    assert.deepEqual(stored.ffn, saved.ffn, `${what}: ffn's saved progress changed`);
  }
  assert.equal(await page.evaluate(() => document.getElementById('importer').code), '// imported');
  await page.evaluate((key) => {
    document.getElementById('importer').remove();
    localStorage.removeItem(key);
  }, key);
});

// Attributes exercise, timeout, storage-key and properties seed, code: clamped or refused with a visible notice, never
// a throw or a hang.
test('browser: the element checks its attributes and properties', SLOW, async () => {
  const out = await page.evaluate(async () => {
    const errors = [];
    const onError = (e) => errors.push(String(e.message || e.reason));
    addEventListener('error', onError);
    addEventListener('unhandledrejection', onError);
    const frame = () => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 20)));
    const make = (attrs) => {
      const e = document.createElement('ffn-exercise');
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      document.body.append(e);
      return e;
    };
    const notice = (e) => e.shadowRoot.querySelector('[part="notice"]')?.textContent ?? null;
    const attempt = (f) => {
      try {
        f();
        return 'ok';
      } catch (err) {
        return `threw ${err.name}: ${err.message}`;
      }
    };
    const r = {};
    // timeout: clamped to 100..60,000 ms, nonsense means the default, each with a notice
    r.timeouts = [];
    for (const t of ['800', '1e300', '50', '-5', 'abc', '', 'Infinity', '0x10', ' 2500 ']) {
      const e = make({ exercise: 'gelu', timeout: t, 'storage-key': 'ffn-lab:bounds-attrs' });
      r.timeouts.push([t, e.timeout, notice(e)]);
      e.remove();
    }
    // a run with timeout="1e300" is graded with 60 s, not stopped at once (setTimeout fires at once past 2^31 - 1 ms)
    const slow = make({ exercise: 'gelu', timeout: '1e300', 'storage-key': 'ffn-lab:bounds-attrs' });
    slow.code = (await import('/web/sandbox/index.js')).exercises.find((x) => x.id === 'gelu').solution;
    r.slowRun = (await slow.run())?.passed ?? null;
    slow.remove();
    // storage-key: a 1 MB key or control characters keep progress in memory, with a notice
    const before = localStorage.length;
    for (const key of ['k'.repeat(1e6), 'a\u0000b']) {
      const e = make({ exercise: 'gelu', 'storage-key': key });
      e.code = '// typed';
      await frame();
      r[`key${key.length}`] = [notice(e), e.code, localStorage.length === before];
      e.remove();
    }
    // exercise: a 1 MB id, a prototype name, no id: a bounded message, no throw
    r.exercises = [];
    for (const id of ['x'.repeat(1e6), '__proto__', 'constructor', '']) {
      const e = make({ exercise: id });
      r.exercises.push(e.shadowRoot.textContent.length);
      e.remove();
    }
    // properties: values with no text, wrong types, code beyond the bounds
    const e = make({ exercise: 'gelu', 'storage-key': 'ffn-lab:bounds-attrs' });
    const throwing = {
      toString() {
        throw new Error('no text');
      },
    };
    r.setters = [];
    const seeds = ['abc', 1.5, NaN, 10n, throwing, Symbol('s')].map((v) => ['seed', v]);
    const codes = ['\n'.repeat(99_990), 'x'.repeat(100_001), Symbol('c'), throwing].map((v) => ['code', v]);
    const others = [
      ['code', 42],
      ['timeout', Symbol('t')],
      ['exercise', throwing],
      ['storageKey', Symbol('k')],
    ];
    for (const [name, v] of [...seeds, ...codes, ...others]) {
      const code = e.code;
      const threw = attempt(() => {
        e[name] = v;
      });
      r.setters.push([name, typeof v, threw, notice(e), e.code === code, e.seed]);
    }
    e.seed = 42;
    r.seed = [e.seed, notice(e)];
    e.code = 'function gelu(x) { return x }';
    r.code = [e.code, notice(e)];
    e.remove();
    await frame();
    removeEventListener('error', onError);
    removeEventListener('unhandledrejection', onError);
    r.errors = errors;
    return r;
  });
  const expectTimeouts = {
    800: [800, null],
    '1e300': [60000, /outside 100 to 60000 ms; using 60000/],
    50: [100, /using 100\./],
    '-5': [2000, /not a number of milliseconds; using 2000/],
    abc: [2000, /not a number/],
    '': [2000, /not a number/],
    Infinity: [2000, /not a number/],
    '0x10': [100, /using 100/],
    ' 2500 ': [2500, null],
  };
  for (const [t, ms, note] of out.timeouts) {
    const [want, re] = expectTimeouts[t];
    assert.equal(ms, want, `timeout="${t}"`);
    if (re) assert.match(note, re, `timeout="${t}"`);
    else assert.equal(note, '', `timeout="${t}"`);
  }
  assert.equal(out.slowRun, true, 'timeout="1e300": a correct solution did not pass');
  for (const k of ['key1000000', 'key3']) {
    assert.match(out[k][0], /^storage-key=".*"( \([\d,]+ characters\))? is not usable .* for this visit only\.$/, k);
    assert.ok(out[k][0].length < 300, `a notice of ${out[k][0].length} characters`);
    assert.equal(out[k][1], '// typed');
    assert.ok(out[k][2], `${k}: localStorage was written`);
  }
  for (const n of out.exercises) assert.ok(n < 1000, `the element shows ${n} characters for an odd exercise id`);
  const said = {
    seed: /seed was not changed: it must be a whole number; got /,
    code: /code was not set: code /,
    timeout: /timeout was not changed: it must be a number; got a Symbol\./,
    exercise: /exercise was not changed: it must be a string; got an object\./,
    storageKey: /storage-key was not changed: it must be a string; got a Symbol\./,
  };
  for (const [name, type, threw, note, codeKept, seed] of out.setters) {
    assert.equal(threw, 'ok', `${name} = a ${type}`);
    assert.match(note, said[name], `${name} = a ${type}`);
    assert.ok(note.length < 1000, `${name} = a ${type}: a notice of ${note.length} characters`);
    assert.ok(codeKept, `${name} = a ${type}: the code changed`);
    assert.equal(seed, undefined, `${name} = a ${type}: the seed changed`);
  }
  assert.match(out.setters.find((s) => s[0] === 'code').at(3), /code was not set: code has more than 5,000 lines/);
  assert.deepEqual(out.seed, [42, out.seed[1]]);
  assert.equal(out.code[0], 'function gelu(x) { return x }');
  assert.deepEqual(out.errors, []);
});

// The embed pages' URL (web/embed/params.js): a query past 65,536 characters is not applied, a bad theme or id and
// a long exercise number are refused with a message the page shows; the height messages still come, without the id.
test('browser: embed pages refuse URL parameters past their bounds with a visible message', SLOW, async () => {
  const p = await served.newPage();
  const errors = [];
  p.on('pageerror', (e) => errors.push(e.message));
  try {
    // the exercise page in an iframe: number of 5,000 characters, theme=purple, an id of 65 characters
    const q = `exercise=gelu&number=${'N'.repeat(5000)}&theme=purple&id=${'i'.repeat(65)}&storage-key=ffn-lab:embed-b`;
    const src = new URL(`/web/embed/exercise.html?${q}`, served.url).href;
    await p.goto(new URL('/tests/fixtures/sandbox.html', served.url).href);
    await p.evaluate((s) => {
      window.msgs = [];
      addEventListener('message', (e) => window.msgs.push(e.data));
      const f = document.createElement('iframe');
      f.style.cssText = 'width: 700px; height: 500px';
      f.src = s;
      document.body.append(f);
    }, src);
    await p.waitForFunction(() => window.msgs.some((m) => m?.type === 'ffn-lab:height'), null, { timeout: 15000 });
    const frame = p.frames().find((f) => f.url().includes('/web/embed/exercise.html'));
    const r = await frame.evaluate(() => {
      const el = document.querySelector('ffn-exercise');
      return {
        problem: document.querySelector('.embed-problem')?.textContent ?? '',
        notice: el.shadowRoot.querySelector('[part="notice"]')?.textContent ?? '',
        title: el.shadowRoot.querySelector('[part="title"]')?.textContent ?? '',
        theme: el.getAttribute('theme'),
      };
    });
    assert.match(r.problem, /theme="purple" is not "dark" or "light"/);
    assert.match(r.problem, /id="i{40}"… \(65 characters\) is not/);
    assert.match(r.notice, /number="N{40}…" \(5,?000 characters\) is not shown/);
    assert.ok(r.title.length < 200 && !r.title.includes('NNN'), `the heading: ${r.title.slice(0, 80)}`);
    assert.equal(r.theme, null);
    const heights = await p.evaluate(() => window.msgs.filter((m) => m?.type === 'ffn-lab:height'));
    assert.ok(
      heights.every((m) => m.id === null),
      JSON.stringify(heights[0]),
    );
    // a query past 65,536 characters (a server with room for it: here the route answers): nothing applied, said so
    const file = readFileSync(new URL('../../web/embed/activation-plot.html', import.meta.url), 'utf8');
    const html = { contentType: 'text/html', body: file };
    await p.route('**/web/embed/activation-plot.html?*', (route) => route.fulfill(html));
    const long = `range=-1,1&pad=${'z'.repeat(65_536)}`;
    await p.goto(new URL(`/web/embed/activation-plot.html?${long}`, served.url).href);
    await p.waitForFunction(() => document.querySelector('ffn-activation-plot')?.readout, null, { timeout: 15000 });
    const plot = await p.evaluate(() => ({
      problem: document.querySelector('.embed-problem')?.textContent ?? '',
      range: document.querySelector('ffn-activation-plot').getAttribute('range'),
    }));
    assert.match(plot.problem, /query is 65,?5\d\d characters long; at most 65,?536 are read/);
    assert.equal(plot.range, null, 'no parameter of an over-long query is applied');
    assert.deepEqual(errors, []);
  } finally {
    await p.close();
  }
});
