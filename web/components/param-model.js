// Model of <ffn-param-calculator>: FFN and attention parameter and FLOP counts of one Transformer block (FFN counts from the wasm kernels).

/** Presets. Dense ones come from the section; the MoE one from Qwen3-30B-A3B's public configuration. */
export const PRESETS = Object.freeze({
  transformer: Object.freeze({ label: 'Original Transformer (base)', d: 512, dffMode: 'explicit', dff: 2048, gated: false, bias: true, heads: 8, kvHeads: 8 }),
  gpt2: Object.freeze({ label: 'GPT-2 small', d: 768, dffMode: 'explicit', dff: 3072, gated: false, bias: true, heads: 12, kvHeads: 12 }),
  llama7b: Object.freeze({ label: 'LLaMA-7B', d: 4096, dffMode: 'llama', multipleOf: 256, multiplier: null, gated: true, bias: false, heads: 32, kvHeads: 32 }),
  llama3_8b: Object.freeze({ label: 'LLaMA-3 8B (GQA)', d: 4096, dffMode: 'llama', multipleOf: 1024, multiplier: 1.3, gated: true, bias: false, heads: 32, kvHeads: 8 }),
  llama2_70b: Object.freeze({ label: 'LLaMA-2 70B (GQA)', d: 8192, dffMode: 'llama', multipleOf: 4096, multiplier: 1.3, gated: true, bias: false, heads: 64, kvHeads: 8 }),
  qwen3_moe: Object.freeze({ label: 'Qwen3-30B-A3B (MoE)', d: 2048, dffMode: 'explicit', dff: 768, gated: true, bias: false, heads: 32, kvHeads: 4, headDim: 128, moe: Object.freeze({ experts: 128, active: 8, shared: 0 }) }),
});

export const DEFAULTS = Object.freeze({ d: 768, dffMode: 'explicit', dff: 3072, multipleOf: 256, multiplier: null, gated: false, bias: true, heads: 12, kvHeads: 12, headDim: null, moe: null });

function posInt(name, v) {
  if (!Number.isInteger(v) || v < 1) throw new RangeError(`computeBlock: ${name} must be a positive integer, got ${v}`);
  return v;
}

/**
 * Counts for one block. Input: { d, dffMode: 'explicit'|'llama', dff, multipleOf, multiplier, gated, bias,
 * heads, kvHeads, headDim (default d / heads), moe: null | { experts, active, shared } }.
 * With moe, dff is the width of one expert and is always taken as given (the LLaMA rule sizes a dense
 * FFN, not an expert), whatever dffMode says. FFN numbers come from ffn.ffnParamCount / ffnFlops /
 * llamaHiddenDim; attention projections are W_Q (d, H dh), W_K and W_V (d, H_kv dh), W_O (H dh, d).
 */
export function computeBlock(ffn, input) {
  const c = { ...DEFAULTS, ...input };
  const d = posInt('d', c.d);
  const heads = posInt('heads', c.heads);
  const kvHeads = posInt('kvHeads', c.kvHeads);
  if (heads % kvHeads !== 0) throw new RangeError(`computeBlock: heads (${heads}) must be a multiple of kvHeads (${kvHeads})`);
  let headDim = c.headDim;
  if (headDim === null || headDim === undefined) {
    if (d % heads !== 0) throw new RangeError(`computeBlock: d (${d}) is not divisible by heads (${heads}); give headDim`);
    headDim = d / heads;
  }
  posInt('headDim', headDim);
  const gated = !!c.gated, bias = !!c.bias;
  let dff;
  if (c.dffMode === 'llama' && !c.moe) {
    const m = c.multiplier === null || c.multiplier === undefined || c.multiplier === '' ? null : Number(c.multiplier);
    dff = ffn.llamaHiddenDim(d, { multipleOf: posInt('multipleOf', c.multipleOf), ffnDimMultiplier: m });
  } else {
    dff = posInt('dff', c.dff);
  }
  const one = ffn.ffnParamCount(d, dff, { bias, gated });
  const oneFlops = ffn.ffnFlops(d, dff, { gated });
  const q = heads * headDim, kv = kvHeads * headDim;
  const attnWeights = d * q + 2 * d * kv + q * d;
  const attnParams = attnWeights + (bias ? q + 2 * kv + d : 0);
  const attnFlops = 2 * attnWeights;
  const out = {
    d, dff, gated, bias, heads, kvHeads, headDim,
    ratio: dff / d,
    ffnParams: one, ffnFlops: oneFlops,
    attnParams, attnFlops,
    share: one / (one + attnParams),
    moe: null,
  };
  if (c.moe) {
    const experts = posInt('experts', c.moe.experts);
    const active = posInt('active', c.moe.active);
    const shared = Number.isInteger(c.moe.shared) && c.moe.shared > 0 ? c.moe.shared : 0;
    if (active > experts) throw new RangeError(`computeBlock: active experts (${active}) exceed experts (${experts})`);
    const router = d * experts;
    const total = (experts + shared) * one + router;
    const activeParams = (active + shared) * one + router;
    const activeFlops = (active + shared) * oneFlops + 2 * router;
    out.moe = {
      experts, active, shared, router,
      totalParams: total, activeParams, activeFraction: activeParams / total, activeFlops, totalFlopsIfDense: (experts + shared) * oneFlops + 2 * router,
      shareTotal: total / (total + attnParams), shareActive: activeParams / (activeParams + attnParams),
    };
    out.share = out.moe.shareTotal;
  }
  return out;
}
