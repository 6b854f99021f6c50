// The small array toolkit learners get in exercise scope: tensors, shape helpers, matmul, map/zip, erf; never an
// exercise's answer.

/*
 * A tensor is a plain object { data, shape }: `data` a typed array (row-major), `shape` an array of sizes.
 * Every helper accepts a tensor, a nested rectangular array of numbers, a flat typed array (1-D) or a number
 * (shape []), and returns a fresh tensor backed by a Float64Array. Errors name the helper and the shapes.
 */

/*
 * The toolkit's errors, as templates: the English table (web/i18n/en.js, report.toolkit) is this one, kept here
 * because the worker has no locale tables. An error's message is its English; its key and parameters (texts)
 * are kept where learner code cannot change them, and toolkitMessage(err) gives them to the worker, which sends
 * them along so that the page can say the error in the reader's language.
 */
export const TOOLKIT_TEMPLATES = Object.freeze({
  notNumberInside: '{fn}: expected a number inside the array, got {type}',
  ragged: '{fn}: the nested array is ragged (expected length {n} at depth {depth})',
  sizeMismatch: '{fn}: shape {shape} holds {n} numbers but data has {m}',
  notTensor: '{fn}: expected a tensor {data, shape}, a nested array of numbers or a number; got {type}',
  reshape: 'reshape: cannot view shape {shape} ({n} numbers) as {to}',
  mapFunction: 'map: the second argument must be a function (value, index) => number',
  zipFunction: 'zip: the third argument must be a function (a, b, index) => number',
  zipShapes: 'zip: shapes differ, {a} and {b}',
  broadcast: "{fn}: cannot combine shape {a} with {b} (the second must match the first's trailing dimensions)",
  matmulA: 'matmul: A has shape {shape}, expected at least 1 dimension (..., k)',
  matmulB: 'matmul: B has shape {shape}, expected 2 dimensions (k, n)',
  matmulInner: "matmul: A {a} @ B {b}: A's last dimension {k} must equal B's first {kb}",
  notTwoD: '{fn}: expected a 2-D tensor, got shape {shape}',
  sumAxis: '{fn}: only axis 0 (or no axis) is supported',
  sumRank: '{fn}: axis 0 needs at least 1 dimension',
  dotLengths: 'dot: lengths differ, {a} and {b}',
  outside: '{fn}: index {i} is outside 0..{max}',
  getIndices: 'get: shape {shape} needs {n} indices, got {m}',
  getIndex: 'get: index {i} on axis {axis} is outside 0..{max}',
  erf: 'erf: expected a number, got {type}',
});

/*
 * What the worker itself says (web/sandbox/worker.js, through workerText and workerError below): a result it
 * refuses, a value that is no result (bad), its refusals of the learner's code, and the lockdown stubs' errors.
 * Here for the same reason: the worker's English, which the page's table (en.js, report.worker) is.
 */
export const WORKER_TEMPLATES = Object.freeze({
  deep: 'the result is nested deeper than {max} levels (at {path})',
  cycle: 'the result contains a cycle (at {path})',
  numbers: 'the result holds more than {max} numbers',
  runNumbers: "the run's results hold more than {max} numbers in all",
  array: 'the result is an array of {n} items, more than {max}',
  keys: 'the result object has {n} keys, more than {max}',
  longKey: 'the result object has a key longer than {max} characters',
  readingThrew: 'reading your result threw: {message}',
  threwValue: 'your code threw {value} (throw an Error to get a line number)',
  threwUnreadable: 'your code threw an object that could not be read',
  noParse: 'your code does not parse',
  importRefused:
    'import is not available in exercises (no modules or network); remove it ' +
    '(the word is fine only in comments and in \'...\' or "..." strings)',
  closesEarly: 'your code closes the exercise wrapper early (an unmatched } or ))',
  failed: 'the sandbox failed: an internal error stopped the run',
  // what the lockdown's stubs throw when learner code calls them (worker.js blocked(), setTimeout)
  blocked: '{name} is disabled inside exercises: your code runs offline, in a sandbox',
  functionCtor: 'the Function constructor is disabled inside exercises: your code runs offline, in a sandbox',
  stringTimer: '{name}: pass a function, not a string of code',
  bad: Object.freeze({
    undefined: 'undefined (did you forget to return?)',
    null: 'null',
    string: 'a string {text}',
    boolean: 'the boolean {v}',
    bigint: 'a BigInt',
    symbol: 'a Symbol',
    function: 'a function',
    promise: 'a Promise (exercise functions must be synchronous)',
    dataView: 'a DataView',
    bigIntArray: 'a {type}',
  }),
});

