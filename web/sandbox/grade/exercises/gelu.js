// Exercise "gelu" (course cell 1, warm-up): exact GELU and its tanh approximation, for tensors of any shape.
import { map } from '../../run/index.js';
import { f32, zerosF32, sigmoid, geluExact, geluTanh, SQRT_2_OVER_PI } from './helpers.js';

export default {
  id: 'gelu',
  number: 1,
  level: 'Warm-up',
  title: 'GELU, exact and approximate',
  functions: {
    gelu: { params: ['x (...)'], returns: 'tensor' },
    geluTanh: { params: ['x (...)'], returns: 'tensor' },
  },
  prompt: `<p>GELU weights its input by the probability that a standard normal variable falls below it: <code>GELU(z)
= z·Φ(z) = (z/2)·(1 + erf(z/√2))</code>. GPT-2 and many codebases use the tanh approximation <code>(z/2)·(1 +
tanh(√(2/π)·(z + 0.044715·z³)))</code>, which is close (within about 5e-4) but not equal.</p>
<p>Write <code>gelu(x)</code> (the exact erf form) and <code>geluTanh(x)</code> for a tensor <code>x</code> of any
shape. Return a tensor of the same shape. The toolkit gives you <code>erf</code> and <code>map</code>.</p>`,
  starter: `// x is a tensor {data, shape} of any shape; return a tensor of the same shape.
// The toolkit is in scope: map(x, f), erf(z), Math.tanh, ...

function gelu(x) {
  // exact: z * Phi(z) with Phi the standard normal CDF
  throw new Error('gelu: not written yet');
}

function geluTanh(x) {
  // the tanh approximation
  throw new Error('geluTanh: not written yet');
}
`,
  examples: [
    'gelu(tensor([-1, 0, 1, 2]))      -> data ≈ [-0.158655, 0, 0.841345, 1.954500], shape [4]',
    'geluTanh(tensor([-1, 0, 1, 2]))  -> data ≈ [-0.158808, 0, 0.841192, 1.954598], shape [4]',
  ],
  hints: [
    'Both functions are elementwise: write the scalar formula once and apply it with map(x, z => ...). ' +
      'map keeps the shape for you.',
    'Exact: Φ(z) = (1 + erf(z/√2)) / 2, and √2 is Math.SQRT2. Approximate: the constant in front of the bracket ' +
      'is √(2/π) = Math.sqrt(2 / Math.PI), and the cubic term is 0.044715·z³.',
    'gelu: map(x, z => 0.5 * z * (1 + erf(z / Math.SQRT2))). geluTanh: the same 0.5 * z * (1 + ...), with ' +
      'Math.tanh(c * (z + 0.044715 * z ** 3)) in the bracket. Check that you did not swap the two.',
  ],
  solution: `function gelu(x) {
  return map(x, (z) => 0.5 * z * (1 + erf(z / Math.SQRT2)));
}

function geluTanh(x) {
  const c = Math.sqrt(2 / Math.PI);
  return map(x, (z) => 0.5 * z * (1 + Math.tanh(c * (z + 0.044715 * z * z * z))));
}
`,
  tolerance: { atol: 1e-6, rtol: 1e-5 },
  tests(rng) {
    const inputs = [
      ['one', 'a single number, shape [1]', f32([rng.uniform(0.5, 2)])],
      ['seven', '7 values in [-4, 4]', rng.rand([7], -4, 4)],
      ['matrix', 'a 3×5 matrix', rng.rand([3, 5], -3, 3)],
      ['batch', 'a batch, shape [2,3,5]', rng.rand([2, 3, 5], -3, 3)],
      ['zeros', 'zeros', zerosF32([6])],
      ['large', 'large magnitudes (±10, ±50, ±1e4)', f32([10, -10, 50, -50, 1e4, -1e4])],
      [
        'overflow',
        "beyond exp's range, where naive formulas overflow (±300, ±710, ±1000)",
        f32([300, -300, 710, -710, 1000, -1000]),
      ],
      ['minimum', 'near the minimum, about -0.170 at z ≈ -0.752', f32([-0.752, -0.76, -0.74])],
      ['nan', 'NaN passes through', f32([NaN, 1.5, -1.5])],
    ];
    const prefix = { gelu: 'gelu', geluTanh: 'gelu-tanh' };
    return ['gelu', 'geluTanh'].flatMap((fn) =>
      inputs.map(([id, name, x]) => ({ id: `${prefix[fn]}-${id}`, name: `${fn}: ${name}`, fn, args: [x] })),
    );
  },
  reference: {
    gelu: ([x], api) => api.gelu(x),
    geluTanh: ([x], api) => api.geluTanh(x),
  },
  variants: [
    {
      id: 'gelu-swapped',
      fn: 'gelu',
      title: 'Exact and tanh GELU swapped',
      message:
        'Your gelu matches the tanh approximation. gelu should be the exact form with erf; the tanh formula ' +
        'belongs in geluTanh.',
      compute: ([x]) => map(x, geluTanh),
    },
    {
      id: 'gelu-swapped',
      fn: 'geluTanh',
      title: 'Exact and tanh GELU swapped',
      message:
        'Your geluTanh matches the exact erf form. geluTanh is the approximation with ' +
        'tanh(√(2/π)(z + 0.044715 z³)).',
      compute: ([x]) => map(x, geluExact),
    },
    {
      id: 'gelu-sigmoid-form',
      fn: 'gelu',
      title: 'The 1.702-sigmoid form',
      message:
        'Your gelu matches z·σ(1.702 z), the cruder sigmoid approximation (off by up to about 0.02). ' +
        'Use the erf form.',
      compute: ([x]) => map(x, (z) => z * sigmoid(1.702 * z)),
    },
    {
      id: 'gelu-sigmoid-form',
      fn: 'geluTanh',
      title: 'The 1.702-sigmoid form',
      message:
        'Your geluTanh matches z·σ(1.702 z), a different and cruder approximation. The tanh form is ' +
        '(z/2)(1 + tanh(√(2/π)(z + 0.044715 z³))).',
      compute: ([x]) => map(x, (z) => z * sigmoid(1.702 * z)),
    },
    {
      id: 'gelu-missing-half',
      fn: 'gelu',
      title: 'Missing the factor 1/2',
      message:
        'Your gelu is exactly twice GELU: the formula is (z/2)(1 + erf(z/√2)). Large positive inputs should ' +
        'come out unchanged, not doubled.',
      compute: ([x]) => map(x, (z) => 2 * geluExact(z)),
    },
    {
      id: 'gelu-missing-half',
      fn: 'geluTanh',
      title: 'Missing the factor 1/2',
      message: 'Your geluTanh is exactly twice the approximation: the formula starts with z/2.',
      compute: ([x]) => map(x, (z) => 2 * geluTanh(z)),
    },
    {
      id: 'gelu-missing-cubic',
      fn: 'geluTanh',
      title: 'Missing the cubic term',
      message: 'Your geluTanh leaves out 0.044715·z³ inside the tanh; the argument is √(2/π)·(z + 0.044715·z³).',
      compute: ([x]) => map(x, (z) => 0.5 * z * (1 + Math.tanh(SQRT_2_OVER_PI * z))),
    },
  ],
};
