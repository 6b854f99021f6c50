// <ffn-param-calculator>: count an FFN against the attention projections of its block, dense or mixture-of-experts (view only; math in param-model.js).
import * as ffn from '../ffn.js';
import { attachStyledShadow, ElementBase, define, rafThrottle, trailingThrottle, fmtInt, htmlEl as h } from './styles.js';
import { PRESETS, DEFAULTS, computeBlock } from './param-model.js';

const css = `
.presets { margin-bottom: 10px; }
.presets button { font-size: 0.9em; }
form { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 8px 14px; }
form label { display: flex; flex-direction: column; align-items: stretch; gap: 2px; font-size: 0.88em; color: var(--_muted); }
form label.check { flex-direction: row; align-items: center; color: var(--_fg); font-size: 0.95em; }
form input[type="number"] { width: 100%; color: var(--_fg); }
fieldset { border: 1px solid var(--_grid); border-radius: 6px; padding: 6px 10px 10px; margin: 0; grid-column: 1 / -1; display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 8px 14px; }
legend { font-size: 0.9em; font-weight: 600; padding: 0 4px; }
fieldset[disabled] label { opacity: 0.6; }
input:disabled, select:disabled { opacity: 0.55; cursor: not-allowed; }
.results { margin-top: 12px; display: grid; grid-template-columns: repeat(auto-fill, minmax(190px, 1fr)); gap: 8px; }
.card { background: var(--_surface); border-radius: 6px; padding: 8px 10px; }
.card .k { font-size: 0.84em; color: var(--_muted); }
.card .v { font-family: var(--_mono); font-size: 1.12em; font-weight: 650; overflow-wrap: anywhere; }
.card .s { font-size: 0.84em; color: var(--_muted); }
.sharebar { display: flex; height: 16px; border-radius: 4px; overflow: hidden; margin-top: 10px; border: 1px solid var(--_border); }
.sharebar .ffn { background: var(--_accent); }
.sharebar .attn { background: var(--_surface); }
.sharekey { font-size: 0.84em; margin-top: 3px; }
.sw-ffn { background: var(--_accent); } .sw-attn { background: var(--_surface); }
.swatch { display: inline-block; width: 10px; height: 10px; border: 1px solid var(--_border); margin-right: 4px; vertical-align: -1px; }
`;

const ATTRS = ['preset', 'd', 'd-ff', 'rule', 'multiple-of', 'multiplier', 'gated', 'bias', 'heads', 'kv-heads', 'head-dim', 'experts', 'active-experts', 'shared-experts', 'theme'];

export class FfnParamCalculator extends ElementBase {
  static get observedAttributes() { return ATTRS; }

  constructor() {
    super();
    this._cfg = { ...DEFAULTS };
    this._ready = false;
    this._root = attachStyledShadow(this, css);
    this._schedule = rafThrottle(() => this._render());
    this._announce = trailingThrottle((t) => { if (this._live) this._live.textContent = t; }, 700);
  }

  connectedCallback() {
    this._readAttributes();
    if (this._ready || this._loading) return;
    this._loading = true;
    this._root.append(Object.assign(document.createElement('p'), { className: 'muted', textContent: 'Loading the counting kernels…' }));
    ffn.ready().then(() => {
      this._ready = true;
      this._build();
      this._render();
      this.dispatchEvent(new CustomEvent('ffn-ready', { bubbles: true }));
    }, (err) => { this._loading = false; this._showError(err); });
  }

  attributeChangedCallback() {
    if (this._reflecting) return;
    if (this._readAttributes() && this._ready) { this._syncForm(); this._schedule(); }
  }

  /** Current configuration (see computeBlock). */
  get config() { return structuredClone(this._cfg); }
  set config(v) { this._cfg = { ...DEFAULTS, ...v }; this._reflect(); if (this._ready) { this._syncForm(); this._schedule(); } }
  /** Latest counts, or null before the wasm is ready. */
  get result() { return this._result ?? null; }
  /** Load a preset by id: transformer, gpt2, llama7b, llama3_8b, llama2_70b, qwen3_moe. */
  applyPreset(id) {
    const p = PRESETS[id];
    if (!p) throw new RangeError(`applyPreset: unknown preset "${id}"; expected one of ${Object.keys(PRESETS).join(', ')}`);
    const { label, ...cfg } = p;
    this._cfg = { ...DEFAULTS, ...structuredClone(cfg) };
    this._preset = id;
    this._reflect();
    if (this._ready) { this._syncForm(); this._schedule(); }
  }

