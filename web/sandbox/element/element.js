// The <ffn-exercise> element class (no registration here): prompt, editor, run/hints/solution, announced results, saved
// progress.
import { DEFAULT_TIMEOUT_MS, toolkitNames } from '../run/index.js';
import {
  getExercise,
  onExerciseDefined,
  definedExerciseIds,
  exerciseText,
  renderPromptHtml,
  fmtNum,
  CAPS,
  clip,
  loadGrader,
} from '../grade/index.js';
import {
  createProgressStore,
  memoryStorage,
  codeProblemMessage,
  DEFAULT_STORAGE_KEY,
  PROGRESS_LIMITS,
} from './storage.js';
import { textareaEditor } from './editor.js';
import { FfnElement, define, createEl as el, themeCss } from '../../element-base.js';
import { ready as loadKernels } from '../../index.js';
import { prepareNear } from './prepare.js';
import { translator, langOf, msg, isMessage } from '../../i18n/index.js';

// The grader (grade.js, and through it the runner, the sandbox frame's host and the diagnosis) is loaded on first
// use, in a chunk of its own where a bundler splits: the exercise is drawn and ready without it, and prepare.js
// asks for it ahead of the first Run.
const grading = () =>
  loadGrader().catch((e) => {
    throw new Error(`could not load ffn-lab's grade.js (${e && e.message}); serve every file your bundler emitted`);
  });
// Once loaded, the grader is called directly: import() of a module already loaded still costs a task, about 3 ms
// of every Run in Chromium (a fifth of a warm Run).
let grader = null;
const gradeExercise = (...args) =>
  grader ? grader.gradeExercise(...args) : grading().then((m) => (grader = m).gradeExercise(...args));

// The four elements share one theme (web/element-base.js: --ffn-font, --ffn-fg, --ffn-bg, --ffn-surface,
// --ffn-accent...); the exercise adds --ffn-pass and --ffn-fail, and sizes its editor with --ffn-editor-height
// and --ffn-code-size.
const STYLE = `${themeCss}
:host {
  --_pass: var(--ffn-pass, #1a7f37);
  --_fail: var(--ffn-fail, #c62828);
  --_editor-height: var(--ffn-editor-height, 18rem);
  --_code-size: var(--ffn-code-size, 13px);
}
@media (prefers-color-scheme: dark) {
  :host(:not([theme="light"])) { --_pass: var(--ffn-pass, #6fd08c); --_fail: var(--ffn-fail, #ff8a80); }
}
:host([theme="dark"]) { --_pass: var(--ffn-pass, #6fd08c); --_fail: var(--ffn-fail, #ff8a80); }
:host {
  display: block;
  font-family: var(--_font);
  color: var(--_fg);
  background: var(--_bg);
  border: 1px solid var(--_border);
  border-radius: var(--_radius);
  padding: 1rem 1.1rem;
  line-height: 1.5;
}
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
header { display: flex; align-items: baseline; gap: .75rem; flex-wrap: wrap; }
h3 { margin: 0; font-size: 1.1rem; }
.level { color: var(--_muted); font-size: .85rem; }
.badge {
  margin-left: auto; font-size: .8rem; padding: .1rem .55rem; border-radius: 999px; border: 1px solid currentColor;
}
.badge.passed { color: var(--_pass); }
.badge.attempted { color: var(--_muted); }
.badge:empty { display: none; }
code, pre, .editor { font-family: var(--_mono); }
code { background: var(--_surface); padding: 0 .2em; border-radius: 3px; font-size: .92em; }
.examples { margin: .4rem 0; padding-left: 1.2rem; font-size: .9rem; }
.examples li { margin: .15rem 0; }
.toolkit, .keys { color: var(--_muted); font-size: .82rem; margin: .3rem 0; }
.editor { display: grid; grid-template-columns: auto 1fr; border: 1px solid var(--_border); border-radius: 6px;
  background: var(--_surface); height: var(--_editor-height); overflow: hidden; font-size: var(--_code-size);
  content-visibility: auto; }
.gutter { overflow: hidden; padding: .5rem .4rem .5rem .6rem; text-align: right; color: var(--_muted);
  user-select: none;
  border-right: 1px solid var(--_border); line-height: 1.5; white-space: pre; }
.gutter span { display: block; }
.gutter span.marked { color: var(--_fail); font-weight: 700; }
textarea.code { border: 0; margin: 0; resize: none; outline: none; padding: .5rem .6rem; background: transparent;
  color: inherit; font: inherit;
  line-height: 1.5; tab-size: 2; white-space: pre; overflow: auto; width: 100%; height: 100%; }
.editor:focus-within { outline: 2px solid var(--_focus); outline-offset: 1px; }
.editor.cm { display: block; }
.editor.cm .cm-editor { height: 100%; }
.editor.cm .cm-editor.cm-focused { outline: none; }
.editor.cm .cm-scroller { font-family: var(--_mono); line-height: 1.5; }
.editor.cm .cm-ffn-error-line { background: color-mix(in srgb, var(--_fail) 16%, transparent); }
.toolbar { display: flex; gap: .5rem; flex-wrap: wrap; margin: .6rem 0; align-items: center; }
button { font: inherit; font-size: .9rem; padding: .35rem .8rem; border-radius: 6px; border: 1px solid var(--_border);
  background: var(--_surface); color: inherit; cursor: pointer; }
button:focus-visible { outline: 2px solid var(--_focus); outline-offset: 1px; }
button:disabled { opacity: .55; cursor: default; }
button.run { background: var(--_accent); color: var(--_bg); border-color: transparent; }
button.link {
  border: 0; padding: 0; background: none; color: var(--_accent); text-decoration: underline; font-size: inherit;
}
.confirm { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; font-size: .9rem; padding: .4rem .6rem;
  border: 1px dashed var(--_border); border-radius: 6px; }
.confirm[hidden], .hints[hidden], .solution[hidden], [hidden] { display: none; }
.hints { margin: .4rem 0; padding-left: 1.2rem; }
.hints li { margin: .25rem 0; }
.results { margin-top: .5rem; }
.summary { font-weight: 600; margin: .3rem 0; }
.summary.pass { color: var(--_pass); }
.summary.fail { color: var(--_fail); }
.summary.setup { color: var(--_fg); border-left: 4px solid var(--_fire); background: var(--_surface);
  padding: .4rem .7rem; border-radius: 4px; font-weight: 400; }
.diagnosis { border-left: 4px solid var(--_fire); background: var(--_surface);
  padding: .4rem .7rem; margin: .5rem 0; border-radius: 4px; }
.diagnosis strong { display: block; }
ul.tests { list-style: none; padding: 0; margin: .3rem 0; font-size: .9rem; }
ul.tests li { padding: .15rem 0; }
ul.tests li .mark { display: inline-block; width: 1.3rem; font-weight: 700; }
ul.tests li.pass .mark { color: var(--_pass); }
ul.tests li:not(.pass) .mark { color: var(--_fail); }
ul.tests .detail {
  display: block; margin-left: 1.3rem; color: var(--_muted); font-family: var(--_mono); font-size: .82rem;
  white-space: pre-wrap;
}
.logs { font-size: .82rem; background: var(--_surface); padding: .4rem .6rem; border-radius: 4px;
  max-height: 12rem; overflow: auto; white-space: pre-wrap; }
.solution pre { background: var(--_surface); padding: .6rem; border-radius: 6px; overflow: auto; font-size: .85rem; }
.note { font-size: .82rem; color: var(--_muted); }
.notice { font-size: .85rem; color: var(--_fail); margin: .3rem 0; white-space: pre-line; }
.notice:empty { display: none; }
.note:empty { display: none; }
.progress { margin-top: .6rem; font-size: .85rem; }
.progress summary { cursor: pointer; color: var(--_muted); }
.progress-json { width: 100%; font-family: var(--_mono); font-size: .78rem; }
`;

