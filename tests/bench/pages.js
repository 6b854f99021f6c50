// The page section of npm run bench -- --browser (or node tests/bench/pages.js [--quick] [--root DIR] [--base DIR]
// [--long-tasks [--cpu] [--only NAME]]).
// The course page and the embed pages as web/serve.js serves them (bytes, request chain, wasm compile, time to
// ready), the first and later Runs against the floor in the same page, and gradeExercise in a Node loop against
// Node's floor.
import { execFileSync } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync, brotliCompressSync } from 'node:zlib';
import { RUN_ENDED, runWaiter, clickCentre } from '../helpers/browser.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');

const ELEMENTS = ['ffn-memory-widget', 'ffn-activation-plot', 'ffn-param-calculator', 'ffn-exercise'];
// Each page, and where to run an exercise in it.
export const PAGES = [
  { name: 'course', path: 'web/', exercise: '#ex-gelu' },
  // the same page opened at the activation plot: "in view" is then the plot, which must not wait for the rest
  { name: 'course at #plot', path: 'web/#plot' },
  { name: 'embed exercise', path: 'web/embed/exercise.html?exercise=gelu', exercise: 'ffn-exercise' },
  { name: 'embed memory', path: 'web/embed/memory-widget.html' },
  { name: 'embed plot', path: 'web/embed/activation-plot.html' },
  { name: 'embed calculator', path: 'web/embed/param-calculator.html' },
];
// The long-task section's pages: every page above, and a course author's long page of 36 exercises and 30 widgets
// loading the plain modules (web/components/index.js, web/sandbox/index.js).
export const LONG_TASK_PAGES = [
  ...PAGES.filter((p) => p.name !== 'course at #plot'),
  { name: 'many elements (66)', path: 'tests/bench/many-elements.html' },
];
// A slow connection for the "throttled" column: every request waits a round trip, bytes come at 10 Mbit/s.
const THROTTLE = { offline: false, latency: 40, downloadThroughput: 1.25e6, uploadThroughput: 0.5e6 };

// In every page before its scripts: ffn-ready times, Run/result times, long tasks, and wasm compiles.
const RECORDER = `(() => {
  const now = () => performance.now();
  window.__b = { ready: [], runs: [], long: [], compiles: [] };
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) window.__b.long.push({ at: e.startTime, ms: e.duration });
  }).observe({ entryTypes: ['longtask'] });
  document.addEventListener('ffn-ready', (e) => {
    const box = e.target.getBoundingClientRect();
    window.__b.ready.push({ at: now(), name: e.target.id || e.target.localName, inView: box.top < innerHeight });
  }, true);
  document.addEventListener('ffn-exercise-run', () => window.__b.runs.push({ start: now() }), true);
  document.addEventListener('ffn-exercise-result', (e) => {
    const r = window.__b.runs.at(-1);
    if (r) Object.assign(r, { end: now(), passed: e.detail.report.passed });
    // the bench hears of it through a binding (runsIn): a message out of the page, none into it
    if (typeof window.${RUN_ENDED} === 'function') window.${RUN_ENDED}();
  }, true);
  for (const name of ['compile', 'compileStreaming', 'instantiate', 'instantiateStreaming']) {
    const real = WebAssembly[name];
    WebAssembly[name] = function (...args) {
      // instantiate(module) only instantiates: it compiles nothing
      if (name === 'instantiate' && args[0] instanceof WebAssembly.Module) return real.apply(this, args);
      const c = { name, start: now() };
      window.__b.compiles.push(c);
      const p = real.apply(this, args);
      p.then(() => { c.end = now(); }, () => { c.end = now(); c.failed = true; });
      return p;
    };
  }
})();`;

// The floor's frame, in a page: a sandboxed frame already loaded, then floor() times one fresh bare worker and one
// message each way (tests/bench/floor-frame.html).
async function openFloor(page) {
  await page.evaluate(async () => {
    const f = document.createElement('iframe');
    f.sandbox = 'allow-scripts';
    f.src = '/tests/bench/floor-frame.html';
    f.hidden = true;
    document.body.append(f);
    await new Promise((ok) => {
      f.onload = ok;
    });
    const ch = new MessageChannel();
    f.contentWindow.postMessage('floor-init', '*', [ch.port2]);
    await new Promise((ok) => {
      ch.port1.onmessage = ok;
    });
    window.__floor = async () => {
      const c = new MessageChannel();
      const t0 = performance.now();
      ch.port1.postMessage(null, [c.port2]);
      c.port1.postMessage('ping');
      await new Promise((ok) => {
        c.port1.onmessage = ok;
      });
      return performance.now() - t0;
    };
  });
}

