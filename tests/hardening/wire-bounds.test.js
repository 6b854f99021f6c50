// Issue 18: each text, log and index bound of the worker's messages holds at its value and refuses (or cuts) past it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runLearnerCode } from '../../web/sandbox/run/runner.js';
import { cleanWire, checkLimits } from '../../web/sandbox/run/protocol.js';

// The bounds as web/sandbox/run/README.md states them ("Worker messages"), written out here, not imported.
const ERROR_NAME = 100;
const MESSAGE = 2000;
const BAD_WHAT = 200;
const TYPE_NAME = 40;
const LOG_LINES = 200;
const LOG_LINE = 2000;
const LOG_CHARS = 20000;
const TIMEOUT_MAX = 2 ** 31 - 1;
const CEILINGS = { maxNumbers: 2_000_000, maxDepth: 64, maxKeys: 1024 };

/*
 * A stand-in for worker.js that sends what the test asks for: the "source" of the run is JSON
 * { results: [[index, result]], compileError, logs: { lines, text } }, turned into messages inside the worker,
 * so that they cross the real structured clone.
 */
const ECHO = `import { parentPort } from 'node:worker_threads';
parentPort.once('message', (msg) => {
  const spec = JSON.parse(msg.source);
  const nonce = msg.nonce;
  for (const [index, result] of spec.results) parentPort.postMessage({ type: 'result', nonce, index, result });
  const logs = Array.from({ length: spec.logs.lines }, () => ({ level: 'log', text: spec.logs.text }));
  parentPort.postMessage({ type: 'done', nonce, compileError: spec.compileError, logs });
});
parentPort.postMessage({ type: 'ready' });
`;
const workerUrl = new URL(`data:text/javascript,${encodeURIComponent(ECHO)}`);
const CALLS = [
  { fn: 'f', args: [] },
  { fn: 'f', args: [] },
];

/** One run of the stand-in: the page's view of what it sent. */
function run({ results = [], compileError = null, logs = { lines: 0, text: '' } }, options = {}) {
  const source = JSON.stringify({ results, compileError, logs });
  return runLearnerCode({ source, exports: ['f'], calls: CALLS, workerUrl, timeout: 5000, ...options });
}
// A text as the wire carries it: a message { key, params, text }; a text of no key is report.raw.
const wireText = (text) => ({ key: 'raw', params: { text }, text });
const thrown = (name, message) => ({ ok: false, error: { name, message: wireText(message), line: 1, column: 1 } });
const cut = (s, max) => `${s.slice(0, max)}…`;

test('worker messages: error names and messages at their bound are kept whole, one past it cut', async () => {
  const name = (n) => 'N'.repeat(n);
  const message = (n) => 'm'.repeat(n);
  const r = await run({
    results: [
      [0, thrown(name(ERROR_NAME), message(MESSAGE))],
      [1, thrown(name(ERROR_NAME + 1), message(MESSAGE + 1))],
    ],
    compileError: { name: name(ERROR_NAME + 1), message: wireText(message(MESSAGE + 1)), line: 3, column: 1 },
  });
  assert.equal(r.status, 'done');
  assert.equal(r.results[0].error.name, name(ERROR_NAME));
  // the page's message (report.raw) says the text as it came, cut at its bound
  assert.equal(String(r.results[0].error.message), message(MESSAGE));
  assert.equal(r.results[1].error.name, cut(name(ERROR_NAME + 1), ERROR_NAME));
  assert.equal(String(r.results[1].error.message), cut(message(MESSAGE + 1), MESSAGE));
  assert.equal(r.compileError.name, cut(name(ERROR_NAME + 1), ERROR_NAME));
  assert.equal(String(r.compileError.message), cut(message(MESSAGE + 1), MESSAGE));
  const compileError = { name: name(ERROR_NAME), message: wireText(message(MESSAGE)), line: 3, column: 1 };
  const whole = await run({ compileError });
  assert.deepEqual([whole.compileError.name, String(whole.compileError.message)], [name(ERROR_NAME), message(MESSAGE)]);
});

test('worker messages: logs at 200 lines, 2,000 characters a line and 20,000 in all; past each, cut', async () => {
  const lines = async (n, text) => (await run({ logs: { lines: n, text } })).logs;
  assert.equal((await lines(LOG_LINES, 'x')).length, LOG_LINES);
  assert.equal((await lines(LOG_LINES + 1, 'x')).length, LOG_LINES);
  assert.equal((await lines(2 ** 20, 'x')).length, LOG_LINES, 'a million lines sent: the first 200 read');
  const [atLine] = await lines(1, 'y'.repeat(LOG_LINE));
  assert.equal(atLine.text, 'y'.repeat(LOG_LINE));
  const [pastLine] = await lines(1, 'y'.repeat(LOG_LINE + 1));
  assert.equal(pastLine.text, cut('y'.repeat(LOG_LINE + 1), LOG_LINE));
  const full = LOG_CHARS / LOG_LINE; // lines of 2,000 characters that fill the 20,000
  assert.equal((await lines(full, 'z'.repeat(LOG_LINE))).length, full);
  const over = await lines(full + 1, 'z'.repeat(LOG_LINE));
  assert.equal(over.length, full);
  assert.ok(over.reduce((n, l) => n + l.text.length, 0) <= LOG_CHARS);
});

test(
  'worker messages: result indices within the calls are read, others ignored; ' + 'the first result of an index kept',
  async () => {
    const value = (v) => ({ ok: true, value: { k: 'number', v } });
    const r = await run({
      results: [
        [-1, value(9)],
        [CALLS.length, value(9)],
        [2 ** 53, value(9)],
        [0.5, value(9)],
        [0, value(1)],
        [CALLS.length - 1, value(2)],
        [0, value(3)],
      ],
    });
    assert.deepEqual(
      r.results.map((x) => x.value.v),
      [1, 2],
    );
  },
);

test('worker messages: "bad value" texts and type names at their bound kept, past it cut', () => {
  const what = (n) => String(cleanWire({ k: 'bad', what: wireText('w'.repeat(n)) }).what);
  assert.equal(what(BAD_WHAT), 'w'.repeat(BAD_WHAT));
  assert.equal(what(BAD_WHAT + 1), cut('w'.repeat(BAD_WHAT + 1), BAD_WHAT));
  const typed = (type) => ({ k: 'typed', type, data: new Float64Array(1) });
  assert.equal(cleanWire(typed('T'.repeat(TYPE_NAME))).type, 'T'.repeat(TYPE_NAME));
  assert.equal(cleanWire(typed('T'.repeat(TYPE_NAME + 1))).type, cut('T'.repeat(TYPE_NAME + 1), TYPE_NAME));
});

test(
  'run options: the timeout up to 2^31 - 1 ms and limits up to their ceilings are taken; ' + 'one past is a RangeError',
  async () => {
    const r = await run({ results: [[0, { ok: true, value: { k: 'number', v: 1 } }]] }, { timeout: TIMEOUT_MAX });
    assert.equal(r.status, 'done');
    assert.equal(r.results[0].value.v, 1);
    const timeoutError = (e) => e instanceof RangeError && /timeout/.test(e.message);
    await assert.rejects(run({}, { timeout: TIMEOUT_MAX + 1 }), timeoutError);
    assert.deepEqual(checkLimits(CEILINGS), CEILINGS);
    for (const [key, max] of Object.entries(CEILINGS)) {
      const namesKey = (e) => e instanceof RangeError && e.message.includes(key);
      assert.throws(() => checkLimits({ [key]: max + 1 }), namesKey);
      await assert.rejects(run({}, { limits: { [key]: max + 1 } }), namesKey);
    }
  },
);
