// The top README as a reader uses it: every example runs as written (Node blocks in Node, page blocks in Chromium),
// every output it shows is printed, it stays under 15 KiB, and every relative link of every README resolves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, browserSkipReason } from '../helpers/browser.js';
import { serveStatic } from '../helpers/sites.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
// Inside the package (git-ignored), so that a block's `import ... from 'ffn-lab'` resolves by self-reference
// through package.json "exports", as a user's import resolves through their node_modules.
const WORK = join(ROOT, 'tests/artifacts/readme');
const MAX_BYTES = 15 * 1024;

/** The fenced code blocks of a markdown text: [{ info, lang, code, line }] (``` and ```` fences). */
export function codeBlocks(md) {
  const blocks = [];
  const lines = md.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(.*)$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[1];
    const start = i;
    const body = [];
    for (i++; i < lines.length && !(lines[i].startsWith(fence) && lines[i].trim() === fence); i++) body.push(lines[i]);
    const info = open[2].trim();
    blocks.push({ info, lang: info.split(/\s+/)[0], code: body.join('\n'), line: start + 1 });
  }
  return blocks;
}

/**
 * The outputs a block promises: every `console.log(...)` line ends in `// <value>`, a JavaScript literal, optionally
 * followed by a note in parentheses. Returns [{ text, value, line }].
 */
function promisedOutputs(code) {
  const out = [];
  for (const line of code.split('\n')) {
    if (!line.includes('console.log(')) continue;
    const m = /\/\/\s*(.+)$/.exec(line);
    assert.ok(m, `README: a console.log without the output it prints: ${line.trim()}`);
    const text = m[1].split(' (')[0].trim();
    let value;
    try {
      value = Function(`"use strict"; return (${text});`)();
    } catch (e) {
      assert.fail(`README: the output shown after a console.log is not a value: ${text} (${e.message})`);
    }
    out.push({ text, value, line: line.trim() });
  }
  return out;
}

/** Leaves of a value in order (arrays by index, objects by key), as [path, leaf]. */
function leaves(v, path = '', acc = []) {
  if (Array.isArray(v)) v.forEach((x, i) => leaves(x, `${path}[${i}]`, acc));
  else if (v && typeof v === 'object') for (const k of Object.keys(v)) leaves(v[k], `${path}.${k}`, acc);
  else acc.push([path, v]);
  return acc;
}

/**
 * got (JSON-decoded) matches what the README shows: the same structure, strings equal, and each number equal to
 * the precision the README writes it with (an integer exactly; 0.18536 within 0.000005).
 */
function assertShown(got, { text, value, line }) {
  const want = leaves(value);
  const have = leaves(got);
  assert.deepEqual(
    have.map(([p]) => p),
    want.map(([p]) => p),
    `${line}: printed ${JSON.stringify(got)}`,
  );
  const literals = text.match(/-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/gi) || [];
  let n = 0;
  for (let i = 0; i < want.length; i++) {
    const [p, w] = want[i];
    const g = have[i][1];
    if (typeof w !== 'number') {
      assert.equal(g, w, `${line}: ${p}`);
      continue;
    }
    const lit = literals[n++];
    const decimals = /\.(\d+)/.exec(lit)?.[1].length ?? 0;
    const tol = /e/i.test(lit) ? Math.abs(w) * 1e-6 : decimals ? 0.5 * 10 ** -decimals * (1 + 1e-9) : 0;
    assert.ok(typeof g === 'number' && Math.abs(g - w) <= tol, `${line}: ${p} printed ${g}, the README shows ${lit}`);
  }
}

const blocks = codeBlocks(README);
const nodeBlocks = blocks.filter((b) => b.info === 'js');
const htmlBlocks = blocks.filter((b) => b.lang === 'html');

before(() => {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
});

test('README.md is at most 15 KiB', () => {
  const size = statSync(join(ROOT, 'README.md')).size;
  assert.ok(size <= MAX_BYTES, `README.md is ${size} bytes, over ${MAX_BYTES}: move detail beside the code`);
});

test("the README's two set-up commands are the package's scripts, and CI runs the test one", () => {
  assert.match(README, /^npm install && npm start\b/m);
  assert.match(README, /^npm install && npm test\b/m);
  assert.match(PKG.scripts.start, /web\/serve\.js/);
  assert.match(PKG.scripts.test, /node --test/);
  assert.match(readFileSync(join(ROOT, '.ci/run'), 'utf8'), /^npm test$/m);
});

test('the README has Node examples and page examples, and every block is one the test runs or a shell line', () => {
  assert.ok(nodeBlocks.length >= 2 && htmlBlocks.length >= 2, 'expected Node and page examples');
  for (const b of blocks) {
    const known = ['js', 'js browser', 'html', 'sh'].includes(b.info);
    assert.ok(known, `README line ${b.line}: a \`\`\`${b.info} block no test runs`);
  }
});

