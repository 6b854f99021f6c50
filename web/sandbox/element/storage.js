// Learner progress (code and status per exercise) under one versioned, namespaced key, with export/import, reset and a
// pluggable adapter.
import { msg, joined, localizedError } from '../../i18n/index.js';
import { reportText, toMessage } from '../grade/index.js';

export const DEFAULT_STORAGE_KEY = 'ffn-lab:sandbox:v1';
const FORMAT = 'ffn-lab-sandbox-progress';
const VERSION = 1;

/*
 * Bounds on progress, whether it comes from an imported file or from what storage already holds when a
 * page loads. Each is checked before any work proportional to it: the text's length, then its nesting
 * and widths (one pass, shapeProblem) before JSON.parse, a code's characters before its lines are
 * counted. Together they keep every read, import and write to a few milliseconds (web/sandbox/element/README.md).
 */
export const PROGRESS_LIMITS = Object.freeze({
  textChars: 2_000_000, // the whole stored or imported JSON text
  exercises: 100, // entries in one file or store (the catalog has six)
  idChars: 64, // an exercise id: letters, digits, '_' and '-'
  codeChars: 100_000, // one exercise's code (the grader's own limit)
  codeLines: 5_000, // one exercise's code, in lines
  keyChars: 200, // the storage key
  depth: 3, // nesting in the text: progress, exercises, one exercise's fields (strings, numbers, booleans)
  members: Object.freeze([32, 1_000, 32]), // members of one object or array at depth 1, 2 and 3 of the text
});
const P = PROGRESS_LIMITS;
const ID = /^[\w-]{1,64}$/;
const MAX_HINTS = 100; // the element shows at most the exercise's own hints
const MAX_DATE_CHARS = 40;

/*
 * Every reason and error here is a message of the locale tables (web/i18n, namespace storage), said once: what the
 * store tells (problem, problemWith, codeProblem, lastImport's reasons) is a report's text { key, params, text }
 * (grade/report-text.js), which the element shows from key and params in its language (toMessage) and others read
 * as `text`; an error's message is its English and error.i18n the message.
 */
const say = (key, params) => msg(`storage.${key}`, params);
const fail = (Ctor, key, params) => localizedError(Ctor, `storage.${key}`, params);

/** An in-memory adapter with the Storage interface; also the fallback when localStorage is blocked. */
export function memoryStorage() {
  const map = new Map();
  return {
    getItem: (k) => (map.has(k) ? map.get(k) : null),
    setItem: (k, v) => void map.set(k, String(v)),
    removeItem: (k) => void map.delete(k),
  };
}

const shared = memoryStorage(); // one fallback per page, so elements sharing a key still agree

/** localStorage if it can be used (it throws in sandboxed iframes and with cookies blocked), else null. */
function browserStorage() {
  try {
    const s = globalThis.localStorage;
    if (!s) return null;
    const probe = `${DEFAULT_STORAGE_KEY}:probe`;
    s.setItem(probe, '1');
    s.removeItem(probe);
    return s;
  } catch {
    return null;
  }
}

/** A plain object as JSON.parse makes it (not an array). */
const isRecord = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const fmt = (n) => n.toLocaleString('en-US');
const quote = (s) => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);

// exercises is a null-prototype map, so ids such as __proto__ or constructor are plain keys.
function emptyState() {
  return { format: FORMAT, version: VERSION, exercises: Object.create(null) };
}

/**
 * Why `text` cannot be progress of the bounded shape, or null: one pass over it before JSON.parse, whose
 * time grows with nesting (two million characters of [[[...]]] take it most of a second). Counts the
 * depth and the members of each object or array, outside strings; whether it is JSON is JSON.parse's job.
 */
function shapeProblem(text) {
  const commas = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // a string: skip to its closing quote, past escaped characters
      for (i += 1; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i += 1;
        else if (d === 34) break;
      }
    } else if (c === 123 || c === 91) {
      depth += 1;
      if (depth > P.depth) return say('nested', { depth: String(P.depth) });
      commas[depth] = 0;
    } else if (c === 125 || c === 93) {
      depth -= 1;
    } else if (c === 44 && depth > 0 && ++commas[depth] >= P.members[depth - 1]) {
      return say('wide', { n: String(P.members[depth - 1]), depth: String(depth) });
    }
  }
  return null;
}

/** Lines in `s` (1 + newlines), counting no further than `stop`. */
function countLines(s, stop) {
  let n = 1;
  for (let i = s.indexOf('\n'); i !== -1 && n <= stop; i = s.indexOf('\n', i + 1)) n += 1;
  return n;
}

