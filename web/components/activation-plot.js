// <ffn-activation-plot>: the section's activations, their derivatives and the GELU approximation errors, with a readout
// (view only; math in activation-model.js).
// the wasm bytes inlined: nothing for a bundler or server to place; only what the plot uses, so that a bundler
// leaves the rest of the API (the trainer) out of a page that only plots
import { ready, relu, relu2, gelu, geluTanh, geluSigmoid, silu, activationGrad } from '../index.js';
import { FfnElement, define, htmlEl as h, svgEl, parsedBy, chainSteps } from '../element-base.js';
import { componentCss, rafThrottle, trailingThrottle, fmt, setProblem } from './styles.js';
import {
  CURVES,
  CURVE_IDS,
  SAMPLES,
  grid,
  sample,
  geluErrorsOf,
  errorPeaks,
  findMinimum,
  readout,
  parseAttribute,
  niceTicks,
} from './activation-model.js';
import { placeLabels, pointObstacles, polylineObstacles } from './label-layout.js';

// the functions of the API this element calls, handed to its model
const ffn = Object.freeze({ ready, relu, relu2, gelu, geluTanh, geluSigmoid, silu, activationGrad });

// Every string the plot shows is in the locale tables (web/i18n/en.js, namespace `plot`).

const css = `
.legend { margin-bottom: 6px; }
.legend button { display: inline-flex; align-items: center; gap: 6px; font-size: 0.9em; padding: 2px 8px; }
.legend button[aria-pressed="true"] { background: var(--_surface); color: var(--_fg); border-color: var(--_fg); }
.legend button[aria-pressed="false"] { opacity: 0.75; text-decoration: line-through; }
.legend svg { width: 28px; height: 10px; }
.plotbox { position: relative; border-radius: 6px; }
.plotbox:focus-visible { outline: 3px solid var(--_focus); outline-offset: 2px; }
svg.plot { display: block; width: 100%; touch-action: pan-y; }
.frame { fill: var(--_surface); }
.gridline { stroke: var(--_grid); stroke-width: 1; }
.zeroline { stroke: var(--_muted); stroke-width: 1; }
.tick { font-size: 11px; fill: var(--_muted); }
.ptitle { font-size: 12.5px; font-weight: 600; }
.curve { fill: none; stroke-width: 2.2; stroke-linejoin: round; }
.cursor { stroke: var(--_fg); stroke-width: 1.2; stroke-dasharray: 4 3; }
.dot { stroke: var(--_bg); stroke-width: 1.5; }
.note { font-size: 11.5px; paint-order: stroke; stroke: var(--_surface); stroke-width: 4px; stroke-linejoin: round; }
.leader { stroke: var(--_fg); stroke-width: 1; }
.mark { fill: var(--_fg); }
.c-relu { --c: #4b4b55; } .c-relu2 { --c: #8a5a00; } .c-gelu { --c: #1d5fc4; }
.c-gelu_tanh { --c: #0f7565; } .c-gelu_sigmoid { --c: #b33f00; } .c-silu { --c: #a0278f; }
.err-tanh { --c: #0f7565; } .err-sigmoid { --c: #b33f00; }
@media (prefers-color-scheme: dark) {
  :host(:not([theme="light"])) .c-relu { --c: #c4c4cc; } :host(:not([theme="light"])) .c-relu2 { --c: #e2b65a; }
  :host(:not([theme="light"])) .c-gelu { --c: #7db3ff; }
  :host(:not([theme="light"])) .c-gelu_tanh, :host(:not([theme="light"])) .err-tanh { --c: #4fd1b8; }
  :host(:not([theme="light"])) .c-gelu_sigmoid, :host(:not([theme="light"])) .err-sigmoid { --c: #ffa05c; }
  :host(:not([theme="light"])) .c-silu { --c: #f08ae0; }
}
:host([theme="dark"]) .c-relu { --c: #c4c4cc; } :host([theme="dark"]) .c-relu2 { --c: #e2b65a; }
:host([theme="dark"]) .c-gelu { --c: #7db3ff; }
:host([theme="dark"]) .c-gelu_tanh, :host([theme="dark"]) .err-tanh { --c: #4fd1b8; }
:host([theme="dark"]) .c-gelu_sigmoid, :host([theme="dark"]) .err-sigmoid { --c: #ffa05c; }
:host([theme="dark"]) .c-silu { --c: #f08ae0; }
.curve, .legend line { stroke: var(--c); }
.dot { fill: var(--c); }
.swatch { stroke-width: 3; }
.dash-gelu_tanh { stroke-dasharray: 7 4; } .dash-gelu_sigmoid { stroke-dasharray: 2 3; }
.dash-relu2 { stroke-dasharray: 10 3 2 3; }
.err-sigmoid.curve { stroke-dasharray: 2 3; } .err-tanh.curve { stroke-dasharray: 7 4; }
table { border-collapse: collapse; margin-top: 8px; font-size: 0.9em; width: 100%; }
th, td { padding: 3px 6px; border-bottom: 1px solid var(--_grid); text-align: left; }
td.num { text-align: right; }
th { color: var(--_muted); font-weight: 600; }
.readx { font-weight: 650; }
.hint { font-size: 0.85em; margin: 4px 0 0; }
p.num { font-size: 0.85em; overflow-wrap: normal; word-break: keep-all; }
`;

