// Model of <ffn-param-calculator>: FFN and attention parameter and FLOP counts of one Transformer block (FFN counts from the wasm kernels).
import { quote, checkLength, toNumber, toInteger } from './parse.js';

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

/**
 * The largest sizes accepted (every count then stays an exact integer in a double: 3 d dff (experts + shared)
 * and twice that in FLOPs stay below 2^53).
 */
export const LIMITS = Object.freeze({
  d: 131072, dff: 1048576, heads: 4096, headDim: 16384, multipleOf: 65536, multiplier: 64, experts: 4096, shared: 64,
});
/** Author presets: at most MAX_PRESETS, given as at most PRESETS_MAX_CHARS characters of JSON. */
export const MAX_PRESETS = 16;
export const PRESETS_MAX_CHARS = 16000;
const ID_RE = /^[A-Za-z0-9_-]{1,32}$/;
const CONFIG_KEYS = [
  'd', 'dffMode', 'dff', 'multipleOf', 'multiplier', 'gated', 'bias', 'heads', 'kvHeads', 'headDim', 'moe',
];

function posInt(name, v, max, min = 1) {
  if (!Number.isInteger(v) || v < min || v > max) {
    const kind = min ? 'positive' : 'non-negative';
    throw new RangeError(`computeBlock: ${name} must be a ${kind} integer up to ${max}, got ${quote(String(v))}`);
  }
  return v;
}

/**
 * Check a block configuration without computing it: returns the full configuration (DEFAULTS for what is not
 * given) or throws a RangeError/TypeError naming the field. Sizes are bounded by LIMITS.
 */
export function validateConfig(input) {
  if (!input || typeof input !== 'object') throw new TypeError('computeBlock: the configuration must be an object');
  const c = { ...DEFAULTS };
  for (const k of CONFIG_KEYS) if (Object.hasOwn(input, k) && input[k] !== undefined) c[k] = input[k];
  posInt('d', c.d, LIMITS.d);
  posInt('heads', c.heads, LIMITS.heads);
  posInt('kvHeads', c.kvHeads, LIMITS.heads);
  if (c.heads % c.kvHeads !== 0) {
    throw new RangeError(`computeBlock: heads (${c.heads}) must be a multiple of kvHeads (${c.kvHeads})`);
  }
  if (c.headDim === null || c.headDim === undefined || c.headDim === '') {
    c.headDim = null;
    if (c.d % c.heads !== 0) {
      throw new RangeError(`computeBlock: d (${c.d}) is not divisible by heads (${c.heads}); give headDim`);
    }
  } else posInt('headDim', c.headDim, LIMITS.headDim);
  if (c.dffMode !== 'explicit' && c.dffMode !== 'llama') {
    throw new TypeError(`computeBlock: dffMode must be "explicit" or "llama", got ${quote(String(c.dffMode))}`);
  }
  c.gated = !!c.gated;
  c.bias = !!c.bias;
  if (c.multiplier === '' || c.multiplier === undefined) c.multiplier = null;
  const m = c.multiplier;
  if (m !== null && !(typeof m === 'number' && m > 0 && m <= LIMITS.multiplier)) {
    const range = `(0, ${LIMITS.multiplier}]`;
    throw new RangeError(`computeBlock: multiplier must be null or a number in ${range}, got ${quote(String(m))}`);
  }
  if (c.moe) {
    const m = c.moe;
    if (typeof m !== 'object') throw new TypeError('computeBlock: moe must be null or { experts, active, shared }');
    c.moe = { experts: m.experts, active: m.active, shared: m.shared ?? 0 };
    posInt('experts', c.moe.experts, LIMITS.experts);
    posInt('active', c.moe.active, LIMITS.experts);
    posInt('shared', c.moe.shared, LIMITS.shared, 0);
    if (c.moe.active > c.moe.experts) {
      throw new RangeError(`computeBlock: active experts (${c.moe.active}) exceed experts (${c.moe.experts})`);
    }
  } else c.moe = null;
  if (c.dffMode === 'llama' && !c.moe) posInt('multipleOf', c.multipleOf, LIMITS.multipleOf);
  else posInt('dff', c.dff, LIMITS.dff);
  return c;
}

/** A built-in preset by id, or an author preset from `extra` ([{ id, label, config }]); null when none. */
export function findPreset(id, extra = []) {
  if (typeof id !== 'string') return null;
  if (Object.hasOwn(PRESETS, id)) { const { label, ...config } = PRESETS[id]; return { id, label, config }; }
  return extra.find((p) => p.id === id) ?? null;
}

/**
 * Author presets, as JSON text or an array: [{ id, label, d, dff | dffMode: 'llama' (with multipleOf,
 * multiplier), heads, kvHeads, headDim?, gated?, bias?, moe? }] (the fields of `config`). Each is checked
 * like a configuration; ids are letters, digits, - and _ (at most 32), distinct and not those of built-ins.
 * Returns [{ id, label, config }].
 */
