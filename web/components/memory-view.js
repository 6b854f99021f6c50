// The memory widget's view: builds its DOM and draws a state and its evaluation into it (no input handling: see
// memory-controls.js; no math: see memory-model.js).
import { htmlEl as h, svgEl } from '../element-base.js';
import { fmt } from './styles.js';
import { ACTIVATIONS, QUERY_LIMIT, THRESHOLD_MIN, THRESHOLD_MAX, nearestToken } from './memory-model.js';
import { drawInPlane, drawOutPlane, drawArrow } from './memory-planes.js';

const BAR_MIN = -0.5,
  BAR_MAX = 4; // activation bar range
const BAR_ZERO = -BAR_MIN / (BAR_MAX - BAR_MIN); // where 0 sits on a bar, as a fraction of its width

export const memoryCss = `
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

/**
 * The widget's DOM in its shadow root. host gives the text (host._t, host._tr); build(mem) makes the DOM anew
 * (its controls are wired by memory-controls.js), layout() lays the planes out for their width, draw() shows a state.
 */
export class MemoryView {
  constructor(host, root) {
    this.host = host;
    this.root = root;
  }

  /** Text of a key of the widget's namespace, in its language. */
  t(key, params) {
    return this.host._t(key, params);
  }

  /**
   * Make the DOM for the memory mem (before the problems alert, if one is shown), its planes laid out unless
   * `planes` is false (then layout() draws them).
   */
  build(mem, { planes = true } = {}) {
    this.mem = mem;
    for (const n of [...this.root.childNodes]) {
      if (n.nodeName !== 'STYLE' && !n.classList?.contains('error')) n.remove();
    }
    const error = this.root.querySelector('.error');
    const add = (...nodes) => (error ? error.before(...nodes) : this.root.append(...nodes));
    add(h('p', { class: 'title', text: this.t('title') }));
    add(this._buildPlanes());
    add(this._buildTokens());
    add(...this._buildTable());
    add(this._buildControls());
    this.outFull = h('p');
    this.outPart = h('p');
    add(h('div', { class: 'out' }, this.outFull, this.outPart));
    this.live = h('p', { class: 'live muted', 'aria-live': 'polite', role: 'status' });
    add(this.live);
    if (planes) this.layout();
  }

  /** The two planes, and under the embedding plane the two sliders (keyboard and pointer on each axis). */
  _buildPlanes() {
    const t = (key, params) => this.t(key, params);
    this.inSvg = svgEl('svg', { class: 'plane in', role: 'img', 'aria-label': t('inPlane') });
    this.outSvg = svgEl('svg', { class: 'plane out', role: 'img', 'aria-label': t('outPlane') });
    this.sliders = ['x', 'y'].map((axis) => {
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
      return { axis, track, thumb, val: h('span', { class: 'num' }) };
    });
    this.inFig = h('figure', {}, h('figcaption', { text: t('inCaption') }), this.inSvg);
    const outFig = h('figure', {}, h('figcaption', { text: t('outCaption') }), this.outSvg);
    const sliderBox = h('div', { class: 'sliders' });
    for (const s of this.sliders) {
      sliderBox.append(h('span', { text: t('sliderName', { axis: s.axis }), 'aria-hidden': 'true' }), s.track, s.val);
    }
    this.inFig.append(sliderBox);
    this.planesBox = h('div', { class: 'planes' }, this.inFig, outFig);
    return this.planesBox;
  }

  /** One button per token: the keys, then the filler words. */
  _buildTokens() {
    const btn = (tok) => h('button', { type: 'button', text: tok.name, 'data-token': tok.name });
    const keyBtns = this.mem.tokens.filter((tok) => tok.kind === 'key').map(btn);
    const disBtns = this.mem.tokens.filter((tok) => tok.kind !== 'key').map(btn);
    this.tokenBtns = [...keyBtns, ...disBtns];
    return h(
      'div',
      { class: 'tokens row', role: 'group', 'aria-label': this.t('tokens') },
      h('span', { class: 'kind', text: this.t('queryToken') }),
      ...keyBtns,
      ...(disBtns.length ? [h('span', { class: 'kind', text: this.t('orFiller') }), ...disBtns] : []),
    );
  }

  /** The memory table (explicit roles: the narrow layout changes its display) and the note under it. */
  _buildTable() {
    const t = (key, params) => this.t(key, params);
    const tbody = h('tbody', { role: 'rowgroup' });
    this.rows = this.mem.facts.map((f) => {
      const row = this._buildRow();
      const head = h('th', { scope: 'row', role: 'rowheader' }, t('fact', { key: f.key, value: f.value }), row.keyLine);
      const bar = h('td', { class: 'barcell', role: 'cell' }, row.bar);
      const state = h('td', { class: 'statecell', role: 'cell' }, row.status);
      row.tr = h('tr', { role: 'row' }, head, row.match, bar, row.value, state, row.intop);
      tbody.append(row.tr);
      return row;
    });
    const col = (text) => h('th', { role: 'columnheader', scope: 'col', text });
    const heads = ['colMemory', 'colMatch', 'colBar', null, 'colState', 'colTop'].map((k) => col(k ? t(k) : ''));
    this.actHeader = heads[3];
    const thead = h('thead', { role: 'rowgroup' }, h('tr', { role: 'row' }, ...heads));
    const caption = h('caption', { class: 'sr-only', text: t('tableCaption') });
    return [
      h('div', { class: 'tablewrap' }, h('table', { role: 'table' }, caption, thead, tbody)),
      h('p', { class: 'topnote muted', text: t('topNote') }),
    ];
  }

  /** The cells of one memory's row that draw() fills. */
  _buildRow() {
    const t = (key) => this.t(key);
    const fill = h('div', { class: 'fill' });
    const zero = h('div', { class: 'zero' });
    zero.style.left = `${100 * BAR_ZERO}%`;
    return {
      fill,
      bar: h('div', { class: 'bar', 'aria-hidden': 'true' }, fill, zero),
      match: h('td', { class: 'num match', role: 'cell', 'data-label': t('cellMatch') }),
      value: h('td', { class: 'num phi', role: 'cell', 'data-label': t('cellPhi') }),
      status: h('span', { class: 'status' }),
      intop: h('td', { class: 'intop', role: 'cell', 'data-label': t('cellTop') }),
      keyLine: h('span', { class: 'keyvec' }),
    };
  }

  /** The top-k and threshold sliders and the activation buttons. */
  _buildControls() {
    const t = (key, params) => this.t(key, params);
    const range = (min, max, step, label) => h('input', { type: 'range', min, max, step, 'aria-label': label });
    this.kInput = range('0', String(this.mem.dff), '1', t('kAria'));
    this.kVal = h('span', { class: 'num' });
    this.tInput = range(String(THRESHOLD_MIN), String(THRESHOLD_MAX), '0.05', t('tAria'));
    this.tVal = h('span', { class: 'num' });
    this.actBtns = ACTIVATIONS.map((a) => h('button', { type: 'button', text: t(`act.${a}`), 'data-activation': a }));
    const acts = h('span', { class: 'row acts', role: 'group', 'aria-label': t('actGroup') });
    acts.append(h('span', { text: t('actPrefix') }), ...this.actBtns);
    return h(
      'div',
      { class: 'controls row' },
      h('label', {}, t('kLabel'), this.kInput, this.kVal),
      h('label', {}, t('tLabel'), this.tInput, this.tVal),
      acts,
    );
  }

  /** Lay both planes out for the embedding plane's width (labels keep their real size). */
  layout() {
    this.layoutSteps().forEach((step) => step());
  }

  /**
   * layout() in steps of a few ms each, for a first drawing in tasks of their own: the width read (the first layout
   * of the DOM when no frame has come since build), the embedding plane, the output plane.
   */
  layoutSteps() {
    if (!this.mem || !this.inSvg) return [];
    const W = () => Math.max(200, Math.round(this.laidW || 300));
    return [
      () => (this.laidW = this.inFig.clientWidth),
      () => (this.inPlane = drawInPlane(this.inSvg, this.mem, W())),
      () => (this.outPlane = drawOutPlane(this.outSvg, this.mem, W())),
    ];
  }

  /**
   * Draw the state s ({ x, y, activation }) with k and threshold t in use and r, its evaluation (compute's result
   * with the status line).
   */
  draw(s, k, t, r) {
    this._drawInPlane(s, r);
    this._drawSliders(s);
    const O = this.outPlane;
    drawArrow(O.map, O.arrowFull, O.headFull, r.written, 14);
    drawArrow(O.map, O.arrowPart, O.headPart, r.partial, 11);
    O.vocabMarks.forEach((g, j) => g.classList.toggle('on', r.decoded.token !== null && r.decoded.index === j));
    this._drawTable(r);
    this._drawControls(k, t, r);
    this._drawOutput(s, k, r);
  }

  _drawInPlane(s, r) {
    const { map: L, regions, tokMarks, queryDot, queryHalo } = this.inPlane;
    const mem = this.mem;
    for (const c of [queryDot, queryHalo]) {
      c.setAttribute('cx', L.X(s.x).toFixed(1));
      c.setAttribute('cy', L.Y(s.y).toFixed(1));
      c.removeAttribute('visibility');
    }
    regions.forEach((g, i) => g.classList.toggle('on', r.states[i] === 'fires'));
    mem.tokens.forEach((tok, j) => {
      tokMarks[j].classList.toggle('on', tok.kind === 'key' && r.states[mem.keyTokens.indexOf(tok)] === 'fires');
    });
  }

  _drawSliders(s) {
    const tr = this.host._tr;
    for (const sl of this.sliders) {
      const v = sl.axis === 'x' ? s.x : s.y;
      sl.thumb.style.left = `${(100 * (v + QUERY_LIMIT)) / (2 * QUERY_LIMIT)}%`;
      sl.track.setAttribute('aria-valuenow', fmt(v, 2));
      sl.track.setAttribute('aria-valuetext', this.t('sliderText', { axis: sl.axis, value: tr.fixed(v, 2) }));
      sl.val.textContent = tr.fixed(v, 2);
    }
  }

  _drawTable(r) {
    const tr = this.host._tr;
    const mem = this.mem;
    this.actHeader.textContent = this.t('colPhi', { act: this.t(`act.${r.activation}`) });
    r.coef.forEach((c, i) => {
      const row = this.rows[i];
      row.match.textContent = tr.fixed(r.match[i], 2);
      row.value.textContent = tr.small(c, 3);
      const w = Math.max(BAR_MIN, Math.min(BAR_MAX, c)) / (BAR_MAX - BAR_MIN);
      row.fill.style.left = `${100 * (w >= 0 ? BAR_ZERO : BAR_ZERO + w)}%`;
      row.fill.style.width = `${100 * Math.abs(w)}%`;
      row.tr.className = r.states[i];
      row.tr.classList.toggle('ranked', r.rank[i] > 0);
      row.tr.dataset.coef = String(c);
      row.status.textContent = this.t(`state.${r.states[i]}`);
      row.intop.textContent = r.rank[i] ? this.t('rank', { n: r.rank[i] }) : this.t('unranked');
    });
    const N = mem.dff;
    this.rows.forEach((row, i) => {
      const [kx, ky, b] = [mem.W1.data[i], mem.W1.data[N + i], mem.b1.data[i]].map((v) => tr.fixed(v, 2));
      row.keyLine.textContent = this.t('keyLine', { kx, ky, b });
    });
  }

  _drawControls(k, t, r) {
    const tr = this.host._tr;
    this.kInput.value = String(k);
    this.kVal.textContent = tr.int(k);
    this.tInput.value = String(t);
    this.tVal.textContent = tr.fixed(t, 2);
    for (const b of this.actBtns) b.setAttribute('aria-pressed', String(b.dataset.activation === r.activation));
  }

  /** The two output lines: what the full sum writes and decodes to, and the top-k partial sum. */
  _drawOutput(s, k, r) {
    const tr = this.host._tr;
    const m = (key, params) => this.t(key, params);
    const near = nearestToken(this.mem, s.x, s.y);
    const q = m('vec', { x: tr.fixed(s.x, 2), y: tr.fixed(s.y, 2) });
    this.outFull.replaceChildren(
      m('outFull', { near: near ? m('near', { token: near.name }) : '', q, w: this.vec(r.written) }),
      h('span', { class: 'decoded', text: r.decoded.token ?? m('nothing') }),
      m(r.decoded.token ? 'score' : 'bestScore', { s: tr.fixed(r.decoded.score, 2) }),
    );
    this.outFull.dataset.decoded = r.decoded.token ?? '';
    const pd = r.partialDecoded;
    this.outPart.textContent = m('outPart', {
      k,
      v: this.vec(r.partial),
      token: pd.token ?? m('nothing'),
      score: pd.token ? m('score', { s: tr.fixed(pd.score, 2) }) : '',
    });
    this.outPart.dataset.partial = `${r.partial[0]},${r.partial[1]}`;
  }

  /** The status line: what fires, what leaks, and what is written, from the same numbers as the vector shown. */
  describe(r) {
    const tr = this.host._tr;
    const t = (key, params) => this.t(key, params);
    const act = t(`act.${r.activation}`);
    const score = (d) => tr.fixed(d.score, 2);
    const n = r.leaks.length;
    let s;
    if (r.fires.length) {
      s = r.fires
        .map((i, j) => t(j ? 'firesMore' : 'fires', { key: this.mem.facts[i].key, c: tr.small(r.coef[i], 2) }))
        .join(t('listSep'));
      s += r.decoded.token
        ? t('writesToken', { token: r.decoded.token, s: score(r.decoded) })
        : t('writesNoToken', { w: this.vec(r.written) });
      if (n) s += t('alsoLeak', { n, act });
    } else if (r.writes) {
      s = t('noneFires') + t('leaksWrite', { n, act, w: this.vec(r.written) });
      s += r.decoded.token ? t('leaksDecode', { token: r.decoded.token, s: score(r.decoded) }) : t('leaksTooWeak');
    } else if (n) {
      s = t('noneFires') + t('leaksCancel', { n, act });
    } else {
      s = t('noneFires') + t('nothingWritten');
    }
    return s + t('end');
  }

  /** A vector for display: 2 decimals, or exponent form when that would read (0.00, 0.00) but it is not zero. */
  vec(v) {
    const tr = this.host._tr;
    const tiny = Math.max(Math.abs(v[0]), Math.abs(v[1])) < 0.005;
    const c = (x) => (tiny ? tr.small(x, 2) : tr.fixed(x, 2));
    return this.t('vec', { x: c(v[0]), y: c(v[1]) });
  }
}
