// <ffn-memory-widget>: move a query through a hand-built key-value FFN and watch its memories fire (view only; math in memory-model.js).
import * as ffn from '../ffn.js';
import {
  attachStyledShadow, ElementBase, define, rafThrottle, trailingThrottle, prefersReducedMotion, fmt, svgEl, showError, htmlEl as h,
} from './styles.js';
import {
  ACTIVATIONS, DEFAULT_FACTS, DEFAULT_DISTRACTORS, DEFAULT_THRESHOLD, QUERY_LIMIT,
  parseFacts, formatFacts, parseDistractors, buildMemory, compute, describe, nearestToken, firingRegion,
} from './memory-model.js';

const LIM = 1.5; // half-width of the embedding view
const OUT_LIM = 3; // half-width of the output view
const STEP = 0.05; // arrow-key step
const BAR_MIN = -0.5, BAR_MAX = 4; // activation bar range
const BAR_ZERO = -BAR_MIN / (BAR_MAX - BAR_MIN); // where 0 sits on a bar, as a fraction of its width
const ACT_LABEL = { relu: 'ReLU', gelu: 'GELU', silu: 'SiLU' };

const css = `
.planes { display: flex; flex-wrap: wrap; gap: 12px; }
figure { margin: 0; flex: 1 1 240px; min-width: 0; max-width: 360px; }
figcaption { font-size: 0.88em; color: var(--_muted); margin-bottom: 4px; }
svg.plane { width: 100%; height: auto; display: block; background: var(--_surface); border-radius: 6px; touch-action: none; user-select: none; -webkit-user-select: none; }
svg.plane.in { cursor: crosshair; }
.axis { stroke: var(--_grid); stroke-width: 0.012; }
.region { fill: var(--_fire); opacity: 0; }
.region.on { opacity: 0.18; }
.keydir { stroke: var(--_accent); stroke-width: 0.014; opacity: 0.55; }
.boundary { stroke: var(--_fire); stroke-width: 0.012; stroke-dasharray: 0.05 0.04; opacity: 0.75; }
.tok circle { fill: var(--_bg); stroke: var(--_fg); stroke-width: 0.02; }
.tok.key circle { stroke: var(--_accent); stroke-width: 0.03; }
.tok.on circle { fill: var(--_fire); stroke: var(--_fire); }
.tok text { font-size: 0.13px; }
.query { fill: var(--_accent); stroke: var(--_bg); stroke-width: 0.025; cursor: grab; }
.query-halo { fill: none; stroke: var(--_accent); stroke-width: 0.012; opacity: 0.7; }
.vocab line { stroke: var(--_grid); stroke-width: 0.03; }
.vocab text { font-size: 0.26px; }
.vocab.on text { font-weight: 700; fill: var(--_accent); }
.arrow-full { stroke: var(--_accent); stroke-width: 0.07; fill: none; }
.arrow-part { stroke: var(--_fire); stroke-width: 0.05; stroke-dasharray: 0.14 0.1; fill: none; }
.head-full { fill: var(--_accent); }
.head-part { fill: var(--_fire); }
.sliders { display: grid; grid-template-columns: auto 1fr auto; gap: 6px 8px; align-items: center; margin-top: 8px; font-size: 0.9em; }
.sliders span.num { display: inline-block; min-width: 5.5ch; text-align: right; }
.track { position: relative; height: 28px; border-radius: 14px; background: var(--_surface); border: 1px solid var(--_border); cursor: pointer; touch-action: none; }
.thumb { position: absolute; top: 3px; width: 20px; height: 20px; margin-left: -10px; border-radius: 50%; background: var(--_accent); pointer-events: none; }
.tokens { margin: 10px 0 6px; }
.tokens .kind { font-size: 0.85em; color: var(--_muted); }
table { border-collapse: collapse; width: 100%; margin-top: 6px; font-size: 0.92em; }
th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--_grid); vertical-align: middle; }
th { font-weight: 600; color: var(--_muted); font-size: 0.88em; }
tbody th { color: var(--_fg); }
.keyvec { display: block; font-family: var(--_mono); font-weight: 400; font-size: 0.82em; color: var(--_muted); white-space: nowrap; }
td.num { text-align: right; white-space: nowrap; }
.bar { position: relative; height: 14px; min-width: 70px; background: var(--_surface); border-radius: 3px; }
.bar .zero { position: absolute; top: -2px; bottom: -2px; width: 2px; background: var(--_fg); }
.bar .fill { position: absolute; top: 0; bottom: 0; background: var(--_muted); border-radius: 2px; }
tr.fires .bar .fill { background: var(--_fire); }
tr.leaks .bar .fill { background: var(--_leak); }
.status { font-size: 0.85em; white-space: nowrap; }
tr.fires .status { color: var(--_fire); font-weight: 700; }
tr.leaks .status { color: var(--_leak); font-weight: 600; }
.intop { font-size: 0.85em; color: var(--_muted); }
tr.top .intop { color: var(--_fg); font-weight: 600; }
.controls { margin-top: 10px; }
.controls input[type="range"] { width: 110px; }
.out { margin-top: 10px; padding: 8px 10px; background: var(--_surface); border-radius: 6px; }
.out p { margin: 2px 0; }
.decoded { font-weight: 700; color: var(--_accent); }
.live { margin-top: 6px; font-size: 0.92em; }
.acts button { min-width: 56px; }
:host { container-type: inline-size; }
.tablewrap { overflow-x: auto; }
@container (max-width: 460px) {
  th.hide-narrow, td.hide-narrow { display: none; }
  .keyvec { white-space: normal; }
  th, td { padding: 4px 3px; }
  .bar { min-width: 48px; }
}
`;

