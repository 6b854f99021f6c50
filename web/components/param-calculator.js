// <ffn-param-calculator>: count an FFN against the attention projections of its block, dense or mixture-of-experts
// (view only; math in param-model.js).
// the wasm bytes inlined: nothing for a bundler or server to place; only what the calculator uses, so that a
// bundler leaves the rest of the API (the trainer) out of a page that only counts
import { ready, ffnParamCount, ffnFlops, llamaHiddenDim } from '../index.js';
import { FfnElement, define, htmlEl as h, parsedBy } from '../element-base.js';
import { componentCss, rafThrottle, trailingThrottle, setProblem } from './styles.js';
import {
  PRESETS,
  DEFAULTS,
  computeBlock,
  validateConfig,
  findPreset,
  parsePresets,
  parseAttribute,
} from './param-model.js';
import { localizedError } from '../i18n/index.js';

// the functions of the API this element calls, handed to its model
const ffn = Object.freeze({ ready, ffnParamCount, ffnFlops, llamaHiddenDim });

// Every string the calculator shows is in the locale tables (web/i18n/en.js, namespace `calculator`).

const css = `
.presets { margin-bottom: 10px; }
.presets button { font-size: 0.9em; }
form { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 8px 14px; }
form label {
  display: flex; flex-direction: column; align-items: stretch; gap: 2px; font-size: 0.88em; color: var(--_muted);
}
form label.check { flex-direction: row; align-items: center; color: var(--_fg); font-size: 0.95em; }
form input[type="number"] { width: 100%; color: var(--_fg); }
fieldset {
  border: 1px solid var(--_grid); border-radius: 6px; padding: 6px 10px 10px; margin: 0; grid-column: 1 / -1;
  display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 8px 14px;
}
legend { font-size: 0.9em; font-weight: 600; padding: 0 4px; }
fieldset[disabled] label { opacity: 0.6; }
input:disabled, select:disabled { opacity: 0.55; cursor: not-allowed; }
.results { margin-top: 12px; display: grid; grid-template-columns: repeat(auto-fill, minmax(190px, 1fr)); gap: 8px; }
.card { background: var(--_surface); border-radius: 6px; padding: 8px 10px; }
.card .k { font-size: 0.84em; color: var(--_muted); }
.card .v { font-family: var(--_mono); font-size: 1.12em; font-weight: 650; overflow-wrap: anywhere; }
.card .s { font-size: 0.84em; color: var(--_muted); }
.sharebar {
  display: flex; height: 16px; border-radius: 4px; overflow: hidden; margin-top: 10px; border: 1px solid var(--_border);
}
.sharebar .ffn { background: var(--_accent); }
.sharebar .attn { background: var(--_surface); }
.sharekey { font-size: 0.84em; margin-top: 3px; }
.sw-ffn { background: var(--_accent); } .sw-attn { background: var(--_surface); }
.presets button.author { border-style: dashed; }
.swatch {
  display: inline-block; width: 10px; height: 10px; border: 1px solid var(--_border); margin-right: 4px;
  vertical-align: -1px;
}
`;

/**
 * A size attribute's property and configuration field: { prop, get(cfg), put(cfg, value) }; the property is null
 * when the attribute is not written back (in: the width rules it belongs to).
 */
const field = (prop, key = prop, inRule = null) => ({
  prop,
  get: (c) => (!inRule || inRule === (c.dffMode ?? 'explicit') ? (c[key] ?? null) : null),
  put: (c, v) => {
    c[key] = v;
  },
});
/** A mixture-of-experts count (ignored while the configuration is dense). */
const moeField = (prop, key) => ({
  prop,
  get: (c) => c.moe?.[key] ?? null,
  put: (c, v) => {
    if (c.moe) c.moe = { ...c.moe, [key]: v };
  },
});

/** The attributes that each set one size of the configuration (see applyPreset for the whole of it). */
const SIZES = {
  d: field('d'),
  'd-ff': field('dff', 'dff', 'explicit'),
  rule: field('rule', 'dffMode'),
  'multiple-of': field('multipleOf', 'multipleOf', 'llama'),
  multiplier: field('multiplier', 'multiplier', 'llama'),
  gated: field('gated'),
  bias: field('bias'),
  heads: field('heads'),
  'kv-heads': field('kvHeads'),
  'head-dim': field('headDim'),
  experts: {
    prop: 'experts',
    get: (c) => c.moe?.experts ?? null,
    put: (c, v) => {
      c.moe = v === null ? null : { experts: v, active: c.moe?.active ?? 1, shared: c.moe?.shared ?? 0 };
    },
  },
  'active-experts': moeField('activeExperts', 'active'),
  'shared-experts': moeField('sharedExperts', 'shared'),
};

