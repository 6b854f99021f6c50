// Standalone embed pages: copy allowed URL query parameters onto the page's one element (before the page's next script
// registers it), report the page's height to a parent frame (web/embed/host.js sizes the iframe from it) and each
// exercise result (host.js fires it on the iframe).
import { readEmbedParams } from './params.js';
import { translator, loadStrings, langOf } from '../i18n/index.js';
import { resultMessage } from '../lms/result-message.js';

const el = document.querySelector('[data-embed]');
const allowed = (el?.dataset.embed || '').split(/\s+/).filter(Boolean);
// The query is read within bounds (params.js); each value is then checked by the element's own attribute parser.
const { attributes, theme, id, lang, problems } = readEmbedParams(location.search, allowed);
// ?lang=fr: the page's language, which the element follows (and the lines below)
if (lang) document.documentElement.lang = lang;
for (const [name, v] of attributes) el.setAttribute(name, v);
if (theme) {
  el.setAttribute('theme', theme);
  document.documentElement.dataset.theme = theme;
}
if (el && problems.length) {
  // in the element's language, once its strings are loaded (French is loaded on first use; English at once)
  const shown = langOf(el);
  const show = () => {
    const p = document.createElement('p');
    p.className = 'embed-problem';
    p.setAttribute('role', 'alert');
    const tr = translator(shown);
    p.textContent = problems.map((m) => tr.t(m.key, m.params)).join('\n');
    el.before(p);
  };
  loadStrings(shown).then(show, show);
}
// Tell an embedding page how tall we are, so it can size the iframe (message: { type: 'ffn-lab:height', height, id }):
// from the element's ffn-ready on (the page is only a few pixels tall before), then on every change.
if (window.parent !== window && typeof ResizeObserver === 'function' && el) {
  let last = 0;
  let live = false;
  const report = () => {
    const h = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (live && h !== last) {
      last = h;
      window.parent.postMessage({ type: 'ffn-lab:height', height: h, id }, '*');
    }
  };
  el.addEventListener(
    'ffn-ready',
    () => {
      live = true;
      report();
    },
    { once: true },
  );
  new ResizeObserver(report).observe(document.documentElement);
}
// Tell an embedding page each exercise result (message: { type: 'ffn-lab:result', id, exercise, passed, tests:
// { passed, total }, diagnoses, timestamp }); host.js fires it on the iframe as the event ffn-lab-result.
if (window.parent !== window && el) {
  el.addEventListener('ffn-exercise-result', (ev) => window.parent.postMessage(resultMessage(ev.detail, id), '*'));
}