/** Why a code string breaks the bounds (a message), or null. Characters are checked before lines are counted. */
function codeWhy(code) {
  if (typeof code !== 'string') return say('codeType', { type: say(`types.${code === null ? 'null' : typeof code}`) });
  const { codeChars, codeLines } = PROGRESS_LIMITS;
  if (code.length > codeChars) return say('codeChars', { n: code.length, max: codeChars });
  if (countLines(code, codeLines) > codeLines) return say('codeLines', { max: codeLines });
  return null;
}

/** A store's message as a report's text { key, params, text } (grade/report-text.js), or null. */
const asText = (m) => (m ? reportText(m, Infinity) : null);

/** Why a code string breaks the bounds, a report's text { key, params, text }, or null. */
export const codeProblem = (code) => asText(codeWhy(code));

/** Each field of a progress entry: null when `v` is valid, else why not (a message). */
const FIELDS = {
  code: codeWhy,
  status: (v) => (v === 'passed' || v === 'attempted' ? null : say('status')),
  passedAt: (v) =>
    typeof v === 'string' && v.length <= MAX_DATE_CHARS ? null : say('passedAt', { max: String(MAX_DATE_CHARS) }),
  solutionShown: (v) => (typeof v === 'boolean' ? null : say('solutionShown')),
  hintsShown: (v) =>
    Number.isInteger(v) && v >= 0 && v <= MAX_HINTS ? null : say('hintsShown', { max: String(MAX_HINTS) }),
};

/**
 * One entry -> { entry, problems }: entry holds the valid fields (null when `e` is not an object or has
 * none), problems says why each other field was left out.
 */
function readEntry(e) {
  if (!isRecord(e)) return { entry: null, problems: [say('notObject')] };
  const entry = {};
  const problems = [];
  for (const name of Object.keys(FIELDS)) {
    if (!Object.hasOwn(e, name) || e[name] === undefined) continue;
    const v = e[name];
    const why = FIELDS[name](v);
    if (why) problems.push(why);
    else if (name !== 'solutionShown' || v) entry[name] = v;
  }
  return { entry: problems.length || Object.keys(entry).length ? entry : null, problems };
}

/**
 * Stored text -> { state, problem, reasons, keep }. Entries and fields beyond the bounds are left out
 * (named in problem; reasons maps each such exercise id to why; both messages). keep is true when the text may be good
 * data this version cannot read (too large, or a
 * newer version): it must not be overwritten.
 */
function parseStored(text) {
  const none = new Map();
  if (typeof text !== 'string' || !text) return { state: emptyState(), problem: null, reasons: none, keep: false };
  const unreadable = (why, keep = false) => ({ state: emptyState(), problem: why, reasons: none, keep });
  if (text.length > P.textChars) return unreadable(say('savedTooLong', { n: text.length, max: P.textChars }), true);
  const shape = shapeProblem(text);
  if (shape) return unreadable(say('savedShape', { why: shape }));
  let raw;
  try {
    raw = JSON.parse(text);
  } catch {
    return unreadable(say('savedNotJson'));
  }
  if (!isRecord(raw) || raw.format !== FORMAT || !isRecord(raw.exercises)) {
    return unreadable(say('savedNotProgress'));
  }
  if (raw.version !== VERSION) {
    const newer = typeof raw.version === 'number' && raw.version > VERSION;
    const v = String(raw.version).slice(0, 20);
    return unreadable(say('savedVersion', { v, current: String(VERSION) }), newer);
  }
  const state = emptyState();
  const ids = Object.keys(raw.exercises);
  const left = []; // what was left out, the first few named
  const reasons = new Map();
  let more = 0;
  const leave = (what) => (left.length < 3 ? left.push(what) : (more += 1));
  let n = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (n >= P.exercises) {
      more += ids.length - i;
      leave(say('beyond', { max: String(P.exercises) }));
      break;
    }
    if (!ID.test(id)) {
      leave(say('invalidId', { id: quote(id) }));
      continue;
    }
    const { entry, problems } = readEntry(raw.exercises[id]);
    if (entry) {
      state.exercises[id] = entry;
      n += 1;
    }
    if (problems.length) {
      leave(say(entry ? 'partOf' : 'entry', { id, problems: joined(problems) }));
      reasons.set(id, joined(problems));
    }
  }
  const named = joined(left, 'storage.comma');
  const problem = left.length ? say('leftOut', { named, more: more ? say('andMore', { n: String(more) }) : '' }) : null;
  return { state, problem, reasons, keep: false };
}