for (const block of nodeBlocks) {
  test(`README line ${block.line}: the Node example runs and prints what the README shows`, async () => {
    const shown = promisedOutputs(block.code);
    const file = join(WORK, `node-${block.line}.mjs`);
    // Record what console.log prints (typed arrays as arrays), and report it when the module has run.
    const prelude = [
      'const __logs = [];',
      'console.log = (v) => __logs.push(JSON.stringify(v, (k, x) => (ArrayBuffer.isView(x) ? Array.from(x) : x)));',
      "process.on('exit', () => process.stdout.write('\\n@@logs ' + JSON.stringify(__logs) + '\\n'));",
    ].join('\n');
    writeFileSync(file, `${prelude}\n${block.code}\n`);
    const stdout = await new Promise((ok, fail) => {
      execFile(process.execPath, [file], { cwd: WORK, timeout: 60000 }, (err, so, se) => {
        if (err) fail(new Error(`README line ${block.line} failed in Node: ${err.message}\n${se}`));
        else ok(so);
      });
    });
    const logs = JSON.parse(/^@@logs (.*)$/m.exec(stdout)[1]).map((s) => (s === undefined ? undefined : JSON.parse(s)));
    assert.equal(logs.length, shown.length, 'one printed value per console.log');
    shown.forEach((s, i) => assertShown(logs[i], s));
  });
}

// ---- page examples, in Chromium, from a static server of the package as a site installs it ----

const skip = browserSkipReason();
let server;
let browser;

before(async () => {
  if (skip) return;
  // A site folder whose node_modules/ffn-lab holds what the package ships (package.json "files"), by symlink.
  const site = join(WORK, 'site');
  const pkgDir = join(site, 'node_modules/ffn-lab');
  mkdirSync(pkgDir, { recursive: true });
  for (const f of ['package.json', ...PKG.files.filter((x) => !x.startsWith('!'))]) {
    const name = f.replace(/\/$/, '');
    if (existsSync(join(ROOT, name))) symlinkSync(join(ROOT, name), join(pkgDir, name));
  }
  server = await serveStatic(site);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.close();
});

/** An import map that resolves the package's specifiers as a bundler does, through package.json "exports". */
function importMap() {
  const imports = {};
  for (const [key, target] of Object.entries(PKG.exports)) {
    const file = typeof target === 'string' ? target : target.default;
    if (file.endsWith('.js')) imports[`ffn-lab${key.slice(1)}`] = `/node_modules/ffn-lab/${file.slice(2)}`;
  }
  return `<script type="importmap">${JSON.stringify({ imports })}</script>`;
}

/**
 * Loads a page of the site in Chromium and waits until every ffn-* element on it fired ffn-ready and it printed as
 * many console.log lines as expected; fails on any page error or console error.
 */
async function runPage(name, html, { logs = 0, iframes = false } = {}) {
  const head = '<meta charset="utf-8"><title>README example</title><link rel="icon" href="data:,">';
  const doc = `<!doctype html>\n<html lang="en"><head>${head}</head>\n<body>\n${html}\n</body></html>\n`;
  writeFileSync(join(WORK, 'site', name), doc);
  const page = await browser.newPage();
  const errors = [];
  const printed = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', async (m) => {
    if (m.type() === 'error') errors.push(`console.error: ${m.text()}`);
    if (m.type() === 'log') printed.push(m.args().length ? m.args()[0].jsonValue() : undefined);
  });
  await page.addInitScript(() => {
    window.__ready = new Set();
    document.addEventListener('ffn-ready', (e) => window.__ready.add(e.target), true);
  });
  try {
    await page.goto(new URL(name, server.url).href, { waitUntil: 'load' });
    await page
      .waitForFunction(
        (n) => {
          const els = [...document.querySelectorAll('*')].filter((e) => e.localName.startsWith('ffn-'));
          return els.every((e) => window.__ready.has(e)) && window.__printed >= n;
        },
        logs,
        { timeout: 30000, polling: 100 },
      )
      .catch(async (e) => {
        const state = await page.evaluate(() =>
          [...document.querySelectorAll('*')]
            .filter((el) => el.localName.startsWith('ffn-') && !window.__ready.has(el))
            .map((el) => el.localName),
        );
        const waiting = state.join(', ') || '(all elements ready)';
        throw new Error(`${name}: not ready: ${waiting}; ${errors.join('; ')} ${e.message}`);
      });
    if (iframes) {
      // host.js sizes each embed iframe to its page's content once the element is ready
      await page.waitForFunction(
        () => [...document.querySelectorAll('iframe')].every((f) => f.offsetHeight > 300),
        null,
        { timeout: 30000 },
      );
    }
    return { page, printed: await Promise.all(printed), errors };
  } catch (e) {
    await page.close();
    throw e;
  }
}

// console.log in a page counts as printed once its value is read; count them in the page as well
const COUNT_LOGS =
  '<script>window.__printed = 0; { const log = console.log; ' +
  'console.log = (...a) => { window.__printed++; log(...a); }; }</script>';

