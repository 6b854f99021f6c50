// Learner-style sources for every known-wrong variant in the sandbox catalog, written by mutating the reference
// solutions (test data, not a test file).
import { exercises } from 'ffn-lab/sandbox';

const solution = (id) => exercises.find((e) => e.id === id).solution;

/** Replace `from` (which must occur exactly once) with `to`. */
export function mutate(src, from, to) {
  const n = src.split(from).length - 1;
  if (n !== 1) throw new Error(`mutate: expected exactly one occurrence of ${JSON.stringify(from)}, found ${n}`);
  return src.replace(from, to);
}

/** A variant made by one edit of the exercise's reference solution. */
const edit = (exercise, from, to) => ({ exercise, source: mutate(solution(exercise), from, to) });

const S = solution('swiglu');
const M = solution('memories');
const Q = solution('gqa-budget');
const R = solution('rank-one-edit');

const EXACT = '0.5 * z * (1 + erf(z / Math.SQRT2))';
const TANH = '0.5 * z * (1 + Math.tanh(c * (z + 0.044715 * z * z * z)))';

/** variant id -> { exercise, source } */
export const variantSources = {
  'gelu-swapped': {
    exercise: 'gelu',
    source: `function gelu(x) {
  const c = Math.sqrt(2 / Math.PI);
  return map(x, (z) => ${TANH});
}

function geluTanh(x) {
  return map(x, (z) => ${EXACT});
}
`,
  },
  'gelu-sigmoid-form': edit('gelu', EXACT, 'z / (1 + Math.exp(-1.702 * z))'),
  'gelu-missing-half': edit('gelu', EXACT, 'z * (1 + erf(z / Math.SQRT2))'),
  'gelu-missing-cubic': edit('gelu', TANH, '0.5 * z * (1 + Math.tanh(c * z))'),

  'ffn-exact-gelu': edit(
    'ffn',
    'const H = map(add(matmul(X, W1), b1), (z) => geluTanhScalar(z));',
    'const H = map(add(matmul(X, W1), b1), (z) => 0.5 * z * (1 + erf(z / Math.SQRT2)));',
  ),
  'ffn-missing-b1': edit('ffn', 'map(add(matmul(X, W1), b1),', 'map(matmul(X, W1),'),
  'ffn-missing-b2': edit('ffn', 'return add(matmul(H, W2), b2);', 'return matmul(H, W2);'),
  'ffn-relu': edit('ffn', '(z) => geluTanhScalar(z)', '(z) => Math.max(0, z)'),
  'count-without-biases': edit('ffn', 'return weights + biases;', 'return weights;'),
  'count-gated-ungated-biases': edit('ffn', '(gated ? 2 * dFF : dFF) + d', 'dFF + d'),
  'count-gated-two-matrices': edit('ffn', '(gated ? 3 : 2) * d * dFF', '2 * d * dFF'),

  'swiglu-silu-on-up': {
    exercise: 'swiglu',
    source: mutate(
      mutate(S, 'const A = map(matmul(X, Wg), (z) => silu(z));', 'const A = matmul(X, Wg);'),
      'const U = matmul(X, Wu);',
      'const U = map(matmul(X, Wu), (z) => silu(z));',
    ),
  },
  'swiglu-sigmoid': edit('swiglu', 'return z / (1 + Math.exp(-z));', 'return 1 / (1 + Math.exp(-z));'),
  'swiglu-gelu': edit('swiglu', 'return z / (1 + Math.exp(-z));', 'return 0.5 * z * (1 + erf(z / Math.SQRT2));'),
  'swiglu-no-up': edit('swiglu', 'return matmul(mul(A, U), Wd);', 'return matmul(A, Wd);'),
  'llama-rounded-down': edit('swiglu', 'Math.ceil(hidden / multipleOf)', 'Math.floor(hidden / multipleOf)'),
  'llama-nearest': edit('swiglu', 'Math.ceil(hidden / multipleOf)', 'Math.round(hidden / multipleOf)'),
  'llama-not-rounded': edit('swiglu', 'return multipleOf * Math.ceil(hidden / multipleOf);', 'return hidden;'),
  'llama-without-two-thirds': edit('swiglu', 'Math.trunc((2 * (4 * d)) / 3)', '4 * d'),
  'llama-multiplier-after-rounding': {
    exercise: 'swiglu',
    source:
      `${S.slice(0, S.indexOf('function llamaHiddenDim'))}` +
      `function llamaHiddenDim(d, multipleOf = 256, ffnDimMultiplier = null) {
  let hidden = Math.trunc((2 * (4 * d)) / 3);
  hidden = multipleOf * Math.ceil(hidden / multipleOf);
  if (ffnDimMultiplier != null) hidden = Math.trunc(ffnDimMultiplier * hidden);
  return hidden;
}
`,
  },

  'backward-dx-missing-up': edit(
    'swiglu-backward',
    'const dX = add(matmul(dG, transpose(Wg)), matmul(dU, transpose(Wu)));',
    'const dX = matmul(dG, transpose(Wg));',
  ),
  'backward-dx-missing-gate': edit(
    'swiglu-backward',
    'const dX = add(matmul(dG, transpose(Wg)), matmul(dU, transpose(Wu)));',
    'const dX = matmul(dU, transpose(Wu));',
  ),
  'backward-silu-prime-sigma': edit('swiglu-backward', 'return s * (1 + g * (1 - s));', 'return s * (1 - s);'),
  'backward-product-rule': edit('swiglu-backward', 'const dG = mul(mul(dH, U), slope);', 'const dG = mul(dH, slope);'),
  'backward-dw-transposed': edit(
    'swiglu-backward',
    'const dWDown = matmul(transpose(H), dY);',
    'const dWDown = matmul(transpose(dY), H);',
  ),

  'memories-ascending': {
    exercise: 'memories',
    source: mutate(
      mutate(M, 'sort((i, j) => coef.data[j] - coef.data[i])', 'sort((i, j) => coef.data[i] - coef.data[j])'),
      'const top = order.slice(0, k);',
      'const top = order.slice(order.length - k);',
    ),
  },
  'memories-smallest': edit(
    'memories',
    'sort((i, j) => coef.data[j] - coef.data[i])',
    'sort((i, j) => coef.data[i] - coef.data[j])',
  ),
  'memories-no-relu': edit('memories', 'map(add(matmul(x, W1), b1), (z) => Math.max(0, z))', 'add(matmul(x, W1), b1)'),
  'memories-partial-all': edit('memories', 'for (const i of top) {', 'for (const i of order) {'),
  'memories-ties-high-index': edit(
    'memories',
    'sort((i, j) => coef.data[j] - coef.data[i])',
    'sort((i, j) => coef.data[j] - coef.data[i] || j - i)',
  ),

  'value-column': edit(
    'value-to-vocab',
    'W2.data[i * d + j] * U.data[o * d + j]',
    'W2.data[j * d + i] * U.data[o * d + j]',
  ),
  'value-ascending': edit('value-to-vocab', 'sort((a, b) => s[b] - s[a])', 'sort((a, b) => s[a] - s[b])'),
  'rank-one-no-inverse': {
    exercise: 'rank-one-edit',
    source: mutate(
      mutate(R, 'for (let p = 0; p < n; p++) {', 'for (let p = 0; p < 0; p++) {'),
      'for (let i = n - 1; i >= 0; i--) {',
      'for (let i = -1; i >= 0; i--) {',
    ),
  },
  'rank-one-k-outer': edit('rank-one-edit', '(u[i] * r[j]) / ku', '(kStar.data[i] * r[j]) / ku'),
  'rank-one-transposed': edit('rank-one-edit', '(u[i] * r[j]) / ku', '(u[j] * r[i]) / ku'),

  'gqa-kv-as-full-heads': edit(
    'gqa-budget',
    'const kv = 2 * d * nKvHeads * dHead;',
    'const kv = 2 * d * nHeads * dHead;',
  ),
  'gqa-ffn-two-matrices': edit('gqa-budget', 'const ffn = 3 * d * hidden;', 'const ffn = 2 * d * hidden;'),
  'gqa-share-ratio': edit('gqa-budget', 'ffnShare: ffn / (attention + ffn)', 'ffnShare: ffn / attention'),
  'gqa-share-percent': edit(
    'gqa-budget',
    'ffnShare: ffn / (attention + ffn)',
    'ffnShare: (100 * ffn) / (attention + ffn)',
  ),
  'gqa-d-for-heads': {
    exercise: 'gqa-budget',
    source: mutate(
      mutate(
        mutate(Q, 'const q = d * nHeads * dHead;', 'const q = d * d;'),
        'const o = nHeads * dHead * d;',
        'const o = d * d;',
      ),
      'const kv = 2 * d * nKvHeads * dHead;',
      'const kv = 2 * d * (d / nHeads) * nKvHeads;',
    ),
  },
  'width-inverted': edit('gqa-budget', 'return (2 * m) / 3;', 'return (3 * m) / 2;'),
  'width-truncated': edit('gqa-budget', 'return (2 * m) / 3;', 'return Math.floor((2 * m) / 3);'),
};
