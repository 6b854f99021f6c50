// Weighted minimax fits by the Remez exchange on fixed-point BigInt reals: polynomials and rationals.
import { ONE, abs, cos, div, int, mul, polyval, pow, PI } from './bignum.js';

/** Solve A x = b (n x n, fixed-point) by Gaussian elimination with partial pivoting */
export function solve(A, b) {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (abs(M[r][c]) > abs(M[p][c])) p = r;
    if (M[p][c] === 0n) throw new Error('solve: singular system');
    [M[c], M[p]] = [M[p], M[c]];
    for (let r = c + 1; r < n; r++) {
      const f = div(M[r][c], M[c][c]);
      for (let k = c; k <= n; k++) M[r][k] -= mul(f, M[c][k]);
    }
  }
  const x = new Array(n).fill(0n);
  for (let r = n - 1; r >= 0; r--) {
    let s = M[r][n];
    for (let k = r + 1; k < n; k++) s -= mul(M[r][k], x[k]);
    x[r] = div(s, M[r][r]);
  }
  return x;
}

/**
 * m starting reference points in [lo, hi]: the extrema of the Chebyshev polynomial T_(m-1) (ends included), or
 * with `interior` the zeros of T_m (ends excluded, for a weight that vanishes at an end)
 */
export function chebyshevPoints(lo, hi, m, interior = false) {
  const mid = (lo + hi) / 2n;
  const half = (hi - lo) / 2n;
  const angle = (i) => (interior ? div(mul(PI, int(2 * i + 1)), int(2 * m)) : div(mul(PI, int(i)), int(m - 1)));
  return Array.from({ length: m }, (_, i) => mid - mul(half, cos(angle(i))));
}

/**
 * The local extrema of the error e on [lo, hi], one per run of equal sign, as the exchange wants them: e is
 * sampled on `grid` cell centres plus both ends; in each sign run the largest |e| is taken, then refined by
 * Newton's method on e' = 0 (central differences at step 2^-90; a few steps reach 1e-40), ends kept as ends.
 * Runs beyond m are dropped as the exchange rule says: the smallest one, merging its two neighbours
 * (which then share a sign) into the larger of them, or dropping it alone at either end.
 */
export function extrema(e, lo, hi, m, grid) {
  const xs = [lo];
  for (let i = 0; i < grid; i++) xs.push(lo + div(mul(hi - lo, int(2 * i + 1)), int(2 * grid)));
  xs.push(hi);
  const ev = xs.map(e);
  const runs = [];
  for (let i = 0; i < xs.length; i++) {
    if (ev[i] === 0n) continue; // a zero of the weight (or of the error) is no alternation point
    const s = ev[i] > 0n;
    const last = runs[runs.length - 1];
    if (last && last.sign === s) {
      if (abs(ev[i]) > abs(ev[last.i])) last.i = i;
    } else runs.push({ sign: s, i });
  }
  let pts = runs.map(({ i }) => {
    if (i === 0 || i === xs.length - 1) return { x: xs[i], v: ev[i] };
    const x = newtonPeak(e, xs[i - 1], xs[i + 1], xs[i]);
    return { x, v: e(x) };
  });
  while (pts.length > m) {
    let k = 0;
    for (let i = 1; i < pts.length; i++) if (abs(pts[i].v) < abs(pts[k].v)) k = i;
    if (k === 0 || k === pts.length - 1 || pts.length === m + 1) {
      // at an end, or one too many: drop the smaller end
      const end = k === 0 || k === pts.length - 1 ? k : abs(pts[0].v) < abs(pts[pts.length - 1].v) ? 0 : pts.length - 1;
      pts.splice(end, 1);
    } else {
      const keep = abs(pts[k - 1].v) >= abs(pts[k + 1].v) ? k - 1 : k + 1;
      pts = pts.filter((_, i) => i === keep || (i !== k - 1 && i !== k && i !== k + 1));
    }
  }
  return pts;
}

/** the x in [a, b] where |e| peaks, from the grid point x0, by Newton steps on e'(x) = 0 */
function newtonPeak(e, a, b, x0) {
  const h = ONE >> 90n;
  let x = x0;
  for (let it = 0; it < 12; it++) {
    const em = e(x - h);
    const e0 = e(x);
    const ep = e(x + h);
    const d1 = (ep - em) / 2n; // h e'(x) at scale h: both differences share the factor h
    const d2 = ep - 2n * e0 + em; // h^2 e''(x)
    if (d2 === 0n) break;
    const step = div(mul(h, d1), d2); // e'/e'' = h d1 / d2
    let nx = x - step;
    if (nx <= a || nx >= b) nx = (x + (nx <= a ? a : b)) / 2n; // stay inside the bracket
    if (abs(nx - x) < ONE >> 200n) return nx;
    x = nx;
  }
  return x;
}