  _readAttributes() {
    const g = (n) => this.getAttribute(n);
    const num = (n) => { const v = g(n); if (v === null || v === '') return undefined; const x = Number(v); if (!Number.isFinite(x)) throw new TypeError(`${n} must be a number, got "${v}"`); return x; };
    try {
      const preset = g('preset');
      let cfg = { ...DEFAULTS };
      if (preset) {
        if (!PRESETS[preset]) throw new RangeError(`unknown preset "${preset}"; expected one of ${Object.keys(PRESETS).join(', ')}`);
        const { label, ...p } = PRESETS[preset];
        cfg = { ...cfg, ...structuredClone(p) };
        this._preset = preset;
      }
      const set = (key, v) => { if (v !== undefined) cfg[key] = v; };
      set('d', num('d'));
      set('dff', num('d-ff'));
      if (g('rule') !== null) cfg.dffMode = g('rule') === 'llama' ? 'llama' : 'explicit';
      set('multipleOf', num('multiple-of'));
      if (g('multiplier') !== null) cfg.multiplier = g('multiplier') === '' ? null : num('multiplier');
      if (g('gated') !== null) cfg.gated = g('gated') !== 'false';
      if (g('bias') !== null) cfg.bias = g('bias') !== 'false';
      set('heads', num('heads'));
      set('kvHeads', num('kv-heads'));
      if (g('head-dim') !== null) cfg.headDim = g('head-dim') === '' ? null : num('head-dim');
      if (g('experts') !== null) {
        const e = num('experts');
        cfg.moe = e ? { experts: e, active: num('active-experts') ?? 1, shared: num('shared-experts') ?? 0 } : null;
      }
      this._cfg = cfg;
      return true;
    } catch (err) {
      this._showError(err);
      return false;
    }
  }

  _reflect() {
    const c = this._cfg;
    this._reflecting = true;
    const s = (n, v) => this.setAttribute(n, String(v));
    if (this._preset) s('preset', this._preset); else this.removeAttribute('preset');
    s('d', c.d);
    s('rule', c.dffMode === 'llama' ? 'llama' : 'explicit');
    if (c.dffMode === 'llama') { s('multiple-of', c.multipleOf); s('multiplier', c.multiplier ?? ''); this.removeAttribute('d-ff'); }
    else { s('d-ff', c.dff); this.removeAttribute('multiple-of'); this.removeAttribute('multiplier'); }
    s('gated', !!c.gated); s('bias', !!c.bias); s('heads', c.heads); s('kv-heads', c.kvHeads);
    if (c.headDim) s('head-dim', c.headDim); else this.removeAttribute('head-dim');
    if (c.moe) { s('experts', c.moe.experts); s('active-experts', c.moe.active); s('shared-experts', c.moe.shared ?? 0); }
    else { for (const n of ['experts', 'active-experts', 'shared-experts']) this.removeAttribute(n); }
    this._reflecting = false;
  }

  _showError(err) {
    const el = this._errEl ?? this._root.appendChild(Object.assign(document.createElement('p'), { className: 'error' }));
    el.setAttribute('role', 'alert');
    el.textContent = err ? `ffn-param-calculator: ${err.message ?? err}` : '';
  }

