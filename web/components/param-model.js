// Model of <ffn-param-calculator>: FFN and attention parameter and FLOP counts of one Transformer block (FFN counts
// from the wasm kernels).
import { quote, checkLength, toNumber, toInteger } from './parse.js';
import { localizedError as fail, msg } from '../i18n/index.js';

/** A refused configuration: "computeBlock: " and the reason (kept apart for author presets' messages). */
const config = (Ctor, key, params) => fail(Ctor, 'errors.computeBlock', { inner: msg(key, params) });

/** Presets. Dense ones come from the section; the MoE one from Qwen3-30B-A3B's public configuration. */
export const PRESETS = Object.freeze({
  transformer: Object.freeze({
    label: 'Original Transformer (base)',
    d: 512,
    dffMode: 'explicit',
    dff: 2048,
    gated: false,
    bias: true,
    heads: 8,
    kvHeads: 8,
  }),
  gpt2: Object.freeze({
    label: 'GPT-2 small',
    d: 768,
    dffMode: 'explicit',
    dff: 3072,
    gated: false,
    bias: true,
    heads: 12,
    kvHeads: 12,
  }),
  llama7b: Object.freeze({
    label: 'LLaMA-7B',
    d: 4096,
    dffMode: 'llama',
    multipleOf: 256,
    multiplier: null,
    gated: true,
    bias: false,
    heads: 32,
    kvHeads: 32,
  }),
  llama3_8b: Object.freeze({
    label: 'LLaMA-3 8B (GQA)',
    d: 4096,
    dffMode: 'llama',
    multipleOf: 1024,
    multiplier: 1.3,
    gated: true,
    bias: false,
    heads: 32,
    kvHeads: 8,
  }),
  llama2_70b: Object.freeze({
    label: 'LLaMA-2 70B (GQA)',
    d: 8192,
    dffMode: 'llama',
    multipleOf: 4096,
    multiplier: 1.3,
    gated: true,
    bias: false,
    heads: 64,
    kvHeads: 8,
  }),
  qwen3_moe: Object.freeze({
    label: 'Qwen3-30B-A3B (MoE)',
    d: 2048,
    dffMode: 'explicit',
    dff: 768,
    gated: true,
    bias: false,
    heads: 32,
    kvHeads: 4,
    headDim: 128,
    moe: Object.freeze({ experts: 128, active: 8, shared: 0 }),
  }),
});

export const DEFAULTS = Object.freeze({
  d: 768,
  dffMode: 'explicit',
  dff: 3072,
  multipleOf: 256,
  multiplier: null,
  gated: false,
  bias: true,
  heads: 12,
  kvHeads: 12,
  headDim: null,
  moe: null,
});

/**
 * The largest sizes accepted (every count then stays an exact integer in a double: 3 d dff (experts + shared)
 * and twice that in FLOPs stay below 2^53).
 */
export const LIMITS = Object.freeze({
  d: 131072,
  dff: 1048576,
  heads: 4096,
  headDim: 16384,
  multipleOf: 65536,
  multiplier: 64,
  experts: 4096,
  shared: 64,
});
/** Author presets: at most MAX_PRESETS, given as at most PRESETS_MAX_CHARS characters of JSON. */
export const MAX_PRESETS = 16;
export const PRESETS_MAX_CHARS = 16000;
const ID_RE = /^[A-Za-z0-9_-]{1,32}$/;
const CONFIG_KEYS = [
  'd',
  'dffMode',
  'dff',
  'multipleOf',
  'multiplier',
  'gated',
  'bias',
  'heads',
  'kvHeads',
  'headDim',
  'moe',
];

/** v, an integer in [min, max]; else a RangeError naming the field (errors.posInt, or errors.nonNegInt for min 0). */
function intInRange(name, v, max, min = 1) {
  if (!Number.isInteger(v) || v < min || v > max) {
    const key = min ? 'errors.posInt' : 'errors.nonNegInt';
    throw config(RangeError, key, { name, max: String(max), got: quote(String(v)) });
  }
  return v;
}

/**
 * Check a block configuration without computing it: returns the full configuration (DEFAULTS for what is not
 * given) or throws a RangeError/TypeError naming the field. Sizes are bounded by LIMITS.
 */
