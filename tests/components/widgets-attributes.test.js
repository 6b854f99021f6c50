// Property test of the five elements' attribute parsers, the embed pages' URL and the memory widget's hash reading:
// hostile values give a bounded result quickly or a clear error. The cases run in a worker thread, so a parser that
// hangs (as a walk over a declared length of 2^32 - 1 does) is stopped and reported by name instead of freezing the
// test run.
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { rng } from '../helpers/numeric.js';
import { timeCase } from '../helpers/timing.js';

const CALL_MS = 250; // a generous bound on one parser call: the point is "never a hang", not speed
// A call over CALL_MS is timed again, up to three attempts, and fails only if every attempt is over
// (tests/helpers/timing.js): a loaded machine stretches one call now and then, a walk over 2^32 - 1 slots every time.
const RESULT_CHARS = 20000; // a result, as JSON, is at most this long
const MESSAGE_CHARS = 400; // an error message is at most this long

/** Hostile text values: extreme and malformed numbers, long strings, prototype keys, broken lists, many items. */
function hostileStrings(seed) {
  const r = rng(seed);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const out = [
    '',
    ' ',
    '-',
    '+',
    '.',
    'e',
    '1e',
    '--1',
    '1e300',
    '-1e300',
    '1e-300',
    '-1e-300',
    '1e400',
    '-1e400',
    'NaN',
    'Infinity',
    '-Infinity',
    '0x10',
    '0b11',
    '1_000',
    '١٢٣',
    '-0',
    '9'.repeat(400),
    '1' + '0'.repeat(100000),
    '.5',
    '5.',
    '+3',
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'valueOf',
    '__defineGetter__',
    'then',
    ',',
    ',,,',
    ';;;',
    'a,,b',
    'a>>b',
    '>b',
    'a>',
    '@',
    'a>b@',
    'a>b@x',
    'a>b@1e300',
    'a>b@NaN',
    'x,y,z',
    '1,2,3',
    '1,',
    ',1',
    '1,,2',
    '3,1',
    '1,1',
    '-1e300,1e300',
    '-1e6,1e6',
    '-1000,1000',
    '0,1e-9',
    '1e300,1e300',
    'NaN,NaN',
    '5,nope',
    'a'.repeat(1e6),
    ','.repeat(1e5),
    ';'.repeat(1e5),
    '>'.repeat(1e5),
    '@'.repeat(1e5),
    ' '.repeat(1e5),
    'a>b,'.repeat(1e5),
    'a>b, '.repeat(9),
    Array.from({ length: 9 }, (_, i) => `k${i}>v${i}`).join(', '),
    Array.from({ length: 8 }, (_, i) => `k${i}>v${i}`).join(', '),
    'Tokyo>Japan, Tokyo>Nippon',
    'Tokyo>Japan@' + '9'.repeat(1e5),
    'Tokyo>' + 'J'.repeat(65),
    'T'.repeat(65) + '>Japan',
    'Saint Petersburg>Russia',
    'a\u0000b>c',
    'a\u202eb>c',
    'a\u2028b',
    '\ud800>x',
    'e\u0301>f',
    '😀>😀',
    'relu,relu,relu',
    'gelu silu',
    'tanh',
    'RELU',
    'q',
    'q:',
    'q:1',
    'q:1,2,3',
    'q:a,b',
    'k:1e300',
    't:1e300',
    'a:tanh',
    'q:0,1;k:2;t:0.5;a:gelu',
    'x:1;y:2',
    ';'.repeat(300),
    'q:0,1;'.repeat(60),
    'true',
    'false',
    'TRUE',
    'yes',
    '0',
    '1',
    '-1',
    '4097',
    '131073',
    '1048577',
    '65',
    '4096',
    '0.5',
    '1.5',
    '64',
    '64.0001',
    '[]',
    '{}',
    '[{}]',
    'null',
    '[null]',
    '[1]',
    '"x"',
    '['.repeat(15000),
    '[' + '{},'.repeat(5000) + '{}]',
    'x'.repeat(16001),
    '{"__proto__":{"d":1}}',
    '[{"id":"__proto__","label":"p","d":64,"dff":256,"heads":4,"kvHeads":4}]',
    '[{"id":"constructor","label":"c"}]',
    '[{"id":"gpt2","label":"x"}]',
    '[{"id":"a","label":"b","d":1e308}]',
    '[{"id":"a","label":"b","d":"4096"}]',
    '[{"id":"a","label":"b","d_ff":1}]',
    '[{"id":"a","label":"b","moe":{"experts":1e300}}]',
    '[{"id":"a","label":"b"},{"id":"a","label":"c"}]',
    '[{"id":"a b","label":"x"}]',
    '[{"id":"a","label":""}]',
    JSON.stringify(Array.from({ length: 17 }, (_, i) => ({ id: `p${i}`, label: 'p' }))),
    '[{"id":"m","label":"M","d":4096,"dff":14336,"heads":32,"kvHeads":8,"gated":true,"bias":false}]',
    // URL queries and hashes (the embed pages, the memory widget's sync-hash)
    '?',
    '#',
    '?&&&',
    '?d=64&preset=gpt2&theme=dark&id=a1',
    '?__proto__=1&constructor=x&toString=&d=1e300',
    '?theme=' + 'x'.repeat(1e5),
    '?id=' + 'i'.repeat(65),
    '?id=%00',
    '?theme=%E0%A4%A',
    '%'.repeat(6e4),
    '?' + 'a=1&'.repeat(16384),
    '?' + 'a=1&'.repeat(16385),
    '?' + 'd=1&'.repeat(2e5),
    '?d=' + '9'.repeat(65530),
    '?presets=' + encodeURIComponent('[' + '{},'.repeat(5000) + '{}]'),
    '?facts=' + '%2C'.repeat(2e4),
    '#memory=q',
    '#memory=q:0,1;k:2;t:0.5;a:gelu',
    '#memory=' + 'q:0,1;'.repeat(42),
    '#memory=' + 'q:0,1;'.repeat(43),
    '#' + '&'.repeat(4095),
    '#' + '&'.repeat(4096),
    '#memory=' + '%'.repeat(4000),
    '#' + 'memory=q:1,1&'.repeat(300),
    '#__proto__=q:0,0&constructor=k:1',
    '#memory=' + 'x'.repeat(1e6),
    // line counts (the code property's 5,000 lines; any parser that splits on line breaks)
    '\n'.repeat(99_990),
    'a\r\n'.repeat(33_000),
    '\u2028'.repeat(1e5),
    'x\n'.repeat(5000),
    'x\n'.repeat(4999) + 'x',
  ];
  for (let i = 0; i < 200; i++) {
    const num = () =>
      pick([
        String((r() - 0.5) * 10 ** Math.floor(r() * 40 - 20)),
        String(Math.floor(r() * 1e6)),
        pick(out.slice(0, 30)),
      ]);
    const fact = () => `${pick(['a', 'b c', '__proto__', 'x'.repeat(70), ''])}>${pick(['v', ''])}`;
    out.push(
      pick([
        () => num(),
        () => `${num()},${num()}`,
        () => `${num()},${num()},${num()}`,
        () => Array.from({ length: 1 + Math.floor(r() * 12) }, fact).join(pick([',', ';', ', '])),
        () =>
          Array.from({ length: 1 + Math.floor(r() * 5) }, () => `${pick(['q', 'k', 't', 'a', 'z'])}:${num()}`).join(
            ';',
          ),
        () => pick(out).slice(0, Math.floor(r() * 100)),
      ])(),
    );
  }
  return out;
}