const PANEL_H = 190;
const M = { l: 44, r: 10, t: 20, b: 22 };

/** A table entry (FfnElement.properties) whose attribute the model's parser reads. */
const parsed = parsedBy(parseAttribute);
/** A list given to a property as its attribute's text: an array joined by commas, anything else as text. */
const listText = (v) => (v === null || v === undefined ? null : Array.isArray(v) ? v.join(',') : String(v));

let peaks = null; // the error peaks (from the kernels): the same for every plot of the page
let annotations = null; // with the minima

/** The error peaks: they do not depend on the plotted range, so they are found once a page. */
const pagePeaks = () => (peaks ??= errorPeaks(ffn));

/** The minima and error peaks (as pagePeaks, once a page). */
const pageAnnotations = () =>
  (annotations ??= {
    gelu: findMinimum(ffn, 'gelu'),
    silu: findMinimum(ffn, 'silu'),
    peaks: pagePeaks(),
  });

export class FfnActivationPlot extends FfnElement {
  /** Attributes and properties (see FfnElement.properties): x (the readout, clamped to the range), range, curves. */
  static get properties() {
    return {
      ...super.properties,
      x: parsed('x', { get: (el) => el._x }),
      range: parsed('range', { toText: listText, get: (el) => [...el._range] }),
      curves: parsed('curves', { toText: listText, get: (el) => [...el._visible] }),
    };
  }

  constructor() {
    super();
    this._x = -0.752;
    this._range = [-4, 4];
    this._visible = new Set(CURVE_IDS);
    this._problems = new Map();
    this._root = this._attachStyledShadow(componentCss(css));
    this._scheduleCursor = rafThrottle(() => this._drawCursor());
    this._announce = trailingThrottle((t) => {
      if (this._live) this._live.textContent = t;
    }, 800);
  }

  connectedCallback() {
    super.connectedCallback();
    this._retranslate();
    if (this._ready) {
      this._followWidth();
      return;
    }
    this._load(() => ffn.ready(), {
      loading: () => this._t('loading'),
      // the first drawing, one step a task: the page's error peaks, then its minima (the first plot's cost), the
      // curves sampled and the page's part built, then the plot (_firstPlot)
      ready: () => {
        pagePeaks();
        return () => {
          pageAnnotations();
          return () => {
            this._computeStatic();
            this._build();
            return () => this._firstPlot();
          };
        };
      },
      failed: (err) => this._problem('load', err),
    });
  }

  /** The plot's keys in the locale table are plot.* (see _t). */
  static get textPrefix() {
    return 'plot.';
  }

  /** The language or its table changed: everything is drawn again in it. */
  _relocalize() {
    this._retranslate();
    this._problem(null, null);
    // built (the first drawing may be between its steps): built anew, and drawn anew if it was drawn
    if (this._box) {
      this._build();
      if (this._P) this._redraw();
    } else this._relocalizeLoading();
  }