/* Attributes and properties a page sets are checked here: out of range is clamped, nonsense refused, with a notice
   in the element (part="notice"); never a throw or a hang. */
export const TIMEOUT_RANGE = Object.freeze({ min: 100, max: 60_000 }); // ms
export const NUMBER_MAX = 16; // characters of the `number` attribute shown before the title
const TIMEOUT_CHARS = 64; // a longer timeout attribute is not a number of milliseconds (checked before it is parsed)
const RUNNING_UI_MS = 150; // a run shows "Running…" (and its Stop button) only once it has taken this long
/** A value quoted in a notice: JSON, cut at 40 characters (then with its length, in the reader's language). */
const quoteAttr = (s) =>
  s.length > 40
    ? msg('exercise.quoted', { text: JSON.stringify(`${s.slice(0, 40)}…`), n: s.length })
    : JSON.stringify(s);

/** The timeout attribute -> { ms, notice }: a number of milliseconds, clamped to TIMEOUT_RANGE (notice: a message). */
export function readTimeout(attr) {
  if (attr === null) return { ms: DEFAULT_TIMEOUT_MS, notice: null };
  const t = attr.length > TIMEOUT_CHARS || /^\s*$/.test(attr) ? NaN : Number(attr);
  const { min, max } = TIMEOUT_RANGE;
  if (!(t > 0) || t === Infinity) {
    const notice = msg('exercise.timeoutNaN', { value: quoteAttr(attr), ms: String(DEFAULT_TIMEOUT_MS) });
    return { ms: DEFAULT_TIMEOUT_MS, notice };
  }
  if (t < min || t > max) {
    const ms = t < min ? min : max;
    const notice = msg('exercise.timeoutRange', {
      value: quoteAttr(attr),
      min: String(min),
      max: String(max),
      ms: String(ms),
    });
    return { ms, notice };
  }
  return { ms: Math.round(t), notice: null };
}

/** The storage-key attribute -> { key, notice }; a key that is not usable leaves progress in memory (key null). */
export function readStorageKey(attr) {
  if (attr === null || attr === '') return { key: DEFAULT_STORAGE_KEY, notice: null };
  if (attr.length > PROGRESS_LIMITS.keyChars || /[\u0000-\u001f]/.test(attr)) {
    const notice = msg('exercise.storageKey', { value: quoteAttr(attr), max: String(PROGRESS_LIMITS.keyChars) });
    return { key: null, notice };
  }
  return { key: attr, notice: null };
}

/** The number attribute -> { text, notice }: at most NUMBER_MAX characters once trimmed, no control characters. */
export function readNumber(attr) {
  if (attr === null) return { text: '', notice: null };
  const s = attr.length > 4 * NUMBER_MAX ? attr : attr.trim(); // a long value is refused before it is scanned
  if (s.length > NUMBER_MAX || /[\u0000-\u001f\u007f-\u009f]/.test(s)) {
    const notice = msg('exercise.numberRefused', { name: 'number', value: quoteAttr(attr), max: String(NUMBER_MAX) });
    return { text: '', notice };
  }
  return { text: s, notice: null };
}

/** A value given to a property -> words for a notice, whatever it is (a Symbol, an object whose toString throws). */
function describe(v) {
  if (typeof v === 'string') return quoteAttr(v);
  if (typeof v === 'number' || typeof v === 'boolean' || v == null) return String(v);
  return msg(`exercise.valueKinds.${typeof v}`);
}