// Built-ins captured when the worker loads this file, before learner code runs (it may replace them later).
const apply = Reflect.apply;
const keyed = new WeakMap(); // an error the toolkit or the worker made -> { key, params }
const keyedGet = WeakMap.prototype.get;
const keyedSet = WeakMap.prototype.set;
const keysOf = Object.keys;
const freeze = Object.freeze;
const StringCtor = String;

/**
 * A template filled with texts ({ __proto__: null }), read by index and joined with +: no method that learner code
 * could have replaced (String.prototype.replace, RegExp's) runs here.
 */
function fillTemplate(template, texts) {
  let out = '';
  for (let i = 0; i < template.length; i++) {
    if (template[i] === '{') {
      let j = i + 1;
      let name = '';
      while (j < template.length && template[j] !== '}' && template[j] !== ' ' && template[j] !== ',') {
        name += template[j++];
      }
      if (template[j] === '}' && name in texts) {
        out += texts[name];
        i = j;
        continue;
      }
    }
    out += template[i];
  }
  return out;
}

/** A new Ctor error whose message is TOOLKIT_TEMPLATES[key] filled with params (each made a string). */
function fail(Ctor, key, params = {}) {
  const texts = { __proto__: null };
  const names = keysOf(params);
  for (let i = 0; i < names.length; i++) texts[names[i]] = StringCtor(params[names[i]]);
  const e = new Ctor(fillTemplate(TOOLKIT_TEMPLATES[key], texts));
  apply(keyedSet, keyed, [e, freeze({ key, params: freeze(texts) })]);
  return e;
}

/** { key, params } of an error the toolkit threw, or null (the worker's; not in the learner's scope). */
export function toolkitMessage(err) {
  try {
    return (err !== null && typeof err === 'object' && apply(keyedGet, keyed, [err])) || null;
  } catch {
    return null;
  }
}

// WORKER_TEMPLATES by flat key ('deep', 'bad.null'), made when this file loads, before learner code runs.
const WORKER_FLAT = { __proto__: null };
for (const [k, v] of Object.entries(WORKER_TEMPLATES)) {
  if (typeof v === 'string') WORKER_FLAT[k] = v;
  else for (const [b, t] of Object.entries(v)) WORKER_FLAT[`${k}.${b}`] = t;
}

/**
 * The worker's own words for `key` (of WORKER_TEMPLATES; 'bad.x' for its bad table), as the wire carries a message:
 * { key: 'worker.' + key, params, text }, text the English filled with params (each made a string), for the page to
 * say it in the reader's language. Called after learner code has run: only built-ins captured here.
 */
export function workerText(key, params = {}) {
  const texts = { __proto__: null };
  const names = keysOf(params);
  for (let i = 0; i < names.length; i++) texts[names[i]] = StringCtor(params[names[i]]);
  return { key: 'worker.' + key, params, text: fillTemplate(WORKER_FLAT[key], texts) };
}

/** A new Ctor error of the worker's own (a lockdown stub's), its key kept as a toolkit error's is (toolkitMessage). */
export function workerError(Ctor, key, params = {}) {
  const w = workerText(key, params);
  const e = new Ctor(w.text);
  apply(keyedSet, keyed, [e, freeze({ key: w.key, params: freeze(params) })]);
  return e;
}

function fmt(shape) {
  return `[${shape.join(',')}]`;
}

