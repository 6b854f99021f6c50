// The exercise catalog: prompts, starters, hints and solutions (shown to learners), plus the page-side hidden-test generators and known-wrong variants (never sent to the worker).
import { expect } from './compare.js';
import * as tk from './toolkit.js';

/* ---------------- seeded data ---------------- */

/** mulberry32: a small, fast, seedable PRNG returning floats in [0, 1). */
export function makeRng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = () => {
    const u = Math.max(next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
  return {
    next,
    normal,
    uniform: (lo, hi) => lo + (hi - lo) * next(),
    /** A float32 tensor with N(0, scale^2) entries. */
    randn: (shape, scale = 1) => {
      const n = shape.reduce((p, s) => p * s, 1);
      const data = new Float32Array(n);
      for (let i = 0; i < n; i++) data[i] = normal() * scale;
      return { data, shape: shape.slice() };
    },
    /** A float32 tensor with U(lo, hi) entries. */
    rand: (shape, lo, hi) => {
      const n = shape.reduce((p, s) => p * s, 1);
      const data = new Float32Array(n);
      for (let i = 0; i < n; i++) data[i] = lo + (hi - lo) * next();
      return { data, shape: shape.slice() };
    },
  };
}

export function hashSeed(text, seed = 1) {
  let h = (2166136261 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}

const f32 = (values, shape) => ({ data: Float32Array.from(values), shape: shape || [values.length] });
const zerosF32 = (shape) => ({ data: new Float32Array(shape.reduce((p, s) => p * s, 1)), shape: shape.slice() });

/* ---------------- float64 helpers for the known-wrong variants ---------------- */

const sigmoid = (z) => 1 / (1 + Math.exp(-z));
const silu = (z) => z * sigmoid(z);
const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);
const geluExact = (z) => 0.5 * z * (1 + tk.erf(z / Math.SQRT2));
const geluTanh = (z) => 0.5 * z * (1 + Math.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)));
const { matmul, transpose, map, mul, add } = tk;

function roundUp(h, m) {
  return m * Math.ceil(h / m);
}

/** LLaMA's optional ffnDimMultiplier step: the integer part of mult * h, or h when there is no multiplier. */
function applyMultiplier(h, mult) {
  return mult != null ? Math.trunc(mult * h) : h;
}

/** Top-k by a stable sort of the indices (descending: ties by lower index). */
function topK(values, k, { ascendingTail = false, tieHigh = false, smallest = false } = {}) {
  const idx = Array.from(values, (_, i) => i);
  if (ascendingTail) return idx.sort((i, j) => values[i] - values[j]).slice(values.length - k);
  if (smallest) return idx.sort((i, j) => values[i] - values[j]).slice(0, k);
  if (tieHigh) return idx.sort((i, j) => values[j] - values[i] || j - i).slice(0, k);
  return idx.sort((i, j) => values[j] - values[i]).slice(0, k);
}

function memories(x, W1, b1, W2, k, opts = {}) {
  const pre = add(matmul(x, W1), b1);
  const coef = opts.noRelu ? pre : map(pre, (z) => Math.max(0, z));
  const top = topK(coef.data, k, opts);
  const d = x.shape[x.shape.length - 1];
  const partial = new Float64Array(d);
  const which = opts.all ? Array.from(coef.data, (_, i) => i) : top;
  for (const i of which) for (let j = 0; j < d; j++) partial[j] += coef.data[i] * W2.data[i * d + j];
  return { coef, top, partial: { data: partial, shape: [d] } };
}

function swigluBackward64(dY, X, Wg, Wu, Wd, bug = {}) {
  const G = matmul(X, Wg);
  const U = matmul(X, Wu);
  const A = map(G, silu);
  const H = mul(A, U);
  const dWDown = matmul(transpose(H), dY);
  const dH = matmul(dY, transpose(Wd));
  const dU = bug.dUWithoutA ? dH : mul(dH, A);
  const slope = map(G, (g) => {
    const s = sigmoid(g);
    return bug.siluPrimeSigma ? s * (1 - s) : s * (1 + g * (1 - s));
  });
  const dG = bug.dGWithoutU ? mul(dH, slope) : mul(mul(dH, U), slope);
  const dWGate = matmul(transpose(X), dG);
  const dWUp = matmul(transpose(X), dU);
  const fromGate = matmul(dG, transpose(Wg));
  const fromUp = matmul(dU, transpose(Wu));
  const dX = bug.dXOnlyGate ? fromGate : bug.dXOnlyUp ? fromUp : add(fromGate, fromUp);
  if (bug.transposed) return { dX, dWGate: transpose(dWGate), dWUp: transpose(dWUp), dWDown: transpose(dWDown) };
  return { dX, dWGate, dWUp, dWDown };
}

function gqaCounts(d, nHeads, nKv, dHead, hidden, bug = {}) {
  const inner = bug.dForHeads ? d : nHeads * dHead;
  const kvInner = bug.dForHeads ? (d / nHeads) * nKv : nKv * dHead;
  const attention = bug.kvAsFull ? 2 * d * inner + 2 * d * inner : 2 * d * inner + 2 * d * kvInner;
  const ffn = (bug.ffnTwo ? 2 : 3) * d * hidden;
  let ffnShare = ffn / (attention + ffn);
  if (bug.ratio) ffnShare = ffn / attention;
  if (bug.percent) ffnShare *= 100;
  return { attention, ffn, ffnShare };
}

/* ---------------- the catalog ---------------- */

const GELU_STARTER = `// x is a tensor {data, shape} of any shape; return a tensor of the same shape.
// The toolkit is in scope: map(x, f), erf(z), Math.tanh, ...

function gelu(x) {
  // exact: z * Phi(z) with Phi the standard normal CDF
  throw new Error('gelu: not written yet');
}

function geluTanh(x) {
  // the tanh approximation
  throw new Error('geluTanh: not written yet');
}
`;

const GELU_SOLUTION = `function gelu(x) {
  return map(x, (z) => 0.5 * z * (1 + erf(z / Math.SQRT2)));
}

function geluTanh(x) {
  const c = Math.sqrt(2 / Math.PI);
  return map(x, (z) => 0.5 * z * (1 + Math.tanh(c * (z + 0.044715 * z * z * z))));
}
`;

const FFN_STARTER = `// X (..., d), W1 (d, dFF), b1 (dFF), W2 (dFF, d), b2 (d); all tensors {data, shape}.
// Use the tanh GELU, as GPT-2 does. Toolkit: matmul, add (broadcasts a bias row), map, ...

function ffn(X, W1, b1, W2, b2) {
  throw new Error('ffn: not written yet');
}

function ffnParamCount(d, dFF, bias = true, gated = false) {
  throw new Error('ffnParamCount: not written yet');
}
`;

