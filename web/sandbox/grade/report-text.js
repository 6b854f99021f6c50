// The report's texts: each a message as plain data { key, params, text }, and back to a message to show.
import { isMessage, joined, msg, numeral, ordinal } from '../../i18n/index.js';
import { clip } from './report-bounds.js';

/*
 * A report crosses realms (postMessage to an LMS, the `ffn-exercise-result` event, JSON in storage), so each of
 * its texts is plain data, enumerable, JSON-safe and structured-cloneable: { key, params, text }, key a key of
 * the locale tables (web/i18n/en.js, `report.…`), params its parameters as plain data, text its English. A text
 * that has no key (learner code's own error message, an author's words) is { key: 'report.raw', params: {}, text }
 * (its one parameter, text, is the text itself). A parameter is a string, a number, an array of parameters, or one
 * of i18n's parameter objects as their fields: a message { key, params }, a number written in English { v, text }
 * (numeral), a position { n } (ordinal), items joined { items, sep } (joined). <ffn-exercise> shows a text from
 * its key and params in its own language (toMessage); a consumer that reads English reads `text`.
 */

const MAX_DEPTH = 8; // messages inside messages: a report's go 4 deep

/** A message's parameter as plain data (see above); cut at MAX_DEPTH (what is deeper shows as its English). */
function plain(v, depth) {
  if (v === null || typeof v !== 'object') return v ?? '';
  if (depth > MAX_DEPTH) return String(v);
  if (Array.isArray(v)) return v.map((x) => plain(x, depth + 1));
  if (isMessage(v)) return { key: v.key, params: plainParams(v.params, depth + 1) };
  const out = {};
  for (const [k, x] of Object.entries(v)) out[k] = plain(x, depth + 1);
  return out;
}

function plainParams(params, depth) {
  const out = {};
  for (const [k, v] of Object.entries(params || {})) out[k] = plain(v, depth);
  return out;
}

/**
 * A report's text from a message or a text: { key, params, text }, its English cut by `take(text, cap)` (clip, or
 * a report's shared budget). A message whose English `take` cut is kept as its cut English (report.raw), so what
 * a report holds stays bounded by its texts' caps; one of i18n's other parameter objects (items joined: joined())
 * is the parameter of report.raw.
 */
export function reportText(m, cap, take = clip) {
  const full = String(m ?? '');
  const text = take(full, cap);
  const raw = { key: 'report.raw', params: {}, text }; // its text param is `text` (toMessage)
  if (text !== full || m === null || typeof m !== 'object') return raw;
  const params = isMessage(m) ? plainParams(m.params, 0) : { text: plain(m, 0) };
  // a budget's texts pay for their params too (each piece was cut where it was made): past it, the English alone
  if (take.spend && !take.spend(JSON.stringify(params).length)) return raw;
  return { key: isMessage(m) ? m.key : 'report.raw', params, text };
}

/** A parameter back from plain data: messages, numerals, positions and joined items as i18n's objects. */
function revive(v, depth) {
  if (v === null || typeof v !== 'object' || depth > MAX_DEPTH) return v;
  if (Array.isArray(v)) return v.map((x) => revive(x, depth + 1));
  if (typeof v.key === 'string') return msg(v.key, reviveParams(v.params, depth + 1));
  if (Array.isArray(v.items)) return joined(revive(v.items, depth + 1), v.sep);
  if (typeof v.text === 'string' && 'v' in v) return numeral(v.v, v.text);
  if (typeof v.n === 'number') return ordinal(v.n);
  return '';
}

function reviveParams(params, depth) {
  const out = {};
  if (params === null || typeof params !== 'object') return out;
  for (const [k, v] of Object.entries(params)) out[k] = revive(v, depth);
  return out;
}

/**
 * A report's text ({ key, params, text }, as reportText makes it, also after JSON or structured cloning) as a
 * message to show in a reader's language, or null when it is not one.
 */
export function toMessage(t) {
  if (t === null || typeof t !== 'object' || typeof t.key !== 'string') return null;
  const params = reviveParams(t.params, 0);
  if (t.key === 'report.raw' && !Object.hasOwn(params, 'text')) params.text = typeof t.text === 'string' ? t.text : '';
  return msg(t.key, params);
}

/** Whether v is a report's text: { key, params, text } with a string key and text. */
export const isReportText = (v) =>
  v !== null && typeof v === 'object' && typeof v.key === 'string' && typeof v.text === 'string';