  /** Redraw whenever the box is not as wide as the drawing (text stays at its real size); not before it is drawn. */
  _followWidth() {
    this._observeSize(
      this._box,
      rafThrottle(() => {
        const w = this._P && this._box.clientWidth;
        if (w && Math.max(260, w) !== this._drawnW) this._redraw();
      }),
    );
  }

  /** An attribute was written (see FfnElement.properties): take it, and draw once the kernels are here. */
  _apply(name, v) {
    if (v !== null) {
      if (name === 'x') this._xWanted = v;
      else if (name === 'range') this._range = v;
      else this._visible = new Set(v);
    }
    // The x asked for, clamped to the range in use (again when the range changes).
    this._x = Math.max(this._range[0], Math.min(this._range[1], this._xWanted ?? this._x));
    if (!this._xs) return; // not sampled yet: the first drawing takes the state as it is then
    if (name === 'range') this._computeStatic();
    else if (name === 'curves') this._syncLegend();
    if (!this._P) return; // not drawn yet (a step of the first drawing): its next step draws it
    if (name === 'x') this._scheduleCursor();
    else this._redraw();
  }

  /** The last readout (kernel values at x), or null before the wasm is ready. */
  get readout() {
    return this._readout ?? null;
  }
  /** Minima of GELU and SiLU and the peaks of the two GELU approximation errors, found with the kernels. */
  get annotations() {
    return this._ann ?? null;
  }

  /** Record (or with err null, clear) the problem of one source and show them all. */
  _problem(source, err) {
    setProblem(this._root, 'ffn-activation-plot', this._problems, source, err, this._tr);
  }

  /** Write the readout's x and the curves shown back into the attributes (after the reader changed them). */
  _reflect() {
    this._reflectAttributes({ x: fmt(this._x, this._decimals()), curves: [...this._visible].join(',') });
    this._problem('x', null);
    this._problem('curves', null);
  }

  /** Decimals that resolve one keyboard step. */
  _decimals() {
    return Math.max(3, -Math.floor(Math.log10(this._step())));
  }

  /** The keyboard step: a nice 1/800 of the range (0.01 on the default [-4, 4]). */
  _step() {
    return niceTicks(0, (this._range[1] - this._range[0]) / 8, 100).step;
  }

  _computeStatic() {
    const [lo, hi] = this._range;
    this._xs = grid(lo, hi, SAMPLES);
    this._curves = sample(ffn, this._xs);
    const c = this._curves; // the GELU errors from the sampled values (the three kernels ran once, in sample)
    this._errs = geluErrorsOf(c.gelu.y, c.gelu_tanh.y, c.gelu_sigmoid.y);
    this._ann = pageAnnotations();
  }

  _build() {
    for (const n of [...this._root.childNodes]) {
      if (n.nodeName !== 'STYLE' && !n.classList?.contains('error')) n.remove();
    }
    const root = this._root;
    const error = root.querySelector('.error');
    const add = (...nodes) => (error ? error.before(...nodes) : root.append(...nodes));
    const t = (key, params) => this._t(key, params);
    const tr = this._tr;
    add(h('p', { class: 'title', text: t('title') }));
    add(this._buildLegend());
    this._syncLegend();
    const box = h('div', { class: 'plotbox' });
    box.tabIndex = 0;
    box.setAttribute('role', 'slider');
    box.setAttribute('aria-label', t('slider'));
    box.addEventListener('keydown', (e) => this._onKey(e));
    box.addEventListener('pointermove', (e) => this._onPointer(e));
    box.addEventListener('pointerdown', (e) => this._onPointer(e));
    this._box = box;
    add(box);
    if (this.isConnected) this._followWidth(); // a new box: the size observer moves to it
    add(h('p', { class: 'hint muted', text: t('hint') }));
    this._readX = h('p', { class: 'readx' });
    add(this._readX, this._buildTable());
    this._errLine = h('p', { class: 'muted num' });
    const pk = this._ann.peaks;
    const peaks = t('peaks', {
      tErr: tr.exp(pk.tanh.err, 2),
      tX: tr.fixed(pk.tanh.x, 2),
      sErr: tr.exp(pk.sigmoid.err, 2),
      sX: tr.fixed(pk.sigmoid.x, 2),
    });
    this._peakLine = h('p', { class: 'muted num', 'data-peaks': '', text: peaks });
    add(this._errLine, this._peakLine);
    this._live = h('p', { class: 'sr-only' });
    this._live.setAttribute('aria-live', 'polite');
    add(this._live);
  }

