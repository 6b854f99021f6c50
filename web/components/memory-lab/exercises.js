// Two exercises on the memory lab's readings, written with defineExercise's format (French included): a memory's
// value projected onto the objects (Geva et al.), and Meng et al.'s rank-one edit of W2.
import { f32 } from '../../rng.js';
import { cholesky, choleskySolve } from './model.js';

/** The k objects a memory's value promotes: indices of U W2[i,:]^T, largest first (ties: lower index). */
function topObjects(W2, U, i, k, { column = false, ascending = false } = {}) {
  const [dff, d] = W2.shape;
  const V = U.shape[0];
  const v = column ? Array.from({ length: d }, (_, j) => W2.data[(j % dff) * d + (i % d)]) : null;
  const score = (o) => {
    let s = 0;
    for (let j = 0; j < d; j++) s += (column ? v[j] : W2.data[i * d + j]) * U.data[o * d + j];
    return s;
  };
  const s = Array.from({ length: V }, (_, o) => score(o));
  const idx = s.map((_, o) => o).sort((a, b) => (ascending ? s[a] - s[b] : s[b] - s[a]) || a - b);
  return idx.slice(0, k);
}

export const valueToVocab = {
  id: 'value-to-vocab',
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
    const push = (name, W2, U, i, k) =>
      tests.push({ name: `valueToVocab: ${name}`, fn: 'valueToVocab', args: [W2, U, i, k] });
    const random = (name, dff, d, V, i, k) => push(name, rng.randn([dff, d], 1), rng.randn([V, d], 1), i, k);
    random('dFF = 6, d = 5, V = 9, memory 2, k = 3', 6, 5, 9, 2, 3);
    random('memory 0, k = 1', 7, 3, 6, 0, 1);
    random('the last memory, k = V', 5, 4, 7, 4, 7);
    random('d = 9, V = 13, k = 4', 8, 9, 13, 5, 4);
    push('a tie between two objects', f32([1, 0, 0, 1, 2, 2], [3, 2]), f32([1, 0, 0, 1, 1, 0, -1, 0], [4, 2]), 1, 2);
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
  translations: {
    fr: {
      title: 'Lire la valeur d’une mémoire dans le vocabulaire',
      level: 'Cœur',
      prompt: `<p>Geva et al. (2021) lisent une mémoire d’un FFN entraîné en projetant sa valeur, la ligne
<code>i</code> de <code>W2</code>, sur les plongements de sortie : <code>scores = U · W2[i,:]</code>, un score par
objet.</p>
<p>Écrivez <code>valueToVocab(W2, U, i, k)</code> : les indices des <code>k</code> objets aux plus grands scores,
du plus grand au plus petit, les égalités départagées par le plus petit indice.</p>`,
      examples: [
        'Avec les scores [0.5, 2, -1, 2] et k = 2, la réponse est [1, 3] (l’égalité va au plus petit indice).',
      ],
      hints: [
        'La valeur de la mémoire i est row(W2, i), un vecteur de d nombres ; le score d’un objet est son produit ' +
          'scalaire avec la ligne de U.',
        'Le score de l’objet o est la somme sur j de W2.data[i * d + j] * U.data[o * d + j] : une boucle sur ' +
          'les V objets.',
        'Triez range(V) par score, du plus grand au plus petit : .sort((a, b) => s[b] - s[a]) ; le tri est stable, ' +
          'les égalités gardent donc le plus petit indice. Prenez les k premiers.',
      ],
      variants: [
        {
          title: 'Une colonne de W2 au lieu de sa ligne',
          message:
            'La valeur de la mémoire i est la ligne i de W2 (forme (d)), pas la colonne i : W2 est (dFF, d), ' +
            'une ligne par mémoire.',
        },
        {
          title: 'Les objets qu’elle défavorise le plus',
          message:
            'Votre liste contient les plus petits scores, du plus petit au plus grand. Listez d’abord les plus grands.',
        },
      ],
    },
  },
};

