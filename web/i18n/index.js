// The interface language of the four elements: one table per locale, picked by `lang`.
import en from './en.js';

/*
 * A table is a nested object of namespaces (exercise, progress, storage, memory, plot, calculator, errors,
 * numbers) whose leaves are templates: '{name}' is replaced by a parameter; a leaf { one, other } (also zero, two,
 * few, many) is picked by Intl.PluralRules on the parameter n; a leaf may also be a function (params, locale) ->
 * string.
 * defineStrings(lang, table) adds a locale or overrides some keys of one; a key a table lacks falls back to the
 * built-in table of its language, then to English.
 */

const builtIn = new Map([['en', en]]); // primary tag -> the built-in table, once loaded
// The other built-in languages are loaded on first use (loadStrings; translator starts it), so that a page in
// English never downloads them: primary tag -> its loaders (the interface's table here, other modules add theirs).
const loaders = new Map([['fr', [() => import('./fr.js').then((m) => builtIn.set('fr', m.default))]]]);
const loads = new Map(); // primary tag -> the promise of its loaders, while loading and once loaded
const loaded = new Set(); // primary tags whose loaders have all resolved
const added = new Map(); // lowercased lang tag -> the page's table (merged over earlier calls for the same tag)
const merged = new Map(); // lowercased lang tag -> the table in use (built-in < page's), cached
const listeners = new Set();

const isLeafObject = (v) => v !== null && typeof v === 'object' && typeof v.other === 'string';
const isPlain = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !isLeafObject(v);

/** Deep merge of tables: b's leaves over a's. Arrays and plural leaves are replaced whole. */
function mergeTables(a, b) {
  const out = { ...a };
  for (const [k, v] of Object.entries(b || {})) {
    if (k === '__proto__' || k === 'constructor' || k === 'prototype') continue;
    out[k] = isPlain(v) && isPlain(a?.[k]) ? mergeTables(a[k], v) : v;
  }
  return out;
}

const MAX_TABLE_CHARS = 500000;

/** A language tag as defineStrings and the embed pages' ?lang= take it ("fr", "pt-BR"). */
export const LANG_TAG = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;

/**
 * Add or override the strings of one language, for every ffn-lab element on the page. `table` is a partial table
 * (see web/i18n/en.js for every key) or its JSON text; keys it lacks keep their built-in value. Elements already on
 * the page re-render in the new strings.
 */
export function defineStrings(lang, table) {
  if (typeof lang !== 'string' || !LANG_TAG.test(lang)) {
    throw new TypeError(
      'defineStrings: lang must be a language tag such as "fr" or "pt-BR"; ' +
        `got ${JSON.stringify(String(lang)).slice(0, 50)}`,
    );
  }
  let t = table;
  if (typeof t === 'string') {
    if (t.length > MAX_TABLE_CHARS)
      throw new RangeError(`defineStrings: the table is ${t.length} characters; at most ${MAX_TABLE_CHARS}`);
    try {
      t = JSON.parse(t);
    } catch (e) {
      throw new TypeError(`defineStrings: the table is not JSON (${e.message})`);
    }
  }
  if (!isPlain(t))
    throw new TypeError('defineStrings: table must be an object of namespaces ({ exercise: { run: "..." } })');
  const key = lang.toLowerCase();
  added.set(key, mergeTables(added.get(key), t));
  merged.clear();
  for (const fn of [...listeners]) fn(key);
}

const primaryOf = (lang) =>
  String(lang || '')
    .toLowerCase()
    .split('-')[0];

/**
 * Load the built-in strings of `lang`'s language (French: the interface's table and the built-in exercises' text);
 * resolves once they are in use, at once for English or a language ffn-lab has no table for. Every element on the
 * page then draws itself again, as after defineStrings. The elements call it themselves before they are ready;
 * call it before getStrings(lang) or a translator of your own.
 */
export function loadStrings(lang) {
  const p = primaryOf(lang);
  if (!loaders.has(p) || loaded.has(p)) return Promise.resolve();
  if (!loads.has(p)) {
    const all = Promise.all(loaders.get(p).map((load) => load())).then(() => {
      if (loads.get(p) !== all) return loadStrings(p); // a loader was added meanwhile
      loaded.add(p);
      merged.clear();
      for (const fn of [...listeners]) fn(p);
    });
    // a failed download is tried again by the next call
    all.catch(() => loads.get(p) === all && loads.delete(p));
    loads.set(p, all);
  }
  return loads.get(p);
}

