// Bounds on saved and imported progress (Node): each bound, a property test, no import that destroys good data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createProgressStore, memoryStorage } from 'ffn-lab/sandbox';
import { PROGRESS_LIMITS } from '../../web/sandbox/element/storage.js';
import { makeRng } from '../../web/sandbox/grade/exercises/index.js';
import { timeCase, shown } from '../helpers/timing.js';
import { toMessage } from '../../web/sandbox/grade/report-text.js';
import en from '../../web/i18n/en.js';

const KEY = 'ffn-lab:sandbox:v1';
const P = PROGRESS_LIMITS;
const FORMAT = 'ffn-lab-sandbox-progress';
const file = (exercises, extra = {}) => JSON.stringify({ format: FORMAT, version: 1, exercises, ...extra });
const GOOD = {
  gelu: { code: 'function gelu(x) { return x }', status: 'passed', passedAt: '2026-12-01T10:00:00Z', hintsShown: 2 },
  ffn: { code: '// mine', status: 'attempted' },
};
const fresh = () => createProgressStore({ storage: memoryStorage() });
const entries = (n, entry) => Object.fromEntries(Array.from({ length: n }, (_, i) => entry(i)));

/** A store over a fresh memory storage, holding GOOD. */
function goodStore() {
  const storage = memoryStorage();
  storage.setItem(KEY, file(GOOD));
  return { storage, store: createProgressStore({ storage }) };
}

/** A store's text { key, params, text } -> its English, after checking its key names a text of the tables. */
function english(t) {
  assert.deepEqual(Object.keys(t).sort(), ['key', 'params', 'text']);
  const entry = t.key.split('.').reduce((o, k) => (o && Object.hasOwn(o, k) ? o[k] : undefined), en);
  assert.ok(entry !== undefined, `${t.key} is no key of the tables`);
  assert.equal(String(toMessage(t)), t.text);
  return t.text;
}

/** store.importJSON(text) -> { count } or { error }, and its time in ms. */
function tryImport(store, text, options) {
  const t0 = performance.now();
  try {
    const count = store.importJSON(text, options);
    return { count, ms: performance.now() - t0 };
  } catch (error) {
    return { error, ms: performance.now() - t0 };
  }
}

/**
 * assert that an import of `text` took at most `bound` ms, timing it again (up to three attempts in all, on a fresh
 * store made by `makeStore`) while it is over: see tests/helpers/timing.js.
 */
function assertQuick(r, bound, makeStore, text, what, options) {
  const { seen } = timeCase(bound, r.ms, () => tryImport(makeStore(), text, options).ms);
  assert.ok(Math.min(...seen) <= bound, `${what}: over ${bound} ms in every attempt: ${shown(seen)}`);
}

const refused = (r, re, Type = RangeError) => {
  assert.ok(r.error, `imported ${r.count}`);
  assert.ok(r.error instanceof Type, `${r.error.name}: ${r.error.message}`);
  assert.match(r.error.message, re);
};

