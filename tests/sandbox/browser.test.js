// The exercise sandbox in headless Chromium: type, run, pass; diagnosis; a stopped infinite loop with a live page;
// progress across reloads; located errors; no network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedBrowser } from '../helpers/served-browser.js';
import { fetchFromPlainWorker } from '../helpers/browser.js';
import { assertPassed } from '../helpers/report.js';
import { exercises } from 'ffn-lab/sandbox';
import { variantSources } from '../helpers/sandbox-variants.js';

const solution = (id) => exercises.find((e) => e.id === id).solution;

let page;
const requests = [];
const pageErrors = [];

const served = servedBrowser(async () => {
  served.context.on('request', (req) => requests.push(req.url()));
  page = await served.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(new URL('tests/fixtures/sandbox.html', served.url).href);
  await page.waitForFunction(() => window.__ready === true);
});
const { skip } = served;

const code = (id) => page.locator(`#${id} textarea.code`);
const summary = (id) => page.locator(`#${id} .summary`);

/** The console messages of page p that speak of a Content Security Policy, gathered as they come. */
function cspConsoleMessages(p) {
  const seen = [];
  p.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) seen.push(m.text());
  });
  return seen;
}

async function typeAndRun(id, source) {
  const ta = code(id);
  await ta.fill(source);
  await ta.focus();
  await page.keyboard.press('Control+Enter');
}

test(
  'browser: type a correct solution, run with Ctrl+Enter, every test passes and ' + 'ffn-exercise-passed fires',
  { skip: skip || false },
  async () => {
    await typeAndRun('ex-gelu', solution('gelu'));
    await page
      .waitForFunction(
        () =>
          /All \d+ tests passed/.test(
            document.querySelector('#ex-gelu').shadowRoot.querySelector('.summary')?.textContent || '',
          ),
        null,
        { timeout: 15000 },
      )
      .catch(async (e) =>
        assert.fail(`${e.message}; the results say: ${await page.locator('#ex-gelu .results').textContent()}`),
      );
    const passes = await page.locator('#ex-gelu li.pass').count();
    assert.equal(passes, 18);
    assert.equal(await page.locator('#ex-gelu .badge').textContent(), 'Passed');
    const events = await page.evaluate(() => window.__events);
    assert.ok(events.some((e) => e.type === 'ffn-exercise-passed' && e.exercise === 'gelu' && e.passed === true));
    // the summary is announced in a polite live region (the per-test list is not read out); the editor is a labelled
    // textarea
    assert.equal(await page.locator('#ex-gelu .announce').getAttribute('aria-live'), 'polite');
    assert.match(await page.locator('#ex-gelu .announce').textContent(), /All 18 tests passed/);
    assert.match(await code('ex-gelu').getAttribute('aria-label'), /gelu and geluTanh/);
    // theming through a custom property and ::part reaches the shadow DOM
    const style = await page
      .locator('#ex-gelu button.run')
      .evaluate((b) => [getComputedStyle(b).backgroundColor, getComputedStyle(b).fontWeight]);
    assert.deepEqual(style, ['rgb(122, 31, 162)', '700']);
  },
);

test('browser: a wrong solution shows the diagnosis', { skip: skip || false }, async () => {
  await typeAndRun('ex-gelu', variantSources['gelu-swapped'].source);
  await page.waitForFunction(
    () =>
      /tests passed/.test(document.querySelector('#ex-gelu').shadowRoot.querySelector('.summary')?.textContent || '') &&
      !/All/.test(document.querySelector('#ex-gelu').shadowRoot.querySelector('.summary').textContent),
    null,
    { timeout: 15000 },
  );
  const diag = await page.locator('#ex-gelu .diagnosis').textContent();
  assert.match(diag, /Likely mistake: Exact and tanh GELU swapped/);
  assert.match(
    await page.locator('#ex-gelu li.fail .detail').first().textContent(),
    /first mismatch at \[\d+\]: got .*, expected/,
  );
});

