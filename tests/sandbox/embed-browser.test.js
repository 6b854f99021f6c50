// Where the exercise sandbox comes from, in headless Chromium: inline by default, the frame file under a CSP or when
// the page names one; every way the site's setup can break it (missing file, a site's index page instead, frame-src,
// the site's CSP on the file, no wasm) is a setup problem naming the URL and the fix, never the learner's fault.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exercises } from 'ffn-lab/sandbox';
import { servedBrowser } from '../helpers/served-browser.js';
import { assertPassed } from '../helpers/report.js';

const GELU = exercises.find((e) => e.id === 'gelu').solution;
const STRICT =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; " +
  "frame-src 'self'; worker-src 'none'; object-src 'none'; base-uri 'none'";

const served = servedBrowser();
const { skip } = served;
let pages = 0;

/**
 * A page of the served origin with `head` in its <head>, a CSP header if given, and a module that imports
 * ffn-lab/sandbox (registering <ffn-exercise>) and exposes gradeExercise; routes may change other responses.
 * Resolves to { page, consoleErrors, requests }.
 */
const EXERCISE = '<ffn-exercise id="ex" exercise="gelu"></ffn-exercise>';

async function open({ csp = null, head = '', body = EXERCISE, routes = {} } = {}) {
  const p = await served.newPage();
  const n = ++pages;
  const consoleErrors = [];
  const requests = [];
  p.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  p.on('request', (r) => requests.push(r.url()));
  const path = `/tests/fixtures/embed-${n}`;
  await p.route(`**${path}.html`, (route) =>
    route.fulfill({
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8', ...(csp ? { 'content-security-policy': csp } : {}) },
      body:
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title><link rel="icon" href="data:,">' +
        head +
        `<script type="module" src="${path}.js"></script></head><body>${body}</body></html>`,
    }),
  );
  await p.route(`**${path}.js`, (route) =>
    route.fulfill({
      status: 200,
      headers: { 'content-type': 'text/javascript; charset=utf-8' },
      body: `const { gradeExercise } = await import('/web/sandbox/index.js');
      window.__grade = (id, src, o) => gradeExercise(id, src, o);
      window.__ready = true;`,
    }),
  );
  for (const [pattern, handler] of Object.entries(routes)) await p.route(pattern, handler);
  await p.goto(new URL(`${path}.html`, served.url).href);
  await p.waitForFunction(() => window.__ready === true);
  return { page: p, consoleErrors, requests };
}

const grade = (p, src = GELU) => p.evaluate((s) => window.__grade('gelu', s), src);
const setupShown = (p) =>
  p.waitForFunction(() => document.querySelector('#ex').shadowRoot.querySelector('[part~="setup-problem"]'), null, {
    timeout: 15000,
  });

/** A setup problem: status 'setup', the URL and a fix named, nothing said about the learner's code. */
function assertSetup(r, ...patterns) {
  const summary = r.summary.text;
  assert.equal(r.status, 'setup', summary);
  assert.equal(r.passed, false);
  assert.match(summary, /^Setup problem \(not your code\): /);
  assert.match(summary, /Fix: /);
  for (const re of patterns) assert.match(summary, re);
  assert.doesNotMatch(summary, /allocates|too much memory|infinite loop/);
  // the setup problem itself, a message of report.site (its English inside the summary)
  assert.match(r.setup.key, /^report\.site\./);
  assert.ok(summary.includes(r.setup.text), r.setup.text);
  assert.ok(r.tests.every((t) => t.status === 'not-run'));
}

const frameFile = (u) => u.endsWith('/web/sandbox/run/frame.html');

test(
  'no CSP: the sandbox frame is inline (no request for frame.html or worker.js), and a page with a ' +
    '<meta> CSP uses the frame file',
  { skip: skip || false },
  async () => {
    const a = await open();
    assertPassed(await grade(a.page));
    assert.deepEqual(
      a.requests.filter((u) => /sandbox\/run\/(frame\.html|worker\.js)/.test(u)),
      [],
    );
    const inline = await a.page.locator('iframe[sandbox="allow-scripts"]').evaluate((f) => f.hasAttribute('srcdoc'));
    assert.equal(inline, true);
    assert.deepEqual(a.consoleErrors, []);
    await a.page.close();
    const b = await open({ head: `<meta http-equiv="Content-Security-Policy" content="${STRICT}">` });
    assertPassed(await grade(b.page));
    assert.equal(b.requests.filter(frameFile).length, 1);
    assert.deepEqual(b.consoleErrors, []);
    await b.page.close();
  },
);

test(
  'a CSP header without the <meta>: the inline frame is refused, the frame file is used, grading passes; with ' +
    '<meta name="ffn-lab-sandbox" content="file"> nothing is refused',
  { skip: skip || false },
  async () => {
    const a = await open({ csp: STRICT });
    const r = await grade(a.page);
    assertPassed(r);
    assert.equal(a.requests.filter(frameFile).length, 1);
    // the one refusal is the inline frame's script (which Playwright does not always hear from the short-lived frame)
    assert.ok(
      a.consoleErrors.every((m) => /inline script/.test(m)),
      a.consoleErrors.join('\n'),
    );
    assertPassed(await grade(a.page), 'the next run reuses the file frame');
    assert.equal(a.requests.filter(frameFile).length, 1);
    await a.page.close();
    const b = await open({ csp: STRICT, head: '<meta name="ffn-lab-sandbox" content="file">' });
    assertPassed(await grade(b.page));
    assert.deepEqual(b.consoleErrors, []);
    await b.page.close();
  },
);

