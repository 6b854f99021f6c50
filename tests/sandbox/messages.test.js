// Issue 27, one way to say a message: no parallel `said` form and no hidden field in the sandbox; a report's texts
// are plain data { key, params, text } that survive JSON and structured cloning and say the same in any language.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gradeExercise } from 'ffn-lab/sandbox';
import en from '../../web/i18n/en.js';
import { translator, loadStrings } from '../../web/i18n/index.js';
import { toMessage } from '../../web/sandbox/grade/report-text.js';
import { fmtNum } from '../../web/sandbox/grade/report-bounds.js';
import { rng } from '../helpers/rng.js';
import { hostileWorkerUrl } from '../helpers/hostile-worker.js';

const ROOT = new URL('../../web/sandbox/', import.meta.url).pathname;

/** The sandbox's own JavaScript files (sandbox-inline.js is generated from worker.js and toolkit.js). */
function sandboxFiles(dir = ROOT) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sandboxFiles(path));
    else if (name.endsWith('.js') && name !== 'sandbox-inline.js') out.push(path);
  }
  return out;
}

/** A file's code without its comments (line and block), strings kept. */
const code = (text) => text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

test('the sandbox says a message once: no `said` field, variable or key anywhere in its code', () => {
  const files = sandboxFiles();
  assert.ok(files.length > 20, `${files.length} files`);
  const found = [];
  for (const f of files) {
    code(readFileSync(f, 'utf8'))
      .split('\n')
      .forEach((line, i) => /\bsaid\b/.test(line) && found.push(`${f.slice(ROOT.length)}:${i + 1}: ${line.trim()}`));
  }
  assert.deepEqual(found, []);
});

test('no hidden field: every Object.defineProperty in the sandbox (but the worker lockdown) is enumerable', () => {
  const found = [];
  for (const f of sandboxFiles()) {
    // worker.js hides the names it locks down (globals, the console) from learner code: its wall, not a message
    if (f.endsWith('run/worker.js')) continue;
    const text = code(readFileSync(f, 'utf8'));
    for (const m of text.matchAll(/defineProperty\(([^;]*?)\}\s*\)/g)) {
      if (!/enumerable:\s*true/.test(m[1])) found.push(`${f.slice(ROOT.length)}: ${m[0].slice(0, 120)}`);
    }
  }
  assert.deepEqual(found, []);
});

/** Every own property of v, deep, enumerable (non-enumerable ones are hidden from JSON and structured clone). */
function assertAllEnumerable(v, path = 'report', depth = 0) {
  if (v === null || typeof v !== 'object' || depth > 12) return;
  const hidden = Object.getOwnPropertyNames(v).filter((k) => !Object.prototype.propertyIsEnumerable.call(v, k));
  assert.deepEqual(
    hidden.filter((k) => !(Array.isArray(v) && k === 'length')),
    [],
    `${path}: hidden fields`,
  );
  for (const [k, x] of Object.entries(v)) assertAllEnumerable(x, `${path}.${k}`, depth + 1);
}

/** The report's readable texts: [where, { key, params, text }]. */
function readableTexts(r) {
  const out = [['summary', r.summary]];
  if (r.setup) out.push(['setup', r.setup]);
  r.tests.forEach((t, i) => {
    if (t.message) out.push([`tests[${i}].message`, t.message]);
    if (t.problem) out.push([`tests[${i}].problem`, t.problem]);
  });
  r.notes.forEach((n, i) => out.push([`notes[${i}]`, n]));
  r.diagnoses.forEach((d, i) => out.push([`diagnoses[${i}].title`, d.title], [`diagnoses[${i}].message`, d.message]));
  return out;
}

/** Whether key names a text of the English table (report.raw included). */
function inTable(key) {
  let v = en;
  for (const part of key.split('.')) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, part)) return false;
    v = v[part];
  }
  return typeof v === 'string' || (v !== null && typeof v === 'object' && typeof v.other === 'string');
}

