// The sandbox's messages: every message between the page, the sandbox frame and the learner's worker, defined
// here, and the page's checks of what comes back (nothing the frame or the worker sends is trusted).
import { numeral } from '../../i18n/index.js';
import { DEFAULT_LIMITS, LIMIT_CEILINGS } from './limits.js';
import { say, workerKey, WORKER_FAILED } from './say.js';

/*
 * page --window--> frame          { type: INIT, worker, toolkit } + the control port (once, postMessage(.., '*'))
 * page --control port--> frame    { type: 'start', id } + a run port | { type: 'stop', id } | { type: 'ping', seq }
 * frame --control port--> page    { type: 'ready' } | { type: 'init-failed', message }
 *                                 | { type: 'refused', message, violations } | { type: 'failed', id, message }
 *                                 | { type: 'stopped', id } | { type: 'pong', seq }
 * worker --self--> frame          { type: 'waiting' }; frame --worker--> worker  { type: 'port' } + the run port
 * page <--run port--> worker      (Node: worker_threads' parentPort), one run per worker:
 *   worker -> page  { type: 'ready' }
 *   page -> worker  { type: 'run', nonce, source, exports: [names], calls: [{ fn, args }], limits }
 *   worker -> page  { type: 'progress', nonce, index }              before each call
 *   worker -> page  { type: 'result', nonce, index, result }         after each call
 *   worker -> page  { type: 'done', nonce, compileError, logs }
 * frame.html and worker.js cannot import this module (frame.html is a document of its own, and worker.js imports
 * toolkit.js and nothing else): they speak the same messages, and tests/sandbox hold the three to them.
 */

/** The type of the page's first message to a sandbox frame, which carries the worker's sources. */
export const INIT = 'ffn-lab-sandbox-init';

/** The page's first message to a frame: the worker's and the toolkit's sources (the control port goes beside it). */
export const frameInit = (worker, toolkit) => ({ type: INIT, worker, toolkit });

/**
 * A message from the frame on the control port, checked: { type, id?, seq?, detail? } with `detail` a bounded text
 * (refused: why and the CSP violations seen; init-failed, failed: the frame's words), or null for anything else.
 */
export function readFrameMessage(m) {
  if (!m || typeof m !== 'object') return null;
  switch (m.type) {
    case 'ready':
      return { type: 'ready' };
    case 'refused': {
      const list = Array.isArray(m.violations) ? m.violations.map(String).join('; ').slice(0, 300) : '';
      return { type: 'refused', detail: String(m.message).slice(0, 200) + (list ? ` (${list})` : '') };
    }
    case 'init-failed':
      return { type: 'init-failed', detail: String(m.message).slice(0, 200) };
    case 'pong':
      return { type: 'pong', seq: m.seq };
    case 'failed':
      return { type: 'failed', id: m.id, detail: String(m.message || WORKER_FAILED).slice(0, 500) };
    case 'stopped':
      return { type: 'stopped', id: m.id };
    default:
      return null;
  }
}

/**
 * A message from a run's worker, checked against the run (its nonce and number of calls): { type: 'ready' } |
 * { type: 'progress', index } | { type: 'result', index } | { type: 'done' }, or null (not a plain object, a
 * stray or forged message without the run's nonce, an index outside the calls). The result, compile error and
 * logs it carries are read by cleanResult, cleanError and cleanLogs.
 */
export function readWorkerMessage(m, nonce, calls) {
  if (!isRecord(m)) return null;
  if (m.type === 'ready') return { type: 'ready' };
  if (m.nonce !== nonce) return null; // forged or stray: only the worker's own code knows the nonce
  const type = m.type;
  if (type === 'done') return { type };
  if (type !== 'progress' && type !== 'result') return null;
  const index = m.index;
  return Number.isInteger(index) && index >= 0 && index < calls ? { type, index } : null;
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
export function isRecord(v) {
  if (v === null || typeof v !== 'object') return false;
  const p = getProto(v);
  return p === Object.prototype || p === null;
}

/**
 * What the worker said beside an English text (worker.js: a toolkit error's key, or a key worker.* of its own), or
 * null: a key the page's tables know (workerKey), at most 8 params named in letters, each a text of
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

export function cleanError(e) {
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

export function cleanResult(r, limits) {
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

export function cleanLogs(logs) {
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
