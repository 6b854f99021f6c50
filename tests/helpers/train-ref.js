// Float64 references and comparisons for the training kernels (tests/kernels/train*.test.js): the FFN forwards and
// central differences, softmax cross-entropy, AdamW, a Cholesky solve, and closeness with stated error scales.
import assert from 'node:assert/strict';
import { act as act64 } from './ref.js';

export const EPS32 = 2 ** -24; // float32 unit roundoff

export const sameBits = (a, b) => (Number.isNaN(a) && Number.isNaN(b)) || Object.is(a, b);
/** |a - b| <= tol (scale + |b|); NaN only against NaN, infinities only equal */
export function closeTo(a, b, tol, scale = 1) {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
  return Math.abs(a - b) <= tol * (scale + Math.abs(b));
}
/**
 * Elementwise closeTo with the error scale of a sum of products: the largest |b| of the tensor (at least 1), since
 * the summation order (and under relaxed SIMD the fused multiply-adds) of the GEMM differ from the reference's
 */
export function assertAllClose(a, b, tol, label) {
  assert.equal(a.length, b.length, `${label} length`);
  const scale = b.reduce((m, v) => (Number.isFinite(v) ? Math.max(m, Math.abs(v)) : m), 1);
  for (let i = 0; i < a.length; i++) assert.ok(closeTo(a[i], b[i], tol, scale), `${label}[${i}]: ${a[i]} vs ${b[i]}`);
}
export function assertSameBits(a, b, label) {
  for (let i = 0; i < b.length; i++) assert.ok(sameBits(a[i], b[i]), `${label}[${i}]: ${a[i]} vs ${b[i]}`);
}

/** float64 forward of the classic FFN: Y = act(X W1 + b1) W2 + b2 (plain arrays, row-major) */
export function ffn64(name, X, W1, b1, W2, b2, T, d, F) {
  const Y = new Float64Array(T * d);
  for (let t = 0; t < T; t++) {
    for (let j = 0; j < F; j++) {
      let h = b1[j];
      for (let c = 0; c < d; c++) h += X[t * d + c] * W1[c * F + j];
      const a = act64(name, h);
      for (let c = 0; c < d; c++) Y[t * d + c] += a * W2[j * d + c];
    }
    for (let c = 0; c < d; c++) Y[t * d + c] += b2[c];
  }
  return Y;
}

/** float64 forward of the gated FFN: Y = (act(X Wg) * X Wu) Wd */
export function gated64(name, X, Wg, Wu, Wd, N, d, F) {
  const Y = new Float64Array(N * d);
  for (let t = 0; t < N; t++) {
    for (let j = 0; j < F; j++) {
      let g = 0;
      let u = 0;
      for (let c = 0; c < d; c++) ((g += X[t * d + c] * Wg[c * F + j]), (u += X[t * d + c] * Wu[c * F + j]));
      const h = act64(name, g) * u;
      for (let c = 0; c < d; c++) Y[t * d + c] += h * Wd[j * d + c];
    }
  }
  return Y;
}

/**
 * d/dp of L = sum(dY * f(params)) for every entry of every params[i], by central differences in float64 with a
 * step of 1e-6 (truncation ~1e-12 times the third derivative, roundoff ~1e-10).
 */
export function numericGrads(f, params, dY) {
  const loss = () => f(...params).reduce((s, y, i) => s + y * dY[i], 0);
  const h = 1e-6;
  return params.map((p) =>
    Float64Array.from(p, (v, i) => {
      p[i] = v + h;
      const up = loss();
      p[i] = v - h;
      const down = loss();
      p[i] = v;
      return (up - down) / (2 * h);
    }),
  );
}

/**
 * A float32 kernel gradient against the float64 numeric one: |g - num| <= 1e-4 (max |num| + |num|). The kernel
 * sums a handful of float32 products (relative error ~1e-7 each) and its activation derivative is float32 accurate,
 * so 1e-4 leaves room while a wrong term (an error of the order of the gradient itself) fails.
 */
export function assertGradClose(got, num, label) {
  const big = num.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  for (let i = 0; i < num.length; i++) {
    assert.ok(Math.abs(got[i] - num[i]) <= 1e-4 * (big + Math.abs(num[i])), `${label}[${i}]: ${got[i]} vs ${num[i]}`);
  }
}

/** X, W1, b1 (zeros when !bias) with every pre-activation at least 0.05 away from 0 (relu and relu2 have a kink) */
export function awayFromKink(randArray, T, d, F, bias = true) {
  for (;;) {
    const [X, W1, b1] = [randArray(T * d, -2, 2), randArray(d * F), bias ? randArray(F) : new Float32Array(F)];
    let ok = true;
    for (let t = 0; t < T; t++)
      for (let j = 0; j < F; j++) {
        let h = b1[j];
        for (let c = 0; c < d; c++) h += X[t * d + c] * W1[c * F + j];
        if (Math.abs(h) < 0.05) ok = false;
      }
    if (ok) return [X, W1, b1];
  }
}

/** float64 reference: { loss, correct, d } for logits (N,V) as float32 values, targets (N) */
export function softmaxCe64(logits, targets, N, V) {
  let total = 0;
  let correct = 0;
  const d = new Float64Array(N * V);
  for (let i = 0; i < N; i++) {
    const row = Array.from(logits.subarray(i * V, i * V + V));
    const t = targets[i];
    if (row.some(Number.isNaN) || !Number.isFinite(Math.max(...row))) {
      total = NaN;
      d.fill(NaN, i * V, i * V + V);
      continue;
    }
    const mx = Math.max(...row);
    const arg = row.indexOf(mx);
    correct += arg === t ? 1 : 0;
    const e = row.map((x) => Math.exp(x - mx));
    const sum = e.reduce((a, b) => a + b, 0);
    total += mx + Math.log(sum) - row[t];
    e.forEach((v, j) => (d[i * V + j] = (v / sum - (j === t ? 1 : 0)) / N));
  }
  return { loss: N ? total / N : NaN, correct, d };
}

