// The next run's worker is started before it is needed (web/sandbox/run/runner.js): each worker serves exactly one run,
// nothing a run leaves in its worker reaches another run, and a prepared worker never keeps Node running.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertPassed } from '../helpers/report.js';
import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gradeExercise, exercises } from 'ffn-lab/sandbox';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const WITNESS = new URL('../fixtures/witness-worker.js', import.meta.url);
const GELU = exercises.find((e) => e.id === 'gelu').solution;
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

/** One run on the witness worker: which thread answered, when it had started, how many runs it was sent. */
async function witnessRun() {
  const askedAt = Date.now();
  const r = await gradeExercise('gelu', '', { workerUrl: WITNESS });
  assert.equal(r.status, 'done', r.summary?.text);
  return { ...JSON.parse(r.logs[0].text), askedAt };
}

test(
  'runs one after another: each is served by a worker started before it was ' + 'asked for, one run per worker',
  async () => {
    const seen = [];
    for (let i = 0; i < 12; i++) {
      seen.push(await witnessRun());
      await sleep(300); // a learner's pause: the next run's worker has started by now
    }
    assert.equal(new Set(seen.map((s) => s.threadId)).size, seen.length, 'a worker served two runs');
    for (const s of seen) {
      assert.equal(s.runs, 1, `worker ${s.threadId} was sent ${s.runs} runs`);
      assert.equal(s.marked, false, `worker ${s.threadId} had run before`);
    }
    // the first run starts its own worker; every later one finds the worker the run before it started
    const early = seen.slice(1).filter((s) => s.startedAt < s.askedAt).length;
    assert.equal(
      early,
      seen.length - 1,
      `only ${early} of ${seen.length - 1} later runs found a worker already started`,
    );
  },
);

test('runs at the same time each get a worker of their own', async () => {
  await witnessRun();
  const seen = await Promise.all(Array.from({ length: 8 }, witnessRun));
  assert.equal(new Set(seen.map((s) => s.threadId)).size, 8);
  assert.ok(seen.every((s) => s.runs === 1 && !s.marked));
});

test(
  'learner code never finds what an earlier run left in its worker (globals, ' + 'prototypes), in a row or at once',
  async () => {
    // each run marks its worker's global object and Array.prototype, and says whether it found a mark
    const source = `const found = [globalThis.__mark, Array.prototype.__mark].filter((m) => m !== undefined).length;
globalThis.__mark = 1;
Array.prototype.__mark = 1;
console.log(found ? 'found a mark' : 'fresh');
${GELU}`;
    const reports = [];
    for (let i = 0; i < 8; i++) reports.push(await gradeExercise('gelu', source));
    reports.push(...(await Promise.all(Array.from({ length: 6 }, () => gradeExercise('gelu', source)))));
    for (const r of reports) {
      assertPassed(r);
      assert.deepEqual(
        r.logs.map((l) => l.text),
        ['fresh'],
      );
    }
  },
);

test('a script that grades once exits by itself: the prepared worker does not keep Node running', async () => {
  const script =
    "import { gradeExercise, exercises } from 'ffn-lab/sandbox';\n" +
    "const r = await gradeExercise('gelu', exercises[0].solution);\n" +
    "console.log(r.passed ? 'passed' : r.summary?.text);";
  const out = await new Promise((ok, fail) => {
    const args = ['--input-type=module', '-e', script];
    execFile(process.execPath, args, { cwd: ROOT, timeout: 30000 }, (err, stdout, stderr) => {
      if (err) fail(new Error(`${err.killed ? 'still running after 30 s' : err.message}\n${stderr}`));
      else ok(stdout.trim());
    });
  });
  assert.equal(out, 'passed');
});