const med = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pad = (v, n) => String(v).padStart(n);
const fix = (v, d = 0) => (Number.isFinite(v) ? v.toFixed(d) : '-');

/** Request depth from CDP's initiators: the document is 0, what a request at depth d starts is d + 1. */
function chainDepths(reqs, docUrl) {
  const byUrl = new Map();
  for (const r of reqs) if (!byUrl.has(r.url)) byUrl.set(r.url, r);
  const depth = (r, seen = new Set()) => {
    if (r.url === docUrl || r.type === 'Document') return 0;
    if (seen.has(r)) return NaN;
    seen.add(r);
    const from =
      r.initiator.url || r.initiator.stack?.callFrames?.[0]?.url || r.initiator.stack?.parent?.callFrames?.[0]?.url;
    const parent = from && byUrl.get(from);
    return parent ? depth(parent, seen) + 1 : 1;
  };
  for (const r of reqs) r.depth = depth(r);
}

/** One load of a page: what it fetched until every element was ready, and how its wasm compiled. */
export async function loadPage(context, base, root, spec, { throttle = false } = {}) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  if (throttle) await cdp.send('Network.emulateNetworkConditions', THROTTLE);
  const reqs = new Map();
  cdp.on('Network.requestWillBeSent', (e) => {
    if (!/^https?:/.test(e.request.url)) return;
    reqs.set(e.requestId, { url: e.request.url, initiator: e.initiator, type: e.type, sent: e.timestamp });
  });
  cdp.on('Network.loadingFinished', (e) => {
    const r = reqs.get(e.requestId);
    if (r) Object.assign(r, { bytes: e.encodedDataLength, end: e.timestamp });
  });
  await page.addInitScript(RECORDER);
  const url = base + spec.path;
  await page.goto(url);
  const want = await page.evaluate(
    (names) => names.reduce((n, s) => n + document.querySelectorAll(s).length, 0),
    ELEMENTS,
  );
  await page.waitForFunction((n) => window.__b.ready.length >= n, want, { timeout: 60000 });
  const b = await page.evaluate(() => ({
    ...window.__b,
    resources: performance
      .getEntriesByType('resource')
      .map((e) => ({ url: e.name, type: e.initiatorType, end: e.responseEnd })),
  }));
  const readyAt = Math.max(...b.ready.map((r) => r.at));
  await page.waitForTimeout(200); // loadingFinished events of the last loads
  // everything that finished before the last element was ready (CDP's clock: seconds since its own origin)
  const list = [...reqs.values()];
  const docUrl = url.split('#')[0]; // requests carry no fragment
  chainDepths(list, docUrl);
  const docSent = list.find((r) => r.url === docUrl)?.sent ?? 0;
  // the document's request is sent right at the page's time origin (within a millisecond)
  const before = list.filter((r) => r.end !== undefined && (r.end - docSent) * 1000 <= readyAt + 5);
  const code = before.filter((r) => /\/web\/.*\.(js|wasm)(\?|$)/.test(new URL(r.url).pathname));
  const sized = (r, f) => {
    const file = join(root, decodeURIComponent(new URL(r.url).pathname));
    return existsSync(file) ? f(readFileSync(file)).length : 0;
  };
  const modules = b.resources.filter((e) => /\.js(\?|$)/.test(e.url) && e.end <= readyAt);
  const compile = b.compiles.filter((c) => !c.failed).sort((x, y) => x.start - y.start)[0];
  const inView = b.ready.filter((r) => r.inView).map((r) => r.at);
  const out = {
    page,
    cdp,
    readyAt,
    firstInView: inView.length ? Math.max(...inView) : NaN,
    requests: before.length,
    sent: before.reduce((s, r) => s + (r.bytes || 0), 0),
    gz: code.reduce((s, r) => s + sized(r, (x) => gzipSync(x)), 0),
    br: code.reduce((s, r) => s + sized(r, (x) => brotliCompressSync(x)), 0),
    depth: Math.max(...before.map((r) => r.depth)),
    deepest: before.sort((x, y) => y.depth - x.depth)[0]?.url.replace(base, '/'),
    lastModule: modules.length ? Math.max(...modules.map((e) => e.end)) : NaN,
    compileStart: compile ? compile.start : NaN,
    compileEnd: compile ? compile.end : NaN,
    compileHow: compile ? compile.name : '-',
    reqs,
  };
  return out;
}

