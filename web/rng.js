// A seeded random source (makeRng: mulberry32, hashSeed) and f32 test tensors, for the exercises and the trainer.

/** mulberry32: a small, fast, seedable PRNG. Returns helpers for floats in [0, 1), normals and float32 tensors. */
export function makeRng(seed) {
  let a = seed >>> 0;
  const next = () => mix((a = (a + STEP) >>> 0));
  /** dst (an array) filled with U(lo, hi) values: the values of dst.length uniform(lo, hi) calls, in one loop. */
  const fill = (dst, lo, hi) => {
    const w = hi - lo;
    let s = a;
    for (let i = 0; i < dst.length; i++) dst[i] = lo + w * mix((s = (s + STEP) >>> 0));
    a = s;
    return dst;
  };
  const normal = () => {
    const u = Math.max(next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
  const count = (shape) => shape.reduce((p, s) => p * s, 1);
  return {
    next,
    normal,
    uniform: (lo, hi) => lo + (hi - lo) * next(),
    /** An integer in [lo, hi]. */
    int: (lo, hi) => lo + Math.floor((hi - lo + 1) * next()),
    /** One of the values. */
    pick: (values) => values[Math.floor(values.length * next())],
    /** The values in a random order. */
    shuffle: (values) => {
      const out = values.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor((i + 1) * next());
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
    fill,
    /** A float32 tensor with N(0, scale^2) entries. */
    randn: (shape, scale = 1) => {
      const data = new Float32Array(count(shape));
      for (let i = 0; i < data.length; i++) data[i] = normal() * scale;
      return { data, shape: shape.slice() };
    },
    /** A float32 tensor with U(lo, hi) entries. */
    rand: (shape, lo, hi) => ({ data: fill(new Float32Array(count(shape)), lo, hi), shape: shape.slice() }),
  };
}

const STEP = 0x6d2b79f5; // mulberry32's increment of its state

/** mulberry32's output for the state t: a float in [0, 1). */
function mix(t) {
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** FNV-1a of the exercise id, salted with the seed: each exercise gets its own stream for a given seed. */
export function hashSeed(text, seed = 1) {
  let h = (2166136261 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}

/** A float32 tensor from a list of values (shape defaults to 1-D). */
export const f32 = (values, shape) => ({ data: Float32Array.from(values), shape: shape || [values.length] });