/** The size attributes by their property's name. */
const PROPS = Object.fromEntries(Object.entries(SIZES).map(([attribute, f]) => [f.prop, attribute]));

/** A table entry (FfnElement.properties) whose attribute the model's parser reads. */
const parsed = parsedBy(parseAttribute);

export class FfnParamCalculator extends FfnElement {
  /**
   * Attributes and properties (see FfnElement.properties): presets, preset, and one per size. `preset` and the sizes
   * set the same configuration: the last write wins (a preset replaces every size; a size changes one and the
   * configuration is then no preset's). In the markup the preset comes first and the sizes beside it change it.
   */
  static get properties() {
    const sizes = Object.entries(SIZES).map(([attribute, f]) => [
      f.prop,
      parsed(attribute, { get: (el) => f.get(el._cfg) }),
    ]);
    return {
      ...super.properties,
      presets: parsed('presets', {
        toText: (v) => JSON.stringify(parsePresets(v).map((p) => ({ id: p.id, label: p.label, ...p.config }))),
        get: (el) => el._extra.map((p) => ({ id: p.id, label: p.label, ...structuredClone(p.config) })),
      }),
      preset: { parse: (v) => (v.trim() === '' ? null : parseAttribute('preset', v)), get: (el) => el._preset },
      ...Object.fromEntries(sizes),
    };
  }

  constructor() {
    super();
    this._cfg = { ...DEFAULTS };
    this._extra = []; // author presets: [{ id, label, config }]
    this._preset = null;
    this._problems = new Map();
    this._root = this._attachStyledShadow(componentCss(css));
    this._schedule = rafThrottle(() => this._render());
    this._announce = trailingThrottle((t) => {
      if (this._live) this._live.textContent = t;
    }, 700);
  }

  connectedCallback() {
    super.connectedCallback();
    this._retranslate();
    if (!this._read) {
      this._read = true;
      this._readAll();
    }
    this._load(() => ffn.ready(), {
      loading: () => this._t('loading'),
      ready: () => {
        this._build();
        this._render();
      },
      failed: (err) => this._problem('load', err),
    });
  }

  /** The calculator's keys in the locale table are calculator.* (see _t). */
  static get textPrefix() {
    return 'calculator.';
  }

  /** The language or its table changed: everything is drawn again in it. */
  _relocalize() {
    this._retranslate();
    this._problem(null, null);
    if (this._ready) {
      this._build();
      this._render();
    } else this._relocalizeLoading();
  }

  /** Before the first connection every attribute is read at once (preset first), in connectedCallback. */
  attributeChangedCallback(name, old, value) {
    if (this._read || name === 'lang') super.attributeChangedCallback(name, old, value);
  }

  /** An attribute was written (see FfnElement.properties): the last write wins between the preset and the sizes. */
  _apply(name, v, text) {
    if (name === 'presets') this._usePresets(v ?? []);
    else if (name === 'preset') this._readPreset();
    else if (text !== null && v !== undefined) {
      SIZES[PROPS[name]].put(this._cfg, v);
      this._preset = null;
    }
    this._changed();
  }

  /** The configuration changed: written back into the attributes, drawn on the next frame. */
  _changed() {
    this._reflect();
    if (this._ready) {
      this._syncForm();
      this._schedule();
    }
  }

  /** Current configuration (see computeBlock). */
  get config() {
    return structuredClone(this._cfg);
  }
  set config(v) {
    this._cfg = validateConfig(v);
    this._preset = null;
    this._changed();
  }
  /** Latest counts, or null before the wasm is ready. */
  get result() {
    return this._result ?? null;
  }
  /** Load a preset by id: built-in (transformer, gpt2, llama7b, llama3_8b, llama2_70b, qwen3_moe) or an author's. */
  applyPreset(id) {
    const p = findPreset(id, this._extra);
    if (!p) {
      const known = this._presetIds().join(', ');
      const quoted = JSON.stringify(String(id).slice(0, 40));
      const why = localizedError(RangeError, 'errors.unknownPreset', { id: quoted, known });
      throw new RangeError(`applyPreset: ${why.message}`);
    }
    this._usePreset(p);
    this._changed();
  }

  _presetIds() {
    return [...Object.keys(PRESETS), ...this._extra.map((p) => p.id)];
  }

