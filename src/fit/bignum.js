// Fixed-point reals on BigInt for the coefficient fits: arithmetic, pi, ln 2, exp, cos, erfcx, correct rounding.
//
// A value v stands for v / 2^P with P = 320 bits (about 96 decimal digits): the fits need a few dozen correct
// digits (the coefficients are rounded to double or float32 at the end), and BigInt arithmetic is exact and the
// same on every machine, so the printed coefficients are too. Functions that lose bits internally (exp squares
// its result, erfcx cancels e^(t^2) against a series of the same size) work at P plus guard bits.

export const P = 320n;
export const ONE = 1n << P;

/** round(a * b / 2^s) and a / b at scale s (half-way cases up; b != 0) */
const mulS = (a, b, s) => (a * b + (1n << (s - 1n))) >> s;
const divS = (a, b, s) => {
  const n = a << s;
  const q = n / b;
  const r = n - q * b; // |r| < |b|, same sign as n
  const twice = 2n * (r < 0n ? -r : r);
  const bb = b < 0n ? -b : b;
  if (twice < bb) return q;
  return n < 0n !== b < 0n ? q - 1n : q + 1n;
};

export const mul = (a, b) => mulS(a, b, P);
export const div = (a, b) => divS(a, b, P);
export const abs = (a) => (a < 0n ? -a : a);
/** the integer n as a fixed-point value */
export const int = (n) => BigInt(n) << P;
/** p/q for integers p, q, correctly rounded */
export const ratio = (p, q) => divS(BigInt(p), BigInt(q), P);
/** x^k for an integer k >= 0 */
export function pow(x, k) {
  let r = ONE;
  for (let i = 0; i < k; i++) r = mul(r, x);
  return r;
}
/** sum_k c[k] x^k (Horner, c lowest degree first) */
export function polyval(c, x) {
  let s = 0n;
  for (let k = c.length - 1; k >= 0; k--) s = mul(s, x) + c[k];
  return s;
}

/* ---- exact conversions from and correctly rounded conversions to JS numbers ---- */

/** the double x exactly (to 2^-P) */
export function fromNumber(x) {
  if (!Number.isFinite(x)) throw new RangeError(`fromNumber: ${x} is not finite`);
  if (x === 0) return 0n;
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, x);
  const hi = dv.getUint32(0);
  const lo = dv.getUint32(4);
  const ex = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (ex) m |= 1n << 52n;
  const e = BigInt((ex || 1) - 1075); // x = m 2^e
  const sh = P + e;
  const v = sh >= 0n ? m << sh : mulS(m, 1n, -sh);
  return x < 0 ? -v : v;
}

/** v rounded to `bits` significant bits, ties to even, as a JS number (normal range of the format only) */
function roundTo(v, bits, minExp) {
  if (v === 0n) return 0;
  const neg = v < 0n;
  let a = neg ? -v : v;
  const len = BigInt(a.toString(2).length);
  let shift = len - BigInt(bits); // drop this many low bits
  let m;
  if (shift > 0n) {
    m = a >> shift;
    const rest = a - (m << shift);
    const half = 1n << (shift - 1n);
    if (rest > half || (rest === half && (m & 1n) === 1n)) m += 1n;
  } else {
    m = a << -shift;
  }
  const e = Number(shift - P); // value = m 2^e
  if (e + bits - 1 < minExp) throw new RangeError('roundTo: below the normal range');
  a = Number(m) * 2 ** e;
  return neg ? -a : a;
}
/** v correctly rounded to a double */
export const toNumber = (v) => roundTo(v, 53, -1022);
/** v correctly rounded to a float32 (returned as the JS number holding that float32 value) */
export function toFloat32(v) {
  const f = roundTo(v, 24, -126);
  if (Math.fround(f) !== f) throw new RangeError('toFloat32: outside float32');
  return f;
}

/* ---- constants at any scale (cached) ---- */

/**
 * atan(1/k) = sum (-1)^n / ((2n + 1) k^(2n+1)) (alternating) or atanh(1/k) = sum 1 / ((2n + 1) k^(2n+1)) at
 * scale s; the truncated terms leave an error below n 2^-s
 */
