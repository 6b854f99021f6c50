// Exercise "ffn" (course cell 2, core): the tanh-GELU FFN forward pass and an FFN's parameter count.
import { zerosF32, overflowInputs } from './helpers.js';

export default {
  id: 'ffn',
  number: 2,
  level: 'Core',
  title: 'The FFN forward pass and its parameter count',
  functions: {
    ffn: { params: ['X (..., d)', 'W1 (d, dFF)', 'b1 (dFF)', 'W2 (dFF, d)', 'b2 (d)'], returns: 'tensor' },
    ffnParamCount: { params: ['d', 'dFF', 'bias = true', 'gated = false'], returns: 'integer' },
  },
  prompt: `<p>For a sequence <code>X</code> of shape <code>(..., d)</code> the feed-forward network applies the same
two layers to every row: <code>FFN(X) = GELU(X·W1 + b1)·W2 + b2</code>, with <code>W1 (d, dFF)</code>, <code>b1
(dFF)</code>, <code>W2 (dFF, d)</code>, <code>b2 (d)</code>. Use the tanh GELU, as GPT-2 does. The output has the
shape of <code>X</code>.</p>
<p>Also write <code>ffnParamCount(d, dFF, bias = true, gated = false)</code>. An ungated FFN has two <code>d ×
dFF</code> matrices and biases <code>dFF + d</code>; a gated one (next exercise) has three matrices and biases
<code>2·dFF + d</code>. GPT-2 small (d = 768, dFF = 3072) has 4,722,432 per layer.</p>`,
  starter: `// X (..., d), W1 (d, dFF), b1 (dFF), W2 (dFF, d), b2 (d); all tensors {data, shape}.
// Use the tanh GELU, as GPT-2 does. Toolkit: matmul, add (broadcasts a bias row), map, ...

function ffn(X, W1, b1, W2, b2) {
  throw new Error('ffn: not written yet');
}

function ffnParamCount(d, dFF, bias = true, gated = false) {
  throw new Error('ffnParamCount: not written yet');
}
`,
  examples: [
    'ffn(tensor([[1, 2]]), tensor([[1, 0, -1], [0, 1, 1]]), tensor([0, 0, 0.5]), tensor([[1, 0], [0, 1], [1, 1]]), ' +
      'tensor([0.1, -0.1]))  -> data ≈ [2.340764, 3.254169], shape [1,2]',
    'ffnParamCount(768, 3072)  -> 4722432',
  ],
  hints: [
    'Read it right to left in shapes: X (..., d) @ W1 (d, dFF) gives (..., dFF); add b1 to every row; apply GELU ' +
      'elementwise; @ W2 (dFF, d) gives back (..., d); add b2. The toolkit matmul already handles leading batch ' +
      'dimensions.',
    "add(A, b) broadcasts a bias row b over A's trailing dimension, so add(matmul(X, W1), b1) is the hidden " +
      'pre-activation. For the count, weights are (gated ? 3 : 2)·d·dFF.',
    'ffn: add(matmul(map(add(matmul(X, W1), b1), geluTanh), W2), b2) with your scalar tanh GELU. Count: weights + ' +
      '(bias ? (gated ? 2·dFF : dFF) + d : 0). Make sure the defaults work when only d and dFF are passed.',
  ],
  solution: `function geluTanhScalar(z) {
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
`,
  tolerance: { atol: 2e-5, rtol: 2e-5 },
  tests(rng) {
    const tests = [];
    const make = (id, name, xShape, d, dff, opts = {}) => {
      const X = opts.zeroX ? zerosF32(xShape) : rng.randn(xShape, 1);
      const W1 = rng.randn([d, dff], 1.5 / Math.sqrt(d));
      const b1 = rng.randn([dff], 0.5);
      const W2 = rng.randn([dff, d], 1);
      const b2 = rng.randn([d], 0.5);
      tests.push({ id: `ffn-${id}`, name: `ffn: ${name}`, fn: 'ffn', args: [X, W1, b1, W2, b2] });
    };
    make('one-token-d-5-dff-12', 'one token, d = 5, dFF = 12', [1, 5], 5, 12);
    make('4-tokens-d-7-not-a-multiple', '4 tokens, d = 7 (not a multiple of 4), dFF = 20', [4, 7], 7, 20);
    make('a-batch-of-2x3-tokens-d-6', 'a batch of 2×3 tokens, d = 6, dFF = 16', [2, 3, 6], 6, 16);
    make('a-single-vector-x-of-shape', 'a single vector x of shape [8], dFF = 8', [8], 8, 8);
    make('zero-input-the-output-is', 'zero input (the output is GELU(b1)·W2 + b2)', [2, 5], 5, 9, { zeroX: true });
    make('d-1-dff-3', 'd = 1, dFF = 3', [3, 1], 1, 3);
    {
      const { X, gate: W1, dyadic } = overflowInputs(rng, { tokens: 3, d: 4, dff: 6 });
      const args = [X, W1, dyadic([6], [-0.5, 0, 0.5]), dyadic([6, 4], [-1, -0.5, 0.5, 1]), dyadic([4], [-1, 0, 1])];
      tests.push({
        id: 'ffn-overflow',
        name: 'ffn: pre-activations of ±250 to ±1000 (where a tanh written with exp overflows)',
        fn: 'ffn',
        args,
      });
    }
    const count = (id, name, args) =>
      tests.push({ id: `count-${id}`, name: `ffnParamCount: ${name}`, fn: 'ffnParamCount', args });
    count('gpt-2-small-d-768-dff-3072', 'GPT-2 small, d = 768, dFF = 3072 (defaults)', [768, 3072]);
    count('the-original-transformer-d', 'the original Transformer, d = 512, dFF = 2048', [512, 2048, true, false]);
    count('no-biases', 'no biases', [768, 3072, false]);
    count('gated-with-biases-d-4096', 'gated with biases, d = 4096, dFF = 11008', [4096, 11008, true, true]);
    count('gated-without-biases-llama', 'gated without biases (LLaMA-7B)', [4096, 11008, false, true]);
    count('small-gated-with-biases-d-5', 'small gated with biases, d = 5, dFF = 7', [5, 7, true, true]);
    return tests;
  },
  reference: {
    ffn: ([X, W1, b1, W2, b2], api) => api.ffn(X, W1, b1, W2, b2, { activation: 'gelu_tanh' }),
    ffnParamCount: ([d, dff, bias = true, gated = false], api) => api.ffnParamCount(d, dff, { bias, gated }),
  },
  variants: [
    {
      id: 'ffn-exact-gelu',
      fn: 'ffn',
      title: 'Exact GELU instead of tanh GELU',
      message:
        'Your FFN matches one that uses the exact erf GELU. This exercise (like GPT-2) uses the tanh ' +
        'approximation; the two differ by up to about 5e-4 per hidden unit.',
      compute: ([X, W1, b1, W2, b2], api) => api.ffn(X, W1, b1, W2, b2, { activation: 'gelu' }),
    },
    {
      id: 'ffn-missing-b1',
      fn: 'ffn',
      title: 'Missing b1',
      message: 'Your FFN matches one without the hidden bias b1. Add b1 to X·W1 before the GELU.',
      compute: ([X, W1, , W2, b2], api) => api.ffn(X, W1, null, W2, b2, { activation: 'gelu_tanh' }),
    },
    {
      id: 'ffn-missing-b2',
      fn: 'ffn',
      title: 'Missing b2',
      message: 'Your FFN matches one without the output bias b2. Add b2 after the second matmul.',
      compute: ([X, W1, b1, W2], api) => api.ffn(X, W1, b1, W2, null, { activation: 'gelu_tanh' }),
    },
    {
      id: 'ffn-relu',
      fn: 'ffn',
      title: 'ReLU instead of GELU',
      message: 'Your FFN matches one with ReLU in the hidden layer. Use the tanh GELU.',
      compute: ([X, W1, b1, W2, b2], api) => api.ffn(X, W1, b1, W2, b2, { activation: 'relu' }),
    },
    {
      id: 'count-without-biases',
      fn: 'ffnParamCount',
      title: 'Count without biases',
      message: 'Your count leaves the biases out even when bias is true. Add dFF + d (ungated) or 2·dFF + d (gated).',
      compute: ([d, dff, , gated = false], api) => api.ffnParamCount(d, dff, { bias: false, gated }),
    },
    {
      id: 'count-gated-ungated-biases',
      fn: 'ffnParamCount',
      title: 'Ungated biases for a gated FFN',
      message:
        'For a gated FFN you counted biases dFF + d. A gated FFN has two hidden projections (gate and up), ' +
        'so its biases are 2·dFF + d.',
      compute: ([d, dff, bias = true, gated = false]) => (gated ? 3 : 2) * d * dff + (bias ? dff + d : 0),
    },
    {
      id: 'count-gated-two-matrices',
      fn: 'ffnParamCount',
      title: 'Gated FFN with two matrices',
      message: 'For a gated FFN you counted two weight matrices. It has three: gate, up and down.',
      compute: ([d, dff, bias = true, gated = false]) => 2 * d * dff + (bias ? (gated ? 2 * dff : dff) + d : 0),
    },
  ],
};
