// Model of <ffn-activation-plot>: samples the section's activations, their derivatives and the GELU approximation
// errors with the wasm kernels.
import { quote, checkLength, parseNumber } from './parse.js';
import { localizedError as fail } from '../i18n/index.js';

/** The curves, in drawing order: name in the API, kernel function name, label. */
export const CURVES = Object.freeze([
  Object.freeze({ id: 'relu', fn: 'relu', label: 'ReLU' }),
  Object.freeze({ id: 'relu2', fn: 'relu2', label: 'squared ReLU' }),
  Object.freeze({ id: 'gelu', fn: 'gelu', label: 'GELU (exact)' }),
  Object.freeze({ id: 'gelu_tanh', fn: 'geluTanh', label: 'GELU (tanh)' }),
  Object.freeze({ id: 'gelu_sigmoid', fn: 'geluSigmoid', label: 'GELU (sigmoid)' }),
  Object.freeze({ id: 'silu', fn: 'silu', label: 'SiLU' }),
]);
export const CURVE_IDS = CURVES.map((c) => c.id);

/** A plotted range lies within [-RANGE_LIMIT, RANGE_LIMIT] and is at least MIN_SPAN wide. */
export const RANGE_LIMIT = 1000;
export const MIN_SPAN = 0.01;
/** The curves are sampled at this many points, whatever the range. */
export const SAMPLES = 481;

/** The `range` attribute "lo,hi": two numbers within [-RANGE_LIMIT, RANGE_LIMIT], hi - lo >= MIN_SPAN. */
export function parseRange(value) {
  checkLength('range', value, 64);
  const parts = value.split(',');
  const bad = () =>
    fail(RangeError, 'errors.range', {
      limit: String(RANGE_LIMIT),
      span: String(MIN_SPAN),
      got: quote(value),
    });
  if (parts.length !== 2) throw bad();
  let lo, hi;
  try {
    [lo, hi] = parts.map((p) => parseNumber('range', p.trim(), { min: -RANGE_LIMIT, max: RANGE_LIMIT }));
  } catch {
    throw bad();
  }
  if (!(hi - lo >= MIN_SPAN)) throw bad();
  return [lo, hi];
}

/** The `x` attribute: a number, clamped to [-RANGE_LIMIT, RANGE_LIMIT] (the element clamps it to its range). */
export function parseX(value) {
  const v = parseNumber('x', value);
  return Math.max(-RANGE_LIMIT, Math.min(RANGE_LIMIT, v));
}