/** rows of logits: plain, +-1e4, huge spreads, -inf entries, a NaN row, a +inf row, ties for the argmax */
export function logitRows(randArray, rand, N, V, kind) {
  const L = randArray(N * V, -5, 5);
  for (let i = 0; i < N; i++) {
    const r = (j) => i * V + j;
    if (kind === 'large') for (let j = 0; j < V; j++) L[r(j)] = rand() < 0.5 ? 1e4 * (rand() * 2 - 1) : 1e4;
    if (kind === 'special' && V > 1) {
      if (i % 4 === 1) L[r(V - 1)] = NaN;
      if (i % 4 === 2) L[r(0)] = -Infinity;
      if (i % 4 === 3) L[r(Math.floor(V / 2))] = Infinity;
      if (i % 4 === 0) L[r(V - 1)] = L[r(0)]; // a tie: the first maximum counts
    }
  }
  return L;
}

/** a random SPD matrix (M M^T / n + I, condition number below ~5) rounded to float32 */
export function randomSpd(randArray, n) {
  const M = randArray(n * n);
  const A = new Float32Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j <= i; j++) {
      let s = i === j ? 1 : 0;
      for (let c = 0; c < n; c++) s += (M[i * n + c] * M[j * n + c]) / n;
      A[i * n + j] = A[j * n + i] = s;
    }
  return A;
}

/** float64 Cholesky solve of A X = B (A, B float32 values; B (n,r)) */
export function solve64(A, B, n, r) {
  const L = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j <= i; j++) {
      let s = A[i * n + j];
      for (let c = 0; c < j; c++) s -= L[i * n + c] * L[j * n + c];
      L[i * n + j] = i === j ? Math.sqrt(s) : s / L[j * n + j];
    }
  const X = Float64Array.from(B);
  for (let c = 0; c < r; c++) {
    for (let i = 0; i < n; i++) {
      let s = X[i * r + c];
      for (let q = 0; q < i; q++) s -= L[i * n + q] * X[q * r + c];
      X[i * r + c] = s / L[i * n + i];
    }
    for (let i = n - 1; i >= 0; i--) {
      let s = X[i * r + c];
      for (let q = i + 1; q < n; q++) s -= L[q * n + i] * X[q * r + c];
      X[i * r + c] = s / L[i * n + i];
    }
  }
  return X;
}

/** lr, beta1, beta2, eps, weight decay of the AdamW tests (the kernel's float arguments, rounded by the caller) */
export const ADAMW_OPTS = [0.03, 0.9, 0.999, 1e-8, 0.01];

/** steps gradients (n) in [-1, 1), every 7th entry 0 (m and v then decay: den near eps for some entries) */
export function adamwGrads(randArray, n, steps) {
  return Array.from({ length: steps }, () => randArray(n).map((x, i) => (i % 7 ? x : 0)));
}

/**
 * Float64 AdamW (torch.optim.AdamW) from p0 over grads[t-1] at steps t = 1.., with opts = [lr, b1, b2, eps, wd]:
 * { P, M, V, bound }. bound is the float32 error allowed per element, summed over steps: the decayed p is rounded
 * (eps |p|) and the update carries v's relative error (3 roundings a step, so <= 3 t eps; sqrt halves it) plus ~35
 * eps from m, the scalars and the quotient; the bound doubles that: 2 eps |p| + (3 t + 70) eps |dp| per step.
 */
export function adamw64(p0, grads, [lr, b1, b2, eps, wd]) {
  const n = p0.length;
  const [P, M, V, bound] = [Float64Array.from(p0), new Float64Array(n), new Float64Array(n), new Float64Array(n)];
  grads.forEach((g, s) => {
    const t = s + 1;
    for (let i = 0; i < n; i++) {
      P[i] *= 1 - lr * wd;
      M[i] = b1 * M[i] + (1 - b1) * g[i];
      V[i] = b2 * V[i] + (1 - b2) * g[i] * g[i];
      const dp = (lr * (M[i] / (1 - b1 ** t))) / (Math.sqrt(V[i] / (1 - b2 ** t)) + eps);
      P[i] -= dp;
      bound[i] += EPS32 * (2 * Math.abs(P[i]) + (3 * t + 70) * Math.abs(dp));
    }
  });
  return { P, M, V, bound };
}

/** a kernel's p, m, v after the steps against adamw64's result: p within its bound, m and v to ~1e-5 relative */
export function assertAdamwClose(p, m, v, ref, label) {
  for (let i = 0; i < p.length; i++) {
    assert.ok(Math.abs(p[i] - ref.P[i]) <= ref.bound[i], `${label} p[${i}] ${p[i]} vs ${ref.P[i]} (${ref.bound[i]})`);
    assert.ok(Math.abs(m[i] - ref.M[i]) <= 1e-5 * (Math.abs(ref.M[i]) + 1e-3), `${label} m[${i}]`);
    assert.ok(Math.abs(v[i] - ref.V[i]) <= 1e-4 * Math.abs(ref.V[i]) + 1e-12, `${label} v[${i}]`);
  }
}