/** W2 + alpha u r^T with u = C^-1 k* (or k* itself, a mistake), r = v* - k* W2, alpha = 1 / (k* . u'). */
function edited(W2, C, kStar, vStar, { noInverse = false, kOuter = false } = {}) {
  const [dff, d] = W2.shape;
  const L = cholesky(C.data, dff);
  const solved = choleskySolve(L, dff, kStar.data);
  const u = noInverse || kOuter ? Float64Array.from(kStar.data) : solved;
  const den = noInverse ? u : solved;
  let ku = 0;
  for (let i = 0; i < dff; i++) ku += kStar.data[i] * den[i];
  const r = Float64Array.from(vStar.data);
  for (let i = 0; i < dff; i++) for (let j = 0; j < d; j++) r[j] -= kStar.data[i] * W2.data[i * d + j];
  const out = Float64Array.from(W2.data);
  for (let i = 0; i < dff; i++) for (let j = 0; j < d; j++) out[i * d + j] += (u[i] * r[j]) / ku;
  return { data: out, shape: [dff, d] };
}

/** A covariance C = K^T K / N + 0.1 I of N random keys (dff), and one of the keys as k*. */
function keys(rng, dff, n) {
  const K = rng.rand([n, dff], 0, 1);
  const C = new Float32Array(dff * dff);
  for (let a = 0; a < n; a++) {
    for (let i = 0; i < dff; i++)
      for (let j = 0; j < dff; j++) C[i * dff + j] += (K.data[a * dff + i] * K.data[a * dff + j]) / n;
  }
  for (let i = 0; i < dff; i++) C[i * dff + i] += 0.1;
  return { C: { data: C, shape: [dff, dff] }, kStar: { data: K.data.slice(0, dff), shape: [dff] } };
}