test('progress import: each bound holds at its limit and refuses one past it, before work proportional to it', () => {
  const { store } = goodStore();
  const code = (chars, lines = 1) => '\n'.repeat(lines - 1) + 'x'.repeat(chars - (lines - 1));
  // code: characters, then lines
  assert.equal(tryImport(store, file({ a: { code: code(P.codeChars) } })).count, 1);
  const tooLong = /a: code is 100,001 characters, more than 100,000\); nothing was changed/;
  refused(tryImport(store, file({ a: { code: code(P.codeChars + 1) } })), tooLong);
  assert.equal(tryImport(store, file({ b: { code: code(P.codeLines, P.codeLines) } })).count, 1);
  const lines = P.codeLines + 1;
  refused(tryImport(store, file({ b: { code: code(lines, lines) } })), /b: code has more than 5,000 lines/);
  // 99,990 newlines (within the 100,000-character limit): refused, quickly
  const r = tryImport(store, file({ gelu: { code: '\n'.repeat(99_990) } }));
  refused(r, /gelu: code has more than 5,000 lines/);
  assertQuick(r, 100, () => goodStore().store, file({ gelu: { code: '\n'.repeat(99_990) } }), '99,990 newlines');
  // exercises per file and in the store
  const many = (n, prefix = 'e') => entries(n, (i) => [`${prefix}${i}`, { status: 'attempted' }]);
  const full = fresh();
  assert.equal(tryImport(full, file(many(P.exercises))).count, P.exercises);
  refused(tryImport(full, file(many(1, 'z'))), /would hold 101 exercises, more than 100/);
  refused(tryImport(fresh(), file(many(P.exercises + 1))), /the file has 101 exercises; at most 100/);
  refused(tryImport(fresh(), file(many(P.members[1] + 1))), /more than 1000 entries at depth 2/, TypeError);
  // ids
  assert.equal(tryImport(store, file({ ['i'.repeat(64)]: { status: 'attempted' } })).count, 1);
  refused(tryImport(store, file({ ['i'.repeat(65)]: { status: 'attempted' } })), /the id is not 1 to 64 letters/);
  // fields
  assert.equal(tryImport(store, file({ h: { hintsShown: 100 } })).count, 1);
  const hints = [{ hintsShown: 101 }, { hintsShown: -1 }, { hintsShown: 1.5 }, { hintsShown: 1e308 }];
  const others = [{ status: 'done' }, { passedAt: 'x'.repeat(41) }, { solutionShown: 1 }, { code: 5 }, { code: null }];
  for (const bad of [...hints, ...others]) {
    refused(tryImport(store, file({ h: bad })), /h: /, RangeError);
  }
  // the whole text: 2,000,000 characters (padding is JSON whitespace) and one more
  const base = file({ w: { status: 'attempted' } });
  const at = base.slice(0, -1) + ' '.repeat(P.textChars - base.length) + '}';
  assert.equal(at.length, P.textChars);
  assert.equal(tryImport(store, at).count, 1);
  const past = tryImport(store, at + ' ');
  refused(past, /is 2,000,001 characters long; progress is at most 2,000,000/);
  assertQuick(past, 10, () => goodStore().store, at + ' ', '2,000,001 characters');
  // nesting and width, found before JSON.parse: 2,000,000 characters of [[[...]]] would take it most of a second
  for (const [text, re] of [
    ['['.repeat(P.textChars / 2) + ']'.repeat(P.textChars / 2), /nested deeper than 3 levels/],
    [file({ a: { code: 'x', extra: { deep: 1 } } }), /nested deeper than 3 levels/],
    [file({}, { junk: Array(500_000).fill(0) }), /more than 1000 entries at depth 2/],
    [file({ a: entries(33, (i) => [`f${i}`, 1]) }), /more than 32 entries at depth 3/],
    [JSON.stringify(entries(33, (i) => [`r${i}`, 1])), /more than 32 entries at depth 1/],
  ]) {
    const q = tryImport(store, text);
    refused(q, re, TypeError);
    assertQuick(q, 50, () => goodStore().store, text, text.slice(0, 30));
  }
  // the store's own size: an import that would make it longer than the bound is refused whole
  const big = fresh();
  const codes = (from, n) => entries(n, (i) => [`c${from + i}`, { code: 'y'.repeat(P.codeChars) }]);
  assert.equal(big.importJSON(file(codes(0, 15))), 15);
  refused(tryImport(big, file(codes(15, 15))), /would be .* characters long, more than 2,000,000; nothing was changed/);
  assert.equal(JSON.parse(big.exportJSON()).exercises.c20, undefined);
});