  _build() {
    for (const n of [...this._root.childNodes]) if (n.nodeName !== 'STYLE') n.remove();
    const root = this._root;
    root.append(h('p', { class: 'title', text: 'Where the parameters live: one block, counted' }));
    const presets = h('div', { class: 'presets row', role: 'group', 'aria-label': 'Presets' }, h('span', { class: 'muted', text: 'Presets:' }));
    this._presetBtns = Object.entries(PRESETS).map(([id, p]) => {
      const b = h('button', { type: 'button', 'data-preset': id, text: p.label });
      b.addEventListener('click', () => this.applyPreset(id));
      presets.append(b);
      return b;
    });
    root.append(presets);

    const f = {};
    const num = (key, label, attrs = {}) => { f[key] = h('input', { type: 'number', min: '1', step: '1', ...attrs }); return h('label', {}, label, f[key]); };
    const chk = (key, label) => { f[key] = h('input', { type: 'checkbox' }); return h('label', { class: 'check' }, f[key], label); };
    f.rule = h('select', {}, h('option', { value: 'explicit', text: 'set d_ff directly' }), h('option', { value: 'llama', text: 'LLaMA rule (8d/3, rounded)' }));
    const form = h('form', { 'aria-label': 'Block configuration' },
      num('d', 'd (model width)'),
      h('label', {}, 'hidden width', f.rule),
      num('dff', 'd_ff (per expert with MoE)'),
      num('multipleOf', 'multiple_of'),
      num('multiplier', 'ffn_dim_multiplier (blank = none)', { step: 'any', min: '0' }),
      chk('gated', 'gated (SwiGLU: 3 matrices)'),
      chk('bias', 'biases'),
      num('heads', 'attention heads H'),
      num('kvHeads', 'KV heads H_kv'),
      num('headDim', 'head dim (blank = d/H)'),
      (() => {
        f.moeOn = h('input', { type: 'checkbox' });
        const fs = h('fieldset', {}, h('legend', {}, h('label', { class: 'check' }, f.moeOn, 'mixture of experts')),
          num('experts', 'experts'), num('active', 'active experts per token'), num('shared', 'shared experts', { min: '0' }));
        f.moeSet = fs;
        return fs;
      })());
    form.addEventListener('submit', (e) => e.preventDefault());
    form.addEventListener('input', () => this._fromForm());
    form.addEventListener('change', () => this._fromForm());
    this._f = f;
    root.append(form);

    const card = (key, label) => {
      const v = h('div', { class: 'v', 'data-out': key });
      const s = h('div', { class: 's' });
      const k = h('div', { class: 'k', text: label });
      this._out[key] = { v, s, k };
      return h('div', { class: 'card' }, k, v, s);
    };
    this._out = {};
    this._results = h('div', { class: 'results' },
      card('dff', 'hidden width d_ff'),
      card('ffnParams', 'FFN parameters per layer'),
      card('attnParams', 'attention projection parameters'),
      card('share', 'FFN share of the block'),
      card('ffnFlops', 'FFN forward FLOPs per token'),
      card('attnFlops', 'attention projection FLOPs per token'));
    this._moeCards = [card('moeTotal', 'MoE: total FFN parameters'), card('moeActive', 'MoE: active FFN parameters per token'), card('moeFlops', 'MoE: active FFN FLOPs per token')];
    this._results.append(...this._moeCards);
    root.append(this._results);
    this._barFfn = h('div', { class: 'ffn' });
    this._barAttn = h('div', { class: 'attn' });
    root.append(h('div', { class: 'sharebar', 'aria-hidden': 'true' }, this._barFfn, this._barAttn),
      h('p', { class: 'sharekey muted' }, h('span', { class: 'swatch sw-ffn' }), 'FFN ', h('span', { class: 'swatch sw-attn' }), 'attention projections (norms, embeddings and the attention scores over the context are not counted)'));
    this._errEl = h('p', { class: 'error', role: 'alert' });
    this._live = h('p', { class: 'sr-only', 'aria-live': 'polite' });
    root.append(this._errEl, this._live);
    this._syncForm();
  }

  _syncForm() {
    const f = this._f, c = this._cfg;
    if (!f) return;
    f.d.value = c.d; f.rule.value = c.dffMode; f.dff.value = c.dff ?? '';
    f.multipleOf.value = c.multipleOf ?? 256; f.multiplier.value = c.multiplier ?? '';
    f.gated.checked = !!c.gated; f.bias.checked = !!c.bias;
    f.heads.value = c.heads; f.kvHeads.value = c.kvHeads; f.headDim.value = c.headDim ?? '';
    f.moeOn.checked = !!c.moe;
    f.experts.value = c.moe?.experts ?? 8; f.active.value = c.moe?.active ?? 2; f.shared.value = c.moe?.shared ?? 0;
    for (const b of this._presetBtns) b.setAttribute('aria-pressed', String(b.dataset.preset === this._preset));
  }

