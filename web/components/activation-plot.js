// <ffn-activation-plot>: the section's activations, their derivatives and the GELU approximation errors, with a readout (view only; math in activation-model.js).
import * as ffn from '../ffn.js';
import { attachStyledShadow, ElementBase, define, rafThrottle, trailingThrottle, fmt, svgEl, showError } from './styles.js';
import { CURVES, CURVE_IDS, grid, sample, geluErrorsOf, errorPeaks, findMinimum, readout } from './activation-model.js';

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
  :host(:not([theme="light"])) .c-gelu { --c: #7db3ff; } :host(:not([theme="light"])) .c-gelu_tanh, :host(:not([theme="light"])) .err-tanh { --c: #4fd1b8; }
  :host(:not([theme="light"])) .c-gelu_sigmoid, :host(:not([theme="light"])) .err-sigmoid { --c: #ffa05c; } :host(:not([theme="light"])) .c-silu { --c: #f08ae0; }
}
:host([theme="dark"]) .c-relu { --c: #c4c4cc; } :host([theme="dark"]) .c-relu2 { --c: #e2b65a; }
:host([theme="dark"]) .c-gelu { --c: #7db3ff; } :host([theme="dark"]) .c-gelu_tanh, :host([theme="dark"]) .err-tanh { --c: #4fd1b8; }
:host([theme="dark"]) .c-gelu_sigmoid, :host([theme="dark"]) .err-sigmoid { --c: #ffa05c; } :host([theme="dark"]) .c-silu { --c: #f08ae0; }
.curve, .legend line { stroke: var(--c); }
.dot { fill: var(--c); }
.swatch { stroke-width: 3; }
.dash-gelu_tanh { stroke-dasharray: 7 4; } .dash-gelu_sigmoid { stroke-dasharray: 2 3; } .dash-relu2 { stroke-dasharray: 10 3 2 3; }
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

export class FfnActivationPlot extends ElementBase {
  static get observedAttributes() { return ['x', 'curves', 'range', 'theme']; }

  constructor() {
    super();
    this._x = -0.752;
    this._range = [-4, 4];
    this._visible = new Set(CURVE_IDS);
    this._ready = false;
    this._root = attachStyledShadow(this, css);
    this._scheduleCursor = rafThrottle(() => this._drawCursor());
    this._announce = trailingThrottle((t) => { if (this._live) this._live.textContent = t; }, 800);
  }

  connectedCallback() {
    this._readAttributes();
    if (this._ready) { this._observeSize(); return; }
    if (this._loading) return;
    this._loading = true;
    this._root.append(Object.assign(document.createElement('p'), { className: 'muted', textContent: 'Loading the activation kernels…' }));
    ffn.ready().then(() => {
      this._ready = true;
      this._computeStatic();
      this._build();
      this._redraw();
      if (this.isConnected) this._observeSize();
      this.dispatchEvent(new CustomEvent('ffn-ready', { bubbles: true }));
    }, (err) => { this._loading = false; this._showError(err); });
  }

  disconnectedCallback() { this._ro?.disconnect(); this._ro = null; }

  _observeSize() {
    if (this._ro || typeof ResizeObserver !== 'function' || !this._box) return;
    // Redraw whenever the box is not as wide as the drawing (text stays at its real size).
    this._ro = new ResizeObserver(rafThrottle(() => { const w = this._box.clientWidth; if (w && Math.max(260, w) !== this._drawnW) this._redraw(); }));
    this._ro.observe(this._box);
  }

  attributeChangedCallback(name) {
    if (this._reflecting) return;
    if (!this._readAttributes() || !this._ready) return;
    this._root.querySelector('.error')?.remove();
    if (name === 'range') { this._computeStatic(); this._redraw(); } else if (name === 'curves') { this._syncLegend(); this._redraw(); } else this._scheduleCursor();
  }

  /** Cursor position of the readout. */
  get x() { return this._x; }
  set x(v) { this.setAttribute('x', String(v)); }
  /** The last readout (kernel values at x), or null before the wasm is ready. */
  get readout() { return this._readout ?? null; }
  /** Minima of GELU and SiLU and the peaks of the two GELU approximation errors, found with the kernels. */
  get annotations() { return this._ann ?? null; }

  _readAttributes() {
    try {
      const x = this.getAttribute('x');
      if (x !== null) {
        const v = Number(x);
        if (!Number.isFinite(v)) throw new TypeError(`x must be a number, got "${x}"`);
        this._x = v;
      }
      const r = this.getAttribute('range');
      if (r !== null) {
        const [lo, hi] = r.split(',').map(Number);
        if (!(Number.isFinite(lo) && Number.isFinite(hi) && hi > lo)) throw new TypeError(`range must be "lo,hi" with lo < hi, got "${r}"`);
        this._range = [lo, hi];
      }
      const c = this.getAttribute('curves');
      if (c !== null) {
        const ids = c.split(/[,\s]+/).filter(Boolean);
        for (const id of ids) if (!CURVE_IDS.includes(id)) throw new TypeError(`curves: unknown curve "${id}"; expected some of ${CURVE_IDS.join(', ')}`);
        this._visible = new Set(ids);
      }
      this._x = Math.max(this._range[0], Math.min(this._range[1], this._x));
      return true;
    } catch (err) {
      this._showError(err);
      return false;
    }
  }

  _reflect() {
    this._reflecting = true;
    this.setAttribute('x', fmt(this._x, 3));
    this.setAttribute('curves', [...this._visible].join(','));
    this._reflecting = false;
  }

  _showError(err) { showError(this._root, 'ffn-activation-plot', err); }

  _computeStatic() {
    const [lo, hi] = this._range;
    this._xs = grid(lo, hi, 481);
    this._curves = sample(ffn, this._xs);
    const c = this._curves; // the GELU errors from the sampled values (the three kernels ran once, in sample)
    this._errs = geluErrorsOf(c.gelu.y, c.gelu_tanh.y, c.gelu_sigmoid.y);
    // The minima and error peaks do not depend on the plotted range: found once.
    this._ann ??= {
      gelu: findMinimum(ffn, 'gelu'),
      silu: findMinimum(ffn, 'silu'),
      peaks: errorPeaks(ffn),
    };
  }

  _build() {
    for (const n of [...this._root.childNodes]) if (n.nodeName !== 'STYLE') n.remove();
    const root = this._root;
    const h = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text) e.textContent = text; return e; };
    root.append(h('p', 'title', 'Activations, their slopes, and how far the GELU shortcuts stray'));
    const legend = h('div', 'legend row');
    legend.setAttribute('role', 'group');
    legend.setAttribute('aria-label', 'Show or hide curves');
    this._legendBtns = CURVES.map((c) => {
      const b = h('button', `c-${c.id}`);
      b.type = 'button';
      const sw = svgEl('svg', { viewBox: '0 0 28 10', 'aria-hidden': 'true' }, b);
      svgEl('line', { x1: 1, y1: 5, x2: 27, y2: 5, class: `swatch dash-${c.id}` }, sw);
      b.append(c.label);
      b.dataset.curve = c.id;
      b.addEventListener('click', () => {
        if (this._visible.has(c.id)) this._visible.delete(c.id); else this._visible.add(c.id);
        this._syncLegend(); this._reflect(); this._redraw();
      });
      legend.append(b);
      return b;
    });
    root.append(legend);
    this._syncLegend();
    const box = h('div', 'plotbox');
    box.tabIndex = 0;
    box.setAttribute('role', 'slider');
    box.setAttribute('aria-label', 'Readout position x (arrow keys move it)');
    box.setAttribute('aria-valuemin', String(this._range[0]));
    box.setAttribute('aria-valuemax', String(this._range[1]));
    box.addEventListener('keydown', (e) => this._onKey(e));
    box.addEventListener('pointermove', (e) => this._onPointer(e));
    box.addEventListener('pointerdown', (e) => this._onPointer(e));
    this._box = box;
    root.append(box);
    root.append(h('p', 'hint muted', 'Hover, touch, or focus the plot and use the arrow keys (Shift for bigger steps) to read values.'));
    const table = h('table');
    table.innerHTML = '<caption class="sr-only">Values at the readout position</caption><thead><tr><th scope="col">activation</th><th scope="col">φ(x)</th><th scope="col">φ′(x)</th></tr></thead><tbody></tbody>';
    this._readX = h('p', 'readx');
    root.append(this._readX, table);
    this._rows = CURVES.map((c) => {
      const tr = h('tr', `c-${c.id}`);
      tr.dataset.curve = c.id;
      const th = h('th', '', c.label); th.scope = 'row';
      const y = h('td', 'num'); const dy = h('td', 'num');
      tr.append(th, y, dy);
      table.tBodies[0].append(tr);
      return { id: c.id, y, dy };
    });
    this._errLine = h('p', 'muted num');
    const pk = this._ann.peaks;
    this._peakLine = h('p', 'muted num', `Largest GELU errors on [−6, 6]: tanh form ${pk.tanh.err.toExponential(2)} at x = ${fmt(pk.tanh.x, 2)}, sigmoid form ${pk.sigmoid.err.toExponential(2)} at x = ${fmt(pk.sigmoid.x, 2)}.`);
    this._peakLine.dataset.peaks = '';
    root.append(this._errLine, this._peakLine);
    this._live = h('p', 'sr-only');
    this._live.setAttribute('aria-live', 'polite');
    root.append(this._live);
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
      const sy = (v) => top + M.t + (1 - (Math.max(ylo, Math.min(yhi, f(v))) - ylo) / (yhi - ylo)) * (PANEL_H - M.t - M.b);
      return { top, ylo, yhi, sy, log };
    };
    return { sx, lo, hi, p: [mk(0, -0.6, 3), mk(1, -0.4, 1.4), mk(2, -7, -1, true)] };
  }

  _redraw() {
    if (!this._box) return;
    const W = Math.max(260, this._box.clientWidth || 600);
    this._drawnW = W;
    const H = PANEL_H * 3;
    this._box.querySelector('svg')?.remove();
    const svg = svgEl('svg', { class: 'plot', viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-label': 'Three panels: activation values, their derivatives, and the absolute error of the two GELU approximations on a log scale' });
    this._box.prepend(svg);
    const P = this._panels(W);
    this._P = P;
    const titles = ['φ(x)', 'φ′(x), the slope', '|approx − exact GELU|, log scale'];
    const xs = this._xs;
    P.p.forEach((pan, i) => {
      svgEl('rect', { class: 'frame', x: M.l, y: pan.top + M.t, width: W - M.l - M.r, height: PANEL_H - M.t - M.b }, svg);
      const t = svgEl('text', { class: 'ptitle', x: M.l, y: pan.top + M.t - 6 }, svg);
      t.textContent = titles[i];
      for (let x = Math.ceil(P.lo); x <= P.hi; x++) {
        svgEl('line', { class: x === 0 ? 'zeroline' : 'gridline', x1: P.sx(x), x2: P.sx(x), y1: pan.top + M.t, y2: pan.top + PANEL_H - M.b }, svg);
        const tx = svgEl('text', { class: 'tick', x: P.sx(x), y: pan.top + PANEL_H - M.b + 13, 'text-anchor': 'middle' }, svg);
        tx.textContent = String(x);
      }
      const yt = pan.log ? [-7, -5, -3, -1] : i === 0 ? [0, 1, 2, 3] : [0, 0.5, 1];
      for (const v of yt) {
        const y = pan.sy(pan.log ? 10 ** v : v);
        svgEl('line', { class: v === 0 && !pan.log ? 'zeroline' : 'gridline', x1: M.l, x2: W - M.r, y1: y, y2: y }, svg);
        const tx = svgEl('text', { class: 'tick', x: M.l - 4, y: y + 4, 'text-anchor': 'end' }, svg);
        tx.textContent = pan.log ? `1e${v}` : String(v);
      }
    });
    const clip = svgEl('clipPath', { id: 'clip-plots' }, svgEl('defs', {}, svg));
    P.p.forEach((pan) => svgEl('rect', { x: M.l, y: pan.top + M.t, width: W - M.l - M.r, height: PANEL_H - M.t - M.b }, clip));
    const g = svgEl('g', { 'clip-path': 'url(#clip-plots)' }, svg);
    const pts = (arr, pan) => Array.from(xs, (x, j) => `${P.sx(x).toFixed(1)},${pan.sy(arr[j]).toFixed(1)}`).join(' ');
    for (const c of CURVES) {
      if (!this._visible.has(c.id)) continue;
      svgEl('polyline', { class: `curve c-${c.id} dash-${c.id}`, points: pts(this._curves[c.id].y, P.p[0]) }, g);
      svgEl('polyline', { class: `curve c-${c.id} dash-${c.id}`, points: pts(this._curves[c.id].dy, P.p[1]) }, g);
    }
    svgEl('polyline', { class: 'curve err-tanh', points: pts(this._errs.tanh, P.p[2]) }, g);
    svgEl('polyline', { class: 'curve err-sigmoid', points: pts(this._errs.sigmoid, P.p[2]) }, g);

    // Annotations: minima and error peaks (numbers from the kernels).
    const note = (x, y, text, anchor = 'start', dy = 0) => {
      const t = svgEl('text', { class: 'note', x, y: y + dy, 'text-anchor': anchor }, svg);
      t.textContent = text;
    };
    const a = this._ann;
    const p0 = P.p[0];
    // Minima labels sit in the empty upper-left of the first panel, with leader lines to the points.
    const labelX = P.sx(P.lo) + 8;
    [['gelu', a.gelu, 1.9], ['silu', a.silu, 1.2]].forEach(([id, m, ly]) => {
      if (!this._visible.has(id) || m.x < P.lo || m.x > P.hi) return;
      const px = P.sx(m.x), py = p0.sy(m.y), ty = p0.sy(ly);
      svgEl('line', { class: 'leader', x1: px, y1: py - 4, x2: Math.min(px, labelX + 60), y2: ty + 4 }, svg);
      svgEl('circle', { class: 'mark', cx: px, cy: py, r: 3.5 }, svg);
      note(labelX, ty, `${id === 'gelu' ? 'GELU' : 'SiLU'} min ${fmt(m.y, 3)} at ${fmt(m.x, 3)}`);
    });
    const p2 = P.p[2];
    for (const [name, pk, cls] of [['tanh', a.peaks.tanh, 'err-tanh'], ['sigmoid', a.peaks.sigmoid, 'err-sigmoid']]) {
      const x = Math.max(P.lo, Math.min(P.hi, pk.x));
      svgEl('circle', { class: `mark`, cx: P.sx(x), cy: p2.sy(pk.err), r: 3 }, svg);
      note(P.sx(x) + (x > 0 ? -6 : 6), p2.sy(pk.err) + (name === 'tanh' ? -6 : 14), `${name} max ${pk.err.toExponential(1)}`, x > 0 ? 'end' : 'start');
    }
    // Cursor and dots.
    this._cursor = svgEl('line', { class: 'cursor', y1: M.t, y2: H - M.b }, svg);
    this._dots = [];
    for (const c of CURVES) {
      if (!this._visible.has(c.id)) continue;
      this._dots.push({ id: c.id, pan: 0, el: svgEl('circle', { class: `dot c-${c.id}`, r: 4 }, svg) });
      this._dots.push({ id: c.id, pan: 1, el: svgEl('circle', { class: `dot c-${c.id}`, r: 4 }, svg) });
    }
    this._drawCursor();
  }

  _onPointer(e) {
    if (!this._P) return;
    const r = this._box.getBoundingClientRect();
    const W = r.width;
    const px = ((e.clientX - r.left) / W) * W;
    const x = this._P.lo + ((px - M.l) / (W - M.l - M.r)) * (this._P.hi - this._P.lo);
    this._x = Math.max(this._range[0], Math.min(this._range[1], Math.round(x * 1000) / 1000));
    this._scheduleCursor();
  }

  _onKey(e) {
    const step = e.shiftKey ? 0.1 : 0.01;
    let x = this._x;
    switch (e.key) {
      case 'ArrowRight': case 'ArrowUp': x += step; break;
      case 'ArrowLeft': case 'ArrowDown': x -= step; break;
      case 'PageUp': x += 0.5; break;
      case 'PageDown': x -= 0.5; break;
      case 'Home': x = this._range[0]; break;
      case 'End': x = this._range[1]; break;
      default: return;
    }
    e.preventDefault();
    this._x = Math.max(this._range[0], Math.min(this._range[1], Math.round(x * 1000) / 1000));
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
    this._readX.textContent = `At x = ${fmt(r.x, 3)}`;
    for (const row of this._rows) {
      row.y.textContent = fmt(byId[row.id].y, 4);
      row.dy.textContent = fmt(byId[row.id].dy, 4);
    }
    this._errLine.textContent = `GELU error here: tanh form ${r.errTanh.toExponential(2)}, sigmoid form ${r.errSigmoid.toExponential(2)}.`;
    this._box.setAttribute('aria-valuenow', fmt(r.x, 3));
    this._box.setAttribute('aria-valuetext', `x = ${fmt(r.x, 2)}, GELU ${fmt(byId.gelu.y, 3)}, SiLU ${fmt(byId.silu.y, 3)}`);
    this._announce(`x ${fmt(r.x, 2)}: GELU ${fmt(byId.gelu.y, 3)}, SiLU ${fmt(byId.silu.y, 3)}, ReLU ${fmt(byId.relu.y, 3)}`);
    this.dispatchEvent(new CustomEvent('ffn-change', { detail: r }));
  }
}

define('ffn-activation-plot', FfnActivationPlot);
