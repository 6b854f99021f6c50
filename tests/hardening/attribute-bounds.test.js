// Issue 18: every stated bound of the elements' attributes, the embed URL and the memory hash, at and past it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryModel as mm, activationModel as am, paramModel as pm } from 'ffn-lab/components';
import { codeProblem } from '../../web/sandbox/element/storage.js';
import { readTimeout, readStorageKey, readNumber } from '../../web/sandbox/element/element.js';
import { readEmbedParams } from '../../web/embed/params.js';

// The bounds as web/components/README.md and web/sandbox/element/README.md state them, written out here, not imported.
const FACTS = 8;
const LABEL = 64;
const FACTS_CHARS = 4288;
const DISTRACTORS = 8;
const HASH_PART = 256;
const HASH = 4096;
const RANGE = 1000;
const SPAN = 0.01;
const CURVES_CHARS = 200;
const SIZES = {
  d: 131072,
  'd-ff': 1048576,
  heads: 4096,
  'kv-heads': 4096,
  'head-dim': 16384,
  experts: 4096,
  'active-experts': 4096,
  'shared-experts': 64,
  'multiple-of': 65536,
};
const PRESETS = 16;
const PRESETS_CHARS = 16000;
const TIMEOUT = [100, 60000];
const STORAGE_KEY = 200;
const NUMBER = 16;
const CODE_CHARS = 100000;
const CODE_LINES = 5000;
const QUERY = 65536;
const ID = 64;

/** Whether `text` names `name`: a word of its own, or the end of a camelCase one (parseFacts); 'd' is not in 'said'. */
function names(text, name) {
  const esc = name.replace(/[^\w]/g, '\\$&');
  const cap = esc[0].toUpperCase() + esc.slice(1);
  return new RegExp(`(^|[^\\w-])${esc}([^\\w-]|$)`, 'i').test(text) || new RegExp(`[a-z]${cap}([^\\w-]|$)`).test(text);
}

/** parse() -> the value, or { refused: error } for a TypeError/RangeError naming `name`; anything else fails. */
function attempt(name, parse) {
  try {
    return parse();
  } catch (e) {
    assert.ok(e instanceof TypeError || e instanceof RangeError, `${name}: ${e?.constructor?.name}: ${e?.message}`);
    assert.ok(names(e.message, name), `${name}: the error does not name it: ${e.message}`);
    assert.ok(e.message.length < 400, `${name}: an error of ${e.message.length} characters`);
    return { refused: e };
  }
}
const refused = (v) => v !== null && typeof v === 'object' && 'refused' in v;
const facts = (n, label = 'k') => Array.from({ length: n }, (_, i) => `${label}${i}>v${i}`).join(', ');
const padTo = (s, n, c = ' ') => s + c.repeat(n - s.length);