/** Whether loadStrings(lang) has nothing left to load (true for English and languages without a table). */
export function stringsLoaded(lang) {
  const p = primaryOf(lang);
  return !loaders.has(p) || loaded.has(p);
}

/**
 * More built-in text of a language, loaded with its table by loadStrings (web/sandbox/exercises/index.js: the
 * built-in exercises' translations). load() resolves once the text is in use; it may be called more than once.
 */
export function addBuiltInStrings(lang, load) {
  const p = primaryOf(lang);
  if (!loaders.has(p)) throw new RangeError(`addBuiltInStrings: ${JSON.stringify(p)} is not a built-in language`);
  loaders.get(p).push(load);
  loaded.delete(p); // loaded before: the next loadStrings runs this one too (the others resolve at once)
  loads.delete(p);
}

/** Call fn(lang) whenever defineStrings changes a table; returns a function that stops it. */
export function onStringsChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The table in use for a language tag and the tag it was found under ('en' when nothing matches). */
function tableFor(lang) {
  const tag = String(lang || '').toLowerCase();
  const primary = tag.split('-')[0];
  for (const k of [tag, primary]) {
    if (!k || (!builtIn.has(k) && !added.has(k))) continue;
    if (!merged.has(k)) {
      // English, then the built-in table of the primary language, then the page's (primary, then full tag).
      const p = k.split('-')[0];
      let t = en;
      if (builtIn.has(p)) t = mergeTables(t, builtIn.get(p));
      if (p !== k && builtIn.has(k)) t = mergeTables(t, builtIn.get(k));
      if (added.has(p)) t = mergeTables(t, added.get(p));
      if (p !== k && added.has(k)) t = mergeTables(t, added.get(k));
      merged.set(k, t);
    }
    return { table: merged.get(k), found: k };
  }
  if (!merged.has('en')) merged.set('en', added.has('en') ? mergeTables(en, added.get('en')) : en);
  return { table: merged.get('en'), found: 'en' };
}

/** A copy of the table in use for `lang` (every key: English where the language has no string). */
export function getStrings(lang = 'en') {
  return structuredCloneTable(tableFor(lang).table);
}

function structuredCloneTable(t) {
  const out = {};
  for (const [k, v] of Object.entries(t))
    out[k] = isPlain(v) ? structuredCloneTable(v) : isLeafObject(v) ? { ...v } : v;
  return out;
}

/** The language of an element: its own `lang`, the nearest ancestor's (across shadow roots), then the page's. */
export function langOf(el) {
  for (let n = el; n;) {
    if (n.nodeType === 1) {
      const l = n.getAttribute('lang');
      if (l) return l;
    }
    n = n.parentNode || (n.nodeType === 11 ? n.host : null);
  }
  const doc = el && el.ownerDocument;
  return (doc && doc.documentElement && doc.documentElement.lang) || 'en';
}

const cache = new Map(); // `${locale}|${found}` -> translator, dropped when a table changes

/**
 * A translator for a language tag: { lang, locale, t(key, params), parts(key, params), fixed(v, digits),
 * small(v, digits), exp(v, digits), int(v), list(items), date(d) }. `locale` (for Intl) is the tag asked for when
 * its table was found, else the tag of the table used.
 */
export function translator(lang = 'en') {
  if (!stringsLoaded(lang)) loadStrings(lang).catch(() => {}); // English until then; the elements draw again
  const { table, found } = tableFor(lang);
  const asked = String(lang || 'en');
  const locale = safeLocale(asked.toLowerCase().split('-')[0] === found.split('-')[0] ? asked : found);
  const id = `${locale}|${found}`;
  if (cache.has(id) && cache.get(id).table === table) return cache.get(id);
  const tr = makeTranslator(table, locale, found);
  cache.set(id, tr);
  return tr;
}
onStringsChange(() => cache.clear());

function safeLocale(tag) {
  try {
    return Intl.getCanonicalLocales(tag)[0] || 'en';
  } catch {
    return 'en';
  }
}