// Before a page's scripts: its long tasks (PerformanceObserver 'longtask') and when each element fired ffn-ready.
const LONG_TASKS = `(() => {
  window.__lt = { long: [], ready: [], connect: new Map() };
  // each ffn- element's own work at connect: its connectedCallback and attributeChangedCallback calls, summed
  const define = customElements.define.bind(customElements);
  customElements.define = (name, cls, options) => {
    for (const hook of name.startsWith('ffn-') ? ['connectedCallback', 'attributeChangedCallback'] : []) {
      const real = cls.prototype[hook];
      if (typeof real !== 'function') continue;
      cls.prototype[hook] = function (...args) {
        const t = performance.now();
        try {
          return real.apply(this, args);
        } finally {
          window.__lt.connect.set(this, (window.__lt.connect.get(this) || 0) + performance.now() - t);
        }
      };
    }
    return define(name, cls, options);
  };
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) window.__lt.long.push({ at: e.startTime, ms: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  document.addEventListener('ffn-ready', () => window.__lt.ready.push(performance.now()), true);
})();`;

/**
 * One load of a page in a fresh tab with the HTTP cache disabled: its main-thread tasks of 50 ms or more from
 * navigation until 1 s after its last element fired ffn-ready. Resolves to { longest, over50, readyAt } (ms).
 */
export async function longTasksOf(context, base, spec, { cpu = false } = {}) {
  const page = await context.newPage();
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await page.addInitScript(LONG_TASKS);
    const events = [];
    if (cpu) {
      cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
      await cdp.send('Tracing.start', { categories: CPU_CATEGORIES, transferMode: 'ReportEvents' });
    }
    await page.goto(base + spec.path);
    const want = await page.evaluate((s) => document.querySelectorAll(s).length, ELEMENTS.join(','));
    await page.waitForFunction((n) => window.__lt.ready.length >= n, want, { timeout: 120000 });
    await page.waitForTimeout(1000);
    const { long, ready, connect } = await page.evaluate(() => ({
      ...window.__lt,
      connect: Math.max(0, ...window.__lt.connect.values()),
    }));
    const readyAt = Math.max(...ready);
    const tasks = long.filter((l) => l.at <= readyAt + 1000).map((l) => l.ms);
    const out = {
      longest: Math.max(0, ...tasks),
      over50: tasks.filter((ms) => ms >= 50).length,
      readyAt,
      elements: want,
      connect,
    };
    if (cpu) {
      const done = new Promise((ok) => cdp.once('Tracing.tracingComplete', ok));
      await cdp.send('Tracing.end');
      await done;
      Object.assign(out, cpuTasks(events, base));
    }
    return out;
  } finally {
    await page.close();
  }
}

/**
 * From a trace of one load: the thread CPU time (ms) of each top-level task of the page's main thread (the renderer
 * whose events name base), as { cpuLongest, cpuOver50 }: what the tasks cost on an idle core, less the tracer's cost.
 */
// A task's outermost trace event (the first is in the disabled-by-default category; the others are inside it).
const TASKS = new Set(['RunTask', 'ThreadControllerImpl::RunTask', 'BlinkScheduler_PerformMicrotaskCheckpoint']);
const CPU_CATEGORIES = 'toplevel,devtools.timeline,disabled-by-default-devtools.timeline';
function cpuTasks(events, base) {
  const named = new Map(); // pid -> count of events that name the page's origin
  for (const e of events)
    if (JSON.stringify(e.args?.data?.url ?? '').includes(base)) named.set(e.pid, (named.get(e.pid) ?? 0) + 1);
  const pid = [...named].sort((a, b) => b[1] - a[1])[0]?.[0];
  const main = events.find((e) => e.pid === pid && e.ph === 'M' && e.args?.name === 'CrRendererMain')?.tid;
  const tasks = events
    .filter((e) => e.pid === pid && e.tid === main && e.ph === 'X' && TASKS.has(e.name))
    .sort((a, b) => a.ts - b.ts);
  const top = [];
  for (const t of tasks) if (!top.length || t.ts >= top.at(-1).ts + top.at(-1).dur) top.push(t);
  const ms = top.map((t) => (t.tdur ?? t.dur) / 1000);
  return { cpuLongest: Math.max(0, ...ms), cpuOver50: ms.filter((v) => v >= 50).length };
}

/** A gauge of this machine's speed now: ms of a fixed loop of float work (median of 5), printed beside the tasks. */
export function speedGauge() {
  const one = () => {
    const t = performance.now();
    let x = 0;
    for (let i = 0; i < 2e6; i++) x += Math.sqrt(i) * 1e-9;
    return [performance.now() - t, x];
  };
  return med(Array.from({ length: 5 }, () => one()[0]));
}