test('progress import never destroys saved progress it cannot replace with good progress', () => {
  // an all-invalid entry naming another exercise (before: that exercise's progress became {})
  let { storage, store } = goodStore();
  const none = /no entry could be imported \(ffn: code must be a string, not number; status must be/;
  refused(tryImport(store, file({ ffn: { code: 5, status: 'nope' } })), none);
  assert.deepEqual(JSON.parse(storage.getItem(KEY)).exercises, GOOD);
  // an empty entry carries nothing: skipped, not applied
  refused(tryImport(store, file({ ffn: {} })), /ffn: it holds no progress/);
  assert.deepEqual(store.get('ffn'), GOOD.ffn);
  // mixed: the valid entry is imported, the invalid one skipped and named, its exercise left as it was
  assert.equal(store.importJSON(file({ gelu: { code: 'new', status: 'attempted' }, ffn: { hintsShown: 'all' } })), 1);
  assert.deepEqual(store.get('gelu'), { code: 'new', status: 'attempted' });
  assert.deepEqual(store.get('ffn'), GOOD.ffn);
  const reason = 'hintsShown must be a whole number from 0 to 100';
  assert.equal(store.lastImport.imported, 1);
  // each reason a text as a report holds it: a message by key and params, and its English
  const texts = store.lastImport.skipped.map((s) => [s.id, s.reason.key, s.reason.text]);
  assert.deepEqual(texts, [['ffn', 'storage.hintsShown', reason]]);
  // replace: refused when anything would be skipped, or when the file holds nothing
  ({ storage, store } = goodStore());
  const replace = { replace: true };
  const half = file({ gelu: { code: 'x' }, ffn: { code: 1 } });
  refused(tryImport(store, half, replace), /cannot replace all progress, 1 entry/);
  refused(tryImport(store, file({}), replace), /holds no progress, and replacing with it would erase everything/);
  assert.deepEqual(JSON.parse(storage.getItem(KEY)).exercises, GOOD);
  assert.equal(store.importJSON(file({ swiglu: { status: 'passed' } }), { replace: true }), 1);
  assert.deepEqual(Object.keys(JSON.parse(storage.getItem(KEY)).exercises), ['swiglu']);
  // prototype keys are plain ids and plain fields
  ({ storage, store } = goodStore());
  assert.equal(store.get('constructor').code, undefined);
  const protoKeys = '{"__proto__":{"code":"p"},"constructor":{"code":"c","__proto__":"passed"}}';
  assert.equal(store.importJSON(`{"format":"${FORMAT}","version":1,"exercises":${protoKeys}}`), 2);
  assert.deepEqual(store.get('__proto__'), { code: 'p' });
  assert.deepEqual(store.get('constructor'), { code: 'c' });
  assert.equal({}.code, undefined, 'Object.prototype was changed');
  assert.deepEqual(JSON.parse(storage.getItem(KEY)).exercises.gelu, GOOD.gelu);
});

// What breaks the bounds is left out and named, what is good is kept, what this version cannot read is not overwritten.
test('saved progress already in storage is read within the same bounds', () => {
  const open = (text) => {
    const storage = memoryStorage();
    if (text !== undefined) storage.setItem(KEY, text);
    return { storage, store: createProgressStore({ storage }) };
  };
  // a 99,990-line code among good entries: that code is not loaded; the rest is
  const huge = file({ ...GOOD, swiglu: { code: '\n'.repeat(99_990), status: 'attempted' } });
  let { storage, store } = open(huge);
  const t0 = performance.now();
  assert.deepEqual(store.get('swiglu'), { status: 'attempted' });
  const load = () => {
    const t = performance.now();
    open(huge).store.get('swiglu');
    return performance.now() - t;
  };
  // a fresh store each attempt (the text is parsed once per store)
  const { seen } = timeCase(100, performance.now() - t0, load);
  assert.ok(Math.min(...seen) <= 100, `loading: over 100 ms in every attempt: ${shown(seen)}`);
  assert.deepEqual(store.get('gelu'), GOOD.gelu);
  assert.match(english(store.problem), /part of swiglu \(code has more than 5,000 lines\)/);
  assert.equal(english(store.problemWith('swiglu')), 'code has more than 5,000 lines');
  assert.equal(store.problemWith('gelu'), null);
  // entries beyond 100 exercises, and invalid ids, are left out and counted
  const many = Object.fromEntries(Array.from({ length: 99 }, (_, i) => [`e${i}`, { status: 'attempted' }]));
  ({ store } = open(file({ ...many, 'bad id!': { code: 'x' }, last: { code: 'y' }, over: { code: 'z' } })));
  assert.deepEqual(store.get('last'), { code: 'y' });
  assert.deepEqual(store.get('over'), {});
  assert.match(english(store.problem), /the invalid id "bad id!".*entries beyond the first 100 exercises/);
  // at the bounds a stored text is read whole: 2,000,000 characters, a code of 5,000 lines and 100,000 characters
  const atLines = '\n'.repeat(P.codeLines - 1) + 'x'.repeat(P.codeChars - P.codeLines + 1);
  const stored = file({ ...GOOD, swiglu: { code: atLines } });
  const exact = stored.slice(0, -1) + ' '.repeat(P.textChars - stored.length) + '}';
  assert.equal(exact.length, P.textChars);
  ({ storage, store } = open(exact));
  assert.equal(store.get('swiglu').code, atLines);
  assert.deepEqual(store.get('gelu'), GOOD.gelu);
  assert.equal(store.problem, null);
  // one past: a text of 2,000,001 characters is not read (nor overwritten, below); a code of 5,001 lines left out
  ({ store } = open(exact + ' '));
  assert.deepEqual(store.get('gelu'), {});
  ({ store } = open(file({ ...GOOD, swiglu: { code: `\n${atLines.slice(0, -1)}` } })));
  assert.deepEqual(store.get('swiglu'), {});
  assert.match(english(store.problem), /part of swiglu \(code has more than 5,000 lines\)/);
  // unreadable text that may be good data: too long, or a newer version. Not overwritten; work goes on in memory
  const newer = JSON.stringify({ format: FORMAT, version: 2, exercises: {} });
  for (const text of [file(GOOD, { pad: 'x'.repeat(P.textChars) }), newer]) {
    ({ storage, store } = open(text));
    assert.deepEqual(store.get('gelu'), {});
    assert.match(english(store.problem), /more than the 2,000,000 this version reads|version 2; this is version 1/);
    assert.deepEqual(store.problemWith('gelu'), store.problem);
    store.update('gelu', { code: 'typed in this visit' });
    assert.equal(store.get('gelu').code, 'typed in this visit');
    assert.equal(store.persistent, false);
    assert.equal(storage.getItem(KEY), text, 'the stored text was overwritten');
  }
  // text that is no progress at all (not JSON, nested, wrong format) is read as none and replaced by the next save
  for (const text of ['{broken', '['.repeat(1e6), file(GOOD).replace('ffn-lab-sandbox-progress', 'other')]) {
    ({ storage, store } = open(text));
    assert.deepEqual(store.get('gelu'), {});
    assert.ok(english(store.problem));
    store.update('gelu', { status: 'attempted' });
    assert.equal(JSON.parse(storage.getItem(KEY)).exercises.gelu.status, 'attempted');
  }
  // saving code beyond the bounds keeps the code saved before
  ({ storage, store } = open(file(GOOD)));
  store.update('gelu', { code: '\n'.repeat(P.codeLines) });
  assert.equal(store.get('gelu').code, GOOD.gelu.code);
  store.update('gelu', { code: 'ok', status: 'bogus' });
  assert.deepEqual(store.get('gelu'), { ...GOOD.gelu, code: 'ok' });
});

/*
 * Generated hostile progress files: valid and invalid JSON, prototype keys as ids and fields, long and
 * many-line codes, extreme numbers, deep and wide nesting, wrong types in every field, duplicated keys.
 * Every import must answer within 100 ms with a count or a TypeError/RangeError naming importJSON, and
 * afterwards every exercise's saved progress is either what it was or exactly a valid entry of the file.
 */
function hostileFile(rng) {
  const pick = (list) => list[Math.floor(rng.next() * list.length)];
  const value = () =>
    pick([
      'function f() {}',
      '\n'.repeat(pick([10, P.codeLines - 1, P.codeLines, 99_990])),
      'x'.repeat(pick([10, P.codeChars, P.codeChars + 1])),
      'passed',
      'attempted',
      'done',
      '2026-01-01',
      'z'.repeat(41),
      true,
      false,
      null,
      0,
      3,
      100,
      101,
      -1,
      1.5,
      1e308,
      -0,
      2 ** 53,
      [],
      [1, 2],
      {},
      { code: 'x' },
    ]);
  const field = () => pick(['code', 'status', 'passedAt', 'solutionShown', 'hintsShown', '__proto__', 'constructor']);
  const put = (o, key, value) => Object.defineProperty(o, key, { value, enumerable: true, configurable: true });
  const entry = () => {
    if (rng.next() < 0.1) return pick([null, 'str', 7, [], true]);
    const e = {};
    const n = pick([0, 1, 2, 3, 5]);
    for (let i = 0; i < n; i++) put(e, field(), value());
    return e;
  };
  const odd = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'i'.repeat(64), 'i'.repeat(65), 'bad id', ''];
  const id = () => pick(['gelu', 'ffn', 'swiglu', 'memories', 'x-1_y', ...odd]);
  const exercises = {};
  const n = pick([0, 1, 2, 4, 8]);
  for (let i = 0; i < n; i++) put(exercises, id(), entry());
  const text = file(pick([exercises, exercises, exercises, null, [], 'x']));
  return pick([
    text,
    text,
    text,
    text,
    text.replace('"version":1', pick(['"version":2', '"version":"1"', '"version":1e400'])),
    text.slice(0, Math.floor(rng.next() * text.length)),
    '['.repeat(pick([4, 1000, 500_000])) + text,
    text.replace('{', `{"junk":[${'0,'.repeat(pick([10, 200, 300_000]))}0],`),
    text.replace(/"gelu"/g, '"gelu","gelu"'),
  ]);
}

