// A run's results together: at most 5 times limits.maxNumbers numbers, held by the worker and again by the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runLearnerCode } from '../../web/sandbox/run/runner.js';

// The bound as web/sandbox/run/README.md states it ("Worker messages"), written out here, not imported.
const RUN_TIMES = 5;
const MAX = 10; // limits.maxNumbers of these runs: the run's results may hold 50 numbers in all
const limits = { maxNumbers: MAX };

// Numbers each call returns: 40 in the first four, one past the result's own 10 (refused as before, and it takes
// nothing from the run's 50), 6 more, one past the run's 50, four to reach 50 exactly, and one past the run's 50.
const SIZES = [10, 10, 10, 10, 11, 6, 5, 4, 1];
const calls = SIZES.map((n) => ({ fn: 'f', args: [n] }));
const expected = ['ok', 'ok', 'ok', 'ok', 'result', 'ok', 'run', 'ok', 'run'];

/** What became of each call's result: 'ok', 'run' (the run's bound refused it) or 'result' (its own). */
function outcomes(run) {
  return run.results.map((r) => {
    if (r.ok) return 'ok';
    const m = r.error.message;
    assert.equal(r.refused, true, JSON.stringify(r.error));
    if (/run's results/.test(String(m))) return 'run';
    assert.match(String(m), new RegExp(`(array of ${MAX + 1} items, more than ${MAX}|more than ${MAX} numbers)$`));
    return 'result';
  });
}

test("the worker refuses a result that would take the run's results past 5 times maxNumbers", async () => {
  assert.equal(RUN_TIMES * MAX, 50);
  for (const make of ['new Float64Array(n).fill(1)', 'Array.from({ length: n }, () => 1)']) {
    const source = `function f(n) { return ${make}; }`;
    const run = await runLearnerCode({ source, exports: ['f'], calls, limits, timeout: 5000 });
    assert.equal(run.status, 'done');
    assert.deepEqual(outcomes(run), expected, make);
    const refused = run.results[6].error.message;
    assert.equal(refused.key, 'report.worker.runNumbers');
    assert.equal(String(refused), "the run's results hold more than 50 numbers in all");
  }
});

// A stand-in for worker.js that ignores the run's bound: it answers call i with SIZES[i] numbers (a typed array).
const STAND_IN = `import { parentPort } from 'node:worker_threads';
parentPort.once('message', ({ nonce, calls }) => {
  calls.forEach((c, index) => {
    const value = { k: 'typed', type: 'Float64Array', data: new Float64Array(c.args[0]).fill(1) };
    parentPort.postMessage({ type: 'result', nonce, index, result: { ok: true, value } });
  });
  parentPort.postMessage({ type: 'done', nonce, compileError: null, logs: [] });
});
parentPort.postMessage({ type: 'ready' });
`;

test("the page refuses what a worker sends past the run's bound, whatever the worker counted", async () => {
  const workerUrl = new URL(`data:text/javascript,${encodeURIComponent(STAND_IN)}`);
  const run = await runLearnerCode({ source: '', exports: ['f'], calls, limits, workerUrl, timeout: 5000 });
  assert.equal(run.status, 'done');
  assert.deepEqual(outcomes(run), expected);
  const why = run.results[6].error.message;
  assert.equal(why.key, 'report.refused.unread');
  assert.equal(
    String(why),
    "the result could not be read: with it the run's results would hold more than 50 numbers in all",
  );
  // the numbers of what was kept: 50 in all
  const kept = run.results.filter((r) => r.ok).reduce((s, r) => s + r.value.data.length, 0);
  assert.equal(kept, RUN_TIMES * MAX);
});
