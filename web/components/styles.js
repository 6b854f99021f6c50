// Shared look of the ffn-lab components: theming variables, light/dark defaults, focus ring, controls.
import { styleShadow } from '../shadow-style.js';
import { errorText } from '../i18n/index.js';

// Public theming variables (set them on the element or any ancestor):
//   --ffn-font, --ffn-mono, --ffn-fg, --ffn-muted, --ffn-bg, --ffn-surface, --ffn-border, --ffn-grid,
//   --ffn-accent, --ffn-fire, --ffn-leak, --ffn-focus, --ffn-radius.
// Each internal --_x reads the public one and falls back to a default that passes WCAG contrast
// (4.5:1 for text, 3:1 for marks) against the default background in both schemes.
// Dark-scheme defaults, used both for a dark preference and for theme="dark".
const darkDefaults = `
  --_fg: var(--ffn-fg, #ececf1);
  --_muted: var(--ffn-muted, #b4b4bf);
  --_bg: var(--ffn-bg, #17181c);
  --_surface: var(--ffn-surface, #23242a);
  --_border: var(--ffn-border, #6e6e7a);
  --_grid: var(--ffn-grid, #3a3b44);
  --_accent: var(--ffn-accent, #7db3ff);
  --_fire: var(--ffn-fire, #ffa05c);
  --_leak: var(--ffn-leak, #c9a2ff);
  --_focus: var(--ffn-focus, #9cc5ff);
`;

// Light-scheme defaults (the shared variables themselves; also used by <ffn-exercise> through themeCss).
const lightDefaults = `
  --_font: var(--ffn-font, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif);
  --_mono: var(--ffn-mono, ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace);
  --_fg: var(--ffn-fg, #1b1b1f);
  --_muted: var(--ffn-muted, #52525b);
  --_bg: var(--ffn-bg, #ffffff);
  --_surface: var(--ffn-surface, #f4f4f6);
  --_border: var(--ffn-border, #8a8a94);
  --_grid: var(--ffn-grid, #d4d4da);
  --_accent: var(--ffn-accent, #1d5fc4);
  --_fire: var(--ffn-fire, #b33f00);
  --_leak: var(--ffn-leak, #7a3db8);
  --_focus: var(--ffn-focus, #1d5fc4);
  --_radius: var(--ffn-radius, 8px);`;

/**
 * The shared theme alone, for an element styled outside this folder (<ffn-exercise>): the --_x variables
 * from the public --ffn-* ones, light and dark defaults, and theme="light|dark" over prefers-color-scheme.
 */
export const themeCss = `
:host {${lightDefaults}
}
@media (prefers-color-scheme: dark) {
  :host(:not([theme="light"])) {${darkDefaults}}
}
:host([theme="dark"]) {${darkDefaults}}
`;

const baseCss = `
:host {${lightDefaults}
  display: block;
  box-sizing: border-box;
  max-width: 100%;
  color: var(--_fg);
  background: var(--_bg);
  font-family: var(--_font);
  font-size: 15px;
  line-height: 1.45;
  border: 1px solid var(--_border);
  border-radius: var(--_radius);
  padding: 12px;
  contain: layout;
}
@media (prefers-color-scheme: dark) {
  :host(:not([theme="light"])) {${darkDefaults}}
}
:host([theme="dark"]) {${darkDefaults}}
*, *::before, *::after { box-sizing: border-box; }
.title { font-weight: 650; margin: 0 0 8px; font-size: 1.02em; }
.muted { color: var(--_muted); }
.mono, .num { font-family: var(--_mono); font-variant-numeric: tabular-nums; }
.row { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: center; }
button, select, input {
  font: inherit; color: var(--_fg); background: var(--_surface);
  border: 1px solid var(--_border); border-radius: 6px; min-height: 32px;
}
button { padding: 3px 10px; cursor: pointer; }
button[aria-pressed="true"] { background: var(--_accent); color: var(--_bg); border-color: var(--_accent); }
input[type="number"] { width: 7.5em; padding: 2px 6px; }
input[type="range"] { accent-color: var(--_accent); min-height: 24px; background: transparent; border: 0; }
input[type="checkbox"] { min-height: auto; accent-color: var(--_accent); width: 18px; height: 18px; }
label { display: inline-flex; gap: 6px; align-items: center; }
:focus { outline: none; }
:focus-visible, [tabindex]:focus-visible {
  outline: 3px solid var(--_focus); outline-offset: 2px; border-radius: 4px;
}
.sr-only {
  position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; border: 0;
}
.error { color: var(--_fire); font-weight: 600; overflow-wrap: anywhere; }
.error .problem { display: block; }
svg text { fill: var(--_fg); font-family: var(--_font); }
@media (prefers-reduced-motion: reduce) { * { transition: none !important; animation: none !important; } }
`;