/** f and w at x, memoized on x (the exchange evaluates the same points again and again) */
function sampler(f, w) {
  const cache = new Map();
  return (x) => {
    const key = x.toString(36);
    let r = cache.get(key);
    if (!r) cache.set(key, (r = { f: f(x), w: w(x) }));
    return r;
  };
}

/**
 * One exchange: the new reference is the alternating set of extrema of the error e (as many points as refs);
 * done when the largest of them equals the level |E| to 2^-150 relative, or the points moved by less than 2^-160.
 */
function exchange(e, E, refs, lo, hi, grid, who) {
  const m = refs.length;
  const pts = extrema(e, lo, hi, m, grid);
  if (pts.length !== m) throw new Error(`${who}: ${pts.length} alternation points, expected ${m}`);
  const max = pts.reduce((a, p) => (abs(p.v) > a ? abs(p.v) : a), 0n);
  const moved = pts.reduce((a, p, i) => (abs(p.x - refs[i]) > a ? abs(p.x - refs[i]) : a), 0n);
  return { refs: pts.map((p) => p.x), max, done: max - abs(E) <= abs(E) >> 150n || moved < ONE >> 160n };
}

/**
 * Minimax polynomial: c[j] for the terms x^powers[j] minimizing the largest |(sum_j c[j] x^powers[j] - f(x)) w(x)|
 * over [lo, hi].
 * The exchange starts from `start` (n + 1 points) if given, else from the n + 2 extrema of T_(n+1) less the
 * middle one: never the centre of the interval, where powers x^k (k >= 1) all vanish and the system is singular.
 * Returns { c, E (signed level), max (the largest |error| found), refs (the alternation points) }.
 */
export function remezPoly({ f, w = () => ONE, powers, lo, hi, grid = 600, maxIter = 40, start }) {
  const n = powers.length;
  const m = n + 1;
  const F = sampler(f, w);
  let refs = start ?? chebyshevPoints(lo, hi, m + 1).filter((_, i) => i !== m >> 1);
  if (refs.length !== m) throw new Error(`remezPoly: ${refs.length} starting points, expected ${m}`);
  for (let iter = 0; iter < maxIter; iter++) {
    const A = [];
    const b = [];
    refs.forEach((x, i) => {
      const { f: fx, w: wx } = F(x);
      A.push([...powers.map((p) => mul(pow(x, p), wx)), i % 2 === 0 ? ONE : -ONE]);
      b.push(mul(fx, wx));
    });
    const sol = solve(A, b);
    const c = sol.slice(0, n);
    const E = sol[n];
    const e = (x) => {
      const { f: fx, w: wx } = F(x);
      let s = 0n;
      for (let j = 0; j < n; j++) s += mul(c[j], pow(x, powers[j]));
      return mul(s - fx, wx);
    };
    const next = exchange(e, E, refs, lo, hi, grid, 'remezPoly');
    refs = next.refs;
    if (next.done) return { c, E, max: next.max, refs, iter };
  }
  throw new Error('remezPoly: no convergence');
}

/**
 * Minimax rational num(x)/den(x), degrees (dn, dd), den[0] = 1, minimizing max over [lo, hi] of
 * |(num/den - f) w|. Each reference solve is linearized: num(x_i) - f_i den(x_i) = s_i E den_prev(x_i) / w_i,
 * repeated with den_prev = den until E is stable; then the exchange as for polynomials.
 */
export function remezRational({ f, w, dn, dd, lo, hi, grid = 600, maxIter = 40 }) {
  const m = dn + dd + 2; // dn + 1 + dd unknown coefficients, plus E
  const F = sampler(f, w);
  let refs = chebyshevPoints(lo, hi, m, true);
  let num = new Array(dn + 1).fill(0n);
  let den = [ONE, ...new Array(dd).fill(0n)];
  for (let iter = 0; iter < maxIter; iter++) {
    let E = 0n;
    for (let inner = 0; inner < 60; inner++) {
      const A = [];
      const b = [];
      refs.forEach((x, i) => {
        const { f: fx, w: wx } = F(x);
        const row = [];
        for (let k = 0; k <= dn; k++) row.push(pow(x, k));
        for (let k = 1; k <= dd; k++) row.push(-mul(fx, pow(x, k)));
        const q = div(polyval(den, x), wx);
        row.push(i % 2 === 0 ? -q : q);
        A.push(row);
        b.push(fx);
      });
      const sol = solve(A, b);
      num = sol.slice(0, dn + 1);
      den = [ONE, ...sol.slice(dn + 1, dn + 1 + dd)];
      const En = sol[dn + 1 + dd];
      const done = abs(En - E) <= abs(En) >> 200n;
      E = En;
      if (done) break;
    }
    const e = (x) => {
      const { f: fx, w: wx } = F(x);
      return mul(div(polyval(num, x), polyval(den, x)) - fx, wx);
    };
    const next = exchange(e, E, refs, lo, hi, grid, 'remezRational');
    refs = next.refs;
    if (next.done) return { num, den, E, max: next.max, refs, iter };
  }
  throw new Error('remezRational: no convergence');
}