export class FfnMemoryWidget extends ElementBase {
  static get observedAttributes() { return ['facts', 'distractors', 'threshold', 'k', 'activation', 'query', 'token', 'theme', 'sync-hash']; }

  constructor() {
    super();
    this._state = { x: 0, y: 1, k: null, threshold: DEFAULT_THRESHOLD, activation: 'relu' };
    this._facts = DEFAULT_FACTS.map((f) => ({ ...f }));
    this._distractors = [...DEFAULT_DISTRACTORS];
    this._mem = null;
    this._result = null;
    this._ready = false;
    this._reflecting = false;
    this._anim = 0;
    this._root = attachStyledShadow(this, css);
    this._scheduleRender = rafThrottle(() => this._render());
    this._announce = trailingThrottle((text) => { if (this._live) this._live.textContent = text; }, 700);
    this._readAttributes();
  }

  connectedCallback() {
    this._readHash();
    if (this._ready || this._loading) return;
    this._loading = true;
    this._root.append(Object.assign(document.createElement('p'), { className: 'muted loading', textContent: 'Loading the FFN kernels…' }));
    ffn.ready().then(() => {
      this._ready = true;
      this._rebuild();
      this.dispatchEvent(new CustomEvent('ffn-ready', { bubbles: true }));
    }, (err) => { this._loading = false; this._showError(err); });
  }

  attributeChangedCallback(name) {
    if (this._reflecting) return;
    if (name === 'sync-hash') {
      this._readHash();
      if (this._ready) this._rebuild(false);
      return;
    }
    const ok = this._readAttributes(name);
    if (!this._ready || !ok) return;
    this._root.querySelector('.error')?.remove();
    if (name === 'facts' || name === 'distractors') this._rebuild();
    else if (name === 'threshold') this._rebuild(false);
    else this._scheduleRender();
  }

  // ---- public properties ------------------------------------------------------------------
  /** The facts as [{ key, value, threshold? }]. Setting rebuilds the memory. */
  get facts() { return this._facts.map((f) => ({ ...f })); }
  set facts(v) { this.setAttribute('facts', formatFacts(parseFacts(v))); }
  get distractors() { return [...this._distractors]; }
  set distractors(v) { this.setAttribute('distractors', parseDistractors(v).join(', ')); }
  /** Query position [x, y] in the embedding plane. */
  get query() { return [this._state.x, this._state.y]; }
  set query(v) { this._setQuery(Number(v[0]), Number(v[1]), true); }
  get k() { return this._effectiveK(); }
  set k(v) { this._set({ k: Number(v) }); }
  get threshold() { return this._state.threshold; }
  set threshold(v) { this._set({ threshold: Number(v) }, true); }
  get activation() { return this._state.activation; }
  set activation(v) { this._set({ activation: String(v) }); }
  /** The last evaluation (kernel outputs), or null before the wasm is ready. */
  get result() { return this._result; }
  /** Move the query onto a token by name. */
  selectToken(name, { animate = true } = {}) {
    const t = this._mem?.tokens.find((tok) => tok.name === name);
    if (!t) throw new RangeError(`selectToken: no token named "${name}"`);
    this._moveTo(t.pos[0], t.pos[1], animate);
  }