test(
  'a frame file the page names by URL (a copy it hosts) is used, under the ' + "README's policy with no violation",
  { skip: skip || false },
  async () => {
    const head = '<meta name="ffn-lab-sandbox" content="/web/sandbox/run/frame.html">';
    const { page, requests, consoleErrors } = await open({ csp: STRICT, head });
    assertPassed(await grade(page));
    assert.equal(requests.filter(frameFile).length, 1);
    assert.deepEqual(consoleErrors, []);
    await page.close();
  },
);

test(
  'a missing sandbox file is a setup problem naming its URL, HTTP 404 and the fix; the element shows it ' +
    'as such and the badge stays',
  { skip: skip || false },
  async () => {
    const { page } = await open({ head: '<meta name="ffn-lab-sandbox" content="/nowhere/frame.html">' });
    const t0 = Date.now();
    const r = await grade(page);
    assertSetup(r, /\/nowhere\/frame\.html answered HTTP 404/, /<meta name="ffn-lab-sandbox"/);
    assert.ok(Date.now() - t0 < 8000, `reported after ${Date.now() - t0} ms`);
    await page.locator('#ex textarea.code').fill(GELU);
    await page.locator('#ex button.run').click();
    await setupShown(page);
    const shown = await page.locator('#ex [part~="setup-problem"]').textContent();
    assert.match(shown, /Setup problem \(not your code\).*nowhere\/frame\.html/);
    assert.equal(await page.locator('#ex .badge').textContent(), '');
    assert.equal(await page.locator('#ex .diagnosis').count(), 0);
    await page.close();
  },
);

test(
  "a server that answers with another page (a dev server's " + 'index.html) is named as such',
  { skip: skip || false },
  async () => {
    const { page } = await open({ head: '<meta name="ffn-lab-sandbox" content="/tests/fixtures/frame-host.html">' });
    assertSetup(await grade(page), /frame-host\.html is not ffn-lab's sandbox frame/);
    await page.close();
  },
);

test(
  'a page CSP that refuses to frame the file (frame-src) names ' + 'the directive and the fix',
  { skip: skip || false },
  async () => {
    const csp = STRICT.replace("frame-src 'self'", "frame-src 'none'");
    const { page } = await open({ csp, head: '<meta name="ffn-lab-sandbox" content="file">' });
    assertSetup(await grade(page), /refuses to load the sandbox frame .*\/web\/sandbox\/run\/frame\.html/, /frame-src/);
    await page.close();
  },
);

test(
  "the site's CSP header sent with the frame file too (its script " + 'refused) is named, with the fix',
  { skip: skip || false },
  async () => {
    const { page } = await open({
      head: '<meta name="ffn-lab-sandbox" content="file">',
      routes: {
        '**/web/sandbox/run/frame.html': async (route) => {
          const res = await route.fetch();
          await route.fulfill({ response: res, headers: { ...res.headers(), 'content-security-policy': STRICT } });
        },
      },
    });
    assertSetup(await grade(page), /frame\.html cannot run exercises: its script was refused/);
    await page.close();
  },
);

test(
  'a CSP that refuses the inline frame, and no frame file: both ' + 'named in one setup problem',
  { skip: skip || false },
  async () => {
    const { page } = await open({
      csp: STRICT,
      routes: { '**/web/sandbox/run/frame.html': (route) => route.fulfill({ status: 404, body: 'not found' }) },
    });
    assertSetup(await grade(page), /refuses the inline sandbox frame/, /frame\.html answered HTTP 404/);
    await page.close();
  },
);

test(
  'the inline frame named by the page under a CSP that refuses it is a setup ' + 'problem pointing at that <meta>',
  { skip: skip || false },
  async () => {
    const { page } = await open({ csp: STRICT, head: '<meta name="ffn-lab-sandbox" content="inline">' });
    assertSetup(await grade(page), /content="inline"/);
    await page.close();
  },
);

test(
  "kernels that cannot load (wasm 404 through the URL entry, or no 'wasm-unsafe-eval') are setup problems " +
    'naming the URL or the directive, shown by the element without a run',
  { skip: skip || false },
  async () => {
    const a = await open({
      body: '',
      routes: { '**/web/ffn*.wasm': (route) => route.fulfill({ status: 404, body: 'not found' }) },
    });
    await a.page.evaluate(async () => {
      const url = await import('/web/ffn.js');
      const el = document.createElement('ffn-exercise');
      el.id = 'ex';
      el.api = url; // the author chose the URL entry (ffn.wasm next to web/ffn.js)
      el.setAttribute('exercise', 'gelu');
      document.body.append(el);
    });
    await setupShown(a.page);
    const shown = await a.page.locator('#ex [part~="setup-problem"]').textContent();
    assert.match(shown, /^Setup problem \(not your code\): ffn-lab could not load its kernels: /);
    assert.match(shown, /\/web\/ffn\.wasm \(HTTP 404\).*Fix: serve that file/);
    await a.page.close();
    const b = await open({ csp: "default-src 'self'; script-src 'self'; frame-src 'self'" });
    await setupShown(b.page);
    const text = await b.page.locator('#ex [part~="setup-problem"]').textContent();
    assert.match(text, /Fix: allow WebAssembly .*'wasm-unsafe-eval'/);
    await b.page.close();
  },
);