function product(shape) {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

function nestedShape(fn, x) {
  const shape = [];
  let cur = x;
  while (Array.isArray(cur)) {
    shape.push(cur.length);
    if (cur.length === 0) break;
    cur = cur[0];
  }
  return shape;
}

function flattenInto(fn, x, shape, depth, out) {
  if (depth === shape.length) {
    if (typeof x !== 'number') throw fail(TypeError, 'notNumberInside', { fn, type: typeof x });
    out.push(x);
    return;
  }
  if (!Array.isArray(x) || x.length !== shape[depth]) {
    throw fail(RangeError, 'ragged', { fn, n: shape[depth], depth });
  }
  for (const item of x) flattenInto(fn, item, shape, depth + 1, out);
}

/** Turn any accepted array-like into a tensor without copying a tensor's data. */
function asTensor(x, fn = 'tensor') {
  if (typeof x === 'number') return { data: Float64Array.of(x), shape: [] };
  if (ArrayBuffer.isView(x) && !(x instanceof DataView)) return { data: x, shape: [x.length] };
  if (Array.isArray(x)) {
    const shape = nestedShape(fn, x);
    const out = [];
    flattenInto(fn, x, shape, 0, out);
    return { data: Float64Array.from(out), shape };
  }
  if (x && typeof x === 'object' && 'data' in x && 'shape' in x) {
    const shape = Array.from(x.shape);
    let data = x.data;
    if (!ArrayBuffer.isView(data)) data = Float64Array.from(data);
    if (product(shape) !== data.length) {
      throw fail(RangeError, 'sizeMismatch', { fn, shape: fmt(shape), n: product(shape), m: data.length });
    }
    return { data, shape };
  }
  throw fail(TypeError, 'notTensor', { fn, type: x === null ? 'null' : typeof x });
}

/** tensor(nested) or tensor(flatData, shape): a fresh Float64Array-backed tensor. */
export function tensor(data, shape) {
  if (shape === undefined) {
    const t = asTensor(data, 'tensor');
    return { data: Float64Array.from(t.data), shape: t.shape.slice() };
  }
  const flat = Float64Array.from(
    ArrayBuffer.isView(data) || Array.isArray(data) ? data : asTensor(data, 'tensor').data,
  );
  const s = Array.from(shape);
  if (product(s) !== flat.length) {
    throw fail(RangeError, 'sizeMismatch', { fn: 'tensor', shape: fmt(s), n: product(s), m: flat.length });
  }
  return { data: flat, shape: s };
}

/** A tensor of zeros with the given shape. */
export function zeros(shape) {
  const s = Array.from(shape);
  return { data: new Float64Array(product(s)), shape: s };
}

/** A tensor filled with value. */
export function full(shape, value) {
  const t = zeros(shape);
  t.data.fill(value);
  return t;
}

/** A copy of the tensor's shape. */
export function shapeOf(x) {
  return asTensor(x, 'shapeOf').shape.slice();
}

/** How many numbers the tensor holds. */
export function size(x) {
  return asTensor(x, 'size').data.length;
}

/** Same numbers, new shape (one entry may be -1). */
export function reshape(x, shape) {
  const t = asTensor(x, 'reshape');
  const s = Array.from(shape);
  const free = s.indexOf(-1);
  if (free >= 0) {
    const known = product(s.filter((v, i) => i !== free));
    s[free] = known === 0 ? 0 : t.data.length / known;
  }
  if (product(s) !== t.data.length || s.some((v) => !Number.isInteger(v) || v < 0)) {
    throw fail(RangeError, 'reshape', { shape: fmt(t.shape), n: t.data.length, to: fmt(shape) });
  }
  return { data: Float64Array.from(t.data), shape: s };
}

/** Apply f(value, flatIndex) to every number; same shape. */
export function map(x, f) {
  const t = asTensor(x, 'map');
  if (typeof f !== 'function') throw fail(TypeError, 'mapFunction');
  const out = new Float64Array(t.data.length);
  for (let i = 0; i < out.length; i++) out[i] = f(t.data[i], i);
  return { data: out, shape: t.shape.slice() };
}

/** Combine two same-shape tensors number by number with f(a, b, flatIndex). */
export function zip(a, b, f) {
  const ta = asTensor(a, 'zip');
  const tb = asTensor(b, 'zip');
  if (typeof f !== 'function') throw fail(TypeError, 'zipFunction');
  if (ta.shape.length !== tb.shape.length || ta.shape.some((s, i) => s !== tb.shape[i])) {
    throw fail(RangeError, 'zipShapes', { a: fmt(ta.shape), b: fmt(tb.shape) });
  }
  const out = new Float64Array(ta.data.length);
  for (let i = 0; i < out.length; i++) out[i] = f(ta.data[i], tb.data[i], i);
  return { data: out, shape: ta.shape.slice() };
}

function broadcast(fn, a, b, op) {
  const ta = asTensor(a, fn);
  const tb = asTensor(b, fn);
  const k = tb.shape.length;
  const ok = k <= ta.shape.length && tb.shape.every((s, i) => s === ta.shape[ta.shape.length - k + i]);
  if (!ok) {
    throw fail(RangeError, 'broadcast', { fn, a: fmt(ta.shape), b: fmt(tb.shape) });
  }
  const n = tb.data.length;
  const out = new Float64Array(ta.data.length);
  for (let i = 0; i < out.length; i++) out[i] = op(ta.data[i], tb.data[n === 1 ? 0 : i % n]);
  return { data: out, shape: ta.shape.slice() };
}

/** a + b, where b has a's shape, a's trailing dimensions (a bias row) or is a number. */
export function add(a, b) {
  return broadcast('add', a, b, (p, q) => p + q);
}

/** a - b, broadcasting b like add. */
export function sub(a, b) {
  return broadcast('sub', a, b, (p, q) => p - q);
}

/** a * b elementwise, broadcasting b like add. */
export function mul(a, b) {
  return broadcast('mul', a, b, (p, q) => p * q);
}

/** A (..., k) @ B (k, n) -> (..., n); A may also be 1-D (k). */
export function matmul(A, B) {
  const a = asTensor(A, 'matmul');
  const b = asTensor(B, 'matmul');
  if (a.shape.length < 1) throw fail(RangeError, 'matmulA', { shape: fmt(a.shape) });
  if (b.shape.length !== 2) throw fail(RangeError, 'matmulB', { shape: fmt(b.shape) });
  const k = a.shape[a.shape.length - 1];
  const [kb, n] = b.shape;
  if (k !== kb) throw fail(RangeError, 'matmulInner', { a: fmt(a.shape), b: fmt(b.shape), k, kb });
  const m = k === 0 ? 0 : a.data.length / k;
  const out = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let acc = 0;
      for (let p = 0; p < k; p++) acc += a.data[i * k + p] * b.data[p * n + j];
      out[i * n + j] = acc;
    }
  }
  return { data: out, shape: [...a.shape.slice(0, -1), n] };
}