  // ---- attributes, state, hash ------------------------------------------------------------
  _readAttributes(only) {
    const get = (n) => this.getAttribute(n);
    try {
      if ((!only || only === 'facts') && get('facts')) this._facts = parseFacts(get('facts'));
      if ((!only || only === 'distractors') && get('distractors') !== null) this._distractors = parseDistractors(get('distractors'));
      if ((!only || only === 'threshold') && get('threshold') !== null) {
        const t = Number(get('threshold'));
        if (!Number.isFinite(t)) throw new TypeError(`threshold must be a number, got "${get('threshold')}"`);
        this._state.threshold = t;
      }
      if ((!only || only === 'k') && get('k') !== null) this._state.k = Number(get('k'));
      if ((!only || only === 'activation') && get('activation') !== null) {
        const a = get('activation').toLowerCase();
        if (!ACTIVATIONS.includes(a)) throw new TypeError(`activation must be one of ${ACTIVATIONS.join(', ')}, got "${a}"`);
        this._state.activation = a;
      }
      if ((!only || only === 'query') && get('query') !== null) {
        const [x, y] = get('query').split(',').map(Number);
        if (!Number.isFinite(x) || !Number.isFinite(y)) throw new TypeError(`query must be "x,y", got "${get('query')}"`);
        this._state.x = clamp(x); this._state.y = clamp(y);
        this._pendingToken = null;
      } else if ((!only || only === 'token') && get('token') !== null) {
        this._pendingToken = get('token');
        if (this._mem) this._applyPendingToken();
      } else if (!only) {
        this._pendingToken = this._facts[0].key;
      }
      return true;
    } catch (err) {
      this._showError(err);
      return false;
    }
  }

  _applyPendingToken() {
    if (!this._pendingToken) return;
    const t = this._mem.tokens.find((tok) => tok.name === this._pendingToken);
    this._pendingToken = null;
    if (t) { this._state.x = t.pos[0]; this._state.y = t.pos[1]; }
  }

  _effectiveK() {
    const N = this._facts.length;
    const k = this._state.k;
    return k === null || !Number.isFinite(k) ? N : Math.max(0, Math.min(N, Math.round(k)));
  }

  _set(patch, rebuild = false) {
    Object.assign(this._state, patch);
    if (patch.activation !== undefined && !ACTIVATIONS.includes(this._state.activation)) {
      throw new TypeError(`activation must be one of ${ACTIVATIONS.join(', ')}, got "${this._state.activation}"`);
    }
    this._reflect();
    if (!this._ready) return;
    if (rebuild) this._rebuild(false); else this._scheduleRender();
  }

  _setQuery(x, y, reflect) {
    if (!Number.isFinite(x) || !Number.isFinite(y)) throw new TypeError(`query must be two finite numbers, got (${x}, ${y})`);
    this._state.x = clamp(x);
    this._state.y = clamp(y);
    if (reflect) this._reflect();
    this._scheduleRender();
  }

  _reflect() {
    this._reflecting = true;
    try {
      this.setAttribute('query', `${fmt(this._state.x, 3)},${fmt(this._state.y, 3)}`);
      this.setAttribute('k', String(this._effectiveK()));
      this.setAttribute('threshold', String(this._state.threshold));
      this.setAttribute('activation', this._state.activation);
      this.removeAttribute('token');
    } finally {
      this._reflecting = false;
    }
    this._writeHash();
  }

  _hashKey() {
    const v = this.getAttribute('sync-hash');
    return v === null ? null : (v || 'memory');
  }

