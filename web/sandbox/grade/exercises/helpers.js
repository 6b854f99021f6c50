// Helpers the built-in exercises share: small float32 test tensors, float64 activations for variants.
import { erf } from '../../run/index.js';

export { f32 } from '../../../rng.js';

/** A float32 tensor of zeros. */
export const zerosF32 = (shape) => ({ data: new Float32Array(shape.reduce((p, s) => p * s, 1)), shape: shape.slice() });

/**
 * Test inputs for the overflow cases, exact in float32 so that the float32 reference has no rounding to hide
 * behind: `scale` times the identity (one token per input dimension), gate weights that are shuffled integers
 * with ±4 and ±3 in every row (so pre-activations reach ±750 and ±1000 at scale 250), and dyadic weights.
 */
export function overflowInputs(rng, { tokens, d, dff, scale = 250 }) {
  const X = new Float32Array(tokens * d);
  for (let t = 0; t < tokens; t++) X[t * d + (t % d)] = scale;
  const gate = new Float32Array(d * dff);
  for (let r = 0; r < d; r++) {
    const row = rng.shuffle([4, -4, 3, -3, ...Array.from({ length: dff - 4 }, () => rng.pick([-2, -1, 1, 2]))]);
    gate.set(row, r * dff);
  }
  const dyadic = (n, values) => Float32Array.from({ length: n }, () => rng.pick(values));
  return {
    X: { data: X, shape: [tokens, d] },
    gate: { data: gate, shape: [d, dff] },
    dyadic: (shape, values) => ({
      data: dyadic(
        shape.reduce((p, s) => p * s, 1),
        values,
      ),
      shape,
    }),
  };
}

export const sigmoid = (z) => 1 / (1 + Math.exp(-z));
export const silu = (z) => z * sigmoid(z);
export const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);
export const geluExact = (z) => 0.5 * z * (1 + erf(z / Math.SQRT2));
export const geluTanh = (z) => 0.5 * z * (1 + Math.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)));
