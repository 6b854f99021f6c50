// <ffn-memory-widget>: move a query through a hand-built key-value FFN and watch its memories fire (view only; math in
// memory-model.js).
import * as ffn from '../index.js'; // the wasm bytes inlined: nothing for a bundler or server to place
import { FfnElement, define, htmlEl as h, svgEl } from '../element-base.js';
import { componentCss, rafThrottle, trailingThrottle, prefersReducedMotion, fmt, setProblem } from './styles.js';
import {
  ACTIVATIONS,
  DEFAULT_FACTS,
  DEFAULT_DISTRACTORS,
  QUERY_LIMIT,
  THRESHOLD_MIN,
  THRESHOLD_MAX,
  HASH_READ_MAX,
  parseAttribute,
  parseFacts,
  formatFacts,
  parseDistractors,
  parseThreshold,
  parseActivation,
  parseK,
  readHashFrom,
  formatHashState,
  clampQuery,
  defaultThreshold,
  buildMemory,
  compute,
  nearestToken,
  firingRegion,
} from './memory-model.js';
import { placeLabels, radialCandidates, wrapLines } from './label-layout.js';
import { localizedError } from '../i18n/index.js';

// Every string the widget shows is in the locale tables (web/i18n/en.js, namespace `memory`).

const LIM = 1.5; // half-width of the embedding square, plane units
const OUT_LIM = 3.6; // half-width of the output square (an arrow is drawn up to 0.92 of it)
const STEP = 0.05; // arrow-key step
const BAR_MIN = -0.5,
  BAR_MAX = 4; // activation bar range
const BAR_ZERO = -BAR_MIN / (BAR_MAX - BAR_MIN); // where 0 sits on a bar, as a fraction of its width
const FONT = { key: 13, distractor: 12, vocab: 13 }; // label sizes, px

const css = `
.planes { display: flex; flex-wrap: wrap; gap: 12px; }
figure { margin: 0; flex: 1 1 240px; min-width: 0; max-width: 360px; }
figcaption { font-size: 0.88em; color: var(--_muted); margin-bottom: 4px; }
svg.plane {
  width: 100%; height: auto; display: block; background: var(--_surface); border-radius: 6px;
  touch-action: none; user-select: none; -webkit-user-select: none;
}
svg.plane.in { cursor: crosshair; }
.axis { stroke: var(--_grid); stroke-width: 1.2; }
.region { fill: var(--_fire); opacity: 0; }
.region.on { opacity: 0.18; }
.keydir { stroke: var(--_accent); stroke-width: 1.4; opacity: 0.55; }
.boundary { stroke: var(--_fire); stroke-width: 1.2; stroke-dasharray: 5 4; opacity: 0.75; fill: none; }
.leader { stroke: var(--_muted); stroke-width: 1; }
.tok circle { fill: var(--_bg); stroke: var(--_fg); stroke-width: 2; }
.tok.key circle { stroke: var(--_accent); stroke-width: 3; }
.tok.on circle { fill: var(--_fire); stroke: var(--_fire); }
.tok text, .vocab text { paint-order: stroke; stroke: var(--_surface); stroke-width: 3px; stroke-linejoin: round; }
.query { fill: var(--_accent); stroke: var(--_bg); stroke-width: 2.5; cursor: grab; }
.query-halo { fill: none; stroke: var(--_accent); stroke-width: 1.2; opacity: 0.7; }
.vocab line { stroke: var(--_grid); stroke-width: 3; }
.vocab.on text { font-weight: 700; fill: var(--_accent); }
.arrow-full { stroke: var(--_accent); stroke-width: 4; fill: none; }
.arrow-part { stroke: var(--_fire); stroke-width: 3; stroke-dasharray: 8 6; fill: none; }
.head-full { fill: var(--_accent); }
.head-part { fill: var(--_fire); }
.sliders {
  display: grid; grid-template-columns: auto 1fr auto; gap: 6px 8px; align-items: center; margin-top: 8px;
  font-size: 0.9em;
}
.sliders span.num { display: inline-block; min-width: 5.5ch; text-align: right; }
.track {
  position: relative; height: 28px; border-radius: 14px; background: var(--_surface); border: 1px solid var(--_border);
  cursor: pointer; touch-action: none;
}
.thumb {
  position: absolute; top: 3px; width: 20px; height: 20px; margin-left: -10px; border-radius: 50%;
  background: var(--_accent); pointer-events: none;
}
.tokens { margin: 10px 0 6px; }
.tokens .kind { font-size: 0.85em; color: var(--_muted); }
.tokens button { white-space: normal; overflow-wrap: anywhere; max-width: 100%; text-align: start; }
table { border-collapse: collapse; width: 100%; margin-top: 6px; font-size: 0.92em; }
th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--_grid); vertical-align: middle; }
th { font-weight: 600; color: var(--_muted); font-size: 0.88em; }
tbody th { color: var(--_fg); overflow-wrap: anywhere; }
.keyvec {
  display: block; font-family: var(--_mono); font-weight: 400; font-size: 0.82em; color: var(--_muted);
  overflow-wrap: anywhere;
}
td.num { text-align: right; white-space: nowrap; }
.bar { position: relative; height: 14px; min-width: 70px; background: var(--_surface); border-radius: 3px; }
.bar .zero { position: absolute; top: -2px; bottom: -2px; width: 2px; background: var(--_fg); }
.bar .fill { position: absolute; top: 0; bottom: 0; background: var(--_muted); border-radius: 2px; }
tr.fires .bar .fill { background: var(--_fire); }
tr.leaks .bar .fill { background: var(--_leak); }
.status { font-size: 0.85em; white-space: nowrap; }
tr.fires .status { color: var(--_fire); font-weight: 700; }
tr.leaks .status { color: var(--_leak); font-weight: 600; }
.intop { font-size: 0.85em; color: var(--_muted); white-space: nowrap; }
tr.ranked .intop { color: var(--_fg); font-weight: 600; }
.topnote { font-size: 0.82em; margin: 4px 0 0; }
.controls { margin-top: 10px; }
.controls input[type="range"] { width: 110px; }
.out { margin-top: 10px; padding: 8px 10px; background: var(--_surface); border-radius: 6px; overflow-wrap: anywhere; }
.out p { margin: 2px 0; }
.decoded { font-weight: 700; color: var(--_accent); }
.live { margin-top: 6px; font-size: 0.92em; overflow-wrap: anywhere; }
.acts button { min-width: 56px; }
:host { container-type: inline-size; }
td[data-label]::before { display: none; }
@container (max-width: 460px) {
  /* Narrow: each memory is a block of two lines, every cell (the top-k rank too) labelled in place. */
  table, tbody { display: block; }
  thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  tbody tr {
    display: flex; flex-wrap: wrap; align-items: center; gap: 4px 12px; padding: 6px 0;
    border-bottom: 1px solid var(--_grid);
  }
  tbody th, tbody td { display: block; border: 0; padding: 0; }
  tbody th { flex: 1 0 100%; }
  td.barcell { flex: 1 0 100%; order: 1; }
  td.num { text-align: left; }
  td[data-label]::before {
    display: inline; content: attr(data-label) " "; color: var(--_muted); font-family: var(--_font); font-weight: 400;
  }
}
`;

