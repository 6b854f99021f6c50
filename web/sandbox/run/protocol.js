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
 * The params of a message the worker sent, or null: at most 8, named in letters, each a text of at most MAX_TEXT
 * characters (no longer than the text it is part of) or a safe integer, shown as the English text writes it
 * (String) and the reader's way on the page (numeral).
 */
function cleanParams(p) {
  if (!isRecord(p)) return null;
  const names = Object.keys(p);
  if (names.length > 8) return null;
  const params = {};
  for (const name of names) {
    const v = p[name];
    if (!/^[A-Za-z]{1,20}$/.test(name)) return null;
    if (!(typeof v === 'string' ? v.length <= MAX_TEXT : Number.isSafeInteger(v))) return null;
    params[name] = typeof v === 'number' ? numeral(v) : v;
  }
  return params;
}

/**
 * A message the worker sent ({ key, params, text }: worker.js, a toolkit error's key or one of its own), as a
 * message of the report namespace (say): its key when the page's tables know it (workerKey), its params are
 * bounded (cleanParams) and its English is still `text` exactly (learner code may change an error it caught, the
 * worker cuts long texts); else `text` itself, cut to `max`, as report.raw.
 */
export function cleanMessage(m, max = MAX_TEXT) {
  const t = isRecord(m) ? text(m.text, max) : '';
  const key = isRecord(m) && typeof m.key === 'string' && m.key.length <= 100 ? workerKey(m.key) : null;
  const params = key && cleanParams(m.params);
  const keyed = params && say(key, params);
  return keyed && String(keyed) === t ? keyed : say('raw', { text: t });
}

export function cleanError(e) {
  const pos = (v) => (Number.isSafeInteger(v) && v > 0 ? v : null);
  try {
    const o = isRecord(e) ? e : {};
    const out = { name: text(o.name, 100) || 'Error', message: cleanMessage(o.message), line: pos(o.line) };
    out.column = pos(o.column);
    if (o.phase === 'top-level') out.phase = 'top-level';
    return out;
  } catch {
    return { name: 'Error', message: say('raw', { text: 'the error could not be read' }), line: null, column: null };
  }
}

/** Why a result is refused: its message is the English of a `report.refused` message, carried as .i18n. */
class WireError extends Error {
  constructor(m) {
    super(String(m));
    this.i18n = m;
  }
}

/**
 * A result value from the worker (wire format: { k: 'number', v } | { k: 'bad', what } |
 * { k: 'typed', type, data: Float64Array } | { k: 'array', items } | { k: 'object', entries }) -> a
 * fresh copy the page owns, or a WireError saying why it is refused. Each field is read once.
 */
export function cleanWire(w, limits = DEFAULT_LIMITS) {
  return readWire(w, limits, Infinity).value;
}

/**
 * cleanWire's walk -> { value, numbers }: `left` is what the run's earlier results left of limits.maxRunNumbers;
 * a value of more numbers (or more than limits.maxNumbers) is refused.
 */
function readWire(w, limits, left) {
  const cap = Math.min(limits.maxNumbers, left);
  const walk = { limits, cap, maxNodes: 2 * limits.maxNumbers + 1000, numbers: 0, nodes: 0 };
  try {
    return { value: visitWire(walk, w, 0), numbers: walk.numbers };
  } catch (e) {
    // A getter (which structured clone never makes) or anything else unexpected: refused all the same.
    throw e instanceof WireError ? e : new WireError(say('refused.malformedValue'));
  }
}

const refuse = (key, params) => {
  throw new WireError(say(`refused.${key}`, params));
};
const tooMany = (walk) =>
  walk.cap < walk.limits.maxNumbers
    ? refuse('runNumbers', { max: numeral(walk.limits.maxRunNumbers) })
    : refuse('numbers', { max: numeral(walk.limits.maxNumbers) });

