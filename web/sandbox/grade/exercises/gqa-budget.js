// Exercise "gqa-budget" (from the course text): a GQA + SwiGLU block's weights and the matched gated width.

/** Bias-free projection weights of a GQA attention + SwiGLU block, with optional known mistakes (for the variants). */
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

const WIDTH_TRUNCATED = {
  id: 'width-truncated',
  fn: 'matchedGatedWidth',
  title: 'Width rounded to a whole number',
  message: 'You rounded g. Return the exact 2m/3; rounding to a hardware-friendly multiple is a separate step.',
};

export default {
  id: 'gqa-budget',
  number: 6,
  level: 'Beyond the cells',
  title: 'Where a GQA + SwiGLU block keeps its weights',
  functions: {
    gqaBlockCounts: {
      params: ['d', 'nHeads', 'nKvHeads in 1..nHeads', 'dHead', 'hidden'],
      returns: { attention: 'integer', ffn: 'integer', ffnShare: 'number' },
    },
    matchedGatedWidth: { params: ['m'], returns: 'number' },
  },
  prompt: `<p>With grouped-query attention, the query and output projections use all <code>nHeads</code> heads of size
<code>dHead</code>, but keys and values use only <code>nKvHeads</code> heads. Write <code>gqaBlockCounts(d, nHeads,
nKvHeads, dHead, hidden)</code> returning <code>{ attention, ffn, ffnShare }</code>: the bias-free projection weights
of the attention sublayer (W_Q, W_K, W_V, W_O), of a SwiGLU FFN of width <code>hidden</code>, and the FFN's fraction
of the two together (a number between 0 and 1).</p>
<p>For d = 4096, 32 heads, 8 KV heads, head size 128 and hidden 14,336 that is 41,943,040 and 176,160,768 weights, an
FFN share of about 80.8%, not two thirds.</p>
<p>Also write <code>matchedGatedWidth(m)</code>: the gated width <code>g</code> whose three matrices hold as many
weights as a two-matrix FFN of width <code>m</code> (return the exact value, even when it is not a whole number).</p>`,
  starter: `// Bias-free projection weights of one attention + SwiGLU block with grouped-query attention.
// Return { attention, ffn, ffnShare } with ffnShare = ffn / (attention + ffn), a fraction.

function gqaBlockCounts(d, nHeads, nKvHeads, dHead, hidden) {
  throw new Error('gqaBlockCounts: not written yet');
}

// The gated width g that matches the weights of a two-matrix FFN of width m.
function matchedGatedWidth(m) {
  throw new Error('matchedGatedWidth: not written yet');
}
`,
  examples: [
    'gqaBlockCounts(4096, 32, 8, 128, 14336)  -> { attention: 41943040, ffn: 176160768, ffnShare: ≈ 0.8077 }',
    'matchedGatedWidth(48)  -> 32',
  ],
  hints: [
    'Count each projection as (inputs × outputs). W_Q maps d to nHeads·dHead, W_K and W_V map d to nKvHeads·dHead ' +
      'each, W_O maps nHeads·dHead back to d.',
    'The SwiGLU FFN has three d × hidden matrices. The share is ffn / (attention + ffn), not ffn / attention, and ' +
      'stays a fraction (0.808, not 80.8).',
    'Matched budgets: 2·d·m = 3·d·g, so g = 2m/3. Do not round it.',
  ],
  solution: `function gqaBlockCounts(d, nHeads, nKvHeads, dHead, hidden) {
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
`,
  tolerance: { atol: 1e-12, rtol: 1e-9 },
  tests() {
    const tests = [];
    const block = (id, name, args) =>
      tests.push({ id: `block-${id}`, name: `gqaBlockCounts: ${name}`, fn: 'gqaBlockCounts', args });
    block(
      'the-course-text-block-d',
      "the course text's block: d = 4096, 32 heads, 8 KV heads, head 128, hidden 14336",
      [4096, 32, 8, 128, 14336],
    );
    block('multi-head-llama-7b-32-kv', 'multi-head (LLaMA-7B): 32 KV heads, hidden 11008', [4096, 32, 32, 128, 11008]);
    block(
      'multi-query-d-2048-16-heads',
      'multi-query: d = 2048, 16 heads, 1 KV head, hidden 5632',
      [2048, 16, 1, 128, 5632],
    );
    block(
      'heads-x-head-size-d-d-3072',
      'heads × head size ≠ d: d = 3072, 16 heads of 256, hidden 24576',
      [3072, 16, 16, 256, 24576],
    );
    block('small-d-64-4-heads-2-kv', 'small: d = 64, 4 heads, 2 KV heads, head 16, hidden 172', [64, 4, 2, 16, 172]);
    const width = (id, name, m) =>
      tests.push({ id: `width-${id}`, name: `matchedGatedWidth: ${name}`, fn: 'matchedGatedWidth', args: [m] });
    width('gpt-2-small-m-3072', 'GPT-2 small, m = 3072', 3072);
    width('the-course-text-m-48', "the course text's m = 48", 48);
    width('m-16384-not-a-multiple-of-3', 'm = 16384 (not a multiple of 3)', 16384);
    width('m-100', 'm = 100', 100);
    return tests;
  },
  reference: {
    gqaBlockCounts: ([d, nHeads, nKvHeads, dHead, hidden], api) => {
      // Attention from the projections' shapes; the FFN through ffn-lab's own count of a bias-free gated FFN.
      const attention = d * nHeads * dHead + 2 * d * nKvHeads * dHead + nHeads * dHead * d;
      const ffn = api.ffnParamCount(d, hidden, { bias: false, gated: true });
      return { attention, ffn, ffnShare: ffn / (attention + ffn) };
    },
    matchedGatedWidth: ([m]) => (2 * m) / 3,
  },
  variants: [
    {
      id: 'gqa-kv-as-full-heads',
      fn: 'gqaBlockCounts',
      title: 'KV heads counted as full heads',
      message:
        'Your attention count gives W_K and W_V all nHeads heads. With GQA they have nKvHeads heads, ' +
        'd × (nKvHeads·dHead) each.',
      compute: (a) => gqaCounts(...a, { kvAsFull: true }),
    },
    {
      id: 'gqa-ffn-two-matrices',
      fn: 'gqaBlockCounts',
      title: 'FFN counted with two matrices',
      message: 'Your FFN count has two matrices. SwiGLU has three: gate, up and down, 3·d·hidden.',
      compute: (a) => gqaCounts(...a, { ffnTwo: true }),
    },
    {
      id: 'gqa-share-ratio',
      fn: 'gqaBlockCounts',
      title: 'Share computed as FFN / attention',
      message:
        "ffnShare should be the FFN's fraction of the total, ffn / (attention + ffn), not the ratio " +
        'ffn / attention.',
      compute: (a) => gqaCounts(...a, { ratio: true }),
    },
    {
      id: 'gqa-share-percent',
      fn: 'gqaBlockCounts',
      title: 'Share as a percentage',
      message: 'ffnShare should be a fraction between 0 and 1 (0.808), not a percentage (80.8).',
      compute: (a) => gqaCounts(...a, { percent: true }),
    },
    {
      id: 'gqa-d-for-heads',
      fn: 'gqaBlockCounts',
      title: 'd used for nHeads·dHead',
      message:
        'You used d for the attention width. The query/output width is nHeads·dHead, which need not equal d ' +
        '(here 16·256 = 4096 while d = 3072).',
      compute: (a) => gqaCounts(...a, { dForHeads: true }),
    },
    {
      id: 'width-inverted',
      fn: 'matchedGatedWidth',
      title: 'Ratio inverted',
      message:
        'You returned 3m/2. Three gated matrices must hold what two classic ones held: 3·d·g = 2·d·m, so ' +
        'g = 2m/3, narrower than m.',
      compute: ([m]) => (3 * m) / 2,
    },
    { ...WIDTH_TRUNCATED, compute: ([m]) => Math.floor((2 * m) / 3) },
    { ...WIDTH_TRUNCATED, compute: ([m]) => Math.round((2 * m) / 3) },
  ],
};
