// The memory lab's section of npm run bench (-- --lab alone, or in -- --browser): <ffn-memory-lab> in headless
// Chromium, trained as a learner trains it (its Train button, the element's own driver), timed from the click to the
// first frame that shows >= 99 % of the facts stored; the longest main-thread task meanwhile (PerformanceObserver
// 'longtask'). Issue 25's goal: the default lab stores >= 99 % within 1.5 s; no main-thread task over 50 ms.
import { cpus, loadavg } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const PAGE = 'tests/fixtures/memory-lab.html'; // the element from its own modules, as a site loads it
const GOAL_MS = 1500;
const LONG_TASK_MS = 50;

// Before the page's scripts, for the 'frames' runs: no Worker, so the element trains in its main-thread slices
const NO_WORKER = 'Object.defineProperty(window, "Worker", { value: undefined, configurable: true });';
// ffn-ready seen: the lab drawn whole (its state is there from the first drawing's first step on)
const READY = 'addEventListener("ffn-ready", () => (window.labReady = true), true);';

/** In the page: press Train, watch ffn-change until training stops; the 99 % moment and the long tasks. */
async function trainInPage() {
  // From the stop on, a task each in turn (MessageChannel): the longest gap between two is the longest main-thread
  // task then, measured below the long-task API's 50 ms too
  let gap = 0;
  let pinging = false;
  const ch = new MessageChannel();
  let last = 0;
  ch.port1.onmessage = () => {
    const t = performance.now();
    gap = Math.max(gap, t - last);
    last = t;
    if (pinging) ch.port2.postMessage(0);
  };
  const ping = () => {
    pinging = true;
    last = performance.now();
    ch.port2.postMessage(0);
  };
  const el = document.querySelector('#lab');
  const long = [];
  const obs = new PerformanceObserver((l) => l.getEntries().forEach((e) => long.push(e)));
  obs.observe({ type: 'longtask' });
  const need = Math.ceil(0.99 * el.state.nFacts);
  const upAtClick = el.state.driver !== null; // the driver (worker) already started at idle before the click
  let at99 = null;
  let stopMs = null; // the ffn-change that says training stopped (the element then reads the new weights)
  const t0 = performance.now();
  const seen = (e) => {
    const ms = performance.now() - t0;
    if (!at99 && e.detail.stored >= need) at99 = { ms, step: e.detail.step, stored: e.detail.stored };
    if (stopMs === null && !e.detail.training && e.detail.step > 0) {
      stopMs = ms;
      ping();
    }
  };
  el.addEventListener('ffn-change', seen);
  el.shadowRoot.querySelector('button.train').click();
  // training runs: this waits for its end and for the new weights read and drawn (5 minutes at most)
  await Promise.race([el.train(), new Promise((ok) => setTimeout(ok, 300000))]);
  stopMs ??= performance.now() - t0;
  const settleMs = performance.now() - t0 - stopMs;
  await new Promise((ok) => setTimeout(ok, 200)); // long-task entries arrive after their task
  pinging = false;
  obs.disconnect();
  el.removeEventListener('ffn-change', seen);
  const s = el.state;
  // a task that started before training stopped is a training task; after it, the reading of the new weights
  const duringTasks = long.filter((e) => e.startTime - t0 < stopMs);
  const during = duringTasks.map((e) => e.duration);
  const top = duringTasks.reduce((a, e) => (a && a.duration >= e.duration ? a : e), null);
  const longAt = top ? top.startTime - t0 : NaN; // when the longest training task started, ms from the click
  const after = long.filter((e) => e.startTime - t0 >= stopMs).map((e) => e.duration);
  const afterStop = { during, after, gap, settleMs, upAtClick, longAt };
  return { at99, stopMs, stopStep: s.step, stored: s.stored, n: s.nFacts, driver: s.driver, ...afterStop };
}

/**
 * In the trained page: rank-one twice (the first builds C), fine-tuning, Undo, each timed from the call to its
 * outcome; the longest main-thread task meanwhile and 100 ms on (MessageChannel pings, below 50 ms too).
 */
