// Page-side checking of outputs: values from the worker's wire format, shapes and types, atol + rtol*|ref|.
import { isMessage } from '../../i18n/index.js';
import { CAPS, MAX_ITEMS, clip, fmtNum, fmtShapeBounded, listKeys, say, num } from './report-bounds.js';
import { product } from '../../shape.js';

export { fmtNum, fmtShapeBounded };

/*
 * Expected values are specs, one per return kind of the exercise format:
 *   { kind: 'tensor', data, shape }              floats, compared with the tolerance
 *   { kind: 'integers', data, shape, item?, order? }  integers (indices), compared exactly
 *   { kind: 'integer', value }                   an exact integer (parameter counts, widths)
 *   { kind: 'number', value }                    a float, compared with the tolerance
 *   { kind: 'object', entries: { key: spec } }
 */

/** Whether two shapes (arrays of sizes) are equal. */
export const sameShape = (a, b) => a.length === b.length && a.every((s, i) => s === b[i]);

/** Spec constructors. */
export const expect = {
  tensor: (t) => ({ kind: 'tensor', data: Float64Array.from(t.data), shape: Array.from(t.shape) }),
  integers: (data) => ({ kind: 'integers', data: Float64Array.from(data), shape: [data.length] }),
  integer: (value) => ({ kind: 'integer', value }),
  number: (value) => ({ kind: 'number', value }),
  object: (entries) => ({ kind: 'object', entries }),
};

/* ---------------- wire format -> checked values ---------------- */

/*
 * The page reads results the worker sent (runner.js has checked them against the wire format and the limits)
 * and values computed on the page (toWire). Either way each walk here checks a declared length against
 * MAX_ITEMS before reading an item, reads own fields only, and builds its text from capped pieces
 * (report-bounds.js), so its work and text are bounded whatever the value is.
 */
const own = (o, key) => Object.prototype.hasOwnProperty.call(o, key);
const isNode = (w) => w !== null && typeof w === 'object';
const MAX_RANK = 64; // nesting levels read as a tensor's dimensions (the wire allows far fewer)

/** The declared length of an array or typed array in the wire, or -1. */
function lengthOf(list) {
  if (Array.isArray(list) || ArrayBuffer.isView(list)) return list.length;
  return -1;
}

/** What a wire value is, for people (a message: report.wire.* in the locale tables). */
function describeWire(w) {
  if (!isNode(w)) return say('wire.nothing');
  switch (w.k) {
    case 'number':
      return say('wire.number', { v: num(w.v) });
    case 'typed': {
      const type = clip(w.type, CAPS.key);
      const n = num(lengthOf(w.data));
      return type ? say('wire.typed', { type, n }) : say('wire.typedArray', { n });
    }
    case 'array':
      return say('wire.array', { n: num(lengthOf(w.items)) });
    case 'object':
      return isNode(w.entries) ? say('wire.object', { keys: listKeys(Object.keys(w.entries)) }) : say('wire.malformed');
    case 'bad': {
      // what the worker said it is (a message protocol.js checked: report.worker.bad, else its text), or a text
      const what = isMessage(w.what) ? w.what : clip(w.what, CAPS.what);
      return String(what) ? what : say('wire.unreadable');
    }
    default:
      return say('wire.unknown');
  }
}

const tooMany = (n) => ({ problem: say('tooMany', { n: num(n), max: num(MAX_ITEMS) }) });