  /** The legend: one toggle button per curve (the reader's choice is written back into curves). */
  _buildLegend() {
    const t = (key, params) => this._t(key, params);
    const legend = h('div', { class: 'legend row' });
    legend.setAttribute('role', 'group');
    legend.setAttribute('aria-label', t('legend'));
    this._legendBtns = CURVES.map((c) => {
      const b = h('button', { class: `c-${c.id}` });
      b.type = 'button';
      const sw = svgEl('svg', { viewBox: '0 0 28 10', 'aria-hidden': 'true' }, b);
      svgEl('line', { x1: 1, y1: 5, x2: 27, y2: 5, class: `swatch dash-${c.id}` }, sw);
      b.append(t(`curves.${c.id}`));
      b.dataset.curve = c.id;
      b.addEventListener('click', () => {
        if (this._visible.has(c.id)) this._visible.delete(c.id);
        else this._visible.add(c.id);
        this._syncLegend();
        this._reflect();
        this._redraw();
      });
      legend.append(b);
      return b;
    });
    return legend;
  }

  /** The readout table: a row per curve, its value and slope at x (filled by _drawCursor). */
  _buildTable() {
    const t = (key, params) => this._t(key, params);
    const table = h('table');
    const caption = h('caption', { class: 'sr-only', text: t('tableCaption') });
    const head = h('tr');
    for (const text of [t('colActivation'), t('colValue'), t('colSlope')]) {
      const th = h('th', { text });
      th.scope = 'col';
      head.append(th);
    }
    const thead = h('thead');
    thead.append(head);
    table.append(caption, thead, h('tbody'));
    this._rows = CURVES.map((c) => {
      const tr = h('tr', { class: `c-${c.id}` });
      tr.dataset.curve = c.id;
      const th = h('th', { text: t(`curves.${c.id}`) });
      th.scope = 'row';
      const y = h('td', { class: 'num' });
      const dy = h('td', { class: 'num' });
      tr.append(th, y, dy);
      table.tBodies[0].append(tr);
      return { id: c.id, y, dy };
    });
    return table;
  }

  _syncLegend() {
    for (const b of this._legendBtns ?? []) b.setAttribute('aria-pressed', String(this._visible.has(b.dataset.curve)));
  }

  _panels(W) {
    const [lo, hi] = this._range;
    const sx = (x) => M.l + ((x - lo) / (hi - lo)) * (W - M.l - M.r);
    const mk = (i, ylo, yhi, log = false) => {
      const top = i * PANEL_H;
      const f = log ? (v) => Math.log10(Math.max(v, 10 ** ylo)) : (v) => v;
      const clamp = (v) => Math.max(ylo, Math.min(yhi, f(v)));
      const sy = (v) => top + M.t + (1 - (clamp(v) - ylo) / (yhi - ylo)) * (PANEL_H - M.t - M.b);
      const frame = { x: M.l, y: top + M.t, w: W - M.l - M.r, h: PANEL_H - M.t - M.b };
      return { top, ylo, yhi, sy, log, frame };
    };
    return { sx, lo, hi, p: [mk(0, -0.6, 3), mk(1, -0.4, 1.4), mk(2, -7, -1, true)] };
  }

  /** x ticks for a plot w px wide: as many as their labels leave room for (at most 10). */
  _ticks(w) {
    const [lo, hi] = this._range;
    let n = 10,
      t;
    for (;;) {
      t = niceTicks(lo, hi, n);
      const chars = Math.max(...t.values.map((v) => v.toFixed(t.decimals).length));
      if (n <= 2 || (t.values.length - 1) * (chars * 6.6 + 10) <= w) return t;
      n--;
    }
  }

  /** Draw the plot anew for its width, notes and all (the first drawing draws it in steps: _firstPlot). */
  _redraw() {
    if (!this._box) return;
    const svg = this._newPlot();
    this._drawCurves(svg);
    this._box.prepend(svg); // drawn apart, put in at once (the notes are measured in place)
    this._drawNotes(svg, this._P);
    this._drawMarks(svg);
  }