export class FfnMemoryWidget extends FfnElement {
  /** The widget's keys in the locale table are memory.* (see _t). */
  static get textPrefix() {
    return 'memory.';
  }

  static get observedAttributes() {
    return ['facts', 'distractors', 'threshold', 'k', 'activation', 'query', 'token', 'theme', 'sync-hash', 'lang'];
  }

  constructor() {
    super();
    // threshold and k: null means the default (defaultThreshold of the facts; every memory).
    this._state = { x: 0, y: 1, k: null, threshold: null, activation: 'relu' };
    this._placed = false;
    this._facts = DEFAULT_FACTS.map((f) => ({ ...f }));
    this._distractors = [...DEFAULT_DISTRACTORS];
    this._hashKey = null;
    this._problems = new Map();
    this._mem = null;
    this._result = null;
    this._reflecting = false;
    this._anim = 0;
    this._root = this._attachStyledShadow(componentCss(css));
    this._scheduleRender = rafThrottle(() => this._render());
    this._announce = trailingThrottle((text) => {
      if (this._live) this._live.textContent = text;
    }, 700);
    for (const name of FfnMemoryWidget.observedAttributes) this._readAttribute(name);
  }

  connectedCallback() {
    super.connectedCallback();
    this._useLanguage();
    this._readHash();
    if (this._ready) {
      this._followWidth();
      return;
    }
    this._load(() => ffn.ready(), {
      loading: () => this._t('loading'),
      ready: () => this._rebuild(),
      failed: (err) => this._problem('load', err),
    });
  }

  /** Take the language of the element or the page (and the default facts of that language). */
  _useLanguage() {
    this._retranslate();
    if (this.getAttribute('facts') === null) this._facts = this._defaultFacts();
    if (this.getAttribute('distractors') === null) this._distractors = this._defaultDistractors();
  }

  /** The default facts in the widget's language (the built-in English ones if a page's table gives bad ones). */
  _defaultFacts() {
    try {
      return parseFacts(this._t('defaultFacts'));
    } catch {
      return DEFAULT_FACTS.map((f) => ({ ...f }));
    }
  }

  _defaultDistractors() {
    try {
      return parseDistractors(this._t('defaultDistractors'));
    } catch {
      return [...DEFAULT_DISTRACTORS];
    }
  }

  /** The language or its table changed: everything is drawn again in it. */
  _relocalize() {
    this._useLanguage();
    this._problem(null, null);
    if (this._ready) this._rebuild();
    else this._relocalizeLoading();
  }

  attributeChangedCallback(name) {
    if (this._reflecting) return;
    if (name === 'lang') {
      if (this.isConnected) this._relocalize();
      return;
    }
    try {
      if (!this._readAttribute(name)) return;
      if (name === 'sync-hash') this._readHash();
      if (!this._ready) return;
      if (name === 'facts' || name === 'distractors') this._rebuild();
      else if (name === 'threshold' || name === 'sync-hash') this._rebuild(false);
      else this._scheduleRender();
    } catch (err) {
      this._problem(name, err); // never let an attribute throw into the page
    }
  }

