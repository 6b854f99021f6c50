// Exercise "swiglu" (course cell 3, interview): the LLaMA-style SwiGLU FFN and LLaMA's hidden-width rule.
import { overflowInputs } from './helpers.js';

function roundUp(h, m) {
  return m * Math.ceil(h / m);
}

/** LLaMA's optional ffnDimMultiplier step: the integer part of mult * h, or h when there is no multiplier. */
function applyMultiplier(h, mult) {
  return mult != null ? Math.trunc(mult * h) : h;
}

const twoThirds = (d) => Math.trunc((8 * d) / 3);

const MULTIPLIER_AFTER_ROUNDING = {
  id: 'llama-multiplier-after-rounding',
  fn: 'llamaHiddenDim',
  title: 'Multiplier applied after rounding',
  message:
    'You applied ffnDimMultiplier after rounding. Multiply first (and take the integer part), then round up ' +
    'to the multiple.',
};

export default {
  id: 'swiglu',
  number: 3,
  level: 'Interview',
  title: 'A LLaMA-style SwiGLU FFN',
  functions: {
    swigluFfn: { params: ['X (..., d)', 'Wg (d, dFF)', 'Wu (d, dFF)', 'Wd (dFF, d)'], returns: 'tensor' },
    llamaHiddenDim: { params: ['d', 'multipleOf = 256', 'ffnDimMultiplier = null'], returns: 'integer' },
  },
  prompt: `<p>Write <code>swigluFfn(X, Wg, Wu, Wd)</code> = <code>(SiLU(X·Wg) ⊙ X·Wu)·Wd</code> for <code>X (...,
d)</code>, with <code>Wg, Wu (d, dFF)</code>, <code>Wd (dFF, d)</code> and no biases. <code>SiLU(z) = z·σ(z)</code>; ⊙
is the elementwise product. The gate branch gets the nonlinearity; the up branch stays linear.</p>
<p>And <code>llamaHiddenDim(d, multipleOf = 256, ffnDimMultiplier = null)</code>: start from the integer part of
<code>2·(4d)/3</code>, multiply by <code>ffnDimMultiplier</code> and take the integer part again if one is given, then
round <em>up</em> to a multiple of <code>multipleOf</code>. LLaMA-7B (d = 4096) gets 11,008; LLaMA 3 8B (d = 4096,
multiplier 1.3, multiple 1024) gets 14,336.</p>`,
  starter: `// X (..., d), Wg and Wu (d, dFF), Wd (dFF, d); no biases. SiLU(z) = z * sigmoid(z).
// Toolkit: matmul, map, mul (elementwise), ...

function swigluFfn(X, Wg, Wu, Wd) {
  throw new Error('swigluFfn: not written yet');
}

function llamaHiddenDim(d, multipleOf = 256, ffnDimMultiplier = null) {
  throw new Error('llamaHiddenDim: not written yet');
}
`,
  examples: [
    'swigluFfn(tensor([[1, -1]]), tensor([[1, 0], [0, 1]]), tensor([[2, 0], [0, 3]]), tensor([[1], [1]]))  ' +
      '-> data ≈ [2.268941], shape [1,1]',
    'llamaHiddenDim(4096)  -> 11008',
  ],
  hints: [
    'Two projections of the same X: G = X·Wg and U = X·Wu, both (..., dFF). Only G goes through SiLU. Multiply ' +
      'elementwise, then project down with Wd.',
    'SiLU(z) = z / (1 + e^(-z)). For the width: Math.trunc(2 * 4 * d / 3), then Math.trunc(multiplier * hidden) if ' +
      'the multiplier is not null, then multipleOf * Math.ceil(hidden / multipleOf).',
    'swigluFfn: matmul(mul(map(matmul(X, Wg), silu), matmul(X, Wu)), Wd). Check the width against 4096 -> 11008 and ' +
      '5120 -> 13824 (not 13568: round up, not to nearest), and apply the multiplier before rounding.',
  ],
  solution: `function silu(z) {
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
`,
  tolerance: { atol: 2e-5, rtol: 2e-5 },
  tests(rng) {
    const tests = [];
    const make = (id, name, xShape, d, dff, gateScale = 1.5) => {
      const X = rng.randn(xShape, 1);
      const Wg = rng.randn([d, dff], gateScale / Math.sqrt(d));
      const Wu = rng.randn([d, dff], 1 / Math.sqrt(d));
      const Wd = rng.randn([dff, d], 1);
      tests.push({ id: `swiglu-${id}`, name: `swigluFfn: ${name}`, fn: 'swigluFfn', args: [X, Wg, Wu, Wd] });
    };
    make('one-token-d-6-dff-10', 'one token, d = 6, dFF = 10', [1, 6], 6, 10);
    make('5-tokens-d-7-not-a-multiple', '5 tokens, d = 7 (not a multiple of 4), dFF = 12', [5, 7], 7, 12);
    make('a-batch-of-2x3-tokens-d-5', 'a batch of 2×3 tokens, d = 5, dFF = 8', [2, 3, 5], 5, 8);
    make('a-single-vector-x-of-shape', 'a single vector x of shape [9], dFF = 4', [9], 9, 4);
    make('saturated-gates-x-wg-up-to', 'saturated gates (|X·Wg| up to about 30)', [3, 4], 4, 6, 15);
    {
      const { X, gate: Wg, dyadic } = overflowInputs(rng, { tokens: 3, d: 3, dff: 6 });
      const args = [X, Wg, dyadic([3, 6], [0.25, 0.5, 1]), dyadic([6, 3], [-1, -0.5, 0.5, 1])];
      tests.push({
        id: 'swiglu-overflow',
        name: 'swigluFfn: gates of ±250 to ±1000 (where e^z overflows)',
        fn: 'swigluFfn',
        args,
      });
    }
    const width = (id, name, args) =>
      tests.push({ id: `width-${id}`, name: `llamaHiddenDim: ${name}`, fn: 'llamaHiddenDim', args });
    width('llama-7b-d-4096', 'LLaMA-7B, d = 4096', [4096]);
    width('llama-13b-d-5120', 'LLaMA-13B, d = 5120', [5120]);
    width('llama-65b-d-8192', 'LLaMA-65B, d = 8192', [8192]);
    width('shazeer-d-768-with', "Shazeer's d = 768 with multipleOf 1", [768, 1]);
    width('d-1000-with-multipleof-1-no', 'd = 1000 with multipleOf 1 (no rounding)', [1000, 1]);
    width('llama-3-8b-d-4096', 'LLaMA 3 8B: d = 4096, multiplier 1.3, multipleOf 1024', [4096, 1024, 1.3]);
    width('llama-2-70b-d-8192', 'LLaMA 2 70B: d = 8192, multiplier 1.3, multipleOf 4096', [8192, 4096, 1.3]);
    width('multiplier-passed-as-null', 'multiplier passed as null', [4096, 256, null]);
    width('small-d-10-multipleof-8', 'small: d = 10, multipleOf 8', [10, 8]);
    // Each step of the rule on its own, with multipleOf 1 so that no rounding hides it.
    width(
      'd-4096-multiplier-1-3',
      'd = 4096, multiplier 1.3, multipleOf 1 (the first integer part changes the result)',
      [4096, 1, 1.3],
    );
    width(
      'd-3072-multiplier-1-3',
      "d = 3072, multiplier 1.3, multipleOf 1 (the multiplier's integer part changes the result)",
      [3072, 1, 1.3],
    );
    width('d-3072-8192-is-already-a', 'd = 3072: 8192 is already a multiple of 256', [3072]);
    width(
      'd-3072-multiplier-1-5-12288',
      'd = 3072, multiplier 1.5: 12288 is already a multiple of 256',
      [3072, 256, 1.5],
    );
    return tests;
  },
  reference: {
    swigluFfn: ([X, Wg, Wu, Wd], api) => api.swigluFfn(X, Wg, Wu, Wd),
    llamaHiddenDim: ([d, multipleOf = 256, ffnDimMultiplier = null], api) =>
      api.llamaHiddenDim(d, { multipleOf, ffnDimMultiplier }),
  },
  variants: [
    {
      id: 'swiglu-silu-on-up',
      fn: 'swigluFfn',
      title: 'SiLU on the up branch',
      message:
        'Your output matches SiLU applied to X·Wu and X·Wg left linear. The gate projection Wg gets the SiLU; ' +
        'the up branch X·Wu stays linear.',
      compute: ([X, Wg, Wu, Wd], api) => api.swigluFfn(X, Wu, Wg, Wd),
    },
    {
      id: 'swiglu-sigmoid',
      fn: 'swigluFfn',
      title: 'Sigmoid instead of SiLU',
      message:
        'Your output matches σ(X·Wg) ⊙ X·Wu, the original GLU. SwiGLU uses SiLU(z) = z·σ(z): multiply the ' +
        'sigmoid by its input.',
      compute: ([X, Wg, Wu, Wd], api) => api.gatedFfn(X, Wg, Wu, Wd, { activation: 'sigmoid' }),
    },
    {
      id: 'swiglu-gelu',
      fn: 'swigluFfn',
      title: 'GELU instead of SiLU (GEGLU)',
      message: 'Your output matches GEGLU, a GELU gate. SwiGLU uses SiLU(z) = z·σ(z).',
      compute: ([X, Wg, Wu, Wd], api) => api.gatedFfn(X, Wg, Wu, Wd, { activation: 'gelu' }),
    },
    {
      id: 'swiglu-gelu',
      fn: 'swigluFfn',
      title: 'GELU instead of SiLU (GEGLU)',
      message: 'Your output matches GEGLU, a GELU gate. SwiGLU uses SiLU(z) = z·σ(z).',
      compute: ([X, Wg, Wu, Wd], api) => api.gatedFfn(X, Wg, Wu, Wd, { activation: 'gelu_tanh' }),
    },
    {
      id: 'swiglu-no-up',
      fn: 'swigluFfn',
      title: 'Missing the up branch',
      message: 'Your output matches SiLU(X·Wg)·Wd: the gate never multiplies the up projection X·Wu.',
      compute: ([X, Wg, , Wd], api) => api.ffn(X, Wg, null, Wd, null, { activation: 'silu' }),
    },
    {
      id: 'llama-rounded-down',
      fn: 'llamaHiddenDim',
      title: 'Rounded down',
      message: 'You rounded down to the multiple. LLaMA rounds up: 10,922 becomes 43 × 256 = 11,008, not 10,752.',
      compute: ([d, m = 256, mult = null]) => m * Math.floor(applyMultiplier(twoThirds(d), mult) / m),
    },
    {
      id: 'llama-nearest',
      fn: 'llamaHiddenDim',
      title: 'Rounded to the nearest multiple',
      message: 'You rounded to the nearest multiple. LLaMA always rounds up (d = 5120 gives 13,824, not 13,568).',
      compute: ([d, m = 256, mult = null]) => m * Math.round(applyMultiplier(twoThirds(d), mult) / m),
    },
    {
      id: 'llama-not-rounded',
      fn: 'llamaHiddenDim',
      title: 'Not rounded to the multiple',
      message:
        'You returned the width before rounding. Finish by rounding up to a multiple of multipleOf, so the ' +
        'matrices tile well (10,922 -> 11,008).',
      compute: ([d, , mult = null]) => applyMultiplier(twoThirds(d), mult),
    },
    {
      id: 'llama-without-two-thirds',
      fn: 'llamaHiddenDim',
      title: 'Without the 2/3',
      message:
        'You started from 4d. The gated FFN has three matrices, so LLaMA scales the classic 4d by 2/3 (the 8/3 ' +
        'rule) before rounding.',
      compute: ([d, m = 256, mult = null]) => roundUp(applyMultiplier(4 * d, mult), m),
    },
    {
      ...MULTIPLIER_AFTER_ROUNDING,
      compute: ([d, m = 256, mult = null]) => applyMultiplier(roundUp(twoThirds(d), m), mult),
    },
    {
      ...MULTIPLIER_AFTER_ROUNDING,
      compute: ([d, m = 256, mult = null]) => {
        const h = roundUp(twoThirds(d), m);
        return mult != null ? roundUp(Math.trunc(mult * h), m) : h;
      },
    },
  ],
};