  _usePreset(p) {
    this._cfg = { ...DEFAULTS, ...structuredClone(p.config) };
    this._preset = p.id;
    this._pending = null;
    this._problem('preset', null);
  }

  /** Every attribute at once: author presets, the preset, then each size on top of it (the preset kept). */
  _readAll() {
    this._readPresets(false);
    this._readPreset();
    for (const name of Object.keys(SIZES)) this._readOne(name, this._cfg);
  }

  _readPresets(apply = true) {
    const v = this.getAttribute('presets');
    try {
      this._usePresets(v === null ? [] : parseAttribute('presets', v), apply);
      this._problem('presets', null);
    } catch (err) {
      this._problem('presets', err);
    }
  }

  /** Take the author presets (parsed); a preset named before its definition arrived is applied now. */
  _usePresets(list, apply = true) {
    this._extra = list;
    if (this._ready) this._buildPresetButtons();
    if (apply && this._pending && findPreset(this._pending, this._extra)) this._readPreset();
  }

  _readPreset() {
    const v = this.getAttribute('preset');
    this._pending = null;
    if (v === null || v.trim() === '') {
      this._preset = null;
      this._problem('preset', null);
      return;
    }
    try {
      const id = parseAttribute('preset', v);
      const p = findPreset(id, this._extra);
      if (!p) {
        this._pending = id;
        const known = this._presetIds().join(', ');
        throw localizedError(RangeError, 'errors.unknownPreset', { id: JSON.stringify(id), known });
      }
      this._usePreset(p);
    } catch (err) {
      this._problem('preset', err);
    }
  }

  /** Read one size attribute into cfg; a refused value leaves cfg as it was and is shown. */
  _readOne(name, cfg) {
    const v = this.getAttribute(name);
    try {
      const val = v === null ? undefined : parseAttribute(name, v);
      if (val !== undefined) SIZES[name].put(cfg, val);
      this._problem(name, null);
    } catch (err) {
      this._problem(name, err);
    }
  }

  /** Record (or with err null, clear) the problem of one source and show them all. */
  _problem(source, err) {
    setProblem(this._root, 'ffn-param-calculator', this._problems, source, err, this._tr);
  }

  /** Write the configuration back into the attributes. */
  _reflect() {
    const c = this._cfg;
    const llama = c.dffMode === 'llama';
    const moe = (key) => (c.moe ? String(c.moe[key] ?? 0) : null);
    this._reflectAttributes({
      // an unknown preset stays in the attribute, reported, until it is defined
      ...(this._pending ? {} : { preset: this._preset }),
      d: String(c.d),
      rule: llama ? 'llama' : 'explicit',
      'multiple-of': llama ? String(c.multipleOf) : null,
      multiplier: llama ? String(c.multiplier ?? '') : null,
      'd-ff': llama ? null : String(c.dff),
      gated: String(!!c.gated),
      bias: String(!!c.bias),
      heads: String(c.heads),
      'kv-heads': String(c.kvHeads),
      'head-dim': c.headDim ? String(c.headDim) : null,
      experts: moe('experts'),
      'active-experts': moe('active'),
      'shared-experts': moe('shared'),
    });
  }

  _buildPresetButtons() {
    const box = this._presetBox;
    if (!box) return;
    box.replaceChildren(h('span', { class: 'muted', text: this._t('presetsLead') }));
    const all = [...Object.keys(PRESETS).map((id) => findPreset(id)), ...this._extra];
    this._presetBtns = all.map((p) => {
      const builtIn = Object.hasOwn(PRESETS, p.id);
      const text = builtIn ? this._t(`presetLabels.${p.id}`) : p.label;
      const b = h('button', { type: 'button', 'data-preset': p.id, text });
      if (!builtIn) b.classList.add('author');
      b.addEventListener('click', () => this.applyPreset(p.id));
      box.append(b);
      return b;
    });
    for (const b of this._presetBtns) b.setAttribute('aria-pressed', String(b.dataset.preset === this._preset));
  }

  _build() {
    for (const n of [...this._root.childNodes]) {
      if (n.nodeName !== 'STYLE' && !n.classList?.contains('error')) n.remove();
    }
    const root = this._root;
    const error = root.querySelector('.error');
    const add = (...nodes) => (error ? error.before(...nodes) : root.append(...nodes));
    const t = this._tr.table.calculator;
    add(h('p', { class: 'title', text: t.title }));
    this._presetBox = h('div', { class: 'presets row', role: 'group', 'aria-label': t.presets });
    add(this._presetBox);
    this._buildPresetButtons();
    add(this._buildForm(t));
    add(...this._buildResults(t));
    this._live = h('p', { class: 'sr-only', 'aria-live': 'polite' });
    add(this._live);
    this._syncForm();
  }