async function editInPage() {
  const el = document.querySelector('#lab');
  const ch = new MessageChannel();
  const out = [];
  const long = [];
  const obs = new PerformanceObserver((l) => l.getEntries().forEach((e) => long.push(e)));
  obs.observe({ type: 'longtask' });
  for (const op of ['rankOne', 'rankOne', 'fineTune', 'undo']) {
    let gap = 0;
    let last = performance.now();
    let on = true;
    ch.port1.onmessage = () => {
      const t = performance.now();
      gap = Math.max(gap, t - last);
      last = t;
      if (on) ch.port2.postMessage(0);
    };
    ch.port2.postMessage(0);
    const t0 = performance.now();
    // from a task of its own (a timer), as a click is: the long-task API does not see work in this evaluate's task
    const r = await new Promise((ok) => setTimeout(() => ok(op === 'undo' ? el.undo() : el.edit(op))));
    const ms = performance.now() - t0;
    await new Promise((ok) => setTimeout(ok, 100));
    on = false;
    const kept = r?.kept === undefined ? '' : `${r.kept}/${r.of}`;
    const task = Math.max(0, ...long.filter((e) => e.startTime >= t0).map((e) => e.duration));
    long.length = 0;
    out.push({ op, ms, gap, kept, task });
  }
  obs.disconnect();
  return out;
}

/** One fresh page (its own wasm compile, and worker start for 'worker'), trained once, then edited. */
async function round(b, url, driver) {
  const page = await b.newPage();
  try {
    page.on('pageerror', (e) => console.error(`lab bench page (${driver}): ${e.message}`));
    page.on('crash', () => console.error(`lab bench page (${driver}): crashed`));
    if (driver === 'frames') await page.addInitScript(NO_WORKER);
    await page.addInitScript(READY);
    await page.goto(url);
    await page.waitForFunction(() => window.labReady && document.querySelector('#lab')?.state, null, {
      timeout: 60000,
    });
    // a learner looks at the drawn lab a moment before pressing Train: up to 3 s for its driver (started at idle)
    await page
      .waitForFunction(() => document.querySelector('#lab').state.driver, null, { timeout: 3000 })
      .catch(() => {});
    const x = await page.evaluate(trainInPage);
    return { ...x, edits: await page.evaluate(editInPage) };
  } finally {
    await page.close();
  }
}

const fmt = (v, w) => String(v).padStart(w);

