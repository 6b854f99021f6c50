// Runs learner source in a fresh worker with a hard timeout: in browsers a worker inside the sandbox frame (another
// process in Chromium, see frame-host.js), in Node worker_threads.
import { startFrameRun } from './frame-host.js';
import { DEFAULT_TIMEOUT_MS, DEFAULT_LIMITS } from './limits.js';
import { FRAME_DIED, say, workerKey } from './say.js';
import { numeral } from '../../i18n/index.js';

const IS_BROWSER = typeof window === 'object' && typeof Worker === 'function';
// Node built-ins are loaded through a variable specifier so browser bundlers leave them alone.
const nodeBuiltin = (specifier) => import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);

export { DEFAULT_TIMEOUT_MS, DEFAULT_LIMITS };
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

/*
 * Nothing the worker sends is trusted. The worker builds its messages with built-ins it captured before
 * learner code ran, but learner code runs in that worker, and a bug there must not freeze or mislead the
 * page: every message is re-checked here against the wire format and the limits before the page reads it.
 * Each check is bounded by what the message declares before any work proportional to it: an array's
 * length is compared with the limits before a single item is read (the first hole is refused, so empty
 * slots are never walked), a typed array must be a Float64Array whose buffer holds exactly its numbers
 * (a larger or shared buffer is refused, and the numbers are copied out), texts are cut to a bound.
 * What arrives is structured-clone output: plain objects, arrays, typed arrays, primitives; anything
 * else (a Map, a Date, an object of another prototype) is refused as malformed.
 */
const MAX_TEXT = 2000;
const MAX_LOG_LINES = 200;
const MAX_LOG_CHARS = 20000;
// Ceilings for limits passed in: the page must be able to re-check a result within a frame or so.
export const LIMIT_CEILINGS = Object.freeze({ maxNumbers: 2_000_000, maxDepth: 64, maxKeys: 1024 });
// setTimeout fires at once for delays beyond 2^31 - 1 ms; a longer timeout would mean none at all.
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

const gopd = Object.getOwnPropertyDescriptor;
const getProto = Object.getPrototypeOf;
const TYPED_ARRAY = getProto(Uint8Array.prototype);
// Getters called on the value itself: they check the internal slot (a brand), so no look-alike passes.
const typedTag = gopd(TYPED_ARRAY, Symbol.toStringTag).get;
const typedLength = gopd(TYPED_ARRAY, 'length').get;
const typedOffset = gopd(TYPED_ARRAY, 'byteOffset').get;
const typedBuffer = gopd(TYPED_ARRAY, 'buffer').get;
const bufferBytes = gopd(ArrayBuffer.prototype, 'byteLength').get; // throws on a SharedArrayBuffer