test(
  'browser: an infinite loop is stopped at the timeout and ' + 'the page stays responsive',
  { skip: skip || false },
  async () => {
    const before = Number(await page.locator('#ticks').textContent());
    const t0 = Date.now();
    await typeAndRun('ex-gelu', 'function gelu(x) {\n  while (true) {}\n}\nfunction geluTanh(x) { return x }\n');
    // While the learner code spins in its worker, the main thread keeps answering and ticking.
    await page.waitForTimeout(300);
    const mid = await page.evaluate(() => Number(document.getElementById('ticks').textContent));
    assert.ok(mid > before + 1, `heartbeat moved from ${before} to ${mid}`);
    await page.waitForFunction(
      () =>
        /more than 800 ms/.test(
          document.querySelector('#ex-gelu').shadowRoot.querySelector('.summary')?.textContent || '',
        ),
      null,
      { timeout: 10000 },
    );
    assert.ok(Date.now() - t0 < 8000);
    assert.match(await summary('ex-gelu').textContent(), /infinite loop/);
    assert.equal(await page.locator('#ex-gelu button.run').isEnabled(), true);
  },
);

test('browser: progress (code and passed status) survives a reload', { skip: skip || false }, async () => {
  const mine = '// my last attempt\nfunction gelu(x) { return x }\n';
  await code('ex-gelu').fill(mine);
  // the editor saves 300 ms after the last keystroke (and on blur)
  await page.waitForFunction(
    (m) => JSON.parse(localStorage.getItem('ffn-lab:sandbox:v1')).exercises.gelu.code === m,
    mine,
    { timeout: 5000 },
  );
  await page.reload();
  await page.waitForFunction(() => window.__ready === true);
  assert.equal(await code('ex-gelu').inputValue(), mine);
  // the badge is the latest run (the diagnosis and timeout tests above failed); the pass is kept as passedAt
  assert.equal(await page.locator('#ex-gelu .badge').textContent(), 'Not passed');
  assert.match(await page.locator('#ex-gelu [part~="passed-before"]').textContent(), /^You passed this exercise on /);
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('ffn-lab:sandbox:v1')));
  assert.equal(stored.version, 1);
  assert.equal(stored.exercises.gelu.status, 'attempted');
  assert.match(stored.exercises.gelu.passedAt, /^\d{4}-\d\d-\d\dT/);
  // export, wipe, import through the element's progress box
  await page.locator('#ex-gelu details.progress summary').click();
  await page.locator('#ex-gelu button[part~="export-button"]').click();
  const exported = await page.locator('#ex-gelu textarea.progress-json').inputValue();
  assert.equal(JSON.parse(exported).exercises.gelu.code, mine);
  await page.evaluate(() => localStorage.removeItem('ffn-lab:sandbox:v1'));
  await page.locator('#ex-gelu textarea.progress-json').fill(exported);
  await page.locator('#ex-gelu button[part~="import-button"]').click();
  assert.match(
    await page.locator('#ex-gelu details.progress [role="status"]').textContent(),
    /Imported progress for \d+ exercise/,
  );
  assert.equal(await code('ex-gelu').inputValue(), mine);
  assert.equal(await page.locator('#ex-gelu .badge').textContent(), 'Not passed');
  assert.match(await page.locator('#ex-gelu [part~="passed-before"]').textContent(), /^You passed this exercise on /);
});

test(
  'browser: hints are progressive; the solution needs a ' + 'confirmation before a pass',
  { skip: skip || false },
  async () => {
    const hintBtn = page.locator('#ex-ffn button[part~="hint-button"]');
    assert.equal(await hintBtn.textContent(), 'Hint (1 of 3)');
    await hintBtn.click();
    await hintBtn.click();
    assert.equal(await page.locator('#ex-ffn .hints li').count(), 2);
    assert.equal(await page.locator('#ex-ffn .solution').isVisible(), false);
    await page.locator('#ex-ffn button[part~="solution-button"]').click();
    assert.equal(await page.locator('#ex-ffn .solution').isVisible(), false); // asks first
    assert.equal(await page.locator('#ex-ffn .confirm').isVisible(), true);
    await page.locator('#ex-ffn button[part~="confirm-button"]').click();
    assert.equal(await page.locator('#ex-ffn .solution').isVisible(), true);
    assert.match(await page.locator('#ex-ffn .solution pre').textContent(), /function ffnParamCount/);
    // Tab indents inside the editor
    await code('ex-ffn').fill('x');
    await code('ex-ffn').focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('Tab');
    assert.equal(await code('ex-ffn').inputValue(), '  x');
    // Enter keeps the indentation, one level deeper after an opening brace
    await code('ex-ffn').fill('function f() {');
    await code('ex-ffn').focus();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('return 1;');
    assert.equal(await code('ex-ffn').inputValue(), 'function f() {\n  return 1;');
    await code('ex-ffn').fill('  x');
    await code('ex-ffn').focus();
    // Escape releases the Tab key: focus moves on to the Run button instead of indenting
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    assert.equal(await code('ex-ffn').inputValue(), '  x');
    assert.equal(await page.evaluate(() => document.activeElement.shadowRoot.activeElement.textContent), 'Run tests');
    // Reset (confirmed) restores the starter and clears hints and saved progress for this exercise only
    await code('ex-ffn').fill('function ffn() { return 1 }');
    await page.locator('#ex-ffn button[part~="reset-button"]').click();
    await page.locator('#ex-ffn button[part~="confirm-button"]').click();
    const starter = exercises.find((e) => e.id === 'ffn').starter;
    assert.equal(await code('ex-ffn').inputValue(), starter);
    assert.equal(await page.locator('#ex-ffn .hints li').count(), 0);
    await page.waitForTimeout(400);
    const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('ffn-lab:sandbox:v1')).exercises);
    assert.equal(saved.ffn, undefined);
    assert.ok(saved.gelu.passedAt, 'the other exercise keeps its progress');
  },
);