/** The long-task section: loads rounds of every LONG_TASK_PAGES page (interleaved), printed through log. */
export async function runLongTasks({ context, base, loads, log, cpu = false, only = null }) {
  const { loadavg, cpus } = await import('node:os');
  const pages = only ? LONG_TASK_PAGES.filter((p) => p.name.includes(only)) : LONG_TASK_PAGES;
  const rows = new Map(pages.map((p) => [p.name, []]));
  const gauges = [speedGauge()];
  for (let i = 0; i < loads; i++) {
    for (const spec of i % 2 ? [...pages].reverse() : pages) {
      rows.get(spec.name).push(await longTasksOf(context, base, spec, { cpu }));
    }
    gauges.push(speedGauge());
  }
  const width = Math.max(...pages.map((p) => p.name.length)) + 2;
  log(`\n# Long tasks: main-thread tasks >= 50 ms (PerformanceObserver 'longtask') from navigation until 1 s after`);
  log(`# every element fired ffn-ready, ${loads} loads per page, each in a fresh tab with the HTTP cache disabled;`);
  log('# longest: median (max) over the loads; >= 50 ms: tasks per load, median (max). Goal: no task over 50 ms.');
  log("# connect: an element's own connectedCallback + attributeChangedCallback time, the page's most, median (max).");
  log(
    `# host: ${cpus()[0]?.model ?? '?'} x ${cpus().length}, load average ${loadavg()
      .map((v) => v.toFixed(1))
      .join(' ')} at the end; speed gauge ${fix(med(gauges), 1)} ms (${gauges.map((g) => fix(g)).join(' ')})`,
  );
  if (cpu) log(`# cpu: the same tasks by thread CPU time, from a Chromium trace of each load (${CPU_CATEGORIES})`);
  const head = `elements   ready ms     longest ms    >= 50 ms  connect ms${cpu ? '  cpu longest  cpu >= 50' : ''}`;
  log(`${'page'.padEnd(width)}${head}`);
  // median (max) over the loads of one figure
  const mm = (r, key, digits = 0) =>
    `${fix(med(r.map((x) => x[key])), digits)} (${fix(Math.max(...r.map((x) => x[key])), digits)})`;
  for (const spec of pages) {
    const r = rows.get(spec.name);
    log(
      `${spec.name.padEnd(width)}${pad(r[0].elements, 8)}${pad(fix(med(r.map((x) => x.readyAt))), 11)}` +
        `${pad(mm(r, 'longest'), 15)}${pad(mm(r, 'over50'), 12)}${pad(mm(r, 'connect', 1), 12)}` +
        (cpu ? `${pad(mm(r, 'cpuLongest'), 13)}${pad(mm(r, 'cpuOver50'), 11)}` : ''),
    );
  }
}

// The drags: the reader presses on a widget and drags across it, one move per frame (the memory widget's query over
// its input plane in a loop; the plot's cursor from left to right and back).
const DRAGS = [
  { name: 'embed memory', path: 'web/embed/memory-widget.html', box: 'ffn-memory-widget svg.plane.in' },
  { name: 'embed plot', path: 'web/embed/activation-plot.html', box: 'ffn-activation-plot svg.plot' },
];

/** One drag on a fresh load of spec's page: the longest main-thread task from the press until 500 ms after release. */
async function dragTasksOf(context, base, spec) {
  const page = await context.newPage();
  try {
    await page.addInitScript(LONG_TASKS);
    await page.goto(base + spec.path);
    await page.waitForFunction(() => window.__lt.ready.length >= 1, null, { timeout: 120000 });
    await page.waitForTimeout(1500); // past the long-task window of the load
    const drawn = () => page.locator(spec.box).evaluate((svg) => svg.getRootNode().innerHTML);
    const before = await drawn();
    const box = await page.locator(spec.box).boundingBox();
    const at = (f, g) => [box.x + box.width * f, box.y + box.height * g];
    const t0 = await page.evaluate(() => performance.now());
    await page.mouse.move(...at(0.5, 0.5));
    await page.mouse.down();
    for (let i = 0; i <= 60; i++) {
      const a = (i / 60) * 2 * Math.PI;
      await page.mouse.move(...at(0.5 + 0.35 * Math.sin(a), 0.5 + 0.3 * Math.sin(2 * a)));
      await page.waitForTimeout(16);
    }
    await page.mouse.up();
    await page.waitForTimeout(500);
    if ((await drawn()) === before) throw new Error(`${spec.name}: the drag changed nothing on ${spec.box}`);
    const long = await page.evaluate(() => window.__lt.long);
    const tasks = long.filter((l) => l.at >= t0).map((l) => l.ms);
    return { longest: Math.max(0, ...tasks), over50: tasks.filter((ms) => ms >= 50).length };
  } finally {
    await page.close();
  }
}

