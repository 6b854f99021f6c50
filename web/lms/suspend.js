// The learner's progress in a SCO's suspend_data: written to fit the version's limit (plain JSON, else deflated, else
// with the code cut), and read back with every field checked.
import { deflateSync, inflateSync, strToU8, strFromU8 } from 'fflate';

/** suspend_data's size per version, in characters (1.2: CMIString4096; 2004 4th edition: 64,000). */
export const SUSPEND_LIMITS = Object.freeze({ 1.2: 4096, 2004: 64000 });

const ID = /^[\w-]{1,64}$/;
const MAX_CODE = 100_000; // the sandbox's own bound on one exercise's code
const MAX_EXERCISES = 100;
const ZIP = 'z1:'; // deflated JSON, base64

const isRecord = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function toBase64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function fromBase64(text) {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** The shortest of the plain and the deflated text of `state`. */
function shortest(state) {
  const json = JSON.stringify({ v: 1, ...state });
  const z = ZIP + toBase64(deflateSync(strToU8(json), { level: 9 }));
  return z.length < json.length ? z : json;
}

/** `s` cut to at most n UTF-16 units, never inside a surrogate pair. */
export function cutText(s, n) {
  if (s.length <= n) return s;
  const end = n > 0 && /[\uD800-\uDBFF]/.test(s[n - 1]) ? n - 1 : n;
  return s.slice(0, end);
}

/**
 * state { o: [exercise ids in their interactions' order], e: { id: { s: 'p' | 'a', c: code, t: tests passed, n: tests,
 * x: 1 when c was cut, d: the day of the first pass } } } -> { text, cut: [ids whose code was cut] }, text at most
 * `limit` characters. The longest code is halved until the text fits; without any code it always fits for the SCOs
 * the command builds.
 */
export function encodeSuspend(state, limit) {
  const e = Object.create(null); // ids such as __proto__ stay plain keys
  for (const [id, v] of Object.entries(state.e || {})) e[id] = { ...v };
  const cut = new Set();
  for (;;) {
    const text = shortest({ o: state.o || [], e });
    if (text.length <= limit) return { text, cut: [...cut] };
    const longest = Object.keys(e)
      .filter((id) => e[id].c)
      .sort((a, b) => e[b].c.length - e[a].c.length)[0];
    if (!longest) return { text: '', cut: [...cut] }; // not even the statuses fit: write nothing rather than be refused
    const c = e[longest].c;
    e[longest].c = c.length < 64 ? '' : cutText(c, c.length >> 1);
    if (!e[longest].c) delete e[longest].c;
    e[longest].x = 1;
    cut.add(longest);
  }
}

const FIELDS = {
  s: (v) => v === 'p' || v === 'a',
  c: (v) => typeof v === 'string' && v.length <= MAX_CODE,
  t: (v) => Number.isInteger(v) && v >= 0 && v <= 1e6,
  n: (v) => Number.isInteger(v) && v >= 0 && v <= 1e6,
  x: (v) => v === 1,
  d: (v) => typeof v === 'string' && /^\d{4}-\d\d-\d\d$/.test(v),
};

/** suspend_data text -> state as encodeSuspend takes it (empty when the text is not ours); each field checked. */
export function decodeSuspend(text, limit = SUSPEND_LIMITS[2004]) {
  const empty = { o: [], e: Object.create(null) };
  if (typeof text !== 'string' || !text || text.length > limit) return empty;
  let raw;
  try {
    const json = text.startsWith(ZIP) ? strFromU8(inflateSync(fromBase64(text.slice(ZIP.length)))) : text;
    if (json.length > 4 * MAX_CODE * MAX_EXERCISES) return empty;
    raw = JSON.parse(json);
  } catch {
    return empty;
  }
  if (!isRecord(raw) || raw.v !== 1 || !isRecord(raw.e)) return empty;
  const out = { o: [], e: Object.create(null) };
  for (const [id, v] of Object.entries(raw.e).slice(0, MAX_EXERCISES)) {
    if (!ID.test(id) || !isRecord(v)) continue;
    const entry = {};
    for (const [k, ok] of Object.entries(FIELDS)) if (Object.hasOwn(v, k) && ok(v[k])) entry[k] = v[k];
    if (entry.s) out.e[id] = entry;
  }
  if (Array.isArray(raw.o)) out.o = raw.o.filter((id) => typeof id === 'string' && ID.test(id)).slice(0, MAX_EXERCISES);
  return out;
}