function nestedToTensor(w) {
  // A nested array of numbers (or of typed arrays at the last level) -> { data, shape } or a problem string.
  const shape = [];
  let cur = w;
  while (isNode(cur) && cur.k === 'array' && Array.isArray(cur.items)) {
    if (shape.length === MAX_RANK) return { problem: say('tooDeep', { max: MAX_RANK }) };
    const n = cur.items.length;
    if (n > MAX_ITEMS) return tooMany(n);
    shape.push(n);
    if (n === 0) break;
    cur = cur.items[0];
  }
  if (isNode(cur) && cur.k === 'typed' && lengthOf(cur.data) >= 0) shape.push(cur.data.length);
  const total = product(shape);
  if (total > MAX_ITEMS) return tooMany(total);
  // Every array is checked against the shape before its items are read, so the walk reads at most `total`
  // numbers and one node per array on the way to them.
  const out = new Float64Array(total);
  let at = 0;
  const walk = (node, depth) => {
    if (!isNode(node)) throw say('nested.hole');
    if (depth === shape.length) {
      if (node.k !== 'number' || typeof node.v !== 'number') {
        throw say('nested.notNumber', { what: describeWire(node) });
      }
      out[at++] = node.v;
      return;
    }
    if (node.k === 'typed' && depth === shape.length - 1) {
      if (lengthOf(node.data) !== shape[depth]) throw say('nested.ragged');
      for (let i = 0; i < shape[depth]; i++) out[at++] = +node.data[i];
      return;
    }
    if (node.k !== 'array' || lengthOf(node.items) !== shape[depth]) throw say('nested.ragged');
    for (let i = 0; i < shape[depth]; i++) walk(node.items[i], depth + 1);
  };
  try {
    walk(w, 0);
  } catch (e) {
    // what the walk threw: a message of its own, or an error a value the wire never carries made (a getter)
    const why = isMessage(e) ? e : clip(e && e.message, CAPS.what);
    return { problem: say('nestedBut', { what: describeWire(w), why }) };
  }
  return { data: out, shape };
}

/** The sizes of a shape in the wire (non-negative integers), or null. */
function sizesOf(s) {
  if (!isNode(s)) return null;
  const n = s.k === 'array' ? lengthOf(s.items) : s.k === 'typed' ? lengthOf(s.data) : -1;
  if (n < 0 || n > MAX_ITEMS) return null;
  const sizes = new Array(n);
  for (let i = 0; i < n; i++) {
    const v = s.k === 'typed' ? s.data[i] : isNode(s.items[i]) && s.items[i].k === 'number' ? s.items[i].v : NaN;
    if (!(Number.isInteger(v) && v >= 0)) return null;
    sizes[i] = v;
  }
  return sizes;
}

/** The numbers of a tensor's flat data in the wire, as a Float64Array, or a problem. */
function flatData(d) {
  const bad = { problem: say('badData', { what: describeWire(d) }) };
  if (!isNode(d)) return bad;
  const n = d.k === 'typed' ? lengthOf(d.data) : d.k === 'array' ? lengthOf(d.items) : -1;
  if (n < 0) return bad;
  if (n > MAX_ITEMS) return tooMany(n);
  if (d.k === 'typed') return { data: d.data instanceof Float64Array ? d.data : Float64Array.from(d.data) };
  const data = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const item = d.items[i];
    if (!isNode(item) || item.k !== 'number' || typeof item.v !== 'number') return bad;
    data[i] = item.v;
  }
  return { data };
}

function readTensor(w) {
  if (w.k === 'typed') {
    const d = flatData(w);
    return d.problem ? d : { data: d.data, shape: [d.data.length], flat: true };
  }
  if (w.k === 'array') return nestedToTensor(w);
  if (w.k === 'object' && isNode(w.entries) && own(w.entries, 'data') && own(w.entries, 'shape')) {
    const s = w.entries.shape;
    const shape = sizesOf(s);
    if (!shape) return { problem: say('badShape', { what: describeWire(s) }) };
    const d = flatData(w.entries.data);
    if (d.problem) return d;
    if (product(shape) !== d.data.length) {
      return {
        problem: say('sizeMismatch', { shape: fmtShapeBounded(shape), n: num(product(shape)), m: num(d.data.length) }),
      };
    }
    return { data: d.data, shape };
  }
  return { problem: say('notTensor', { what: describeWire(w) }) };
}

// One reading per wire value: the diagnosis compares the same output with every variant.
const tensors = new WeakMap();

/**
 * Accept {data, shape}, a nested array, or a typed array; return { data, shape } or { problem }. The result is
 * shared by every caller for the same wire value: read it, never change it.
 */