export function validateConfig(input) {
  if (!input || typeof input !== 'object') throw config(TypeError, 'errors.configObject');
  const c = { ...DEFAULTS };
  for (const k of CONFIG_KEYS) if (Object.hasOwn(input, k) && input[k] !== undefined) c[k] = input[k];
  intInRange('d', c.d, LIMITS.d);
  intInRange('heads', c.heads, LIMITS.heads);
  intInRange('kvHeads', c.kvHeads, LIMITS.heads);
  if (c.heads % c.kvHeads !== 0) {
    throw config(RangeError, 'errors.headsMultiple', { heads: String(c.heads), kv: String(c.kvHeads) });
  }
  if (c.headDim === null || c.headDim === undefined || c.headDim === '') {
    c.headDim = null;
    if (c.d % c.heads !== 0) {
      throw config(RangeError, 'errors.headsDivide', { d: String(c.d), heads: String(c.heads) });
    }
  } else intInRange('headDim', c.headDim, LIMITS.headDim);
  if (c.dffMode !== 'explicit' && c.dffMode !== 'llama') {
    throw config(TypeError, 'errors.dffMode', { got: quote(String(c.dffMode)) });
  }
  c.gated = !!c.gated;
  c.bias = !!c.bias;
  if (c.multiplier === '' || c.multiplier === undefined) c.multiplier = null;
  const m = c.multiplier;
  if (m !== null && !(typeof m === 'number' && m > 0 && m <= LIMITS.multiplier)) {
    const range = `(0, ${LIMITS.multiplier}]`;
    throw config(RangeError, 'errors.multiplier', { range, got: quote(String(m)) });
  }
  if (c.moe) {
    const m = c.moe;
    if (typeof m !== 'object') throw config(TypeError, 'errors.moeObject');
    c.moe = { experts: m.experts, active: m.active, shared: m.shared ?? 0 };
    intInRange('experts', c.moe.experts, LIMITS.experts);
    intInRange('active', c.moe.active, LIMITS.experts);
    intInRange('shared', c.moe.shared, LIMITS.shared, 0);
    if (c.moe.active > c.moe.experts) {
      throw config(RangeError, 'errors.activeExceed', { active: String(c.moe.active), experts: String(c.moe.experts) });
    }
  } else c.moe = null;
  if (c.dffMode === 'llama' && !c.moe) intInRange('multipleOf', c.multipleOf, LIMITS.multipleOf);
  else intInRange('dff', c.dff, LIMITS.dff);
  return c;
}

/** A built-in preset by id, or an author preset from `extra` ([{ id, label, config }]); null when none. */
export function findPreset(id, extra = []) {
  if (typeof id !== 'string') return null;
  if (Object.hasOwn(PRESETS, id)) {
    const { label, ...config } = PRESETS[id];
    return { id, label, config };
  }
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
      throw fail(TypeError, 'errors.presetsJson', { why: String(err.message).slice(0, 80) });
    }
  }
  if (!Array.isArray(list)) throw fail(TypeError, 'errors.presetsArray');
  if (list.length > MAX_PRESETS) {
    throw fail(RangeError, 'errors.presetsCount', { max: String(MAX_PRESETS), n: String(list.length) });
  }
  const out = [];
  for (let i = 0; i < list.length; i++) {
    const p = list[i];
    if (!p || typeof p !== 'object' || Array.isArray(p)) {
      throw fail(TypeError, 'errors.presetObject', { i: String(i) });
    }
    const keys = Object.keys(p);
    if (keys.length > CONFIG_KEYS.length + 2) {
      throw fail(RangeError, 'errors.presetFields', { i: String(i), n: String(keys.length) });
    }
    const unknown = keys.filter((k) => k !== 'id' && k !== 'label' && !CONFIG_KEYS.includes(k));
    if (unknown.length) {
      const fields = `id, label, ${CONFIG_KEYS.join(', ')}`;
      throw fail(TypeError, 'errors.presetUnknownField', { i: String(i), field: quote(unknown[0]), fields });
    }
    if (typeof p.id !== 'string' || !ID_RE.test(p.id)) {
      throw fail(TypeError, 'errors.presetId', { i: String(i), got: quote(String(p.id)) });
    }
    if (Object.hasOwn(PRESETS, p.id)) throw fail(TypeError, 'errors.presetBuiltIn', { i: String(i), id: quote(p.id) });
    if (out.some((q) => q.id === p.id)) throw fail(TypeError, 'errors.presetTwice', { id: quote(p.id) });
    if (typeof p.label !== 'string' || !p.label.trim() || p.label.length > 80) {
      throw fail(TypeError, 'errors.presetLabel', { id: quote(p.id) });
    }
    let checked;
    try {
      checked = validateConfig(p);
    } catch (err) {
      const inner = err.i18n ? err.i18n.params.inner : err.message;
      throw fail(err.constructor, 'errors.presetConfig', { id: quote(p.id), inner });
    }
    out.push(Object.freeze({ id: p.id, label: p.label.trim(), config: Object.freeze(checked) }));
  }
  return out;
}

