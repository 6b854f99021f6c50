// The <ffn-exercise> element class (no registration here): its attributes and properties, lifecycle, rendering
// (drawn by view.js and report-view.js, wired by controls.js), Run and Reset, notices and saved progress.
import { getExercise, onExerciseDefined, definedExerciseIds, exerciseText, toMessage } from '../grade/index.js';
import { codeProblem, DEFAULT_STORAGE_KEY } from './storage.js';
import { textareaEditor } from './editor.js';
import { FfnElement, define, createEl as el } from '../../element-base.js';
import { ready as loadKernels } from '../../index.js';
import { translator, langOf, msg } from '../../i18n/index.js';
import { STYLE } from './style.js';
import { readTimeout, readNumber, describe } from './attributes.js';
import { kernelProblem, messageNodes } from './message-nodes.js';
import { gradeExercise } from './grader.js';
import { openStore, flushSave, saveCode } from './saving.js';
import {
  drawIntro,
  drawEditor,
  drawControls,
  drawResults,
  drawProgress,
  updateBadge,
  updateHintButton,
} from './view.js';
import { showReport, showSetupProblem } from './report-view.js';
import { wireControls, wireProgress, editorInput, revealHint, revealSolution } from './controls.js';
import { renderFirst, takeFirst, upgradingAll } from './first-render.js';

// The attribute readers, also imported from here by tests and the wing's face.
export { TIMEOUT_RANGE, NUMBER_MAX, readTimeout, readStorageKey, readNumber } from './attributes.js';

const RUNNING_UI_MS = 150; // a run shows "Running…" (and its Stop button) only once it has taken this long
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

  /** Set (or clear, with null) the notice about `what` (a message), and show the notices if rendered. */
  _notice(what, text) {
    if (text) this._notices.set(what, text);
    else this._notices.delete(what);
    if (this._ui && this._ui.notice) this._showNotices(this._ui.notice);
  }

  _showNotices(box) {
    const lines = [...this._notices.values()].flatMap((m, i) => [
      ...(i ? ['\n'] : []),
      ...messageNodes(this.ownerDocument, this._tr, m),
    ]);
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
    this._renderNow();
    return this._editor ? this._editor.value : '';
  }
  /** Replace the code: a string within the progress bounds (100,000 characters, 5,000 lines); else a notice. */
  set code(v) {
    this._renderNow();
    if (!this._editor) return;
    const why = codeProblem(v);
    if (why) {
      this._notice('code', msg('exercise.codeRefused', { why: toMessage(why) }));
      return;
    }
    this._notice('code', null);
    this._editor.value = v;
    saveCode(this);
  }

  connectedCallback() {
    super.connectedCallback();
    // in the page's markup: drawn in a task of its own (first-render.js); connected by a script: now
    if (this._rendered !== this._renderKey() || !this._ex) this._renderFirstOrNow();
  }

  /** Render; a first rendering while the page's elements are upgraded waits for a task of its own. */
  _renderFirstOrNow() {
    if (this._rendered === null) renderFirst(this, () => this._render());
    else this._render();
  }

  /** A first drawing still deferred (first-render.js): done now, for a property or method that needs it. */
  _renderNow() {
    if (takeFirst(this) && this.isConnected) this._render();
  }

  /** The language (of the element or the page) or its table changed: render again, keeping the last report. */
  _relocalize() {
    if (!this.isConnected || (translator(langOf(this)) === this._tr && langOf(this) === this._lang)) return;
    const report = this._running ? null : this._report;
    this._render();
    if (report && this._ex && report.exercise === this._ex.id) showReport(this, report);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this._stopWaiting();
    if (this._running) this._running.abort();
    flushSave(this);
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue || !this.isConnected) return;
    if (name === 'lang') return this._relocalize();
    if (name === 'timeout') this._notice('timeout', readTimeout(newValue).notice);
    if (name === 'exercise' || name === 'storage-key') this._renderFirstOrNow();
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
    takeFirst(this);
    this._teardown();
    const root = this.shadowRoot;
    const doc = this.ownerDocument;
    const ex = this._resolveExercise(root, doc);
    if (!ex) return;
    const saved = openStore(this, ex);
    const intro = drawIntro(this, doc, ex);
    const editor = drawEditor(this, doc, root, ex, saved, editorInput(this));
    const controls = drawControls(this, doc, ex);
    const results = drawResults(doc);
    const progress = drawProgress(this, doc);
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
      progress.box,
    ]);
    root.append(section);
    const { toolbar, ...parts } = controls;
    const { title, badge } = intro;
    this._ui = { title, section, notice, passedBefore: progress.passedBefore, badge, ...results, ...parts };
    this._restoreState(saved);
    wireControls(this, root, ex);
    wireProgress(this, progress);
  }

  /** Before a render: the last save written, a run stopped, the editor and the shadow tree emptied. */
  _teardown() {
    flushSave(this);
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

  /** The saved hints, status and shown solution, drawn again. */
  _restoreState(saved) {
    this._hintsShown = 0;
    for (let i = 0; i < (saved.hintsShown || 0); i++) revealHint(this, false);
    updateHintButton(this);
    updateBadge(this, saved.status);
    if (saved.solutionShown) revealSolution(this, false);
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
        if (this._ex && !this._running) showSetupProblem(this, kernelProblem(e));
      },
    });
  }

  /** Reset the exercise: starter code, hints and saved progress cleared. */
  reset() {
    this._renderNow();
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
    this._renderNow();
    const ex = this._ex;
    if (!ex) return null;
    if (this._running) return null;
    const u = this._ui;
    const code = this._editor.value;
    saveCode(this);
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
      showSetupProblem(this, kernelProblem(e));
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
      updateBadge(this, status);
    }
    showReport(this, report);
    this._emit('ffn-exercise-result', { exercise: ex.id, report });
    if (report.passed) this._emit('ffn-exercise-passed', { exercise: ex.id, report });
    return report;
  }
}

/** Register <ffn-exercise> once (safe to call repeatedly; a no-op outside browsers). */
export function defineFfnExercise(name = 'ffn-exercise') {
  const cls = name === 'ffn-exercise' ? FfnExerciseElement : class extends FfnExerciseElement {};
  return upgradingAll(() => define(name, cls)); // the page's exercises drawn one per task (first-render.js)
}