  // ---- public properties ------------------------------------------------------------------
  /** The facts as [{ key, value, threshold? }]. Setting rebuilds the memory. */
  get facts() {
    return this._facts.map((f) => ({ ...f }));
  }
  set facts(v) {
    this.setAttribute('facts', formatFacts(parseFacts(v)));
  }
  get distractors() {
    return [...this._distractors];
  }
  set distractors(v) {
    this.setAttribute('distractors', parseDistractors(v).join(', '));
  }
  /** Query position [x, y] in the embedding plane. */
  get query() {
    return [this._state.x, this._state.y];
  }
  set query(v) {
    this._setQuery(Number(v?.[0]), Number(v?.[1]), true);
  }
  get k() {
    return this._effectiveK();
  }
  set k(v) {
    this._set({ k: parseK(v) });
  }
  /** The threshold in use (the default for the facts unless one was set). */
  get threshold() {
    return this._effectiveThreshold();
  }
  set threshold(v) {
    this._set({ threshold: parseThreshold(v) }, true);
  }
  get activation() {
    return this._state.activation;
  }
  set activation(v) {
    this._set({ activation: parseActivation(String(v)) });
  }
  /** The last evaluation (kernel outputs and the status line), or null before the wasm is ready. */
  get result() {
    return this._result;
  }
  /** Move the query onto a token by name. */
  selectToken(name, { animate = true } = {}) {
    const t = this._mem?.tokens.find((tok) => tok.name === name);
    if (!t) throw new RangeError(`selectToken: no token named ${JSON.stringify(String(name).slice(0, 80))}`);
    this._moveTo(t.pos[0], t.pos[1], animate);
  }

  // ---- attributes, state, hash ------------------------------------------------------------
  /** Read one attribute through the model's parser; a refused value leaves the state as it was and is shown. */
  _readAttribute(name) {
    if (name === 'theme' || name === 'lang') return true;
    const v = this.getAttribute(name);
    try {
      const val = v === null ? null : parseAttribute(name, v);
      switch (name) {
        case 'facts':
          this._facts = val ?? this._defaultFacts();
          break;
        case 'distractors':
          this._distractors = val ?? this._defaultDistractors();
          break;
        case 'threshold':
          this._state.threshold = val;
          break;
        case 'k':
          this._state.k = val;
          break;
        case 'activation':
          this._state.activation = val ?? 'relu';
          break;
        case 'query':
          if (val) {
            [this._state.x, this._state.y] = val;
            this._placed = true;
            this._pendingToken = null;
          }
          break;
        case 'token':
          if (val !== null && this.getAttribute('query') === null) {
            this._pendingToken = val;
            if (this._mem) this._applyPendingToken();
          }
          break;
        case 'sync-hash':
          this._hashKey = val;
          break;
        default:
          break;
      }
      this._problem(name, null);
      return true;
    } catch (err) {
      this._problem(name, err);
      return false;
    }
  }

  /** Record (or with err null, clear) the problem of one source and show them all. */
  _problem(source, err) {
    setProblem(this._root, 'ffn-memory-widget', this._problems, source, err, this._tr);
  }

  _applyPendingToken() {
    if (!this._pendingToken) return;
    const name = this._pendingToken;
    const t = this._mem.tokens.find((tok) => tok.name === name);
    this._pendingToken = null;
    if (t) {
      this._state.x = t.pos[0];
      this._state.y = t.pos[1];
      this._placed = true;
      this._problem('token', null);
    } else this._problem('token', localizedError(RangeError, 'errors.noToken', { name: JSON.stringify(name) }));
  }

  _effectiveK() {
    const N = this._facts.length;
    const k = this._state.k;
    return k === null ? N : Math.max(0, Math.min(N, k));
  }

  _effectiveThreshold() {
    return this._state.threshold ?? defaultThreshold(this._facts.length);
  }

  _set(patch, rebuild = false) {
    Object.assign(this._state, patch);
    this._reflect();
    if (!this._ready) return;
    if (rebuild) this._rebuild(false);
    else this._scheduleRender();
  }

  _setQuery(x, y, reflect) {
    if (!Number.isFinite(x) || !Number.isFinite(y)) {
      throw new TypeError(`query must be two finite numbers, got (${x}, ${y})`);
    }
    this._state.x = clampQuery(x);
    this._state.y = clampQuery(y);
    this._placed = true;
    if (reflect) this._reflect();
    this._scheduleRender();
  }

  _reflect() {
    this._reflecting = true;
    try {
      this.setAttribute('query', `${fmt(this._state.x, 3)},${fmt(this._state.y, 3)}`);
      if (this._state.k === null) this.removeAttribute('k');
      else this.setAttribute('k', String(this._effectiveK()));
      if (this._state.threshold === null) this.removeAttribute('threshold');
      else this.setAttribute('threshold', String(this._state.threshold));
      this.setAttribute('activation', this._state.activation);
      this.removeAttribute('token');
    } finally {
      this._reflecting = false;
    }
    this._problem('query', null);
    this._problem('k', null);
    this._problem('threshold', null);
    this._problem('activation', null);
    this._writeHash();
  }

  /** The widget's part of the URL hash, read within bounds: never throws, shows what it ignored. */
  _readHash() {
    const key = this._hashKey;
    if (!key || typeof location === 'undefined') return;
    try {
      const read = readHashFrom(location.hash, key); // throws (shown below) for a hash beyond its bound
      if (!read) {
        this._problem('sync-hash', null);
        return;
      }
      const { state, ignored } = read;
      if (state.query) {
        [this._state.x, this._state.y] = state.query;
        this._placed = true;
        this._pendingToken = null;
      }
      if (state.k !== undefined) this._state.k = state.k;
      if (state.threshold !== undefined) this._state.threshold = state.threshold;
      if (state.activation !== undefined) this._state.activation = state.activation;
      const problem = ignored.length ? localizedError(TypeError, 'errors.hashIgnored', { parts: ignored }) : null;
      this._problem('sync-hash', problem);
    } catch (err) {
      this._problem('sync-hash', err);
    }
  }