/**
 * A setup problem for a kernel (wasm) load that failed: what happened (the loader's own message, with its URL, shown
 * as code) and the fix, in the reader's language.
 */
function kernelProblem(e) {
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
function siteProblem(m, depth = 0) {
  const params = {};
  for (const [k, v] of Object.entries(m.params)) {
    if (isMessage(v) && depth < 8) params[k] = siteProblem(v, depth + 1);
    else params[k] = SITE_CODE.has(k) && typeof v === 'string' ? code(v) : v;
  }
  return msg(m.key, params);
}

/** A message shown with its first letter in upper case (a reason that starts a sentence). */
class Capitalized {
  constructor(message) {
    this.message = message;
  }
  toString() {
    const s = String(this.message);
    return s && s[0].toUpperCase() + s.slice(1);
  }
}

/** Text to be shown as code (in a <code> element) inside a message. */
class Code {
  constructor(text) {
    this.text = String(text);
  }
  toString() {
    return this.text;
  }
}
const code = (text) => new Code(text);

let counter = 0;

export class FfnExerciseElement extends FfnElement {
  /**
   * Attributes and properties (see FfnElement.properties): each property writes its attribute, a string (timeout and
   * number also a number); anything else is refused with a notice. The element reads them itself (notices, not
   * problems): see attributeChangedCallback.
   */
  static get properties() {
    const text = (attribute, kind) => ({ attribute, toText: (v, el) => el._propText(attribute, v, kind) });
    return {
      ...super.properties,
      exercise: { ...text('exercise', 'kindString'), get: (el) => el.getAttribute('exercise') || '' },
      // the timeout in ms: the attribute, clamped to TIMEOUT_RANGE (a notice says so), or 2000
      timeout: { ...text('timeout', 'kindNumber'), get: (el) => readTimeout(el.getAttribute('timeout')).ms },
      storageKey: {
        ...text('storage-key', 'kindString'),
        get: (el) => el.getAttribute('storage-key') || DEFAULT_STORAGE_KEY,
      },
      number: { ...text('number', 'kindNumber'), get: (el) => readNumber(el.getAttribute('number')).text },
    };
  }

  constructor() {
    super();
    this._attachStyledShadow(STYLE);
    this._uid = `ffnx${++counter}`;
    this._storage = null; // a custom adapter set through the `storage` property
    this._editorKind = textareaEditor; // the `editor` property: the built-in one, or an adapter's (codemirror.js)
    this._editor = null;
    this._api = null;
    this._seed = undefined;
    this._running = null;
    this._report = null;
    this._saveTimer = null;
    this._rendered = null;
    this._notices = new Map(); // what -> message, shown in part="notice"
    this._memory = null; // the storage used when storage-key is not usable
  }

  /**
   * What to append to show a message (see msg() in web/i18n): strings, and <code> elements for the parts that are
   * code (a URL, a directive, a toolkit name), which stay as they are in every language.
   */
  _nodes(m) {
    const doc = this.ownerDocument;
    if (m instanceof Code) return [el(doc, 'code', { text: m.text })];
    if (m instanceof Capitalized) {
      const s = this._tr.t(m.message.key, m.message.params);
      return [s && s[0].toUpperCase() + s.slice(1)];
    }
    if (!isMessage(m)) return [String(m ?? '')];
    const params = {};
    for (const [k, v] of Object.entries(m.params)) {
      if (v instanceof Code || v instanceof Capitalized || isMessage(v)) {
        const frag = doc.createDocumentFragment();
        frag.append(...this._nodes(v));
        params[k] = frag;
      } else params[k] = v;
    }
    return this._tr.parts(m.key, params);
  }

  /** Set (or clear, with null) the notice about `what` (a message), and show the notices if rendered. */
  _notice(what, text) {
    if (text) this._notices.set(what, text);
    else this._notices.delete(what);
    if (this._ui && this._ui.notice) this._showNotices(this._ui.notice);
  }

  _showNotices(box) {
    const lines = [...this._notices.values()].flatMap((m, i) => [...(i ? ['\n'] : []), ...this._nodes(m)]);
    box.replaceChildren(...lines);
  }

  /* ----- properties ----- */

  /** Pluggable storage adapter ({ getItem, setItem, removeItem }); defaults to localStorage with a memory fallback. */
  get storage() {
    return this._storage;
  }
  set storage(v) {
    this._storage = v || null;
    if (this.isConnected) this._render();
  }
  /**
   * The editor: the built-in textarea (default) or an adapter's, such as codeMirrorEditor({ view, state, extensions })
   * for a site's CodeMirror 6. Setting it renders the exercise again with the code as it is.
   */
  get editor() {
    return this._editorKind;
  }
  set editor(v) {
    const kind = v || textareaEditor;
    if (typeof kind.create !== 'function') {
      this._notice('editor', msg('exercise.editorRefused'));
      return;
    }
    this._notice('editor', null);
    if (kind === this._editorKind) return;
    this._editorKind = kind;
    if (this.isConnected && this._ex) this._render();
  }
  /** Optional ffn-lab API module to grade against (defaults to the package's own). */
  get api() {
    return this._api;
  }
  set api(v) {
    this._api = v || null;
    if (this._loadState !== 'loading') this._loadState = null; // the next render loads this API's kernels
  }
  get seed() {
    return this._seed;
  }
  /** A whole number (the hidden tests' seed); anything else is refused with a notice and the seed is unchanged. */
  set seed(v) {
    if (v === undefined || v === null || Number.isSafeInteger(v)) {
      this._seed = v ?? undefined;
      this._notice('seed', null);
    } else this._notice('seed', msg('exercise.seedRefused', { got: describe(v) }));
  }
  /** A property's value as its attribute's text: a string (kindNumber: also a number); else a notice, undefined. */
  _propText(name, v, kind) {
    if (typeof v === 'string' || (kind === 'kindNumber' && typeof v === 'number')) {
      this._notice(name, null);
      return String(v);
    }
    this._notice(name, msg('exercise.propRefused', { name, kind: msg(`exercise.${kind}`), got: describe(v) }));
    return undefined;
  }
  /** The last grading report, or null. */
  get report() {
    return this._report;
  }
  /** The editor's current code. */
  get code() {
    return this._editor ? this._editor.value : '';
  }
  /** Replace the code: a string within the progress bounds (100,000 characters, 5,000 lines); else a notice. */
  set code(v) {
    if (!this._editor) return;
    const why = codeProblemMessage(v);
    if (why) {
      this._notice('code', msg('exercise.codeRefused', { why }));
      return;
    }
    this._notice('code', null);
    this._editor.value = v;
    this._saveCode();
  }

  connectedCallback() {
    super.connectedCallback();
    if (this._rendered !== this._renderKey() || !this._ex) this._render();
  }

  /** The language (of the element or the page) or its table changed: render again, keeping the last report. */
  _relocalize() {
    if (!this.isConnected || (translator(langOf(this)) === this._tr && langOf(this) === this._lang)) return;
    const report = this._running ? null : this._report;
    this._render();
    if (report && this._ex && report.exercise === this._ex.id) this._showReport(report);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this._stopWaiting();
    if (this._running) this._running.abort();
    this._flushSave();
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue || !this.isConnected) return;
    if (name === 'lang') return this._relocalize();
    if (name === 'timeout') this._notice('timeout', readTimeout(newValue).notice);
    if (name === 'exercise' || name === 'storage-key') this._render();
    else if (name === 'number' && this._ex) {
      this._notice('number', readNumber(newValue).notice);
      this._ui.title.textContent = this._heading();
      this._ui.section.setAttribute('aria-label', this._t('exercise.section', { title: this._heading() }));
    }
  }

  /** The heading: the author's number (attribute `number`), if any, then the exercise's title. */
  _heading() {
    const n = readNumber(this.getAttribute('number')).text;
    const title = this._text.title;
    return n ? this._t('exercise.heading', { number: n, title }) : title;
  }

  /** Re-render once an exercise with this id is defined (defineExercise after the element was connected). */
  _waitFor(id) {
    this._stopWaiting();
    this._stopWaitingFn = onExerciseDefined((ex) => {
      if (ex.id === id && this.isConnected && this.exercise === id) {
        this._stopWaiting();
        this._render();
      }
    });
  }

  _stopWaiting() {
    if (this._stopWaitingFn) this._stopWaitingFn();
    this._stopWaitingFn = null;
  }

  _renderKey() {
    return `${this.exercise}|${this.storageKey}`;
  }

  _emit(name, detail) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }

  /* ----- rendering ----- */

  _render() {
    this._teardown();
    const root = this.shadowRoot;
    const doc = this.ownerDocument;
    const ex = this._resolveExercise(root, doc);
    if (!ex) return;
    const saved = this._openStore(ex);
    const intro = this._drawIntro(doc, ex);
    const editor = this._drawEditor(doc, root, ex, saved);
    const controls = this._drawControls(doc, ex);
    const results = this._drawResults(doc);
    const notice = el(doc, 'p', { class: 'notice', part: 'notice', role: 'status' });
    this._showNotices(notice);
    const label = this._t('exercise.section', { title: this._heading() });
    const section = el(doc, 'section', { part: 'container', 'aria-label': label }, [
      intro.header,
      notice,
      ...intro.blocks,
      ...editor,
      controls.toolbar,
      controls.confirmRow,
      controls.hints,
      controls.solution,
      results.results,
      this._progressBox(doc),
    ]);
    root.append(section);
    const { toolbar, ...parts } = controls;
    const { title, badge } = intro;
    this._ui = { title, section, notice, passedBefore: this._passedBefore, badge, ...results, ...parts };
    this._restoreState(saved);
    this._wireControls(root, ex);
  }

  /** Before a render: the last save written, a run stopped, the editor and the shadow tree emptied. */
  _teardown() {
    this._flushSave();
    if (this._running) this._running.abort();
    if (this._editor && this._editor.destroy) this._editor.destroy();
    this._editor = null;
    this._rendered = this._renderKey();
    this._stopWaiting();
    this.shadowRoot.replaceChildren();
    this._restyle();
    this._lang = langOf(this);
    this._tr = translator(this._lang);
  }

  /** The exercise named by the `exercise` attribute, or null (an error is shown, and its definition awaited). */
  _resolveExercise(root, doc) {
    let ex;
    try {
      ex = getExercise(this.exercise);
    } catch {
      const known = definedExerciseIds().join(', ');
      const text = this._t('exercise.unknown', { id: this.exercise.slice(0, 80), known });
      root.append(el(doc, 'p', { part: 'error', role: 'alert', text: `<ffn-exercise>: ${text}` }));
      this._ex = null;
      this._waitFor(this.exercise); // a page may define its exercise after the element is connected
      return null;
    }
    this._ex = ex;
    this._text = exerciseText(ex, this._lang); // the author's text in the page's language, where they gave one
    return ex;
  }

  /** The progress store for the `storage-key` (notices for the attributes and unreadable progress); ex's entry. */
  _openStore(ex) {
    const { key, notice: keyNotice } = readStorageKey(this.getAttribute('storage-key'));
    this._notice('storage-key', keyNotice);
    if (!key && !this._memory) this._memory = memoryStorage();
    this._store = createProgressStore(key ? { storage: this._storage || undefined, key } : { storage: this._memory });
    const saved = this._store.get(ex.id);
    // Saved progress this version could not read: all of it, or this exercise's.
    const problem = this._store.problemMessageWith(ex.id);
    this._notice(
      'progress',
      problem &&
        (this._store.problemMessage === problem
          ? msg('progress.problem', { problem: new Capitalized(problem) })
          : msg('progress.notAllLoaded', { problem })),
    );
    this._notice('timeout', readTimeout(this.getAttribute('timeout')).notice);
    this._notice('number', readNumber(this.getAttribute('number')).notice);
    return saved;
  }

  /** The header (title, level, badge) and the prompt, examples and toolkit blocks. */
  _drawIntro(doc, ex) {
    const text = this._text;
    const badge = el(doc, 'span', { class: 'badge', part: 'badge' });
    const title = el(doc, 'h3', { part: 'title', text: this._heading() });
    const level = el(doc, 'span', { class: 'level', text: text.level });
    const header = el(doc, 'header', { part: 'header' }, [title, level, badge]);
    const prompt = el(doc, 'div', { class: 'prompt', part: 'prompt' });
    prompt.append(renderPromptHtml(doc, text.prompt)); // authored HTML, through the allow-list (prompt-html.js)
    const examples = el(
      doc,
      'ul',
      { class: 'examples', part: 'examples', 'aria-label': this._t('exercise.examples') },
      text.examples.map((t) => el(doc, 'li', {}, [el(doc, 'code', { text: t })])),
    );
    const names = doc.createDocumentFragment();
    toolkitNames.forEach((n, i) => names.append(...(i ? [', '] : []), el(doc, 'code', { text: n })));
    const toolkit = el(
      doc,
      'p',
      { class: 'toolkit', part: 'toolkit' },
      this._tr.parts('exercise.toolkit', {
        names,
        tensor: el(doc, 'code', { text: '{ data, shape }' }),
        log: el(doc, 'code', { text: 'console.log' }),
      }),
    );
    return { badge, title, header, blocks: [prompt, examples, toolkit] };
  }

  /** The editor (the saved code, or the starter) and the help line on its keys: [editor root, help]. */
  _drawEditor(doc, root, ex, saved) {
    const text = this._text;
    const keysId = `${this._uid}-keys`;
    const builtIn = this._editorKind === textareaEditor;
    const keysHelp = el(doc, 'p', {
      class: 'keys',
      id: keysId,
      part: 'help',
      text: this._t(builtIn ? 'exercise.keys' : 'exercise.keysRun'),
    });
    this._editor = this._editorKind.create(doc, {
      root,
      onBlur: () => this._flushSave(),
      value: typeof saved.code === 'string' ? saved.code : text.starter,
      label: this._t('exercise.editorLabel', { title: text.title, names: this._tr.list(ex.functionNames) }),
      describedBy: keysId,
      onRun: () => this.run(),
      onChange: () => this._scheduleSave(),
    });
    return [this._editor.root, keysHelp];
  }

  /** The toolbar's buttons, the confirm row, the hints list and the solution block. */
  _drawControls(doc, ex) {
    const t = (key, params) => this._t(`exercise.${key}`, params);
    const button = (part, text, props = {}) => el(doc, 'button', { type: 'button', part, text: text, ...props });
    const runBtn = button('button run-button', t('run'), { class: 'run' });
    const stopBtn = button('button stop-button', t('stop'), { hidden: true });
    const hintBtn = button('button hint-button', '');
    const solBtn = button('button solution-button', t('showSolution'));
    const resetBtn = button('button reset-button', t('reset'));
    const toolbar = el(doc, 'div', { class: 'toolbar', part: 'toolbar' }, [runBtn, stopBtn, hintBtn, solBtn, resetBtn]);
    const confirmText = el(doc, 'span');
    const confirmYes = el(doc, 'button', { type: 'button', part: 'button confirm-button' });
    const confirmNo = el(doc, 'button', { type: 'button', part: 'button cancel-button', text: t('cancel') });
    const confirmProps = { class: 'confirm', part: 'confirm', role: 'group', hidden: true };
    const confirmRow = el(doc, 'div', confirmProps, confirmText, confirmYes, confirmNo);
    const hints = el(doc, 'ol', { class: 'hints', part: 'hints', 'aria-label': t('hints'), hidden: true });
    const solution = el(doc, 'div', { class: 'solution', part: 'solution', hidden: true }, [
      el(doc, 'p', { class: 'note', text: t('solutionNote') }),
      el(doc, 'pre', { text: ex.solution }),
    ]);
    const buttons = { runBtn, stopBtn, hintBtn, solBtn, resetBtn };
    return { toolbar, ...buttons, confirmRow, confirmText, confirmYes, confirmNo, hints, solution };
  }

  /** Where results go: the announced summary and diagnosis, and the per-test list outside the live region. */
  _drawResults(doc) {
    const announce = el(doc, 'div', { class: 'announce', part: 'announce', role: 'status', 'aria-live': 'polite' });
    const details = el(doc, 'div', { class: 'details', part: 'details' });
    const results = el(doc, 'div', { class: 'results', part: 'results' }, [announce, details]);
    return { announce, details, results };
  }

  /** The saved hints, status and shown solution, drawn again. */
  _restoreState(saved) {
    this._hintsShown = 0;
    for (let i = 0; i < (saved.hintsShown || 0); i++) this._revealHint(false);
    this._updateHintButton();
    this._updateBadge(saved.status);
    if (saved.solutionShown) this._revealSolution(false);
  }

  /** The controls' input: Run, Stop, a hint, the solution, Reset; and the first Run prepared near the viewport. */
  _wireControls(root, ex) {
    const { runBtn, stopBtn, hintBtn, solBtn, resetBtn, solution } = this._ui;
    const t = (key) => this._t(`exercise.${key}`);
    runBtn.addEventListener('click', () => this.run());
    // The first Run is prepared while the learner reads or types: a grading of the reference solution, unseen,
    // opens the sandbox, leaves the next run's worker started and the grader's code compiled (prepare.js).
    const api = () => this._api || undefined;
    const kernels = () => (api() ? api().ready() : loadKernels());
    prepareNear(this, root, kernels, () => gradeExercise(ex.id, ex.solution, { api: api() }));
    this._whenReady();
    stopBtn.addEventListener('click', () => this._running && this._running.abort());
    hintBtn.addEventListener('click', () => this._revealHint(true));
    solBtn.addEventListener('click', () => {
      if (!solution.hidden) return this._hideSolution();
      const saved = this._store.get(ex.id);
      if (saved.status === 'passed' || saved.passedAt) return this._revealSolution(true); // passed, now or before
      this._confirm(t('confirmSolution'), t('showSolution'), () => this._revealSolution(true));
    });
    resetBtn.addEventListener('click', () => {
      this._confirm(t('confirmReset'), t('reset'), () => this.reset());
    });
  }

  _progressBox(doc) {
    const store = this._store;
    const t = (key, params) => this._t(`progress.${key}`, params);
    const note = store.persistent ? t('saved') : t('memoryOnly');
    const json = el(doc, 'textarea', {
      class: 'progress-json',
      part: 'progress-json',
      'aria-label': t('json'),
      spellcheck: false,
      rows: 4,
    });
    const status = el(doc, 'p', { class: 'note', role: 'status' });
    const passedBefore = el(doc, 'p', { class: 'note', part: 'passed-before' });
    this._passedBefore = passedBefore;
    const exportBtn = el(doc, 'button', { type: 'button', part: 'button export-button', text: t('export') });
    const importBtn = el(doc, 'button', { type: 'button', part: 'button import-button', text: t('import') });
    exportBtn.addEventListener('click', () => {
      this._flushSave();
      json.value = store.exportJSON();
      json.select();
      status.textContent = t('exported');
    });
    importBtn.addEventListener('click', () => {
      try {
        const n = store.importJSON(json.value);
        const { skipped } = store.lastImport;
        this._render();
        this._emit('ffn-exercise-progress-imported', { exercise: this._ex.id, count: n });
        const again = this.shadowRoot.querySelector('.progress');
        again.open = true;
        const reason = (s) => this._tr.t('storage.first', { id: s.id, reason: s.reasonMessage ?? s.reason });
        const list =
          skipped.slice(0, 3).map(reason).join(this._t('errors.listSep')) +
          (skipped.length > 3 ? `${this._t('errors.listSep')}…` : '');
        const left = skipped.length ? t('skipped', { n: skipped.length, list }) : '';
        again.querySelector('[role="status"]').textContent = t('imported', { n }) + left + t('afterReload');
      } catch (e) {
        status.textContent = t('importFailed', { message: e.i18n ? msg(e.i18n.key, e.i18n.params) : e.message });
      }
    });
    return el(doc, 'details', { class: 'progress', part: 'progress' }, [
      el(doc, 'summary', { text: t('title') }),
      passedBefore,
      el(doc, 'p', { class: 'note', text: note }),
      el(doc, 'div', { class: 'toolbar' }, [exportBtn, importBtn]),
      json,
      status,
    ]);
  }

  _confirm(text, yesLabel, action) {
    const u = this._ui;
    u.confirmText.textContent = text;
    u.confirmYes.textContent = yesLabel;
    u.confirmRow.hidden = false;
    const close = () => {
      u.confirmRow.hidden = true;
      u.confirmYes.onclick = null;
      u.confirmNo.onclick = null;
    };
    u.confirmYes.onclick = () => {
      close();
      action();
    };
    u.confirmNo.onclick = () => {
      close();
      u.solBtn.focus();
    };
    u.confirmYes.focus();
  }

  /** The badge shows the latest run ('passed' or 'attempted'); the progress panel keeps "passed before". */
  _updateBadge(status) {
    const b = this._ui.badge;
    b.className = `badge ${status || ''}`;
    const badge = { passed: 'exercise.badgePassed', attempted: 'exercise.badgeAttempted' }[status];
    b.textContent = badge ? this._t(badge) : '';
    const when = this._store.get(this._ex.id).passedAt;
    const date = when ? new Date(when) : null;
    const day = date && !Number.isNaN(date.getTime()) && this._tr.date(date);
    this._ui.passedBefore.textContent = day ? this._t('progress.passedOn', { date: day }) : '';
  }

  /**
   * Load the kernels it grades against (FfnElement's lifecycle): ffn-ready once they are, with an exercise shown; a
   * setup problem if they fail.
   */
  _whenReady() {
    if (this._ready) return this._fireReady();
    const api = this._api;
    this._load(() => (api ? api.ready() : loadKernels()), {
      ready: () => !!this._ex,
      failed: (e) => {
        if (this._ex && !this._running) this._showSetupProblem(kernelProblem(e));
      },
    });
  }

  /** Show a setup problem (a message, or the report's text): never the learner's fault, and said so. */
  _showSetupProblem(message) {
    const props = { class: 'summary setup', part: 'summary setup-problem', role: 'alert' };
    const text = isMessage(message) || message instanceof Code ? msg('exercise.setupProblem', { message }) : message;
    const p = el(this.ownerDocument, 'p', props, this._nodes(text));
    this._ui.announce.replaceChildren(p);
    this._ui.details.replaceChildren();
  }

  _updateHintButton() {
    const n = this._hintsShown;
    const total = this._ex.hints.length;
    const text = n < total ? this._t('exercise.hint', { i: n + 1, n: total }) : this._t('exercise.noMoreHints');
    this._ui.hintBtn.textContent = text;
    this._ui.hintBtn.disabled = n >= total;
  }

  _revealHint(user) {
    const ex = this._ex;
    if (this._hintsShown >= ex.hints.length) return;
    const i = this._hintsShown++;
    this._ui.hints.hidden = false;
    const hint = this._text.hints[i];
    this._ui.hints.append(el(this.ownerDocument, 'li', { part: 'hint', text: hint }));
    this._updateHintButton();
    if (user) {
      this._store.update(ex.id, { hintsShown: this._hintsShown });
      this._emit('ffn-exercise-hint', { exercise: ex.id, index: i, hint });
    }
  }

  _revealSolution(user) {
    this._ui.solution.hidden = false;
    this._ui.solBtn.textContent = this._t('exercise.hideSolution');
    if (user) {
      this._store.update(this._ex.id, { solutionShown: true });
      this._emit('ffn-exercise-solution-shown', { exercise: this._ex.id });
    }
  }

  _hideSolution() {
    this._ui.solution.hidden = true;
    this._ui.solBtn.textContent = this._t('exercise.showSolution');
  }

  _scheduleSave() {
    clearTimeout(this._saveTimer);
    this._saveTimer = setTimeout(() => this._saveCode(), 300);
  }

  _flushSave() {
    if (this._saveTimer) {
      clearTimeout(this._saveTimer);
      this._saveTimer = null;
      this._saveCode();
    }
  }

  _saveCode() {
    this._saveTimer = null;
    if (this._ex && this._editor) this._store.update(this._ex.id, { code: this._editor.value });
  }

  /** Reset the exercise: starter code, hints and saved progress cleared. */
  reset() {
    if (!this._ex) return;
    if (this._running) this._running.abort();
    clearTimeout(this._saveTimer); // a pending save must not bring the old code back
    this._saveTimer = null;
    this._store.reset(this._ex.id);
    this._render();
    this._emit('ffn-exercise-reset', { exercise: this._ex.id });
  }

  /** Grade the editor's code; resolves to the report (also announced in the results region). */
  async run() {
    const ex = this._ex;
    if (!ex) return null;
    if (this._running) return null;
    const u = this._ui;
    const code = this._editor.value;
    this._saveCode();
    const controller = new AbortController();
    this._running = controller;
    // Most runs end within this time: "Running…" then does not flash, nor relayout the page in the middle of the run.
    const running = setTimeout(() => {
      if (this._running !== controller) return;
      u.runBtn.disabled = true;
      u.runBtn.textContent = this._t('exercise.running');
      u.stopBtn.hidden = false;
      const summary = { class: 'summary', part: 'summary', text: this._t('exercise.runningTests') };
      u.announce.replaceChildren(el(this.ownerDocument, 'p', summary));
      u.details.replaceChildren();
    }, RUNNING_UI_MS);
    this._emit('ffn-exercise-run', { exercise: ex.id });
    let report;
    try {
      const { signal } = controller;
      const options = { timeout: this.timeout, signal, api: this._api || undefined, seed: this._seed };
      report = await gradeExercise(ex.id, code, options);
    } catch (e) {
      // gradeExercise rejects on nothing the learner wrote: the kernels did not load
      report = null;
      this._showSetupProblem(kernelProblem(e));
    } finally {
      clearTimeout(running);
      this._running = null;
      if (this._ex === ex) {
        u.runBtn.disabled = false;
        u.runBtn.textContent = this._t('exercise.run');
        u.stopBtn.hidden = true;
      }
    }
    if (!report || this._ex !== ex) return report;
    this._report = report;
    if (report.status !== 'setup') {
      // status is the latest run's; passedAt stays once set ("passed before", shown in the progress panel)
      const status = report.passed ? 'passed' : 'attempted';
      this._store.update(ex.id, { code, status, ...(report.passed ? { passedAt: new Date().toISOString() } : {}) });
      this._updateBadge(status);
    }
    this._showReport(report);
    this._emit('ffn-exercise-result', { exercise: ex.id, report });
    if (report.passed) this._emit('ffn-exercise-passed', { exercise: ex.id, report });
    return report;
  }

  /** A number as the reports write it (compare.js's fmtNum), with the decimal mark and minus sign of the language. */
  _num(v) {
    const s = fmtNum(v);
    if (!Number.isFinite(v)) return Number.isNaN(v) ? s : this._t(v > 0 ? 'numbers.infinity' : 'numbers.minusInfinity');
    if (Number.isInteger(v) && Math.abs(v) < 1e15) return this._tr.int(v);
    return s.replace('.', this._tr.decimal).replace(/-/g, this._tr.minus);
  }

  /**
   * A diagnosis naming one of the exercise's known mistakes, in the page's language when the exercise has a
   * translation of that variant (the report carries the definition's own text).
   */
  _variantText(d) {
    const i = this._ex.variants.findIndex((v) => v.id === d.id && v.fn === d.fn);
    if (i < 0) return d;
    const v = this._text.variants[i];
    const original = this._ex.variants[i];
    if (v.title === original.title && v.message === original.message) return d;
    const share = { k: d.explained, n: d.failing, fn: d.fn };
    const message = d.partial ? `${v.message} ${this._t('exercise.partialVariant', share)}` : v.message;
    return { ...d, title: v.title, message };
  }

  /**
   * A report's text in the element's language: `said` is the message grade.js made it from (report.said), shown
   * within the same cap; `english` (the report's own text) where there is none.
   */
  _said(said, english, cap = CAPS.message) {
    if (!isMessage(said)) return english;
    const m = this._exerciseWords(said);
    return clip(this._t(m.key, m.params), cap);
  }

  /** A report's message with the exercise's own words in the element's language: test names, item and order. */
  _exerciseWords(m, depth = 0) {
    const { tests, words } = this._text;
    const params = {};
    for (const [k, v] of Object.entries(m.params)) {
      if (isMessage(v) && depth < 8) params[k] = this._exerciseWords(v, depth + 1);
      else if (k === 'name' && typeof v === 'string' && tests[v]) params[k] = tests[v];
      else if ((k === 'item' || k === 'order') && typeof v === 'string' && words[v.trim()]) {
        params[k] = v.replace(v.trim(), words[v.trim()]);
      } else params[k] = v;
    }
    return msg(m.key, params);
  }

  /** A diagnosis as shown: an exercise's mistake (translated by the exercise), or one of grading's own messages. */
  _diagnosisText(d) {
    const v = this._variantText(d);
    if (v !== d || !d.said) return v;
    const message = this._said(d.said.message, d.message, CAPS.diagnosis);
    return { ...d, title: this._said(d.said.title, d.title), message };
  }

  /** One line of the hidden tests' list: the test's name and what happened. */
  _testLine(t) {
    const name = this._text.tests[t.name] ?? t.name;
    if (t.pass) {
      return t.maxError > 0
        ? this._t('exercise.testPassedError', { name, error: this._num(t.maxError) })
        : this._t('exercise.testPassed', { name });
    }
    const key = { 'not-run': 'testNotRun', timeout: 'testTimedOut' }[t.status] || 'testFailed';
    return this._t(`exercise.${key}`, { name });
  }

  _showReport(report) {
    const doc = this.ownerDocument;
    const u = this._ui;
    const heard = [];
    const parts = [];
    if (report.status === 'setup') {
      this._editor.markLine(null);
      const setup = report.said && report.said.setup;
      const problem = isMessage(setup) ? siteProblem(setup) : typeof setup === 'string' ? code(setup) : null;
      this._showSetupProblem(problem ?? report.summary);
      return;
    }
    const said = report.said || { tests: [], notes: [] };
    const summary = this._said(said.summary, report.summary);
    const summaryClass = `summary ${report.passed ? 'pass' : 'fail'}`;
    heard.push(el(doc, 'p', { class: summaryClass, part: 'summary', text: summary }));
    const errLine = report.error && report.error.line;
    this._editor.markLine(errLine || null);
    if (report.error && report.error.line) {
      const goTo = this._t('exercise.goToLine', { line: report.error.line });
      const go = el(doc, 'button', { type: 'button', class: 'link', text: goTo });
      go.addEventListener('click', () => this._editor.goTo(report.error.line, report.error.column || 1));
      heard.push(el(doc, 'p', {}, [go]));
    }
    for (const d of report.diagnoses.map((x) => this._diagnosisText(x))) {
      heard.push(
        el(doc, 'div', { class: 'diagnosis', part: 'diagnosis' }, [
          el(doc, 'strong', { text: this._t('exercise.likelyMistake', { title: d.title }) }),
          el(doc, 'span', { text: d.message }),
        ]),
      );
    }
    for (const [i, note] of (report.notes || []).entries()) {
      const text = this._said(said.notes[i], note, CAPS.note);
      parts.push(el(doc, 'p', { class: 'note', part: 'note', text: text }));
    }
    if (report.status !== 'error') {
      const list = el(doc, 'ul', { class: 'tests', part: 'tests', 'aria-label': this._t('exercise.hiddenTests') });
      for (const [i, t] of report.tests.entries()) {
        const mark = t.pass ? '✓' : t.status === 'not-run' ? '–' : '✗';
        const part = t.pass ? 'test test-pass' : 'test test-fail';
        const li = el(doc, 'li', { class: t.pass ? 'pass' : t.status, part }, [
          el(doc, 'span', { class: 'mark', 'aria-hidden': 'true', text: mark }),
          el(doc, 'span', { text: this._testLine(t) }),
        ]);
        const detail = !t.pass && t.message && this._said(said.tests[i], t.message);
        if (detail) li.append(el(doc, 'span', { class: 'detail', text: detail }));
        list.append(li);
      }
      parts.push(list);
      const tol = report.tolerance;
      const tolerance = this._t('exercise.tolerance', { atol: this._num(tol.atol), rtol: this._num(tol.rtol) });
      parts.push(el(doc, 'p', { class: 'note', part: 'tolerance', text: tolerance }));
    }
    if (report.passed) {
      parts.push(el(doc, 'p', { class: 'note', text: this._t('exercise.wellDone') }));
      u.solBtn.textContent = this._t(u.solution.hidden ? 'exercise.compareSolution' : 'exercise.hideSolution');
    }
    if (report.logs.length) {
      parts.push(
        el(doc, 'details', { part: 'logs-box' }, [
          el(doc, 'summary', { text: this._t('exercise.consoleOutput', { n: report.logs.length }) }),
          el(doc, 'pre', {
            class: 'logs',
            part: 'logs',
            text: report.logs.map((l) => (l.level === 'log' ? l.text : `[${l.level}] ${l.text}`)).join('\n'),
          }),
        ]),
      );
    }
    u.announce.replaceChildren(...heard);
    u.details.replaceChildren(...parts);
  }
}

/** Register <ffn-exercise> once (safe to call repeatedly; a no-op outside browsers). */
export function defineFfnExercise(name = 'ffn-exercise') {
  return define(name, name === 'ffn-exercise' ? FfnExerciseElement : class extends FfnExerciseElement {});
}