/** Hostile non-string inputs for the parsers that also take arrays or objects (element properties). */
function hostileObjects() {
  const sparse = [];
  sparse.length = 2 ** 32 - 1;
  const sparse9 = [];
  sparse9.length = 9;
  const getter = {
    get key() {
      return 'k'.repeat(10);
    },
    get value() {
      return 'v';
    },
  };
  const nullProto = Object.assign(Object.create(null), { key: 'a', value: 'b' });
  return [
    sparse,
    sparse9,
    [],
    [null],
    [undefined],
    [1],
    [[]],
    [{}],
    [{ key: 1, value: 2 }],
    [{ key: {}, value: [] }],
    [{ key: Symbol('s'), value: 'x' }],
    [getter],
    [nullProto],
    Array.from({ length: 1e5 }, () => ({ key: 'a', value: 'b' })),
    [{ key: 'a', value: 'b', threshold: 1e300 }],
    [{ key: 'a', value: 'b', threshold: NaN }],
    [{ key: '__proto__', value: 'x' }],
    null,
    undefined,
    42,
    {},
    { length: 2 ** 32 - 1 },
    new Proxy([], {}),
  ];
}

/** The cases: [name, call, check(result)] for every attribute of every element, plus the property parsers. */
async function cases() {
  const { memoryModel: mm, activationModel: am, paramModel: pm } = await import('ffn-lab/components');
  const { readTimeout, readStorageKey, readNumber } = await import('../../web/sandbox/element/element.js');
  const { codeProblem } = await import('../../web/sandbox/element/storage.js');
  const { readEmbedParams } = await import('../../web/embed/params.js');
  const lab = await import('../../web/components/memory-lab/attributes.js');
  const { labFacts } = await import('ffn-lab/components');
  const strs = hostileStrings(18);
  const finite = (v) => typeof v === 'number' && Number.isFinite(v);
  const label = (s) =>
    typeof s === 'string' &&
    Array.from(s).length >= 1 &&
    Array.from(s).length <= mm.MAX_LABEL &&
    !/[>@,;\u0000]/.test(s);
  const thresholdOk = (t) => t >= mm.THRESHOLD_MIN && t <= mm.THRESHOLD_MAX;
  const facts = (v) =>
    Array.isArray(v) &&
    v.length >= 1 &&
    v.length <= mm.MAX_FACTS &&
    v.every((f) => label(f.key) && label(f.value) && (f.threshold === undefined || thresholdOk(f.threshold)));
  const config = (c) => {
    pm.validateConfig(c);
    return true;
  };
  const intIn = (v, lo, hi) => v === undefined || (Number.isInteger(v) && v >= lo && v <= hi);
  const checks = {
    memory: {
      facts,
      distractors: (v) =>
        Array.isArray(v) && v.length <= mm.MAX_DISTRACTORS && v.every((t) => label(t) && !/\s/.test(t)),
      threshold: (v) => v === null || (finite(v) && v >= mm.THRESHOLD_MIN && v <= mm.THRESHOLD_MAX),
      k: (v) => v === null || (Number.isInteger(v) && v >= 0 && v <= mm.MAX_FACTS),
      activation: (v) => mm.ACTIVATIONS.includes(v),
      query: (v) => Array.isArray(v) && v.length === 2 && v.every((c) => finite(c) && Math.abs(c) <= mm.QUERY_LIMIT),
      token: label,
      'sync-hash': (v) => /^[A-Za-z0-9_-]{1,32}$/.test(v),
    },
    plot: {
      x: (v) => finite(v) && Math.abs(v) <= am.RANGE_LIMIT,
      range: (v) =>
        Array.isArray(v) &&
        v.length === 2 &&
        v.every((c) => finite(c) && Math.abs(c) <= am.RANGE_LIMIT) &&
        v[1] - v[0] >= am.MIN_SPAN,
      curves: (v) =>
        Array.isArray(v) &&
        v.length <= am.CURVE_IDS.length &&
        new Set(v).size === v.length &&
        v.every((id) => am.CURVE_IDS.includes(id)),
    },
    calculator: {
      preset: (v) => /^[A-Za-z0-9_-]{1,32}$/.test(v),
      presets: (v) =>
        Array.isArray(v) &&
        v.length <= pm.MAX_PRESETS &&
        v.every((p) => /^[A-Za-z0-9_-]{1,32}$/.test(p.id) && config(p.config)),
      d: (v) => intIn(v, 1, pm.LIMITS.d),
      'd-ff': (v) => intIn(v, 1, pm.LIMITS.dff),
      rule: (v) => v === 'llama' || v === 'explicit',
      'multiple-of': (v) => intIn(v, 1, pm.LIMITS.multipleOf),
      multiplier: (v) => v === null || (finite(v) && v > 0 && v <= pm.LIMITS.multiplier),
      gated: (v) => typeof v === 'boolean',
      bias: (v) => typeof v === 'boolean',
      heads: (v) => intIn(v, 1, pm.LIMITS.heads),
      'kv-heads': (v) => intIn(v, 1, pm.LIMITS.heads),
      'head-dim': (v) => v === null || intIn(v, 1, pm.LIMITS.headDim),
      experts: (v) => v === null || intIn(v, 1, pm.LIMITS.experts),
      'active-experts': (v) => intIn(v, 1, pm.LIMITS.experts),
      'shared-experts': (v) => intIn(v, 0, pm.LIMITS.shared),
    },
  };
  const labLabel = (s) => typeof s === 'string' && s.length >= 1 && s.length <= 64 && !/[|\u0000-\u001f]/.test(s);
  const labFactsOk = (v) =>
    Array.isArray(v) &&
    v.length >= 1 &&
    v.length <= 4096 &&
    v.every((f) => labLabel(f.subject) && labLabel(f.relation) && labLabel(f.object));
  checks.lab = {
    facts: labFactsOk,
    seed: (v) => Number.isInteger(v) && v >= 1 && v <= 2 ** 31 - 1,
    'd-ff': (v) => [32, 64, 128, 256, 512, 1024].includes(v),
    fact: (v) => Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'string' && x && x.length <= 136),
    memory: (v) => Number.isInteger(v) && v >= 0 && v <= 1023,
  };
  const parsers = {
    memory: mm.parseAttribute,
    plot: am.parseAttribute,
    calculator: pm.parseAttribute,
    lab: lab.parseAttribute,
  };
  const out = [];
  for (const [element, byName] of Object.entries(checks)) {
    for (const [name, check] of Object.entries(byName)) {
      for (const [i, value] of strs.entries()) {
        out.push([`${element} ${name} #${i}`, name, () => parsers[element](name, value), check]);
      }
    }
  }
  strs.forEach((value, i) =>
    out.push([
      `memory hash state #${i}`,
      'sync-hash',
      () => mm.parseHashState(value),
      (v) => {
        const s = v.state;
        return (
          (s.query === undefined || checks.memory.query(s.query)) &&
          (s.k === undefined || checks.memory.k(s.k)) &&
          (s.threshold === undefined || checks.memory.threshold(s.threshold)) &&
          (s.activation === undefined || checks.memory.activation(s.activation))
        );
      },
    ]),
  );
  hostileObjects().forEach((value, i) => {
    out.push([`memory facts property #${i}`, 'facts', () => mm.parseFacts(value), facts]);
    out.push([
      `memory distractors property #${i}`,
      'distractors',
      () => mm.parseDistractors(value),
      checks.memory.distractors,
    ]);
    out.push([`calculator presets property #${i}`, 'presets', () => pm.parsePresets(value), checks.calculator.presets]);
    out.push([`lab facts property #${i}`, 'facts', () => labFacts.parseFacts(value), labFactsOk]);
    const cfg = Array.isArray(value) ? value[0] : value;
    out.push([`calculator config #${i}`, 'computeBlock', () => pm.validateConfig(cfg), config]);
  });
  for (const id of ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty']) {
    out.push([`calculator preset lookup ${id}`, 'preset', () => pm.findPreset(id), (v) => v === null]);
  }
  // <ffn-exercise>: each reader returns what the element uses and at most a short notice.
  const notice = (n) => n === null || String(n).length <= MESSAGE_CHARS;
  const exercise = {
    timeout: [readTimeout, (v) => Number.isInteger(v.ms) && v.ms >= 100 && v.ms <= 60000 && notice(v.notice)],
    'storage-key': [
      readStorageKey,
      (v) =>
        (v.key === null
          ? v.notice !== null
          : typeof v.key === 'string' && v.key.length <= 200 && !/[\u0000-\u001f]/.test(v.key)) && notice(v.notice),
    ],
    number: [readNumber, (v) => typeof v.text === 'string' && v.text.length <= 16 && notice(v.notice)],
    code: [codeProblem, (v) => v === null || (typeof v.key === 'string' && v.text.length <= MESSAGE_CHARS)],
  };
  for (const [name, [read, check]] of Object.entries(exercise)) {
    strs.forEach((value, i) => out.push([`exercise ${name} #${i}`, name, () => read(value), check]));
  }
  hostileObjects().forEach((value, i) => {
    out.push([`exercise code property #${i}`, 'code', () => codeProblem(value), exercise.code[1]]);
  });
  // The embed pages' URL query, for each page's list of parameters.
  const pages = [
    ['x', 'range', 'curves'],
    ['exercise', 'number', 'timeout', 'storage-key'],
    ['facts', 'distractors', 'threshold', 'k', 'activation', 'query', 'token', 'sync-hash'],
    ['facts', 'seed', 'd-ff', 'fact', 'memory'],
    [
      'presets',
      'preset',
      'd',
      'd-ff',
      'rule',
      'multiple-of',
      'multiplier',
      'gated',
      'bias',
      'heads',
      'kv-heads',
      'head-dim',
      'experts',
      'active-experts',
      'shared-experts',
    ],
  ];
  const embedOk = (allowed) => (v) =>
    v.attributes.length <= allowed.length &&
    v.attributes.every(([name, val]) => allowed.includes(name) && typeof val === 'string') &&
    (v.theme === null || v.theme === 'dark' || v.theme === 'light') &&
    (v.id === null || (v.id.length <= 64 && /^[\w.:-]+$/.test(v.id))) &&
    (v.lang === null || (v.lang.length <= 35 && /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(v.lang))) &&
    v.problems.length <= 3 && // theme, id and lang, each refused at most once
    v.problems.every((p) => String(p).length <= MESSAGE_CHARS);
  for (const [i, value] of [...strs, ...hostileObjects()].entries()) {
    for (const allowed of pages) {
      // (its values are the query's own text, at most 65,536 characters: each element's parser then bounds them)
      out.push([
        `embed query ${allowed[0]} #${i}`,
        'query',
        () => readEmbedParams(value, allowed),
        embedOk(allowed),
        2 * 65536,
      ]);
    }
  }
  // The memory widget's part of the URL hash: the value alone, and inside a hash.
  const hashOk = (v) =>
    v === null ||
    ((v.state.query === undefined || checks.memory.query(v.state.query)) &&
      (v.state.k === undefined || checks.memory.k(v.state.k)) &&
      (v.state.threshold === undefined || checks.memory.threshold(v.state.threshold)) &&
      (v.state.activation === undefined || checks.memory.activation(v.state.activation)) &&
      v.ignored.length <= 64);
  strs.forEach((value, i) => {
    out.push([`memory URL hash #${i}`, 'sync-hash', () => mm.readHashFrom(value, 'memory'), hashOk]);
    out.push([`memory URL hash part #${i}`, 'sync-hash', () => mm.readHashFrom(`#memory=${value}`, 'memory'), hashOk]);
  });
  hostileObjects().forEach((value, i) => {
    out.push([`memory URL hash object #${i}`, 'sync-hash', () => mm.readHashFrom(value, 'memory'), hashOk]);
  });
  // Ticks for every accepted range stay few.
  strs.forEach((value, i) =>
    out.push([`plot ticks #${i}`, 'range', () => am.niceTicks(...am.parseRange(value)), (t) => t.values.length <= 11]),
  );
  return out;
}