  _readHash() {
    const key = this._hashKey();
    if (!key || typeof location === 'undefined') return;
    const params = new URLSearchParams(location.hash.slice(1));
    const s = params.get(key);
    if (!s) return;
    for (const part of s.split(';')) {
      const [name, val] = part.split(':');
      if (name === 'q') { const [x, y] = val.split(',').map(Number); if (Number.isFinite(x) && Number.isFinite(y)) { this._state.x = clamp(x); this._state.y = clamp(y); this._pendingToken = null; } }
      if (name === 'k' && Number.isFinite(Number(val))) this._state.k = Number(val);
      if (name === 't' && Number.isFinite(Number(val))) this._state.threshold = Number(val);
      if (name === 'a' && ACTIVATIONS.includes(val)) this._state.activation = val;
    }
  }

  _writeHash() {
    const key = this._hashKey();
    if (!key || typeof location === 'undefined' || typeof history === 'undefined') return;
    const params = new URLSearchParams(location.hash.slice(1));
    params.set(key, `q:${fmt(this._state.x, 3)},${fmt(this._state.y, 3)};k:${this._effectiveK()};t:${this._state.threshold};a:${this._state.activation}`);
    clearTimeout(this._hashTimer);
    this._hashTimer = setTimeout(() => history.replaceState(null, '', '#' + params.toString()), 200);
  }

  _showError(err) { showError(this._root, 'ffn-memory-widget', err); }

  // ---- building the DOM -------------------------------------------------------------------
  _rebuild(dom = true) {
    try {
      this._mem = buildMemory(this._facts, this._distractors, this._state.threshold);
    } catch (err) {
      this._showError(err);
      return;
    }
    this._applyPendingToken();
    if (!dom && this._rows) { this._scheduleRender(); return; }
    for (const n of [...this._root.childNodes]) if (n.nodeName !== 'STYLE') n.remove();
    this._build();
    this._render();
  }