  _fromForm() {
    const f = this._f;
    const n = (el) => (el.value === '' ? null : Number(el.value));
    this._cfg = {
      d: n(f.d), dffMode: f.rule.value, dff: n(f.dff), multipleOf: n(f.multipleOf), multiplier: n(f.multiplier),
      gated: f.gated.checked, bias: f.bias.checked, heads: n(f.heads), kvHeads: n(f.kvHeads), headDim: n(f.headDim),
      moe: f.moeOn.checked ? { experts: n(f.experts), active: n(f.active), shared: n(f.shared) ?? 0 } : null,
    };
    this._preset = null;
    for (const b of this._presetBtns) b.setAttribute('aria-pressed', 'false');
    this._schedule();
  }

  _render() {
    if (!this._out) return;
    const f = this._f, c = this._cfg;
    f.dff.disabled = c.dffMode === 'llama' && !c.moe;
    f.multipleOf.disabled = f.multiplier.disabled = c.dffMode !== 'llama';
    f.moeSet.querySelectorAll('input[type=number]').forEach((el) => { el.disabled = !c.moe; });
    let r;
    try {
      r = computeBlock(ffn, c);
      this._showError(null);
    } catch (err) {
      this._showError(err);
      this._results.setAttribute('aria-busy', 'true');
      return;
    }
    this._results.removeAttribute('aria-busy');
    this._result = r;
    if (c.dffMode === 'llama' && !c.moe) f.dff.value = r.dff;
    this._reflect();
    const o = this._out;
    const set = (k, v, s = '') => { o[k].v.textContent = v; o[k].s.textContent = s; };
    const big = (x) => (x >= 1e9 ? `${(x / 1e9).toFixed(2)} billion` : x >= 1e6 ? `${(x / 1e6).toFixed(2)} million` : '');
    set('dff', fmtInt(r.dff), `${r.ratio.toFixed(2)} × d${r.gated ? ', gated' : ''}`);
    o.ffnParams.k.textContent = r.moe ? 'parameters of one expert FFN' : 'FFN parameters per layer';
    o.ffnFlops.k.textContent = r.moe ? 'active FFN forward FLOPs per token' : 'FFN forward FLOPs per token';
    set('ffnParams', fmtInt(r.ffnParams), big(r.ffnParams));
    set('attnParams', fmtInt(r.attnParams), `${big(r.attnParams)}${r.kvHeads < r.heads ? ` (GQA: ${r.kvHeads} KV heads for ${r.heads})` : ''}`);
    const share = r.moe ? r.moe.shareTotal : r.share;
    set('share', `${(100 * share).toFixed(1)}%`, r.moe ? `active only: ${(100 * r.moe.shareActive).toFixed(1)}%` : 'FFN / (FFN + attention projections)');
    set('ffnFlops', fmtInt(r.moe ? r.moe.activeFlops : r.ffnFlops), r.moe ? 'active experts plus router' : '2 per weight');
    set('attnFlops', fmtInt(r.attnFlops), 'plus 4·T·d for the scores over T tokens');
    for (const el of this._moeCards) el.hidden = !r.moe;
    if (r.moe) {
      set('moeTotal', fmtInt(r.moe.totalParams), `${big(r.moe.totalParams)}: ${r.moe.experts}${r.moe.shared ? ` + ${r.moe.shared} shared` : ''} experts + router`);
      set('moeActive', fmtInt(r.moe.activeParams), `${r.moe.active}${r.moe.shared ? ` + ${r.moe.shared}` : ''} experts + router, ${(100 * r.moe.activeFraction).toFixed(1)}% of the total`);
      set('moeFlops', fmtInt(r.moe.activeFlops), `vs ${fmtInt(r.moe.totalFlopsIfDense)} if every expert ran`);
    }
    this._barFfn.style.width = `${100 * share}%`;
    this._barAttn.style.width = `${100 * (1 - share)}%`;
    this._announce(`d_ff ${r.dff}; FFN ${fmtInt(r.moe ? r.moe.totalParams : r.ffnParams)} parameters, ${(100 * share).toFixed(1)}% of the block`);
    this.dispatchEvent(new CustomEvent('ffn-change', { detail: r }));
  }
}

define('ffn-param-calculator', FfnParamCalculator);