/** One node of cleanWire's walk (`walk`: the limits, and the numbers and nodes counted so far). */
function visitWire(walk, v, depth) {
  if (depth > walk.limits.maxDepth + 1) refuse('deep', { max: numeral(walk.limits.maxDepth) });
  if (++walk.nodes > walk.maxNodes) refuse('parts');
  if (!isRecord(v)) refuse('malformedValue');
  const k = v.k;
  switch (k) {
    case 'number': {
      const x = v.v;
      if (typeof x !== 'number') refuse('malformedValue');
      if (++walk.numbers > walk.cap) tooMany(walk);
      return { k, v: x };
    }
    case 'bad':
      // what it is, a message of report.worker.bad; none: "an unreadable value" (report.wire.unreadable)
      return { k, what: cleanMessage(v.what, 200) };
    case 'typed':
      return cleanTyped(walk, v);
    case 'array':
      return cleanArray(walk, v, depth);
    case 'object':
      return cleanObject(walk, v, depth);
    default:
      return refuse('malformedValue');
  }
}

/** A typed array: a Float64Array whose own, unshared buffer holds exactly its numbers, copied. */
function cleanTyped(walk, v) {
  const type = v.type;
  const data = v.data;
  const float64 = ArrayBuffer.isView(data) && typedTag.call(data) === 'Float64Array';
  if (typeof type !== 'string' || !float64) refuse('malformedValue');
  const n = typedLength.call(data);
  if (n > walk.cap - walk.numbers) tooMany(walk);
  let bytes;
  try {
    bytes = bufferBytes.call(typedBuffer.call(data));
  } catch {
    refuse('shared');
  }
  if (typedOffset.call(data) !== 0 || bytes !== n * 8) refuse('buffer', { n: numeral(n), bytes: numeral(bytes) });
  walk.numbers += n;
  return { k: 'typed', type: text(type, 40), data: new Float64Array(data) };
}

/** An array: its declared length checked before any item is read. */
function cleanArray(walk, v, depth) {
  const items = v.items;
  if (!Array.isArray(items)) refuse('malformedValue');
  const n = items.length; // declared: checked before any item is read
  if (n > walk.limits.maxNumbers) refuse('array', { n: numeral(n), max: numeral(walk.limits.maxNumbers) });
  if (n > walk.maxNodes - walk.nodes) refuse('parts');
  const out = [];
  // A hole reads as undefined, which visitWire refuses: the walk stops at the first empty slot.
  for (let i = 0; i < n; i++) out.push(visitWire(walk, items[i], depth + 1));
  return { k: 'array', items: out };
}

/** An object: at most maxKeys keys of at most 64 characters, each defined (a key "__proto__" is an entry). */
function cleanObject(walk, v, depth) {
  const e = v.entries;
  if (!isRecord(e)) refuse('malformedValue');
  const keys = Object.keys(e);
  const maxKeys = walk.limits.maxKeys;
  if (keys.length > maxKeys) refuse('keys', { n: numeral(keys.length), max: numeral(maxKeys) });
  const entries = {};
  for (const key of keys) {
    if (key.length > 64) refuse('longKey', { max: numeral(64) });
    const value = visitWire(walk, e[key], depth + 1);
    Object.defineProperty(entries, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return { k: 'object', entries };
}

/**
 * A result message's result, checked (cleanWire for its value); `budget.left`, the numbers the run's results may still
 * hold (limits.maxRunNumbers at first), is what the value's numbers are taken from.
 */
export function cleanResult(r, limits, budget = { left: Infinity }) {
  // The error's message is the page's reason (report.refused.*), for <ffn-exercise> in the reader's language.
  const refused = (m) => ({
    ok: false,
    refused: true,
    error: { name: 'Refused', message: m, line: null, column: null },
  });
  try {
    if (!isRecord(r)) return refused(say('refused.malformed'));
    if (r.ok !== true) {
      const out = { ok: false, error: cleanError(r.error) };
      if (r.refused === true) out.refused = true;
      if (r.missing === true) out.missing = true;
      return out;
    }
    const { value, numbers } = readWire(r.value, limits, budget.left);
    budget.left -= numbers;
    return { ok: true, value };
  } catch (e) {
    return refused(say('refused.unread', { why: e instanceof WireError ? e.i18n : say('refused.malformedValue') }));
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