test('memory widget: facts, distractors, threshold, k, query, sync-hash and the URL hash at and past bounds', () => {
  const p = (name, v) => attempt(name, () => mm.parseAttribute(name, v));
  assert.equal(p('facts', facts(FACTS)).length, FACTS);
  assert.ok(refused(p('facts', facts(FACTS + 1))));
  assert.equal(p('facts', padTo(facts(1), FACTS_CHARS)).length, 1, 'padding within the length bound');
  assert.ok(refused(p('facts', padTo(facts(1), FACTS_CHARS + 1))));
  assert.equal(p('facts', `${'K'.repeat(LABEL)}>${'V'.repeat(LABEL)}`)[0].key.length, LABEL);
  assert.ok(refused(p('facts', `${'K'.repeat(LABEL + 1)}>v`)));
  assert.ok(refused(p('facts', `k>${'V'.repeat(LABEL + 1)}`)));
  const words = (n) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
  assert.equal(p('distractors', words(DISTRACTORS)).length, DISTRACTORS);
  assert.ok(refused(p('distractors', words(DISTRACTORS + 1))));
  assert.equal(p('threshold', '-2'), -2);
  assert.equal(p('threshold', '3.5'), 3.5);
  assert.ok(refused(p('threshold', '-2.001')));
  assert.ok(refused(p('threshold', '3.501')));
  assert.equal(p('k', '8'), 8);
  assert.equal(p('k', '9'), 8, 'k is clamped');
  assert.equal(p('k', '1e300'), 8);
  assert.deepEqual(p('query', '1.25,-1.25'), [1.25, -1.25]);
  assert.deepEqual(p('query', '1.26,-1e300'), [1.25, -1.25], 'query is clamped');
  assert.equal(p('sync-hash', 'h'.repeat(32)), 'h'.repeat(32));
  assert.ok(refused(p('sync-hash', 'h'.repeat(33))));
  // the hash value of the widget's part, then the whole URL hash
  const part = (n) => padTo('q:0.5,0.5;k:1', n, ';');
  assert.deepEqual(mm.parseHashState(part(HASH_PART)).state, { query: [0.5, 0.5], k: 1 });
  assert.ok(refused(attempt('sync-hash', () => mm.parseHashState(part(HASH_PART + 1)))));
  const hash = (n) => padTo(`#other=1&memory=${part(HASH_PART)}&x=`, n, 'y');
  assert.deepEqual(mm.readHashFrom(hash(HASH), 'memory').state, { query: [0.5, 0.5], k: 1 });
  assert.ok(refused(attempt('sync-hash', () => mm.readHashFrom(hash(HASH + 1), 'memory'))));
  assert.equal(mm.readHashFrom(hash(HASH), 'nothing'), null);
  assert.deepEqual(mm.readHashFrom('#memory=q', 'memory').state, {}, "the issue's #memory=q: ignored, no throw");
  assert.equal(mm.readHashFrom('#memory=q', 'memory').ignored.length, 1);
});

test('activation plot: range, x and curves at and past bounds', () => {
  const p = (name, v) => attempt(name, () => am.parseAttribute(name, v));
  assert.deepEqual(p('range', `-${RANGE},${RANGE}`), [-RANGE, RANGE]);
  assert.ok(refused(p('range', `-${RANGE}.001,${RANGE}`)));
  assert.ok(refused(p('range', `-${RANGE},${RANGE}.001`)));
  assert.ok(refused(p('range', '-1e300,1e300')), "the issue's range");
  assert.deepEqual(p('range', `0,${SPAN}`), [0, SPAN]);
  assert.ok(refused(p('range', `0,${SPAN * 0.99}`)));
  assert.equal(p('x', String(RANGE)), RANGE);
  assert.equal(p('x', '1e300'), RANGE, 'x is clamped');
  const curves = padTo('gelu,relu', CURVES_CHARS);
  assert.deepEqual(p('curves', curves), ['gelu', 'relu']);
  assert.ok(refused(p('curves', `${curves} `)));
  // at most 11 ticks for the widest range accepted, as for the narrowest
  assert.ok(am.niceTicks(-RANGE, RANGE).values.length <= 11);
  assert.ok(am.niceTicks(0, SPAN).values.length <= 11);
});

test('parameter calculator: every size, preset ids and author presets at and past bounds', () => {
  const p = (name, v) => attempt(name, () => pm.parseAttribute(name, v));
  for (const [name, max] of Object.entries(SIZES)) {
    assert.equal(p(name, String(max)), max, name);
    assert.ok(refused(p(name, String(max + 1))), `${name}=${max + 1}`);
  }
  assert.equal(p('multiplier', '64'), 64);
  assert.ok(refused(p('multiplier', '64.001')));
  assert.ok(refused(p('multiplier', '0')));
  for (const id of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    assert.equal(pm.findPreset(id), null, `preset=${id}`);
  }
  const preset = (i) => ({ id: `p${i}`, label: 'P', d: 64, dff: 256, heads: 4, kvHeads: 4 });
  const list = (n) => JSON.stringify(Array.from({ length: n }, (_, i) => preset(i)));
  assert.equal(p('presets', list(PRESETS)).length, PRESETS);
  assert.ok(refused(p('presets', list(PRESETS + 1))));
  const one = list(1);
  assert.equal(p('presets', padTo(one, PRESETS_CHARS)).length, 1);
  assert.ok(refused(p('presets', padTo(one, PRESETS_CHARS + 1))));
});