  _build() {
    const mem = this._mem;
    const root = this._root;
    root.append(h('p', { class: 'title', text: 'An FFN that stores facts: move the query and watch memories fire' }));

    // Embedding plane.
    const inSvg = svgEl('svg', { class: 'plane in', viewBox: `${-LIM} ${-LIM} ${2 * LIM} ${2 * LIM}`, role: 'img', 'aria-label': 'Embedding plane: token positions, the query, and the region where each memory fires' });
    svgEl('line', { class: 'axis', x1: -LIM, y1: 0, x2: LIM, y2: 0 }, inSvg);
    svgEl('line', { class: 'axis', x1: 0, y1: -LIM, x2: 0, y2: LIM }, inSvg);
    this._regions = mem.keyTokens.map(() => svgEl('polygon', { class: 'region' }, inSvg));
    for (const t of mem.keyTokens) svgEl('line', { class: 'keydir', x1: 0, y1: 0, x2: t.pos[0] * 0.9, y2: -t.pos[1] * 0.9 }, inSvg);
    this._boundaries = mem.keyTokens.map(() => svgEl('polyline', { class: 'boundary', fill: 'none' }, inSvg));
    this._tokMarks = mem.tokens.map((t) => {
      const g = svgEl('g', { class: `tok ${t.kind}` }, inSvg);
      svgEl('circle', { cx: t.pos[0], cy: -t.pos[1], r: t.kind === 'key' ? 0.055 : 0.04 }, g);
      const lx = t.pos[0] * 1.18, ly = -t.pos[1] * 1.18;
      const anchor = t.kind === 'key' ? (Math.abs(t.pos[0]) < 0.2 ? 'middle' : t.pos[0] > 0 ? 'start' : 'end') : 'start';
      const txt = svgEl('text', { x: t.kind === 'key' ? lx : t.pos[0] + 0.07, y: t.kind === 'key' ? ly + (t.pos[1] > 0.5 ? -0.02 : 0.1) : -t.pos[1] + 0.04, 'text-anchor': anchor }, g);
      txt.textContent = t.name;
      return g;
    });
    this._queryHalo = svgEl('circle', { class: 'query-halo', r: 0.13 }, inSvg);
    this._queryDot = svgEl('circle', { class: 'query', r: 0.075 }, inSvg);
    this._inSvg = inSvg;

    // Output plane.
    const outSvg = svgEl('svg', { class: 'plane', viewBox: `${-OUT_LIM} ${-OUT_LIM} ${2 * OUT_LIM} ${2 * OUT_LIM}`, role: 'img', 'aria-label': 'Output plane: the vector the FFN writes, and the output directions of the vocabulary' });
    svgEl('line', { class: 'axis', x1: -OUT_LIM, y1: 0, x2: OUT_LIM, y2: 0, 'stroke-width': 0.024 }, outSvg);
    svgEl('line', { class: 'axis', x1: 0, y1: -OUT_LIM, x2: 0, y2: OUT_LIM, 'stroke-width': 0.024 }, outSvg);
    this._vocabMarks = mem.vocab.map((v) => {
      const g = svgEl('g', { class: 'vocab' }, outSvg);
      svgEl('line', { x1: 0, y1: 0, x2: v.dir[0] * 2.1, y2: -v.dir[1] * 2.1 }, g);
      const t = svgEl('text', { x: v.dir[0] * 2.2, y: -v.dir[1] * 2.2 + (v.dir[1] > 0.5 ? -0.04 : 0.26), 'text-anchor': Math.abs(v.dir[0]) < 0.2 ? 'middle' : v.dir[0] > 0 ? 'start' : 'end' }, g);
      t.textContent = v.name;
      return g;
    });
    this._arrowPart = svgEl('line', { class: 'arrow-part' }, outSvg);
    this._headPart = svgEl('polygon', { class: 'head-part' }, outSvg);
    this._arrowFull = svgEl('line', { class: 'arrow-full' }, outSvg);
    this._headFull = svgEl('polygon', { class: 'head-full' }, outSvg);
    svgEl('circle', { cx: 0, cy: 0, r: 0.06, fill: 'currentColor' }, outSvg);

    // Sliders (keyboard and pointer on each axis).
    this._sliders = ['x', 'y'].map((axis) => {
      const thumb = h('div', { class: 'thumb' });
      const track = h('div', {
        class: 'track', role: 'slider', tabindex: '0', 'aria-orientation': 'horizontal',
        'aria-label': `Query, ${axis === 'x' ? 'first' : 'second'} coordinate (${axis})`,
        'aria-valuemin': String(-QUERY_LIMIT), 'aria-valuemax': String(QUERY_LIMIT),
      }, thumb);
      track.addEventListener('keydown', (e) => this._onSliderKey(e, axis));
      this._dragOn(track, (e) => {
        const r = track.getBoundingClientRect();
        const v = -QUERY_LIMIT + (2 * QUERY_LIMIT * (e.clientX - r.left)) / r.width;
        if (axis === 'x') this._setQuery(v, this._state.y, false); else this._setQuery(this._state.x, v, false);
      });
      const val = h('span', { class: 'num' });
      return { axis, track, thumb, val };
    });
    this._dragOn(inSvg, (e) => {
      const p = this._svgPoint(inSvg, e);
      this._setQuery(p[0], p[1], false);
    });

    const inFig = h('figure', {}, h('figcaption', { text: 'Embedding space: drag the query (blue), or use the sliders' }), inSvg);
    const outFig = h('figure', {}, h('figcaption', { text: 'What the FFN writes: full sum (solid), top-k partial sum (dashed)' }), outSvg);
    const sliderBox = h('div', { class: 'sliders' });
    for (const s of this._sliders) sliderBox.append(h('span', { text: `query ${s.axis}`, 'aria-hidden': 'true' }), s.track, s.val);
    inFig.append(sliderBox);
    root.append(h('div', { class: 'planes' }, inFig, outFig));

    // Token buttons.
    const keyBtns = mem.tokens.filter((t) => t.kind === 'key').map((t) => h('button', { type: 'button', text: t.name, 'data-token': t.name, onclick: () => this.selectToken(t.name) }));
    const disBtns = mem.tokens.filter((t) => t.kind !== 'key').map((t) => h('button', { type: 'button', text: t.name, 'data-token': t.name, onclick: () => this.selectToken(t.name) }));
    root.append(h('div', { class: 'tokens row', role: 'group', 'aria-label': 'Put the query on a token' },
      h('span', { class: 'kind', text: 'Query a token:' }), ...keyBtns, ...(disBtns.length ? [h('span', { class: 'kind', text: 'or a filler word:' }), ...disBtns] : [])));

    // Memory table.
    const tbody = h('tbody');
    this._rows = mem.facts.map((f) => {
      const fill = h('div', { class: 'fill' });
      const zero = h('div', { class: 'zero' });
      const bar = h('div', { class: 'bar', 'aria-hidden': 'true' }, fill, zero);
      zero.style.left = `${100 * BAR_ZERO}%`;
      const match = h('td', { class: 'num' });
      const value = h('td', { class: 'num' });
      const status = h('span', { class: 'status' });
      const intop = h('td', { class: 'intop hide-narrow' });
      const keyLine = h('span', { class: 'keyvec' });
      const tr = h('tr', {}, h('th', { scope: 'row' }, `${f.key} → ${f.value}`, keyLine), match, h('td', {}, bar), value, h('td', {}, status), intop);
      tbody.append(tr);
      return { tr, match, fill, value, status, intop, keyLine };
    });
    const thead = h('thead', {}, h('tr', {},
      h('th', { text: 'memory (key → value)' }), h('th', { text: 'match x·k+b' }), h('th', { text: 'activation' }),
      h('th', { text: 'φ' }), h('th', { text: 'state' }), h('th', { class: 'hide-narrow', text: 'top-k' })));
    this._actHeader = thead.querySelectorAll('th')[3];
    root.append(h('div', { class: 'tablewrap' }, h('table', {}, h('caption', { class: 'sr-only', text: 'Each memory: its match with the query and its activation' }), thead, tbody)));

    // Controls.
    const N = mem.dff;
    this._kInput = h('input', { type: 'range', min: '0', max: String(N), step: '1', 'aria-label': 'top-k: number of strongest memories in the partial sum' });
    this._kInput.addEventListener('input', () => this._set({ k: Number(this._kInput.value) }));
    this._kVal = h('span', { class: 'num' });
    this._tInput = h('input', { type: 'range', min: '-2', max: '3', step: '0.05', 'aria-label': 'threshold: the bias subtracted from every match' });
    this._tInput.addEventListener('input', () => this._set({ threshold: Number(this._tInput.value) }, true));
    this._tVal = h('span', { class: 'num' });
    this._actBtns = ACTIVATIONS.map((a) => h('button', { type: 'button', text: ACT_LABEL[a], 'data-activation': a, onclick: () => this._set({ activation: a }) }));
    root.append(h('div', { class: 'controls row' },
      h('label', {}, 'top-k', this._kInput, this._kVal),
      h('label', {}, 'threshold', this._tInput, this._tVal),
      h('span', { class: 'row acts', role: 'group', 'aria-label': 'activation function' }, h('span', { text: 'φ:' }), ...this._actBtns)));

    // Output text and live region.
    this._outFull = h('p');
    this._outPart = h('p');
    root.append(h('div', { class: 'out' }, this._outFull, this._outPart));
    this._live = h('p', { class: 'live muted', 'aria-live': 'polite', role: 'status' });
    root.append(this._live);
  }

