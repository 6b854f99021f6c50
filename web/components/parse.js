// Shared checks of the components' attribute parsers: bounded quoting, strict numbers, lengths checked before any work.

/** At most this many characters of an offending value are quoted back in an error message. */
export const QUOTE_MAX = 40;

/** The value quoted for an error message, cut to QUOTE_MAX characters (its full length said when cut). */
export function quote(value) {
  const s = typeof value === 'string' ? value : String(typeof value === 'symbol' ? value.description : value);
  if (s.length <= QUOTE_MAX) return JSON.stringify(s);
  return `${JSON.stringify(s.slice(0, QUOTE_MAX))}… (${s.length} characters)`;
}

/** Refuse a string longer than max characters before anything splits or scans it. */
export function checkLength(name, value, max) {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string, got ${typeof value}`);
  if (value.length > max) {
    throw new RangeError(`${name} is ${value.length} characters long; at most ${max} are accepted`);
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
  if (!NUMBER_RE.test(s)) throw new TypeError(`${name} must be a number, got ${quote(value)}`);
  const v = Number(s);
  if (!Number.isFinite(v)) throw new RangeError(`${name} is too large: ${quote(value)}`);
  if (v < min || v > max) throw new RangeError(`${name} must be between ${min} and ${max}, got ${quote(value)}`);
  return v;
}

/** Like parseNumber for a number given as a number or as text (a property or JSON field). */
export function toNumber(name, value, range) {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`${name} must be a finite number, got ${value}`);
    return parseNumber(name, String(value), range);
  }
  if (typeof value === 'string') return parseNumber(name, value, range);
  throw new TypeError(`${name} must be a number, got ${typeof value}`);
}

/** An integer in [min, max], given as a number or as text. */
export function toInteger(name, value, min, max) {
  const v = toNumber(name, value, { min, max });
  if (!Number.isInteger(v)) throw new RangeError(`${name} must be a whole number, got ${quote(String(value))}`);
  return v;
}
