// Exercise "swiglu-backward" (course cell 4, interview): the SwiGLU FFN's backward pass, every gradient from dY.
import { matmul, transpose, map, mul, add } from '../../run/index.js';
import { zerosF32, sigmoid, silu, overflowInputs } from './helpers.js';

/** The float64 backward pass, with optional known mistakes switched on (for the variants). */
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

const PRODUCT_RULE = "The product rule's other factor dropped";
const PRODUCT_RULE_MESSAGE =
  'In H = A ⊙ U each factor gets dH times the other factor: dG = dH ⊙ U ⊙ SiLU′(G) and ' +
  'dU = dH ⊙ A. One of your branches is missing its other factor.';

export default {
  id: 'swiglu-backward',
  number: 4,
  level: 'Interview',
  title: 'Backpropagate through SwiGLU',
  functions: {
    swigluBackward: {
      params: ['dY (N, d)', 'X (N, d)', 'Wg (d, dFF)', 'Wu (d, dFF)', 'Wd (dFF, d)'],
      returns: { dX: 'tensor', dWGate: 'tensor', dWUp: 'tensor', dWDown: 'tensor' },
    },
  },
  prompt: `<p>Write <code>swigluBackward(dY, X, Wg, Wu, Wd)</code> for <code>X</code> and <code>dY</code> of shape
<code>(N, d)</code>, returning <code>{ dX, dWGate, dWUp, dWDown }</code> with the shapes of <code>X</code>,
<code>Wg</code>, <code>Wu</code> and <code>Wd</code>. Recompute the forward intermediates: <code>G = X·Wg</code>,
<code>U = X·Wu</code>, <code>A = SiLU(G)</code>, <code>H = A ⊙ U</code>, <code>Y = H·Wd</code>.</p>
<p>You need <code>SiLU′(z) = σ(z)·(1 + z·(1 − σ(z)))</code>. Remember that <code>X</code> feeds both branches.</p>`,
  starter: `// dY and X (N, d), Wg and Wu (d, dFF), Wd (dFF, d).
// Recompute G = X Wg, U = X Wu, A = SiLU(G), H = A * U, then go backwards.
// Return { dX, dWGate, dWUp, dWDown }. Toolkit: matmul, transpose, map, mul, add, ...

function swigluBackward(dY, X, Wg, Wu, Wd) {
  throw new Error('swigluBackward: not written yet');
}
`,
  examples: [
    'For one token with d = 2, dFF = 3, the result has dX [1,2], dWGate [2,3], dWUp [2,3], dWDown [3,2].',
    'A zero dY gives zero gradients everywhere.',
  ],
  hints: [
    'Go in reverse order: dWDown = Hᵀ·dY, dH = dY·Wdᵀ. Then split dH between the two factors of H = A ⊙ U (the ' +
      'product rule): each factor receives dH times the other factor.',
    'dU = dH ⊙ A and dG = dH ⊙ U ⊙ SiLU′(G). Then dWUp = Xᵀ·dU, dWGate = Xᵀ·dG. Weight gradients are (input)ᵀ·' +
      "(gradient of the output), which gives them the weights' own shapes.",
    'dX = dG·Wgᵀ + dU·Wuᵀ: the sum because X feeds both the gate and the up branch. SiLU′(z) = s·(1 + z·(1 − s)) ' +
      "with s = σ(z); σ(z)(1 − σ(z)) alone is the sigmoid's derivative, not SiLU's.",
  ],
  solution: `function sigmoid(z) {
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
`,
  tolerance: { atol: 5e-5, rtol: 5e-5 },
  tests(rng) {
    const tests = [];
    const make = (id, name, N, d, dff, opts = {}) => {
      const X = rng.randn([N, d], 1);
      const Wg = rng.randn([d, dff], 1.5 / Math.sqrt(d));
      const Wu = rng.randn([d, dff], 1 / Math.sqrt(d));
      const Wd = rng.randn([dff, d], 1 / Math.sqrt(dff));
      const dY = opts.zeroGrad ? zerosF32([N, d]) : rng.randn([N, d], 1);
      tests.push({ id: `bw-${id}`, name: `swigluBackward: ${name}`, fn: 'swigluBackward', args: [dY, X, Wg, Wu, Wd] });
    };
    make('one-token-d-4-dff-6', 'one token, d = 4, dFF = 6', 1, 4, 6);
    make('3-tokens-d-5-dff-7', '3 tokens, d = 5, dFF = 7', 3, 5, 7);
    make('4-tokens-d-8-dff-12', '4 tokens, d = 8, dFF = 12', 4, 8, 12);
    make('square-weights-d-dff-4', 'square weights, d = dFF = 4', 2, 4, 4);
    make('the-course-text-matched', "the course text's matched width, d = 12, dFF = 32", 2, 12, 32);
    make('zero-upstream-gradient', 'zero upstream gradient', 2, 3, 5, { zeroGrad: true });
    {
      const { X, gate: Wg, dyadic } = overflowInputs(rng, { tokens: 3, d: 3, dff: 6 });
      const dY = dyadic([3, 3], [-1, -0.5, 0.5, 1]);
      const args = [dY, X, Wg, dyadic([3, 6], [0.25, 0.5, 1]), dyadic([6, 3], [-1, -0.5, 0.5, 1])];
      tests.push({
        id: 'bw-overflow',
        name: 'swigluBackward: gates of ±250 to ±1000 (where e^z and e^-z overflow)',
        fn: 'swigluBackward',
        args,
      });
    }
    return tests;
  },
  reference: {
    swigluBackward: (args, api) => api.swigluBackward(...args),
  },
  variants: [
    {
      id: 'backward-dx-missing-up',
      fn: 'swigluBackward',
      title: 'dX misses the up branch',
      message: 'Your dX only has the gate branch, dG·Wgᵀ. X also feeds the up projection, so add dU·Wuᵀ.',
      compute: (a) => swigluBackward64(...a, { dXOnlyGate: true }),
    },
    {
      id: 'backward-dx-missing-gate',
      fn: 'swigluBackward',
      title: 'dX misses the gate branch',
      message: 'Your dX only has the up branch, dU·Wuᵀ. X also feeds the gate projection, so add dG·Wgᵀ.',
      compute: (a) => swigluBackward64(...a, { dXOnlyUp: true }),
    },
    {
      id: 'backward-silu-prime-sigma',
      fn: 'swigluBackward',
      title: 'SiLU′ written as σ(1 − σ)',
      message:
        "You used σ(z)(1 − σ(z)), the sigmoid's derivative. SiLU(z) = z·σ(z), so SiLU′(z) = σ(z) + " +
        'z·σ(z)(1 − σ(z)) = σ(z)(1 + z(1 − σ(z))).',
      compute: (a) => swigluBackward64(...a, { siluPrimeSigma: true }),
    },
    {
      id: 'backward-product-rule',
      fn: 'swigluBackward',
      title: PRODUCT_RULE,
      message: PRODUCT_RULE_MESSAGE,
      compute: (a) => swigluBackward64(...a, { dGWithoutU: true }),
    },
    {
      id: 'backward-product-rule',
      fn: 'swigluBackward',
      title: PRODUCT_RULE,
      message: PRODUCT_RULE_MESSAGE,
      compute: (a) => swigluBackward64(...a, { dUWithoutA: true }),
    },
    {
      id: 'backward-product-rule',
      fn: 'swigluBackward',
      title: PRODUCT_RULE,
      message: PRODUCT_RULE_MESSAGE,
      compute: (a) => swigluBackward64(...a, { dGWithoutU: true, dUWithoutA: true }),
    },
    {
      id: 'backward-dw-transposed',
      fn: 'swigluBackward',
      anyOf: true,
      title: 'Weight gradient transposed',
      message:
        'At least one weight gradient is transposed. A weight gradient is (layer input)ᵀ·(output gradient): ' +
        "dWGate = Xᵀ·dG has Wg's shape (d, dFF), and dWDown = Hᵀ·dY has Wd's shape (dFF, d).",
      compute: (a) => swigluBackward64(...a, { transposed: true }),
    },
  ],
};