  _svgPoint(svg, e) {
    const r = svg.getBoundingClientRect();
    const x = -LIM + (2 * LIM * (e.clientX - r.left)) / r.width;
    const y = LIM - (2 * LIM * (e.clientY - r.top)) / r.height;
    return [x, y];
  }

  _dragOn(el, onMove) {
    el.addEventListener('pointerdown', (e) => {
      if (e.button !== undefined && e.button !== 0) return;
      e.preventDefault();
      cancelAnimationFrame(this._anim);
      try { el.setPointerCapture?.(e.pointerId); } catch { /* synthetic or already released pointer */ }
      if (el.getAttribute('tabindex') !== null) el.focus();
      onMove(e);
      const move = (ev) => onMove(ev);
      const up = () => {
        el.removeEventListener('pointermove', move);
        el.removeEventListener('pointerup', up);
        el.removeEventListener('pointercancel', up);
        this._reflect();
      };
      el.addEventListener('pointermove', move);
      el.addEventListener('pointerup', up);
      el.addEventListener('pointercancel', up);
    });
  }

  _onSliderKey(e, axis) {
    const cur = axis === 'x' ? this._state.x : this._state.y;
    let v = cur;
    const big = e.shiftKey ? 5 : 1;
    switch (e.key) {
      case 'ArrowRight': case 'ArrowUp': v = cur + STEP * big; break;
      case 'ArrowLeft': case 'ArrowDown': v = cur - STEP * big; break;
      case 'PageUp': v = cur + STEP * 5; break;
      case 'PageDown': v = cur - STEP * 5; break;
      case 'Home': v = -QUERY_LIMIT; break;
      case 'End': v = QUERY_LIMIT; break;
      default: return;
    }
    e.preventDefault();
    v = Math.round(v / STEP) * STEP;
    if (axis === 'x') this._setQuery(v, this._state.y, true); else this._setQuery(this._state.x, v, true);
  }