  _writeHash() {
    const key = this._hashKey;
    if (!key || typeof location === 'undefined' || typeof history === 'undefined') return;
    if (location.hash.length > HASH_READ_MAX) return;
    const params = new URLSearchParams(location.hash.slice(1));
    params.set(
      key,
      formatHashState({
        query: [this._state.x, this._state.y],
        k: this._effectiveK(),
        threshold: this._effectiveThreshold(),
        activation: this._state.activation,
      }),
    );
    clearTimeout(this._hashTimer);
    this._hashTimer = setTimeout(() => history.replaceState(null, '', '#' + params.toString()), 200);
  }

  // ---- building the DOM -------------------------------------------------------------------
  _rebuild(dom = true) {
    try {
      this._mem = buildMemory(this._facts, this._distractors, this._effectiveThreshold());
    } catch (err) {
      this._problem('facts', err);
      return;
    }
    this._applyPendingToken();
    if (!this._placed) {
      [this._state.x, this._state.y] = this._mem.keyTokens[0].pos;
      this._placed = true;
    }
    if (!dom && this._rows) {
      this._scheduleRender();
      return;
    }
    for (const n of [...this._root.childNodes]) {
      if (n.nodeName !== 'STYLE' && !n.classList?.contains('error')) n.remove();
    }
    this._build();
    this._render();
  }

  /** Lay the planes out again whenever their width changes (labels keep their real size). */
  _followWidth() {
    this._observeSize(
      this._planesBox,
      rafThrottle(() => {
        const w = this._inFig?.clientWidth;
        if (w && w !== this._laidW) {
          this._layoutPlanes();
          this._render();
        }
      }),
    );
  }

  _build() {
    const mem = this._mem;
    const root = this._root;
    const error = root.querySelector('.error');
    const add = (...nodes) => (error ? error.before(...nodes) : root.append(...nodes));
    const t = (key, params) => this._t(key, params);
    add(h('p', { class: 'title', text: t('title') }));

    this._inSvg = svgEl('svg', { class: 'plane in', role: 'img', 'aria-label': t('inPlane') });
    this._outSvg = svgEl('svg', { class: 'plane out', role: 'img', 'aria-label': t('outPlane') });

    // Sliders (keyboard and pointer on each axis).
    this._sliders = ['x', 'y'].map((axis) => {
      const thumb = h('div', { class: 'thumb' });
      const track = h(
        'div',
        {
          class: 'track',
          role: 'slider',
          tabindex: '0',
          'aria-orientation': 'horizontal',
          'aria-label': t(axis === 'x' ? 'sliderX' : 'sliderY'),
          'aria-valuemin': String(-QUERY_LIMIT),
          'aria-valuemax': String(QUERY_LIMIT),
        },
        thumb,
      );
      track.addEventListener('keydown', (e) => this._onSliderKey(e, axis));
      this._dragOn(track, (e) => {
        const r = track.getBoundingClientRect();
        const v = -QUERY_LIMIT + (2 * QUERY_LIMIT * (e.clientX - r.left)) / r.width;
        if (axis === 'x') this._setQuery(v, this._state.y, false);
        else this._setQuery(this._state.x, v, false);
      });
      const val = h('span', { class: 'num' });
      return { axis, track, thumb, val };
    });
    this._dragOn(this._inSvg, (e) => {
      const p = this._svgPoint(e);
      if (p) this._setQuery(p[0], p[1], false);
    });

    this._inFig = h('figure', {}, h('figcaption', { text: t('inCaption') }), this._inSvg);
    const outFig = h('figure', {}, h('figcaption', { text: t('outCaption') }), this._outSvg);
    const sliderBox = h('div', { class: 'sliders' });
    for (const s of this._sliders) {
      sliderBox.append(h('span', { text: t('sliderName', { axis: s.axis }), 'aria-hidden': 'true' }), s.track, s.val);
    }
    this._inFig.append(sliderBox);
    this._planesBox = h('div', { class: 'planes' }, this._inFig, outFig);
    add(this._planesBox);
    if (this.isConnected) this._followWidth(); // a new box: the size observer moves to it

    // Token buttons.
    const btn = (t) =>
      h('button', {
        type: 'button',
        text: t.name,
        'data-token': t.name,
        onclick: () => this.selectToken(t.name),
      });
    const keyBtns = mem.tokens.filter((t) => t.kind === 'key').map(btn);
    const disBtns = mem.tokens.filter((t) => t.kind !== 'key').map(btn);
    add(
      h(
        'div',
        { class: 'tokens row', role: 'group', 'aria-label': t('tokens') },
        h('span', { class: 'kind', text: t('queryToken') }),
        ...keyBtns,
        ...(disBtns.length ? [h('span', { class: 'kind', text: t('orFiller') }), ...disBtns] : []),
      ),
    );

    // Memory table (explicit roles: the narrow layout changes its display).
    const tbody = h('tbody', { role: 'rowgroup' });
    this._rows = mem.facts.map((f) => {
      const fill = h('div', { class: 'fill' });
      const zero = h('div', { class: 'zero' });
      const bar = h('div', { class: 'bar', 'aria-hidden': 'true' }, fill, zero);
      zero.style.left = `${100 * BAR_ZERO}%`;
      const match = h('td', { class: 'num match', role: 'cell', 'data-label': t('cellMatch') });
      const value = h('td', { class: 'num phi', role: 'cell', 'data-label': t('cellPhi') });
      const status = h('span', { class: 'status' });
      const intop = h('td', { class: 'intop', role: 'cell', 'data-label': t('cellTop') });
      const keyLine = h('span', { class: 'keyvec' });
      const tr = h(
        'tr',
        { role: 'row' },
        h('th', { scope: 'row', role: 'rowheader' }, t('fact', { key: f.key, value: f.value }), keyLine),
        match,
        h('td', { class: 'barcell', role: 'cell' }, bar),
        value,
        h('td', { class: 'statecell', role: 'cell' }, status),
        intop,
      );
      tbody.append(tr);
      return { tr, match, fill, value, status, intop, keyLine };
    });
    const col = (text) => h('th', { role: 'columnheader', scope: 'col', text });
    const thead = h(
      'thead',
      { role: 'rowgroup' },
      h(
        'tr',
        { role: 'row' },
        col(t('colMemory')),
        col(t('colMatch')),
        col(t('colBar')),
        col(''),
        col(t('colState')),
        col(t('colTop')),
      ),
    );
    this._actHeader = thead.querySelectorAll('th')[3];
    const caption = h('caption', { class: 'sr-only', text: t('tableCaption') });
    add(
      h('div', { class: 'tablewrap' }, h('table', { role: 'table' }, caption, thead, tbody)),
      h('p', { class: 'topnote muted', text: t('topNote') }),
    );

    // Controls.
    this._kInput = h('input', {
      type: 'range',
      min: '0',
      max: String(mem.dff),
      step: '1',
      'aria-label': t('kAria'),
    });
    this._kInput.addEventListener('input', () => this._set({ k: Number(this._kInput.value) }));
    this._kVal = h('span', { class: 'num' });
    this._tInput = h('input', {
      type: 'range',
      min: String(THRESHOLD_MIN),
      max: String(THRESHOLD_MAX),
      step: '0.05',
      'aria-label': t('tAria'),
    });
    this._tInput.addEventListener('input', () => this._set({ threshold: Number(this._tInput.value) }, true));
    this._tVal = h('span', { class: 'num' });
    this._actBtns = ACTIVATIONS.map((a) =>
      h('button', {
        type: 'button',
        text: t(`act.${a}`),
        'data-activation': a,
        onclick: () => this._set({ activation: a }),
      }),
    );
    add(
      h(
        'div',
        { class: 'controls row' },
        h('label', {}, t('kLabel'), this._kInput, this._kVal),
        h('label', {}, t('tLabel'), this._tInput, this._tVal),
        h(
          'span',
          { class: 'row acts', role: 'group', 'aria-label': t('actGroup') },
          h('span', { text: t('actPrefix') }),
          ...this._actBtns,
        ),
      ),
    );

    // Output text and live region.
    this._outFull = h('p');
    this._outPart = h('p');
    add(h('div', { class: 'out' }, this._outFull, this._outPart));
    this._live = h('p', { class: 'live muted', 'aria-live': 'polite', role: 'status' });
    add(this._live);
    this._layoutPlanes();
  }