function lookup(table, key) {
  let v = table;
  for (const part of key.split('.')) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, part)) return undefined;
    v = v[part];
  }
  return v;
}

/** key, params -> the table's template (English where the table has none; the plural form params.n selects). */
function templateOf(table, locale) {
  const plural = new Intl.PluralRules(locale);
  const ordinalRules = new Intl.PluralRules(locale, { type: 'ordinal' });
  const english = lookup.bind(null, en);
  return (key, params) => {
    let v = lookup(table, key);
    if (v === undefined) v = english(key);
    if (v === undefined) return key;
    if (typeof v === 'function') return v(params || {}, locale);
    if (isLeafObject(v)) {
      const n = params && typeof params.n === 'number' ? params.n : 0;
      const rules = params && params[ORDINAL] ? ordinalRules : plural;
      const cat = params && typeof params.n === 'number' ? rules.select(n) : 'other';
      v = (n === 0 && typeof v.zero === 'string' ? v.zero : v[cat]) ?? v.other;
    }
    return String(v);
  };
}

// The marks of the locales ffn-lab ships, as Intl gives them (decimal, minus, group): an element's first number in
// these needs no Intl.NumberFormat, whose first construction sets up the engine's number formatting (40-60 ms).
const EN_MARKS = ['.', '-', ','];
const FR_MARKS = [',', '-', '\u202f'];
const SHIPPED_MARKS = { en: EN_MARKS, 'en-US': EN_MARKS, 'en-GB': EN_MARKS, fr: FR_MARKS, 'fr-FR': FR_MARKS };

/**
 * v as Intl writes it with at most 6 decimals in en and fr, where that needs no rounding: |v| a safe integer or
 * less, and its shortest digits (String) with at most 6 decimals and no exponent; else null. -0 as Intl: "-0".
 */
function plainNumber(v, [decimal, minus, group]) {
  const m = Math.abs(v) <= Number.MAX_SAFE_INTEGER && /^(\d+)(?:\.(\d{1,6}))?$/.exec(String(Math.abs(v)));
  if (!m) return null;
  const sign = v < 0 || Object.is(v, -0) ? minus : '';
  return sign + m[1].replace(/\B(?=(\d{3})+$)/g, group) + (m[2] ? decimal + m[2] : '');
}

/**
 * The locale's number marks (marks() -> [decimal, minus, group]) and its integer and plain number formats. Each
 * Intl.NumberFormat is made on first use: for a shipped locale the marks and most numbers need none.
 */
function numberMarks(locale) {
  const formats = [];
  const nf = (digits) => (formats[digits] ??= new Intl.NumberFormat(locale, { maximumFractionDigits: digits }));
  const mark = (v, type, otherwise) =>
    nf(6)
      .formatToParts(v)
      .find((p) => p.type === type)?.value ?? otherwise;
  const shipped = Object.hasOwn(SHIPPED_MARKS, locale) ? SHIPPED_MARKS[locale] : null;
  let own = shipped;
  const marks = () => (own ||= [mark(1.5, 'decimal', '.'), mark(-1, 'minusSign', '-'), mark(1e6, 'group', ',')]);
  const format = (v, digits) => (shipped && plainNumber(v, shipped)) || nf(digits).format(v);
  const int = (v) => format(Math.round(v), 0);
  const num = (v) => format(v, Number.isInteger(v) ? 0 : 6);
  return { marks, int, num };
}

// The shipped locales' lists as Intl.ListFormat writes them (conjunction: separator, last separator, pair): an
// exercise's first drawing names its functions in a list, and the first Intl.ListFormat costs 30-40 ms.
const EN_LIST = [', ', ', and ', ' and '];
const FR_LIST = [', ', ' et ', ' et '];
const SHIPPED_LISTS = {
  en: EN_LIST,
  'en-US': EN_LIST,
  'en-GB': [', ', ' and ', ' and '],
  fr: FR_LIST,
  'fr-FR': FR_LIST,
};