  /** The form of the sizes (t: the calculator's table of texts); its input becomes the configuration (_fromForm). */
  _buildForm(t) {
    const f = {};
    const num = (key, label, attrs = {}) => {
      f[key] = h('input', { type: 'number', min: '1', step: '1', ...attrs });
      return h('label', {}, label, f[key]);
    };
    const chk = (key, label) => {
      f[key] = h('input', { type: 'checkbox' });
      return h('label', { class: 'check' }, f[key], label);
    };
    f.rule = h(
      'select',
      {},
      h('option', { value: 'explicit', text: t.ruleExplicit }),
      h('option', { value: 'llama', text: t.ruleLlama }),
    );
    const form = h(
      'form',
      { 'aria-label': t.form },
      num('d', t.d),
      h('label', {}, t.rule, f.rule),
      num('dff', t.dff),
      num('multipleOf', t.multipleOf),
      num('multiplier', t.multiplier, { step: 'any', min: '0' }),
      chk('gated', t.gated),
      chk('bias', t.bias),
      num('heads', t.heads),
      num('kvHeads', t.kvHeads),
      num('headDim', t.headDim),
      (() => {
        f.moeOn = h('input', { type: 'checkbox' });
        const fs = h(
          'fieldset',
          {},
          h('legend', {}, h('label', { class: 'check' }, f.moeOn, t.moe)),
          num('experts', t.experts),
          num('active', t.active),
          num('shared', t.shared, { min: '0' }),
        );
        f.moeSet = fs;
        return fs;
      })(),
    );
    form.addEventListener('submit', (e) => e.preventDefault());
    form.addEventListener('input', () => this._fromForm());
    form.addEventListener('change', () => this._fromForm());
    this._f = f;
    return form;
  }

  /** The result cards (the three of a mixture of experts hidden while dense) and the share bar with its key. */
  _buildResults(t) {
    const card = (key) => {
      const v = h('div', { class: 'v', 'data-out': key });
      const s = h('div', { class: 's' });
      const k = h('div', { class: 'k', text: t.card[key] });
      this._out[key] = { v, s, k };
      return h('div', { class: 'card' }, k, v, s);
    };
    this._out = {};
    const cards = ['dff', 'ffnParams', 'attnParams', 'share', 'ffnFlops', 'attnFlops'];
    this._results = h('div', { class: 'results' }, ...cards.map(card));
    this._moeCards = ['moeTotal', 'moeActive', 'moeFlops'].map(card);
    this._results.append(...this._moeCards);
    this._barFfn = h('div', { class: 'ffn' });
    this._barAttn = h('div', { class: 'attn' });
    return [
      this._results,
      h('div', { class: 'sharebar', 'aria-hidden': 'true' }, this._barFfn, this._barAttn),
      h(
        'p',
        { class: 'sharekey muted' },
        h('span', { class: 'swatch sw-ffn' }),
        t.key,
        h('span', { class: 'swatch sw-attn' }),
        t.keyAttn,
      ),
    ];
  }

  _syncForm() {
    const f = this._f,
      c = this._cfg;
    if (!f) return;
    f.d.value = c.d;
    f.rule.value = c.dffMode;
    f.dff.value = c.dff ?? '';
    f.multipleOf.value = c.multipleOf ?? 256;
    f.multiplier.value = c.multiplier ?? '';
    f.gated.checked = !!c.gated;
    f.bias.checked = !!c.bias;
    f.heads.value = c.heads;
    f.kvHeads.value = c.kvHeads;
    f.headDim.value = c.headDim ?? '';
    f.moeOn.checked = !!c.moe;
    f.experts.value = c.moe?.experts ?? 8;
    f.active.value = c.moe?.active ?? 2;
    f.shared.value = c.moe?.shared ?? 0;
    for (const b of this._presetBtns) b.setAttribute('aria-pressed', String(b.dataset.preset === this._preset));
  }