const bool = (name, value) => {
  const v = value.trim().toLowerCase();
  if (v === '' || v === 'true') return true;
  if (v === 'false') return false;
  throw fail(TypeError, 'errors.bool', { name, got: quote(value) });
};

/**
 * The parser of each attribute of <ffn-param-calculator>: returns the value for the configuration (undefined:
 * leave it as it is; null: none), or throws a TypeError or RangeError naming the attribute.
 */
export function parseAttribute(name, value) {
  if (typeof value !== 'string') throw fail(TypeError, 'errors.mustBeString', { name, type: typeof value });
  const int = (max, min = 1) => (value.trim() === '' ? undefined : toInteger(name, value, min, max));
  switch (name) {
    case 'preset': {
      const id = checkLength(name, value, 64).trim();
      if (!ID_RE.test(id)) throw fail(RangeError, 'errors.presetIdSyntax', { got: quote(value) });
      return id;
    }
    case 'presets':
      return parsePresets(value);
    case 'd':
      return int(LIMITS.d);
    case 'd-ff':
      return int(LIMITS.dff);
    case 'heads':
    case 'kv-heads':
      return int(LIMITS.heads);
    case 'head-dim':
      return value.trim() === '' ? null : int(LIMITS.headDim);
    case 'multiple-of':
      return int(LIMITS.multipleOf);
    case 'multiplier':
      return value.trim() === '' ? null : toNumber(name, value, { min: Number.MIN_VALUE, max: LIMITS.multiplier });
    case 'rule': {
      const v = checkLength(name, value, 16).trim().toLowerCase();
      if (v !== 'llama' && v !== 'explicit') {
        throw fail(TypeError, 'errors.rule', { got: quote(value) });
      }
      return v;
    }
    case 'gated':
    case 'bias':
      return bool(name, checkLength(name, value, 16));
    case 'experts':
      return value.trim() === '' || value.trim() === '0' ? null : int(LIMITS.experts);
    case 'active-experts':
      return int(LIMITS.experts);
    case 'shared-experts':
      return int(LIMITS.shared, 0);
    default:
      throw fail(RangeError, 'errors.unknownAttribute', { name: quote(name) });
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
  const dff =
    c.dffMode === 'llama' && !c.moe
      ? ffn.llamaHiddenDim(d, { multipleOf: c.multipleOf, ffnDimMultiplier: c.multiplier })
      : c.dff;
  const one = ffn.ffnParamCount(d, dff, { bias, gated });
  const oneFlops = ffn.ffnFlops(d, dff, { gated });
  const q = heads * headDim,
    kv = kvHeads * headDim;
  const attnWeights = d * q + 2 * d * kv + q * d;
  const attnParams = attnWeights + (bias ? q + 2 * kv + d : 0);
  const attnFlops = 2 * attnWeights;
  const out = {
    d,
    dff,
    gated,
    bias,
    heads,
    kvHeads,
    headDim,
    ratio: dff / d,
    ffnParams: one,
    ffnFlops: oneFlops,
    attnParams,
    attnFlops,
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
      experts,
      active,
      shared,
      router,
      totalParams: total,
      activeParams,
      activeFraction: activeParams / total,
      activeFlops,
      totalFlopsIfDense: (experts + shared) * oneFlops + 2 * router,
      shareTotal: total / (total + attnParams),
      shareActive: activeParams / (activeParams + attnParams),
    };
    out.share = out.moe.shareTotal;
  }
  return out;
}