/** The `curves` attribute: curve ids separated by commas or spaces, each known, each once. */
export function parseCurves(value) {
  checkLength('curves', value, 200);
  const ids = [];
  for (const id of value.split(/[,\s]+/).filter(Boolean)) {
    if (!CURVE_IDS.includes(id)) {
      throw fail(TypeError, 'errors.curves', { id: quote(id), list: CURVE_IDS.join(', ') });
    }
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** The parser of each attribute of <ffn-activation-plot>; throws a TypeError or RangeError naming the attribute. */
export function parseAttribute(name, value) {
  if (typeof value !== 'string') throw fail(TypeError, 'errors.mustBeString', { name, type: typeof value });
  switch (name) {
    case 'x':
      return parseX(value);
    case 'range':
      return parseRange(value);
    case 'curves':
      return parseCurves(value);
    default:
      throw fail(RangeError, 'errors.unknownAttribute', { name: quote(name) });
  }
}

/**
 * At most maxCount + 1 evenly spaced "nice" ticks (1, 2 or 5 times a power of ten apart) within [lo, hi],
 * with the number of decimals their labels need: { step, values, decimals }. Work is bounded by maxCount.
 */
export function niceTicks(lo, hi, maxCount = 10) {
  if (!(Number.isFinite(lo) && Number.isFinite(hi) && hi > lo)) {
    throw new RangeError(`niceTicks: need finite lo < hi, got [${lo}, ${hi}]`);
  }
  const raw = (hi - lo) / Math.max(1, maxCount);
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw * (1 - 1e-12));
  const first = Math.ceil(lo / step - 1e-9);
  const values = [];
  for (let i = first; i * step <= hi + step * 1e-9 && values.length <= maxCount; i++) values.push(i * step);
  return { step, values, decimals: Math.max(0, -Math.floor(Math.log10(step) + 1e-9)) };
}

/** Evenly spaced float32 grid of n points on [lo, hi]. */
export function grid(lo, hi, n) {
  if (!(hi > lo) || !(n >= 2)) throw new RangeError(`grid: need hi > lo and n >= 2, got [${lo}, ${hi}] with n = ${n}`);
  const xs = new Float32Array(n);
  for (let i = 0; i < n; i++) xs[i] = lo + ((hi - lo) * i) / (n - 1);
  return xs;
}

/** Values and derivatives of every curve on xs: { [id]: { y, dy } } (Float32Array from the kernels). */
export function sample(ffn, xs) {
  const out = {};
  for (const c of CURVES) out[c.id] = { y: ffn[c.fn](xs).data, dy: ffn.activationGrad(c.id, xs).data };
  return out;
}

/**
 * Absolute errors |t - exact| and |s - exact| (float32) of the tanh and sigmoid GELU values t, s against exact ones.
 */
export function geluErrorsOf(exact, t, s) {
  const tanh = new Float32Array(exact.length),
    sigmoid = new Float32Array(exact.length);
  for (let i = 0; i < exact.length; i++) {
    tanh[i] = Math.abs(t[i] - exact[i]);
    sigmoid[i] = Math.abs(s[i] - exact[i]);
  }
  return { tanh, sigmoid };
}

/** Absolute errors of the tanh and sigmoid approximations against exact GELU on xs. */
export function geluErrors(ffn, xs) {
  return geluErrorsOf(ffn.gelu(xs).data, ffn.geluTanh(xs).data, ffn.geluSigmoid(xs).data);
}

/** Index of the largest entry (the first, if it occurs more than once). */
function argmax(a) {
  let j = 0;
  for (let i = 1; i < a.length; i++) if (a[i] > a[j]) j = i;
  return j;
}

/** Largest approximation error of each GELU variant on [-lo, hi], with where it occurs. */
export function errorPeaks(ffn, lo = -6, hi = 6, n = 12001) {
  const xs = grid(lo, hi, n);
  const e = geluErrors(ffn, xs);
  const jt = argmax(e.tanh),
    js = argmax(e.sigmoid);
  return { tanh: { x: xs[jt], err: e.tanh[jt] }, sigmoid: { x: xs[js], err: e.sigmoid[js] } };
}

/**
 * Minimum of a smooth activation (GELU, SiLU...) on [lo, hi]: coarse search on kernel values, then
 * bisection on the sign of the kernel derivative. Returns { x, y }.
 */
export function findMinimum(ffn, id, lo = -3, hi = 0) {
  const c = CURVES.find((cc) => cc.id === id);
  if (!c) throw new RangeError(`findMinimum: unknown curve "${id}"`);
  const xs = grid(lo, hi, 601);
  const ys = ffn[c.fn](xs).data;
  let j = 0;
  for (let i = 1; i < ys.length; i++) if (ys[i] < ys[j]) j = i;
  let a = xs[Math.max(0, j - 1)],
    b = xs[Math.min(xs.length - 1, j + 1)];
  const g = (x) => ffn.activationGrad(id, [x]).data[0];
  if (g(a) < 0 && g(b) > 0) {
    for (let it = 0; it < 40 && b - a > 1e-6; it++) {
      const m = (a + b) / 2;
      if (g(m) < 0) a = m;
      else b = m;
    }
  }
  const x = (a + b) / 2;
  return { x, y: ffn[c.fn]([x]).data[0] };
}

/** Values of every curve, its derivative, and the two GELU errors at one x (the readout). */
export function readout(ffn, x) {
  if (!Number.isFinite(x)) throw new TypeError(`readout: x must be a finite number, got ${x}`);
  const xs = new Float32Array([x]);
  const rows = CURVES.map((c) => ({
    id: c.id,
    label: c.label,
    y: ffn[c.fn](xs).data[0],
    dy: ffn.activationGrad(c.id, xs).data[0],
  }));
  // The GELU errors from the rows' values (without calling the three kernels again).
  const y = Object.fromEntries(rows.map((r) => [r.id, r.y]));
  const e = geluErrorsOf([y.gelu], [y.gelu_tanh], [y.gelu_sigmoid]);
  return { x: xs[0], rows, errTanh: e.tanh[0], errSigmoid: e.sigmoid[0] };
}