// The last text read per storage object and key, with what it parsed to: a page of several exercises
// reads the same text many times, and parses it once.
const parsed = new WeakMap();

function cached(backend) {
  let byKey = parsed.get(backend);
  if (!byKey) parsed.set(backend, (byKey = new Map()));
  return byKey;
}

/** What was just written needs no parsing when it is read back. */
function remember(backend, key, text, state) {
  const copy = emptyState();
  Object.assign(copy.exercises, state.exercises);
  cached(backend).set(key, { text, state: copy, problem: null, reasons: new Map(), keep: false });
}

function readStored(backend, key, text) {
  const byKey = cached(backend);
  let hit = byKey.get(key);
  if (!hit || hit.text !== text) {
    hit = { text, ...parseStored(text) };
    byKey.set(key, hit);
  }
  // A copy: callers change the state they get (update, reset, import) before writing it.
  const state = emptyState();
  Object.assign(state.exercises, hit.state.exercises);
  return { state, problem: hit.problem, reasons: hit.reasons, keep: hit.keep };
}

/**
 * createProgressStore({ storage, key }): storage is any object with getItem/setItem/removeItem
 * (default localStorage, falling back to memory when blocked), key defaults to 'ffn-lab:sandbox:v1'.
 */
export function createProgressStore({ storage, key = DEFAULT_STORAGE_KEY } = {}) {
  checkKey(key);
  const saved = savedProgress(storage, key);
  const store = {
    key,
    /** Whether progress survives a reload (false when storage is blocked). */
    get persistent() {
      return saved.persistent;
    },
    /** Why saved progress (or part of it) could not be read at the last read ({ key, params, text }), or null. */
    get problem() {
      return asText(saved.problem);
    },
    /** Why this exercise's saved progress was not (all) read: the whole text's problem, or its own; else null. */
    problemWith(id) {
      return asText(saved.reasons.get(id) ?? (saved.problem && !saved.reasons.size ? saved.problem : null));
    },
    /** What the last importJSON did: { imported, skipped: [{ id, reason }] }, each reason a text; or null. */
    lastImport: null,
    get(id) {
      const exercises = saved.read().exercises;
      return Object.hasOwn(exercises, id) ? exercises[id] : {};
    },
    /** Apply a patch; wrong fields are ignored (a code beyond the bounds is not saved), as is a 101st exercise. */
    update: (id, patch) => updateEntry(saved, id, patch),
    reset(id) {
      const state = saved.read();
      if (id === undefined) state.exercises = Object.create(null);
      else delete state.exercises[id];
      saved.write(state);
    },
    /** The whole progress as a JSON string (a learner can save it and import it elsewhere). */
    exportJSON() {
      return JSON.stringify(saved.read(), null, 2);
    },
    /**
     * Merge progress from exportJSON() output (or, with replace, use it instead); returns how many
     * exercises were imported. Entries with any field beyond the bounds are skipped, leaving that
     * exercise's saved progress as it was (see lastImport). Throws a clear error, changing nothing,
     * on anything else: text that is too long or not an export, too many exercises, no valid entry,
     * or a replace with skipped entries.
     */
    importJSON(text, { replace = false } = {}) {
      store.lastImport = null;
      store.lastImport = importInto(saved, text, replace);
      return store.lastImport.imported;
    },
  };
  return store;
}

function checkKey(key) {
  if (typeof key !== 'string' || !key) throw new TypeError('createProgressStore: key must be a non-empty string');
  if (key.length > P.keyChars) {
    throw new RangeError(`createProgressStore: key must be at most ${P.keyChars} characters; got ${fmt(key.length)}`);
  }
}

/**
 * Where progress lives: { read(), write(state), persistent, problem, reasons } over `storage` (or localStorage), which
 * turns to memory for the visit when storage fails, or when it holds text this version must not overwrite.
 */