function arctanSeries(k, s, alternating) {
  const kk = BigInt(k) * BigInt(k);
  let power = (1n << s) / BigInt(k);
  let sum = 0n;
  for (let n = 0n; power !== 0n; n++) {
    const t = power / (2n * n + 1n);
    sum += alternating && n % 2n === 1n ? -t : t;
    power /= kk;
  }
  return sum;
}
const cache = new Map();
function cached(key, make) {
  if (!cache.has(key)) cache.set(key, make());
  return cache.get(key);
}
/** pi at scale s (Machin's formula, 32 guard bits) */
const piAt = (s) =>
  cached(`pi${s}`, () => mulS(16n * arctanSeries(5, s + 32n, true) - 4n * arctanSeries(239, s + 32n, true), 1n, 32n));
/** ln 2 = 2 atanh(1/3) at scale s */
const ln2At = (s) => cached(`ln2${s}`, () => mulS(2n * arctanSeries(3, s + 32n, false), 1n, 32n));

/** integer square root floor(sqrt(n)), n >= 0 */
function isqrt(n) {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2) + 1);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}
/** sqrt(x) at scale s, x >= 0 (floor: error below 2^-s) */
const sqrtS = (x, s) => isqrt(x << s);

export const PI = piAt(P);
export const LN2 = ln2At(P);
export const sqrt = (x) => sqrtS(x, P);

/* ---- exp, cos, erfcx ---- */

/**
 * e^x at scale s, relative error below 2^-(s - 8): x = n ln2 + r with |r| <= ln2/2, e^r = (e^(r/256))^256
 * by its Taylor series at 48 guard bits (the squarings lose 8 of them), times 2^n as a shift.
 */
function expS(x, s) {
  const g = 48n;
  const sg = s + g;
  const ln2 = ln2At(sg);
  const xs = x << g;
  const n = divS(xs, ln2, 0n); // nearest integer to x / ln2
  const r = (xs - n * ln2) >> 8n;
  let term = 1n << sg;
  let y = term;
  for (let k = 1n; term !== 0n; k++) {
    term = mulS(term, r, sg) / k;
    y += term;
  }
  for (let i = 0; i < 8; i++) y = mulS(y, y, sg);
  y = n >= 0n ? y << n : mulS(y, 1n, -n);
  return mulS(y, 1n, g);
}
export const exp = (x) => expS(x, P);

/** cos(x) for |x| <= 4 by its Taylor series (16 guard bits) */
export function cos(x) {
  const s = P + 16n;
  const xs = x << 16n;
  const x2 = mulS(xs, xs, s);
  let term = 1n << s;
  let sum = term;
  for (let n = 1n; term !== 0n; n++) {
    term = -mulS(term, x2, s) / ((2n * n - 1n) * (2n * n));
    sum += term;
  }
  return mulS(sum, 1n, 16n);
}

/**
 * erfcx(t) = e^(t^2) erfc(t) for 0 <= t <= 12, through erf(t) = 2/sqrt(pi) e^(-t^2) sum_n 2^n t^(2n+1) / (2n+1)!!
 * (all terms positive): erfcx(t) = e^(t^2) - 2/sqrt(pi) sum_n ... The subtraction cancels about t^2 log2(e) bits,
 * so both sides are computed with that many guard bits more (plus 64); the result is good to about 2^-P.
 */
export function erfcx(t) {
  if (t < 0n || t > int(12)) throw new RangeError('erfcx: t outside [0, 12]');
  const t2 = mul(t, t);
  const g = 64n + BigInt(Math.ceil(toNumber(t2) * 1.4426950408889634));
  const s = P + g;
  const ts = t << g;
  const t2s = mulS(ts, ts, s);
  let term = ts;
  let sum = term;
  for (let n = 1n; term !== 0n; n++) {
    term = (mulS(term, t2s, s) * 2n) / (2n * n + 1n);
    sum += term;
  }
  const twoOverSqrtPi = divS(2n << s, sqrtS(piAt(s), s), s);
  return mulS(expS(t2s, s) - mulS(twoOverSqrtPi, sum, s), 1n, g);
}