  // ---- plane layout -----------------------------------------------------------------------
  /** Text measurer of one svg: width of a string and the font's line box at a size (estimates when not rendered). */
  _measurer(svg) {
    const probe = svgEl('text', { x: 0, y: 0, visibility: 'hidden', 'aria-hidden': 'true' }, svg);
    const cache = new Map();
    const size = (text, font, bold) => {
      const key = `${font}|${bold ? 1 : 0}|${text}`;
      if (cache.has(key)) return cache.get(key);
      probe.setAttribute('font-size', font);
      probe.setAttribute('font-weight', bold ? '700' : '400');
      probe.textContent = text || 'M';
      let b = null;
      try {
        b = probe.getBBox();
      } catch {
        /* not rendered */
      }
      const chars = text ? Array.from(text).length : 0;
      const est = { w: chars * font * (bold ? 0.66 : 0.6), top: -0.92 * font, h: 1.2 * font };
      const out = b && b.height > 0 ? { w: text ? b.width : 0, top: b.y, h: b.height } : est;
      cache.set(key, out);
      return out;
    };
    return { size, done: () => probe.remove() };
  }

  /**
   * Place the marks and labels of one plane W px wide: the square [-lim, lim]^2 at u px per unit, each label
   * wrapped and put beside its mark so that none overlaps another label or a mark; u shrinks until the
   * drawing, labels included, fits in W (labels keep their size in px).
   */
  _layout(svg, W, lim, marks) {
    const m = this._measurer(svg);
    const maxW = Math.max(64, Math.min(150, 0.3 * W));
    const texts = marks.map((mk) => {
      const lines = wrapLines(mk.label, maxW, (s) => m.size(s, mk.font, mk.bold).w);
      const line = m.size(lines[0], mk.font, mk.bold);
      return { lines, w: Math.max(...lines.map((s) => m.size(s, mk.font, mk.bold).w)), lineH: line.h, top: line.top };
    });
    m.done();
    const attempt = (u) => {
      const pts = marks.map((mk) => [u * mk.pos[0], -u * mk.pos[1]]);
      const obstacles = marks.map((mk, i) => ({
        x: pts[i][0] - mk.r,
        y: pts[i][1] - mk.r,
        w: 2 * mk.r,
        h: 2 * mk.r,
        key: i,
      }));
      const items = marks.map((mk, i) => {
        const len = Math.hypot(mk.pos[0], mk.pos[1]);
        const d = len > 1e-9 ? [mk.pos[0] / len, -mk.pos[1] / len] : [1, 0];
        const t = texts[i];
        const h = t.lineH * t.lines.length;
        return { anchorKey: i, candidates: radialCandidates(pts[i], d, t.w, h, { gap: mk.r + 3, r0: mk.r + 1 }) };
      });
      const placed = placeLabels(items, { obstacles, pad: 2 });
      let x0 = -lim * u,
        x1 = lim * u,
        y0 = -lim * u,
        y1 = lim * u;
      for (const p of placed) {
        x0 = Math.min(x0, p.box.x - 2);
        x1 = Math.max(x1, p.box.x + p.box.w + 2);
        y0 = Math.min(y0, p.box.y - 2);
        y1 = Math.max(y1, p.box.y + p.box.h + 2);
      }
      return { u, pts, placed, x0, x1, y0, y1 };
    };
    const u0 = (W - 4) / (2 * lim);
    let best = attempt(u0);
    if (best.x1 - best.x0 > W) {
      // Shrink the plane until the labels fit (bisection; labels keep their size).
      let lo = u0 * 0.3,
        hi = u0;
      const atLo = attempt(lo);
      if (atLo.x1 - atLo.x0 > W) best = atLo;
      else {
        best = atLo;
        for (let it = 0; it < 10; it++) {
          const mid = (lo + hi) / 2;
          const a = attempt(mid);
          if (a.x1 - a.x0 <= W) {
            best = a;
            lo = mid;
          } else hi = mid;
        }
      }
    }
    // Centre the square horizontally when there is room; never cut a label.
    const spare = W - (best.x1 - best.x0);
    const cx = -best.x0 + Math.max(0, spare / 2);
    const cy = -best.y0;
    return {
      u: best.u,
      cx,
      cy,
      W: Math.max(W, best.x1 - best.x0),
      H: best.y1 - best.y0,
      labels: best.placed.map((p, i) => ({
        ...texts[i],
        box: { ...p.box, x: p.box.x + cx, y: p.box.y + cy },
        leader: p.leader && p.leader.map((q) => [q[0] + cx, q[1] + cy]),
        conflicts: p.conflicts,
      })),
    };
  }