  /**
   * The first drawing's plot in steps (a step of _load's ready): its frames and grid, then its curves, cursor and
   * dots, then its notes (_addNotes); the rest is left once the plot was drawn anew (whole) in between.
   */
  _firstPlot() {
    const svg = this._newPlot();
    this._box.prepend(svg);
    return () => {
      if (this._box.querySelector('svg.plot') !== svg) return undefined;
      this._drawCurves(svg);
      this._drawMarks(svg);
      return () => this._addNotes();
    };
  }

  /** A new plot for the box's width (in place of the one there): its frames, titles, grid and ticks, apart. */
  _newPlot() {
    const W = Math.max(260, this._box.clientWidth || 600);
    this._drawnW = W;
    const H = PANEL_H * 3;
    this._box.querySelector('svg')?.remove();
    this._box.setAttribute('aria-valuemin', String(this._range[0]));
    this._box.setAttribute('aria-valuemax', String(this._range[1]));
    const svg = svgEl('svg', {
      class: 'plot',
      viewBox: `0 0 ${W} ${H}`,
      width: W,
      height: H,
      role: 'img',
      'aria-label': this._t('plot'),
    });
    this._P = this._panels(W);
    this._drawGrid(svg, this._P, W);
    return svg;
  }

  /** The curves shown, and the two GELU errors, clipped to their panels. */
  _drawCurves(svg) {
    const P = this._P;
    const clip = svgEl('clipPath', { id: 'clip-plots' }, svgEl('defs', {}, svg));
    P.p.forEach(({ frame: f }) => svgEl('rect', { x: f.x, y: f.y, width: f.w, height: f.h }, clip));
    const g = svgEl('g', { 'clip-path': 'url(#clip-plots)' }, svg);
    const xs = Array.from(this._xs, (x) => P.sx(x).toFixed(1)); // the same for every curve
    const pts = (arr, pan) => xs.map((x, j) => `${x},${pan.sy(arr[j]).toFixed(1)}`).join(' ');
    for (const c of CURVES) {
      if (!this._visible.has(c.id)) continue;
      svgEl('polyline', { class: `curve c-${c.id} dash-${c.id}`, points: pts(this._curves[c.id].y, P.p[0]) }, g);
      svgEl('polyline', { class: `curve c-${c.id} dash-${c.id}`, points: pts(this._curves[c.id].dy, P.p[1]) }, g);
    }
    svgEl('polyline', { class: 'curve err-tanh', points: pts(this._errs.tanh, P.p[2]) }, g);
    svgEl('polyline', { class: 'curve err-sigmoid', points: pts(this._errs.sigmoid, P.p[2]) }, g);
  }

  /** The cursor and a dot per curve shown and panel, on top, at x (_drawCursor). */
  _drawMarks(svg) {
    this._cursor = svgEl('line', { class: 'cursor', y1: M.t, y2: PANEL_H * 3 - M.b }, svg);
    this._dots = [];
    for (const c of CURVES) {
      if (!this._visible.has(c.id)) continue;
      this._dots.push({ id: c.id, pan: 0, el: svgEl('circle', { class: `dot c-${c.id}`, r: 4 }, svg) });
      this._dots.push({ id: c.id, pan: 1, el: svgEl('circle', { class: `dot c-${c.id}`, r: 4 }, svg) });
    }
    this._drawCursor();
  }

  /** The notes of a plot drawn without them, in steps (the first drawing's last ones), under the cursor and dots. */
  _addNotes() {
    const svg = this._box?.querySelector('svg.plot');
    if (!svg || svg.querySelector('.note')) return undefined;
    const groups = this._noteGroups(this._P).filter((g) => g.notes.length);
    // a group of notes in three tasks: its curves as obstacles, its notes measured, then placed; none once the plot
    // was drawn anew (notes and all) in between
    const steps = groups.flatMap((g) => {
      let items = null;
      return [
        () => g.curves(), // kept for the last step
        () => (items = this._noteItems(this._P, g, measureNotes(svg, noteTexts([g])))),
        () => {
          this._placeNotes(svg, items);
          svg.append(this._cursor, ...this._dots.map((d) => d.el)); // the cursor and dots over the notes
        },
      ];
    });
    return chainSteps(steps, () => this._box?.querySelector('svg.plot') === svg)?.();
  }