// Each import answers within 100 ms with a count or a clear error, and no saved exercise is lost or changed except by a
// valid entry of the file.
test('progress import property: 2,000 generated hostile files', () => {
  const rng = makeRng(1818);
  let imported = 0;
  for (let i = 0; i < 2000; i++) {
    const { storage, store } = goodStore();
    const before = JSON.parse(storage.getItem(KEY)).exercises;
    const text = hostileFile(rng);
    const replace = rng.next() < 0.2;
    const r = tryImport(store, text, { replace });
    assertQuick(r, 100, () => goodStore().store, text, `file ${i}`, { replace });
    const after = JSON.parse(storage.getItem(KEY)).exercises;
    if (r.error) {
      assert.ok(r.error instanceof TypeError || r.error instanceof RangeError, `${r.error.name}: ${r.error.message}`);
      assert.match(r.error.message, /^importJSON: /);
      assert.ok(r.error.message.length < 400, r.error.message);
      assert.deepEqual(after, before, `file ${i}: a refused import changed the saved progress`);
      continue;
    }
    imported += 1;
    const sent = JSON.parse(text).exercises;
    for (const id of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const changed = JSON.stringify(after[id]) !== JSON.stringify(before[id]);
      if (Object.hasOwn(sent, id) && Object.hasOwn(after, id) && changed) {
        // changed: it must be the file's entry, valid as a whole (its known fields; a false solutionShown left out)
        const expected = {};
        for (const f of ['code', 'status', 'passedAt', 'solutionShown', 'hintsShown']) {
          if (Object.hasOwn(sent[id], f)) expected[f] = sent[id][f];
        }
        if (expected.solutionShown === false) delete expected.solutionShown;
        assert.deepEqual(after[id], expected, `file ${i}: ${id}`);
      } else if (!replace) {
        assert.deepEqual(after[id], before[id], `file ${i}: ${id} changed or was lost`);
      }
    }
    for (const e of Object.values(after)) {
      assert.ok(Object.keys(e).length > 0);
      if (e.code !== undefined) assert.ok(e.code.length <= P.codeChars && e.code.split('\n').length <= P.codeLines);
    }
  }
  assert.ok(imported > 100 && imported < 1900, `${imported} of 2000 imported: the generator no longer covers both`);
});
