// Test helpers: the one seeded PRNG, float32 ulps, and closeness assertions with stated tolerances.
import assert from 'node:assert/strict';

export { rng } from './rng.js';
export { ulp32, ulpDistance } from './ulps.js';
import { ulp32 } from './ulps.js';

/** A float32 tensor of uniform values in [lo, hi). */
export function randTensor(rand, shape, lo = -1, hi = 1) {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = lo + (hi - lo) * rand();
  return { data, shape };
}

/** Largest error in float32 ulps of the reference value; NaN/inf must match exactly. */
export function maxUlpError(actual, expected) {
  let worst = 0;
  let where = -1;
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i];
    const e = expected[i];
    if (Number.isNaN(e) || !Number.isFinite(e)) {
      if (!Object.is(a, e) && !(Number.isNaN(a) && Number.isNaN(e))) return { ulps: Infinity, where: i };
      continue;
    }
    const u = Math.abs(a - e) / ulp32(e);
    if (!(u <= worst)) {
      worst = u;
      where = i;
    }
  }
  return { ulps: worst, where };
}

/**
 * Assert |actual - expected| <= atol + rtol * scale elementwise, where scale defaults to |expected|.
 * `scale` may be an array (e.g. the float64 sum of |terms| of each dot product, the natural error scale of a matmul).
 */
export function assertClose(actual, expected, { rtol = 1e-5, atol = 0, scale = null, msg = '' } = {}) {
  const a = actual.data ?? actual;
  const e = expected.data ?? expected;
  if (actual.shape && expected.shape) assert.deepEqual(actual.shape, expected.shape, `${msg} shape`);
  assert.equal(a.length, e.length, `${msg} length`);
  for (let i = 0; i < e.length; i++) {
    const s = scale ? (scale.data ?? scale)[i] : Math.abs(e[i]);
    const tol = atol + rtol * s;
    if (Number.isNaN(e[i])) {
      assert.ok(Number.isNaN(a[i]), `${msg} [${i}]: expected NaN, got ${a[i]}`);
      continue;
    }
    if (!(Math.abs(a[i] - e[i]) <= tol) && !(a[i] === e[i])) {
      assert.fail(`${msg} [${i}]: got ${a[i]}, expected ${e[i]} (|diff| ${Math.abs(a[i] - e[i])} > tol ${tol})`);
    }
  }
}

/** Elementwise absolute value of a tensor (for error scales). */
export function absT(t) {
  return { data: Float64Array.from(t.data, Math.abs), shape: t.shape };
}

const f32 = new Float32Array(1);
const i32 = new Int32Array(f32.buffer);
/** The float32 next to float32 r in the direction of d (d != r). */
function nextToward(r, d) {
  if (r === 0) return d > 0 ? 2 ** -149 : -(2 ** -149);
  f32[0] = r;
  i32[0] += d > r === r > 0 ? 1 : -1;
  return f32[0];
}

/**
 * fl32(a * b + c) with one rounding (a fused multiply-add) for float32 a, b, c: a * b is exact in float64,
 * TwoSum gives the float64 sum s and its error e exactly, and e decides only a tie of s between two floats.
 */
export function fma32(a, b, c) {
  const p = a * b;
  const s = p + c;
  const r = Math.fround(s);
  if (!Number.isFinite(s) || r === s) return r;
  const bv = s - p;
  const e = p - (s - bv) + (c - bv); // s + e == p + c exactly
  if (e === 0) return r;
  const other = nextToward(r, s); // s lies strictly between r and other
  if (s !== (r + other) / 2) return r; // not a tie: e (far below half a float32 step) cannot move it
  return e > 0 === other > r ? other : r;
}

/**
 * A (M,K) @ B (K,N) with every element summed in order k = 0..K-1 by fused multiply-adds (fma32), then C0
 * (M,N) added if given: what a GEMM whose multiply-adds the engine fuses computes.
 */
export function fusedInOrderMatmul(A, B, M, K, N, C0 = null) {
  const F = new Float32Array(M * N);
  for (let i = 0; i < M; i++)
    for (let j = 0; j < N; j++) {
      let acc = 0;
      for (let k = 0; k < K; k++) acc = fma32(A[i * K + k], B[k * N + j], acc);
      F[i * N + j] = C0 ? Math.fround(C0[i * N + j] + acc) : acc;
    }
  return F;
}
