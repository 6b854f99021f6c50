// Shared checks of the components' attribute parsers: bounded quoting, strict numbers, lengths checked before any work.
import { localizedError as fail, msg } from '../i18n/index.js';

/** At most this many characters of an offending value are quoted back in an error message. */
export const QUOTE_MAX = 40;

/**
 * The value quoted for an error message, cut to QUOTE_MAX characters (its full length said when cut: then a message
 * in the reader's language, whose text as a string is the English one).
 */
export function quote(value) {
  const s = typeof value === 'string' ? value : String(typeof value === 'symbol' ? value.description : value);
  if (s.length <= QUOTE_MAX) return JSON.stringify(s);
  return msg('errors.quoteCut', { text: JSON.stringify(s.slice(0, QUOTE_MAX)), n: String(s.length) });
}

/** Refuse a string longer than max characters before anything splits or scans it. */
export function checkLength(name, value, max) {
  if (typeof value !== 'string') throw fail(TypeError, 'errors.mustBeString', { name, type: typeof value });
  if (value.length > max) {
    throw fail(RangeError, 'errors.tooLong', { name, n: String(value.length), max: String(max) });
  }
  return value;
}

const NUMBER_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;

/**
 * A decimal number written as text ("1.5", "-2e-3"), finite, within [min, max] when given; anything else
 * (empty, "NaN", "Infinity", "0x10", "1e400") is refused with a TypeError or RangeError naming `name`.
 */
export function parseNumber(name, value, { min = -Infinity, max = Infinity } = {}) {
  const s = checkLength(name, value, 64).trim();
  if (!NUMBER_RE.test(s)) throw fail(TypeError, 'errors.mustBeNumber', { name, got: quote(value) });
  const v = Number(s);
  if (!Number.isFinite(v)) throw fail(RangeError, 'errors.numberTooLarge', { name, got: quote(value) });
  if (v < min || v > max) {
    throw fail(RangeError, 'errors.numberRange', { name, min: String(min), max: String(max), got: quote(value) });
  }
  return v;
}

/** Like parseNumber for a number given as a number or as text (a property or JSON field). */
export function toNumber(name, value, range) {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw fail(RangeError, 'errors.mustBeFinite', { name, got: String(value) });
    return parseNumber(name, String(value), range);
  }
  if (typeof value === 'string') return parseNumber(name, value, range);
  throw fail(TypeError, 'errors.mustBeNumber', { name, got: typeof value });
}

/** An integer in [min, max], given as a number or as text. */
export function toInteger(name, value, min, max) {
  const v = toNumber(name, value, { min, max });
  if (!Number.isInteger(v)) throw fail(RangeError, 'errors.wholeNumber', { name, got: quote(String(value)) });
  return v;
}
