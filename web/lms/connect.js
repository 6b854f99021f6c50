// A SCO page's link to its LMS: the exercises' documented events (ffn-exercise-result, at the document) become SCORM
// interactions, objectives, score and statuses, committed after each Run; progress and code go to suspend_data.
import { findScormApi, scormSession } from './scorm-api.js';
import { SUSPEND_LIMITS, decodeSuspend, encodeSuspend } from './suspend.js';
import { lmsMessage } from './messages.js';
import {
  MODEL,
  hash,
  indexes,
  pageStorage,
  restoreProgress,
  resultValues,
  scormDuration,
  showNotice,
  slot,
  totalValues,
} from './scorm.js';

/** The start of the storage key a SCO's exercises save under: `${prefix}:${course}:${hash of the learner's id}`. */
export const SCORM_STORAGE_PREFIX = 'ffn-lab:scorm';

/** An in-memory adapter with the Storage interface, for a page whose localStorage is blocked. */
function memoryAdapter() {
  const map = new Map();
  return {
    getItem: (k) => (map.has(k) ? map.get(k) : null),
    setItem: (k, v) => void map.set(k, String(v)),
    removeItem: (k) => void map.delete(k),
  };
}

/** One notice at most per page, however many calls the LMS refuses; each problem is kept in `problems`. */
function problemReporter(notice, lang, problems) {
  let told = false;
  return (p) => {
    problems.push(p);
    if (told) return;
    told = true;
    const detail = [p.call, p.element, p.code && p.code !== '?' ? `error ${p.code}` : '', p.text].filter(Boolean);
    console.warn(`ffn-lab: the LMS refused ${detail.join(' ')}`);
    notice(lmsMessage('lmsProblem', { detail: detail.join(', ').slice(0, 200) }, lang));
  };
}

/**
 * Point the page's exercises at the learner's storage key (before they load their progress, when possible), and at
 * `memory` (an adapter) when the page cannot use localStorage.
 */
function useStorage(win, doc, key, memory) {
  for (const el of doc.querySelectorAll('ffn-exercise')) el.setAttribute('storage-key', key);
  if (!memory || !win.customElements) return;
  win.customElements.whenDefined('ffn-exercise').then(() => {
    for (const el of doc.querySelectorAll('ffn-exercise')) el.storage = storage;
  });
}

/** The learner's progress from suspend_data into the page's storage, under a key of this course and learner. */
function restore(win, doc, session, ctx, course) {
  const key = `${SCORM_STORAGE_PREFIX}:${course}:${hash(session.get(MODEL[ctx.version].learner))}`;
  const local = pageStorage(win);
  const storage = local ?? memoryAdapter();
  try {
    restoreProgress(storage, key, ctx.state);
  } catch {
    // storage full: the exercises keep what they had
  }
  useStorage(win, doc, key, local ? null : storage);
  return key;
}

/** What a session writes: each result (with the SCO's totals and suspend_data, then a commit), and its end. */
function sessionWriter(session, ctx) {
  const { version, state, ids } = ctx;
  const M = MODEL[version];
  const idx = indexes(session, version, state.o);
  const start = Date.now();
  const lastAt = new Map(); // exercise id -> when it was last run (ms), for the next result's latency
  const write = (values) => {
    if (ctx.review) return; // a review launch: the LMS keeps the attempt as it was
    for (const [k, v] of values) session.set(k, v);
  };
  let ended = false;
  write([...totalValues(version, ids, state.e), [M.exit, 'suspend']]);
  session.commit();
  return {
    /** Record one result (as ffn-exercise-result's detail) and the code it ran; commits. */
    record(id, result, code) {
      if (ended || typeof id !== 'string' || !result || result.status === 'setup') return;
      if (!ids.includes(id)) ids.push(id);
      const tests = Array.isArray(result.tests) ? result.tests : [];
      const now = new Date();
      const before = state.e[id];
      const entry = { s: result.passed || before?.s === 'p' ? 'p' : 'a' };
      const day = before?.d ?? (result.passed ? now.toISOString().slice(0, 10) : undefined);
      if (day) entry.d = day; // the day of the first pass
      Object.assign(entry, { t: tests.filter((t) => t && t.pass).length, n: tests.length });
      if (typeof code === 'string') entry.c = code;
      state.e[id] = entry;
      const latencyMs = now - (lastAt.get(id) ?? start);
      lastAt.set(id, +now);
      const at = { n: slot(idx.interactions, id), m: slot(idx.objectives, id), passed: !!result.passed, code, now };
      state.o = idx.interactions;
      write([...resultValues(version, id, entry, { ...at, latencyMs }), ...totalValues(version, ids, state.e)]);
      const { text } = encodeSuspend(state, SUSPEND_LIMITS[version]);
      if (text) write([['cmi.suspend_data', text]]);
      session.commit();
    },
    /** Session time, exit 'suspend', commit and terminate: once (on pagehide). */
    terminate() {
      if (ended) return;
      ended = true;
      write([
        [M.session, scormDuration(Date.now() - start, version)],
        [M.exit, 'suspend'],
      ]);
      session.commit();
      session.terminate();
    },
  };
}

/**
 * Connect the page to its LMS, if it has one. options: { window (default globalThis), version ('auto', '1.2' or
 * '2004'), course (a short id for the storage key, default 'sco'), exercises (ids; default the page's <ffn-exercise>
 * elements), notice (text) => void (default: a status line at the top of the page) }. Without an LMS API it returns
 * { connected: false } and does nothing else. Call it before the exercises load their progress (web/lms/sco.js).
 * Returns { connected, version, problems, storageKey, state, record(id, report, code), terminate() }.
 */
export function connectScorm(options = {}) {
  const win = options.window ?? globalThis;
  const doc = win.document;
  const ids = options.exercises
    ? [...options.exercises]
    : [...doc.querySelectorAll('ffn-exercise')].map((el) => el.getAttribute('exercise')).filter(Boolean);
  const problems = [];
  const lang = doc.documentElement.lang || 'en';
  const report = problemReporter(options.notice ?? ((text) => showNotice(doc, text)), lang, problems);
  const found = findScormApi(win, options.version ?? 'auto');
  const sco = { connected: false, version: found?.version ?? null, problems, storageKey: null };
  if (!found) return sco;
  const session = scormSession(found.api, found.version, report);
  if (!session.initialize()) return sco;
  const version = found.version;
  const state = decodeSuspend(session.get('cmi.suspend_data'), SUSPEND_LIMITS[version]);
  const review = session.get(version === '1.2' ? 'cmi.core.lesson_mode' : 'cmi.mode') === 'review';
  const ctx = { version, state, ids, review };
  const course = String(options.course ?? 'sco')
    .replace(/[^\w.-]/g, '_')
    .slice(0, 64);
  const storageKey = restore(win, doc, session, ctx, course);
  Object.assign(sco, { connected: true, storageKey, state }, sessionWriter(session, ctx));
  doc.addEventListener('ffn-exercise-result', (ev) => {
    const code = ev.target && typeof ev.target.code === 'string' ? ev.target.code : undefined;
    sco.record(ev.detail?.exercise, ev.detail?.report, code);
  });
  win.addEventListener('pagehide', () => sco.terminate());
  return sco;
}
