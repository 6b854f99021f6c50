// Exercise "value-to-vocab" (the memory lab): the top-k objects a memory's value promotes, read through the output
// embeddings as Geva et al. (2021) read a trained FFN's values.
import { f32 } from '../../../rng.js';

/**
 * The k objects a memory's value promotes: indices of U W2[i,:]^T, largest first (ties: lower index). column: the
 * mistake W2[j][i] for W2[i][j], read from the flat data as a learner would (NaN past its end, so the sort keeps
 * those objects in index order).
 */
function topObjects(W2, U, i, k, { column = false, ascending = false } = {}) {
  const d = W2.shape[1];
  const V = U.shape[0];
  const w = (j) => (column ? (j * d + i < W2.data.length ? W2.data[j * d + i] : NaN) : W2.data[i * d + j]);
  const score = (o) => {
    let s = 0;
    for (let j = 0; j < d; j++) s += w(j) * U.data[o * d + j];
    return s;
  };
  const s = Array.from({ length: V }, (_, o) => score(o));
  const idx = s.map((_, o) => o).sort((a, b) => (ascending ? s[a] - s[b] : s[b] - s[a]) || a - b);
  return idx.slice(0, k);
}

export default {
  id: 'value-to-vocab',
  number: 7,
  level: 'Core',
  title: "Read a memory's value in the vocabulary",
  functions: {
    valueToVocab: {
      params: ['W2 (dFF, d)', 'U (V, d)', 'i', 'k in 1..V'],
      returns: { kind: 'integers', item: 'object', order: 'strongest' },
    },
  },
  prompt: `<p>Geva et al. (2021) read a memory of a trained FFN by projecting its value, row <code>i</code> of
<code>W2</code>, onto the output embeddings: <code>scores = U · W2[i,:]</code>, one score per object.</p>
<p>Write <code>valueToVocab(W2, U, i, k)</code>: the indices of the <code>k</code> objects with the largest scores,
largest first, ties broken by the lower index.</p>`,
  starter: `// W2 (dFF, d): row i is memory i's value. U (V, d): row o is object o's embedding.
// Return the k object indices with the largest U·W2[i,:], largest first. Toolkit: range, row, ...

function valueToVocab(W2, U, i, k) {
  throw new Error('valueToVocab: not written yet');
}
`,
  examples: ['With scores [0.5, 2, -1, 2] and k = 2, the answer is [1, 3] (the tie goes to the lower index).'],
  hints: [
    "Memory i's value is row(W2, i), a vector of d numbers; each object's score is its dot product with U's row.",
    "Object o's score is the sum over j of W2.data[i * d + j] * U.data[o * d + j]: one loop over the V objects.",
    'Sort range(V) by score, largest first: .sort((a, b) => s[b] - s[a]); the sort is stable, so ties keep the ' +
      'lower index. Take the first k.',
  ],
  solution: `function valueToVocab(W2, U, i, k) {
  const [V, d] = U.shape;
  const s = [];
  for (let o = 0; o < V; o++) {
    let t = 0;
    for (let j = 0; j < d; j++) t += W2.data[i * d + j] * U.data[o * d + j];
    s.push(t);
  }
  return range(V).sort((a, b) => s[b] - s[a]).slice(0, k);
}
`,
  tests(rng) {
    const tests = [];
    const push = (id, name, W2, U, i, k) =>
      tests.push({ id: `v2v-${id}`, name: `valueToVocab: ${name}`, fn: 'valueToVocab', args: [W2, U, i, k] });
    const random = (id, name, dff, d, V, i, k) => push(id, name, rng.randn([dff, d], 1), rng.randn([V, d], 1), i, k);
    random('memory-2', 'dFF = 6, d = 5, V = 9, memory 2, k = 3', 6, 5, 9, 2, 3);
    random('k-1', 'memory 0, k = 1', 7, 3, 6, 0, 1);
    random('k-v', 'the last memory, k = V', 5, 4, 7, 4, 7);
    random('d-9', 'd = 9, V = 13, k = 4', 8, 9, 13, 5, 4);
    random('d-1', 'one dimension only: d = 1, V = 5, k = 2', 4, 1, 5, 3, 2);
    const tie = [f32([1, 0, 0, 1, 2, 2], [3, 2]), f32([1, 0, 0, 1, 1, 0, -1, 0], [4, 2])];
    push('tie', 'a tie between two objects', ...tie, 1, 2);
    return tests;
  },
  reference: {
    valueToVocab: ([W2, U, i, k]) => topObjects(W2, U, i, k),
  },
  variants: [
    {
      id: 'value-column',
      fn: 'valueToVocab',
      title: 'A column of W2 instead of its row',
      message: "Memory i's value is row i of W2 (shape (d)), not column i: W2 is (dFF, d), one row per memory.",
      compute: ([W2, U, i, k]) => topObjects(W2, U, i, k, { column: true }),
    },
    {
      id: 'value-ascending',
      fn: 'valueToVocab',
      title: 'The objects it demotes most',
      message: 'Your list holds the lowest scores, smallest first. List the largest scores first.',
      compute: ([W2, U, i, k]) => topObjects(W2, U, i, k, { ascending: true }),
    },
  ],
};
