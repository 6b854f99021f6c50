// The fitted constants of src/activations.c, computed from their definitions (derivations: src/README.md "Numerics").
import * as B from './bignum.js';
import { extrema, remezPoly, remezRational } from './remez.js';

const { ONE, int, ratio, mul, div, abs, erfcx, exp, toNumber, toFloat32, fromNumber } = B;
const SQRT2 = B.sqrt(int(2));
const SQRT_2PI = B.sqrt(mul(int(2), B.PI));

/** f memoized on its argument (the fits evaluate the same grid again and again) */
function memo(f) {
  const m = new Map();
  return (x) => {
    const k = x.toString(36);
    let v = m.get(k);
    if (v === undefined) m.set(k, (v = f(x)));
    return v;
  };
}

/** the largest |e| over [lo, hi]: the largest of its local peaks (found on a 1000-cell grid, refined) */
function peak(e, lo, hi) {
  return extrema(e, lo, hi, Infinity, 1000).reduce((m, p) => (abs(p.v) > m ? abs(p.v) : m), 0n);
}

/**
 * Fit sum_j c_j x^powers[j] by minimax, then make the coefficients named in `toFloat` float32 one at a time in
 * that order, refitting the remaining free ones after each rounding (the others stay unrounded reals).
 * Returns the coefficient of each power (float32 values for `toFloat`, reals otherwise) and the levels.
 */
function fitRounded({ f, w, powers, lo, hi, toFloat, grid }) {
  const fixed = new Map(); // power -> float32 value (as a fixed-point real)
  let free = [...powers];
  let fit = remezPoly({ f, w, powers: free, lo, hi, grid });
  const minimax = fit.E;
  for (const p of toFloat) {
    const c = fit.c[free.indexOf(p)];
    fixed.set(p, fromNumber(toFloat32(c)));
    free = free.filter((q) => q !== p);
    if (free.length === 0) break;
    const fixedPart = (x) => [...fixed].reduce((s, [q, v]) => s + mul(v, B.pow(x, q)), 0n);
    // start from the last alternation set less its middle point: close to the new one
    const start = fit.refs.filter((_, i) => i !== fit.refs.length >> 1);
    fit = remezPoly({ f: (x) => f(x) - fixedPart(x), w, powers: free, lo, hi, grid, start });
  }
  const coef = new Map(fixed);
  free.forEach((p, j) => coef.set(p, fit.c[j]));
  return { coef, minimax, E: free.length ? fit.E : null };
}

/**
 * em1_tail_f: e^r - 1 - r = r^2 q(r) on |r| <= ln2/2 + 1e-3, q of degree 4, absolute error; float32
 * coefficients, rounded highest degree first (the lower ones refit after each). Returns q's coefficients, lowest
 * degree first.
 */
export function em1Tail() {
  const h = B.LN2 / 2n + ratio(1, 1000);
  const f = memo((r) => exp(r) - ONE - r);
  const powers = [2, 3, 4, 5, 6];
  const { coef, minimax } = fitRounded({ f, powers, lo: -h, hi: h, toFloat: [6, 5, 4, 3, 2], grid: 400 });
  const q = powers.map((p) => toNumber(coef.get(p)));
  const err = (r) => mul(mul(r, r), B.polyval(q.map(fromNumber), r)) - f(r);
  return { q, minimax: toNumber(abs(minimax)), max: toNumber(peak(err, -h, h)) };
}

/** 0.5 erfcx(a / sqrt 2) = e^(a^2/2) Phi(-a) */
const halfErfcx = memo((a) => erfcx(div(a, SQRT2)) / 2n);

/**
 * gelu_g_tail, GELU_C0, GELU_C1: g(y)/2 = (a + K) e^(a^2/2) Phi(-a), y = (a - K)/(a + K), K = 3.5, for
 * 0 <= a <= 15 (y in [-1, 23/37]); g of degree 9, relative error. The coefficients of y^2 .. y^9 are float32,
 * rounded highest degree first (the lower ones refit after each), those of 1 and y doubles, refit last.
 * Returns the coefficients of g/2, lowest degree first.
 */
export function geluG() {
  const K = ratio(7, 2);
  const aOf = (y) => div(mul(K, ONE + y), ONE - y);
  const F = memo((y) => {
    const a = aOf(y);
    return mul(halfErfcx(a), a + K);
  });
  const w = memo((y) => div(ONE, F(y)));
  const powers = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const { coef, minimax, E } = fitRounded({
    f: F,
    w,
    powers,
    lo: -ONE,
    hi: ratio(23, 37),
    toFloat: [9, 8, 7, 6, 5, 4, 3, 2],
    grid: 300,
  });
  const g = powers.map((p) => toNumber(coef.get(p)));
  return { g, minimax: toNumber(abs(minimax)), E: toNumber(abs(E)) };
}

/**
 * gelu_t_num / gelu_t_den: D(a) = 1/(e^(a^2/2) Phi(-a)) = 2 + 2.25 a + a T(a) on 0 <= a <= 15, T = num/den of
 * degrees (4, 4), den(0) = 1, relative error in D. The float32 coefficients: each minimax coefficient rounded
 * down or up (den(0) = 1 stays), the combination with the smallest largest error kept; the error is sampled at
 * 41 points across each peak of the minimax error (the peaks move little when the coefficients are rounded).
 * Returns num and den, lowest degree first.
 */
