// Messages as the <ffn-exercise> element shows them: code parts as <code>, setup problems, a capitalized reason.
import { createEl as el } from '../../element-base.js';
import { msg, isMessage } from '../../i18n/index.js';

/**
 * A setup problem for a kernel (wasm) load that failed: what happened (the loader's own message, with its URL, shown
 * as code) and the fix, in the reader's language.
 */
export function kernelProblem(e) {
  const error = String((e && e.message) || e);
  let fix = msg('exercise.fixConsole');
  if (/unsafe-eval|Content Security Policy|CompileError.*Refused/i.test(error)) {
    fix = msg('exercise.fixCsp', { directive: code("script-src 'self' 'wasm-unsafe-eval'") });
  } else if (/HTTP \d+|could not load the wasm module/.test(error)) {
    fix = msg('exercise.fixServe', { file: code('web/ffn.js'), entry: code('ffn-lab') });
  }
  return msg('exercise.kernelsFailed', { error: code(error), fix });
}

// The parameters of the sandbox's setup messages (report.site, frame-host.js) that are code: URLs, markup, policies.
const SITE_CODE = new Set(['url', 'file', 'meta', 'directive', 'detail', 'why', 'example', 'dir']);

/** A setup message of the sandbox with its code parameters shown as code (nested messages too). */
export function siteProblem(m, depth = 0) {
  const params = {};
  for (const [k, v] of Object.entries(m.params)) {
    if (isMessage(v) && depth < 8) params[k] = siteProblem(v, depth + 1);
    else params[k] = SITE_CODE.has(k) && typeof v === 'string' ? code(v) : v;
  }
  return msg(m.key, params);
}

/** A message shown with its first letter in upper case (a reason that starts a sentence). */
export class Capitalized {
  constructor(message) {
    this.message = message;
  }
  toString() {
    const s = String(this.message);
    return s && s[0].toUpperCase() + s.slice(1);
  }
}

/** Text to be shown as code (in a <code> element) inside a message. */
export class Code {
  constructor(text) {
    this.text = String(text);
  }
  toString() {
    return this.text;
  }
}
export const code = (text) => new Code(text);

/**
 * What to append to show a message (see msg() in web/i18n) in doc with the translator tr: strings, and <code>
 * elements for the parts that are code (a URL, a directive, a toolkit name), which stay as they are in every language.
 */
export function messageNodes(doc, tr, m) {
  if (m instanceof Code) return [el(doc, 'code', { text: m.text })];
  if (m instanceof Capitalized) {
    const s = tr.t(m.message.key, m.message.params);
    return [s && s[0].toUpperCase() + s.slice(1)];
  }
  if (!isMessage(m)) return [String(m ?? '')];
  const params = {};
  for (const [k, v] of Object.entries(m.params)) {
    if (v instanceof Code || v instanceof Capitalized || isMessage(v)) {
      const frag = doc.createDocumentFragment();
      frag.append(...messageNodes(doc, tr, v));
      params[k] = frag;
    } else params[k] = v;
  }
  return tr.parts(m.key, params);
}