/** items (strings) joined as a list in the locale: from SHIPPED_LISTS where it has one, else by Intl. */
function listOf(locale) {
  const shipped = Object.hasOwn(SHIPPED_LISTS, locale) ? SHIPPED_LISTS[locale] : null;
  let intl = null;
  return (items) => {
    const s = items.map(String);
    if (!shipped) return (intl ??= new Intl.ListFormat(locale, { type: 'conjunction' })).format(s);
    const [sep, last, pair] = shipped;
    if (s.length < 3) return s.join(pair);
    return s.slice(0, -1).join(sep) + last + s.at(-1);
  };
}

/** Numbers written with the marks: a report's numeral, fixed, exponent and small forms (t: the translator's t). */
function numberForms({ marks, int }, t) {
  /** A number a report wrote in English (`text`), with this language's integer grouping, decimal mark and minus. */
  const numeral = ({ v, text }) => {
    const [decimal, minus, group] = marks();
    if (typeof v !== 'number' || (decimal === '.' && group === ',')) return text;
    if (!Number.isFinite(v)) return special(v);
    if (Number.isInteger(v) && Math.abs(v) < 1e15) return int(v);
    return text.replace('.', decimal).replace(/-/g, minus);
  };
  const special = (v) => (Number.isNaN(v) ? 'NaN' : v > 0 ? t('numbers.infinity') : t('numbers.minusInfinity'));
  /**
   * v with exactly `digits` decimals (rounded as toFixed rounds the binary value, in every language), grouping off,
   * no sign on a value that rounds to zero, with the language's decimal mark and minus sign.
   */
  const fixed = (v, digits = 2) => {
    if (!Number.isFinite(v)) return special(v);
    let s = v.toFixed(digits);
    if (Number(s) === 0) s = (0).toFixed(digits);
    return s.replace('.', marks()[0]).replace('-', marks()[1]);
  };
  /** Exponent form, 1.2e-5 in English (the locale's decimal mark and minus sign elsewhere). */
  const exp = (v, digits = 1) => {
    if (!Number.isFinite(v)) return special(v);
    return v.toExponential(digits).replace('.', marks()[0]).replace(/-/g, marks()[1]);
  };
  /** Like fixed, but a value too small for `digits` decimals and not zero in exponent form. */
  const small = (v, digits = 2) =>
    v !== 0 && Number.isFinite(v) && Math.abs(v) < 0.5 * 10 ** -digits ? exp(v, 1) : fixed(v, digits);
  return { numeral, fixed, exp, small };
}

/** A template s filled as a list of strings and the parameters' own values (show(v): DOM nodes stay nodes). */
function fillParts(s, params, show) {
  const out = [];
  let last = 0;
  s.replace(/\{(\w+)\}/g, (m, name, at) => {
    if (!params || !(name in params)) return m;
    if (at > last) out.push(s.slice(last, at));
    const v = show(params[name]);
    out.push(typeof v === 'object' ? v : String(v));
    last = at + m.length;
    return m;
  });
  if (last < s.length) out.push(s.slice(last));
  return out;
}

function makeTranslator(table, locale, lang) {
  const template = templateOf(table, locale);
  const marks = numberMarks(locale);
  const { int, num } = marks;
  const { numeral, fixed, exp, small } = numberForms(marks, (key) => t(key));
  const show = (p) => {
    if (typeof p === 'number') return num(p);
    if (p instanceof Numeral) return numeral(p);
    if (p instanceof Ordinal) return t('numbers.ordinal', { n: p.n, [ORDINAL]: true });
    if (p === undefined || p === null) return '';
    if (p instanceof Message) return t(p.key, p.params);
    if (p instanceof Joined) return p.items.map((x) => String(show(x))).join(t(p.sep));
    if (Array.isArray(p)) return p.map((x) => String(show(x))).join(t('errors.listSep'));
    return p;
  };
  const t = (key, params) =>
    template(key, params).replace(/\{(\w+)\}/g, (m, name) =>
      params && name in params ? String(show(params[name])) : m,
    );
  /** Like t, but a list of strings and the parameters' own values (DOM nodes stay nodes). */
  const parts = (key, params) => fillParts(template(key, params), params, show);
  const list = listOf(locale);
  const date = (d, opts = { dateStyle: 'long' }) => d.toLocaleDateString(locale, opts);
  // the marks are worked out on first use (Intl only for a locale ffn-lab does not ship)
  const [decimal, minus] = [0, 1].map((i) => ({ get: () => marks.marks()[i], enumerable: true }));
  const tr = { lang, locale, table, t, parts, fixed, exp, small, int, num, list, date };
  return Object.defineProperties(tr, { decimal, minus });
}