  _moveTo(x, y, animate) {
    cancelAnimationFrame(this._anim);
    if (!animate || prefersReducedMotion()) { this._setQuery(x, y, true); return; }
    const x0 = this._state.x, y0 = this._state.y;
    const t0 = performance.now();
    const dur = 280;
    const tick = (now) => {
      const t = Math.min(1, (now - t0) / dur);
      const e = t * t * (3 - 2 * t);
      if (t < 1) {
        this._setQuery(x0 + (x - x0) * e, y0 + (y - y0) * e, false);
        this._anim = requestAnimationFrame(tick);
      } else {
        this._setQuery(x, y, true);
      }
    };
    this._anim = requestAnimationFrame(tick);
  }

  // ---- drawing ----------------------------------------------------------------------------
  /** What depends on the memory alone (firing regions, key lines): drawn once per built memory, not per frame. */
  _drawMemory(mem) {
    mem.keyTokens.forEach((t, i) => {
      const poly = firingRegion(mem, i, LIM);
      this._regions[i].setAttribute('points', poly.map((p) => `${p[0]},${-p[1]}`).join(' '));
      const edge = poly.filter((p) => Math.abs(Math.abs(p[0]) - LIM) > 1e-9 || Math.abs(Math.abs(p[1]) - LIM) > 1e-9);
      this._boundaries[i].setAttribute('points', edge.map((p) => `${p[0]},${-p[1]}`).join(' '));
    });
    const N = mem.dff;
    this._rows.forEach((row, i) => {
      row.keyLine.textContent = `k = (${fmt(mem.W1.data[i], 2)}, ${fmt(mem.W1.data[N + i], 2)}), b = ${fmt(mem.b1.data[i], 2)}`;
    });
    this._drawnMem = mem;
  }

