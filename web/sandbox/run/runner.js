// Runs learner source in a fresh worker with a hard timeout: in browsers a worker inside the sandbox frame (another
// process in Chromium, see frame-host.js), in Node worker_threads.
import { startFrameRun } from './frame-host.js';
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, RUN_RESULTS_OF_MAX } from './limits.js';
import { FRAME_DIED, NO_START, say } from './say.js';
import { checkLimits, isRecord, readWorkerMessage, cleanResult, cleanError, cleanLogs } from './protocol.js';

const IS_BROWSER = typeof window === 'object' && typeof Worker === 'function';
// Node built-ins are loaded through a variable specifier so browser bundlers leave them alone.
const nodeBuiltin = (specifier) => import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);

const NODE_WORKER = './worker.js';
const HERE = import.meta.url;
const STARTUP_MS = 15000; // loading the worker file is not learner time; this only guards a broken install

function makeNonce() {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function spawn(workerUrl, idle = false) {
  // Browsers: never a worker of the page itself. A worker that exhausts its heap takes its whole
  // renderer process down, so it runs in the sandbox frame's process, and only that one dies.
  if (IS_BROWSER) return early(await startFrameRun(workerUrl, { idle }));
  const { Worker: NodeWorker } = await nodeBuiltin('node:worker_threads');
  // not new URL('./worker.js', import.meta.url): bundlers would emit worker.js as an asset for this Node-only path
  const w = new NodeWorker(workerUrl || new URL(NODE_WORKER, HERE), {
    // A worker refuses an inherited --input-type (node --input-type=module -e "..."), and V8 flags once execArgv
    // is given: the worker of such a host gets none of its options (V8's are process-wide anyway).
    ...(process.execArgv.some((a) => a.startsWith('--input-type')) ? { execArgv: [] } : {}),
    resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
    stdout: true, // learner output never reaches the host's console
    stderr: true,
  });
  const handle = early({
    onMessage(fn) {
      w.on('message', fn);
      w.on('messageerror', () => fn({ type: 'messageerror' }));
    },
    onFailure(fn) {
      w.on('error', (e) => fn(e instanceof Error ? e : new Error(String(e))));
      w.on('exit', (code) => fn(new Error(`the exercise worker exited (code ${code})`)));
    },
    post: (m) => w.postMessage(m),
    terminate: () => {
      w.terminate().catch(() => {});
      return Promise.resolve(true);
    },
    usable: () => true,
    claim: () => w.ref(),
  });
  if (idle) w.unref(); // a spare never keeps the process alive (after the listeners, which ref its port)
  return handle;
}

/**
 * A worker handle that keeps what happens before its run listens: the worker's 'ready' and its first failure,
 * handed to the run's listeners in listen(). Nothing else a worker says before the run is of use (every run
 * message carries the run's nonce, which the worker learns only from the run).
 */
function early(handle) {
  let ready = null;
  let failure = null;
  let onMessage = null;
  let onFailure = null;
  handle.onMessage((m) => {
    if (onMessage) onMessage(m);
    else if (!ready && isRecord(m) && m.type === 'ready') ready = m;
  });
  handle.onFailure((e) => {
    if (onFailure) onFailure(e);
    else failure ??= e;
  });
  return {
    post: handle.post,
    terminate: handle.terminate,
    usable: () => failure === null && handle.usable(),
    claim: handle.claim,
    listen(messageFn, failureFn) {
      onMessage = messageFn;
      onFailure = failureFn;
      if (failure) failureFn(failure);
      else if (ready) messageFn(ready);
    },
  };
}

/*
 * The next run's worker, started before it is needed (prepareSandbox(), and by every run for the next one): a
 * fresh worker that has never run learner code. It is used by exactly one run: take() empties the slot before
 * it hands the worker over, that run terminates it when it ends, and worker.js reads one run message only.
 * One spare at a time, for the worker the latest run used (the package's own unless a workerUrl was given).
 */
let spare = null; // { key, worker: Promise<handle> }

function startSpare(workerUrl) {
  const key = workerUrl ? String(workerUrl) : '';
  if (spare && spare.key === key) return spare.worker;
  if (spare)
    spare.worker.then(
      (w) => w.terminate(),
      () => {},
    );
  const worker = spawn(workerUrl, true);
  worker.catch(() => {}); // a spare that cannot start is never used: the next run spawns its own and reports why
  spare = { key, worker };
  return worker;
}

// In a page the next run's worker starts once the page is idle (at most 100 ms after a run): starting it at once
// put its start-up beside this run's grading and drawing of the report, 2 ms of a warm Run of 18.
const afterDrawn = (fn) =>
  typeof requestIdleCallback === 'function' ? requestIdleCallback(fn, { timeout: 100 }) : setTimeout(fn, 0);

/** The spare for workerUrl if there is a usable one (the slot is emptied first), else a fresh worker. */
async function take(workerUrl) {
  const s = spare;
  if (s && s.key === (workerUrl ? String(workerUrl) : '')) {
    spare = null;
    const w = await s.worker.catch(() => null);
    if (w && w.usable()) {
      w.claim();
      return w;
    }
    if (w) w.terminate();
  }
  return spawn(workerUrl);
}

/**
 * Prepare the next run now: browsers load the sandbox's sources, open its frame and start the run's worker
 * there; Node starts the worker thread. Resolves once the worker is started (never rejects: a setup problem
 * is reported by the run).
 */
export function prepareSandbox() {
  return startSpare(null).then(
    () => {},
    () => {},
  );
}

/** End the prepared worker, if any (the next run starts its own). */
export function dropSpare() {
  if (spare)
    spare.worker.then(
      (w) => w.terminate(),
      () => {},
    );
  spare = null;
}

/**
 * Run `calls` against the learner's `source`. Rejects only on a bad `timeout` or `limits` (RangeError),
 * never on learner behaviour; resolves to { status: 'done' | 'timeout' | 'aborted' | 'crashed' | 'setup', compileError,
 * results (one per call, null if it never ran), logs, lastIndex, ms, crash, setup (why the site's setup keeps the
 * browser sandbox from starting) }.
 */
export async function runLearnerCode(options = {}) {
  const first = await runOnce(options);
  // A sandbox frame that died before this run's worker was even ready was killed by another run
  // (or a previous one): this run's code never ran, so it gets one fresh frame.
  const { retry, ...run } = first.retry ? await runOnce(options) : first;
  return run;
}

async function runOnce(options = {}) {
  const { calls, timeout = DEFAULT_TIMEOUT_MS, signal, workerUrl } = options;
  if (!(timeout > 0 && timeout <= MAX_TIMEOUT_MS)) {
    const want = `a positive number of milliseconds up to ${MAX_TIMEOUT_MS}`;
    throw new RangeError(`runLearnerCode: timeout must be ${want}; got ${timeout}`);
  }
  const limits = checkLimits(options.limits);
  const results = new Array(calls.length).fill(null);
  const base = { lastIndex: -1, ms: 0, logs: [], compileError: null, results };
  if (signal && signal.aborted) return { ...base, status: 'aborted' };
  let w;
  try {
    w = await take(workerUrl);
  } catch (e) {
    if (e && e.setup) {
      // setup: what is wrong, a message (report.site.*, frame-host.js), or the error's own text (report.raw)
      return { ...base, status: 'setup', setup: e.i18n ?? say('raw', { text: String(e.message) }) };
    }
    return { ...base, status: 'crashed', crash: String((e && e.message) || e), retry: !!(e && e.frameDied) };
  }
  // The next run's worker: in Node it starts now, beside this run (a grading loop overlaps them); in a page once
  // this run has ended and the page is idle, where starting it alongside made the run itself 25 % slower.
  if (!IS_BROWSER) startSpare(workerUrl);
  // the worker and the page each hold the run's results to maxRunNumbers numbers in all
  const runLimits = { ...limits, maxRunNumbers: RUN_RESULTS_OF_MAX * limits.maxNumbers };
  const run = { ...options, timeout, limits: runLimits, base, nonce: makeNonce() };
  return new Promise((resolve) => superviseRun(w, run, resolve));
}

/**
 * One run on worker `w` until it settles: started (STARTUP_MS for the worker to be ready), then `run.timeout` for
 * the calls; resolves with the run's result. `st` is the run's state, shared with readRunMessage.
 */
function superviseRun(w, run, resolve) {
  const { signal, workerUrl, base } = run;
  // stopping: the timeout fired, waiting for the sandbox to confirm the worker is gone
  // budget: the numbers the run's results may still hold (cleanResult takes each result's from it)
  const st = { settled: false, stopping: false, lastIndex: -1, timer: null, started: 0 };
  st.budget = { left: run.limits.maxRunNumbers };
  st.finish = (res) => {
    if (st.settled) return;
    st.settled = true;
    clearTimeout(st.timer);
    if (signal) signal.removeEventListener('abort', onAbort);
    w.terminate();
    if (IS_BROWSER) afterDrawn(() => startSpare(workerUrl));
    resolve({ ...base, lastIndex: st.lastIndex, ms: st.started ? Date.now() - st.started : 0, ...res });
  };
  const onAbort = () => {
    if (!st.stopping) st.finish({ status: 'aborted' });
  };
  if (signal) {
    if (signal.aborted) return st.finish({ status: 'aborted' });
    signal.addEventListener('abort', onAbort);
  }
  st.timer = setTimeout(() => st.finish({ status: 'crashed', crash: NO_START }), STARTUP_MS);
  const onFailure = (err) => {
    if (st.stopping) return; // terminate() reports a dead sandbox itself
    st.finish({ status: 'crashed', crash: err.message, retry: !!err.frameDied && !st.started });
  };
  w.listen((raw) => readRunMessage(w, run, st, raw), onFailure);
}

/** A message of the run's worker, checked (protocol.js) and acted on: start the calls, count, keep, finish. */
function readRunMessage(w, run, st, raw) {
  const { nonce, calls, limits, base } = run;
  const m = st.settled || st.stopping ? null : readWorkerMessage(raw, nonce, calls.length);
  if (!m) return;
  if (m.type === 'ready') {
    clearTimeout(st.timer);
    st.started = Date.now();
    st.timer = setTimeout(() => {
      // A sandbox that cannot confirm the stop is dead (browsers: its process ended, typically out
      // of memory, and terminate() has removed it): report that rather than a plain timeout.
      st.stopping = true;
      w.terminate().then((alive) =>
        st.finish(alive ? { status: 'timeout' } : { status: 'crashed', crash: FRAME_DIED }),
      );
    }, run.timeout);
    w.post({ type: 'run', nonce, source: run.source, exports: run.exports, calls, limits });
  } else if (m.type === 'progress') {
    st.lastIndex = m.index;
    if (run.onProgress) run.onProgress(m.index);
  } else if (m.type === 'result') {
    if (base.results[m.index] === null) base.results[m.index] = cleanResult(raw.result, limits, st.budget);
  } else {
    const compileError = raw.compileError ? cleanError(raw.compileError) : null;
    st.finish({ status: 'done', compileError, logs: cleanLogs(raw.logs) });
  }
}