test(
  'browser: learner code cannot post to the page; forged ' + '"passed" messages change nothing',
  { skip: skip || false },
  async () => {
    const src = `function gelu(x) {
  const tries = [];
  for (const f of [() => postMessage({ type: 'done', compileError: null }),
    () => self.postMessage({ type: 'result', index: 0 }),
    () => Object.getPrototypeOf(self).postMessage.call(self, {}),
    () => DedicatedWorkerGlobalScope.prototype.postMessage.call(self, {}),
    () => new MessageChannel().port1.postMessage({})]) {
    try { f(); tries.push('posted'); } catch (e) { tries.push('refused'); }
  }
  if (tries.includes('posted')) throw new Error(tries.join());
  return { data: new Float32Array(x.data.length), shape: x.shape };
}
function geluTanh(x) { return gelu(x) }`;
    const r = await page.evaluate((s) => window.__grade('gelu', s), src);
    assert.equal(r.passed, false);
    assert.equal(r.tests[1].status, 'fail', r.tests[1].message?.text); // reached the return: every post was refused
  },
);

test(
  "browser: messages from outside the run's own channel " +
    'change nothing: fake results posted to the page, and a second init or fake start/stop posted to the sandbox ' +
    "frame's window, are ignored",
  { skip: skip || false },
  async () => {
    const out = await page.evaluate(async (sol) => {
      const { gradeExercise } = await import('/web/sandbox/index.js');
      await gradeExercise('gelu', sol); // the frame exists
      const iframe = document.querySelector('iframe[sandbox="allow-scripts"]');
      const spy = new MessageChannel();
      const heard = [];
      spy.port1.onmessage = (e) => heard.push(e.data && e.data.type);
      const fakes = [
        { type: 'ready' },
        { type: 'done', compileError: null, logs: [] },
        { type: 'result', index: 0, result: { ok: true, value: { k: 'number', v: 1 } } },
      ];
      const wrong =
        'function gelu(x) { return { data: new Float32Array(x.data.length), shape: x.shape } }\nfunction ' +
        'geluTanh(x) { return gelu(x) }';
      const pending = gradeExercise('gelu', wrong);
      for (const m of fakes) window.postMessage(m, '*');
      // If the frame took a second init, every later run would use this worker, which never starts.
      iframe.contentWindow.postMessage(
        {
          type: 'ffn-lab-sandbox-init',
          worker: "import * as toolkit from './toolkit.js';\nthrow new Error('hijacked');",
          toolkit: '',
        },
        '*',
        [spy.port2],
      );
      iframe.contentWindow.postMessage({ type: 'stop', id: 1 }, '*');
      iframe.contentWindow.postMessage({ type: 'ping', seq: 1 }, '*');
      const r = await pending;
      const next = await gradeExercise('gelu', sol);
      await new Promise((ok) => setTimeout(ok, 200));
      return {
        wrong: [r.status, r.passed, r.passedCount],
        next: next.passed,
        heard,
        frames: document.querySelectorAll('iframe[sandbox="allow-scripts"]').length,
      };
    }, solution('gelu'));
    assert.deepEqual(out.wrong.slice(0, 2), ['done', false]);
    assert.ok(out.wrong[2] < 18);
    assert.equal(out.next, true, 'a later run failed: the frame took the second init');
    assert.deepEqual(out.heard, [], 'the frame answered a port that was not its own');
    assert.equal(out.frames, 1);
  },
);