/** Runs the section; returns the results file's configuration name (chromiumNNN-lab[-quick]). */
export async function runLabBench({ quick = false, log = console.log, root = repo } = {}) {
  const { launchBrowser } = await import(pathToFileURL(join(repo, 'tests/helpers/browser.js')).href);
  const { startServer } = await import(pathToFileURL(join(repo, 'web/serve.js')).href);
  const server = await startServer({ root, port: 0, host: '127.0.0.1' });
  const b = await launchBrowser();
  let version = '';
  try {
    version = await b.version();
    const load = loadavg().map((x) => x.toFixed(1));
    log(
      `# Memory lab in headless Chromium ${version}, ${cpus()[0]?.model?.trim()} x ${cpus().length}, load ` +
        `${load.join(' ')}, ${new Date().toISOString().slice(0, 16)}Z${quick ? ' (--quick)' : ''}`,
    );
    log(`# ${PAGE}, default lab (1,001 facts, d 128, d_ff 512, seed 1): Train pressed on a fresh page; time to the`);
    log('# first ffn-change with >= 99 % stored (what the page shows); training then goes on to every fact stored.');
    log(`# Goal (issue 25): <= ${GOAL_MS} ms to 99 % in Chromium; no main-thread task over ${LONG_TASK_MS} ms.`);
    log("# frames: no Worker in the page, the element's slices of ~12 ms, a task each; worker: the page's default.");
    log('# longest task: the longest main-thread task from the click until training stops (tasks: those >= 50 ms).');
    log('# after stop: the longest long task from the stop until the element has read and drawn the new weights,');
    log('# and 200 ms on; gap: the longest main-thread task then, below 50 ms too (MessageChannel pings); settle:');
    log('# the ms from the stop until the drawing is done. edits: then rank-one twice (the first builds C),');
    log('# fine-tuning and Undo, each from the call to its outcome (kept: specificity) [the longest long task');
    log('# meanwhile and 100 ms on / the longest gap between MessageChannel pings then, which counts the OS');
    log("# descheduling the page's thread too]; editing: the least, over the rounds, of the longest long task.");
    log(
      '# The click comes after ffn-ready and at most 3 s for the driver to start (at idle), as a learner looks first;',
    );
    log('# at: the ms from the click to the longest task; up: the driver had started before the click.');
    const head = 'driver  round  steps@99%  ms to 99%  steps  ms to stop  stored   longest task ms  tasks  after stop';
    log(`${head}  gap  settle     at  up`);
    const url = new URL(PAGE, server.url).href;
    const rounds = quick ? 1 : 3;
    const best = {};
    for (let r = 0; r < rounds; r++) {
      for (const driver of ['frames', 'worker']) {
        const x = await round(b, url, driver);
        const longest = Math.max(0, ...x.during);
        const after = Math.max(0, ...x.after);
        const ms99 = x.at99 ? Math.round(x.at99.ms) : NaN;
        const cells = [
          [r + 1, 5],
          [x.at99?.step ?? '-', 9],
          [ms99, 9],
          [x.stopStep, 5],
          [Math.round(x.stopMs), 10],
          [`${x.stored}/${x.n}`, 9],
          [Math.round(longest), 15],
          [x.during.length, 5],
          [Math.round(after), 10],
          [Math.round(x.gap), 3],
          [Math.round(x.settleMs), 6],
          [Math.round(x.longAt), 5],
          [x.upAtClick ? 'y' : 'n', 2],
        ];
        log(`${x.driver.padEnd(7)} ${cells.map(([v, w]) => fmt(v, w)).join('  ')}`);
        const ed = x.edits.map(
          (e) =>
            `${e.op} ${Math.round(e.ms)} ms${e.kept && ` (${e.kept})`} [${Math.round(e.task)}/${Math.round(e.gap)}]`,
        );
        log(`        edits: ${ed.join(', ')}`);
        const k = x.driver;
        best[k] ??= { ms: Infinity, longest: Infinity, after: Infinity, edit: Infinity };
        best[k].edit = Math.min(best[k].edit, Math.max(...x.edits.map((e) => e.task)));
        best[k].ms = Math.min(best[k].ms, ms99);
        best[k].longest = Math.min(best[k].longest, longest);
        best[k].after = Math.min(best[k].after, after);
      }
    }
    for (const [k, v] of Object.entries(best)) {
      const ok = v.ms <= GOAL_MS ? 'met' : 'NOT met';
      const lt = v.longest <= LONG_TASK_MS ? 'met' : 'NOT met';
      const at = v.after <= LONG_TASK_MS ? 'met' : 'NOT met';
      log(
        `# ${k}: fastest round ${Math.round(v.ms)} ms to 99 % (goal ${ok}); least longest task ` +
          `${Math.round(v.longest)} ms (goal ${lt}); after stop ${Math.round(v.after)} ms (goal ${at}); ` +
          `editing ${Math.round(v.edit)} ms (goal ${v.edit <= LONG_TASK_MS ? 'met' : 'NOT met'})`,
      );
    }
  } finally {
    await b.close();
    await server.close();
  }
  return `chromium${version.split('.')[0]}-lab${quick ? '-quick' : ''}`;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { saveRun } = await import('./results.js');
  const printed = [];
  const log = (s = '') => {
    console.log(s);
    printed.push(s);
  };
  // --root=DIR: serve the page from another copy of the repository (a before/after pair in one run)
  const root = process.argv.find((a) => a.startsWith('--root='))?.slice(7) ?? repo;
  const name = await runLabBench({ quick: process.argv.includes('--quick'), log, root });
  console.log(`\nbench: saved to ${saveRun(name, printed)}`);
}
