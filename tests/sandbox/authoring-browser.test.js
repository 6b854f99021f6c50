// Author-defined exercises in headless Chromium: define, pass, fail, reload; invalid and hostile definitions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { servedBrowser } from '../helpers/served-browser.js';
import { exercises } from 'ffn-lab/sandbox';

const readme = readFileSync(new URL('../../web/sandbox/AUTHORING.md', import.meta.url), 'utf8');
const EXAMPLE = /```js\n(\/\/ squared-relu\.js[\s\S]*?)```/.exec(readme)[1];
const SOLUTION = /solution: `([\s\S]*?)`,\n/.exec(EXAMPLE)[1];

let page;
const requests = [];
const served = servedBrowser(async () => {
  served.context.on('request', (req) => requests.push(req.url()));
  await served.context.route('**/tests/fixtures/squared-relu.js', (route) =>
    route.fulfill({ status: 200, headers: { 'content-type': 'text/javascript; charset=utf-8' }, body: EXAMPLE }),
  );
  page = await served.newPage();
});
const { skip } = served;

const shadowText = (sel) => page.locator(`#custom ${sel}`).first().textContent();
const summaryIs = (re) =>
  page.waitForFunction(
    (src) =>
      new RegExp(src).test(document.querySelector('#custom').shadowRoot.querySelector('.summary')?.textContent || ''),
    re.source,
    { timeout: 20000 },
  );

async function run(source) {
  await page.locator('#custom textarea.code').fill(source);
  await page.locator('#custom textarea.code').focus();
  await page.keyboard.press('Control+Enter');
}

test(
  'browser: an early element renders once the page defines its exercise; pass, a named mistake, a reload',
  { skip: skip || false },
  async () => {
    await page.goto(new URL('tests/fixtures/sandbox-custom.html#later', served.url).href);
    await page.waitForFunction(() => window.__ready === true);
    assert.match(await shadowText('[part="error"]'), /unknown exercise "squared-relu"/);
    await page.evaluate(() => window.__define());
    await page.waitForFunction(() => document.querySelector('#custom').shadowRoot.querySelector('h3'));
    assert.equal(await shadowText('h3'), 'Squared ReLU and its derivative');
    assert.equal(await page.locator('#custom .prompt code').count(), 4);
    assert.match(await shadowText('.prompt'), /φ\(z\) = max\(0, z\)²/);

    await run(SOLUTION);
    await summaryIs(/All 8 tests passed/);
    assert.equal(await shadowText('.badge'), 'Passed');

    const noClamp =
      'function reluSquared(x) {\n  return map(x, (z) => z ** 2);\n}\n' +
      'function reluSquaredGrad(x) {\n  return map(x, (z) => (z > 0 ? 2 * z : 0));\n}\n';
    await run(noClamp);
    await summaryIs(/^\d of 8 tests passed/);
    assert.match(await shadowText('.diagnosis'), /Likely mistake: Squared without the clamp/);

    await page.waitForFunction(
      (m) => JSON.parse(localStorage.getItem('ffn-lab:sandbox:v1') || '{}').exercises?.['squared-relu']?.code === m,
      noClamp,
      { timeout: 5000 },
    );
    await page.goto(new URL('tests/fixtures/sandbox-custom.html', served.url).href); // the page defines it at load
    await page.waitForFunction(
      () => window.__ready === true && document.querySelector('#custom').shadowRoot.querySelector('h3'),
    );
    assert.equal(await page.locator('#custom textarea.code').inputValue(), noClamp);
    assert.equal(await shadowText('.badge'), 'Not passed'); // the latest run; the pass is kept as passedAt
    const stored = await page.evaluate(
      () => JSON.parse(localStorage.getItem('ffn-lab:sandbox:v1')).exercises['squared-relu'],
    );
    assert.equal(stored.status, 'attempted');
    assert.ok(stored.passedAt);

    // mountExercise and gradeExercise by the custom id
    const mounted = await page.evaluate(async (src) => {
      const m = window.__sandbox.mountExercise(document.getElementById('mount'), 'squared-relu', {
        storageKey: 'test:mounted:v1',
      });
      m.element.code = src;
      const r = await m.run();
      const g = await window.__sandbox.gradeExercise(
        'squared-relu',
        'function reluSquared(x) { return x }\nfunction reluSquaredGrad(x) { return map(x, (z) => Math.max(0, z)) }',
      );
      return [r.passed, r.total, g.passed, g.diagnoses.map((d) => d.id)];
    }, SOLUTION);
    assert.deepEqual(mounted, [true, 8, false, ['grad-missing-two']]);
  },
);