htmlBlocks.forEach((block, i) => {
  const prev = blocks[blocks.indexOf(block) - 1];
  const entry = prev && prev.info === 'js browser' ? prev : null;
  const title = entry
    ? `README lines ${entry.line} and ${block.line}: the bundler entry and the page's elements, in Chromium`
    : `README line ${block.line}: the page example runs in Chromium`;
  test(title, { skip: skip || false }, async () => {
    // the README's placeholder host is this server, which holds the package's web/ folder under node_modules
    const host = new URL('node_modules/ffn-lab/web/', server.url).href;
    let html = block.code.replaceAll('https://your.host/ffn-lab/', host);
    if (entry) html = `${importMap()}\n<script type="module">\n${entry.code}\n</script>\n${html}`;
    else assert.ok(!/<ffn-/.test(block.code) || /<script|<iframe/.test(block.code), 'elements, nothing to define them');
    const shown = promisedOutputs(block.code.replace(/<\/?script[^>]*>/g, ''));
    const iframes = /<iframe/.test(html);
    const opts = { logs: shown.length, iframes };
    const { page, printed, errors } = await runPage(`page-${i}.html`, COUNT_LOGS + html, opts);
    try {
      assert.deepEqual(errors, []);
      assert.equal(printed.length, shown.length);
      shown.forEach((s, k) => assertShown(printed[k], s));
      if (iframes) {
        const n = await page.evaluate(() => document.querySelectorAll('iframe').length);
        assert.ok(n >= 1);
      }
    } finally {
      await page.close();
    }
  });
});

// ---- links of every README ----

/** GitHub's heading anchors: lowercased, punctuation removed, spaces to hyphens, repeats numbered. */
export function anchorsOf(md) {
  const seen = new Map();
  const ids = new Set();
  let fence = null;
  for (const line of md.split('\n')) {
    const f = /^(`{3,})/.exec(line);
    if (f && (!fence || line.trim() === fence)) {
      fence = fence ? null : f[1];
      continue;
    }
    if (fence) continue;
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) ids.add(m[1]);
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const text = h[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, (t) => t.replace(/[<>]/g, ''));
    let slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    if (n) slug = `${slug}-${n}`;
    ids.add(slug);
  }
  return ids;
}

/** Relative link targets of a markdown text, outside code: [{ target, line }]. */
function linksOf(md) {
  const out = [];
  let fence = null;
  md.split('\n').forEach((raw, i) => {
    const f = /^\s*(`{3,})/.exec(raw);
    if (f && (!fence || raw.trim() === fence)) {
      fence = fence ? null : f[1];
      return;
    }
    if (fence) return;
    const line = raw.replace(/`[^`]*`/g, '');
    for (const m of line.matchAll(/\]\(([^)\s]+)\)|<(?:img|a)\s[^>]*?(?:src|href)="([^"]+)"/g)) {
      const target = m[1] ?? m[2];
      if (!/^[a-z]+:/i.test(target)) out.push({ target, line: i + 1 });
    }
  });
  return out;
}

function readmes(dir, acc = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.') || e.name === 'node_modules' || e.name === 'artifacts') continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) readmes(p, acc);
    else if (e.name === 'README.md' || e.name === 'AUTHORING.md') acc.push(p); // AUTHORING.md: web/sandbox's guide
  }
  return acc;
}

test('every relative link and anchor in every README resolves', () => {
  const files = readmes(ROOT);
  assert.ok(files.length >= 7, `found ${files.length} READMEs`);
  const bad = [];
  for (const file of files) {
    const md = readFileSync(file, 'utf8');
    for (const { target, line } of linksOf(md)) {
      const [path, anchor] = target.split('#');
      const dest = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
      const where = `${relative(ROOT, file)}:${line}: ${target}`;
      if (!existsSync(dest)) {
        bad.push(`${where} (no such file)`);
        continue;
      }
      if (anchor !== undefined) {
        if (!dest.endsWith('.md')) bad.push(`${where} (an anchor into a file that is not markdown)`);
        else if (!anchorsOf(readFileSync(dest, 'utf8')).has(anchor)) bad.push(`${where} (no such heading)`);
      }
    }
  }
  assert.deepEqual(bad, []);
});

test('the anchor rule follows GitHub on the headings these READMEs use', () => {
  const ids = anchorsOf(
    '# A\n## The element `<ffn-exercise>`\n### Saved and imported progress (`storage.js`)\n' +
      "## The editor: a textarea, or the site's CodeMirror\n## How src/fit computes them\n## Tests\n## Tests\n" +
      '```\n# not a heading\n```\n<a id="x-y"></a>',
  );
  for (const id of [
    'the-element-ffn-exercise',
    'saved-and-imported-progress-storagejs',
    'how-srcfit-computes-them',
    'the-editor-a-textarea-or-the-sites-codemirror',
    'tests',
    'tests-1',
    'x-y',
  ])
    assert.ok(ids.has(id), id);
  assert.ok(!ids.has('not-a-heading'));
});
