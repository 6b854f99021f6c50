// Runs learner source in a fresh worker with a hard timeout: in browsers a worker inside the sandbox frame (another process in Chromium, see frame-host.js), in Node worker_threads.
import { startFrameRun, FRAME_DIED } from './frame-host.js';

const IS_BROWSER = typeof window === 'object' && typeof Worker === 'function';
// Node built-ins are loaded through a variable specifier so browser bundlers leave them alone.
const nodeBuiltin = (specifier) => import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);


export const DEFAULT_LIMITS = Object.freeze({ maxNumbers: 200000, maxDepth: 8, maxKeys: 32 });
export const DEFAULT_TIMEOUT_MS = 2000;
const STARTUP_MS = 15000; // loading the worker file is not learner time; this only guards a broken install

function makeNonce() {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function spawn(workerUrl) {
  // Browsers: never a worker of the page itself. A worker that exhausts its heap takes its whole
  // renderer process down, so it runs in the sandbox frame's process, and only that one dies.
  if (IS_BROWSER) return startFrameRun(workerUrl);
  const { Worker: NodeWorker } = await nodeBuiltin('node:worker_threads');
  const w = new NodeWorker(workerUrl || new URL('./worker.js', import.meta.url), {
    // A worker refuses an inherited --input-type (node --input-type=module -e "..."), and V8 flags once execArgv
    // is given: the worker of such a host gets none of its options (V8's are process-wide anyway).
    ...(process.execArgv.some((a) => a.startsWith('--input-type')) ? { execArgv: [] } : {}),
    resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
    stdout: true, // learner output never reaches the host's console
    stderr: true,
  });
  return {
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
  };
}

/*
 * Nothing the worker sends is trusted: learner code runs there and owns its globals and prototypes
 * (String.prototype.slice, JSON.stringify, Array.prototype.push, the typed-array constructors), so
 * the worker's own bounds can be subverted. Every message is re-checked here, against the wire
 * format and the limits, before the page reads it: malformed or oversized results are refused.
 */
const MAX_TEXT = 2000;
const MAX_LOG_CHARS = 20000;

function text(v, max = MAX_TEXT) {
  const s = typeof v === 'string' ? v : '';
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function cleanError(e) {
  const o = e && typeof e === 'object' ? e : {};
  const pos = (v) => (Number.isInteger(v) && v > 0 ? v : null);
  const out = { name: text(o.name, 100) || 'Error', message: text(o.message), line: pos(o.line), column: pos(o.column) };
  if (o.phase === 'top-level') out.phase = 'top-level';
  return out;
}

function cleanWire(w, limits) {
  let numbers = 0;
  let nodes = 0;
  const count = (n) => {
    numbers += n;
    if (numbers > limits.maxNumbers) throw new Error(`it holds more than ${limits.maxNumbers} numbers`);
  };
  const visit = (v, depth) => {
    if (depth > limits.maxDepth + 1) throw new Error(`it is nested deeper than ${limits.maxDepth} levels`);
    if (++nodes > 2 * limits.maxNumbers + 1000) throw new Error('it has too many parts');
    if (!v || typeof v !== 'object') throw new Error('it is malformed');
    switch (v.k) {
      case 'number':
        if (typeof v.v !== 'number') throw new Error('it is malformed');
        count(1);
        return { k: 'number', v: v.v };
      case 'bad':
        return { k: 'bad', what: text(v.what, 200) || 'an unreadable value' };
      case 'typed':
        if (!(v.data instanceof Float64Array) || typeof v.type !== 'string') throw new Error('it is malformed');
        count(v.data.length);
        return { k: 'typed', type: text(v.type, 40), data: v.data };
      case 'array':
        if (!Array.isArray(v.items)) throw new Error('it is malformed');
        return { k: 'array', items: v.items.map((item) => visit(item, depth + 1)) };
      case 'object': {
        const e = v.entries;
        if (!e || typeof e !== 'object' || Array.isArray(e)) throw new Error('it is malformed');
        const keys = Object.keys(e);
        if (keys.length > limits.maxKeys || keys.some((k) => k.length > 64)) throw new Error('it has too many or too long keys');
        const entries = {};
        for (const key of keys) {
          Object.defineProperty(entries, key, { value: visit(e[key], depth + 1), enumerable: true, writable: true, configurable: true });
        }
        return { k: 'object', entries };
      }
      default:
        throw new Error('it is malformed');
    }
  };
  return visit(w, 0);
}

function cleanResult(r, limits) {
  if (!r || typeof r !== 'object') return { ok: false, refused: true, error: cleanError({ name: 'Refused', message: 'malformed result' }) };
  if (r.ok !== true) {
    const out = { ok: false, error: cleanError(r.error) };
    if (r.refused === true) out.refused = true;
    if (r.missing === true) out.missing = true;
    return out;
  }
  try {
    return { ok: true, value: cleanWire(r.value, limits) };
  } catch (e) {
    return { ok: false, refused: true, error: cleanError({ name: 'Refused', message: `the result could not be read: ${e.message}` }) };
  }
}

function cleanLogs(logs) {
  if (!Array.isArray(logs)) return [];
  const out = [];
  let chars = 0;
  for (const l of logs.slice(0, 200)) {
    const level = l && l.level; // learner code can put anything in this list, null included
    const t = text(l && l.text);
    chars += t.length;
    if (chars > MAX_LOG_CHARS) break;
    out.push({ level: ['log', 'info', 'warn', 'error', 'debug'].includes(level) ? level : 'log', text: t });
  }
  return out;
}

/**
 * Run `calls` against the learner's `source`. Resolves (never rejects on learner behaviour) to
 * { status: 'done' | 'timeout' | 'aborted' | 'crashed', compileError, results (one per call, null if it never ran), logs, lastIndex, ms, crash }.
 */
export async function runLearnerCode(options = {}) {
  const first = await runOnce(options);
  // A sandbox frame that died before this run's worker was even ready was killed by another run
  // (or a previous one): this run's code never ran, so it gets one fresh frame.
  const { retry, ...run } = first.retry ? await runOnce(options) : first;
  return run;
}

async function runOnce({ source, exports, calls, timeout = DEFAULT_TIMEOUT_MS, limits = DEFAULT_LIMITS, signal, workerUrl, onProgress } = {}) {
  const nonce = makeNonce();
  const results = new Array(calls.length).fill(null);
  const base = { lastIndex: -1, ms: 0, logs: [], compileError: null, results };
  if (signal && signal.aborted) return { ...base, status: 'aborted' };
  let w;
  try {
    w = await spawn(workerUrl);
  } catch (e) {
    return { ...base, status: 'crashed', crash: String((e && e.message) || e), retry: !!(e && e.frameDied) };
  }
  return new Promise((resolve) => {
    let settled = false;
    let stopping = false; // the timeout fired: waiting for the sandbox to confirm the worker is gone
    let lastIndex = -1;
    let timer = null;
    let started = 0;
    const finish = (res) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (signal) signal.removeEventListener('abort', onAbort);
      w.terminate();
      resolve({ ...base, lastIndex, ms: started ? Date.now() - started : 0, ...res });
    };
    const onAbort = () => {
      if (!stopping) finish({ status: 'aborted' });
    };
    if (signal) {
      if (signal.aborted) return finish({ status: 'aborted' });
      signal.addEventListener('abort', onAbort);
    }
    timer = setTimeout(() => finish({ status: 'crashed', crash: 'the exercise worker did not start' }), STARTUP_MS);
    w.onFailure((err) => {
      if (stopping) return; // terminate() reports a dead sandbox itself
      finish({ status: 'crashed', crash: err.message, retry: !!err.frameDied && !started });
    });
    w.onMessage((m) => {
      if (settled || stopping || !m || typeof m !== 'object') return;
      if (m.type === 'ready') {
        clearTimeout(timer);
        started = Date.now();
        timer = setTimeout(() => {
          // A sandbox that cannot confirm the stop is dead (browsers: its process ended, typically out
          // of memory, and terminate() has removed it): report that rather than a plain timeout.
          stopping = true;
          w.terminate().then((alive) => finish(alive ? { status: 'timeout' } : { status: 'crashed', crash: FRAME_DIED }));
        }, timeout);
        w.post({ type: 'run', nonce, source, exports, calls, limits });
        return;
      }
      if (m.nonce !== nonce) return; // forged or stray: only the worker's own code knows the nonce
      if (m.type === 'progress' && Number.isInteger(m.index)) {
        lastIndex = m.index;
        if (onProgress) onProgress(m.index);
      } else if (m.type === 'result' && Number.isInteger(m.index) && m.index >= 0 && m.index < calls.length && results[m.index] === null) {
        results[m.index] = cleanResult(m.result, limits);
      } else if (m.type === 'done') {
        finish({
          status: 'done',
          compileError: m.compileError ? cleanError(m.compileError) : null,
          logs: cleanLogs(m.logs),
        });
      }
    });
  });
}
