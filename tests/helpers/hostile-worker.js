// Test helper: a stand-in for web/sandbox/run/worker.js answering every call with a hostile message (page tests).
import assert from 'node:assert/strict';

/*
 * The real worker builds its messages with captured built-ins, so learner code can no longer make it
 * send these; the page must still survive them (a bug in the worker, a modified copy of it). Each
 * payload is made inside the stand-in worker and goes through the real structured clone, so the page
 * receives exactly what such a message would deliver (a sparse array keeps its declared length). Sparse
 * arrays are made by writing a far index: setting length to 2^24 would have V8 clear 2^24 slots first.
 *
 * PAYLOADS: [name, source of a function returning the wire value, what the page must say (RegExp) or
 * null when the value is well-formed and only fails the comparison]. Call i gets payload i % length.
 * Present sizes (texts of 1M characters, a 1 MiB buffer) are far beyond every bound but modest: the
 * structured clone that delivers them costs the page time in proportion to them, before any check
 * (a buffer: about 12 ms of the page's main thread per MiB in Chromium 156 here, so 8 MiB was a task of 100 ms).
 * So does V8's deserializer for a sparse array of up to 2^25 declared items, which it allocates densely
 * (about 100 ms at 2^24, 200 ms at 2^25, before any page code runs): the real worker can no longer be
 * made to send one, and these payloads stay outside that range (2^25 + 1 and above is allocated sparse).
 */
export const PAYLOADS = [
  ['sparse array of 2^32 - 1', '() => sparse(2 ** 32 - 1)', /more than 200000/],
  ['sparse array of 2^30', '() => sparse(2 ** 30)', /more than 200000/],
  ['sparse array of 2^25 + 1', '() => sparse(2 ** 25 + 1)', /more than 200000/],
  ['200,000 declared items, one present', '() => { const a = []; a[199999] = num(1); return arr(a); }', /malformed/],
  ['4 numbers on a 1 MiB buffer', '() => typed(new Float64Array(new ArrayBuffer(2 ** 20), 0, 4))', /1048576 bytes/],
  ['Float64Array at byte offset 8', '() => typed(new Float64Array(new ArrayBuffer(40), 8, 4))', /buffer of 40 bytes/],
  ['Float32Array as data', '() => typed(new Float32Array(4))', /malformed/],
  ['100 nested arrays', '() => { let w = num(1); for (let i = 0; i < 100; i++) w = arr([w]); return w; }', /deeper/],
  [
    'object of 10,000 keys',
    '() => { const e = {}; for (let i = 0; i < 10000; i++) e["k" + i] = num(i); return { k: "object", entries: e }; }',
    /10000 keys, more than 32/,
  ],
  [
    '1M-character "bad" text',
    '() => { const text = "x".repeat(1e6); return { k: "bad", what: { key: "raw", params: { text }, text } }; }',
    null,
  ],
  ['1M-character key', '() => ({ k: "object", entries: { ["z".repeat(1e6)]: num(1) } })', /key longer than 64/],
  ['a number that is a string', '() => ({ k: "number", v: "1".repeat(1e6) })', /malformed/],
  ['a Map as entries', '() => ({ k: "object", entries: new Map([["data", num(1)]]) })', /malformed/],
];

/** Worker source: `browser` adds the frame's handshake and the one import line frame.html requires. */
export function hostileWorkerSource({ browser }) {
  const prelude = browser
    ? `import * as toolkit from './toolkit.js';
const port = await new Promise((resolve) => {
  self.addEventListener('message', (ev) => { if (ev.ports && ev.ports.length === 1) resolve(ev.ports[0]); });
  self.postMessage({ type: 'waiting' });
});
const post = (m) => port.postMessage(m);
port.onmessage = (ev) => handle(ev.data);`
    : `import { parentPort } from 'node:worker_threads';
const post = (m) => parentPort.postMessage(m);
parentPort.once('message', (m) => handle(m));`;
  return `${prelude}
const num = (v) => ({ k: 'number', v });
const arr = (items) => ({ k: 'array', items });
const typed = (data) => ({ k: 'typed', type: 'Float32Array', data });
const sparse = (n) => { const a = [num(1)]; a[n - 1] = num(1); return arr(a); };
const PAYLOADS = [${PAYLOADS.map(([, src]) => src).join(',\n  ')}];
function handle(msg) {
  const nonce = msg.nonce;
  const n = msg.calls.length;
  post({ type: 'progress', nonce, index: 2 ** 53 });
  post({ type: 'progress', nonce, index: -1 });
  post({ type: 'result', nonce, index: 1e9, result: { ok: true, value: sparse(2 ** 32 - 1) } });
  for (let i = 0; i < n; i++) {
    post({ type: 'progress', nonce, index: i });
    post({ type: 'result', nonce, index: i, result: { ok: true, value: PAYLOADS[i % PAYLOADS.length]() } });
  }
  const logs = [{ level: 'evil', text: 1 }, null, 'x', { level: 'warn', text: 'y'.repeat(1e6) }];
  logs[2 ** 32 - 2] = null; // 2^32 - 1 log lines declared
  post({ type: 'done', nonce, compileError: null, logs });
}
post({ type: 'ready' });
`;
}

/** A URL a Node worker_threads Worker can start (a data: URL module). */
export function hostileWorkerUrl() {
  return new URL(`data:text/javascript,${encodeURIComponent(hostileWorkerSource({ browser: false }))}`);
}

/**
 * Check a grading report of the stand-in, as the page must give it: done, not passed, under 200,000 characters of
 * JSON, each test refused as its payload says (or failed, for a well-formed value), the 2^32 - 1 declared log lines
 * cut to 200. each(test, payload name), if given, checks more of each test.
 */
export function checkHostileReport(r, each = () => {}) {
  assert.equal(r.status, 'done', r.summary.text);
  assert.equal(r.passed, false);
  assert.ok(JSON.stringify(r).length < 200_000);
  r.tests.forEach((t, i) => {
    const [name, , re] = PAYLOADS[i % PAYLOADS.length];
    if (re) {
      assert.equal(t.status, 'refused', `${name}: ${t.status} ${t.message?.text}`);
      assert.match(t.message.text, re, name);
    } else assert.equal(t.status, 'fail', name);
    each(t, name);
  });
  assert.equal(r.logs.length, 200);
}