test(
  'browser: errors carry learner line and column (runtime and ' + 'syntax), and mountExercise works',
  { skip: skip || false },
  async () => {
    const r = await page.evaluate(() =>
      window.__grade('gelu', 'function gelu(x) {\n  const a = 1;\n  return map(x, z => z *);\n}\n'),
    );
    assert.equal(r.error.name, 'SyntaxError');
    assert.equal(r.error.line, 3);
    assert.equal(r.error.column, 25);
    const t = await page.evaluate(() =>
      window.__grade('gelu', 'function gelu(x) {\n\n  null.foo;\n}\nfunction geluTanh(x) { return x }'),
    );
    assert.equal(t.tests[0].error.line, 3);
    assert.equal(t.tests[0].error.column, 8);
    const mounted = await page.evaluate(async () => {
      window.__mounted.element.code = (await import('/web/sandbox/index.js')).exercises.find(
        (e) => e.id === 'memories',
      ).solution;
      return (await window.__mounted.run()).passed;
    });
    assert.equal(mounted, true);
  },
);

test(
  'browser: network and code loading are refused inside the ' + 'worker and no request leaves',
  { skip: skip || false },
  async () => {
    const marker = 'http://127.0.0.1:9/ffn-lab-sandbox-probe';
    const attempts = [
      `fetch("${marker}/fetch")`,
      `const r = new XMLHttpRequest(); r.open("GET", "${marker}/xhr"); r.send()`,
      `new WebSocket("ws://127.0.0.1:9/ffn-lab-sandbox-probe")`,
      `new EventSource("${marker}/es")`,
      `importScripts("${marker}/importScripts.js")`,
      `new Worker("${marker}/worker.js")`,
      `(async function(){}).constructor("return imp" + "ort('${marker}/ctor.js')")()`,
      `setTimeout("fetch('${marker}/timer')", 0)`,
      `new FontFace("probe", "url(${marker}/font.woff2)").load()`,
      `self.fonts.add(1)`,
    ];
    for (const a of attempts) {
      const r = await page.evaluate(
        (src) => window.__grade('gelu', src),
        `function gelu(x) {\n  ${a};\n  return x;\n}\nfunction geluTanh(x) { return x }`,
      );
      assert.equal(r.tests[0].status, 'error', `${a}: ${r.tests[0].status}`);
      assert.equal(r.tests[0].error.line, 2, a);
    }
    const imp = await page.evaluate(
      (src) => window.__grade('gelu', src),
      `function gelu(x) { return x }\nimport("${marker}/dynamic.js");`,
    );
    assert.equal(imp.status, 'error');
    assert.match(imp.error.message, /import is not available/);
    const reach = await page.evaluate(() =>
      window.__grade(
        'gelu',
        'function gelu(x) {\n  const seen = [typeof ' +
          'document, typeof localStorage, typeof parent, typeof top, typeof window, typeof indexedDB, typeof caches, ' +
          'typeof navigator].join();\n  if (seen !== ' +
          '"undefined,undefined,undefined,undefined,undefined,undefined,undefined,undefined") throw new ' +
          'Error(seen);\n  return x;\n}',
      ),
    );
    assert.notEqual(reach.tests[0].status, 'error', reach.tests[0].message?.text);
    await page.waitForTimeout(200);
    assert.deepEqual(
      requests.filter((u) => u.includes('ffn-lab-sandbox-probe')),
      [],
    );
    // Controls: the request log does see a fetch from the page and from an ordinary (unlocked) worker.
    await page.evaluate(async (m) => {
      await fetch(`${m}/page-control`).catch(() => {});
    }, marker);
    await fetchFromPlainWorker(page, `${marker}/worker-control`);
    await page.waitForTimeout(200);
    assert.ok(
      requests.some((u) => u.endsWith('/page-control')),
      'page control request logged',
    );
    assert.ok(
      requests.some((u) => u.endsWith('/worker-control')),
      'worker control request logged',
    );
    assert.deepEqual(pageErrors, []);
  },
);

