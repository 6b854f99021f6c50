// Float32 ulps, the one definition the tests and the bench use; no imports, so a page or another engine can load it
// (helpers/numeric.js re-exports it).

/** Spacing of float32 numbers at |v| (subnormal spacing below 2^-126): 2^(e - 23) for 2^e <= |v| < 2^(e + 1). */
export function ulp32(v) {
  const a = Math.abs(v);
  if (!Number.isFinite(a)) return NaN;
  if (a < 2 ** -126) return 2 ** -149;
  let e = Math.floor(Math.log2(a)); // log2 may round across a power of two: set e exactly
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  return 2 ** (e - 23);
}

/**
 * How many float32 values apart float32 a and b are (order-preserving integer map); NaN matches only NaN.
 * Self-contained (tests/bench/activations.js runs its source in a page).
 */
export function ulpDistance(a, b) {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b) ? 0 : Infinity;
  if (a === b) return 0;
  const bits = new Int32Array(Float32Array.of(a, b).buffer);
  const m = (i) => (i < 0 ? -2147483648 - i : i);
  return Math.abs(m(bits[0]) - m(bits[1]));
}