/** The drag section: `loads` drags on each DRAGS page, printed through log. */
export async function runDrags({ context, base, loads, log }) {
  log(`\n# Drags: a press and 61 moves 16 ms apart across the widget, ${loads} loads per page (fresh tab); longest:`);
  log('# the longest main-thread task from the press to 500 ms after release, median (max); >= 50 ms: per drag.');
  log('page              longest ms    >= 50 ms');
  for (const spec of DRAGS) {
    const r = [];
    for (let i = 0; i < loads; i++) r.push(await dragTasksOf(context, base, spec));
    const l = r.map((x) => x.longest);
    const o = r.map((x) => x.over50);
    const longest = `${fix(med(l))} (${fix(Math.max(...l))})`;
    log(`${spec.name.padEnd(16)}${pad(longest, 12)}${pad(`${fix(med(o))} (${Math.max(...o)})`, 12)}`);
  }
}

/**
 * A server on root's pages and a browser for `body({ b, server })`, after a title line naming the checkout, the
 * browser and the time (`# ffn-lab pages, <what> (<rev>), headless Chrome/N, <time>Z`); both closed after.
 */
async function withBrowser({ root, what, quick = false, log }, body) {
  const { launchBrowser } = await import(pathToFileURL(join(repo, 'tests/helpers/browser.js')).href);
  const { startServer } = await import(pathToFileURL(join(root, 'web/serve.js')).href);
  const server = await startServer({ root, port: 0 });
  const b = await launchBrowser();
  try {
    const version = `Chrome/${await b.version()}`;
    const when = `${new Date().toISOString().slice(0, 16)}Z${quick ? ' (--quick)' : ''}`;
    log(`# ffn-lab pages, ${what} (${revOf(root)}), headless ${version}, ${when}`);
    return await body({ b, server });
  } finally {
    await b.close();
    await server.close();
  }
}

/** The long-task section alone (pages.js --long-tasks), on root's pages and server. */
function longTasksSection({ root, loads, log, cpu, only }) {
  return withBrowser({ root, what: 'long tasks', log }, ({ b, server }) =>
    runLongTasks({ context: b.context, base: server.url, loads, log, cpu, only }),
  );
}

/** Runs in a loaded page: the first Run (prepared: the exercise scrolled into view, the code typed, 1 s), then
 * pairs of (floor, later Run). Resolves to { floors, first, later: [{ run, floor }], longest }.
 * A Run is a trusted click (clickCentre) and its end comes out of the page through a binding (runWaiter): nothing of
 * the bench runs in the page while it is timed (why: tests/bench/README.md). */
async function runsIn(load, spec, solution, { pairs, atOnce }) {
  const { page } = load;
  await openFloor(page);
  const floors = [];
  for (let i = 0; i < 3; i++) floors.push(await page.evaluate(() => window.__floor()));
  const ex = page.locator(spec.exercise).first();
  const button = ex.locator('button.run');
  const waitRun = await runWaiter(page);
  const one = async (how) => {
    const n = await page.evaluate(() => window.__b.runs.length);
    const start =
      how === 'click'
        ? () => clickCentre(page, button)
        : () =>
            ex.evaluate((el) => {
              el.run();
            });
    await waitRun(start, spec.name);
    const { r, count } = await page.evaluate(() => ({ r: window.__b.runs.at(-1), count: window.__b.runs.length }));
    if (!(r && r.end) || count !== n + 1) throw new Error(`${spec.name}: the click did not start exactly one Run`);
    if (!r.passed) throw new Error(`${spec.name}: the solution did not pass`);
    return r.end - r.start;
  };
  const t0 = await page.evaluate(() => performance.now());
  let first;
  if (atOnce) {
    await ex.evaluate((el, code) => {
      el.code = code;
    }, solution);
    first = await one('call');
  } else {
    await ex.scrollIntoViewIfNeeded();
    await ex.locator('textarea.code').fill(solution);
    await button.scrollIntoViewIfNeeded();
    await page.waitForTimeout(1000);
    first = await one('click');
  }
  const longest = Math.max(
    0,
    ...(await page.evaluate(() => window.__b.long)).filter((l) => l.at >= t0).map((l) => l.ms),
  );
  const later = [];
  for (let i = 0; i < pairs; i++) {
    await page.waitForTimeout(200);
    const floor = await page.evaluate(() => window.__floor());
    await page.waitForTimeout(200);
    later.push({ floor, run: await one('click') });
  }
  return { floors, first, later, longest };
}

/** Node: gradeExercise over a list of sources in a loop against the floor (a fresh worker_thread, one message each
 * way), in interleaved blocks. */
