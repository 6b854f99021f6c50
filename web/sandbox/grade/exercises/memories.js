// Exercise "memories" (course cell 5, core): a ReLU FFN read as a key-value memory: coefficients, top k, partial write.
import { matmul, map, add } from '../../run/index.js';
import { f32 } from './helpers.js';

/** Top-k by a stable sort of the indices (descending: ties by lower index), or a known mistake's order. */
function topK(values, k, { ascendingTail = false, tieHigh = false, smallest = false } = {}) {
  const idx = Array.from(values, (_, i) => i);
  if (ascendingTail) return idx.sort((i, j) => values[i] - values[j]).slice(values.length - k);
  if (smallest) return idx.sort((i, j) => values[i] - values[j]).slice(0, k);
  if (tieHigh) return idx.sort((i, j) => values[j] - values[i] || j - i).slice(0, k);
  return idx.sort((i, j) => values[j] - values[i]).slice(0, k);
}

/** The float64 decomposition, with optional known mistakes switched on (for the variants). */
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

export default {
  id: 'memories',
  number: 5,
  level: 'Core',
  title: 'Decompose an FFN into its memories',
  functions: {
    ffnMemories: {
      params: ['x (d)', 'W1 (d, dFF)', 'b1 (dFF)', 'W2 (dFF, d)', 'k in 0..dFF'],
      returns: { coef: 'tensor', top: { kind: 'integers', item: 'memory', order: 'strongest' }, partial: 'tensor' },
    },
  },
  prompt: `<p>Read a ReLU FFN without output bias as a key-value memory: key <code>i</code> is column <code>i</code>
of <code>W1</code>, value <code>i</code> is row <code>i</code> of <code>W2</code>, and memory <code>i</code> fires
with coefficient <code>coefᵢ = max(0, x·kᵢ + b1ᵢ)</code>.</p>
<p>Write <code>ffnMemories(x, W1, b1, W2, k)</code> for one token <code>x</code> of shape <code>(d)</code>, returning
<code>{ coef, top, partial }</code>: <code>coef</code> (shape <code>(dFF)</code>) every memory's coefficient;
<code>top</code> the indices of the <code>k</code> largest coefficients, largest first, ties broken by the lower
index; <code>partial</code> (shape <code>(d)</code>) the sum of just those memories' writes, <code>Σ_{i∈top}
coefᵢ·vᵢ</code>.</p>`,
  starter: `// One token x (d). W1 (d, dFF): column i is key i. b1 (dFF). W2 (dFF, d): row i is value i.
// Return { coef, top, partial }: coef (dFF), top (k indices, largest first, ties by lower index),
// partial (d). Toolkit: matmul, add, map, row, range, zeros, ...

function ffnMemories(x, W1, b1, W2, k) {
  throw new Error('ffnMemories: not written yet');
}
`,
  examples: [
    'With coefficients [0.5, 0, 2, 0.5] and k = 3, top is [2, 0, 3] (the tie between 0 and 3 goes to the lower index).',
    'With k = dFF, partial equals the whole FFN output (no output bias).',
  ],
  hints: [
    "coef is the ReLU FFN's hidden layer for one token: matmul(x, W1) gives shape (dFF); add b1 and clamp at zero " +
      'with map.',
    'Sort the indices 0..dFF-1 by coefficient, largest first: range(n).sort((i, j) => coef.data[j] - coef.data[i]). ' +
      "JavaScript's sort is stable, so equal coefficients keep the lower index first. Take the first k.",
    'partial starts as zeros([d]) and adds coef.data[i] times row(W2, i) for each i in top only, not for every memory.',
  ],
  solution: `function ffnMemories(x, W1, b1, W2, k) {
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
`,
  tolerance: { atol: 2e-5, rtol: 2e-5 },
  tests(rng) {
    const tests = [];
    const push = (id, name, x, W1, b1, W2, k) =>
      tests.push({ id: `m-${id}`, name: `ffnMemories: ${name}`, fn: 'ffnMemories', args: [x, W1, b1, W2, k] });
    const random = (id, name, d, dff, k) =>
      push(
        id,
        name,
        rng.randn([d], 1),
        rng.randn([d, dff], 1 / Math.sqrt(d)),
        rng.randn([dff], 0.3),
        rng.randn([dff, d], 1),
        k,
      );
    random('d-4-dff-6-k-2', 'd = 4, dFF = 6, k = 2', 4, 6, 2);
    random('d-7-dff-10-k-3', 'd = 7, dFF = 10, k = 3', 7, 10, 3);
    random('k-1', 'k = 1', 5, 9, 1);
    random('k-dff-every-memory-zeros', 'k = dFF (every memory, zeros included)', 5, 6, 6);
    random('k-0-no-memory-top-is-empty', 'k = 0 (no memory: top is empty and partial is zero)', 5, 7, 0);
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
      push('ties-among-the-largest', 'ties among the largest coefficients', x, W1, b1, rng.randn([dff, d], 1), 2);
    }
    push(
      'no-memory-fires-all',
      'no memory fires (all coefficients zero)',
      f32([1, 1, 1]),
      { data: new Float32Array(15).fill(-1), shape: [3, 5] },
      f32([0, -1, -2, 0, -0.5]),
      rng.randn([5, 3], 1),
      3,
    );
    {
      // A hand-built three-fact memory: one-hot-ish keys with a threshold in b1.
      const W1 = f32([4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0], [4, 3]);
      const b1 = f32([-3, -3, -3]);
      const W2 = f32([1, 0, 0, 0.5, 0, 1, 0, 0.5, 0, 0, 1, 0.5], [3, 4]);
      push(
        'a-hand-built-three-fact',
        'a hand-built three-fact memory (query matches fact 2)',
        f32([0.1, 1, 0, 0]),
        W1,
        b1,
        W2,
        2,
      );
    }
    return tests;
  },
  reference: {
    ffnMemories: ([x, W1, b1, W2, k], api) => api.ffnMemories(x, W1, b1, W2, k),
  },
  variants: [
    {
      id: 'memories-ascending',
      fn: 'ffnMemories',
      title: 'Top memories in ascending order',
      message:
        'Your top holds the right memories but smallest first. List them largest first (sort descending, or ' +
        'reverse after sorting).',
      compute: ([x, W1, b1, W2, k]) => memories(x, W1, b1, W2, k, { ascendingTail: true }),
    },
    {
      id: 'memories-smallest',
      fn: 'ffnMemories',
      title: 'The k smallest memories',
      message: 'Your top holds the k smallest coefficients. You want the k largest.',
      compute: ([x, W1, b1, W2, k]) => memories(x, W1, b1, W2, k, { smallest: true }),
    },
    {
      id: 'memories-no-relu',
      fn: 'ffnMemories',
      title: 'Coefficients without ReLU',
      message:
        'Your coefficients are the raw x·kᵢ + b1ᵢ. Clamp them at zero: a memory whose key does not match ' +
        'writes nothing, it does not write a negative amount.',
      compute: ([x, W1, b1, W2, k]) => memories(x, W1, b1, W2, k, { noRelu: true }),
    },
    {
      id: 'memories-partial-all',
      fn: 'ffnMemories',
      title: 'Partial summed over all memories',
      message: 'Your partial adds every memory, which is the whole FFN output. Sum only the k memories in top.',
      compute: ([x, W1, b1, W2, k]) => memories(x, W1, b1, W2, k, { all: true }),
    },
    {
      id: 'memories-ties-high-index',
      fn: 'ffnMemories',
      title: 'Ties broken by the higher index',
      message:
        'Your top breaks ties between equal coefficients by the higher index. Keep the lower index first (a ' +
        'stable descending sort does this).',
      compute: ([x, W1, b1, W2, k]) => memories(x, W1, b1, W2, k, { tieHigh: true }),
    },
  ],
};
