// <ffn-exercise> with a site's CodeMirror 6 (codeMirrorEditor) in Chromium: type, run, pass; error line; progress.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { servedBrowser } from '../helpers/served-browser.js';
import { exercises } from 'ffn-lab/sandbox';

const solution = exercises.find((e) => e.id === 'gelu').solution;
let page;
let bundle;
const pageErrors = [];
const requests = [];

// The site's CodeMirror, bundled here (no network): what a site built with any bundler would load.
async function open() {
  page = await served.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('request', (r) => requests.push(r.url()));
  await page.route('**/tests/fixtures/codemirror-site.bundle.js', (route) =>
    route.fulfill({ body: bundle, contentType: 'text/javascript; charset=utf-8' }),
  );
  await page.goto(new URL('tests/fixtures/codemirror.html', served.url).href);
  await page.waitForFunction(() => window.__ready === true);
  await page.waitForFunction(() => document.querySelector('#ex').shadowRoot.querySelector('.cm-content'));
}

const served = servedBrowser(async () => {
  const out = await build({
    entryPoints: [fileURLToPath(new URL('../fixtures/codemirror-site.js', import.meta.url))],
    bundle: true,
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  bundle = out.outputFiles[0].text;
  await open();
});
const { skip } = served;

/** The CodeMirror view behind the element's editor (the adapter keeps it on the editor it made). */
const cm = (fn, arg) =>
  page.evaluate(
    ([f, a]) => new Function('view', 'arg', `return (${f})(view, arg)`)(document.querySelector('#ex')._editor.view, a),
    [fn.toString(), arg],
  );

async function typeCode(source) {
  await page.locator('#ex .cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  // insertText: what the browser's input events would carry, without CodeMirror's auto-closing brackets doubling them
  await page.keyboard.insertText(source);
}

/** Ctrl+Enter in the editor, then wait (20 s at most) until the element's summary matches re. */
async function runAndWaitFor(re) {
  await page.keyboard.press('Control+Enter');
  await page.waitForFunction(
    (source) => {
      const summary = document.querySelector('#ex').shadowRoot.querySelector('.summary');
      return new RegExp(source).test(summary?.textContent || '');
    },
    re.source,
    { timeout: 20000 },
  );
}

const summary = () =>
  page.evaluate(() => document.querySelector('#ex').shadowRoot.querySelector('.summary')?.textContent ?? '');

test(
  "CodeMirror: the site's CodeMirror is the editor (highlighting, bracket matching, labelled), no textarea",
  { skip: skip || false },
  async () => {
    const r = await page.evaluate(() => {
      const root = document.querySelector('#ex').shadowRoot;
      const content = root.querySelector('.cm-content');
      return {
        textarea: root.querySelectorAll('textarea.code').length,
        label: content.getAttribute('aria-label'),
        describedBy: root.getElementById(content.getAttribute('aria-describedby'))?.textContent,
        part: root.querySelector('.cm-editor').parentElement.getAttribute('part'),
        // syntax highlighting: the starter's `function` keyword is in a highlighted span
        keyword: [...root.querySelectorAll('.cm-line span')].some(
          (s) => s.textContent === 'function' && getComputedStyle(s).color !== getComputedStyle(content).color,
        ),
        styled: root.adoptedStyleSheets.length > 1, // CodeMirror's styles, mounted in the shadow root
      };
    });
    assert.deepEqual(r, {
      textarea: 0,
      label: 'Your code for GELU, exact and approximate: gelu and geluTanh',
      describedBy: 'Ctrl+Enter (⌘+Enter) runs the tests.',
      part: 'editor',
      keyword: true,
      styled: true,
    });
    await cm((view) => view.dispatch({ selection: { anchor: view.state.doc.toString().indexOf('{') + 1 } }));
    await page.waitForFunction(
      () => document.querySelector('#ex').shadowRoot.querySelectorAll('.cm-matchingBracket').length === 2,
    );
  },
);

test('CodeMirror: type a solution, Ctrl+Enter runs it, every test passes', { skip: skip || false }, async () => {
  await typeCode(solution);
  assert.equal(await page.evaluate(() => document.querySelector('#ex').code), solution);
  await runAndWaitFor(/All \d+ tests passed/);
  assert.equal(
    await cm((view) => view.state.doc.toString()),
    solution,
    'Ctrl+Enter ran the tests and inserted no line',
  );
  assert.equal(await page.locator('#ex .badge').textContent(), 'Passed');
});

test(
  "CodeMirror: a syntax error's line is marked in it, Go to line puts the caret there, a pass clears it",
  { skip: skip || false },
  async () => {
    const wrong = 'function gelu(x) {\n  const y = x;\n  return y +;\n}\nfunction geluTanh(x) { return x; }\n';
    await typeCode(wrong);
    await runAndWaitFor(/syntax error/);
    const marked = await page.evaluate(() => {
      const lines = [...document.querySelector('#ex').shadowRoot.querySelectorAll('.cm-line')];
      return lines.map((l, i) => (l.classList.contains('cm-ffn-error-line') ? i + 1 : 0)).filter(Boolean);
    });
    assert.deepEqual(marked, [3]);
    const bg = await page.evaluate(
      () =>
        getComputedStyle(document.querySelector('#ex').shadowRoot.querySelector('.cm-ffn-error-line')).backgroundColor,
    );
    assert.notEqual(bg, 'rgba(0, 0, 0, 0)', 'the marked line is coloured');
    await page.evaluate(() =>
      [...document.querySelector('#ex').shadowRoot.querySelectorAll('button.link')]
        .find((b) => /Go to line 3/.test(b.textContent))
        .click(),
    );
    assert.equal(await cm((view) => view.state.doc.lineAt(view.state.selection.main.head).number), 3);
    assert.equal(
      await page.evaluate(() =>
        document.querySelector('#ex').shadowRoot.activeElement?.classList.contains('cm-content'),
      ),
      true,
    );
    await typeCode(solution);
    await runAndWaitFor(/All \d+ tests passed/);
    assert.equal(
      await page.evaluate(() => document.querySelector('#ex').shadowRoot.querySelectorAll('.cm-ffn-error-line').length),
      0,
    );
  },
);

test(
  'CodeMirror: what the learner types is saved through it and comes back in it after a reload',
  { skip: skip || false },
  async () => {
    const mine =
      '// my attempt, typed in CodeMirror\nfunction gelu(x) { return x; }\nfunction geluTanh(x) { return x; }\n';
    await typeCode(mine);
    await page.waitForFunction(
      (m) => JSON.parse(localStorage.getItem('ffn-lab:cm-test') || '{}').exercises?.gelu?.code === m,
      mine,
      { timeout: 5000 },
    );
    await page.close();
    await open();
    assert.equal(await cm((view) => view.state.doc.toString()), mine);
    assert.equal(await page.locator('#ex .badge').textContent(), 'Passed', 'the status passed earlier is restored too');
    assert.match(await page.locator('#ex [part="passed-before"]').textContent(), /You passed this exercise on/);
    assert.equal(await summary(), '');
    assert.deepEqual(pageErrors, []);
    const outside = requests.filter(
      (u) => !u.startsWith(served.url) && !u.startsWith('blob:') && !u.startsWith('data:') && !u.startsWith('about:'),
    );
    assert.deepEqual(outside, [], 'nothing is fetched from the network');
  },
);