async function nodeLoop(root, { rounds, per }) {
  const { Worker } = await import('node:worker_threads');
  const { gradeExercise, exercises } = await import(pathToFileURL(join(root, 'web/sandbox/index.js')).href);
  const { variantSources } = await import(pathToFileURL(join(repo, 'tests/helpers/sandbox-variants.js')).href);
  const sources = [
    ...exercises.map((e) => [e.id, e.solution]),
    ...Object.values(variantSources).map((v) => [v.exercise, v.source]),
  ];
  const floor = async () => {
    const w = new Worker(
      'const { parentPort } = require("node:worker_threads");' +
        'parentPort.once("message", (m) => parentPort.postMessage(m));',
      { eval: true },
    );
    w.postMessage(1);
    await new Promise((ok) => w.once('message', ok));
    w.terminate();
  };
  let k = 0;
  const grade = async () => {
    const [id, src] = sources[k++ % sources.length];
    await gradeExercise(id, src);
  };
  for (let i = 0; i < 3; i++) {
    await floor();
    await grade();
  }
  const f = [];
  const g = [];
  for (let r = 0; r < rounds; r++) {
    for (const [list, fn] of r % 2
      ? [
          [f, floor],
          [g, grade],
        ]
      : [
          [g, grade],
          [f, floor],
        ]) {
      const t = performance.now();
      for (let i = 0; i < per; i++) await fn();
      list.push((performance.now() - t) / per);
    }
  }
  return {
    grade: med(g),
    floor: med(f),
    ratio: med(g.map((x, i) => x / f[i])),
    solutions: rounds * per,
    kinds: sources.length,
  };
}

/** The short commit of a checkout, marked when its web/ has changes not committed. */
function revOf(root) {
  try {
    const git = (...a) => execFileSync('git', ['-C', root, ...a], { encoding: 'utf8' }).trim();
    const changed = git('status', '--porcelain', '--', 'web').length > 0;
    return `${git('rev-parse', '--short', 'HEAD')}${changed ? '+changes' : ''}`;
  } catch {
    return 'not a git checkout';
  }
}

/**
 * Print the pages section through log; `root` is the checkout whose pages and server are measured. With `base`
 * (another checkout, e.g. a worktree of main), its pages are loaded too, in the same rounds, each page from one
 * checkout then the other (the order turned around every other round): a before/after in one run.
 */