export function parsePresets(input) {
  let list = input;
  if (typeof input === 'string') {
    checkLength('presets', input, PRESETS_MAX_CHARS);
    try {
      list = JSON.parse(input);
    } catch (err) {
      const why = String(err.message).slice(0, 80);
      throw new TypeError(`presets must be JSON: an array of { id, label, d, dff, heads, kvHeads, ... } (${why})`);
    }
  }
  if (!Array.isArray(list)) {
    throw new TypeError('presets must be an array of { id, label, d, dff, heads, kvHeads, ... }');
  }
  if (list.length > MAX_PRESETS) throw new RangeError(`presets: at most ${MAX_PRESETS} presets, got ${list.length}`);
  const out = [];
  for (let i = 0; i < list.length; i++) {
    const p = list[i];
    if (!p || typeof p !== 'object' || Array.isArray(p)) {
      throw new TypeError(`presets: preset ${i} must be an object { id, label, ... }`);
    }
    const keys = Object.keys(p);
    if (keys.length > CONFIG_KEYS.length + 2) throw new RangeError(`presets: preset ${i} has ${keys.length} fields`);
    const unknown = keys.filter((k) => k !== 'id' && k !== 'label' && !CONFIG_KEYS.includes(k));
    if (unknown.length) {
      const fields = `id, label, ${CONFIG_KEYS.join(', ')}`;
      throw new TypeError(`presets: preset ${i} has unknown field ${quote(unknown[0])}; fields are ${fields}`);
    }
    if (typeof p.id !== 'string' || !ID_RE.test(p.id)) {
      const got = quote(String(p.id));
      throw new TypeError(`presets: preset ${i} needs an id of letters, digits, - and _ (at most 32), got ${got}`);
    }
    if (Object.hasOwn(PRESETS, p.id)) {
      throw new TypeError(`presets: preset ${i}'s id ${quote(p.id)} is a built-in preset`);
    }
    if (out.some((q) => q.id === p.id)) throw new TypeError(`presets: id ${quote(p.id)} appears twice`);
    if (typeof p.label !== 'string' || !p.label.trim() || p.label.length > 80) {
      throw new TypeError(`presets: preset ${quote(p.id)} needs a label of 1 to 80 characters`);
    }
    let config;
    try {
      config = validateConfig(p);
    } catch (err) {
      throw new err.constructor(`presets: preset ${quote(p.id)}: ${err.message.replace(/^computeBlock: /, '')}`);
    }
    out.push(Object.freeze({ id: p.id, label: p.label.trim(), config: Object.freeze(config) }));
  }
  return out;
}

const bool = (name, value) => {
  const v = value.trim().toLowerCase();
  if (v === '' || v === 'true') return true;
  if (v === 'false') return false;
  throw new TypeError(`${name} must be "true" or "false" (or present without a value), got ${quote(value)}`);
};

/**
 * The parser of each attribute of <ffn-param-calculator>: returns the value for the configuration (undefined:
 * leave it as it is; null: none), or throws a TypeError or RangeError naming the attribute.
 */
export function parseAttribute(name, value) {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string, got ${typeof value}`);
  const int = (max, min = 1) => (value.trim() === '' ? undefined : toInteger(name, value, min, max));
  switch (name) {
    case 'preset': {
      const id = checkLength(name, value, 64).trim();
      if (!ID_RE.test(id)) throw new RangeError(`unknown preset ${quote(value)}; ids are letters, digits, - and _`);
      return id;
    }
    case 'presets': return parsePresets(value);
    case 'd': return int(LIMITS.d);
    case 'd-ff': return int(LIMITS.dff);
    case 'heads': case 'kv-heads': return int(LIMITS.heads);
    case 'head-dim': return value.trim() === '' ? null : int(LIMITS.headDim);
    case 'multiple-of': return int(LIMITS.multipleOf);
    case 'multiplier':
      return value.trim() === '' ? null : toNumber(name, value, { min: Number.MIN_VALUE, max: LIMITS.multiplier });
    case 'rule': {
      const v = checkLength(name, value, 16).trim().toLowerCase();
      if (v !== 'llama' && v !== 'explicit') {
        throw new TypeError(`rule must be "llama" or "explicit", got ${quote(value)}`);
      }
      return v;
    }
    case 'gated': case 'bias': return bool(name, checkLength(name, value, 16));
    case 'experts': return value.trim() === '' || value.trim() === '0' ? null : int(LIMITS.experts);
    case 'active-experts': return int(LIMITS.experts);
    case 'shared-experts': return int(LIMITS.shared, 0);
    default: throw new RangeError(`unknown attribute ${quote(name)}`);
  }
}

/**
 * Counts for one block. Input: { d, dffMode: 'explicit'|'llama', dff, multipleOf, multiplier, gated, bias,
 * heads, kvHeads, headDim (default d / heads), moe: null | { experts, active, shared } }.
 * With moe, dff is the width of one expert and is always taken as given (the LLaMA rule sizes a dense
 * FFN, not an expert), whatever dffMode says. FFN numbers come from ffn.ffnParamCount / ffnFlops /
 * llamaHiddenDim; attention projections are W_Q (d, H dh), W_K and W_V (d, H_kv dh), W_O (H dh, d).
 */
export function computeBlock(ffn, input) {
  const c = validateConfig(input);
  const { d, heads, kvHeads, gated, bias } = c;
  const headDim = c.headDim ?? d / heads;
  const dff = c.dffMode === 'llama' && !c.moe
    ? ffn.llamaHiddenDim(d, { multipleOf: c.multipleOf, ffnDimMultiplier: c.multiplier })
    : c.dff;
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
    const { experts, active, shared } = c.moe;
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
