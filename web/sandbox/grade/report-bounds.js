// Bounds on what grading builds from learner results: text cut where it is made, and page work cut into slices.
import { numeral } from '../../i18n/index.js';
import { say } from '../run/index.js';

/*
 * Caps, in UTF-16 code units, on each piece of text a grading report builds from a learner's result
 * (web/sandbox/grade/README.md, "Bounds of a grading report"). A text is cut where it is made, before it is
 * joined into a longer one, so no step ever builds text proportional to what the learner returned.
 */
export const CAPS = Object.freeze({
  dims: 8, // sizes of a shape shown: [2,3,4,5,6,7,8,9,… (40 sizes)]
  key: 40, // an object key shown
  keys: 12, // keys shown in one list
  what: 200, // a description of a value the worker could not send
  errorName: 100,
  errorMessage: 1000,
  problem: 600, // what is wrong with one output (shape, type, keys)
  message: 1200, // one test's message
  diagnosis: 2000, // one diagnosis's message
  note: 600,
  log: 2000, // one console line
  logs: 20000, // all console lines
  tests: 40000, // the learner-derived text of all tests together (JSON characters), then `floor` per field
  floor: 40,
});

/** The most items a learner value the page compares may declare (the wire's own limit, runner.js, is lower). */
export const MAX_ITEMS = 2_000_000;

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const JSON_ESCAPED = /["\\\n\r\t]/g;

/**
 * A string of at most `max` code units, and a final '…' when it was cut (as runner.js cuts what comes in, so a
 * text already cut there at the same cap comes out unchanged); never cut inside a surrogate pair. Control characters
 * other
 * than tab and line breaks are shown as their symbols (U+2400...) and lone surrogates as U+FFFD, so that JSON
 * escaping at most doubles the length. Non-strings give '' (numbers and booleans their text).
 */
export function clip(value, max) {
  let s =
    typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
  if (s.length > max) {
    let end = max;
    const c = s.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff) end -= 1;
    s = `${s.slice(0, end)}…`;
  }
  return s.replace(CONTROL, (ch) => String.fromCharCode(0x2400 + ch.charCodeAt(0))).replace(LONE_SURROGATE, '\ufffd');
}

/** The length of a clipped string once written as JSON (without its quotes). */
export function jsonLength(s) {
  const m = s.match(JSON_ESCAPED);
  return s.length + (m ? m.length : 0);
}

/**
 * A budget of `total` JSON characters shared by many texts: each text is clipped to its own cap, or to what is
 * left of the budget, but never below `floor`. take(text, cap) -> the clipped text.
 */
export function textBudget(total = CAPS.tests, floor = CAPS.floor) {
  let left = total;
  const take = (value, cap) => {
    const s = clip(value, Math.min(cap, Math.max(floor, left)));
    left -= jsonLength(s);
    return s;
  };
  // spend(n): n more JSON characters (a text's params, report-text.js) if what is left holds them, else false
  take.spend = (n) => n <= left && (left -= n) >= 0;
  return take;
}

export { say };

/** A number as fmtNum writes it, shown with the reader's decimal mark, grouping and minus sign. */
export const num = (v) => numeral(v, fmtNum(v));

// An integer with en-US grouping, as toLocaleString('en-US') writes it (-0 too), without the 30-50 ms that the first
// toLocaleString of a page spends setting up the engine's number formatting.
const grouped = (v) => (v < 0 || Object.is(v, -0) ? '-' : '') + String(Math.abs(v)).replace(/\B(?=(\d{3})+$)/g, ',');

export function fmtNum(v) {
  if (typeof v !== 'number') return clip(v, CAPS.what);
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return grouped(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(4).replace(/\.?0+e/, 'e');
  return String(Number(v.toPrecision(7)));
}

const fmtSize = (v) => (Number.isSafeInteger(v) ? String(v) : fmtNum(v));

/**
 * A shape or an index, at most CAPS.dims sizes of it: [2,3,4], or when cut a message (String(): its English)
 * [0,1e+20,…,1e+20,… (199,990 sizes)].
 */
export function fmtShapeBounded(shape) {
  const n = shape.length;
  const shown = [];
  for (let i = 0; i < Math.min(n, CAPS.dims); i++) shown.push(fmtSize(shape[i]));
  // cut: a message (its English is the text), so that "sizes" is said in the reader's language
  return n > CAPS.dims ? say('sizesCut', { shown: shown.join(','), n: num(n) }) : `[${shown.join(',')}]`;
}

/** At most CAPS.keys keys, each cut at CAPS.key: "a, b, c", or when cut a message "a, b, c, … (40 keys)". */
export function listKeys(keys) {
  const shown = [];
  for (let i = 0; i < Math.min(keys.length, CAPS.keys); i++) shown.push(clip(keys[i], CAPS.key));
  const list = shown.join(', ');
  return keys.length > CAPS.keys ? say('keysCut', { shown: list, n: num(keys.length) }) : list;
}

/*
 * Page work cut into slices. Grading runs on the page's main thread (and the Node grader's event loop), where
 * nothing can interrupt it; a legal result may hold 200,000 numbers per test. Between tests and variants the
 * grading calls slice(), which gives the event loop a turn once SLICE_MS (about a frame) have passed since the
 * last one, so no task of grading lasts much longer than SLICE_MS plus one step (one test's comparison, one
 * variant's score: a few milliseconds for 200,000 numbers).
 */
export const SLICE_MS = 16;

const now = () => globalThis.performance.now();

/** A turn for the event loop: resolves in a task of its own. */
function yieldToLoop() {
  if (typeof globalThis.setImmediate === 'function') return new Promise((ok) => globalThis.setImmediate(ok));
  // A message is a task like any other (scheduler.yield() would run grading ahead of the page's own timers), and
  // it is not throttled in a background tab the way a timer is.
  return new Promise((ok) => {
    const c = new MessageChannel();
    c.port1.onmessage = () => {
      c.port1.close();
      ok();
    };
    c.port2.postMessage(0);
  });
}

/**
 * slicer(ms) -> slice(): an async function that yields to the event loop once `ms` have passed since the last
 * turn; the first call always yields, so grading starts in a task of its own, not in the one that ended the run.
 */
export function slicer(ms = SLICE_MS) {
  let since = -Infinity;
  return async () => {
    if (now() - since < ms) return;
    await yieldToLoop();
    since = now();
  };
}
