// Page-side checking of outputs: values from the worker's wire format, shapes and types, atol + rtol*|ref|.

/*
 * Expected values are specs, one per return kind of the exercise format:
 *   { kind: 'tensor', data, shape }              floats, compared with the tolerance
 *   { kind: 'integers', data, shape, item?, order? }  integers (indices), compared exactly
 *   { kind: 'integer', value }                   an exact integer (parameter counts, widths)
 *   { kind: 'number', value }                    a float, compared with the tolerance
 *   { kind: 'object', entries: { key: spec } }
 */

export const fmtShape = (shape) => `[${shape.join(',')}]`;

/** Whether two shapes (arrays of sizes) are equal. */
export const sameShape = (a, b) => a.length === b.length && a.every((s, i) => s === b[i]);

function product(shape) {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

export function fmtNum(v) {
  if (typeof v !== 'number') return String(v);
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return v.toLocaleString('en-US');
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(4).replace(/\.?0+e/, 'e');
  return String(Number(v.toPrecision(7)));
}

/** Spec constructors. */
export const expect = {
  tensor: (t) => ({ kind: 'tensor', data: Float64Array.from(t.data), shape: Array.from(t.shape) }),
  integers: (data) => ({ kind: 'integers', data: Float64Array.from(data), shape: [data.length] }),
  integer: (value) => ({ kind: 'integer', value }),
  number: (value) => ({ kind: 'number', value }),
  object: (entries) => ({ kind: 'object', entries }),
};

/* ---------------- wire format -> checked values ---------------- */

function describeWire(w) {
  if (!w || typeof w !== 'object') return 'nothing';
  switch (w.k) {
    case 'number':
      return `the number ${fmtNum(w.v)}`;
    case 'typed':
      return `a ${w.type} of length ${w.data.length}`;
    case 'array':
      return `an array of length ${w.items.length}`;
    case 'object':
      return `an object with keys {${Object.keys(w.entries).join(', ')}}`;
    case 'bad':
      return String(w.what);
    default:
      return 'an unknown value';
  }
}

function nestedToTensor(w) {
  // A nested array of numbers (or of typed arrays at the last level) -> { data, shape } or a problem string.
  const shape = [];
  let cur = w;
  while (cur && cur.k === 'array') {
    shape.push(cur.items.length);
    if (cur.items.length === 0) break;
    cur = cur.items[0];
  }
  if (cur && cur.k === 'typed') shape.push(cur.data.length);
  const out = [];
  const walk = (node, depth) => {
    if (depth === shape.length) {
      if (node.k !== 'number') throw new Error(`found ${describeWire(node)} where a number was expected`);
      out.push(node.v);
      return;
    }
    if (node.k === 'typed' && depth === shape.length - 1) {
      if (node.data.length !== shape[depth]) throw new Error('the nested array is ragged');
      for (const v of node.data) out.push(v);
      return;
    }
    if (node.k !== 'array' || node.items.length !== shape[depth]) throw new Error('the nested array is ragged');
    for (const item of node.items) walk(item, depth + 1);
  };
  try {
    walk(w, 0);
  } catch (e) {
    return { problem: `returned ${describeWire(w)}, but ${e.message}` };
  }
  return { data: Float64Array.from(out), shape };
}

/** Accept {data, shape}, a nested array, or a typed array; return { data, shape } or { problem }. */
export function wireToTensor(w) {
  if (!w || typeof w !== 'object') return { problem: 'returned nothing' };
  if (w.k === 'typed') return { data: w.data, shape: [w.data.length], flat: true };
  if (w.k === 'array') return nestedToTensor(w);
  if (w.k === 'object' && w.entries.data && w.entries.shape) {
    const s = w.entries.shape;
    let shape;
    if (s.k === 'array' && s.items.every((i) => i.k === 'number' && Number.isInteger(i.v) && i.v >= 0))
      shape = s.items.map((i) => i.v);
    else if (s.k === 'typed' && Array.from(s.data).every((v) => Number.isInteger(v) && v >= 0))
      shape = Array.from(s.data);
    else return { problem: `returned a tensor whose shape is ${describeWire(s)}, not a list of sizes` };
    const d = w.entries.data;
    let data;
    if (d.k === 'typed') data = d.data;
    else if (d.k === 'array' && d.items.every((i) => i.k === 'number')) data = Float64Array.from(d.items, (i) => i.v);
    else return { problem: `returned a tensor whose data is ${describeWire(d)}, not a flat list of numbers` };
    if (product(shape) !== data.length) {
      return {
        problem:
          `returned a tensor with shape ${fmtShape(shape)} (${product(shape)} numbers) ` +
          `but ${data.length} numbers in data`,
      };
    }
    return { data, shape };
  }
  return { problem: `returned ${describeWire(w)}; expected a tensor {data, shape} or a nested array` };
}

/* ---------------- comparison ---------------- */

function multiIndex(flat, shape) {
  const idx = [];
  for (let a = shape.length - 1; a >= 0; a--) {
    idx.unshift(flat % shape[a]);
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

const keysOf = (spec) => Object.keys(spec.entries).join(', ');

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

const MAX_KEYS_SHOWN = 12;
const shortKey = (k) => (k.length > 40 ? `${k.slice(0, 40)}…` : k);
const listKeys = (keys) =>
  keys.slice(0, MAX_KEYS_SHOWN).map(shortKey).join(', ') +
  (keys.length > MAX_KEYS_SHOWN ? `, … (${keys.length} keys)` : '');

/**
 * What an object result with missing keys gets told: the keys expected, the keys it has, and for each missing
 * key a returned one that looks like a spelling of it (dW_gate → dWGate, dwgate → dWGate, dWGat → dWGate).
 */
export function keysProblem(expected, got) {
  const norm = (k) => k.toLowerCase().replace(/[_\-\s]/g, '');
  const spare = got.filter((k) => !expected.includes(k)).slice(0, 32);
  const renames = [];
  for (const key of expected.filter((k) => !got.includes(k))) {
    const like =
      spare.find((s) => norm(s) === norm(key)) ?? spare.find((s) => s.length <= 64 && editDistance(s, key) <= 2);
    if (like !== undefined) {
      renames.push(`${shortKey(like)} → ${key}`);
      spare.splice(spare.indexOf(like), 1);
    }
  }
  const missing = expected.filter((k) => !got.includes(k));
  const head = `expected keys ${listKeys(expected)}; got ${got.length ? listKeys(got) : 'no keys'}`;
  return renames.length ? `${head}: rename ${renames.join(', ')}` : `${head}: ${listKeys(missing)} missing`;
}

/** Compare a wire value with a spec. Returns { pass, maxError?, mismatch?, problem?, key? }. */
export function compareValue(w, spec, tol) {
  switch (spec.kind) {
    case 'tensor':
    case 'integers': {
      const t = wireToTensor(w);
      if (t.problem) return { pass: false, problem: t.problem };
      if (!sameShape(t.shape, spec.shape)) {
        const flatHint =
          t.flat && t.data.length === spec.data.length && spec.shape.length > 1
            ? ' (a flat array: wrap it as {data, shape})'
            : '';
        return {
          pass: false,
          problem: `returned shape ${fmtShape(t.shape)}, expected ${fmtShape(spec.shape)}${flatHint}`,
        };
      }
      if (spec.kind === 'integers') {
        for (let i = 0; i < t.data.length; i++) {
          if (!Number.isInteger(t.data[i]))
            return { pass: false, problem: `returned ${fmtNum(t.data[i])} at position ${i}; expected integer indices` };
        }
      }
      return compareArrays(t.data, spec.data, spec.shape, tol, spec.kind === 'integers');
    }
    case 'integer': {
      if (!w || w.k !== 'number')
        return { pass: false, problem: `returned ${describeWire(w)}; expected a whole number` };
      const ok = w.v === spec.value;
      const res = { pass: ok, maxError: Number.isFinite(w.v) ? Math.abs(w.v - spec.value) : Infinity };
      if (!ok) res.mismatch = { index: [], flatIndex: 0, got: w.v, expected: spec.value };
      return res;
    }
    case 'number': {
      if (!w || w.k !== 'number') return { pass: false, problem: `returned ${describeWire(w)}; expected a number` };
      return compareArrays([w.v], [spec.value], [], tol, false);
    }
    case 'object': {
      if (!w || w.k !== 'object')
        return {
          pass: false,
          problem: `returned ${describeWire(w)}; expected an object with keys {${keysOf(spec)}}`,
        };
      const parts = {};
      let pass = true;
      let first = null;
      let maxError = 0;
      for (const [key, sub] of Object.entries(spec.entries)) {
        const r = Object.prototype.hasOwnProperty.call(w.entries, key)
          ? compareValue(w.entries[key], sub, tol)
          : { pass: false, problem: `the key "${key}" is missing` };
        parts[key] = r;
        if (r.maxError !== undefined) maxError = Math.max(maxError, r.maxError);
        if (!r.pass) {
          pass = false;
          if (!first) first = { key, ...r };
        }
      }
      const res = { pass, maxError, parts };
      const expected = Object.keys(spec.entries);
      const missing = expected.filter((k) => !Object.prototype.hasOwnProperty.call(w.entries, k));
      if (missing.length) {
        res.missingKeys = missing;
        res.problem = keysProblem(expected, Object.keys(w.entries));
      } else if (first) {
        res.key = first.key;
        if (first.problem) res.problem = `${first.key}: ${first.problem}`;
        if (first.mismatch) res.mismatch = first.mismatch;
      }
      return res;
    }
    default:
      throw new Error(`compareValue: unknown spec kind ${spec.kind}`);
  }
}

/** The wire form of a value computed on the page (what the worker would send for the same value). */
export function toWire(v, depth = 0) {
  if (typeof v === 'number') return { k: 'number', v };
  if (depth > 8) return { k: 'bad', what: 'a value nested too deep' };
  if (ArrayBuffer.isView(v) && !(v instanceof DataView))
    return { k: 'typed', type: v.constructor.name, data: Float64Array.from(v) };
  if (Array.isArray(v)) return { k: 'array', items: v.map((x) => toWire(x, depth + 1)) };
  if (v && typeof v === 'object') {
    const entries = {};
    for (const key of Object.keys(v)) entries[key] = toWire(v[key], depth + 1);
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
      if (t.problem) throw new Error(`${t.problem.replace(/^returned/, 'it is')} (declared ${kind.kind})`);
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