  /** Draw a placed label: one text, one tspan per line, and its leader line when it has one. */
  _drawLabel(g, lab, font, cls) {
    if (lab.leader) {
      const [[x1, y1], [x2, y2]] = lab.leader;
      svgEl('line', { class: 'leader', x1, y1, x2, y2 }, g);
    }
    const text = svgEl('text', { class: cls, 'font-size': font, 'text-anchor': 'middle' }, g);
    lab.lines.forEach((line, j) => {
      const ts = svgEl('tspan', { x: lab.box.x + lab.box.w / 2, y: lab.box.y + j * lab.lineH - lab.top }, text);
      ts.textContent = line;
    });
    return text;
  }

  /** Empty a plane, lay it out (see _layout), size its viewBox and draw its axes; returns the layout. */
  _plane(svg, W, lim, marks) {
    svg.replaceChildren();
    const L = this._layout(svg, W, lim, marks);
    const X = (x) => L.cx + L.u * x,
      Y = (y) => L.cy - L.u * y;
    svg.setAttribute('viewBox', `0 0 ${L.W} ${L.H}`);
    svgEl('line', { class: 'axis', x1: X(-lim), y1: Y(0), x2: X(lim), y2: Y(0) }, svg);
    svgEl('line', { class: 'axis', x1: X(0), y1: Y(-lim), x2: X(0), y2: Y(lim) }, svg);
    return L;
  }

