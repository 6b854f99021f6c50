// The memory lab's facts: the default country facts and the author format's parser (pure functions, no DOM).
import { localizedError as fail, msg } from '../../i18n/index.js';
import { checkLength, quote } from '../parse.js';
import { COUNTRY_ROWS } from './facts-countries.js';

/** At most this many facts, labels of at most MAX_LABEL characters, text of at most MAX_CHARS characters. */
export const MAX_FACTS = 4096;
export const MAX_LABEL = 64;
export const MAX_CHARS = MAX_FACTS * 200;

/** The relations of the default facts, in the order of COUNTRY_ROWS' columns (their names are translated). */
export const COUNTRY_RELATIONS = Object.freeze(['capital', 'continent', 'currency', 'language']);

/**
 * The default facts: for each country of countries-list (sorted by name), its capital, continent, first currency and
 * first language, each a fact { subject, relation, object }; a value the data leaves empty gives no fact.
 */
export function countryFacts() {
  const facts = [];
  for (const [name, ...values] of COUNTRY_ROWS) {
    values.forEach((object, j) => {
      if (object) facts.push({ subject: name, relation: COUNTRY_RELATIONS[j], object });
    });
  }
  return facts;
}

const FIELDS = ['subject', 'relation', 'object'];
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f|]/;

/** One label of a fact, trimmed and checked: 1 to MAX_LABEL characters, no control character nor "|". */
function label(value, field, where) {
  if (typeof value !== 'string') throw fail(TypeError, 'lab.err.fieldType', { where, field: fieldName(field) });
  const s = value.trim();
  if (!s) throw fail(RangeError, 'lab.err.fieldEmpty', { where, field: fieldName(field) });
  if (s.length > MAX_LABEL) {
    throw fail(RangeError, 'lab.err.fieldLong', {
      where,
      field: fieldName(field),
      label: quote(s),
      max: String(MAX_LABEL),
    });
  }
  if (CONTROL.test(s))
    throw fail(RangeError, 'lab.err.fieldChars', { where, field: fieldName(field), label: quote(s) });
  return s;
}

const fieldName = (field) => msg(`lab.err.${field}`);

/** The refusal of a list of n facts, more than MAX_FACTS. */
const tooMany = (n) => fail(RangeError, 'lab.err.count', { max: String(MAX_FACTS), n: String(n) });

/** How many of lines[from..] hold a fact (neither blank nor a # comment). */
function factLines(lines, from) {
  let n = 0;
  for (let i = from; i < lines.length; i++) {
    const t = lines[i].trim();
    if (t && !t.startsWith('#')) n++;
  }
  return n;
}

/** The facts of the author format's text: one a line, "subject | relation | object"; blank lines and # comments. */
function factsOfText(text) {
  const out = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '');
    const t = line.trim();
    if (!t || t.startsWith('#')) continue;
    const where = msg('lab.err.atLine', { line: String(i + 1) });
    const parts = line.split('|');
    if (parts.length !== 3) {
      throw fail(RangeError, 'lab.err.fields', { where, text: quote(t), n: String(parts.length) });
    }
    out.push({ where, fields: parts });
    if (out.length > MAX_FACTS) throw tooMany(out.length + factLines(lines, i + 1)); // the rest only counted
  }
  return out;
}

/** An item's subject, relation and object, each read once (a getter or proxy that throws: the item refused). */
function fieldsOf(f, where) {
  try {
    return FIELDS.map((k) => f[k]);
  } catch {
    throw fail(TypeError, 'lab.err.item', { where });
  }
}

/** The facts of an array of { subject, relation, object } or [subject, relation, object]. */
function factsOfArray(items) {
  if (items.length > MAX_FACTS) throw tooMany(items.length);
  const out = [];
  for (let i = 0; i < items.length; i++) {
    const f = items[i];
    const where = msg('lab.err.atItem', { i: String(i + 1) });
    if (Array.isArray(f) && f.length === 3) out.push({ where, fields: f });
    else if (f && typeof f === 'object' && !Array.isArray(f)) out.push({ where, fields: fieldsOf(f, where) });
    else throw fail(TypeError, 'lab.err.item', { where });
  }
  return out;
}

/**
 * The facts an author gives, checked: text (one fact a line, "Japan | capital | Tokyo"; blank lines and lines
 * starting with # are skipped) or an array of { subject, relation, object }. 1 to MAX_FACTS facts, each label 1 to
 * MAX_LABEL characters (trimmed) without "|" or control characters; one subject and relation may not have two
 * objects, nor may a fact be given twice. Throws a TypeError/RangeError naming the line (or item) otherwise.
 */
export function parseFacts(input) {
  let raw;
  if (typeof input === 'string') raw = factsOfText(checkLength('facts', input, MAX_CHARS));
  else if (Array.isArray(input)) raw = factsOfArray(input);
  else throw fail(TypeError, 'lab.err.type', { got: typeof input });
  if (!raw.length) throw fail(RangeError, 'lab.err.count', { max: String(MAX_FACTS), n: '0' });
  const seen = new Map(); // subject \u0000 relation -> { object, where }
  const facts = [];
  for (const { where, fields } of raw) {
    const [subject, relation, object] = fields.map((v, j) => label(v, FIELDS[j], where));
    const key = `${subject}\u0000${relation}`;
    const first = seen.get(key);
    if (first && first.object === object) throw fail(RangeError, 'lab.err.repeat', { where, first: first.where });
    if (first) {
      throw fail(RangeError, 'lab.err.contradiction', {
        where,
        first: first.where,
        subject: quote(subject),
        relation: quote(relation),
        object: quote(object),
        other: quote(first.object),
      });
    }
    seen.set(key, { object, where });
    facts.push({ subject, relation, object });
  }
  return facts;
}

/** The facts in the author format, one a line. */
export function formatFacts(facts) {
  return facts.map((f) => `${f.subject} | ${f.relation} | ${f.object}`).join('\n');
}

/**
 * Ids for the trainer: subjects, relations and objects each listed once in order of first appearance, and the
 * facts as triples (subject id, relation id, object id) in an Int32Array of 3 N.
 */
export function indexFacts(facts) {
  const lists = { subjects: [], relations: [], objects: [] };
  const ids = { subjects: new Map(), relations: new Map(), objects: new Map() };
  const idOf = (kind, name) => {
    let id = ids[kind].get(name);
    if (id === undefined) {
      id = lists[kind].length;
      ids[kind].set(name, id);
      lists[kind].push(name);
    }
    return id;
  };
  const triples = new Int32Array(facts.length * 3);
  facts.forEach((f, n) => {
    triples[3 * n] = idOf('subjects', f.subject);
    triples[3 * n + 1] = idOf('relations', f.relation);
    triples[3 * n + 2] = idOf('objects', f.object);
  });
  return { facts, triples, ...lists, objectId: ids.objects, subjectId: ids.subjects };
}