test('exercise element: timeout, storage-key, number and code at and past bounds, with a notice past them', () => {
  const [min, max] = TIMEOUT;
  assert.deepEqual(readTimeout(String(min)), { ms: min, notice: null });
  assert.deepEqual(readTimeout(String(max)), { ms: max, notice: null });
  for (const [v, ms] of [
    [min - 1, min],
    [max + 1, max],
    ['1e300', max],
    ['abc', 2000],
    ['9'.repeat(65), 2000],
  ]) {
    const r = readTimeout(String(v));
    assert.equal(r.ms, ms, String(v).slice(0, 20));
    assert.match(String(r.notice), /^timeout=/);
    assert.ok(String(r.notice).length < 200);
  }
  assert.deepEqual(readStorageKey('k'.repeat(STORAGE_KEY)), { key: 'k'.repeat(STORAGE_KEY), notice: null });
  const key = readStorageKey('k'.repeat(STORAGE_KEY + 1));
  assert.equal(key.key, null);
  assert.match(String(key.notice), /^storage-key=/);
  assert.deepEqual(readNumber(` ${'3'.repeat(NUMBER)} `), { text: '3'.repeat(NUMBER), notice: null });
  for (const v of ['3'.repeat(NUMBER + 1), '1\u0000', 'x'.repeat(1e6)]) {
    const n = readNumber(v);
    assert.equal(n.text, '', 'a refused number is not shown');
    assert.match(String(n.notice), /^number=/);
    assert.ok(String(n.notice).length < 200);
  }
  assert.equal(readNumber(null).text, '');
  const code = (chars, lines = 1) => '\n'.repeat(lines - 1) + 'x'.repeat(chars - (lines - 1));
  assert.equal(codeProblem(code(CODE_CHARS)), null);
  assert.equal(codeProblem(code(CODE_LINES, CODE_LINES)), null);
  assert.match(codeProblem(code(CODE_CHARS + 1)).text, /100,001 characters/);
  assert.equal(codeProblem(code(CODE_CHARS + 1)).key, 'storage.codeChars');
  assert.match(codeProblem(code(CODE_LINES + 1, CODE_LINES + 1)).text, /5,000 lines/);
  assert.equal(codeProblem(code(CODE_LINES + 1, CODE_LINES + 1)).key, 'storage.codeLines');
  assert.equal(codeProblem('\n'.repeat(99_990)).key, 'storage.codeLines', "the issue's 99,990 newlines");
});

test('embed pages: the URL query and the id sent back, at and past bounds; theme checked', () => {
  const allowed = ['d', 'preset'];
  const query = (n) => padTo('?d=64&preset=gpt2&pad=', n, 'z');
  const at = readEmbedParams(query(QUERY), allowed);
  assert.deepEqual(at.attributes, [
    ['d', '64'],
    ['preset', 'gpt2'],
  ]);
  assert.deepEqual(at.problems, []);
  const past = readEmbedParams(query(QUERY + 1), allowed);
  assert.deepEqual(past.attributes, [], 'nothing is applied from a query past its bound');
  assert.equal(past.problems.length, 1);
  assert.match(String(past.problems[0]), /65537 characters long; at most 65536/);
  assert.equal(readEmbedParams(`?id=${'i'.repeat(ID)}`, allowed).id, 'i'.repeat(ID));
  const longId = readEmbedParams(`?id=${'i'.repeat(ID + 1)}`, allowed);
  assert.equal(longId.id, null);
  assert.match(String(longId.problems[0]), /^id="i{40}"… \(65 characters\) is not/);
  assert.equal(readEmbedParams('?theme=dark', allowed).theme, 'dark');
  const theme = readEmbedParams('?theme=%3Cb%3E', allowed);
  assert.equal(theme.theme, null);
  assert.match(String(theme.problems[0]), /^theme="<b>" is not "dark" or "light"/);
  // names outside the page's list, prototype names among them, are not applied
  const proto = readEmbedParams('?__proto__=1&constructor=2&toString=3&d=5', allowed);
  assert.deepEqual(proto.attributes, [['d', '5']]);
});