test('browser: invalid definitions are refused in the page with the field named', { skip: skip || false }, async () => {
  const out = await page.evaluate(() => {
    const { defineExercise, getExercise } = window.__sandbox;
    const base = getExercise('squared-relu');
    const def = (patch) => ({
      id: 'page-bad',
      title: base.title,
      level: base.level,
      prompt: base.prompt,
      starter: base.starter,
      solution: base.solution,
      hints: base.hints,
      tests: base.tests,
      reference: { ...base.reference },
      functions: {
        reluSquared: { params: ['x'], returns: 'tensor' },
        reluSquaredGrad: { params: ['x'], returns: 'tensor' },
      },
      ...patch,
    });
    const attempts = {
      name: def({ functions: { 'relu-squared': { params: ['x'], returns: 'tensor' } } }),
      missing: (({ hints, ...rest }) => rest)(def({})),
      prompt: def({ prompt: '<p>Hi</p><img src=x onerror="window.__pwned = 1">' }),
      // the wasm is loaded on this page by now, so the value check runs at once
      never: def({
        variants: [{ id: 'same', fn: 'reluSquared', title: 'x', message: 'y', compute: ([x], api) => api.relu2(x) }],
      }),
      duplicate: { ...def({}), id: 'squared-relu' },
    };
    const result = {};
    for (const [k, d] of Object.entries(attempts)) {
      try {
        defineExercise(d);
        result[k] = 'accepted';
      } catch (e) {
        result[k] = [e.name, e.field];
      }
    }
    return { result, pwned: window.__pwned ?? null };
  });
  assert.deepEqual(out.result, {
    name: ['ExerciseDefinitionError', 'functions.relu-squared'],
    missing: ['ExerciseDefinitionError', 'hints'],
    prompt: ['ExerciseDefinitionError', 'prompt'],
    never: ['ExerciseDefinitionError', 'variants[0] ("same")'],
    duplicate: ['ExerciseDefinitionError', 'id'],
  });
  assert.equal(out.pwned, null);
});

test(
  'browser: the prompt renderer builds allowed HTML as the browser parses it, and nothing else of hostile prompts',
  { skip: skip || false },
  async () => {
    const prompts = [
      ...exercises.map((e) => e.prompt),
      /prompt: `([\s\S]*?)`,\n/.exec(EXAMPLE)[1],
      '<p>a &lt; b &amp; <em>c</em> < d</p><ul><li>one</li><li>two<br>three</li></ul>' +
        '<table><tbody><tr><td colspan="2">x</td></tr></tbody></table>',
    ];
    const same = await page.evaluate(async (list) => {
      const { renderPromptHtml } = await import('/web/sandbox/grade/prompt-html.js');
      return list.map((html) => {
        const mine = document.createElement('div');
        mine.append(renderPromptHtml(document, html));
        const theirs = new DOMParser().parseFromString(html, 'text/html').body.innerHTML;
        return mine.innerHTML === theirs ? 'same' : `${mine.innerHTML}\n!==\n${theirs}`;
      });
    }, prompts);
    assert.deepEqual(
      same,
      prompts.map(() => 'same'),
    );

    const probe = new URL('/ffn-lab-prompt-probe', served.url).href;
    const hostile = [
      '<img src=x onerror="window.__pwned = 1">',
      '<p onclick="window.__pwned = 2" onmouseover="window.__pwned = 2">click</p>',
      '<script>window.__pwned = 3</script>',
      '<svg><script>window.__pwned = 4</script><image href="x" onerror="window.__pwned = 4"/></svg>',
      '<a href="javascript:window.__pwned = 5">a</a><a href=" jav&#x61;script:window.__pwned = 5">b</a>' +
        '<a href="java\tscript:window.__pwned=5">c</a>',
      '<iframe srcdoc="<script>parent.__pwned = 6</script>"></iframe>',
      `<img src="${probe}/img"><link rel="stylesheet" href="${probe}/css"><video poster="${probe}/video"></video>`,
      `<p style="background: url(${probe}/style)">styled</p><style>p { background: url(${probe}/sheet) }</style>`,
      '<details open ontoggle="window.__pwned = 7"><summary>x</summary></details>',
      '<math><mtext><table><mglyph><style><img src=x onerror="window.__pwned = 8">',
      '<noscript><p title="</noscript><img src=x onerror=window.__pwned=9>">',
      '<a href="data:text/html,<script>alert(1)</script>">d</a>' +
        '<form action="javascript:alert(1)"><button>go</button></form>',
      '<a href="https://example.org/" onclick="window.__pwned = 10">safe</a>',
    ];
    const rendered = await page.evaluate(async (list) => {
      const { renderPromptHtml } = await import('/web/sandbox/grade/prompt-html.js');
      const box = document.getElementById('rendered');
      for (const html of list) box.append(renderPromptHtml(document, html));
      // Click everything that could carry a handler (not the one safe link: it would open a tab).
      for (const e of box.querySelectorAll('*:not([href])'))
        e.dispatchEvent(new MouseEvent('click', { bubbles: true }));
      await new Promise((r) => setTimeout(r, 500));
      const all = [...box.querySelectorAll('*')];
      return {
        pwned: window.__pwned ?? null,
        tags: [...new Set(all.map((e) => e.localName))].sort(),
        attributes: [...new Set(all.flatMap((e) => [...e.attributes].map((a) => a.name)))].sort(),
        hrefs: all.filter((e) => e.hasAttribute('href')).map((e) => e.getAttribute('href')),
        rel: all
          .filter((e) => e.hasAttribute('href'))
          .map((e) => `${e.getAttribute('rel')} ${e.getAttribute('target')}`),
      };
    }, hostile);
    assert.equal(rendered.pwned, null);
    for (const t of rendered.tags) assert.ok(['a', 'p'].includes(t), `an element <${t}> was rendered`);
    assert.deepEqual(
      rendered.attributes.filter((a) => !['href', 'rel', 'target'].includes(a)),
      [],
    );
    assert.deepEqual(rendered.hrefs, ['https://example.org/']); // the one safe link, opened with noopener
    assert.deepEqual(rendered.rel, ['noopener noreferrer _blank']);
    await page.waitForTimeout(200);
    assert.deepEqual(
      requests.filter((u) => u.includes('ffn-lab-prompt-probe')),
      [],
    );
  },
);