/** A message to be put in the reader's language later: a parameter of another message, or an error's text. */
class Message {
  constructor(key, params) {
    this.key = key;
    this.params = params || {};
    Object.freeze(this);
  }
  /** The English text (where a message is used as a string). */
  toString() {
    return translator('en').t(this.key, this.params);
  }
}

const ORDINAL = Symbol('ordinal');

/** A number as a report writes it in English (text), shown in the reader's language (numeral(v, text)). */
class Numeral {
  constructor(v, text) {
    this.v = v;
    this.text = String(text);
    Object.freeze(this);
  }
  toString() {
    return this.text;
  }
}

/** numeral(v, text): a message parameter showing the number v, written `text` in English, in the reader's way. */
export function numeral(v, text = String(v)) {
  return new Numeral(v, text);
}

/** A position (1st, 2nd...) in the reader's language (key numbers.ordinal, chosen by the ordinal plural rules). */
class Ordinal {
  constructor(n) {
    this.n = n;
    Object.freeze(this);
  }
  toString() {
    return translator('en').t('numbers.ordinal', { n: this.n, [ORDINAL]: true });
  }
}

/** ordinal(n): a message parameter showing n as a position: "4th" in English, "4e" in French. */
export function ordinal(n) {
  return new Ordinal(n);
}

/** Items shown one after the other, separated by the text of the key `sep` (a parameter of a message). */
class Joined {
  constructor(items, sep) {
    this.items = items;
    this.sep = sep;
  }
  toString() {
    return this.items.map(String).join(translator('en').t(this.sep));
  }
}

/** joined(items, sepKey): a message parameter showing the items separated by the text of sepKey ('; ', ', '). */
export function joined(items, sep = 'errors.listSep') {
  return new Joined(items, sep);
}

/** Whether v is a message made by msg(). */
export function isMessage(v) {
  return v instanceof Message;
}

/** msg(key, params): a message whose text is looked up in the reader's table when shown. */
export function msg(key, params) {
  return new Message(key, params);
}

/**
 * An error whose message is the English text of `key` and that carries { key, params } as .i18n, so that an
 * element can show it in its own language. Ctor is TypeError or RangeError.
 */
export function localizedError(Ctor, key, params = {}) {
  const e = new Ctor(translator('en').t(key, params));
  e.i18n = { key, params };
  return e;
}

/** The message of an error in a translator's language (its own message when it carries no key). */
export function errorText(tr, err) {
  if (err && err.i18n && typeof err.i18n.key === 'string') return tr.t(err.i18n.key, err.i18n.params);
  return String((err && err.message) ?? err);
}

/**
 * Keep `el` in its language: calls relocalize() when the element's or an ancestor's `lang` changes, or when
 * defineStrings changes a table. Returns a function that stops it. One MutationObserver per document.
 */
export function watchLanguage(el, relocalize) {
  const doc = el.ownerDocument;
  const stopStrings = onStringsChange(() => relocalize());
  let entry = observers.get(doc);
  const View = doc && doc.defaultView;
  if (!entry && View && typeof View.MutationObserver === 'function') {
    entry = { els: new Map(), mo: null };
    entry.mo = new View.MutationObserver(() => {
      for (const [e, fn] of entry.els) fn();
    });
    entry.mo.observe(doc, { attributes: true, attributeFilter: ['lang'], subtree: true });
    observers.set(doc, entry);
  }
  let last = langOf(el);
  const check = () => {
    const now = langOf(el);
    if (now !== last) {
      last = now;
      relocalize();
    }
  };
  if (entry) entry.els.set(el, check);
  return () => {
    stopStrings();
    if (entry) {
      entry.els.delete(el);
      if (!entry.els.size) {
        entry.mo.disconnect();
        observers.delete(doc);
      }
    }
  };
}
const observers = new WeakMap(); // document -> { els: Map(element -> check), mo }

export const builtInLanguages = Object.freeze(['en', 'fr']);
