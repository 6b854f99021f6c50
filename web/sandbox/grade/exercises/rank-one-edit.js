// Exercise "rank-one-edit" (the memory lab): Meng et al.'s (2022) closed-form rank-one edit of W2, which rewrites
// one fact's value while disturbing the other keys least.
import { cholesky, choleskySolve } from '../../../linalg.js';

/**
 * W2 + alpha u r^T with u = C^-1 k* (or k* itself, a mistake), r = v* - k* W2, alpha = 1 / (k* . u'). transposed:
 * W2'[i][j] += alpha u[j] r[i], the update's indices swapped (NaN where they leave u or r, unless dFF = d).
 */
function edited(W2, C, kStar, vStar, { noInverse = false, kOuter = false, transposed = false } = {}) {
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
  for (let i = 0; i < dff; i++) {
    for (let j = 0; j < d; j++) out[i * d + j] += (transposed ? u[j] * r[i] : u[i] * r[j]) / ku; // NaN off a square
  }
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

export default {
  id: 'rank-one-edit',
  number: 8,
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
    const random = (id, name, dff, d) => {
      const { C, kStar } = keys(rng, dff, 3 * dff);
      const args = [rng.randn([dff, d], 1), C, kStar, rng.randn([d], 1)];
      tests.push({ id: `edit-${id}`, name: `rankOneEdit: ${name}`, fn: 'rankOneEdit', args });
    };
    random('5-3', 'dFF = 5, d = 3', 5, 3);
    random('9-4', 'dFF = 9, d = 4', 9, 4);
    random('2-1', 'dFF = 2, d = 1', 2, 1);
    random('7-6', 'dFF = 7, d = 6', 7, 6);
    random('square', 'a square W2, dFF = d = 5', 5, 5);
    random('1-3', 'one memory only: dFF = 1, d = 3', 1, 3);
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
    {
      id: 'rank-one-transposed',
      fn: 'rankOneEdit',
      title: 'The update transposed',
      message:
        'Your update is the outer product the other way round, (v* − k*W2) times C⁻¹k*, of shape (d, dFF). ' +
        "W2 is (dFF, d), one row per memory: W2'[i][j] += u[i] * r[j] / (k*·u), with u = C⁻¹k*.",
      compute: ([W2, C, kStar, vStar]) => edited(W2, C, kStar, vStar, { transposed: true }),
    },
  ],
};
