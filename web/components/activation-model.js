// Model of <ffn-activation-plot>: samples the section's activations, their derivatives and the GELU approximation errors with the wasm kernels.

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

/** Absolute errors |t - exact| and |s - exact| (float32) of the tanh and sigmoid GELU values t, s against exact ones. */
export function geluErrorsOf(exact, t, s) {
  const tanh = new Float32Array(exact.length), sigmoid = new Float32Array(exact.length);
  for (let i = 0; i < exact.length; i++) { tanh[i] = Math.abs(t[i] - exact[i]); sigmoid[i] = Math.abs(s[i] - exact[i]); }
  return { tanh, sigmoid };
}

/** Absolute errors of the tanh and sigmoid approximations against exact GELU on xs. */
export function geluErrors(ffn, xs) {
  return geluErrorsOf(ffn.gelu(xs).data, ffn.geluTanh(xs).data, ffn.geluSigmoid(xs).data);
}

/** Index and value of the largest entry. */
function argmax(a) {
  let j = 0;
  for (let i = 1; i < a.length; i++) if (a[i] > a[j]) j = i;
  return j;
}

/** Largest approximation error of each GELU variant on [-lo, hi], with where it occurs. */
export function errorPeaks(ffn, lo = -6, hi = 6, n = 12001) {
  const xs = grid(lo, hi, n);
  const e = geluErrors(ffn, xs);
  const jt = argmax(e.tanh), js = argmax(e.sigmoid);
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
  let a = xs[Math.max(0, j - 1)], b = xs[Math.min(xs.length - 1, j + 1)];
  const g = (x) => ffn.activationGrad(id, [x]).data[0];
  if (g(a) < 0 && g(b) > 0) {
    for (let it = 0; it < 40 && b - a > 1e-6; it++) {
      const m = (a + b) / 2;
      if (g(m) < 0) a = m; else b = m;
    }
  }
  const x = (a + b) / 2;
  return { x, y: ffn[c.fn]([x]).data[0] };
}

/** Values of every curve, its derivative, and the two GELU errors at one x (the readout). */
export function readout(ffn, x) {
  if (!Number.isFinite(x)) throw new TypeError(`readout: x must be a finite number, got ${x}`);
  const xs = new Float32Array([x]);
  const rows = CURVES.map((c) => ({ id: c.id, label: c.label, y: ffn[c.fn](xs).data[0], dy: ffn.activationGrad(c.id, xs).data[0] }));
  // The GELU errors from the rows' values (without calling the three kernels again).
  const y = Object.fromEntries(rows.map((r) => [r.id, r.y]));
  const e = geluErrorsOf([y.gelu], [y.gelu_tanh], [y.gelu_sigmoid]);
  return { x: xs[0], rows, errTanh: e.tanh[0], errSigmoid: e.sigmoid[0] };
}
