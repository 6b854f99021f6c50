// The memory lab's attributes: their parsers (pure; each throws a TypeError/RangeError naming the attribute).
import { localizedError as fail, joined } from '../../i18n/index.js';
import { checkLength, quote, toInteger } from '../parse.js';
import { parseFacts } from './facts.js';

/** The sizes the d_ff control offers (and the d-ff attribute takes). */
export const DFF_CHOICES = Object.freeze([32, 64, 128, 256, 512, 1024]);
export const DEFAULT_DFF = 512;
export const D = 128;
export const SEED_MAX = 2147483647;
/** A fact named in the `fact` attribute: "subject · relation" or "subject | relation", at most this long. */
export const FACT_NAME_MAX = 2 * 64 + 8;

/** seed="7": a whole number in [1, SEED_MAX]. */
export function parseSeed(value) {
  const s = checkLength('seed', value, 32).trim();
  if (!/^\d+$/.test(s) || Number(s) < 1 || Number(s) > SEED_MAX) {
    throw fail(RangeError, 'lab.err.seed', { max: String(SEED_MAX), got: quote(value) });
  }
  return Number(s);
}

/** d-ff="256": one of DFF_CHOICES. */
export function parseDff(value) {
  const s = checkLength('d-ff', value, 32).trim();
  const v = Number(s);
  if (!/^\d+$/.test(s) || !DFF_CHOICES.includes(v)) {
    throw fail(RangeError, 'lab.err.dff', { list: joined(DFF_CHOICES.map(String)), got: quote(value) });
  }
  return v;
}

/** fact="Japan · capital" (or "Japan | capital"): [subject, relation], trimmed; looked up by the element. */
export function parseFactName(value) {
  const s = checkLength('fact', value, FACT_NAME_MAX);
  const parts = s.split(/[·|]/).map((p) => p.trim());
  if (parts.length !== 2 || !parts[0] || !parts[1]) throw fail(RangeError, 'lab.err.factName', { got: quote(value) });
  return parts;
}

/** memory="17": a whole number, checked against d_ff by the element. */
export function parseMemory(value) {
  return toInteger('memory', checkLength('memory', value, 16), 0, DFF_CHOICES[DFF_CHOICES.length - 1] - 1);
}

/** The parser of each attribute of <ffn-memory-lab>. */
export const PARSERS = Object.freeze({
  facts: parseFacts,
  seed: parseSeed,
  'd-ff': parseDff,
  fact: parseFactName,
  memory: parseMemory,
});

/** The parser of each attribute of <ffn-memory-lab>; throws a TypeError or RangeError naming the attribute. */
export function parseAttribute(name, value) {
  if (!Object.hasOwn(PARSERS, name)) throw fail(RangeError, 'errors.unknownAttribute', { name: quote(name) });
  return PARSERS[name](value);
}