export async function runPagesBench({
  quick = false,
  log = console.log,
  root = repo,
  base = null,
  longTasksOnly = false,
  cpu = false,
  only = null,
} = {}) {
  if (longTasksOnly) return longTasksSection({ root, loads: quick ? 2 : 5, log, cpu, only });
  const { launchBrowser } = await import(pathToFileURL(join(repo, 'tests/helpers/browser.js')).href);
  const { exercises } = await import(pathToFileURL(join(root, 'web/sandbox/index.js')).href);
  const solution = exercises.find((e) => e.id === 'gelu').solution;
  const loads = quick ? 2 : 6;
  const pairs = quick ? 3 : 6;
  const targets = [];
  for (const [dir, label] of base
    ? [
        [root, ''],
        [base, ' (base)'],
      ]
    : [[root, '']]) {
    const { startServer } = await import(pathToFileURL(join(dir, 'web/serve.js')).href);
    targets.push({ root: dir, label, server: await startServer({ root: dir, port: 0 }) });
  }
  const b = await launchBrowser();
  const rows = new Map();
  for (const p of PAGES) {
    for (const t of targets) rows.set(p.name + t.label, { loads: [], slow: [], runs: [], atOnce: [] });
  }
  const width = Math.max(...[...rows.keys()].map((k) => k.length)) + 2;
  try {
    const version = `Chrome/${await b.version()}`;
    const when = `${new Date().toISOString().slice(0, 16)}Z${quick ? ' (--quick)' : ''}`;
    for (let i = 0; i < loads; i++) {
      // interleaved: every page once per round, the order turned around every other round
      for (const spec of i % 2 ? [...PAGES].reverse() : PAGES) {
        for (const { root: dir, label, server } of i % 2 ? [...targets].reverse() : targets) {
          const row = rows.get(spec.name + label);
          const l = await loadPage(b.context, server.url, dir, spec);
          if (spec.exercise) {
            const r = await runsIn(l, spec, solution, { pairs, atOnce: false });
            row.runs.push(r);
          }
          await l.page.close();
          row.loads.push(l);
          const s = await loadPage(b.context, server.url, dir, spec, { throttle: true });
          await s.page.close();
          row.slow.push(s);
          if (spec.exercise) {
            const a = await loadPage(b.context, server.url, dir, spec);
            row.atOnce.push(await runsIn(a, spec, solution, { pairs: 0, atOnce: true }));
            await a.page.close();
          }
        }
      }
    }
    const revs = targets.map((t) => `${revOf(t.root)}${t.label}`).join(' against ');
    log(
      `\n# ffn-lab pages (${revs}), headless ${version}, ${when}, served by web/serve.js; ${loads} loads per page,` +
        ' interleaved',
    );
    log('# ready: ms from navigation until every element fired ffn-ready (in view: those in the first screen);');
    const mbits = (THROTTLE.downloadThroughput * 8) / 1e6;
    log(`# throttled: the same with ${THROTTLE.latency} ms per request and ${mbits} Mbit/s;`);
    log('# sent: bytes transferred until ready; code gz/br: its ffn-lab JS and wasm compressed (gzip -6, brotli -11);');
    log('# chain: the longest chain of requests each started by the one before (the page is 0);');
    log('# wasm: when its compile started and ended, and when the last module before ready had loaded (ms)');
    log(
      `${'page'.padEnd(width)}ready  in view  throttled  requests  sent KiB  code gz KiB  br KiB  chain` +
        '  wasm start  end  last module  via',
    );
    for (const spec of PAGES) {
      for (const t of targets) {
        const { loads: ls, slow } = rows.get(spec.name + t.label);
        const m = (k, list = ls) => med(list.map((x) => x[k]));
        log(
          `${(spec.name + t.label).padEnd(width - 2)}${pad(fix(m('readyAt')), 7)}${pad(fix(m('firstInView')), 9)}` +
            `${pad(fix(m('readyAt', slow)), 11)}${pad(m('requests'), 10)}${pad(fix(m('sent') / 1024), 10)}` +
            `${pad(fix(m('gz') / 1024, 1), 13)}${pad(fix(m('br') / 1024, 1), 8)}` +
            `${pad(Math.max(...ls.map((x) => x.depth)), 7)}` +
            `${pad(fix(m('compileStart')), 12)}${pad(fix(m('compileEnd')), 5)}${pad(fix(m('lastModule')), 13)}` +
            `  ${ls[0].compileHow}`,
        );
      }
    }
    const deepest = [...rows].map(([name, r]) => `${name}: ${r.loads[0].deepest}`).join('; ');
    log(`# deepest request: ${deepest}`);
    log('\n# Run tests -> verdict (ffn-exercise-run to ffn-exercise-result) against the floor in the same page: a');
    log('# sandboxed frame already loaded, a fresh bare worker, one message each way (tests/bench/floor-frame.html).');
    log('# first: scrolled into view, code typed, Run 1 s later; at once: run() as soon as the page is ready;');
    log(
      `# later: ${pairs} more Runs per load, each paired with a floor; ratios are medians of per-load (per-pair)` +
        ' ratios;',
    );
    log('# longest task: the longest main-thread task from the scroll to the first verdict');
    log(
      `${'page'.padEnd(width - 2)}floor ms  first ms  first/floor  later ms  later/floor  at once ms  at once/floor` +
        '  longest task ms',
    );
    for (const spec of PAGES.filter((p) => p.exercise)) {
      for (const t of targets) {
        const { runs, atOnce } = rows.get(spec.name + t.label);
        const fl = runs.map((r) => med(r.floors.concat(r.later.map((x) => x.floor))));
        const later = runs.flatMap((r) => r.later);
        const aFl = atOnce.map((r) => med(r.floors));
        log(
          `${(spec.name + t.label).padEnd(width - 4)}${pad(fix(med(fl), 1), 10)}` +
            `${pad(fix(med(runs.map((r) => r.first)), 1), 10)}` +
            `${pad(fix(med(runs.map((r, i) => r.first / fl[i])), 2), 13)}` +
            `${pad(fix(med(later.map((x) => x.run)), 1), 10)}` +
            `${pad(fix(med(later.map((x) => x.run / x.floor)), 2), 13)}` +
            `${pad(fix(med(atOnce.map((r) => r.first)), 1), 12)}` +
            `${pad(fix(med(atOnce.map((r, i) => r.first / aFl[i])), 2), 15)}` +
            `${pad(fix(Math.max(...runs.map((r) => r.longest))), 17)}`,
        );
      }
    }
    await runLongTasks({ context: b.context, base: targets[0].server.url, loads: quick ? 2 : 5, log });
  } finally {
    await b.close();
    for (const t of targets) await t.server.close();
  }
  const n = await nodeLoop(root, { rounds: quick ? 4 : 10, per: 10 });
  log(`\n# Node ${process.versions.node}: gradeExercise in a loop over ${n.kinds} sources (the six solutions and the`);
  log('# wrong ones of tests/helpers/sandbox-variants.js), in blocks of 10 interleaved with blocks of 10 floors');
  log("# (a fresh worker_thread, one message each way); ratio: median of the blocks' ratios");
  log('solutions  per solution ms  floor ms  ratio');
  log(`${pad(n.solutions, 9)}${pad(fix(n.grade, 1), 17)}${pad(fix(n.floor, 1), 10)}${pad(fix(n.ratio, 2), 7)}`);
}

