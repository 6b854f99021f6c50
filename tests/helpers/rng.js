// The one seeded generator of the tests (mulberry32), with no imports so that any engine can load it
// (tests/engines/battery.mjs runs in jsc and gjs); helpers/numeric.js re-exports it.

/** mulberry32: small deterministic PRNG returning floats in [0, 1). */
export function rng(seed = 1) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