export function wireToTensor(w) {
  if (!isNode(w)) return { problem: say('returnedNothing') };
  let t = tensors.get(w);
  if (!t) {
    try {
      t = readTensor(w);
    } catch {
      t = { problem: say('unreadable') }; // a getter that throws, a revoked proxy
    }
    tensors.set(w, t);
  }
  return t;
}

/* ---------------- comparison ---------------- */

function multiIndex(flat, shape) {
  const idx = new Array(shape.length);
  for (let a = shape.length - 1; a >= 0; a--) {
    idx[a] = flat % shape[a];
    flat = Math.floor(flat / shape[a]);
  }
  return idx;
}

/** Whether got is within atol + rtol|exp| of exp (NaN matches NaN; infinities match themselves). */
export function closeEnough(got, exp, tol) {
  if (Number.isNaN(exp)) return Number.isNaN(got);
  if (Number.isNaN(got)) return false;
  if (!Number.isFinite(exp) || !Number.isFinite(got)) return got === exp;
  return Math.abs(got - exp) <= tol.atol + tol.rtol * Math.abs(exp);
}

function compareArrays(got, exp, shape, tol, exact) {
  let maxError = 0;
  let first = -1;
  for (let i = 0; i < exp.length; i++) {
    const g = got[i];
    const e = exp[i];
    const ok = exact ? g === e || (Number.isNaN(g) && Number.isNaN(e)) : closeEnough(g, e, tol);
    if (Number.isFinite(g) && Number.isFinite(e)) maxError = Math.max(maxError, Math.abs(g - e));
    else if (!ok) maxError = Infinity;
    if (!ok && first < 0) first = i;
  }
  const res = { pass: first < 0, maxError };
  if (first >= 0)
    res.mismatch = { index: multiIndex(first, shape), flatIndex: first, got: got[first], expected: exp[first] };
  return res;
}

const keysOf = (spec) => listKeys(Object.keys(spec.entries));

