// Test helper: find English left in what an element shows (text, and the attributes a reader or screen reader gets).
import en from '../../web/i18n/en.js';
import fr from '../../web/i18n/fr.js';

/**
 * In the page: every text an element shows, across shadow roots: text nodes (SVG text included) and the
 * aria-label, aria-valuetext, title, placeholder, alt and data-label attributes (data-label is shown by CSS in the
 * narrow layout). Not collected: code the learner or the author wrote and technical text shown as code (<code>,
 * <pre>, <kbd>, <textarea> values, <style>). Hidden parts are collected too: they are shown on a click.
 */
export function collectShownText(selector) {
  const out = [];
  const SKIP = new Set(['CODE', 'PRE', 'KBD', 'TEXTAREA', 'STYLE', 'SCRIPT']);
  const ATTRS = ['aria-label', 'aria-valuetext', 'title', 'placeholder', 'alt', 'data-label'];
  const walk = (node) => {
    if (node.nodeType === 1) {
      if (SKIP.has(node.tagName.toUpperCase()) || node.classList.contains('cm-content')) return;
      for (const a of ATTRS) if (node.getAttribute(a)) out.push(node.getAttribute(a));
      if (node.shadowRoot) walk(node.shadowRoot);
    }
    // adjacent text nodes read as one text (a message is appended in pieces)
    let run = '';
    for (const c of node.childNodes) {
      if (c.nodeType === 3) {
        run += c.data;
        continue;
      }
      if (run.trim()) out.push(run);
      run = '';
      walk(c);
    }
    if (run.trim()) out.push(run);
  };
  for (const el of document.querySelectorAll(selector)) walk(el);
  return out;
}

/*
 * English words that are not French words (so a French interface never needs them). Attribute names, which stay
 * as they are in every language, are left out (token, threshold, range, curves, facts, rule...), and so are words
 * French shares with English (tests, code, solution, console, activation, attention, score, total, experts...).
 */
const WORDS = `the and of your you with this that is are was were not no to for from in into by at it its their
there these those which what when where while who whose how than then too also only but or so if each every all any
some more most less other another here now well done again before after afterwards below above next back out over
run runs running ran passed pass passes failed fail fails timed stopped stop show hide reset cancel hint hints
reference progress export import imported skipped left saved storage blocked lasts visit keep copy paste press
restore reload exercise exercises starter cleared goes likely mistake hidden shown results result scope tensors
indents outdents leaves editor compare expected got must exactly counts come setup problem could load loading its
fix check browser served installed allow serve file sits default entry inlined whose kernels kernel unknown known
characters character number numbers string object whole changed using outside usable kept lines line output
memory memories query fires fire leaks leak silent match state write writes written decodes decode nothing best
partial sum full plane embedding vocabulary drag sliders slider filler word words rank ranks strongest adds add
something gets cancel weak through first coordinate blue solid dashed put value values function slope
slopes error errors largest form hover touch arrow keys bigger steps read readout squared sigmoid panels
derivatives absolute scale presets block width rounded gated biases bias heads mixture shared parameters per layer
share forward billion billions router weight tokens counted norms embeddings context model directly blank none
set dim well done subtracted approx stray shortcuts store stores facts watch move fire one two three`
  .split(/\s+/)
  .filter(Boolean);
const ATTRIBUTE_NAMES = new Set([
  'facts',
  'range',
  'curves',
  'rule',
  'preset',
  'presets',
  'threshold',
  'token',
  'editor',
  'heads',
  'memory', // <ffn-memory-lab memory="17">
]);
export const ENGLISH_WORDS = new Set(WORDS.filter((w) => !ATTRIBUTE_NAMES.has(w)));

/** Literal pieces of every template of a table (between placeholders) with at least two words of letters. */
function phrases(table, out = []) {
  for (const v of Object.values(table)) {
    if (typeof v === 'string') {
      for (const piece of v.split(/\{\w+\}/)) {
        const p = piece.trim();
        if ((p.match(/[A-Za-z]{2,}/g) || []).length >= 2) out.push(p);
      }
    } else if (v && typeof v === 'object') phrases(v, out);
  }
  return out;
}
// The same in both languages (a curve named "GELU (tanh)", "top-k partial sum" being "somme partielle top-k" is not).
const shared = new Set(phrases(fr));
export const ENGLISH_PHRASES = [...new Set(phrases(en))].filter((p) => !shared.has(p));

/**
 * The English found in `texts` (strings): every English phrase of the table (en.js) it contains, and every English
 * word (identifiers, which stay as they are, are skipped: names with -, _, digits, dots or inner capitals; and so
 * are an object's fields in braces and quoted values).
 */
export function findEnglish(texts) {
  const found = new Set();
  for (const text of texts) {
    for (const p of ENGLISH_PHRASES) if (text.includes(p)) found.add(`phrase "${p}" in "${text.slice(0, 120)}"`);
    // code in a message stays as it is: an object's fields ({ key, value }) and quoted values ("Tokyo>Japan")
    for (const raw of text.replace(/\{[^{}]*\}|"[^"]*"/g, ' ').split(/\s+/)) {
      if (/\p{L}\(/u.test(raw)) continue; // a call: reset(), map(x
      const token = raw.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
      if (!token || /[\d_.\-/=>@:#]/.test(token) || /\p{Ll}\p{Lu}/u.test(token)) continue;
      for (const w of token.split(/['’]/)) {
        if (ENGLISH_WORDS.has(w.toLowerCase())) found.add(`word "${w}" in "${text.slice(0, 120)}"`);
      }
    }
  }
  return [...found];
}