const FFN_SOLUTION = `function geluTanhScalar(z) {
  const c = Math.sqrt(2 / Math.PI);
  return 0.5 * z * (1 + Math.tanh(c * (z + 0.044715 * z * z * z)));
}

function ffn(X, W1, b1, W2, b2) {
  const H = map(add(matmul(X, W1), b1), (z) => geluTanhScalar(z));
  return add(matmul(H, W2), b2);
}

function ffnParamCount(d, dFF, bias = true, gated = false) {
  const weights = (gated ? 3 : 2) * d * dFF;
  const biases = bias ? (gated ? 2 * dFF : dFF) + d : 0;
  return weights + biases;
}
`;

const SWIGLU_STARTER = `// X (..., d), Wg and Wu (d, dFF), Wd (dFF, d); no biases. SiLU(z) = z * sigmoid(z).
// Toolkit: matmul, map, mul (elementwise), ...

function swigluFfn(X, Wg, Wu, Wd) {
  throw new Error('swigluFfn: not written yet');
}

function llamaHiddenDim(d, multipleOf = 256, ffnDimMultiplier = null) {
  throw new Error('llamaHiddenDim: not written yet');
}
`;

const SWIGLU_SOLUTION = `function silu(z) {
  return z / (1 + Math.exp(-z));
}

function swigluFfn(X, Wg, Wu, Wd) {
  const A = map(matmul(X, Wg), (z) => silu(z));
  const U = matmul(X, Wu);
  return matmul(mul(A, U), Wd);
}

function llamaHiddenDim(d, multipleOf = 256, ffnDimMultiplier = null) {
  let hidden = Math.trunc((2 * (4 * d)) / 3);
  if (ffnDimMultiplier != null) hidden = Math.trunc(ffnDimMultiplier * hidden);
  return multipleOf * Math.ceil(hidden / multipleOf);
}
`;

const BACKWARD_STARTER = `// dY and X (N, d), Wg and Wu (d, dFF), Wd (dFF, d).
// Recompute G = X Wg, U = X Wu, A = SiLU(G), H = A * U, then go backwards.
// Return { dX, dWGate, dWUp, dWDown }. Toolkit: matmul, transpose, map, mul, add, ...

function swigluBackward(dY, X, Wg, Wu, Wd) {
  throw new Error('swigluBackward: not written yet');
}
`;

const BACKWARD_SOLUTION = `function sigmoid(z) {
  return 1 / (1 + Math.exp(-z));
}

function swigluBackward(dY, X, Wg, Wu, Wd) {
  const G = matmul(X, Wg);
  const U = matmul(X, Wu);
  const A = map(G, (g) => g * sigmoid(g));
  const H = mul(A, U);

  const dWDown = matmul(transpose(H), dY);
  const dH = matmul(dY, transpose(Wd));
  const dU = mul(dH, A);
  const slope = map(G, (g) => {
    const s = sigmoid(g);
    return s * (1 + g * (1 - s));
  });
  const dG = mul(mul(dH, U), slope);

  const dWGate = matmul(transpose(X), dG);
  const dWUp = matmul(transpose(X), dU);
  const dX = add(matmul(dG, transpose(Wg)), matmul(dU, transpose(Wu)));
  return { dX, dWGate, dWUp, dWDown };
}
`;

const MEMORIES_STARTER = `// One token x (d). W1 (d, dFF): column i is key i. b1 (dFF). W2 (dFF, d): row i is value i.
// Return { coef, top, partial }: coef (dFF), top (k indices, largest first, ties by lower index),
// partial (d). Toolkit: matmul, add, map, row, range, zeros, ...

function ffnMemories(x, W1, b1, W2, k) {
  throw new Error('ffnMemories: not written yet');
}
`;

const MEMORIES_SOLUTION = `function ffnMemories(x, W1, b1, W2, k) {
  const coef = map(add(matmul(x, W1), b1), (z) => Math.max(0, z));
  // Array.prototype.sort is stable, so equal coefficients keep the lower index first.
  const order = range(coef.data.length).sort((i, j) => coef.data[j] - coef.data[i]);
  const top = order.slice(0, k);
  let partial = zeros([shapeOf(x)[0]]);
  for (const i of top) {
    partial = add(partial, map(row(W2, i), (v) => coef.data[i] * v));
  }
  return { coef, top, partial };
}
`;

const GQA_STARTER = `// Bias-free projection weights of one attention + SwiGLU block with grouped-query attention.
// Return { attention, ffn, ffnShare } with ffnShare = ffn / (attention + ffn), a fraction.

function gqaBlockCounts(d, nHeads, nKvHeads, dHead, hidden) {
  throw new Error('gqaBlockCounts: not written yet');
}

// The gated width g that matches the weights of a two-matrix FFN of width m.
function matchedGatedWidth(m) {
  throw new Error('matchedGatedWidth: not written yet');
}
`;

const GQA_SOLUTION = `function gqaBlockCounts(d, nHeads, nKvHeads, dHead, hidden) {
  const q = d * nHeads * dHead;
  const kv = 2 * d * nKvHeads * dHead;
  const o = nHeads * dHead * d;
  const attention = q + kv + o;
  const ffn = 3 * d * hidden;
  return { attention, ffn, ffnShare: ffn / (attention + ffn) };
}

function matchedGatedWidth(m) {
  // 3 d g = 2 d m
  return (2 * m) / 3;
}
`;

/**
 * Each exercise: id, number, title, level, prompt (trusted HTML written by us), functions, starter, examples,
 * hints (3, progressive), solution, tolerance, tests(rng, api) -> [{ name, fn, args, expected }],
 * variants: [{ id, fn, title, message, compute(args, api) -> value, anyOf? }].
 */