  /** The three panels' frames, titles, grid lines and ticks. */
  _drawGrid(svg, P, W) {
    const ticks = this._ticks(W - M.l - M.r);
    P.p.forEach((pan, i) => {
      svgEl('rect', { class: 'frame', x: pan.frame.x, y: pan.frame.y, width: pan.frame.w, height: pan.frame.h }, svg);
      const t = svgEl('text', { class: 'ptitle', x: M.l, y: pan.top + M.t - 6 }, svg);
      t.textContent = this._t(`panels.${['values', 'slopes', 'errors'][i]}`);
      for (const x of ticks.values) {
        const y1 = pan.top + M.t,
          y2 = pan.top + PANEL_H - M.b;
        svgEl('line', { class: x === 0 ? 'zeroline' : 'gridline', x1: P.sx(x), x2: P.sx(x), y1, y2 }, svg);
        const tx = svgEl('text', { class: 'tick', x: P.sx(x), y: y2 + 13, 'text-anchor': 'middle' }, svg);
        tx.textContent = this._tr.fixed(x, ticks.decimals);
      }
      const yt = pan.log ? [-7, -5, -3, -1] : i === 0 ? [0, 1, 2, 3] : [0, 0.5, 1];
      for (const v of yt) {
        const y = pan.sy(pan.log ? 10 ** v : v);
        const line = v === 0 && !pan.log ? 'zeroline' : 'gridline';
        svgEl('line', { class: line, x1: M.l, x2: W - M.r, y1: y, y2: y }, svg);
        const tx = svgEl('text', { class: 'tick', x: M.l - 4, y: y + 4, 'text-anchor': 'end' }, svg);
        tx.textContent = pan.log ? this._t('logTick', { v: this._tr.int(v) }) : this._tr.num(v);
      }
    });
  }

  /**
   * Annotations (numbers from the kernels): the minima of GELU and SiLU in the first panel, the error peaks in
   * the third, each placed inside its panel so that no two overlap and no leader line crosses another note.
   */
  _drawNotes(svg, P, groups = this._noteGroups(P)) {
    const size = measureNotes(svg, noteTexts(groups));
    for (const group of groups) if (group.notes.length) this._placeNotes(svg, this._noteItems(P, group, size));
  }

  /** A group's notes as items of placeLabels (their candidate spots from their measured sizes), with their anchors. */
  _noteItems(P, { pan, up, notes, curves }, size) {
    const anchors = notes.map((n) => [P.sx(n.x), pan.sy(n.y)]);
    const items = notes.map((n, i) => ({
      anchorKey: i,
      candidates: noteCandidates(anchors[i], n.texts, size, pan.frame, up),
    }));
    return { pan, notes, curves, anchors, items };
  }

  /** Place a group's notes (_noteItems) clear of its curves, else of its marks only, and draw them. */
  _placeNotes(svg, { pan, notes, curves, anchors, items }) {
    const marks = anchors.map((p, i) => ({ x: p[0] - 4, y: p[1] - 4, w: 8, h: 8, key: i }));
    const opts = { bounds: pan.frame, pad: 3, budget: 200000 };
    let placed = placeLabels(items, { ...opts, obstacles: marks, points: curves() });
    if (placed.some((pl) => pl.conflicts)) placed = placeLabels(items, { ...opts, obstacles: marks });
    placed.forEach((pl, i) => {
      const c = items[i].candidates[pl.index];
      const [px, py] = anchors[i];
      if (c.leader) {
        const [[x1, y1], [x2, y2]] = c.leader;
        svgEl('line', { class: 'leader', x1, y1, x2, y2 }, svg);
      }
      svgEl('circle', { class: 'mark', cx: px, cy: py, r: 3.5 }, svg);
      const t = svgEl('text', { class: 'note', 'data-note': notes[i].id }, svg);
      c.lines.forEach((line, j) => {
        const ts = svgEl('tspan', { x: c.x, y: c.y + j * c.lineH - c.top }, t);
        ts.textContent = line;
      });
    });
  }