/** Levenshtein distance, for short keys only. */
function editDistance(a, b) {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

const SPARE_KEYS = 32; // returned keys considered as spellings of the missing ones
const LOOKALIKE_CHARS = 64; // longer keys are never a spelling of an expected key

/**
 * What an object result with missing keys gets told: the keys expected, the keys it has, and for each missing
 * key a returned one that looks like a spelling of it (dW_gate → dWGate, dwgate → dWGate, dWGat → dWGate).
 * At most SPARE_KEYS returned keys of at most LOOKALIKE_CHARS are compared, and every list is capped.
 */
export function keysProblem(expected, got) {
  return clip(String(keysMessage(expected, got)), CAPS.problem);
}

/** keysProblem's message (for the reader's language). */
function keysMessage(expected, got) {
  const norm = (k) => k.toLowerCase().replace(/[_\-\s]/g, '');
  const wanted = new Set(expected);
  const spare = [];
  for (const k of got) {
    if (spare.length === SPARE_KEYS) break;
    if (k.length <= LOOKALIKE_CHARS && !wanted.has(k)) spare.push(k); // a long key is never hashed
  }
  const missing = expected.filter((k) => !got.includes(k));
  const renames = [];
  for (const key of missing) {
    const like = spare.find((s) => norm(s) === norm(key)) ?? spare.find((s) => editDistance(s, key) <= 2);
    if (like !== undefined) {
      renames.push(`${clip(like, CAPS.key)} → ${clip(key, CAPS.key)}`);
      spare.splice(spare.indexOf(like), 1);
    }
  }
  const head = say('keysHead', { expected: listKeys(expected), got: got.length ? listKeys(got) : say('noKeys') });
  const more = renames.length > CAPS.keys ? ', …' : '';
  return renames.length
    ? say('keysRename', { head, renames: renames.slice(0, CAPS.keys).join(', ') + more })
    : say('keysMissing', { head, missing: listKeys(missing) });
}

/**
 * Compare a wire value with a spec. Returns { pass, maxError?, mismatch?, problem?, key? }; a problem is at most
 * CAPS.problem characters. A value that cannot be read (a getter that throws) is a problem, not an exception.
 */
export function compareValue(w, spec, tol) {
  if (!SPEC_KINDS.has(spec.kind)) throw new Error(`compareValue: unknown spec kind ${clip(spec.kind, CAPS.key)}`);
  let res;
  try {
    res = compareKind(w, spec, tol);
  } catch {
    res = { pass: false, problem: say('unreadable') };
  }
  // a message whose English is at most CAPS.problem characters (its pieces are cut where they are made), else
  // that English cut, as a text
  if (res.problem && (typeof res.problem === 'string' || String(res.problem).length > CAPS.problem)) {
    res.problem = clip(String(res.problem), CAPS.problem);
  }
  return res;
}

const missingKey = (key) => ({ pass: false, problem: say('keyMissing', { key: clip(key, CAPS.key) }) });

const SPEC_KINDS = new Set(['tensor', 'integers', 'integer', 'number', 'object']);
const isNumberNode = (w) => isNode(w) && w.k === 'number' && typeof w.v === 'number';

function compareKind(w, spec, tol) {
  switch (spec.kind) {
    case 'tensor':
    case 'integers': {
      const t = wireToTensor(w);
      if (t.problem) return { pass: false, problem: t.problem };
      if (!sameShape(t.shape, spec.shape)) {
        const flat = t.flat && t.data.length === spec.data.length && spec.shape.length > 1;
        const shapes = { got: fmtShapeBounded(t.shape), expected: fmtShapeBounded(spec.shape) };
        return { pass: false, problem: say(flat ? 'shapeFlat' : 'shape', shapes) };
      }
      if (spec.kind === 'integers') {
        for (let i = 0; i < t.data.length; i++) {
          if (!Number.isInteger(t.data[i])) return { pass: false, problem: say('notIndex', { v: num(t.data[i]), i }) };
        }
      }
      return compareArrays(t.data, spec.data, spec.shape, tol, spec.kind === 'integers');
    }
    case 'integer': {
      if (!isNumberNode(w)) return { pass: false, problem: say('notInteger', { what: describeWire(w) }) };
      const ok = w.v === spec.value;
      const res = { pass: ok, maxError: Number.isFinite(w.v) ? Math.abs(w.v - spec.value) : Infinity };
      if (!ok) res.mismatch = { index: [], flatIndex: 0, got: w.v, expected: spec.value };
      return res;
    }
    case 'number': {
      if (!isNumberNode(w)) return { pass: false, problem: say('notNumber', { what: describeWire(w) }) };
      return compareArrays([w.v], [spec.value], [], tol, false);
    }
    case 'object':
      return compareObject(w, spec, tol);
    default:
      throw new Error(`compareValue: unknown spec kind ${spec.kind}`);
  }
}

/** An object result: each expected key compared; the first wrong one (or the missing keys) is the problem. */
function compareObject(w, spec, tol) {
  if (!isNode(w) || w.k !== 'object' || !isNode(w.entries))
    return { pass: false, problem: say('notObject', { what: describeWire(w), keys: keysOf(spec) }) };
  const parts = {};
  let pass = true;
  let first = null;
  let maxError = 0;
  for (const [key, sub] of Object.entries(spec.entries)) {
    const r = own(w.entries, key) ? compareValue(w.entries[key], sub, tol) : missingKey(key);
    parts[key] = r;
    if (r.maxError !== undefined) maxError = Math.max(maxError, r.maxError);
    if (!r.pass) {
      pass = false;
      if (!first) first = { key, ...r };
    }
  }
  const res = { pass, maxError, parts };
  const expected = Object.keys(spec.entries);
  const missing = expected.filter((k) => !own(w.entries, k));
  if (missing.length) {
    res.missingKeys = missing;
    res.problem = keysMessage(expected, Object.keys(w.entries));
  } else if (first) {
    res.key = first.key;
    if (first.problem) res.problem = say('keyed', { key: clip(first.key, CAPS.key), problem: first.problem });
    if (first.mismatch) res.mismatch = first.mismatch;
  }
  return res;
}

/** The wire form of a value computed on the page (what the worker would send for the same value). */
export function toWire(v, depth = 0) {
  if (typeof v === 'number') return { k: 'number', v };
  if (depth > 8) return { k: 'bad', what: 'a value nested too deep' };
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
    if (v.length > MAX_ITEMS) return { k: 'bad', what: `a typed array of ${fmtNum(v.length)} numbers` };
    return { k: 'typed', type: clip(v.constructor.name, CAPS.key), data: Float64Array.from(v) };
  }
  if (Array.isArray(v)) {
    if (v.length > MAX_ITEMS) return { k: 'bad', what: `an array of ${fmtNum(v.length)} items` };
    const items = new Array(v.length);
    for (let i = 0; i < v.length; i++) items[i] = toWire(v[i], depth + 1); // a hole is undefined
    return { k: 'array', items };
  }
  if (v && typeof v === 'object') {
    const entries = {};
    for (const key of Object.keys(v)) {
      // defined, not assigned: a key "__proto__" is an entry like any other
      Object.defineProperty(entries, key, { value: toWire(v[key], depth + 1), enumerable: true, writable: true });
    }
    return { k: 'object', entries };
  }
  return { k: 'bad', what: v === undefined ? 'undefined' : v === null ? 'null' : `a ${typeof v}` };
}

