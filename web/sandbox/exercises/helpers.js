// Helpers the built-in exercises share: small float32 test tensors, float64 activations for variants.
import { erf } from '../toolkit.js';

/** A float32 tensor from a list of values (shape defaults to 1-D). */
export const f32 = (values, shape) => ({ data: Float32Array.from(values), shape: shape || [values.length] });

/** A float32 tensor of zeros. */
export const zerosF32 = (shape) => ({ data: new Float32Array(shape.reduce((p, s) => p * s, 1)), shape: shape.slice() });

export const sigmoid = (z) => 1 / (1 + Math.exp(-z));
export const silu = (z) => z * sigmoid(z);
export const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);
export const geluExact = (z) => 0.5 * z * (1 + erf(z / Math.SQRT2));
export const geluTanh = (z) => 0.5 * z * (1 + Math.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)));
