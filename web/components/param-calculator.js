// <ffn-param-calculator>: count an FFN against the attention projections of its block, dense or mixture-of-experts
// (view only; math in param-model.js).
import * as ffn from '../index.js'; // the wasm bytes inlined: nothing for a bundler or server to place
import { FfnElement, define, htmlEl as h } from '../element-base.js';
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

const ATTRS = [
  'preset',
  'presets',
  'd',
  'd-ff',
  'rule',
  'multiple-of',
  'multiplier',
  'gated',
  'bias',
  'heads',
  'kv-heads',
  'head-dim',
  'experts',
  'active-experts',
  'shared-experts',
  'theme',
  'lang',
];

/** Put one parsed attribute value into a configuration (undefined leaves it as it is). */
function applyAttribute(cfg, name, v) {
  if (v === undefined) return;
  switch (name) {
    case 'd':
      cfg.d = v;
      break;
    case 'd-ff':
      cfg.dff = v;
      break;
    case 'rule':
      cfg.dffMode = v;
      break;
    case 'multiple-of':
      cfg.multipleOf = v;
      break;
    case 'multiplier':
      cfg.multiplier = v;
      break;
    case 'gated':
      cfg.gated = v;
      break;
    case 'bias':
      cfg.bias = v;
      break;
    case 'heads':
      cfg.heads = v;
      break;
    case 'kv-heads':
      cfg.kvHeads = v;
      break;
    case 'head-dim':
      cfg.headDim = v;
      break;
    case 'experts':
      cfg.moe = v === null ? null : { experts: v, active: cfg.moe?.active ?? 1, shared: cfg.moe?.shared ?? 0 };
      break;
    case 'active-experts':
      if (cfg.moe) cfg.moe = { ...cfg.moe, active: v };
      break;
    case 'shared-experts':
      if (cfg.moe) cfg.moe = { ...cfg.moe, shared: v };
      break;
    default:
      break;
  }
}

export class FfnParamCalculator extends FfnElement {
  static get observedAttributes() {
    return ATTRS;
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

  attributeChangedCallback(name) {
    // Before the first connection every attribute is read at once (preset first), in connectedCallback.
    if (name === 'lang' && this.isConnected) {
      this._relocalize();
      return;
    }
    if (this._reflecting || !this._read || name === 'theme' || name === 'lang') return;
    try {
      if (name === 'presets') this._readPresets();
      else if (name === 'preset') this._readPreset();
      else this._readOne(name, this._cfg);
      this._reflect();
      if (this._ready) {
        this._syncForm();
        this._schedule();
      }
    } catch (err) {
      this._problem(name, err); // never let an attribute throw into the page
    }
  }

  /** Current configuration (see computeBlock). */
  get config() {
    return structuredClone(this._cfg);
  }
  set config(v) {
    this._cfg = validateConfig(v);
    this._preset = null;
    this._reflect();
    if (this._ready) {
      this._syncForm();
      this._schedule();
    }
  }
  /** The author presets shown after the built-in ones: [{ id, label, ...config }]. Setting checks them all. */
  get presets() {
    return this._extra.map((p) => ({ id: p.id, label: p.label, ...structuredClone(p.config) }));
  }
  set presets(v) {
    const list = parsePresets(v).map((p) => ({ id: p.id, label: p.label, ...p.config }));
    this.setAttribute('presets', JSON.stringify(list));
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
    this._reflect();
    if (this._ready) {
      this._syncForm();
      this._schedule();
    }
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

  /** Every attribute at once: author presets, the preset, then each size on top of it. */
  _readAll() {
    this._readPresets(false);
    this._readPreset();
    for (const name of ATTRS) {
      if (!['preset', 'presets', 'theme', 'lang'].includes(name)) this._readOne(name, this._cfg);
    }
  }

  _readPresets(apply = true) {
    const v = this.getAttribute('presets');
    try {
      this._extra = v === null ? [] : parseAttribute('presets', v);
      this._problem('presets', null);
    } catch (err) {
      this._problem('presets', err);
      return;
    }
    if (this._ready) this._buildPresetButtons();
    // A preset named before its definition arrived is applied now.
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
      if (v !== null) applyAttribute(cfg, name, parseAttribute(name, v));
      this._problem(name, null);
    } catch (err) {
      this._problem(name, err);
    }
  }

  /** Record (or with err null, clear) the problem of one source and show them all. */
  _problem(source, err) {
    setProblem(this._root, 'ffn-param-calculator', this._problems, source, err, this._tr);
  }

  _reflect() {
    const c = this._cfg;
    this._reflecting = true;
    try {
      const s = (n, v) => this.setAttribute(n, String(v));
      if (this._pending) {
        /* an unknown preset stays in the attribute, reported, until it is defined */
      } else if (this._preset) s('preset', this._preset);
      else this.removeAttribute('preset');
      s('d', c.d);
      s('rule', c.dffMode === 'llama' ? 'llama' : 'explicit');
      if (c.dffMode === 'llama') {
        s('multiple-of', c.multipleOf);
        s('multiplier', c.multiplier ?? '');
        this.removeAttribute('d-ff');
      } else {
        s('d-ff', c.dff);
        this.removeAttribute('multiple-of');
        this.removeAttribute('multiplier');
      }
      s('gated', !!c.gated);
      s('bias', !!c.bias);
      s('heads', c.heads);
      s('kv-heads', c.kvHeads);
      if (c.headDim) s('head-dim', c.headDim);
      else this.removeAttribute('head-dim');
      if (c.moe) {
        s('experts', c.moe.experts);
        s('active-experts', c.moe.active);
        s('shared-experts', c.moe.shared ?? 0);
      } else {
        for (const n of ['experts', 'active-experts', 'shared-experts']) this.removeAttribute(n);
      }
    } finally {
      this._reflecting = false;
    }
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
    add(form);

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
    add(this._results);
    this._barFfn = h('div', { class: 'ffn' });
    this._barAttn = h('div', { class: 'attn' });
    add(
      h('div', { class: 'sharebar', 'aria-hidden': 'true' }, this._barFfn, this._barAttn),
      h(
        'p',
        { class: 'sharekey muted' },
        h('span', { class: 'swatch sw-ffn' }),
        t.key,
        h('span', { class: 'swatch sw-attn' }),
        t.keyAttn,
      ),
    );
    this._live = h('p', { class: 'sr-only', 'aria-live': 'polite' });
    add(this._live);
    this._syncForm();
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
    this._barFfn.style.width = `${100 * share}%`;
    this._barAttn.style.width = `${100 * (1 - share)}%`;
    const params = int(r.moe ? r.moe.totalParams : r.ffnParams);
    this._announce(t('announce', { dff: int(r.dff), params, pct: pct(share) }));
    this.dispatchEvent(new CustomEvent('ffn-change', { detail: r }));
  }
}

define('ffn-param-calculator', FfnParamCalculator);