function text(v, max = MAX_TEXT) {
  const s = typeof v === 'string' ? v : '';
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** A plain object as structured clone makes it (not an array, typed array, Map, Date...). */
function isRecord(v) {
  if (v === null || typeof v !== 'object') return false;
  const p = getProto(v);
  return p === Object.prototype || p === null;
}

/**
 * What the worker said beside an English text (worker.js: a toolkit error's key, or a key worker.* of its own), or
 * null: a key the page's tables know (say.js workerKey), at most 8 params named in letters, each a text of
 * at most MAX_TEXT characters (no longer than the text it is part of) or a safe integer. Anything else is dropped
 * whole, and the page shows the English text. Whether that text is still the key's English is for grading to say.
 */
function cleanSaid(s) {
  if (!isRecord(s) || typeof s.key !== 'string' || s.key.length > 100 || !workerKey(s.key)) return null;
  if (!isRecord(s.params)) return null;
  const names = Object.keys(s.params);
  if (names.length > 8) return null;
  const params = {};
  for (const name of names) {
    const v = s.params[name];
    if (!/^[A-Za-z]{1,20}$/.test(name)) return null;
    if (!(typeof v === 'string' ? v.length <= MAX_TEXT : Number.isSafeInteger(v))) return null;
    params[name] = v;
  }
  return { key: s.key, params };
}

function cleanError(e) {
  const pos = (v) => (Number.isSafeInteger(v) && v > 0 ? v : null);
  try {
    const o = isRecord(e) ? e : {};
    const out = { name: text(o.name, 100) || 'Error', message: text(o.message), line: pos(o.line), column: null };
    out.column = pos(o.column);
    if (o.phase === 'top-level') out.phase = 'top-level';
    const said = cleanSaid(o.said);
    if (said) out.said = said;
    return out;
  } catch {
    return { name: 'Error', message: 'the error could not be read', line: null, column: null };
  }
}

/** Why a result is refused: its message is the English of a `report.refused` message, kept as .said. */
class WireError extends Error {
  constructor(said) {
    super(String(said));
    this.said = said;
  }
}

/**
 * A result value from the worker (wire format: { k: 'number', v } | { k: 'bad', what, said } |
 * { k: 'typed', type, data: Float64Array } | { k: 'array', items } | { k: 'object', entries }) -> a
 * fresh copy the page owns, or a WireError saying why it is refused. Each field is read once.
 */
export function cleanWire(w, limits = DEFAULT_LIMITS) {
  const { maxNumbers, maxDepth, maxKeys } = limits;
  const maxNodes = 2 * maxNumbers + 1000;
  let numbers = 0;
  let nodes = 0;
  const refuse = (key, params) => {
    throw new WireError(say(`refused.${key}`, params));
  };
  const tooMany = () => refuse('numbers', { max: numeral(maxNumbers) });
  const visit = (v, depth) => {
    if (depth > maxDepth + 1) refuse('deep', { max: numeral(maxDepth) });
    if (++nodes > maxNodes) refuse('parts');
    if (!isRecord(v)) refuse('malformedValue');
    const k = v.k;
    switch (k) {
      case 'number': {
        const x = v.v;
        if (typeof x !== 'number') refuse('malformedValue');
        if (++numbers > maxNumbers) tooMany();
        return { k, v: x };
      }
      case 'bad': {
        const what = text(v.what, 200); // none: "an unreadable value" (report.wire.unreadable), said by compare.js
        const said = cleanSaid(v.said); // what it is, as a key of report.worker.bad: grading checks it is `what`
        return said ? { k, what, said } : { k, what };
      }
      case 'typed': {
        const type = v.type;
        const data = v.data;
        const float64 = ArrayBuffer.isView(data) && typedTag.call(data) === 'Float64Array';
        if (typeof type !== 'string' || !float64) refuse('malformedValue');
        const n = typedLength.call(data);
        if (n > maxNumbers - numbers) tooMany();
        let bytes;
        try {
          bytes = bufferBytes.call(typedBuffer.call(data));
        } catch {
          refuse('shared');
        }
        if (typedOffset.call(data) !== 0 || bytes !== n * 8) {
          refuse('buffer', { n: numeral(n), bytes: numeral(bytes) });
        }
        numbers += n;
        return { k, type: text(type, 40), data: new Float64Array(data) };
      }
      case 'array': {
        const items = v.items;
        if (!Array.isArray(items)) refuse('malformedValue');
        const n = items.length; // declared: checked before any item is read
        if (n > maxNumbers) refuse('array', { n: numeral(n), max: numeral(maxNumbers) });
        if (n > maxNodes - nodes) refuse('parts');
        const out = [];
        // A hole reads as undefined, which visit refuses: the walk stops at the first empty slot.
        for (let i = 0; i < n; i++) out.push(visit(items[i], depth + 1));
        return { k, items: out };
      }
      case 'object': {
        const e = v.entries;
        if (!isRecord(e)) refuse('malformedValue');
        const keys = Object.keys(e);
        if (keys.length > maxKeys) refuse('keys', { n: numeral(keys.length), max: numeral(maxKeys) });
        const entries = {};
        for (const key of keys) {
          if (key.length > 64) refuse('longKey', { max: numeral(64) });
          Object.defineProperty(entries, key, {
            value: visit(e[key], depth + 1),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return { k, entries };
      }
      default:
        return refuse('malformedValue');
    }
  };
  try {
    return visit(w, 0);
  } catch (e) {
    // A getter (which structured clone never makes) or anything else unexpected: refused all the same.
    throw e instanceof WireError ? e : new WireError(say('refused.malformedValue'));
  }
}

function cleanResult(r, limits) {
  // The error holds the English; a non-enumerable `said` on the result keeps the message (report.refused.*),
  // which grading passes on for <ffn-exercise> to show in the reader's language.
  const refused = (m) => {
    const out = { ok: false, refused: true, error: cleanError({ name: 'Refused', message: String(m) }) };
    return Object.defineProperty(out, 'said', { value: m });
  };
  try {
    if (!isRecord(r)) return refused(say('refused.malformed'));
    if (r.ok !== true) {
      const out = { ok: false, error: cleanError(r.error) };
      if (r.refused === true) out.refused = true;
      if (r.missing === true) out.missing = true;
      return out;
    }
    return { ok: true, value: cleanWire(r.value, limits) };
  } catch (e) {
    return refused(say('refused.unread', { why: e instanceof WireError ? e.said : say('refused.malformedValue') }));
  }
}

function cleanLogs(logs) {
  if (!Array.isArray(logs)) return [];
  const out = [];
  let chars = 0;
  const n = Math.min(logs.length, MAX_LOG_LINES); // never the declared length: it may be 2^32 - 1
  for (let i = 0; i < n; i++) {
    const l = isRecord(logs[i]) ? logs[i] : {}; // learner code could once put anything in this list, holes included
    const level = l.level;
    const t = text(l.text);
    chars += t.length;
    if (chars > MAX_LOG_CHARS) break;
    out.push({ level: ['log', 'info', 'warn', 'error', 'debug'].includes(level) ? level : 'log', text: t });
  }
  return out;
}

/** The limits a run uses: DEFAULT_LIMITS overridden by whole numbers within LIMIT_CEILINGS, else a RangeError. */
export function checkLimits(limits) {
  const out = {};
  for (const key of Object.keys(DEFAULT_LIMITS)) {
    const v = (limits ?? DEFAULT_LIMITS)[key] ?? DEFAULT_LIMITS[key];
    if (!Number.isSafeInteger(v) || v < 0 || v > LIMIT_CEILINGS[key]) {
      const got = typeof v === 'number' ? v : typeof v;
      throw new RangeError(`limits.${key} must be a whole number from 0 to ${LIMIT_CEILINGS[key]}; got ${got}`);
    }
    out[key] = v;
  }
  return out;
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

/** The crash reason of a worker that never said it was ready. */
export const NO_START = 'the exercise worker did not start';

async function runOnce(options = {}) {
  const { source, exports, calls, timeout = DEFAULT_TIMEOUT_MS, signal, workerUrl, onProgress } = options;
  if (!(timeout > 0 && timeout <= MAX_TIMEOUT_MS)) {
    const want = `a positive number of milliseconds up to ${MAX_TIMEOUT_MS}`;
    throw new RangeError(`runLearnerCode: timeout must be ${want}; got ${timeout}`);
  }
  const limits = checkLimits(options.limits);
  const nonce = makeNonce();
  const results = new Array(calls.length).fill(null);
  const base = { lastIndex: -1, ms: 0, logs: [], compileError: null, results };
  if (signal && signal.aborted) return { ...base, status: 'aborted' };
  let w;
  try {
    w = await take(workerUrl);
  } catch (e) {
    if (e && e.setup) {
      // setupSaid: the message (report.site.*, frame-host.js) that the English `setup` is the text of, if any
      return { ...base, status: 'setup', setup: String(e.message), ...(e.said ? { setupSaid: e.said } : {}) };
    }
    return { ...base, status: 'crashed', crash: String((e && e.message) || e), retry: !!(e && e.frameDied) };
  }
  // The next run's worker: in Node it starts now, beside this run (a grading loop overlaps them); in a page once
  // this run has ended and the page is idle, where starting it alongside made the run itself 25 % slower.
  if (!IS_BROWSER) startSpare(workerUrl);
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
      if (IS_BROWSER) afterDrawn(() => startSpare(workerUrl));
      resolve({ ...base, lastIndex, ms: started ? Date.now() - started : 0, ...res });
    };
    const onAbort = () => {
      if (!stopping) finish({ status: 'aborted' });
    };
    if (signal) {
      if (signal.aborted) return finish({ status: 'aborted' });
      signal.addEventListener('abort', onAbort);
    }
    timer = setTimeout(() => finish({ status: 'crashed', crash: NO_START }), STARTUP_MS);
    const onFailure = (err) => {
      if (stopping) return; // terminate() reports a dead sandbox itself
      finish({ status: 'crashed', crash: err.message, retry: !!err.frameDied && !started });
    };
    w.listen((m) => {
      if (settled || stopping || !isRecord(m)) return;
      if (m.type === 'ready') {
        clearTimeout(timer);
        started = Date.now();
        timer = setTimeout(() => {
          // A sandbox that cannot confirm the stop is dead (browsers: its process ended, typically out
          // of memory, and terminate() has removed it): report that rather than a plain timeout.
          stopping = true;
          w.terminate().then((alive) =>
            finish(alive ? { status: 'timeout' } : { status: 'crashed', crash: FRAME_DIED }),
          );
        }, timeout);
        w.post({ type: 'run', nonce, source, exports, calls, limits });
        return;
      }
      if (m.nonce !== nonce) return; // forged or stray: only the worker's own code knows the nonce
      if (m.type === 'progress' && Number.isInteger(m.index) && m.index >= 0 && m.index < calls.length) {
        lastIndex = m.index;
        if (onProgress) onProgress(m.index);
      } else if (
        m.type === 'result' &&
        Number.isInteger(m.index) &&
        m.index >= 0 &&
        m.index < calls.length &&
        results[m.index] === null
      ) {
        results[m.index] = cleanResult(m.result, limits);
      } else if (m.type === 'done') {
        finish({
          status: 'done',
          compileError: m.compileError ? cleanError(m.compileError) : null,
          logs: cleanLogs(m.logs),
        });
      }
    }, onFailure);
  });
}
