// What a SCO writes to each SCORM version's data model: an exercise's interaction and objective, the SCO's totals,
// and the page's saved progress merged with what suspend_data brought back.
import { cutText } from './suspend.js';

/** Each version's data-model elements used here, and its limits on an interaction's learner response. */
export const MODEL = {
  1.2: {
    learner: 'cmi.core.student_id',
    score: 'cmi.core.score',
    exit: 'cmi.core.exit',
    session: 'cmi.core.session_time',
    response: 'student_response',
    responseChars: 255,
    wrong: 'wrong',
  },
  2004: {
    learner: 'cmi.learner_id',
    score: 'cmi.score',
    exit: 'cmi.exit',
    session: 'cmi.session_time',
    response: 'learner_response',
    responseChars: 4000,
    wrong: 'incorrect',
  },
};

const PROGRESS_FORMAT = 'ffn-lab-sandbox-progress'; // web/sandbox/storage.js's documented export format, version 1
const MAX_INDEX = 1000; // the most interactions or objectives read back from the LMS

const pad = (n, w = 2) => String(Math.floor(n)).padStart(w, '0');

/** A duration in ms as each version writes it: 1.2 HHHH:MM:SS.SS, 2004 PT<s>S. */
export function scormDuration(ms, version) {
  const s = Math.max(0, ms) / 1000;
  if (version === '2004') return `PT${s.toFixed(2)}S`;
  const sec = (s % 60).toFixed(2).padStart(5, '0');
  return `${pad(s / 3600, 4)}:${pad((s / 60) % 60)}:${sec === '60.00' ? '59.99' : sec}`;
}

/** Text for a one-line data-model string: line breaks as ↵, no leading '{' (a 2004 language tag), cut to n. */
export function oneLine(text, n) {
  const flat = String(text).replace(/\r\n|[\r\n\u2028\u2029]/g, '\u21b5');
  return cutText(flat.startsWith('{') ? ` ${flat}` : flat, n);
}

/** A short stable hash of a string (FNV-1a, 32 bits, base 36): the learner's id in the storage key. */
export function hash(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}

/** localStorage if usable, else null (sandboxed frames, blocked cookies). */
export function pageStorage(win) {
  try {
    const s = win.localStorage;
    s.setItem('ffn-lab:lms:probe', '1');
    s.removeItem('ffn-lab:lms:probe');
    return s;
  } catch {
    return null;
  }
}

/**
 * Merge what suspend_data holds into the page's saved progress under `key` (the sandbox's export format): the LMS's
 * code wins unless it was cut and the page has code; a pass is kept from either.
 */
export function restoreProgress(storage, key, suspend) {
  let saved = null;
  try {
    saved = JSON.parse(storage.getItem(key) || 'null');
  } catch {
    saved = null;
  }
  const ok = saved && saved.format === PROGRESS_FORMAT && saved.version === 1 && saved.exercises;
  if (!ok || typeof saved.exercises !== 'object') saved = { format: PROGRESS_FORMAT, version: 1, exercises: {} };
  const exercises = Object.assign(Object.create(null), saved.exercises);
  for (const [id, v] of Object.entries(suspend.e)) {
    const local = { ...exercises[id] };
    if (v.c !== undefined && !(v.x && local.code)) local.code = v.c;
    if (v.s === 'p' && !local.passedAt) local.passedAt = v.d ? `${v.d}T12:00:00.000Z` : new Date().toISOString();
    if (!local.status) local.status = v.s === 'p' ? 'passed' : 'attempted';
    exercises[id] = local;
  }
  storage.setItem(key, JSON.stringify({ ...saved, exercises }));
}

/** Where each exercise's interaction and objective sit: read back from the LMS where readable, else suspend_data. */
export function indexes(session, version, order) {
  const read = (collection, readable) => {
    const count = Math.min(Number(session.get(`cmi.${collection}._count`)) || 0, MAX_INDEX);
    const ids = [];
    for (let n = 0; n < count; n++) ids.push(readable ? session.get(`cmi.${collection}.${n}.id`) : (order[n] ?? ''));
    return ids;
  };
  return { interactions: read('interactions', version === '2004'), objectives: read('objectives', true) };
}

