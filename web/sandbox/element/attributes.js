// The <ffn-exercise> element's attribute readers: each attribute a page sets -> the value used and a notice, or null.
import { DEFAULT_TIMEOUT_MS } from '../run/index.js';
import { DEFAULT_STORAGE_KEY, PROGRESS_LIMITS } from './storage.js';
import { msg } from '../../i18n/index.js';

/* Attributes and properties a page sets are checked here: out of range is clamped, nonsense refused, with a notice
   in the element (part="notice"); never a throw or a hang. */
export const TIMEOUT_RANGE = Object.freeze({ min: 100, max: 60_000 }); // ms
export const NUMBER_MAX = 16; // characters of the `number` attribute shown before the title
const TIMEOUT_CHARS = 64; // a longer timeout attribute is not a number of milliseconds (checked before it is parsed)
/** A value quoted in a notice: JSON, cut at 40 characters (then with its length, in the reader's language). */
const quoteAttr = (s) =>
  s.length > 40
    ? msg('exercise.quoted', { text: JSON.stringify(`${s.slice(0, 40)}…`), n: s.length })
    : JSON.stringify(s);

/** The timeout attribute -> { ms, notice }: a number of milliseconds, clamped to TIMEOUT_RANGE (notice: a message). */
export function readTimeout(attr) {
  if (attr === null) return { ms: DEFAULT_TIMEOUT_MS, notice: null };
  const t = attr.length > TIMEOUT_CHARS || /^\s*$/.test(attr) ? NaN : Number(attr);
  const { min, max } = TIMEOUT_RANGE;
  if (!(t > 0) || t === Infinity) {
    const notice = msg('exercise.timeoutNaN', { value: quoteAttr(attr), ms: String(DEFAULT_TIMEOUT_MS) });
    return { ms: DEFAULT_TIMEOUT_MS, notice };
  }
  if (t < min || t > max) {
    const ms = t < min ? min : max;
    const notice = msg('exercise.timeoutRange', {
      value: quoteAttr(attr),
      min: String(min),
      max: String(max),
      ms: String(ms),
    });
    return { ms, notice };
  }
  return { ms: Math.round(t), notice: null };
}

/** The storage-key attribute -> { key, notice }; a key that is not usable leaves progress in memory (key null). */
export function readStorageKey(attr) {
  if (attr === null || attr === '') return { key: DEFAULT_STORAGE_KEY, notice: null };
  if (attr.length > PROGRESS_LIMITS.keyChars || /[\u0000-\u001f]/.test(attr)) {
    const notice = msg('exercise.storageKey', { value: quoteAttr(attr), max: String(PROGRESS_LIMITS.keyChars) });
    return { key: null, notice };
  }
  return { key: attr, notice: null };
}

/** The number attribute -> { text, notice }: at most NUMBER_MAX characters once trimmed, no control characters. */
export function readNumber(attr) {
  if (attr === null) return { text: '', notice: null };
  const s = attr.length > 4 * NUMBER_MAX ? attr : attr.trim(); // a long value is refused before it is scanned
  if (s.length > NUMBER_MAX || /[\u0000-\u001f\u007f-\u009f]/.test(s)) {
    const notice = msg('exercise.numberRefused', { name: 'number', value: quoteAttr(attr), max: String(NUMBER_MAX) });
    return { text: '', notice };
  }
  return { text: s, notice: null };
}

/** A value given to a property -> words for a notice, whatever it is (a Symbol, an object whose toString throws). */
export function describe(v) {
  if (typeof v === 'string') return quoteAttr(v);
  if (typeof v === 'number' || typeof v === 'boolean' || v == null) return String(v);
  return msg(`exercise.valueKinds.${typeof v}`);
}