/**
 * The spec of a value computed on the page (a reference output or a variant's), for a normalized return
 * kind. Tensors and integer arrays are accepted in every form learners may return them in. Throws an Error
 * saying what is wrong when the value does not have the kind.
 */
export function toSpec(value, kind) {
  switch (kind.kind) {
    case 'tensor':
    case 'integers': {
      const t = wireToTensor(toWire(value));
      if (t.problem) throw new Error(`${String(t.problem).replace(/^returned/, 'it is')} (declared ${kind.kind})`);
      if (kind.kind === 'integers') {
        if (!Array.from(t.data).every(Number.isInteger))
          throw new Error('it has a non-integer entry (declared integers)');
        return { ...kind, data: Float64Array.from(t.data), shape: Array.from(t.shape) };
      }
      return { kind: 'tensor', data: Float64Array.from(t.data), shape: Array.from(t.shape) };
    }
    case 'integer':
      if (!Number.isInteger(value))
        throw new Error(`it is ${describeWire(toWire(value))}, not an integer (declared integer)`);
      return { kind: 'integer', value };
    case 'number':
      if (typeof value !== 'number')
        throw new Error(`it is ${describeWire(toWire(value))}, not a number (declared number)`);
      return { kind: 'number', value };
    case 'object': {
      if (!value || typeof value !== 'object')
        throw new Error(`it is ${describeWire(toWire(value))}, not an object (declared an object)`);
      const entries = {};
      for (const [key, sub] of Object.entries(kind.entries)) {
        if (!(key in value)) throw new Error(`it has no key "${key}"`);
        try {
          entries[key] = toSpec(value[key], sub);
        } catch (e) {
          throw new Error(`${key}: ${e.message}`);
        }
      }
      return { kind: 'object', entries };
    }
    default:
      throw new Error(`unknown kind ${kind.kind}`);
  }
}

/** Whether two specs agree within the tolerance (used to know where a variant differs from the reference). */
export function specsAgree(a, b, tol) {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'object')
    return Object.keys(a.entries).every((k) => b.entries[k] && specsAgree(a.entries[k], b.entries[k], tol));
  if (a.kind === 'integer') return a.value === b.value;
  if (a.kind === 'number') return closeEnough(a.value, b.value, tol);
  if (!sameShape(a.shape, b.shape)) return false;
  for (let i = 0; i < a.data.length; i++) {
    if (a.kind === 'integers' ? a.data[i] !== b.data[i] : !closeEnough(a.data[i], b.data[i], tol)) return false;
  }
  return true;
}
