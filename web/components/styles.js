// Shared look and helpers of the three components: controls, focus ring, number formats, the problems alert.
import { themeCss } from '../element-base.js';
import { errorText } from '../i18n/index.js';

/** The components' shared look, after the theme: layout of the host, controls, focus ring, the alert. */
const baseCss = `${themeCss}
:host {
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

/** A component's stylesheet: the theme, the shared look, then its own css. */
export function componentCss(ownCss) {
  return baseCss + '\n' + (ownCss || '');
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
    raf(() => {
      pending = false;
      fn(...lastArgs);
    });
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
    timer = setTimeout(() => {
      timer = null;
      last = Date.now();
      fn(...lastArgs);
    }, wait);
  };
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
    if (err) problems.set(source, err);
    else problems.delete(source);
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
  return Math.round(v)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