test("a report's texts: one plain value each, { key, params, text }, the same after JSON and cloning", async () => {
  await loadStrings('fr');
  const fr = translator('fr');
  const sources = [
    ['gelu', 'function gelu(x) { return matmul(x, 2) }\nfunction geluTanh(x) { x.data.fill(0); return 1 }'],
    ['gelu', 'function gelu(x) { return (; }'],
    ['gelu', 'throw "top";'],
    ['ffn', 'function ffn(x) { return transpose(x) }'],
  ];
  const reports = [];
  for (const [id, source] of sources) reports.push(await gradeExercise(id, source, { timeout: 1000 }));
  // results the page refuses, and values that are no results (the worker's own words)
  reports.push(await gradeExercise('gelu', 'function f() {}', { workerUrl: hostileWorkerUrl(), timeout: 2000 }));
  let count = 0;
  for (const r of reports) {
    assert.equal(Object.hasOwn(r, 'said'), false);
    assertAllEnumerable(r);
    assert.deepEqual(JSON.parse(JSON.stringify(r, (k, v) => (Number.isNaN(v) ? null : v))), structuredClone(r));
    for (const [where, t] of readableTexts(r)) {
      assert.deepEqual(Object.keys(t).sort(), ['key', 'params', 'text'], where);
      assert.ok(inTable(t.key), `${where}: ${t.key} is no text of the tables`);
      assert.equal(typeof t.text, 'string', where);
      // the English is what the key and params say (a text the report cut is kept as it is: report.raw)
      for (const copy of [t, JSON.parse(JSON.stringify(t)), structuredClone(t)]) {
        assert.equal(String(toMessage(copy)), t.text, `${where}: ${t.text}`);
      }
      // and French comes from the same key and params, never the English text
      const m = toMessage(structuredClone(t));
      const french = fr.t(m.key, m.params);
      if (t.key !== 'report.raw') assert.notEqual(french, t.text, `${where}: ${french}`);
      count += 1;
    }
  }
  assert.ok(count > 60, `${count} texts`);
});

/** Names n of `names` said twice: `xMessage` (or `xMessageWith`...) beside `x` (`xWith`...). */
function pairs(where, names) {
  const all = new Set(names);
  return names
    .map((n) => [n, n.replace(/Message(?=[A-Z]|$)/, '')])
    .filter(([n, plain]) => n !== plain && all.has(plain))
    .map(([n, plain]) => `${where}: ${n} beside ${plain}`);
}

test('the public surface says a text once (no `xMessage` beside `x`), as { key, params, text }', async () => {
  const sandbox = await import('ffn-lab/sandbox');
  const storage = await import('../../web/sandbox/element/storage.js');
  const store = sandbox.createProgressStore({ storage: sandbox.memoryStorage() });
  const dts = readFileSync(join(ROOT, 'index.d.ts'), 'utf8');
  const declared = [
    ...dts.matchAll(/^\s*(?:export\s+(?:function|const|class|interface)\s+|readonly\s+)?(\w+)\??\s*[(:<]/gm),
  ];
  const surfaces = {
    'ffn-lab/sandbox': Object.keys(sandbox),
    'element/index.js': Object.keys(await import('../../web/sandbox/element/index.js')),
    'grade/index.js': Object.keys(await import('../../web/sandbox/grade/index.js')),
    'storage.js': Object.keys(storage),
    'a progress store': Object.keys(store),
    '<ffn-exercise>': Object.getOwnPropertyNames(sandbox.FfnExerciseElement.prototype),
    'index.d.ts': declared.map((m) => m[1]),
  };
  assert.ok(surfaces['index.d.ts'].includes('problemWith'), 'the .d.ts names are read');
  assert.deepEqual(
    Object.entries(surfaces).flatMap(([where, names]) => pairs(where, names)),
    [],
  );
  // the store's texts, and a code's problem, are one plain value each
  const why = storage.codeProblem('x'.repeat(storage.PROGRESS_LIMITS.codeChars + 1));
  assert.deepEqual(Object.keys(why).sort(), ['key', 'params', 'text']);
  assert.ok(inTable(why.key), why.key);
  assert.equal(String(toMessage(structuredClone(why))), why.text);
  const stored = sandbox.memoryStorage();
  stored.setItem(sandbox.DEFAULT_STORAGE_KEY, '{broken');
  const broken = sandbox.createProgressStore({ storage: stored });
  broken.get('gelu');
  assert.ok(inTable(broken.problem.key), broken.problem.key);
  assert.deepEqual(broken.problemWith('gelu'), broken.problem);
  assert.equal(String(toMessage(JSON.parse(JSON.stringify(broken.problem)))), broken.problem.text);
});

test('a report writes an integer grouped as en-US toLocaleString does, without Intl', () => {
  const r = rng(28);
  const values = [0, -0, 7, -7, 999, 1000, -1000, 999999, 1e6, 123456789, 1e15 - 1, -(1e15 - 1)];
  for (let i = 0; i < 2000; i++) values.push(Math.round((r() - 0.5) * 10 ** Math.floor(r() * 16)));
  for (const v of values) assert.equal(fmtNum(v), v.toLocaleString('en-US'), String(v));
});