test('memory lab: facts, seed, d-ff, fact and memory at and past bounds; hostile values named', async () => {
  // the bounds of web/components/memory-lab/README.md, written out
  const [LAB_FACTS, LAB_LABEL, LAB_CHARS, SEED_MAX, FACT_CHARS] = [4096, 64, 819200, 2 ** 31 - 1, 136];
  const { parseAttribute } = await import('../../web/components/memory-lab/attributes.js');
  const p = (name, v) => attempt(name, () => parseAttribute(name, v));
  const lines = (n, label = 's') => Array.from({ length: n }, (_, i) => `${label}${i} | r | o`).join('\n');
  assert.equal(p('facts', lines(LAB_FACTS)).length, LAB_FACTS);
  assert.match(p('facts', lines(LAB_FACTS + 1)).refused.message, /expected 1 to 4096 facts, got 4097/);
  assert.equal(p('facts', lines(1).padEnd(LAB_CHARS)).length, 1, 'padding within the length bound');
  assert.ok(refused(p('facts', lines(1).padEnd(LAB_CHARS + 1))));
  assert.equal(p('facts', `${'S'.repeat(LAB_LABEL)} | r | o`)[0].subject.length, LAB_LABEL);
  assert.ok(refused(p('facts', `s | ${'R'.repeat(LAB_LABEL + 1)} | o`)));
  assert.ok(refused(p('facts', `s | r | ${'O'.repeat(LAB_LABEL + 1)}`)));
  assert.equal(p('seed', '1'), 1);
  assert.equal(p('seed', String(SEED_MAX)), SEED_MAX);
  for (const v of ['0', String(SEED_MAX + 1), '1e300', '-1', '1.5', 'NaN', '0x10', ' ', '9'.repeat(33)]) {
    assert.ok(refused(p('seed', v)), `seed=${v.slice(0, 20)}`);
  }
  for (const v of ['32', '64', '128', '256', '512', '1024']) assert.equal(p('d-ff', v), Number(v));
  for (const v of ['16', '48', '2048', '1025', '512.0', '5e2', '-512', '__proto__']) {
    assert.ok(refused(p('d-ff', v)), `d-ff=${v}`);
  }
  assert.deepEqual(p('fact', 'Japan · capital'), ['Japan', 'capital']);
  const name = (n) => `${'s'.repeat(n - 4)} | r`;
  assert.equal(p('fact', name(FACT_CHARS))[0].length, FACT_CHARS - 4);
  assert.ok(refused(p('fact', name(FACT_CHARS + 1))));
  for (const v of ['Japan', 'a · b · c', ' · r', '__proto__', '']) assert.ok(refused(p('fact', v)), `fact=${v}`);
  assert.equal(p('memory', '0'), 0);
  assert.equal(p('memory', '1023'), 1023, 'below the largest d_ff (the element checks its own)');
  for (const v of ['1024', '-1', '1.5', '1e300', 'NaN', 'x'.repeat(1e6)]) {
    assert.ok(refused(p('memory', v)), `memory=${v.slice(0, 20)}`);
  }
  // non-strings (a property's value reaching a parser) and names that are not the lab's
  for (const v of [null, undefined, 42, {}, [], Symbol('s')]) {
    for (const n of ['seed', 'd-ff', 'fact', 'memory']) assert.ok(refused(p(n, v)), `${n} = ${typeof v}`);
  }
  assert.ok(refused(attempt('__proto__', () => parseAttribute('__proto__', '1'))));
});