export const rankOneEdit = {
  id: 'rank-one-edit',
  level: 'Challenge',
  title: "Meng et al.'s rank-one edit of W2",
  functions: {
    rankOneEdit: { params: ['W2 (dFF, d)', 'C (dFF, dFF)', 'kStar (dFF)', 'vStar (d)'], returns: 'tensor' },
  },
  prompt: `<p>Meng et al. (2022) rewrite a fact stored in an FFN by changing <code>W2</code> so that the fact's key
<code>k*</code> (its hidden activation) now gives a new value <code>v*</code>, while disturbing the other keys, whose
covariance is <code>C</code>, as little as possible. The closed form is
<code>W2' = W2 + (C⁻¹k*ᵀ)(v* − k*W2) / (k* C⁻¹ k*ᵀ)</code>.</p>
<p>Write <code>rankOneEdit(W2, C, kStar, vStar)</code> returning <code>W2'</code> (shape <code>(dFF, d)</code>).
<code>C</code> is symmetric positive definite: solve <code>C u = k*</code> (Gaussian elimination or Cholesky) rather
than inverting it.</p>`,
  starter: `// W2 (dFF, d), C (dFF, dFF) symmetric positive definite, kStar (dFF), vStar (d).
// Return W2 + u (vStar - kStar W2)^T / (kStar . u) with u = C^-1 kStar. Toolkit: matmul, zeros, ...

function rankOneEdit(W2, C, kStar, vStar) {
  throw new Error('rankOneEdit: not written yet');
}
`,
  examples: ["After the edit, matmul(kStar, W2') equals vStar: the key now writes the new value."],
  hints: [
    'Three pieces: u = C⁻¹k* (a linear solve), r = v* − k*W2 (a vector of d numbers), and the number k*·u.',
    'Solve C u = k* by Gaussian elimination: copy C and k*, for each column p eliminate the rows below it, then ' +
      'substitute back from the last row.',
    "Then W2'[i][j] = W2[i][j] + u[i] * r[j] / (k*·u) for every i, j: the outer product of u (not k*) and r.",
  ],
  solution: `function rankOneEdit(W2, C, kStar, vStar) {
  const [n, d] = W2.shape;
  const A = Array.from({ length: n }, (_, i) => Array.from(C.data.slice(i * n, i * n + n)));
  const u = Array.from(kStar.data);
  for (let p = 0; p < n; p++) {
    for (let i = p + 1; i < n; i++) {
      const f = A[i][p] / A[p][p];
      for (let j = p; j < n; j++) A[i][j] -= f * A[p][j];
      u[i] -= f * u[p];
    }
  }
  for (let i = n - 1; i >= 0; i--) {
    for (let j = i + 1; j < n; j++) u[i] -= A[i][j] * u[j];
    u[i] /= A[i][i];
  }
  const r = Array.from(vStar.data);
  let ku = 0;
  for (let i = 0; i < n; i++) {
    ku += kStar.data[i] * u[i];
    for (let j = 0; j < d; j++) r[j] -= kStar.data[i] * W2.data[i * d + j];
  }
  const out = Array.from(W2.data);
  for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) out[i * d + j] += (u[i] * r[j]) / ku;
  return tensor(out, [n, d]);
}
`,
  tolerance: { atol: 1e-4, rtol: 1e-4 },
  tests(rng) {
    const tests = [];
    const random = (name, dff, d) => {
      const { C, kStar } = keys(rng, dff, 3 * dff);
      const args = [rng.randn([dff, d], 1), C, kStar, rng.randn([d], 1)];
      tests.push({ name: `rankOneEdit: ${name}`, fn: 'rankOneEdit', args });
    };
    random('dFF = 5, d = 3', 5, 3);
    random('dFF = 9, d = 4', 9, 4);
    random('dFF = 2, d = 1', 2, 1);
    random('dFF = 7, d = 6', 7, 6);
    return tests;
  },
  reference: {
    rankOneEdit: ([W2, C, kStar, vStar]) => edited(W2, C, kStar, vStar),
  },
  variants: [
    {
      id: 'rank-one-no-inverse',
      fn: 'rankOneEdit',
      title: 'C⁻¹ forgotten',
      message: 'Your update uses k* where it needs C⁻¹k*, in the outer product and in the denominator: solve C u = k*.',
      compute: ([W2, C, kStar, vStar]) => edited(W2, C, kStar, vStar, { noInverse: true }),
    },
    {
      id: 'rank-one-k-outer',
      fn: 'rankOneEdit',
      title: 'k* instead of C⁻¹k* in the outer product',
      message: 'Your denominator is right, but the outer product uses k*: it must be u = C⁻¹k* times (v* − k*W2).',
      compute: ([W2, C, kStar, vStar]) => edited(W2, C, kStar, vStar, { kOuter: true }),
    },
  ],
  translations: {
    fr: {
      title: 'La modification de rang un de W2 de Meng et al.',
      level: 'Défi',
      prompt: `<p>Meng et al. (2022) réécrivent un fait stocké dans un FFN en changeant <code>W2</code> pour que la clé
du fait <code>k*</code> (son activation cachée) donne désormais une nouvelle valeur <code>v*</code>, en perturbant
le moins possible les autres clés, de covariance <code>C</code>. La forme close est
<code>W2' = W2 + (C⁻¹k*ᵀ)(v* − k*W2) / (k* C⁻¹ k*ᵀ)</code>.</p>
<p>Écrivez <code>rankOneEdit(W2, C, kStar, vStar)</code> qui renvoie <code>W2'</code> (forme
<code>(dFF, d)</code>). <code>C</code> est symétrique définie positive : résolvez <code>C u = k*</code> (élimination
de Gauss ou Cholesky) plutôt que de l’inverser.</p>`,
      examples: ["Après la modification, matmul(kStar, W2') vaut vStar : la clé écrit la nouvelle valeur."],
      hints: [
        'Trois morceaux : u = C⁻¹k* (une résolution linéaire), r = v* − k*W2 (un vecteur de d nombres) et le ' +
          'nombre k*·u.',
        'Résolvez C u = k* par élimination de Gauss : copiez C et k*, pour chaque colonne p éliminez les lignes en ' +
          'dessous, puis remontez depuis la dernière ligne.',
        "Puis W2'[i][j] = W2[i][j] + u[i] * r[j] / (k*·u) pour tous i, j : le produit extérieur de u (pas de k*) " +
          'et de r.',
      ],
      variants: [
        {
          title: 'C⁻¹ oublié',
          message:
            'Votre mise à jour utilise k* là où il faut C⁻¹k*, dans le produit extérieur et au dénominateur : ' +
            'résolvez C u = k*.',
        },
        {
          title: 'k* au lieu de C⁻¹k* dans le produit extérieur',
          message:
            'Votre dénominateur est juste, mais le produit extérieur utilise k* : il faut u = C⁻¹k* fois (v* − k*W2).',
        },
      ],
    },
  },
};

/** The two definitions, for defineExercise (then <ffn-exercise exercise="value-to-vocab">, "rank-one-edit"). */
export const labExercises = Object.freeze({ valueToVocab, rankOneEdit });