  _render() {
    if (!this._mem || !this._rows) return;
    const mem = this._mem;
    const s = this._state;
    const k = this._effectiveK();
    let r;
    try {
      r = compute(ffn, mem, { x: s.x, y: s.y, k, activation: s.activation });
    } catch (err) {
      this._showError(err);
      return;
    }
    this._result = r;
    const fires = new Set(r.fires), leaks = new Set(r.leaks), top = new Set(r.top);

    // Embedding plane.
    this._queryDot.setAttribute('cx', s.x); this._queryDot.setAttribute('cy', -s.y);
    this._queryHalo.setAttribute('cx', s.x); this._queryHalo.setAttribute('cy', -s.y);
    if (this._drawnMem !== mem) this._drawMemory(mem);
    this._regions.forEach((g, i) => g.classList.toggle('on', fires.has(i)));
    mem.tokens.forEach((t, j) => this._tokMarks[j].classList.toggle('on', t.kind === 'key' && fires.has(mem.keyTokens.indexOf(t))));

    // Sliders.
    for (const sl of this._sliders) {
      const v = sl.axis === 'x' ? s.x : s.y;
      sl.thumb.style.left = `${(100 * (v + QUERY_LIMIT)) / (2 * QUERY_LIMIT)}%`;
      sl.track.setAttribute('aria-valuenow', fmt(v, 2));
      sl.track.setAttribute('aria-valuetext', `${sl.axis} = ${fmt(v, 2)}`);
      sl.val.textContent = fmt(v, 2);
    }

    // Output plane.
    drawArrow(this._arrowFull, this._headFull, r.written, 0.2);
    drawArrow(this._arrowPart, this._headPart, r.partial, 0.16);
    this._vocabMarks.forEach((g, j) => g.classList.toggle('on', r.decoded.token !== null && r.decoded.index === j));

    // Table.
    this._actHeader.textContent = `φ = ${ACT_LABEL[r.activation]}`;
    r.coef.forEach((c, i) => {
      const row = this._rows[i];
      row.match.textContent = fmt(r.match[i], 2);
      row.value.textContent = fmt(c, 3);
      const w = Math.max(BAR_MIN, Math.min(BAR_MAX, c)) / (BAR_MAX - BAR_MIN);
      row.fill.style.left = `${100 * (w >= 0 ? BAR_ZERO : BAR_ZERO + w)}%`;
      row.fill.style.width = `${100 * Math.abs(w)}%`;
      row.tr.className = fires.has(i) ? 'fires' : leaks.has(i) ? 'leaks' : 'silent';
      row.tr.classList.toggle('top', top.has(i));
      row.tr.dataset.coef = String(c);
      row.status.textContent = fires.has(i) ? 'fires' : leaks.has(i) ? 'leaks' : 'silent';
      row.intop.textContent = top.has(i) ? `#${r.top.indexOf(i) + 1}` : '–';
    });

    // Controls.
    this._kInput.value = String(k); this._kVal.textContent = String(k);
    this._tInput.value = String(s.threshold); this._tVal.textContent = fmt(s.threshold, 2);
    for (const b of this._actBtns) b.setAttribute('aria-pressed', String(b.dataset.activation === r.activation));

    const near = nearestToken(mem, s.x, s.y);
    const vec = (v) => `(${fmt(v[0], 2)}, ${fmt(v[1], 2)})`;
    this._outFull.innerHTML = '';
    this._outFull.append(`Query ${near ? `“${near.name}” ` : ''}${vec(r.query)} → FFN writes ${vec(r.written)}, which decodes to `,
      Object.assign(document.createElement('span'), { className: 'decoded', textContent: r.decoded.token ?? 'nothing' }),
      r.decoded.token ? ` (score ${fmt(r.decoded.score, 2)})` : ` (best score ${fmt(r.decoded.score, 2)})`);
    this._outFull.dataset.decoded = r.decoded.token ?? '';
    this._outPart.textContent = `Top-${k} partial sum ${vec(r.partial)} → ${r.partialDecoded.token ?? 'nothing'}${r.partialDecoded.token ? ` (score ${fmt(r.partialDecoded.score, 2)})` : ''}`;
    this._outPart.dataset.partial = `${r.partial[0]},${r.partial[1]}`;

    this._announce(describe(mem, r));
    this.dispatchEvent(new CustomEvent('ffn-change', { detail: r }));
  }
}

function clamp(v) { return Math.max(-QUERY_LIMIT, Math.min(QUERY_LIMIT, v)); }

function drawArrow(line, head, v, size) {
  let x = v[0], y = v[1];
  const len = Math.hypot(x, y);
  const maxLen = OUT_LIM * 0.92;
  if (len < 1e-3) {
    line.setAttribute('visibility', 'hidden'); head.setAttribute('visibility', 'hidden');
    return;
  }
  if (len > maxLen) { x *= maxLen / len; y *= maxLen / len; }
  const ux = x / Math.hypot(x, y), uy = y / Math.hypot(x, y);
  const hs = Math.min(size, Math.hypot(x, y) * 0.6);
  const bx = x - ux * hs, by = y - uy * hs;
  line.setAttribute('visibility', 'visible'); head.setAttribute('visibility', 'visible');
  line.setAttribute('x1', 0); line.setAttribute('y1', 0); line.setAttribute('x2', bx); line.setAttribute('y2', -by);
  const px = -uy * hs * 0.6, py = ux * hs * 0.6;
  head.setAttribute('points', `${x},${-y} ${bx + px},${-(by + py)} ${bx - px},${-(by - py)}`);
}

define('ffn-memory-widget', FfnMemoryWidget);