  _fromForm() {
    const f = this._f;
    const n = (el) => (el.value === '' ? null : Number(el.value));
    this._cfg = {
      d: n(f.d),
      dffMode: f.rule.value,
      dff: n(f.dff),
      multipleOf: n(f.multipleOf),
      multiplier: n(f.multiplier),
      gated: f.gated.checked,
      bias: f.bias.checked,
      heads: n(f.heads),
      kvHeads: n(f.kvHeads),
      headDim: n(f.headDim),
      moe: f.moeOn.checked ? { experts: n(f.experts), active: n(f.active), shared: n(f.shared) ?? 0 } : null,
    };
    this._preset = null;
    for (const b of this._presetBtns) b.setAttribute('aria-pressed', 'false');
    this._schedule();
  }

  _render() {
    if (!this._out) return;
    const f = this._f,
      c = this._cfg,
      tr = this._tr;
    const t = (key, params) => this._t(key, params);
    f.dff.disabled = c.dffMode === 'llama' && !c.moe;
    f.multipleOf.disabled = f.multiplier.disabled = c.dffMode !== 'llama';
    f.moeSet.querySelectorAll('input[type=number]').forEach((el) => {
      el.disabled = !c.moe;
    });
    let r;
    try {
      r = computeBlock(ffn, c);
      this._problem('config', null);
    } catch (err) {
      this._problem('config', err);
      this._results.setAttribute('aria-busy', 'true');
      return;
    }
    this._results.removeAttribute('aria-busy');
    this._result = r;
    if (c.dffMode === 'llama' && !c.moe) f.dff.value = r.dff;
    this._reflect();
    const share = this._drawCards(r);
    this._barFfn.style.width = `${100 * share}%`;
    this._barAttn.style.width = `${100 * (1 - share)}%`;
    const params = tr.int(r.moe ? r.moe.totalParams : r.ffnParams);
    this._announce(t('announce', { dff: tr.int(r.dff), params, pct: tr.fixed(100 * share, 1) }));
    this.dispatchEvent(new CustomEvent('ffn-change', { detail: r }));
  }

  /** Show the counts r in the cards; returns the FFN's share of the block's parameters (of all experts). */
  _drawCards(r) {
    const tr = this._tr;
    const t = (key, params) => this._t(key, params);
    const o = this._out;
    const set = (k, v, s = '') => {
      o[k].v.textContent = v;
      o[k].s.textContent = s;
    };
    const int = (x) => tr.int(x);
    const big = (x) => {
      if (x < 1e6) return '';
      const [key, v] = x >= 1e9 ? ['billion', x / 1e9] : ['million', x / 1e6];
      return t(key, { n: Number(v.toFixed(2)), x: tr.fixed(v, 2) });
    };
    const pct = (x) => tr.fixed(100 * x, 1);
    set('dff', int(r.dff), t(r.gated ? 'ratioGated' : 'ratio', { r: tr.fixed(r.ratio, 2) }));
    o.ffnParams.k.textContent = r.moe ? t('expertParams') : t('card.ffnParams');
    o.ffnFlops.k.textContent = r.moe ? t('activeFlops') : t('card.ffnFlops');
    set('ffnParams', int(r.ffnParams), big(r.ffnParams));
    const gqa = r.kvHeads < r.heads ? t('gqa', { kv: int(r.kvHeads), h: int(r.heads) }) : '';
    set('attnParams', int(r.attnParams), `${big(r.attnParams)}${gqa}`);
    const share = r.moe ? r.moe.shareTotal : r.share;
    const shareNote = r.moe ? t('shareActive', { p: pct(r.moe.shareActive) }) : t('shareDef');
    set('share', t('percent', { p: pct(share) }), shareNote);
    set('ffnFlops', int(r.moe ? r.moe.activeFlops : r.ffnFlops), r.moe ? t('activePlusRouter') : t('perWeight'));
    set('attnFlops', int(r.attnFlops), t('scores'));
    for (const el of this._moeCards) el.hidden = !r.moe;
    if (r.moe) {
      const m = r.moe;
      const shared = m.shared ? 'Shared' : '';
      const totalNote = t(`moeTotalNote${shared}`, { big: big(m.totalParams), e: int(m.experts), s: int(m.shared) });
      set('moeTotal', int(m.totalParams), totalNote);
      const activeNote = t(`moeActiveNote${shared}`, {
        a: int(m.active),
        s: int(m.shared),
        pct: pct(m.activeFraction),
      });
      set('moeActive', int(m.activeParams), activeNote);
      set('moeFlops', int(m.activeFlops), t('moeFlopsNote', { dense: int(m.totalFlopsIfDense) }));
    }
    return share;
  }
}

define('ffn-param-calculator', FfnParamCalculator);