const shadowCss = new WeakMap(); // host -> the css of its shadow root

/**
 * Attach a shadow root holding the shared styles plus the component's own, as a constructable
 * stylesheet where the browser has them (a page's CSP then needs no 'unsafe-inline' for styles).
 * ElementBase's adoptedCallback styles it again when the host moves to another document.
 */
export function attachStyledShadow(host, ownCss) {
  const root = host.attachShadow({ mode: 'open' });
  const css = baseCss + '\n' + (ownCss || '');
  shadowCss.set(host, css);
  styleShadow(root, css);
  return root;
}

/** True when the reader asked for less motion. */
export function prefersReducedMotion() {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/** Run fn at most once per animation frame with the latest arguments. */
export function rafThrottle(fn) {
  let pending = false;
  let lastArgs = [];
  const raf = typeof requestAnimationFrame === 'function' ? requestAnimationFrame : (cb) => setTimeout(cb, 16);
  return (...args) => {
    lastArgs = args;
    if (pending) return;
    pending = true;
    raf(() => { pending = false; fn(...lastArgs); });
  };
}

/** Call fn at most every `ms` milliseconds, always delivering the final value (for aria-live). */
export function trailingThrottle(fn, ms) {
  let timer = null;
  let last = 0;
  let lastArgs = [];
  return (...args) => {
    lastArgs = args;
    const now = Date.now();
    if (timer) return;
    const wait = Math.max(0, last + ms - now);
    timer = setTimeout(() => { timer = null; last = Date.now(); fn(...lastArgs); }, wait);
  };
}

/** The HTMLElement base class, or a stand-in so modules can be imported in Node for their models. */
export class ElementBase extends (globalThis.HTMLElement ?? class {}) {
  /** Moved to another document: its window must make the stylesheet anew. */
  adoptedCallback() {
    const css = shadowCss.get(this);
    if (css && this.shadowRoot) styleShadow(this.shadowRoot, css);
  }
}

/** Define a custom element once (safe to import twice, and a no-op outside browsers). */
export function define(name, cls) {
  if (typeof customElements === 'undefined') return;
  if (!customElements.get(name)) customElements.define(name, cls);
}

/** Format a number for display with a fixed number of significant decimals. */
export function fmt(v, digits = 2) {
  if (!Number.isFinite(v)) return String(v);
  const s = v.toFixed(digits);
  return s === '-' + (0).toFixed(digits) ? (0).toFixed(digits) : s;
}

/**
 * Like fmt, but a value too small to show with `digits` decimals and not zero is written in exponent
 * form (-2.5e-5), so a leak never reads as 0.000.
 */
export function fmtSmall(v, digits = 2) {
  if (v !== 0 && Number.isFinite(v) && Math.abs(v) < 0.5 * 10 ** -digits) return v.toExponential(1);
  return fmt(v, digits);
}

/**
 * Record the problem of one source (an attribute, the hash, the kernels) in problems (a Map of source -> error),
 * or with err null clear it, and show them all again (in the language of tr, a translator from web/i18n) when
 * anything changed; source null shows them again as they are (after a change of language).
 */
export function setProblem(root, tag, problems, source, err, tr) {
  const had = source !== null && problems.has(source);
  if (source !== null) {
    if (err) problems.set(source, err); else problems.delete(source);
  }
  if (err || had || source === null) showProblems(root, tag, problems, tr);
}

/**
 * Show the element's current problems (a Map of source -> error) as one alert, one line each, each prefixed with
 * the element's tag; none removes the alert. An error the models made carries its text's key (.i18n) and is shown
 * in the reader's language; any other error (a failed kernel load) is quoted as it is, as code.
 */
export function showProblems(root, tag, problems, tr) {
  root.querySelector('.error')?.remove();
  if (!problems.size) return;
  const p = document.createElement('p');
  p.className = 'error';
  p.setAttribute('role', 'alert');
  for (const [source, err] of problems) {
    const line = document.createElement('span');
    line.className = 'problem';
    if (err && err.i18n && tr) line.textContent = `${tag}: ${errorText(tr, err)}`;
    else {
      const code = document.createElement('code');
      code.textContent = String(err?.message ?? err);
      const text = source === 'load' && tr ? tr.parts('errors.load', { message: code }) : [code];
      line.append(`${tag}: `, ...text);
    }
    p.append(line);
  }
  root.append(p);
}

/** Group an integer with thin commas: 4722432 -> "4,722,432". */
export function fmtInt(v) {
  return Math.round(v).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Create an HTML element: props 'class', 'text', 'on<event>' (listener), anything else an attribute; kids appended. */
export function htmlEl(tag, props = {}, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v);
  }
  el.append(...kids);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Create an SVG element with attributes. */
export function svgEl(tag, attrs = {}, parent = null) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (parent) parent.appendChild(el);
  return el;
}