/** Swap the two axes of a 2-D tensor (a 1-D one becomes a column (n, 1)). */
export function transpose(A) {
  const a = asTensor(A, 'transpose');
  if (a.shape.length === 1) return { data: Float64Array.from(a.data), shape: [a.shape[0], 1] };
  if (a.shape.length !== 2) throw fail(RangeError, 'notTwoD', { fn: 'transpose', shape: fmt(a.shape) });
  const [r, c] = a.shape;
  const out = new Float64Array(r * c);
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) out[j * r + i] = a.data[i * c + j];
  return { data: out, shape: [c, r] };
}

/** sum(x): the total, a number. sum(x, 0): add up along the first axis, shape (rest). */
export function sum(x, axis) {
  const t = asTensor(x, 'sum');
  if (axis === undefined) {
    let s = 0;
    for (const v of t.data) s += v;
    return s;
  }
  if (axis !== 0) throw fail(RangeError, 'sumAxis', { fn: 'sum' });
  if (t.shape.length < 1) throw fail(RangeError, 'sumRank', { fn: 'sum' });
  const rest = t.shape.slice(1);
  const n = product(rest);
  const out = new Float64Array(n);
  for (let i = 0; i < t.data.length; i++) out[i % n] += t.data[i];
  return { data: out, shape: rest };
}

/** Dot product of two 1-D tensors of equal length. */
export function dot(a, b) {
  const ta = asTensor(a, 'dot');
  const tb = asTensor(b, 'dot');
  if (ta.data.length !== tb.data.length) throw fail(RangeError, 'dotLengths', { a: ta.data.length, b: tb.data.length });
  let s = 0;
  for (let i = 0; i < ta.data.length; i++) s += ta.data[i] * tb.data[i];
  return s;
}