if (!isMainThread) {
  // Worker: run every case, report each as it ends.
  const list = await cases();
  parentPort.postMessage({ total: list.length });
  for (const [name, attr, call, check, maxChars = RESULT_CHARS] of list) {
    parentPort.postMessage({ start: name });
    const t0 = performance.now();
    let res;
    // the first attempt's outcome is the one checked; later attempts (only when it was slow) are timed only
    const retime = (first) =>
      timeCase(CALL_MS, first, () => {
        const t = performance.now();
        try {
          call();
        } catch {
          /* timed only */
        }
        return performance.now() - t;
      }).ms;
    try {
      const v = call();
      const ms = retime(performance.now() - t0);
      let json;
      try {
        json = JSON.stringify(v) ?? '';
      } catch {
        json = '';
      }
      let ok = false;
      try {
        ok = check(v) === true;
      } catch {
        ok = false;
      }
      res = { name, ms, ok, size: json.length, maxChars, detail: ok ? '' : json.slice(0, 200) };
    } catch (err) {
      const ms = retime(performance.now() - t0);
      const msg = String(err?.message ?? err);
      const clear =
        (err instanceof TypeError || err instanceof RangeError) &&
        msg.length <= MESSAGE_CHARS &&
        msg.toLowerCase().includes(attr.toLowerCase().replace(/^parse/, ''));
      const detail = clear ? '' : `${err?.constructor?.name}: ${msg.slice(0, 300)} (${msg.length} chars)`;
      res = { name, ms, ok: clear, size: 0, maxChars, detail };
    }
    parentPort.postMessage({ done: res });
  }
  parentPort.postMessage({ end: true });
} else {
  const { test } = await import('node:test');
  const assert = (await import('node:assert/strict')).default;
  const title =
    'every attribute parser of the five elements, the embed URL and the memory hash returns a bounded ' +
    'result quickly, or a clear error, for hostile values';
  test(title, async () => {
    const worker = new Worker(new URL(import.meta.url));
    const failures = [];
    let total = 0,
      done = 0,
      current = '(starting)';
    await new Promise((resolve, reject) => {
      let timer;
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          failures.push(`${current}: no answer within 10 s (a hang)`);
          worker.terminate().then(resolve);
        }, 10000);
      };
      arm();
      worker.on('message', (m) => {
        arm();
        if (m.total) total = m.total;
        if (m.start) current = m.start;
        if (m.done) {
          done++;
          const r = m.done;
          if (!r.ok) failures.push(`${r.name}: ${r.detail || 'result out of bounds'}`);
          else if (r.ms > CALL_MS) failures.push(`${r.name}: took ${r.ms.toFixed(0)} ms`);
          else if (r.size > r.maxChars) failures.push(`${r.name}: result of ${r.size} characters`);
        }
        if (m.end) {
          clearTimeout(timer);
          worker.terminate().then(resolve);
        }
      });
      worker.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
    assert.deepEqual(
      failures.filter((f) => f.endsWith('(a hang)')),
      [],
      'no parser hangs',
    );
    assert.deepEqual(failures.slice(0, 20), [], `${failures.length} of ${total} cases failed`);
    assert.ok(total > 3000 && done === total, `ran ${done} of ${total} cases`);
  });
}