  _layoutPlanes() {
    const mem = this._mem;
    if (!mem || !this._inSvg) return;
    const W = Math.max(200, Math.round(this._inFig.clientWidth || 300));
    this._laidW = this._inFig.clientWidth;

    // Embedding plane.
    const inSvg = this._inSvg;
    const marks = mem.tokens.map((t) => ({
      pos: t.pos,
      r: t.kind === 'key' ? 7 : 5,
      label: t.name,
      font: FONT[t.kind],
      kind: t.kind,
    }));
    const L = this._plane(inSvg, W, LIM, marks);
    this._inMap = L;
    const X = (x) => L.cx + L.u * x,
      Y = (y) => L.cy - L.u * y;
    const poly = (pts) => pts.map((p) => `${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(' ');
    this._regions = mem.keyTokens.map((t, i) => {
      return svgEl('polygon', { class: 'region', points: poly(firingRegion(mem, i, LIM)) }, inSvg);
    });
    for (const t of mem.keyTokens) {
      svgEl('line', { class: 'keydir', x1: X(0), y1: Y(0), x2: X(t.pos[0] * 0.9), y2: Y(t.pos[1] * 0.9) }, inSvg);
    }
    mem.keyTokens.forEach((t, i) => {
      const onSquare = (p) => Math.abs(Math.abs(p[0]) - LIM) <= 1e-9 && Math.abs(Math.abs(p[1]) - LIM) <= 1e-9;
      const edge = firingRegion(mem, i, LIM).filter((p) => !onSquare(p));
      svgEl('polyline', { class: 'boundary', points: poly(edge) }, inSvg);
    });
    this._tokMarks = mem.tokens.map((t, j) => {
      const g = svgEl('g', { class: `tok ${t.kind}`, 'data-name': t.name }, inSvg);
      svgEl('circle', { cx: X(t.pos[0]), cy: Y(t.pos[1]), r: marks[j].r }, g);
      this._drawLabel(g, L.labels[j], marks[j].font, 'label');
      return g;
    });
    this._queryHalo = svgEl('circle', { class: 'query-halo', r: 13 }, inSvg);
    this._queryDot = svgEl('circle', { class: 'query', r: 7.5 }, inSvg);

    // Output plane.
    const outSvg = this._outSvg;
    const vmarks = mem.vocab.map((v) => ({
      pos: [v.dir[0] * 0.95 * OUT_LIM, v.dir[1] * 0.95 * OUT_LIM],
      r: 1,
      label: v.name,
      font: FONT.vocab,
      bold: true,
    }));
    const O = this._plane(outSvg, W, OUT_LIM, vmarks);
    this._outMap = O;
    const OX = (x) => O.cx + O.u * x,
      OY = (y) => O.cy - O.u * y;
    this._vocabMarks = mem.vocab.map((v, j) => {
      const g = svgEl('g', { class: 'vocab', 'data-name': v.name }, outSvg);
      svgEl('line', { x1: OX(0), y1: OY(0), x2: OX(vmarks[j].pos[0]), y2: OY(vmarks[j].pos[1]) }, g);
      this._drawLabel(g, O.labels[j], FONT.vocab, 'label');
      return g;
    });
    this._arrowPart = svgEl('line', { class: 'arrow-part' }, outSvg);
    this._headPart = svgEl('polygon', { class: 'head-part' }, outSvg);
    this._arrowFull = svgEl('line', { class: 'arrow-full' }, outSvg);
    this._headFull = svgEl('polygon', { class: 'head-full' }, outSvg);
    svgEl('circle', { cx: OX(0), cy: OY(0), r: 4, fill: 'currentColor' }, outSvg);
  }

  /** Plane coordinates of a pointer event on the embedding plane. */
  _svgPoint(e) {
    const L = this._inMap;
    if (!L) return null;
    const r = this._inSvg.getBoundingClientRect();
    if (!r.width) return null;
    const sx = ((e.clientX - r.left) * L.W) / r.width,
      sy = ((e.clientY - r.top) * L.H) / r.height;
    return [(sx - L.cx) / L.u, (L.cy - sy) / L.u];
  }

  _dragOn(el, onMove) {
    el.addEventListener('pointerdown', (e) => {
      if (e.button !== undefined && e.button !== 0) return;
      e.preventDefault();
      cancelAnimationFrame(this._anim);
      try {
        el.setPointerCapture?.(e.pointerId);
      } catch {
        /* synthetic or already released pointer */
      }
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
      case 'ArrowRight':
      case 'ArrowUp':
        v = cur + STEP * big;
        break;
      case 'ArrowLeft':
      case 'ArrowDown':
        v = cur - STEP * big;
        break;
      case 'PageUp':
        v = cur + STEP * 5;
        break;
      case 'PageDown':
        v = cur - STEP * 5;
        break;
      case 'Home':
        v = -QUERY_LIMIT;
        break;
      case 'End':
        v = QUERY_LIMIT;
        break;
      default:
        return;
    }
    e.preventDefault();
    v = Math.round(v / STEP) * STEP;
    if (axis === 'x') this._setQuery(v, this._state.y, true);
    else this._setQuery(this._state.x, v, true);
  }

  _moveTo(x, y, animate) {
    cancelAnimationFrame(this._anim);
    if (!animate || prefersReducedMotion()) {
      this._setQuery(x, y, true);
      return;
    }
    const x0 = this._state.x,
      y0 = this._state.y;
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
  /** The status line: what fires, what leaks, and what is written, from the same numbers as the vector shown. */
  _describe(r) {
    const mem = this._mem;
    const tr = this._tr;
    const t = (key, params) => this._t(key, params);
    const act = t(`act.${r.activation}`);
    const score = (d) => tr.fixed(d.score, 2);
    const vec = (v) => this._vec(v);
    const n = r.leaks.length;
    let s;
    if (r.fires.length) {
      s = r.fires
        .map((i, j) => t(j ? 'firesMore' : 'fires', { key: mem.facts[i].key, c: tr.small(r.coef[i], 2) }))
        .join(t('listSep'));
      s += r.decoded.token
        ? t('writesToken', { token: r.decoded.token, s: score(r.decoded) })
        : t('writesNoToken', { w: vec(r.written) });
      if (n) s += t('alsoLeak', { n, act });
    } else if (r.writes) {
      s = t('noneFires') + t('leaksWrite', { n, act, w: vec(r.written) });
      s += r.decoded.token ? t('leaksDecode', { token: r.decoded.token, s: score(r.decoded) }) : t('leaksTooWeak');
    } else if (n) {
      s = t('noneFires') + t('leaksCancel', { n, act });
    } else {
      s = t('noneFires') + t('nothingWritten');
    }
    return s + t('end');
  }

  /** A vector for display: 2 decimals, or exponent form when that would read (0.00, 0.00) but it is not zero. */
  _vec(v) {
    const tr = this._tr;
    const tiny = Math.max(Math.abs(v[0]), Math.abs(v[1])) < 0.005;
    const c = (x) => (tiny ? tr.small(x, 2) : tr.fixed(x, 2));
    return this._t('vec', { x: c(v[0]), y: c(v[1]) });
  }

  _render() {
    if (!this._mem || !this._rows) return;
    const tr = this._tr;
    const mem = this._mem;
    const s = this._state;
    const k = this._effectiveK();
    let r;
    try {
      r = compute(ffn, mem, { x: s.x, y: s.y, k, activation: s.activation });
    } catch (err) {
      this._problem('compute', err);
      return;
    }
    r.status = this._describe(r);
    this._result = r;
    const L = this._inMap,
      O = this._outMap;

    // Embedding plane.
    const qx = L.cx + L.u * s.x,
      qy = L.cy - L.u * s.y;
    for (const c of [this._queryDot, this._queryHalo]) {
      c.setAttribute('cx', qx.toFixed(1));
      c.setAttribute('cy', qy.toFixed(1));
    }
    this._regions.forEach((g, i) => g.classList.toggle('on', r.states[i] === 'fires'));
    mem.tokens.forEach((t, j) => {
      this._tokMarks[j].classList.toggle('on', t.kind === 'key' && r.states[mem.keyTokens.indexOf(t)] === 'fires');
    });

    // Sliders.
    for (const sl of this._sliders) {
      const v = sl.axis === 'x' ? s.x : s.y;
      sl.thumb.style.left = `${(100 * (v + QUERY_LIMIT)) / (2 * QUERY_LIMIT)}%`;
      sl.track.setAttribute('aria-valuenow', fmt(v, 2));
      sl.track.setAttribute('aria-valuetext', this._t('sliderText', { axis: sl.axis, value: tr.fixed(v, 2) }));
      sl.val.textContent = tr.fixed(v, 2);
    }

    // Output plane.
    drawArrow(O, this._arrowFull, this._headFull, r.written, 14);
    drawArrow(O, this._arrowPart, this._headPart, r.partial, 11);
    this._vocabMarks.forEach((g, j) => g.classList.toggle('on', r.decoded.token !== null && r.decoded.index === j));

    // Table.
    this._actHeader.textContent = this._t('colPhi', { act: this._t(`act.${r.activation}`) });
    r.coef.forEach((c, i) => {
      const row = this._rows[i];
      row.match.textContent = tr.fixed(r.match[i], 2);
      row.value.textContent = tr.small(c, 3);
      const w = Math.max(BAR_MIN, Math.min(BAR_MAX, c)) / (BAR_MAX - BAR_MIN);
      row.fill.style.left = `${100 * (w >= 0 ? BAR_ZERO : BAR_ZERO + w)}%`;
      row.fill.style.width = `${100 * Math.abs(w)}%`;
      row.tr.className = r.states[i];
      row.tr.classList.toggle('ranked', r.rank[i] > 0);
      row.tr.dataset.coef = String(c);
      row.status.textContent = this._t(`state.${r.states[i]}`);
      row.intop.textContent = r.rank[i] ? this._t('rank', { n: r.rank[i] }) : this._t('unranked');
    });
    const N = mem.dff;
    this._rows.forEach((row, i) => {
      const [kx, ky, b] = [mem.W1.data[i], mem.W1.data[N + i], mem.b1.data[i]].map((v) => tr.fixed(v, 2));
      row.keyLine.textContent = this._t('keyLine', { kx, ky, b });
    });

    // Controls.
    const t = this._effectiveThreshold();
    this._kInput.value = String(k);
    this._kVal.textContent = tr.int(k);
    this._tInput.value = String(t);
    this._tVal.textContent = tr.fixed(t, 2);
    for (const b of this._actBtns) b.setAttribute('aria-pressed', String(b.dataset.activation === r.activation));

    const near = nearestToken(mem, s.x, s.y);
    const m = (key, params) => this._t(key, params);
    const q = m('vec', { x: tr.fixed(s.x, 2), y: tr.fixed(s.y, 2) });
    this._outFull.replaceChildren(
      m('outFull', { near: near ? m('near', { token: near.name }) : '', q, w: this._vec(r.written) }),
      h('span', { class: 'decoded', text: r.decoded.token ?? m('nothing') }),
      m(r.decoded.token ? 'score' : 'bestScore', { s: tr.fixed(r.decoded.score, 2) }),
    );
    this._outFull.dataset.decoded = r.decoded.token ?? '';
    const pd = r.partialDecoded;
    this._outPart.textContent = m('outPart', {
      k,
      v: this._vec(r.partial),
      token: pd.token ?? m('nothing'),
      score: pd.token ? m('score', { s: tr.fixed(pd.score, 2) }) : '',
    });
    this._outPart.dataset.partial = `${r.partial[0]},${r.partial[1]}`;

    this._announce(r.status);
    this.dispatchEvent(new CustomEvent('ffn-change', { detail: r }));
  }
}

/** Draw vector v (plane units) as an arrow on the output plane laid out as O; head size in px. */
function drawArrow(O, line, head, v, size) {
  let x = v[0],
    y = v[1];
  const len = Math.hypot(x, y);
  const maxLen = OUT_LIM * 0.92;
  if (len * O.u < 1) {
    line.setAttribute('visibility', 'hidden');
    head.setAttribute('visibility', 'hidden');
    return;
  }
  if (len > maxLen) {
    x *= maxLen / len;
    y *= maxLen / len;
  }
  const X = (a) => O.cx + O.u * a,
    Y = (b) => O.cy - O.u * b;
  const px = X(x),
    py = Y(y),
    ox = X(0),
    oy = Y(0);
  const l = Math.hypot(px - ox, py - oy);
  const ux = (px - ox) / l,
    uy = (py - oy) / l;
  const hs = Math.min(size, l * 0.6);
  const bx = px - ux * hs,
    by = py - uy * hs;
  line.setAttribute('visibility', 'visible');
  head.setAttribute('visibility', 'visible');
  line.setAttribute('x1', ox);
  line.setAttribute('y1', oy);
  line.setAttribute('x2', bx);
  line.setAttribute('y2', by);
  const nx = -uy * hs * 0.6,
    ny = ux * hs * 0.6;
  head.setAttribute('points', `${px},${py} ${bx + nx},${by + ny} ${bx - nx},${by - ny}`);
}

define('ffn-memory-widget', FfnMemoryWidget);