export const slot = (ids, id) => (ids.includes(id) ? ids.indexOf(id) : ids.push(id) - 1);

/**
 * The values that record one exercise's result at interaction n (this run: passed, code) and objective m (entry as in
 * suspend_data: passed once, tests passed t over tests n).
 */
export function resultValues(version, id, entry, { n, m, passed, code, latencyMs, now }) {
  const M = MODEL[version];
  const i = `cmi.interactions.${n}`;
  const o = `cmi.objectives.${m}`;
  const ok = entry.s === 'p';
  const big = entry.n > 100 && version === '1.2'; // 1.2 scores are 0 to 100
  const raw = big ? Math.round((100 * entry.t) / entry.n) : entry.t;
  const v = [
    [`${i}.id`, id],
    [`${i}.type`, version === '2004' ? 'long-fill-in' : 'performance'],
    [`${i}.objectives.0.id`, id],
    version === '2004' ? [`${i}.timestamp`, now.toISOString().replace(/(\.\d\d)\dZ$/, '$1Z')] : null,
    version === '1.2'
      ? [`${i}.time`, `${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}`]
      : null,
    [`${i}.weighting`, '1'],
    [`${i}.${M.response}`, oneLine(code ?? '', M.responseChars)],
    [`${i}.result`, passed ? 'correct' : M.wrong],
    [`${i}.latency`, scormDuration(latencyMs, version)],
    version === '2004' ? [`${i}.description`, oneLine(`${id}: ${entry.t}/${entry.n} tests passed`, 250)] : null,
    [`${o}.id`, id],
    [`${o}.score.raw`, raw],
    [`${o}.score.min`, 0],
    [`${o}.score.max`, big ? 100 : entry.n],
  ];
  if (version === '2004') {
    v.push([`${o}.score.scaled`, entry.n ? +(entry.t / entry.n).toFixed(4) : 0]);
    v.push([`${o}.success_status`, ok ? 'passed' : 'failed'], [`${o}.completion_status`, 'completed']);
  } else v.push([`${o}.status`, ok ? 'passed' : 'failed']);
  return v.filter(Boolean);
}

/**
 * The SCO's totals: score = exercises passed (at least once) over exercises in the SCO, in percent (raw 0 to 100, as
 * Moodle and most LMSs read a SCO's raw score; 2004 also scaled 0 to 1); complete when every exercise
 * was run, passed when every one passed (1.2: lesson_status passed, failed once all were run, else incomplete).
 */
export function totalValues(version, ids, e) {
  const total = ids.length;
  const passed = ids.filter((id) => e[id]?.s === 'p').length;
  const run = ids.filter((id) => e[id]).length;
  const done = total > 0 && run === total;
  const pass = total > 0 && passed === total;
  const M = MODEL[version];
  const v = [
    [`${M.score}.raw`, total ? +((100 * passed) / total).toFixed(2) : 0],
    [`${M.score}.min`, 0],
    [`${M.score}.max`, 100],
  ];
  if (version === '1.2') v.push(['cmi.core.lesson_status', pass ? 'passed' : done ? 'failed' : 'incomplete']);
  else {
    v.push([`${M.score}.scaled`, total ? +(passed / total).toFixed(4) : 0]);
    v.push(['cmi.completion_status', done ? 'completed' : 'incomplete']);
    v.push(['cmi.success_status', pass ? 'passed' : done ? 'failed' : 'unknown']);
    v.push(['cmi.progress_measure', total ? +(run / total).toFixed(4) : 0]);
  }
  return v;
}

/** Show `text` once at the top of the page, as a status line the learner can read and dismiss by reading on. */
export function showNotice(doc, text) {
  const p = doc.createElement('p');
  p.className = 'ffn-lab-lms-notice';
  p.setAttribute('role', 'status');
  p.textContent = text;
  (doc.querySelector('main') || doc.body).prepend(p);
}