  /**
   * The notes of the first panel (the minima, above their points) and of the third (the error peaks), each group with
   * its drawn curves as obstacles (curves(): pointObstacles, made once): a note is first placed clear of them, else
   * clear of marks only.
   */
  _noteGroups(P) {
    const a = this._ann;
    const curvePoints = (arr, pan) => {
      const every = Math.max(1, Math.floor(arr.length / (pan.frame.w / 4)));
      const pts = [];
      for (let j = 0; j < arr.length; j += every) pts.push([P.sx(this._xs[j]), pan.sy(arr[j])]);
      return polylineObstacles(pts, 4);
    };
    const once = (f) => {
      let made = null;
      return () => (made ??= f());
    };
    return [
      {
        pan: P.p[0],
        up: true,
        curves: once(() =>
          pointObstacles(
            CURVES.filter((c) => this._visible.has(c.id)).flatMap((c) => curvePoints(this._curves[c.id].y, P.p[0])),
          ),
        ),
        notes: [
          ['gelu', a.gelu],
          ['silu', a.silu],
        ]
          .filter(([id, m]) => this._visible.has(id) && m.x >= P.lo && m.x <= P.hi)
          .map(([id, m]) => ({ id, x: m.x, y: m.y, texts: this._minimumNote(id, m) })),
      },
      {
        pan: P.p[2],
        up: null,
        curves: once(() =>
          pointObstacles([...curvePoints(this._errs.tanh, P.p[2]), ...curvePoints(this._errs.sigmoid, P.p[2])]),
        ),
        notes: [
          ['tanh', a.peaks.tanh],
          ['sigmoid', a.peaks.sigmoid],
        ]
          .filter(([, pk]) => pk.x >= P.lo && pk.x <= P.hi)
          .map(([id, pk]) => ({ id, x: pk.x, y: pk.err, texts: this._peakNote(id, pk) })),
      },
    ];
  }

  /** A minimum's note, on one line and on two: "GELU min -0.170 at -0.752". */
  _minimumNote(id, m) {
    const p = { name: this._t(`names.${id}`), y: this._tr.fixed(m.y, 3), x: this._tr.fixed(m.x, 3) };
    return [this._t('minimum', p), [this._t('minimumLine1', p), this._t('minimumLine2', p)]];
  }

  /** An error peak's note, on one line and on two: "tanh max 1.5e-4". */
  _peakNote(id, pk) {
    const p = { name: this._t(`names.${id}`), err: this._tr.exp(pk.err, 1) };
    return [this._t('peak', p), [this._t('peakLine1', p), p.err]];
  }

  _onPointer(e) {
    if (!this._P) return;
    const r = this._box.getBoundingClientRect();
    const W = r.width;
    const px = ((e.clientX - r.left) / W) * W;
    const x = this._P.lo + ((px - M.l) / (W - M.l - M.r)) * (this._P.hi - this._P.lo);
    this._x = this._xWanted = this._snap(x);
    this._scheduleCursor();
  }

  /** Clamp to the range and round to the keyboard step's decimals. */
  _snap(x) {
    const f = 10 ** this._decimals();
    return Math.max(this._range[0], Math.min(this._range[1], Math.round(x * f) / f));
  }

  _onKey(e) {
    const s = this._step();
    const step = e.shiftKey ? 10 * s : s;
    let x = this._x;
    switch (e.key) {
      case 'ArrowRight':
      case 'ArrowUp':
        x += step;
        break;
      case 'ArrowLeft':
      case 'ArrowDown':
        x -= step;
        break;
      case 'PageUp':
        x += 50 * s;
        break;
      case 'PageDown':
        x -= 50 * s;
        break;
      case 'Home':
        x = this._range[0];
        break;
      case 'End':
        x = this._range[1];
        break;
      default:
        return;
    }
    e.preventDefault();
    this._x = this._xWanted = this._snap(x);
    this._reflect();
    this._scheduleCursor();
  }