function savedProgress(storage, key) {
  const saved = { backend: storage || browserStorage() || shared, problem: null, reasons: new Map() };
  saved.persistent = saved.backend !== shared;
  const toMemory = () => {
    saved.backend = shared;
    saved.persistent = false;
  };
  saved.read = () => {
    let got;
    try {
      got = readStored(saved.backend, key, saved.backend.getItem(key));
    } catch {
      toMemory();
      got = readStored(saved.backend, key, saved.backend.getItem(key));
    }
    saved.problem = got.problem;
    saved.reasons = got.reasons;
    // Stored text this version cannot read but must not destroy: work in memory from here on.
    if (got.keep) toMemory();
    return got.state;
  };
  saved.write = (state) => {
    const text = JSON.stringify(state);
    if (text.length > P.textChars) throw fail(RangeError, 'wouldBe', { n: text.length, max: P.textChars });
    try {
      saved.backend.setItem(key, text);
    } catch {
      // Quota exceeded or blocked mid-session: keep working in memory.
      toMemory();
      saved.backend.setItem(key, text);
    }
    remember(saved.backend, key, text, state);
  };
  return saved;
}

/** store.update: the entry after the patch, or as it was when the patch could not be saved. */
function updateEntry(saved, id, patch) {
  const state = saved.read();
  const known = Object.hasOwn(state.exercises, id);
  const before = known ? state.exercises[id] : {};
  if (!known && Object.keys(state.exercises).length >= P.exercises) return before; // full: not saved
  const next = { ...before, ...readEntry(patch).entry };
  if (isRecord(patch) && patch.solutionShown === false) delete next.solutionShown;
  state.exercises[id] = next;
  try {
    saved.write(state);
  } catch {
    return before; // over the size bound: the saved progress stays as it was
  }
  return next;
}

/** store.importJSON: writes the entries of `text` it accepts and returns { imported, skipped }, or throws. */
function importInto(saved, text, replace) {
  const { accepted, skipped } = sortEntries(readExport(text));
  const count = Object.keys(accepted).length;
  const first = skipped.length ? say('first', { id: skipped[0].id, reason: toMessage(skipped[0].reason) }) : '';
  if (skipped.length && !count) throw fail(RangeError, 'noEntry', { first });
  if (replace && skipped.length) throw fail(RangeError, 'cannotReplace', { n: skipped.length, first });
  if (replace && !count) throw fail(RangeError, 'replaceEmpty');
  const state = replace ? emptyState() : saved.read();
  Object.assign(state.exercises, accepted);
  const total = Object.keys(state.exercises).length;
  if (total > P.exercises) throw fail(RangeError, 'wouldHold', { total: String(total), max: String(P.exercises) });
  try {
    saved.write(state);
  } catch (e) {
    throw fail(RangeError, 'writeFailed', { message: e.i18n ? msg(e.i18n.key, e.i18n.params) : e.message });
  }
  return { imported: count, skipped };
}

/** An export's text -> its exercises object (at most P.exercises ids), or a clear error. */
function readExport(text) {
  if (typeof text !== 'string') {
    throw fail(TypeError, 'importType', { type: say(`types.${text === null ? 'null' : typeof text}`) });
  }
  if (text.length > P.textChars) throw fail(RangeError, 'importTooLong', { n: text.length, max: P.textChars });
  const shape = shapeProblem(text);
  if (shape) throw fail(TypeError, 'importShape', { why: shape });
  let raw;
  try {
    raw = JSON.parse(text);
  } catch {
    throw fail(TypeError, 'importNotJson');
  }
  if (!isRecord(raw) || raw.format !== FORMAT) throw fail(TypeError, 'importFormat', { format: FORMAT });
  if (raw.version !== VERSION) {
    throw fail(RangeError, 'importVersion', { v: String(raw.version).slice(0, 20), current: String(VERSION) });
  }
  if (!isRecord(raw.exercises)) throw fail(TypeError, 'importExercises');
  const n = Object.keys(raw.exercises).length; // at most 1,000: shapeProblem counted them
  if (n > P.exercises) throw fail(RangeError, 'importCount', { n, max: String(P.exercises) });
  return raw.exercises;
}

/** An export's exercises -> { accepted: { id: entry }, skipped: [{ id, reason }] }, reason a report's text. */
function sortEntries(exercises) {
  const accepted = Object.create(null);
  const skipped = [];
  for (const id of Object.keys(exercises)) {
    const badId = { entry: null, problems: [say('badId', { max: String(P.idChars) })] };
    const { entry, problems } = ID.test(id) ? readEntry(exercises[id]) : badId;
    if (entry && !problems.length) accepted[id] = entry;
    else {
      const reason = entry && problems.length > 1 ? joined(problems) : problems[0] || say('noProgress');
      skipped.push({ id: ID.test(id) ? id : quote(id), reason: asText(reason) });
    }
  }
  return { accepted, skipped };
}