/**
 * The Runs of one page as the summary prints them: first and later Runs against the floor of their own load (the
 * median of that load's floors; a later Run against the floor timed just before it) and against the run's floor (the
 * median of every floor of the page in this run).
 */
export function runRatios(runs) {
  const own = runs.map((r) => med(r.floors.concat(r.later.map((x) => x.floor))));
  const runFloor = med(runs.flatMap((r) => r.floors.concat(r.later.map((x) => x.floor))));
  const later = runs.flatMap((r) => r.later);
  return {
    runFloor,
    first: med(runs.map((r) => r.first)),
    later: med(later.map((x) => x.run)),
    firstOwn: med(runs.map((r, i) => r.first / own[i])),
    firstRun: med(runs.map((r) => r.first)) / runFloor,
    laterOwn: med(later.map((x) => x.run / x.floor)),
    laterRun: med(later.map((x) => x.run)) / runFloor,
    longest: Math.max(...runs.map((r) => r.longest)),
  };
}

/**
 * npm run bench -- --pages: the long-task section (every page, the 36 + 30 elements page included, with thread CPU
 * times) and the Runs of the pages with an exercise against both floors, in a few minutes.
 */
export async function runPagesSummary({ quick = false, log = console.log, root = repo } = {}) {
  const { exercises } = await import(pathToFileURL(join(root, 'web/sandbox/index.js')).href);
  const solution = exercises.find((e) => e.id === 'gelu').solution;
  const rows = await withBrowser({ root, what: 'summary', quick, log }, async ({ b, server }) => {
    await runLongTasks({ context: b.context, base: server.url, loads: quick ? 2 : 3, log, cpu: true });
    await runDrags({ context: b.context, base: server.url, loads: quick ? 2 : 3, log });
    const out = [];
    for (const spec of PAGES.filter((p) => p.exercise)) {
      const runs = [];
      for (let i = 0; i < (quick ? 2 : 4); i++) {
        const l = await loadPage(b.context, server.url, root, spec);
        runs.push(await runsIn(l, spec, solution, { pairs: quick ? 3 : 5, atOnce: false }));
        await l.page.close();
      }
      out.push([spec.name, runRatios(runs)]);
    }
    return out;
  });
  logRunRatios(rows, quick ? 2 : 4, log);
}

/** The summary's Run table: each page's first and later Runs against both floors. */
function logRunRatios(rows, loads, log) {
  log('\n# Run tests -> verdict against the floor (a sandboxed frame already loaded, a fresh bare worker, one message');
  log(`# each way), ${loads} loads per page. first: scrolled into view, code typed, Run 1 s later (goal <= 2x);`);
  log('# later: the Runs after it (goal <= 1.5x). own: against the floor of its own load (a later Run: the floor');
  log("# timed just before it); run: against the median of every floor of the page in this run. The bench's ratio is");
  log("# own: a load's floor shares that load's state of the host (and a later Run's, the moment's), run's does not.");
  log('page             floor ms  first ms  own   run   later ms  own   run   longest task ms');
  for (const [name, r] of rows) {
    log(
      `${name.padEnd(15)}${pad(fix(r.runFloor, 1), 10)}${pad(fix(r.first, 1), 10)}${pad(fix(r.firstOwn, 2), 6)}` +
        `${pad(fix(r.firstRun, 2), 6)}${pad(fix(r.later, 1), 10)}${pad(fix(r.laterOwn, 2), 6)}` +
        `${pad(fix(r.laterRun, 2), 6)}${pad(fix(r.longest), 18)}`,
    );
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { saveRun } = await import('./results.js');
  const quick = process.argv.includes('--quick');
  const at = process.argv.indexOf('--root');
  const root = at > 0 ? resolve(process.argv[at + 1]) : repo;
  const bat = process.argv.indexOf('--base');
  const base = bat > 0 ? resolve(process.argv[bat + 1]) : null;
  const printed = [];
  const longTasksOnly = process.argv.includes('--long-tasks');
  const oat = process.argv.indexOf('--only'); // --long-tasks --only NAME: the pages whose name includes NAME
  await runPagesBench({
    quick,
    root,
    base,
    longTasksOnly,
    cpu: process.argv.includes('--cpu'),
    only: oat > 0 ? process.argv[oat + 1] : null,
    log: (s = '') => {
      console.log(s);
      printed.push(s);
    },
  });
  const name = `pages${longTasksOnly ? '-long-tasks' : ''}${quick ? '-quick' : ''}`;
  // a run of some pages only (--only) is a working figure, not a result: not saved
  if (root === repo && oat < 0) console.log(`\nbench: saved to ${saveRun(name, printed)}`);
}