test(
  "browser: grading works under a strict CSP (page: no unsafe-eval, frame-src 'self', worker-src 'none'; " +
    'sandbox frame: its own no-network CSP)',
  { skip: skip || false },
  async () => {
    const p = await served.newPage();
    const violations = cspConsoleMessages(p);
    const frameCsp = [];
    p.on('response', (r) => {
      if (r.url().endsWith('/web/sandbox/run/frame.html')) frameCsp.push(r.headers()['content-security-policy'] || '');
    });
    await p.route('**/tests/fixtures/sandbox.html', async (route) => {
      const res = await route.fetch();
      // worker-src 'none': the page itself must start no worker (the learner's worker lives in the frame).
      const csp =
        "default-src 'self'; script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'self' " +
        "'unsafe-inline'; frame-src 'self'; worker-src 'none'; connect-src 'self'; img-src 'self' data:";
      await route.fulfill({ response: res, headers: { ...res.headers(), 'content-security-policy': csp } });
    });
    await p.goto(new URL('tests/fixtures/sandbox.html', served.url).href);
    await p.waitForFunction(() => window.__ready === true);
    await p.evaluate(() => {
      window.__violations = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    const ok = await p.evaluate((src) => window.__grade('gelu', src), solution('gelu'));
    assertPassed(ok);
    assert.equal(frameCsp.length, 1, 'one sandbox frame, loaded once');
    assert.match(frameCsp[0], /default-src 'none'/);
    assert.match(frameCsp[0], /connect-src 'none'/);
    assert.match(frameCsp[0], /sandbox allow-scripts/);
    assert.deepEqual(violations, []);
    assert.deepEqual(await p.evaluate(() => window.__violations), []);
    // Control: under this policy a worker of the page itself is refused, and the listener sees it.
    await p.evaluate(() => {
      new Worker('/web/sandbox/run/toolkit.js', { type: 'module' }).onerror = (e) => e.preventDefault();
    });
    await p.waitForFunction(() => window.__violations.some((v) => v.startsWith('worker-src')), null, { timeout: 5000 });
    await p.close();
  },
);

test(
  'browser: concurrent runs of several exercises share one sandbox frame without harming each other: a timeout or ' +
    'an abort stops only its own run, and the frame is reused',
  { skip: skip || false },
  async () => {
    const out = await page.evaluate(
      async (sol) => {
        const { gradeExercise } = await import('/web/sandbox/index.js');
        const frames = () => document.querySelectorAll('iframe[sandbox="allow-scripts"]').length;
        await gradeExercise('gelu', sol.gelu); // the frame exists from here on
        const before = frames();
        const stop = new AbortController();
        const runs = [
          gradeExercise('gelu', sol.gelu, { timeout: 5000 }),
          gradeExercise('ffn', 'function ffn(X) { while (true) {} }', { timeout: 600 }),
          gradeExercise('swiglu', sol.swiglu, { timeout: 5000 }),
          gradeExercise('memories', 'function ffnMemories() { for (;;) {} }', { timeout: 5000, signal: stop.signal }),
          gradeExercise('ffn', sol.ffn, { timeout: 5000 }),
        ];
        setTimeout(() => stop.abort(), 300);
        const t0 = performance.now();
        const reports = await Promise.all(runs);
        const ms = performance.now() - t0;
        const after = await gradeExercise('memories', sol.memories);
        const during = frames();
        // A host page that takes the frame out of the document (a framework re-render) costs one new frame.
        document.querySelector('iframe[sandbox="allow-scripts"]').remove();
        const removed = await gradeExercise('gelu', sol.gelu);
        return {
          before,
          during,
          ms,
          statuses: reports.map((r) => `${r.exercise}:${r.status}:${r.passed}`),
          after: after.passed,
          removed: removed.passed,
          frames: frames(),
        };
      },
      { gelu: solution('gelu'), ffn: solution('ffn'), swiglu: solution('swiglu'), memories: solution('memories') },
    );
    assert.deepEqual(out.statuses, [
      'gelu:done:true',
      'ffn:timeout:false',
      'swiglu:done:true',
      'memories:aborted:false',
      'ffn:done:true',
    ]);
    assert.ok(out.ms < 4000, `the batch took ${out.ms} ms: the abort did not stop the spinning run`);
    assert.equal(out.after, true);
    assert.equal(out.removed, true, 'grading after the frame was removed from the page');
    assert.deepEqual([out.before, out.during, out.frames], [1, 1, 1], 'one frame, kept across a timeout and an abort');
  },
);

test(
  "browser: <ffn-exercise> mounts, is styled and grades under style-src 'self' (no " +
    'unsafe-inline), with no CSP violation',
  { skip: skip || false },
  async () => {
    const p = await served.newPage();
    const consoleCsp = cspConsoleMessages(p);
    const csp =
      "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; frame-src 'self'; " +
      "worker-src 'none'; connect-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'";
    // A page with no inline script or style of its own, so the policy needs no 'unsafe-inline' anywhere; as the
    // README says for a page with a CSP header, it names the sandbox frame file (no inline frame is tried).
    await p.route('**/tests/fixtures/csp-strict.html', (route) =>
      route.fulfill({
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp },
        body:
          '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>strict CSP</title><link rel="icon" ' +
          'href="data:,">' +
          '<meta name="ffn-lab-sandbox" content="file">' +
          '<script type="module" src="/tests/fixtures/csp-strict.js"></script></head>' +
          '<body><ffn-exercise id="ex" exercise="gelu"></ffn-exercise></body></html>',
      }),
    );
    await p.route('**/tests/fixtures/csp-strict.js', (route) =>
      route.fulfill({
        status: 200,
        headers: { 'content-type': 'text/javascript; charset=utf-8' },
        body: `window.__violations = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
      await import('/web/sandbox/ffn-exercise.js');
      window.__ready = true;`,
      }),
    );
    await p.goto(new URL('tests/fixtures/csp-strict.html', served.url).href);
    await p.waitForFunction(() => window.__ready === true);
    const ta = p.locator('#ex textarea.code');
    await ta.fill(solution('gelu'));
    await p.locator('#ex button.run').click();
    await p.waitForFunction(
      () =>
        /All \d+ tests passed/.test(
          document.querySelector('#ex').shadowRoot.querySelector('.summary')?.textContent || '',
        ),
      null,
      { timeout: 15000 },
    );
    // The element's own stylesheet applied (the user-agent default for a list is 'disc').
    assert.equal(await p.locator('#ex ul.tests').evaluate((e) => getComputedStyle(e).listStyleType), 'none');
    assert.equal(await p.locator('#ex').evaluate((e) => e.shadowRoot.querySelectorAll('style').length), 0);
    assert.deepEqual(await p.evaluate(() => window.__violations), []);
    assert.deepEqual(consoleCsp, []);
    // Control: the listener does see a violation, so the empty list above means something.
    await p.evaluate(() => {
      const s = document.createElement('style');
      s.textContent = 'body { color: red }';
      document.head.append(s);
    });
    await p.waitForFunction(() => window.__violations.length > 0, null, { timeout: 5000 });
    assert.match((await p.evaluate(() => window.__violations))[0], /^style-src/);
    await p.close();
  },
);

test(
  'browser: default colours meet WCAG contrast ' + '(4.5:1 text) in light and dark',
  { skip: skip || false },
  async () => {
    const p = await served.newPage();
    const lum = ([r, g, b]) => {
      const c = [r, g, b].map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    };
    const ratio = (a, b) => {
      const [x, y] = [lum(a), lum(b)].sort((m, n) => n - m);
      return (x + 0.05) / (y + 0.05);
    };
    for (const scheme of ['light', 'dark']) {
      await p.emulateMedia({ colorScheme: scheme });
      await p.goto(new URL('tests/fixtures/sandbox.html', served.url).href);
      await p.waitForFunction(() => window.__ready === true);
      await p
        .locator('#ex-ffn textarea.code')
        .fill('function ffn(X) { return X }\nfunction ffnParamCount(d, f) { ' + 'return 2 * d * f + f + d }');
      await p.locator('#ex-ffn button.run').click();
      await p.waitForFunction(
        () =>
          /of \d+ tests passed/.test(
            document.querySelector('#ex-ffn').shadowRoot.querySelector('.summary')?.textContent || '',
          ),
        null,
        { timeout: 15000 },
      );
      const pairs = await p.evaluate(() => {
        const root = document.querySelector('#ex-ffn').shadowRoot;
        const rgb = (s) =>
          s
            .match(/[\d.]+/g)
            .slice(0, 3)
            .map(Number);
        const bg = rgb(getComputedStyle(document.querySelector('#ex-ffn')).backgroundColor);
        const fg = (sel) => rgb(getComputedStyle(root.querySelector(sel)).color);
        return {
          bg,
          text: fg('.prompt'),
          muted: fg('.toolkit'),
          fail: fg('.summary.fail'),
          pass: fg('li.pass .mark'),
        };
      });
      for (const key of ['text', 'muted', 'fail', 'pass']) {
        assert.ok(ratio(pairs[key], pairs.bg) >= 4.5, `${scheme} ${key}: ${ratio(pairs[key], pairs.bg).toFixed(2)}`);
      }
    }
    await p.close();
  },
);