export const exercises = [
  {
    id: 'gelu',
    number: 1,
    level: 'Warm-up',
    title: 'GELU, exact and approximate',
    functions: ['gelu', 'geluTanh'],
    prompt: `<p>GELU weights its input by the probability that a standard normal variable falls below it:
<code>GELU(z) = z·Φ(z) = (z/2)·(1 + erf(z/√2))</code>. GPT-2 and many codebases use the tanh approximation
<code>(z/2)·(1 + tanh(√(2/π)·(z + 0.044715·z³)))</code>, which is close (within about 5e-4) but not equal.</p>
<p>Write <code>gelu(x)</code> (the exact erf form) and <code>geluTanh(x)</code> for a tensor <code>x</code> of any shape.
Return a tensor of the same shape. The toolkit gives you <code>erf</code> and <code>map</code>.</p>`,
    starter: GELU_STARTER,
    examples: [
      'gelu(tensor([-1, 0, 1, 2]))      -> data ≈ [-0.158655, 0, 0.841345, 1.954500], shape [4]',
      'geluTanh(tensor([-1, 0, 1, 2]))  -> data ≈ [-0.158808, 0, 0.841192, 1.954598], shape [4]',
    ],
    hints: [
      'Both functions are elementwise: write the scalar formula once and apply it with map(x, z => ...). map keeps the shape for you.',
      'Exact: Φ(z) = (1 + erf(z/√2)) / 2, and √2 is Math.SQRT2. Approximate: the constant in front of the bracket is √(2/π) = Math.sqrt(2 / Math.PI), and the cubic term is 0.044715·z³.',
      'gelu: map(x, z => 0.5 * z * (1 + erf(z / Math.SQRT2))). geluTanh: the same 0.5 * z * (1 + ...), with Math.tanh(c * (z + 0.044715 * z ** 3)) in the bracket. Check that you did not swap the two.',
    ],
    solution: GELU_SOLUTION,
    tolerance: { atol: 1e-6, rtol: 1e-5 },
    tests(rng, api) {
      const inputs = [
        ['a single number, shape [1]', f32([rng.uniform(0.5, 2)])],
        ['7 values in [-4, 4]', rng.rand([7], -4, 4)],
        ['a 3×5 matrix', rng.rand([3, 5], -3, 3)],
        ['a batch, shape [2,3,5]', rng.rand([2, 3, 5], -3, 3)],
        ['zeros', zerosF32([6])],
        ['large magnitudes (±10, ±50, ±1e4)', f32([10, -10, 50, -50, 1e4, -1e4])],
        ['near the minimum, about -0.170 at z ≈ -0.752', f32([-0.752, -0.76, -0.74])],
        ['NaN passes through', f32([NaN, 1.5, -1.5])],
      ];
      const tests = [];
      for (const [fn, ref] of [['gelu', api.gelu], ['geluTanh', api.geluTanh]]) {
        for (const [name, x] of inputs) tests.push({ name: `${fn}: ${name}`, fn, args: [x], expected: expect.tensor(ref(x)) });
      }
      return tests;
    },
    variants: [
      { id: 'gelu-swapped', fn: 'gelu', title: 'Exact and tanh GELU swapped', message: 'Your gelu matches the tanh approximation. gelu should be the exact form with erf; the tanh formula belongs in geluTanh.', compute: ([x]) => map(x, geluTanh) },
      { id: 'gelu-swapped', fn: 'geluTanh', title: 'Exact and tanh GELU swapped', message: 'Your geluTanh matches the exact erf form. geluTanh is the approximation with tanh(√(2/π)(z + 0.044715 z³)).', compute: ([x]) => map(x, geluExact) },
      { id: 'gelu-sigmoid-form', fn: 'gelu', title: 'The 1.702-sigmoid form', message: 'Your gelu matches z·σ(1.702 z), the cruder sigmoid approximation (off by up to about 0.02). Use the erf form.', compute: ([x]) => map(x, (z) => z * sigmoid(1.702 * z)) },
      { id: 'gelu-sigmoid-form', fn: 'geluTanh', title: 'The 1.702-sigmoid form', message: 'Your geluTanh matches z·σ(1.702 z), a different and cruder approximation. The tanh form is (z/2)(1 + tanh(√(2/π)(z + 0.044715 z³))).', compute: ([x]) => map(x, (z) => z * sigmoid(1.702 * z)) },
      { id: 'gelu-missing-half', fn: 'gelu', title: 'Missing the factor 1/2', message: 'Your gelu is exactly twice GELU: the formula is (z/2)(1 + erf(z/√2)). Large positive inputs should come out unchanged, not doubled.', compute: ([x]) => map(x, (z) => 2 * geluExact(z)) },
      { id: 'gelu-missing-half', fn: 'geluTanh', title: 'Missing the factor 1/2', message: 'Your geluTanh is exactly twice the approximation: the formula starts with z/2.', compute: ([x]) => map(x, (z) => 2 * geluTanh(z)) },
      { id: 'gelu-missing-cubic', fn: 'geluTanh', title: 'Missing the cubic term', message: 'Your geluTanh leaves out 0.044715·z³ inside the tanh; the argument is √(2/π)·(z + 0.044715·z³).', compute: ([x]) => map(x, (z) => 0.5 * z * (1 + Math.tanh(SQRT_2_OVER_PI * z))) },
    ],
  },
  {
    id: 'ffn',
    number: 2,
    level: 'Core',
    title: 'The FFN forward pass and its parameter count',
    functions: ['ffn', 'ffnParamCount'],
    prompt: `<p>For a sequence <code>X</code> of shape <code>(..., d)</code> the feed-forward network applies the same two layers to every row:
<code>FFN(X) = GELU(X·W1 + b1)·W2 + b2</code>, with <code>W1 (d, dFF)</code>, <code>b1 (dFF)</code>, <code>W2 (dFF, d)</code>, <code>b2 (d)</code>.
Use the tanh GELU, as GPT-2 does. The output has the shape of <code>X</code>.</p>
<p>Also write <code>ffnParamCount(d, dFF, bias = true, gated = false)</code>. An ungated FFN has two <code>d × dFF</code> matrices and biases
<code>dFF + d</code>; a gated one (next exercise) has three matrices and biases <code>2·dFF + d</code>. GPT-2 small (d = 768, dFF = 3072) has 4,722,432 per layer.</p>`,
    starter: FFN_STARTER,
    examples: [
      'ffn(tensor([[1, 2]]), tensor([[1, 0, -1], [0, 1, 1]]), tensor([0, 0, 0.5]), tensor([[1, 0], [0, 1], [1, 1]]), tensor([0.1, -0.1]))  -> data ≈ [2.340764, 3.254169], shape [1,2]',
      'ffnParamCount(768, 3072)  -> 4722432',
    ],
    hints: [
      'Read it right to left in shapes: X (..., d) @ W1 (d, dFF) gives (..., dFF); add b1 to every row; apply GELU elementwise; @ W2 (dFF, d) gives back (..., d); add b2. The toolkit matmul already handles leading batch dimensions.',
      'add(A, b) broadcasts a bias row b over A\'s trailing dimension, so add(matmul(X, W1), b1) is the hidden pre-activation. For the count, weights are (gated ? 3 : 2)·d·dFF.',
      'ffn: add(matmul(map(add(matmul(X, W1), b1), geluTanh), W2), b2) with your scalar tanh GELU. Count: weights + (bias ? (gated ? 2·dFF : dFF) + d : 0). Make sure the defaults work when only d and dFF are passed.',
    ],
    solution: FFN_SOLUTION,
    tolerance: { atol: 2e-5, rtol: 2e-5 },
    tests(rng, api) {
      const tests = [];
      const make = (name, xShape, d, dff, opts = {}) => {
        const X = opts.zeroX ? zerosF32(xShape) : rng.randn(xShape, 1);
        const W1 = rng.randn([d, dff], 1.5 / Math.sqrt(d));
        const b1 = rng.randn([dff], 0.5);
        const W2 = rng.randn([dff, d], 1);
        const b2 = rng.randn([d], 0.5);
        tests.push({ name: `ffn: ${name}`, fn: 'ffn', args: [X, W1, b1, W2, b2], expected: expect.tensor(api.ffn(X, W1, b1, W2, b2, { activation: 'gelu_tanh' })) });
      };
      make('one token, d = 5, dFF = 12', [1, 5], 5, 12);
      make('4 tokens, d = 7 (not a multiple of 4), dFF = 20', [4, 7], 7, 20);
      make('a batch of 2×3 tokens, d = 6, dFF = 16', [2, 3, 6], 6, 16);
      make('a single vector x of shape [8], dFF = 8', [8], 8, 8);
      make('zero input (the output is GELU(b1)·W2 + b2)', [2, 5], 5, 9, { zeroX: true });
      make('d = 1, dFF = 3', [3, 1], 1, 3);
      const count = (name, args) => {
        const [d, dff, bias = true, gated = false] = args;
        tests.push({ name: `ffnParamCount: ${name}`, fn: 'ffnParamCount', args, expected: expect.count(api.ffnParamCount(d, dff, { bias, gated })) });
      };
      count('GPT-2 small, d = 768, dFF = 3072 (defaults)', [768, 3072]);
      count('the original Transformer, d = 512, dFF = 2048', [512, 2048, true, false]);
      count('no biases', [768, 3072, false]);
      count('gated with biases, d = 4096, dFF = 11008', [4096, 11008, true, true]);
      count('gated without biases (LLaMA-7B)', [4096, 11008, false, true]);
      count('small gated with biases, d = 5, dFF = 7', [5, 7, true, true]);
      return tests;
    },
    variants: [
      { id: 'ffn-exact-gelu', fn: 'ffn', title: 'Exact GELU instead of tanh GELU', message: 'Your FFN matches one that uses the exact erf GELU. This exercise (like GPT-2) uses the tanh approximation; the two differ by up to about 5e-4 per hidden unit.', compute: ([X, W1, b1, W2, b2], api) => api.ffn(X, W1, b1, W2, b2, { activation: 'gelu' }) },
      { id: 'ffn-missing-b1', fn: 'ffn', title: 'Missing b1', message: 'Your FFN matches one without the hidden bias b1. Add b1 to X·W1 before the GELU.', compute: ([X, W1, , W2, b2], api) => api.ffn(X, W1, null, W2, b2, { activation: 'gelu_tanh' }) },
      { id: 'ffn-missing-b2', fn: 'ffn', title: 'Missing b2', message: 'Your FFN matches one without the output bias b2. Add b2 after the second matmul.', compute: ([X, W1, b1, W2], api) => api.ffn(X, W1, b1, W2, null, { activation: 'gelu_tanh' }) },
      { id: 'ffn-relu', fn: 'ffn', title: 'ReLU instead of GELU', message: 'Your FFN matches one with ReLU in the hidden layer. Use the tanh GELU.', compute: ([X, W1, b1, W2, b2], api) => api.ffn(X, W1, b1, W2, b2, { activation: 'relu' }) },
      { id: 'count-without-biases', fn: 'ffnParamCount', title: 'Count without biases', message: 'Your count leaves the biases out even when bias is true. Add dFF + d (ungated) or 2·dFF + d (gated).', compute: ([d, dff, , gated = false], api) => api.ffnParamCount(d, dff, { bias: false, gated }) },
      { id: 'count-gated-ungated-biases', fn: 'ffnParamCount', title: 'Ungated biases for a gated FFN', message: 'For a gated FFN you counted biases dFF + d. A gated FFN has two hidden projections (gate and up), so its biases are 2·dFF + d.', compute: ([d, dff, bias = true, gated = false]) => (gated ? 3 : 2) * d * dff + (bias ? dff + d : 0) },
      { id: 'count-gated-two-matrices', fn: 'ffnParamCount', title: 'Gated FFN with two matrices', message: 'For a gated FFN you counted two weight matrices. It has three: gate, up and down.', compute: ([d, dff, bias = true, gated = false]) => 2 * d * dff + (bias ? (gated ? 2 * dff : dff) + d : 0) },
    ],
  },
  {
    id: 'swiglu',
    number: 3,
    level: 'Interview',
    title: 'A LLaMA-style SwiGLU FFN',
    functions: ['swigluFfn', 'llamaHiddenDim'],
    prompt: `<p>Write <code>swigluFfn(X, Wg, Wu, Wd)</code> = <code>(SiLU(X·Wg) ⊙ X·Wu)·Wd</code> for <code>X (..., d)</code>, with
<code>Wg, Wu (d, dFF)</code>, <code>Wd (dFF, d)</code> and no biases. <code>SiLU(z) = z·σ(z)</code>; ⊙ is the elementwise product.
The gate branch gets the nonlinearity; the up branch stays linear.</p>
<p>And <code>llamaHiddenDim(d, multipleOf = 256, ffnDimMultiplier = null)</code>: start from the integer part of <code>2·(4d)/3</code>,
multiply by <code>ffnDimMultiplier</code> and take the integer part again if one is given, then round <em>up</em> to a multiple of
<code>multipleOf</code>. LLaMA-7B (d = 4096) gets 11,008; LLaMA 3 8B (d = 4096, multiplier 1.3, multiple 1024) gets 14,336.</p>`,
    starter: SWIGLU_STARTER,
    examples: [
      'swigluFfn(tensor([[1, -1]]), tensor([[1, 0], [0, 1]]), tensor([[2, 0], [0, 3]]), tensor([[1], [1]]))  -> data ≈ [2.268941], shape [1,1]',
      'llamaHiddenDim(4096)  -> 11008',
    ],
    hints: [
      'Two projections of the same X: G = X·Wg and U = X·Wu, both (..., dFF). Only G goes through SiLU. Multiply elementwise, then project down with Wd.',
      'SiLU(z) = z / (1 + e^(-z)). For the width: Math.trunc(2 * 4 * d / 3), then Math.trunc(multiplier * hidden) if the multiplier is not null, then multipleOf * Math.ceil(hidden / multipleOf).',
      'swigluFfn: matmul(mul(map(matmul(X, Wg), silu), matmul(X, Wu)), Wd). Check the width against 4096 -> 11008 and 5120 -> 13824 (not 13568: round up, not to nearest), and apply the multiplier before rounding.',
    ],
    solution: SWIGLU_SOLUTION,
    tolerance: { atol: 2e-5, rtol: 2e-5 },
    tests(rng, api) {
      const tests = [];
      const make = (name, xShape, d, dff, gateScale = 1.5) => {
        const X = rng.randn(xShape, 1);
        const Wg = rng.randn([d, dff], gateScale / Math.sqrt(d));
        const Wu = rng.randn([d, dff], 1 / Math.sqrt(d));
        const Wd = rng.randn([dff, d], 1);
        tests.push({ name: `swigluFfn: ${name}`, fn: 'swigluFfn', args: [X, Wg, Wu, Wd], expected: expect.tensor(api.swigluFfn(X, Wg, Wu, Wd)) });
      };
      make('one token, d = 6, dFF = 10', [1, 6], 6, 10);
      make('5 tokens, d = 7 (not a multiple of 4), dFF = 12', [5, 7], 7, 12);
      make('a batch of 2×3 tokens, d = 5, dFF = 8', [2, 3, 5], 5, 8);
      make('a single vector x of shape [9], dFF = 4', [9], 9, 4);
      make('saturated gates (|X·Wg| up to about 30)', [3, 4], 4, 6, 15);
      const width = (name, args) => {
        const [d, multipleOf = 256, ffnDimMultiplier = null] = args;
        tests.push({ name: `llamaHiddenDim: ${name}`, fn: 'llamaHiddenDim', args, expected: expect.count(api.llamaHiddenDim(d, { multipleOf, ffnDimMultiplier })) });
      };
      width('LLaMA-7B, d = 4096', [4096]);
      width('LLaMA-13B, d = 5120', [5120]);
      width('LLaMA-65B, d = 8192', [8192]);
      width("Shazeer's d = 768 with multipleOf 1", [768, 1]);
      width('d = 1000 with multipleOf 1 (no rounding)', [1000, 1]);
      width('LLaMA 3 8B: d = 4096, multiplier 1.3, multipleOf 1024', [4096, 1024, 1.3]);
      width('LLaMA 2 70B: d = 8192, multiplier 1.3, multipleOf 4096', [8192, 4096, 1.3]);
      width('multiplier passed as null', [4096, 256, null]);
      width('small: d = 10, multipleOf 8', [10, 8]);
      return tests;
    },
    variants: [
      { id: 'swiglu-silu-on-up', fn: 'swigluFfn', title: 'SiLU on the up branch', message: 'Your output matches SiLU applied to X·Wu and X·Wg left linear. The gate projection Wg gets the SiLU; the up branch X·Wu stays linear.', compute: ([X, Wg, Wu, Wd], api) => api.swigluFfn(X, Wu, Wg, Wd) },
      { id: 'swiglu-sigmoid', fn: 'swigluFfn', title: 'Sigmoid instead of SiLU', message: 'Your output matches σ(X·Wg) ⊙ X·Wu, the original GLU. SwiGLU uses SiLU(z) = z·σ(z): multiply the sigmoid by its input.', compute: ([X, Wg, Wu, Wd], api) => api.gatedFfn(X, Wg, Wu, Wd, { activation: 'sigmoid' }) },
      { id: 'swiglu-gelu', fn: 'swigluFfn', title: 'GELU instead of SiLU (GEGLU)', message: 'Your output matches GEGLU, a GELU gate. SwiGLU uses SiLU(z) = z·σ(z).', compute: ([X, Wg, Wu, Wd], api) => api.gatedFfn(X, Wg, Wu, Wd, { activation: 'gelu' }) },
      { id: 'swiglu-gelu', fn: 'swigluFfn', title: 'GELU instead of SiLU (GEGLU)', message: 'Your output matches GEGLU, a GELU gate. SwiGLU uses SiLU(z) = z·σ(z).', compute: ([X, Wg, Wu, Wd], api) => api.gatedFfn(X, Wg, Wu, Wd, { activation: 'gelu_tanh' }) },
      { id: 'swiglu-no-up', fn: 'swigluFfn', title: 'Missing the up branch', message: 'Your output matches SiLU(X·Wg)·Wd: the gate never multiplies the up projection X·Wu.', compute: ([X, Wg, , Wd], api) => api.ffn(X, Wg, null, Wd, null, { activation: 'silu' }) },
      { id: 'llama-rounded-down', fn: 'llamaHiddenDim', title: 'Rounded down', message: 'You rounded down to the multiple. LLaMA rounds up: 10,922 becomes 43 × 256 = 11,008, not 10,752.', compute: ([d, m = 256, mult = null]) => m * Math.floor(applyMultiplier(Math.trunc((8 * d) / 3), mult) / m) },
      { id: 'llama-nearest', fn: 'llamaHiddenDim', title: 'Rounded to the nearest multiple', message: 'You rounded to the nearest multiple. LLaMA always rounds up (d = 5120 gives 13,824, not 13,568).', compute: ([d, m = 256, mult = null]) => m * Math.round(applyMultiplier(Math.trunc((8 * d) / 3), mult) / m) },
      { id: 'llama-not-rounded', fn: 'llamaHiddenDim', title: 'Not rounded to the multiple', message: 'You returned the width before rounding. Finish by rounding up to a multiple of multipleOf, so the matrices tile well (10,922 -> 11,008).', compute: ([d, , mult = null]) => applyMultiplier(Math.trunc((8 * d) / 3), mult) },
      { id: 'llama-without-two-thirds', fn: 'llamaHiddenDim', title: 'Without the 2/3', message: 'You started from 4d. The gated FFN has three matrices, so LLaMA scales the classic 4d by 2/3 (the 8/3 rule) before rounding.', compute: ([d, m = 256, mult = null]) => roundUp(applyMultiplier(4 * d, mult), m) },
      { id: 'llama-multiplier-after-rounding', fn: 'llamaHiddenDim', title: 'Multiplier applied after rounding', message: 'You applied ffnDimMultiplier after rounding. Multiply first (and take the integer part), then round up to the multiple.', compute: ([d, m = 256, mult = null]) => applyMultiplier(roundUp(Math.trunc((8 * d) / 3), m), mult) },
      { id: 'llama-multiplier-after-rounding', fn: 'llamaHiddenDim', title: 'Multiplier applied after rounding', message: 'You applied ffnDimMultiplier after rounding. Multiply first (and take the integer part), then round up to the multiple.', compute: ([d, m = 256, mult = null]) => { const h = roundUp(Math.trunc((8 * d) / 3), m); return mult != null ? roundUp(Math.trunc(mult * h), m) : h; } },
    ],
  },
  {
    id: 'swiglu-backward',
    number: 4,
    level: 'Interview',
    title: 'Backpropagate through SwiGLU',
    functions: ['swigluBackward'],
    prompt: `<p>Write <code>swigluBackward(dY, X, Wg, Wu, Wd)</code> for <code>X</code> and <code>dY</code> of shape <code>(N, d)</code>, returning
<code>{ dX, dWGate, dWUp, dWDown }</code> with the shapes of <code>X</code>, <code>Wg</code>, <code>Wu</code> and <code>Wd</code>.
Recompute the forward intermediates: <code>G = X·Wg</code>, <code>U = X·Wu</code>, <code>A = SiLU(G)</code>, <code>H = A ⊙ U</code>, <code>Y = H·Wd</code>.</p>
<p>You need <code>SiLU′(z) = σ(z)·(1 + z·(1 − σ(z)))</code>. Remember that <code>X</code> feeds both branches.</p>`,
    starter: BACKWARD_STARTER,
    examples: [
      'For one token with d = 2, dFF = 3, the result has dX [1,2], dWGate [2,3], dWUp [2,3], dWDown [3,2].',
      'A zero dY gives zero gradients everywhere.',
    ],
    hints: [
      'Go in reverse order: dWDown = Hᵀ·dY, dH = dY·Wdᵀ. Then split dH between the two factors of H = A ⊙ U (the product rule): each factor receives dH times the other factor.',
      'dU = dH ⊙ A and dG = dH ⊙ U ⊙ SiLU′(G). Then dWUp = Xᵀ·dU, dWGate = Xᵀ·dG. Weight gradients are (input)ᵀ·(gradient of the output), which gives them the weights\' own shapes.',
      'dX = dG·Wgᵀ + dU·Wuᵀ: the sum because X feeds both the gate and the up branch. SiLU′(z) = s·(1 + z·(1 − s)) with s = σ(z); σ(z)(1 − σ(z)) alone is the sigmoid\'s derivative, not SiLU\'s.',
    ],
    solution: BACKWARD_SOLUTION,
    tolerance: { atol: 5e-5, rtol: 5e-5 },
    tests(rng, api) {
      const tests = [];
      const make = (name, N, d, dff, opts = {}) => {
        const X = rng.randn([N, d], 1);
        const Wg = rng.randn([d, dff], 1.5 / Math.sqrt(d));
        const Wu = rng.randn([d, dff], 1 / Math.sqrt(d));
        const Wd = rng.randn([dff, d], 1 / Math.sqrt(dff));
        const dY = opts.zeroGrad ? zerosF32([N, d]) : rng.randn([N, d], 1);
        const r = api.swigluBackward(dY, X, Wg, Wu, Wd);
        tests.push({
          name: `swigluBackward: ${name}`,
          fn: 'swigluBackward',
          args: [dY, X, Wg, Wu, Wd],
          expected: expect.object({ dX: expect.tensor(r.dX), dWGate: expect.tensor(r.dWGate), dWUp: expect.tensor(r.dWUp), dWDown: expect.tensor(r.dWDown) }),
        });
      };
      make('one token, d = 4, dFF = 6', 1, 4, 6);
      make('3 tokens, d = 5, dFF = 7', 3, 5, 7);
      make('4 tokens, d = 8, dFF = 12', 4, 8, 12);
      make('square weights, d = dFF = 4', 2, 4, 4);
      make("the companion's matched width, d = 12, dFF = 32", 2, 12, 32);
      make('zero upstream gradient', 2, 3, 5, { zeroGrad: true });
      return tests;
    },
    variants: [
      { id: 'backward-dx-missing-up', fn: 'swigluBackward', title: 'dX misses the up branch', message: 'Your dX only has the gate branch, dG·Wgᵀ. X also feeds the up projection, so add dU·Wuᵀ.', compute: (a) => swigluBackward64(...a, { dXOnlyGate: true }) },
      { id: 'backward-dx-missing-gate', fn: 'swigluBackward', title: 'dX misses the gate branch', message: 'Your dX only has the up branch, dU·Wuᵀ. X also feeds the gate projection, so add dG·Wgᵀ.', compute: (a) => swigluBackward64(...a, { dXOnlyUp: true }) },
      { id: 'backward-silu-prime-sigma', fn: 'swigluBackward', title: "SiLU′ written as σ(1 − σ)", message: "You used σ(z)(1 − σ(z)), the sigmoid's derivative. SiLU(z) = z·σ(z), so SiLU′(z) = σ(z) + z·σ(z)(1 − σ(z)) = σ(z)(1 + z(1 − σ(z))).", compute: (a) => swigluBackward64(...a, { siluPrimeSigma: true }) },
      { id: 'backward-product-rule', fn: 'swigluBackward', title: "The product rule's other factor dropped", message: 'In H = A ⊙ U each factor gets dH times the other factor: dG = dH ⊙ U ⊙ SiLU′(G) and dU = dH ⊙ A. One of your branches is missing its other factor.', compute: (a) => swigluBackward64(...a, { dGWithoutU: true }) },
      { id: 'backward-product-rule', fn: 'swigluBackward', title: "The product rule's other factor dropped", message: 'In H = A ⊙ U each factor gets dH times the other factor: dG = dH ⊙ U ⊙ SiLU′(G) and dU = dH ⊙ A. One of your branches is missing its other factor.', compute: (a) => swigluBackward64(...a, { dUWithoutA: true }) },
      { id: 'backward-product-rule', fn: 'swigluBackward', title: "The product rule's other factor dropped", message: 'In H = A ⊙ U each factor gets dH times the other factor: dG = dH ⊙ U ⊙ SiLU′(G) and dU = dH ⊙ A. One of your branches is missing its other factor.', compute: (a) => swigluBackward64(...a, { dGWithoutU: true, dUWithoutA: true }) },
      { id: 'backward-dw-transposed', fn: 'swigluBackward', anyOf: true, title: 'Weight gradient transposed', message: 'At least one weight gradient is transposed. A weight gradient is (layer input)ᵀ·(output gradient): dWGate = Xᵀ·dG has Wg\'s shape (d, dFF), and dWDown = Hᵀ·dY has Wd\'s shape (dFF, d).', compute: (a) => swigluBackward64(...a, { transposed: true }) },
    ],
  },
  {
    id: 'memories',
    number: 5,
    level: 'Core',
    title: 'Decompose an FFN into its memories',
    functions: ['ffnMemories'],
    prompt: `<p>Read a ReLU FFN without output bias as a key-value memory: key <code>i</code> is column <code>i</code> of <code>W1</code>, value <code>i</code> is row <code>i</code> of <code>W2</code>,
and memory <code>i</code> fires with coefficient <code>coefᵢ = max(0, x·kᵢ + b1ᵢ)</code>.</p>
<p>Write <code>ffnMemories(x, W1, b1, W2, k)</code> for one token <code>x</code> of shape <code>(d)</code>, returning <code>{ coef, top, partial }</code>:
<code>coef</code> (shape <code>(dFF)</code>) every memory's coefficient; <code>top</code> the indices of the <code>k</code> largest coefficients,
largest first, ties broken by the lower index; <code>partial</code> (shape <code>(d)</code>) the sum of just those memories' writes, <code>Σ_{i∈top} coefᵢ·vᵢ</code>.</p>`,
    starter: MEMORIES_STARTER,
    examples: [
      'With coefficients [0.5, 0, 2, 0.5] and k = 3, top is [2, 0, 3] (the tie between 0 and 3 goes to the lower index).',
      'With k = dFF, partial equals the whole FFN output (no output bias).',
    ],
    hints: [
      'coef is the ReLU FFN\'s hidden layer for one token: matmul(x, W1) gives shape (dFF); add b1 and clamp at zero with map.',
      'Sort the indices 0..dFF-1 by coefficient, largest first: range(n).sort((i, j) => coef.data[j] - coef.data[i]). JavaScript\'s sort is stable, so equal coefficients keep the lower index first. Take the first k.',
      'partial starts as zeros([d]) and adds coef.data[i] times row(W2, i) for each i in top only, not for every memory.',
    ],
    solution: MEMORIES_SOLUTION,
    tolerance: { atol: 2e-5, rtol: 2e-5 },
    tests(rng, api) {
      const tests = [];
      const push = (name, x, W1, b1, W2, k) => {
        const r = api.ffnMemories(x, W1, b1, W2, k);
        tests.push({
          name: `ffnMemories: ${name}`,
          fn: 'ffnMemories',
          args: [x, W1, b1, W2, k],
          expected: expect.object({ coef: expect.tensor(r.coef), top: expect.ints(Array.from(r.top)), partial: expect.tensor(r.partial) }),
        });
      };
      const random = (name, d, dff, k) => push(name, rng.randn([d], 1), rng.randn([d, dff], 1 / Math.sqrt(d)), rng.randn([dff], 0.3), rng.randn([dff, d], 1), k);
      random('d = 4, dFF = 6, k = 2', 4, 6, 2);
      random('d = 7, dFF = 10, k = 3', 7, 10, 3);
      random('k = 1', 5, 9, 1);
      random('k = dFF (every memory, zeros included)', 5, 6, 6);
      {
        // Ties: memories 1, 2 and 4 share a key and a bias, so their coefficients are equal.
        const d = 4;
        const dff = 6;
        const x = f32([1, 0.5, -0.25, 2]);
        const W1 = rng.randn([d, dff], 0.5);
        const b1 = rng.randn([dff], 0.1);
        for (const j of [2, 4]) {
          for (let r = 0; r < d; r++) W1.data[r * dff + j] = W1.data[r * dff + 1];
          b1.data[j] = b1.data[1];
        }
        // Make the shared key fire strongly so the tie sits inside the top k.
        for (let r = 0; r < d; r++) W1.data[r * dff + 1] = W1.data[r * dff + 2] = W1.data[r * dff + 4] = x.data[r] * 0.5;
        push('ties among the largest coefficients', x, W1, b1, rng.randn([dff, d], 1), 2);
      }
      push('no memory fires (all coefficients zero)', f32([1, 1, 1]), { data: new Float32Array(15).fill(-1), shape: [3, 5] }, f32([0, -1, -2, 0, -0.5]), rng.randn([5, 3], 1), 3);
      {
        // A hand-built three-fact memory: one-hot-ish keys with a threshold in b1.
        const W1 = f32([4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0], [4, 3]);
        const b1 = f32([-3, -3, -3]);
        const W2 = f32([1, 0, 0, 0.5, 0, 1, 0, 0.5, 0, 0, 1, 0.5], [3, 4]);
        push('a hand-built three-fact memory (query matches fact 2)', f32([0.1, 1, 0, 0]), W1, b1, W2, 2);
      }
      return tests;
    },
    variants: [
      { id: 'memories-ascending', fn: 'ffnMemories', title: 'Top memories in ascending order', message: 'Your top holds the right memories but smallest first. List them largest first (sort descending, or reverse after sorting).', compute: ([x, W1, b1, W2, k]) => memories(x, W1, b1, W2, k, { ascendingTail: true }) },
      { id: 'memories-smallest', fn: 'ffnMemories', title: 'The k smallest memories', message: 'Your top holds the k smallest coefficients. You want the k largest.', compute: ([x, W1, b1, W2, k]) => memories(x, W1, b1, W2, k, { smallest: true }) },
      { id: 'memories-no-relu', fn: 'ffnMemories', title: 'Coefficients without ReLU', message: 'Your coefficients are the raw x·kᵢ + b1ᵢ. Clamp them at zero: a memory whose key does not match writes nothing, it does not write a negative amount.', compute: ([x, W1, b1, W2, k]) => memories(x, W1, b1, W2, k, { noRelu: true }) },
      { id: 'memories-partial-all', fn: 'ffnMemories', title: 'Partial summed over all memories', message: 'Your partial adds every memory, which is the whole FFN output. Sum only the k memories in top.', compute: ([x, W1, b1, W2, k]) => memories(x, W1, b1, W2, k, { all: true }) },
      { id: 'memories-ties-high-index', fn: 'ffnMemories', title: 'Ties broken by the higher index', message: 'Your top breaks ties between equal coefficients by the higher index. Keep the lower index first (a stable descending sort does this).', compute: ([x, W1, b1, W2, k]) => memories(x, W1, b1, W2, k, { tieHigh: true }) },
    ],
  },
  {
    id: 'gqa-budget',
    number: 6,
    level: 'Beyond the cells',
    title: 'Where a GQA + SwiGLU block keeps its weights',
    functions: ['gqaBlockCounts', 'matchedGatedWidth'],
    prompt: `<p>With grouped-query attention, the query and output projections use all <code>nHeads</code> heads of size <code>dHead</code>, but keys and
values use only <code>nKvHeads</code> heads. Write <code>gqaBlockCounts(d, nHeads, nKvHeads, dHead, hidden)</code> returning
<code>{ attention, ffn, ffnShare }</code>: the bias-free projection weights of the attention sublayer (W_Q, W_K, W_V, W_O), of a SwiGLU FFN of width
<code>hidden</code>, and the FFN's fraction of the two together (a number between 0 and 1).</p>
<p>For d = 4096, 32 heads, 8 KV heads, head size 128 and hidden 14,336 that is 41,943,040 and 176,160,768 weights, an FFN share of about 80.8%, not two thirds.</p>
<p>Also write <code>matchedGatedWidth(m)</code>: the gated width <code>g</code> whose three matrices hold as many weights as a two-matrix FFN of width <code>m</code>
(return the exact value, even when it is not a whole number).</p>`,
    starter: GQA_STARTER,
    examples: [
      'gqaBlockCounts(4096, 32, 8, 128, 14336)  -> { attention: 41943040, ffn: 176160768, ffnShare: ≈ 0.8077 }',
      'matchedGatedWidth(48)  -> 32',
    ],
    hints: [
      'Count each projection as (inputs × outputs). W_Q maps d to nHeads·dHead, W_K and W_V map d to nKvHeads·dHead each, W_O maps nHeads·dHead back to d.',
      'The SwiGLU FFN has three d × hidden matrices. The share is ffn / (attention + ffn), not ffn / attention, and stays a fraction (0.808, not 80.8).',
      'Matched budgets: 2·d·m = 3·d·g, so g = 2m/3. Do not round it.',
    ],
    solution: GQA_SOLUTION,
    tolerance: { atol: 1e-12, rtol: 1e-9 },
    tests(rng, api) {
      const tests = [];
      const block = (name, args) => {
        const [d, H, K, dh, hidden] = args;
        const ffn = api.ffnParamCount(d, hidden, { bias: false, gated: true });
        const attention = d * H * dh + 2 * d * K * dh + H * dh * d;
        tests.push({
          name: `gqaBlockCounts: ${name}`,
          fn: 'gqaBlockCounts',
          args,
          expected: expect.object({ attention: expect.count(attention), ffn: expect.count(ffn), ffnShare: expect.number(ffn / (attention + ffn)) }),
        });
      };
      block("the companion's block: d = 4096, 32 heads, 8 KV heads, head 128, hidden 14336", [4096, 32, 8, 128, 14336]);
      block('multi-head (LLaMA-7B): 32 KV heads, hidden 11008', [4096, 32, 32, 128, 11008]);
      block('multi-query: d = 2048, 16 heads, 1 KV head, hidden 5632', [2048, 16, 1, 128, 5632]);
      block('heads × head size ≠ d: d = 3072, 16 heads of 256, hidden 24576', [3072, 16, 16, 256, 24576]);
      block('small: d = 64, 4 heads, 2 KV heads, head 16, hidden 172', [64, 4, 2, 16, 172]);
      const width = (name, m) => tests.push({ name: `matchedGatedWidth: ${name}`, fn: 'matchedGatedWidth', args: [m], expected: expect.number((2 * m) / 3) });
      width('GPT-2 small, m = 3072', 3072);
      width("the companion's m = 48", 48);
      width('m = 16384 (not a multiple of 3)', 16384);
      width('m = 100', 100);
      return tests;
    },
    variants: [
      { id: 'gqa-kv-as-full-heads', fn: 'gqaBlockCounts', title: 'KV heads counted as full heads', message: 'Your attention count gives W_K and W_V all nHeads heads. With GQA they have nKvHeads heads, d × (nKvHeads·dHead) each.', compute: (a) => gqaCounts(...a, { kvAsFull: true }) },
      { id: 'gqa-ffn-two-matrices', fn: 'gqaBlockCounts', title: 'FFN counted with two matrices', message: 'Your FFN count has two matrices. SwiGLU has three: gate, up and down, 3·d·hidden.', compute: (a) => gqaCounts(...a, { ffnTwo: true }) },
      { id: 'gqa-share-ratio', fn: 'gqaBlockCounts', title: 'Share computed as FFN / attention', message: 'ffnShare should be the FFN\'s fraction of the total, ffn / (attention + ffn), not the ratio ffn / attention.', compute: (a) => gqaCounts(...a, { ratio: true }) },
      { id: 'gqa-share-percent', fn: 'gqaBlockCounts', title: 'Share as a percentage', message: 'ffnShare should be a fraction between 0 and 1 (0.808), not a percentage (80.8).', compute: (a) => gqaCounts(...a, { percent: true }) },
      { id: 'gqa-d-for-heads', fn: 'gqaBlockCounts', title: 'd used for nHeads·dHead', message: 'You used d for the attention width. The query/output width is nHeads·dHead, which need not equal d (here 16·256 = 4096 while d = 3072).', compute: (a) => gqaCounts(...a, { dForHeads: true }) },
      { id: 'width-inverted', fn: 'matchedGatedWidth', title: 'Ratio inverted', message: 'You returned 3m/2. Three gated matrices must hold what two classic ones held: 3·d·g = 2·d·m, so g = 2m/3, narrower than m.', compute: ([m]) => (3 * m) / 2 },
      { id: 'width-truncated', fn: 'matchedGatedWidth', title: 'Width rounded to a whole number', message: 'You rounded g. Return the exact 2m/3; rounding to a hardware-friendly multiple is a separate step.', compute: ([m]) => Math.floor((2 * m) / 3) },
      { id: 'width-truncated', fn: 'matchedGatedWidth', title: 'Width rounded to a whole number', message: 'You rounded g. Return the exact 2m/3; rounding to a hardware-friendly multiple is a separate step.', compute: ([m]) => Math.round((2 * m) / 3) },
    ],
  },
];

export const exerciseIds = exercises.map((e) => e.id);

export function getExercise(id) {
  const ex = exercises.find((e) => e.id === id);
  if (!ex) throw new RangeError(`unknown exercise "${id}"; known: ${exerciseIds.join(', ')}`);
  return ex;
}