/** Row i of a 2-D tensor, as a 1-D tensor. */
export function row(A, i) {
  const a = asTensor(A, 'row');
  if (a.shape.length !== 2) throw fail(RangeError, 'notTwoD', { fn: 'row', shape: fmt(a.shape) });
  const [r, c] = a.shape;
  if (!Number.isInteger(i) || i < 0 || i >= r) throw fail(RangeError, 'outside', { fn: 'row', i, max: r - 1 });
  return { data: Float64Array.from(a.data.subarray(i * c, (i + 1) * c)), shape: [c] };
}

/** Column j of a 2-D tensor, as a 1-D tensor. */
export function col(A, j) {
  const a = asTensor(A, 'col');
  if (a.shape.length !== 2) throw fail(RangeError, 'notTwoD', { fn: 'col', shape: fmt(a.shape) });
  const [r, c] = a.shape;
  if (!Number.isInteger(j) || j < 0 || j >= c) throw fail(RangeError, 'outside', { fn: 'col', i: j, max: c - 1 });
  const out = new Float64Array(r);
  for (let i = 0; i < r; i++) out[i] = a.data[i * c + j];
  return { data: out, shape: [r] };
}

/** The number at a multi-index: get(t, i, j, ...). */
export function get(x, ...index) {
  const t = asTensor(x, 'get');
  if (index.length !== t.shape.length) {
    throw fail(RangeError, 'getIndices', { shape: fmt(t.shape), n: t.shape.length, m: index.length });
  }
  let flat = 0;
  for (let a = 0; a < index.length; a++) {
    const i = index[a];
    if (!Number.isInteger(i) || i < 0 || i >= t.shape[a]) {
      throw fail(RangeError, 'getIndex', { i, axis: a, max: t.shape[a] - 1 });
    }
    flat = flat * t.shape[a] + i;
  }
  return t.data[flat];
}

/** Nested plain arrays, handy for console.log. */
export function toArray(x) {
  const t = asTensor(x, 'toArray');
  if (t.shape.length === 0) return t.data[0];
  const build = (axis, offset) => {
    const n = t.shape[axis];
    const stride = product(t.shape.slice(axis + 1));
    const out = [];
    for (let i = 0; i < n; i++)
      out.push(axis === t.shape.length - 1 ? t.data[offset + i] : build(axis + 1, offset + i * stride));
    return out;
  };
  return build(0, 0);
}

/** [0, 1, ..., n-1]. */
export function range(n) {
  return Array.from({ length: n }, (_, i) => i);
}

const TWO_OVER_SQRT_PI = 1.1283791670955126;

/** The error function, accurate to about 1e-15 (series below 3, continued fraction above). */
export function erf(x) {
  if (typeof x !== 'number') throw fail(TypeError, 'erf', { type: typeof x });
  if (Number.isNaN(x)) return NaN;
  const ax = Math.abs(x);
  if (ax < 3) {
    // erf(x) = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1))
    let term = x;
    let s = x;
    const x2 = x * x;
    for (let n = 1; n < 100; n++) {
      term *= -x2 / n;
      const add = term / (2 * n + 1);
      s += add;
      if (Math.abs(add) < 1e-17 * Math.abs(s)) break;
    }
    return TWO_OVER_SQRT_PI * s;
  }
  if (ax > 6) return Math.sign(x);
  // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...))))), modified Lentz.
  const tiny = 1e-300;
  let f = ax;
  let C = ax;
  let D = 0;
  for (let n = 1; n < 200; n++) {
    const a = n / 2;
    D = ax + a * D;
    D = D === 0 ? tiny : 1 / D;
    C = ax + a / C;
    if (C === 0) C = tiny;
    const delta = C * D;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  const erfc = Math.exp(-ax * ax) / (f * 1.7724538509055159);
  return Math.sign(x) * (1 - erfc);
}

/** Everything above, as the scope object the worker hands to learner code. */
export const toolkitNames = Object.freeze([
  'tensor',
  'zeros',
  'full',
  'shapeOf',
  'size',
  'reshape',
  'map',
  'zip',
  'add',
  'sub',
  'mul',
  'matmul',
  'transpose',
  'sum',
  'dot',
  'row',
  'col',
  'get',
  'toArray',
  'range',
  'erf',
]);