export function geluT() {
  const D = memo((a) => div(ONE, halfErfcx(a)));
  const c1 = ratio(9, 4);
  const T0 = div(int(4), SQRT_2PI) - c1; // T(0) = D'(0) - 2.25 = 4 / sqrt(2 pi) - 2.25
  const T = memo((a) => (a === 0n ? T0 : div(D(a) - int(2) - mul(c1, a), a)));
  const w = memo((a) => div(a, D(a)));
  const fit = remezRational({ f: T, w, dn: 4, dd: 4, lo: 0n, hi: int(15), grid: 300 });
  // sample points: around each alternation point x_i, +-1/20 of the distance to its neighbours, in [0, 15]
  const refs = fit.refs;
  const pts = [];
  refs.forEach((x, i) => {
    const left = i > 0 ? (x - refs[i - 1]) / 20n : 0n;
    const right = i < refs.length - 1 ? (refs[i + 1] - x) / 20n : 0n;
    for (let k = -20; k <= 20; k++) pts.push(k < 0 ? x + (left * BigInt(k)) / 20n : x + (right * BigInt(k)) / 20n);
  });
  const tw = pts.map((a) => [a, T(a), w(a)]);
  const maxErr = (num, den) => {
    let worst = 0n;
    for (const [a, t, wa] of tw) {
      const e = abs(mul(div(B.polyval(num, a), B.polyval(den, a)) - t, wa));
      if (e > worst) worst = e;
    }
    return worst;
  };
  const near = (v) => {
    const f = toFloat32(v);
    const g = fromNumber(f) <= v ? nextUp(f) : nextDown(f);
    return [f, g].sort((x, y) => x - y);
  };
  const choices = [...fit.num.map(near), [1], ...fit.den.slice(1).map(near)];
  let best = null;
  for (let bits = 0; bits < 1 << 9; bits++) {
    const pick = choices.map((c, i) => (c.length === 1 ? c[0] : c[(bits >> (i < 5 ? i : i - 1)) & 1]));
    const num = pick.slice(0, 5);
    const den = pick.slice(5);
    const e = maxErr(num.map(fromNumber), den.map(fromNumber));
    if (!best || e < best.e) best = { e, num, den };
  }
  const { num, den } = best;
  const err = (a) => mul(div(B.polyval(num.map(fromNumber), a), B.polyval(den.map(fromNumber), a)) - T(a), w(a));
  return { num, den, minimax: toNumber(abs(fit.E)), max: toNumber(peak(err, 0n, int(15))) };
}
/** the float32 neighbours of a float32 value x > 0 or < 0 */
function nextUp(x) {
  const b = new DataView(new ArrayBuffer(4));
  b.setFloat32(0, x);
  b.setUint32(0, b.getUint32(0) + (x > 0 ? 1 : -1));
  return b.getFloat32(0);
}
function nextDown(x) {
  const b = new DataView(new ArrayBuffer(4));
  b.setFloat32(0, x);
  b.setUint32(0, b.getUint32(0) + (x > 0 ? -1 : 1));
  return b.getFloat32(0);
}

/** B(a) = e^(a^2/2) Phi(-a) - a / sqrt(2 pi): GELU'(-a) = e^(-a^2/2) B(a) */
const Bof = memo((a) => halfErfcx(a) - div(a, SQRT_2PI));

/** a0: the root of B (GELU's minimum at x = -a0), by Newton's method from 0.75 */
export function geluA0() {
  let a = ratio(3, 4);
  for (let i = 0; i < 100; i++) {
    const h = ONE >> 100n;
    const d = div(Bof(a + h) - Bof(a - h), 2n * h);
    const next = a - div(Bof(a), d);
    if (abs(next - a) < ONE >> 300n) return next;
    a = next;
  }
  throw new Error('geluA0: no convergence');
}

/**
 * gelu_grad_h: B(a0 + d) = d h(d) for |d| <= 0.3, h of degree 7, relative error, double coefficients.
 * Returns h's coefficients, lowest degree first, and a0 as a double pair (hi, lo).
 */
export function geluGradH() {
  const a0 = geluA0();
  const tiny = ONE >> 100n;
  const dB0 = div(Bof(a0 + tiny) - Bof(a0 - tiny), 2n * tiny); // h(0) = B'(a0)
  const H = memo((d) => (abs(d) < tiny ? dB0 : div(Bof(a0 + d), d)));
  const w = memo((d) => div(ONE, H(d)));
  const L = ratio(3, 10);
  const fit = remezPoly({ f: H, w, powers: [0, 1, 2, 3, 4, 5, 6, 7], lo: -L, hi: L, grid: 300 });
  const hi = toNumber(a0);
  const lo = toNumber(a0 - fromNumber(hi));
  return { h: fit.c.map(toNumber), minimax: toNumber(abs(fit.E)), a0: [hi, lo] };
}

/** every fitted set, as the numbers src/activations.c holds */
export function allFits() {
  const em1 = em1Tail();
  const g = geluG();
  const t = geluT();
  const h = geluGradH();
  return { em1, g, t, h };
}