  _drawCursor() {
    if (!this._cursor) return;
    const r = readout(ffn, this._x);
    this._readout = r;
    const P = this._P;
    this._cursor.setAttribute('x1', P.sx(this._x));
    this._cursor.setAttribute('x2', P.sx(this._x));
    const byId = Object.fromEntries(r.rows.map((row) => [row.id, row]));
    for (const d of this._dots) {
      const v = d.pan === 0 ? byId[d.id].y : byId[d.id].dy;
      const pan = P.p[d.pan];
      const visible = v >= pan.ylo && v <= pan.yhi;
      d.el.setAttribute('visibility', visible ? 'visible' : 'hidden');
      d.el.setAttribute('cx', P.sx(this._x));
      d.el.setAttribute('cy', pan.sy(v));
    }
    const tr = this._tr;
    this._readX.textContent = this._t('readX', { x: tr.fixed(r.x, 3) });
    for (const row of this._rows) {
      row.y.textContent = tr.fixed(byId[row.id].y, 4);
      row.dy.textContent = tr.fixed(byId[row.id].dy, 4);
    }
    this._errLine.textContent = this._t('errHere', { t: tr.exp(r.errTanh, 2), s: tr.exp(r.errSigmoid, 2) });
    this._box.setAttribute('aria-valuenow', fmt(r.x, 3));
    const x2 = tr.fixed(r.x, 2),
      g = tr.fixed(byId.gelu.y, 3),
      s = tr.fixed(byId.silu.y, 3);
    this._box.setAttribute('aria-valuetext', this._t('valueText', { x: x2, g, s }));
    this._announce(this._t('announce', { x: x2, g, s, r: tr.fixed(byId.relu.y, 3) }));
    this.dispatchEvent(new CustomEvent('ffn-change', { detail: r }));
  }
}

/** The texts of the notes of groups (_noteGroups), each on one line and on two. */
const noteTexts = (groups) => groups.flatMap((g) => g.notes.flatMap((n) => [n.texts[0], ...n.texts[1]]));

/**
 * The boxes of texts as notes of svg ({ w, h, top }, top: from the baseline), all read after one layout (a probe text
 * per text, removed afterwards); an estimate where they cannot be measured (not rendered). Returns text -> its box.
 */
function measureNotes(svg, texts) {
  const probes = new Map();
  for (const text of texts) {
    if (probes.has(text)) continue;
    const probe = svgEl('text', { class: 'note', visibility: 'hidden' }, svg);
    probe.textContent = text;
    probes.set(text, probe);
  }
  const sizes = new Map();
  for (const [text, probe] of probes) {
    let b = null;
    try {
      b = probe.getBBox();
    } catch {
      /* not rendered */
    }
    sizes.set(
      text,
      b && b.height > 0 ? { w: b.width, h: b.height, top: b.y } : { w: text.length * 6.6, h: 14, top: -11 },
    );
  }
  probes.forEach((probe) => probe.remove());
  return (text) => sizes.get(text);
}

/**
 * Candidate spots of one note near its point a inside frame: its text on one line, then on two; above the
 * point (up = true), or above and below (up = null); starting at, ending at, or centred on the point's x,
 * then shifted sideways; nearest first. Each carries a leader line from the point to the note.
 */
function noteCandidates(a, [oneLine, twoLines], size, frame, up) {
  const out = [];
  for (const lines of [[oneLine], twoLines]) {
    const sz = lines.map(size);
    const w = Math.max(...sz.map((s) => s.w)),
      lineH = sz[0].h,
      h = lineH * lines.length,
      top = sz[0].top;
    const dirs = up ? [-1] : [-1, 1];
    for (let dy = 14; dy <= frame.h; dy += 8) {
      for (const dir of dirs) {
        for (const shift of [0, 30, -30, 60, -60, 100, -100]) {
          for (const x of [a[0] - 4 + shift, a[0] + 4 - w + shift, a[0] - w / 2 + shift]) {
            const y = dir < 0 ? a[1] - dy - h : a[1] + dy;
            const box = { x, y, w, h };
            const end = [Math.max(x + 2, Math.min(x + w - 2, a[0])), dir < 0 ? y + h : y];
            out.push({ ...box, lines, lineH, top, leader: [[a[0], a[1] + dir * 4], end] });
          }
        }
      }
    }
  }
  return out;
}

define('ffn-activation-plot', FfnActivationPlot);
